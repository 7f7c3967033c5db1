//! Hand-written f32 kernels of the CPU BERT ([`super::cpu`]): a matrix product
//! over strided slices (the `gemm` crate, the kernel candle itself calls) and the element-wise
//! passes of a BERT layer (bias + GELU, bias + residual LayerNorm, row softmax).
//!
//! Why hand-written: candle runs its element-wise operations one at a time, each a full pass
//! over memory with a scalar `erf` or `exp` per element, on one thread. On the shallow
//! reranking stage (20 pairs of ~250 tokens) those passes cost as much CPU time as the matrix
//! products. Here each pass is fused with the bias add that precedes it, runs over rows still
//! in cache after their product, and is written as plain loops over contiguous slices that the
//! compiler vectorizes (AVX-512 or AVX2 chosen at run time, SSE2 otherwise).
//!
//! Accuracy: `exp` is a Cody-Waite range reduction with a degree-6 Taylor polynomial (relative
//! error ~2e-7 over the range used); `erf` is Abramowitz and Stegun 7.1.26 (absolute error
//! 1.5e-7 in exact arithmetic, under 5e-7 in f32). End to end the BERT cross-encoder stays within 1e-4 of a float64 numpy
//! forward pass (the `cross_encoder` tests).

/// Run `$body` compiled for AVX-512 or AVX2+FMA when the CPU has them (checked at run time),
/// else for the baseline target. `$body` is inlined into each variant so that the compiler
/// vectorizes it with that instruction set.
macro_rules! dispatch {
    ($body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
            fn v4<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            #[target_feature(enable = "avx2,fma")]
            fn v3<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            if avx512_enabled() {
                // SAFETY: the CPU has the features `v4` is compiled for (checked just above).
                unsafe { v4(|| $body) }
            } else if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has the features `v3` is compiled for (checked just above).
                unsafe { v3(|| $body) }
            } else {
                $body
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            $body
        }
    }};
}

/// Whether the kernels may use AVX-512 (F, BW, DQ, VL): the CPU has it, and `GOS_AVX512` is
/// not `off`. `GOS_AVX512=off` runs the AVX2 + FMA kernels (the panel products of
/// [`super::panels`] and the AVX2 element-wise passes) on an AVX-512 CPU, to measure on one
/// machine what a CPU without AVX-512 gets (`encoder_bench`, docs/performance.md). Read once.
pub(crate) fn avx512_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            avx512_allowed()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Whether `GOS_AVX512` leaves AVX-512 on (anything but `off`, or unset); read once.
pub(crate) fn avx512_allowed() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("GOS_AVX512").map_or(true, |v| v != "off"))
}

/// Lanes of the partial sums of a reduction: wide enough for an AVX-512 register of f32.
const LANES: usize = 16;

/// `c = a · b` (or `c += a · b` when `accumulate`), single-threaded, where `a` is `m x k` with
/// row stride `a_rs` (unit column stride), `b` is `k x n` with row stride `b_rs` and column
/// stride `b_cs`, and `c` is `m x n` with row stride `c_rs` (unit column stride). Strides are
/// in elements; the slices start at element (0, 0).
///
/// # Panics
/// When a slice is too short for its shape and strides, or a row stride is smaller than the
/// row it holds (an internal shape error, never input-derived: callers size every buffer from
/// the same lengths).
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul(
    (m, n, k): (usize, usize, usize),
    a: &[f32],
    a_rs: usize,
    (b, b_rs, b_cs): (&[f32], usize, usize),
    c: &mut [f32],
    c_rs: usize,
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(
        c_rs >= n && c.len() >= (m - 1) * c_rs + n,
        "matmul: destination too short"
    );
    // SAFETY: `c` holds the m x n elements at stride c_rs (asserted above) and is borrowed
    // mutably, so no one else touches it.
    unsafe {
        matmul_ptr(
            (m, n, k),
            a,
            a_rs,
            (b, b_rs, b_cs),
            c.as_mut_ptr(),
            c_rs,
            accumulate,
        )
    }
}

/// [`matmul`] into a raw destination: `c` points at element (0, 0) of `C`, row stride `c_rs`.
/// Lets tasks write disjoint column ranges of one matrix in parallel.
///
/// # Safety
/// `c` must be valid for reads and writes of rows `0..m`, columns `0..n` at stride `c_rs`, and
/// no other thread may access those elements during the call.
///
/// # Panics
/// As [`matmul`], for `a` and `b`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn matmul_ptr(
    (m, n, k): (usize, usize, usize),
    a: &[f32],
    a_rs: usize,
    (b, b_rs, b_cs): (&[f32], usize, usize),
    c: *mut f32,
    c_rs: usize,
    accumulate: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                // SAFETY: row i's n elements are the caller's.
                unsafe { std::slice::from_raw_parts_mut(c.add(i * c_rs), n).fill(0.0) };
            }
        }
        return;
    }
    assert!(
        a_rs >= k && c_rs >= n,
        "matmul: row stride under the row width"
    );
    assert!(a.len() >= (m - 1) * a_rs + k, "matmul: lhs too short");
    assert!(
        b.len() > (k - 1) * b_rs + (n - 1) * b_cs,
        "matmul: rhs too short"
    );
    let i = |v: usize| v as isize;
    // SAFETY: the asserts above keep every element of `a` and `b` the strides reach inside its
    // slice; `c` is the caller's (see # Safety) and aliases neither.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c,
            1,
            i(c_rs),
            accumulate,
            a.as_ptr(),
            1,
            i(a_rs),
            b.as_ptr(),
            i(b_cs),
            i(b_rs),
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// `e^x` for `x` in about [-87, 88] (clamped outside), relative error ~2e-7.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // 1.5 * 2^23: adding and subtracting it rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * LOG2E + ROUND;
    let n = shifted - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^n from the exponent bits. The low mantissa bits of `shifted` hold n (in [-126, 127]
    // after the clamp) as an offset from ROUND's bits, so integer arithmetic on the bits gives
    // the biased exponent without a float-to-int conversion (which would not vectorize).
    let biased = shifted
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127);
    p * f32::from_bits(biased << 23)
}

/// `erf(x)`, Abramowitz and Stegun 7.1.26 (absolute error under 5e-7 in f32).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp(-z * z)).copysign(x)
}

/// Exact GELU, `0.5 x (1 + erf(x / sqrt 2))`.
#[inline(always)]
fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// tanh-approximated GELU, as Hugging Face's `gelu_new`.
#[inline(always)]
fn gelu_tanh(x: f32) -> f32 {
    const C: f32 = 0.797_884_6; // sqrt(2 / pi)
    let u = C * (x + 0.044_715 * x * x * x);
    // tanh(u) = 1 - 2 / (e^{2u} + 1)
    let th = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
    0.5 * x * (1.0 + th)
}

/// Activation of the feed-forward block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activation {
    /// Exact (erf) GELU.
    Gelu,
    /// tanh-approximated GELU.
    GeluTanh,
    /// `max(x, 0)`.
    Relu,
}

/// Each row of `rows` (width `bias.len()`; nothing when it is 0) becomes `act(row + bias)`.
pub(crate) fn bias_activation(rows: &mut [f32], bias: &[f32], act: Activation) {
    if bias.is_empty() {
        return;
    }
    dispatch!({
        for row in rows.chunks_exact_mut(bias.len()) {
            match act {
                Activation::Gelu => {
                    for (v, b) in row.iter_mut().zip(bias) {
                        *v = gelu_erf(*v + b);
                    }
                }
                Activation::GeluTanh => {
                    for (v, b) in row.iter_mut().zip(bias) {
                        *v = gelu_tanh(*v + b);
                    }
                }
                Activation::Relu => {
                    for (v, b) in row.iter_mut().zip(bias) {
                        *v = (*v + b).max(0.0);
                    }
                }
            }
        }
    })
}

/// Each row of `rows` (width `bias.len()`; nothing when it is 0) becomes `row + bias`.
pub(crate) fn add_bias(rows: &mut [f32], bias: &[f32]) {
    if bias.is_empty() {
        return;
    }
    dispatch!({
        for row in rows.chunks_exact_mut(bias.len()) {
            for (v, b) in row.iter_mut().zip(bias) {
                *v += b;
            }
        }
    })
}

#[inline(always)]
fn sum(x: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[inline(always)]
fn max(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail = chunks
        .remainder()
        .iter()
        .fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a = a.max(*v);
        }
    }
    acc.iter().fold(tail, |m, v| m.max(*v))
}

/// LayerNorm parameters: `(x - mean) / sqrt(var + eps) * gamma + beta` over each row.
#[derive(Debug)]
pub(crate) struct Norm {
    /// Scale, one per column.
    pub gamma: Vec<f32>,
    /// Shift, one per column.
    pub beta: Vec<f32>,
    /// Added to the variance.
    pub eps: f32,
}

/// Each row of `rows` (width `norm.gamma.len()`) becomes `LayerNorm(row + bias)`; `bias` may be
/// empty (no bias).
pub(crate) fn bias_layer_norm(rows: &mut [f32], bias: &[f32], norm: &Norm) {
    let width = norm.gamma.len();
    if width == 0 {
        return;
    }
    dispatch!({
        for row in rows.chunks_exact_mut(width) {
            if !bias.is_empty() {
                for (v, b) in row.iter_mut().zip(bias) {
                    *v += b;
                }
            }
            let mean = sum(row) / width as f32;
            for v in row.iter_mut() {
                *v -= mean;
            }
            let mut acc = [0.0f32; LANES];
            let chunks = row.chunks_exact(LANES);
            let tail: f32 = chunks.remainder().iter().map(|v| v * v).sum();
            for c in chunks {
                for (a, v) in acc.iter_mut().zip(c) {
                    *a += v * v;
                }
            }
            let var = (acc.iter().sum::<f32>() + tail) / width as f32;
            let inv = 1.0 / (var + norm.eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
                *v = *v * inv * g + b;
            }
        }
    })
}

/// Softmax over each row of `rows` (width `width`; nothing when it is 0), in place.
pub(crate) fn softmax_rows(rows: &mut [f32], width: usize) {
    if width == 0 {
        return;
    }
    dispatch!({
        for row in rows.chunks_exact_mut(width) {
            let m = max(row);
            for v in row.iter_mut() {
                *v = exp(*v - m);
            }
            let inv = 1.0 / sum(row);
            for v in row.iter_mut() {
                *v *= inv;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_are_accurate_over_their_range() {
        let mut worst_exp = 0.0f64;
        let mut worst_erf = 0.0f64;
        for i in -8_000..=8_000 {
            let x = i as f32 * 0.01;
            let want = (x as f64).exp();
            worst_exp = worst_exp.max(((exp(x) as f64 - want) / want).abs());
            let x = i as f32 * 0.001;
            worst_erf = worst_erf.max((erf(x) as f64 - erf64(x as f64)).abs());
        }
        assert!(worst_exp < 5e-7, "exp relative error {worst_exp}");
        assert!(worst_erf < 5e-7, "erf absolute error {worst_erf}");
        // Clamped outside the range: tiny or huge, never 0, infinite or NaN.
        assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-37);
        assert!(exp(1000.0).is_finite() && exp(1000.0) > 1e38);
    }

    /// erf by its Taylor series (|x| < 3) or the continued fraction of erfc, in f64.
    fn erf64(x: f64) -> f64 {
        let z = x.abs();
        let v = if z < 3.0 {
            let (mut term, mut s) = (z, z);
            for n in 1..200 {
                term *= -z * z / n as f64;
                s += term / (2 * n + 1) as f64;
            }
            s * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            let mut f = 0.0;
            for n in (1..60).rev() {
                f = n as f64 / 2.0 / (z + f);
            }
            1.0 - (-z * z).exp() / std::f64::consts::PI.sqrt() / (z + f)
        };
        v.copysign(x)
    }

    #[test]
    fn matmul_matches_a_naive_product_with_strides() {
        let (m, n, k) = (5, 3, 4);
        let a: Vec<f32> = (0..m * 6).map(|v| v as f32 * 0.5 - 3.0).collect(); // row stride 6
        // b stored transposed: element (p, j) at j * 7 + p.
        let b: Vec<f32> = (0..n * 7).map(|v| (v % 5) as f32 - 1.5).collect();
        let mut c = vec![1.0f32; m * 4]; // row stride 4
        matmul((m, n, k), &a, 6, (&b, 1, 7), &mut c, 4, true);
        for i in 0..m {
            for j in 0..n {
                let want: f32 = 1.0 + (0..k).map(|p| a[i * 6 + p] * b[j * 7 + p]).sum::<f32>();
                assert!((c[i * 4 + j] - want).abs() < 1e-5, "({i},{j})");
            }
            assert_eq!(c[i * 4 + 3], 1.0, "column past n untouched");
        }
    }

    #[test]
    fn softmax_layer_norm_and_gelu_match_scalar_formulas() {
        let width = 37; // not a multiple of the lane count
        let row: Vec<f32> = (0..width)
            .map(|i| ((i * 7) % 11) as f32 * 0.9 - 4.0)
            .collect();
        let mut s = row.clone();
        softmax_rows(&mut s, width);
        let m = row.iter().cloned().fold(f32::MIN, f32::max) as f64;
        let z: f64 = row.iter().map(|v| (*v as f64 - m).exp()).sum();
        for (got, v) in s.iter().zip(&row) {
            assert!((*got as f64 - (*v as f64 - m).exp() / z).abs() < 1e-7);
        }
        let bias: Vec<f32> = (0..width).map(|i| i as f32 * 0.01).collect();
        let norm = Norm {
            gamma: (0..width).map(|i| 1.0 + i as f32 * 0.1).collect(),
            beta: vec![0.25; width],
            eps: 1e-12,
        };
        let mut l = row.clone();
        bias_layer_norm(&mut l, &bias, &norm);
        let xb: Vec<f64> = row.iter().zip(&bias).map(|(v, b)| (v + b) as f64).collect();
        let mean = xb.iter().sum::<f64>() / width as f64;
        let var = xb.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / width as f64;
        for i in 0..width {
            let want = (xb[i] - mean) / (var + 1e-12).sqrt() * norm.gamma[i] as f64 + 0.25;
            assert!((l[i] as f64 - want).abs() < 1e-5, "{i}: {} vs {want}", l[i]);
        }
        let mut g = row.clone();
        bias_activation(&mut g, &bias, Activation::Gelu);
        for i in 0..width {
            let x = xb[i];
            let want = 0.5 * x * (1.0 + erf64(x / 2f64.sqrt()));
            assert!((g[i] as f64 - want).abs() < 1e-6, "{i}: {} vs {want}", g[i]);
        }
        let mut t = row.clone();
        bias_activation(&mut t, &bias, Activation::GeluTanh);
        for i in 0..width {
            let x = xb[i];
            let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3));
            let want = 0.5 * x * (1.0 + u.tanh());
            assert!((t[i] as f64 - want).abs() < 1e-6, "{i}: {} vs {want}", t[i]);
        }
    }
}
