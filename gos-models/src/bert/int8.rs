//! int8 linear layers for the query encoder (issue 24 item 2, opt-in): weights quantized once
//! at load to int8 per output channel, activations per row at every product to 16-bit
//! integers, the integer products summed exactly in i32 and scaled back to f32.
//!
//! Scheme (symmetric, no zero points): a weight column `j` (one output) has the scale
//! `s_j = max_p |W[p, j]| / 127` and values `round(W[p, j] / s_j)` in `[-127, 127]`; an input
//! row `i` gets `t_i = max_p |x[i, p]| / R` and values in `[-R, R]`, where `R`
//! ([`activation_range`]) is the largest range for which `k · R · 127` fits in i32 (11,008
//! for k = 1,536). Then `y[i, j] ≈ t_i · s_j · Σ_p qx[i, p] · qw[p, j]`, the sum exact in i32.
//! Measured first with 8-bit activations (R = 127): all-MiniLM-L6-v2's query vectors then
//! agreed with f32 at cosine min 0.9972 / mean 0.9982 on the 48 DEV task texts, under the
//! 0.999 asked for (the LayerNorm and GELU outputs have outlier features that take the row's
//! range); with 16-bit activations the weights' rounding is what is left.
//!
//! Kernel: the values are held as i16 and multiplied with `vpmaddwd` (AVX2: 16 products and 8
//! pair sums per instruction, twice the lanes of an f32 FMA). A right-hand side is packed into
//! panels of [`NR`] = 16 columns; per pair of rows `(2q, 2q + 1)` of `k` a panel holds 32
//! values, columns 0..8 then 8..16, each column's two values adjacent, so one `vpmaddwd` of a
//! broadcast pair of `x` values against 8 columns gives 8 partial dot products. The
//! micro-kernel keeps 6 rows × 16 columns in 12 ymm i32 accumulators, like the f32 panel
//! kernel of [`super::panels`]. Without AVX2 a portable loop computes the same integers.

use super::panels::{MR, NR};
use std::ops::Range;
use std::sync::OnceLock;

/// Largest magnitude of a quantized value.
const QMAX: f32 = 127.0;

/// Pairs of `k` per pass: a panel's block is `KQ × 32 × 2` bytes = 16 KiB, half of a 32 KiB L1
/// data cache (as [`super::panels::KC`] for the f32 kernel).
const KQ: usize = 256;

/// Whether this CPU runs the AVX2 kernel (checked once).
fn has_avx2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// `(scale, 1 / scale)` of a row or column whose largest magnitude is `max`: `max / 127`, and
/// `(0, 0)` for an all-zero one (its values quantize to 0).
fn scale_of(max: f32) -> (f32, f32) {
    if max > 0.0 {
        (max / QMAX, QMAX / max)
    } else {
        (0.0, 0.0)
    }
}

/// `round(v · inv)` clamped to `[-127, 127]`, as i16.
fn quantize_value(v: f32, inv: f32) -> i16 {
    (v * inv).round().clamp(-QMAX, QMAX) as i16
}

/// A weight matrix, `k` inputs by `n` outputs, quantized per output column and packed into
/// panels (see the module doc). `k` is padded to an even count with zeros.
pub(crate) struct QuantizedPanels {
    data: Vec<i16>,
    /// Per output column `j`: `s_j`, the value of one step.
    scales: Vec<f32>,
    k: usize,
    n: usize,
}

impl QuantizedPanels {
    /// Quantize a weight given PyTorch's way, `(outputs, inputs)` row-major (`n = outputs`,
    /// `k = inputs`).
    ///
    /// # Panics
    /// When `weight` holds fewer than `outputs × inputs` values (an internal shape error).
    pub(crate) fn from_weight(weight: &[f32], outputs: usize, inputs: usize) -> Self {
        assert!(
            weight.len() >= outputs * inputs,
            "QuantizedPanels: weight too short"
        );
        let pairs = inputs.div_ceil(2);
        let panels = outputs.div_ceil(NR);
        let mut data = vec![0i16; panels * pairs * 2 * NR];
        let mut scales = vec![0.0f32; outputs];
        for (o, row) in weight.chunks_exact(inputs.max(1)).take(outputs).enumerate() {
            let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let (scale, inv) = scale_of(max);
            scales[o] = scale;
            let (j, c) = (o / NR, o % NR);
            // Column c of panel j: half c / 8 of each pair block, lane pair c % 8.
            let lane = (c / 8) * NR + (c % 8) * 2;
            for (p, v) in row.iter().enumerate() {
                let at = (j * pairs + p / 2) * 2 * NR + lane + p % 2;
                data[at] = quantize_value(*v, inv);
            }
        }
        QuantizedPanels {
            data,
            scales,
            k: inputs,
            n: outputs,
        }
    }

    /// Number of panels, `ceil(n / 16)`.
    pub(crate) fn panels(&self) -> usize {
        self.n.div_ceil(NR)
    }

    /// Pairs of `k`, `ceil(k / 2)`.
    fn pairs(&self) -> usize {
        self.k.div_ceil(2)
    }

    /// The dequantized weight `W[p, j]` (input `p`, output `j`): what the products multiply by.
    #[cfg(test)]
    pub(crate) fn dequantized(&self, p: usize, j: usize) -> f32 {
        let (panel, c) = (j / NR, j % NR);
        let lane = (c / 8) * NR + (c % 8) * 2;
        let at = (panel * self.pairs() + p / 2) * 2 * NR + lane + p % 2;
        self.data[at] as f32 * self.scales[j]
    }
}

/// Rows of an input quantized per row (see the module doc), `k` padded to even with zeros.
/// Each pair of values is one `i32` (low half first), so that the kernel broadcasts a pair
/// with one aligned 32-bit load.
#[derive(Default)]
pub(crate) struct QuantizedRows {
    data: Vec<i32>,
    /// Per row `i`: `t_i`.
    scales: Vec<f32>,
    /// Values per row after padding (even).
    stride: usize,
}

impl QuantizedRows {
    /// Quantize `rows` rows of `k` values of `x` (row-major, row stride `k`) to the integer
    /// range [`activation_range`] gives for `k`.
    ///
    /// # Panics
    /// When `x` holds fewer than `rows × k` values (an internal shape error).
    pub(crate) fn quantize(x: &[f32], rows: usize, k: usize) -> Self {
        assert!(x.len() >= rows * k, "QuantizedRows: input too short");
        let stride = k.div_ceil(2) * 2;
        let range = activation_range(k);
        let mut data = vec![0i32; rows * stride / 2];
        let mut scales = vec![0.0f32; rows];
        let avx2 = has_avx2();
        // SAFETY: the i32 buffer viewed as twice as many i16 (same allocation, alignment 4 >=
        // 2, every bit pattern valid); on little-endian x86-64 the first i16 of a pair is the
        // low half, which is what `vpmaddwd` multiplies with the even row of the weights.
        let values = unsafe {
            std::slice::from_raw_parts_mut(data.as_mut_ptr() as *mut i16, data.len() * 2)
        };
        for ((row, out), scale) in x
            .chunks_exact(k.max(1))
            .take(rows)
            .zip(values.chunks_exact_mut(stride.max(1)))
            .zip(&mut scales)
        {
            *scale = quantize_row(avx2, row, range, &mut out[..k]);
        }
        QuantizedRows {
            data,
            scales,
            stride,
        }
    }

    /// Number of rows.
    pub(crate) fn rows(&self) -> usize {
        self.scales.len()
    }
}

/// The largest magnitude of a quantized activation for products over `k` inputs: as large as
/// i16 allows (32,767) while `k · range · 127` stays within i32 (for k = 1,536: 11,008, so
/// about 14 bits; for BERT-base's 3,072: 5,504). The activations keep far more precision than
/// the weights, so the weights' int8 rounding is what differs from f32.
pub(crate) fn activation_range(k: usize) -> f32 {
    let k = (k.div_ceil(2) * 2).max(1) as i64;
    (i32::MAX as i64 / (k * QMAX as i64)).min(i16::MAX as i64) as f32
}

/// Quantize one row to `[-range, range]` (round to nearest, ties to even) into `out`; returns
/// its scale (`max |x| / range`, 0 for an all-zero row).
fn quantize_row(avx2: bool, row: &[f32], range: f32, out: &mut [i16]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: AVX2 is present (`avx2`); `out` and `row` have the same length.
        return unsafe { avx2::quantize_row(row, range, out) };
    }
    let _ = avx2;
    let max = row.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    if max == 0.0 {
        out.fill(0);
        return 0.0;
    }
    let inv = range / max;
    for (o, v) in out.iter_mut().zip(row) {
        *o = (v * inv).round_ties_even().clamp(-range, range) as i16;
    }
    max / range
}

/// `C[.., cols] = A · B[.., cols]` (or `+=` when `accumulate`) for the columns of panels
/// `panels` of `b`, from the quantized rows `a` (`a.rows() × k`) and weights `b` (`k × n`),
/// single-threaded. `C` is f32 row-major with row stride `c_rs`, `c` pointing at its column 0.
///
/// # Safety
/// `c` must be valid for reads and writes of rows `0..a.rows()`, columns `16 · panels.start ..
/// min(16 · panels.end, n)` at stride `c_rs`, and no other thread may access those elements
/// during the call (other columns may be written concurrently).
///
/// # Panics
/// When `a` and `b` disagree on `k`, or `panels` reaches past `b`'s panels.
pub(crate) unsafe fn matmul_quantized(
    a: &QuantizedRows,
    b: &QuantizedPanels,
    panels: Range<usize>,
    c: *mut f32,
    c_rs: usize,
    accumulate: bool,
) {
    // SAFETY: passed on from the caller.
    unsafe { matmul_quantized_on(has_avx2(), a, b, panels, c, c_rs, accumulate) }
}

/// [`matmul_quantized`] with the kernel chosen by the caller (`avx2` only on a CPU with AVX2).
///
/// # Safety
/// As [`matmul_quantized`]; and `avx2` only when the CPU has AVX2.
unsafe fn matmul_quantized_on(
    avx2: bool,
    a: &QuantizedRows,
    b: &QuantizedPanels,
    panels: Range<usize>,
    c: *mut f32,
    c_rs: usize,
    accumulate: bool,
) {
    let pairs = b.pairs();
    assert!(panels.end <= b.panels(), "matmul_quantized: panel range");
    assert_eq!(a.stride, 2 * pairs, "matmul_quantized: inputs differ");
    let m = a.rows();
    if m == 0 || panels.is_empty() {
        return;
    }
    let blocks = pairs.div_ceil(KQ).max(1);
    let block_len = pairs.div_ceil(blocks);
    for block in 0..blocks {
        let q0 = block * block_len;
        let kq = block_len.min(pairs - q0.min(pairs));
        let load_c = accumulate || block > 0;
        for j in panels.clone() {
            let cols = NR.min(b.n - j * NR);
            let base = (j * pairs + q0) * 2 * NR;
            let bp = &b.data[base..base + kq * 2 * NR];
            let sw = &b.scales[j * NR..j * NR + cols];
            let mut i0 = 0;
            while i0 < m {
                let rows = MR.min(m - i0);
                let ap = &a.data[(i0 * a.stride) / 2 + q0..];
                let sa = &a.scales[i0..i0 + rows];
                // SAFETY: the caller gives `c` for these rows and columns; `ap` holds `rows`
                // rows of `kq` pairs at stride `a.stride`, `bp` `kq` pair blocks.
                unsafe {
                    let cp = c.add(i0 * c_rs + j * NR);
                    tile(avx2, rows, kq, ap, a.stride, bp, sa, sw, cp, c_rs, load_c);
                }
                i0 += rows;
            }
        }
    }
}

/// One micro-kernel call: `C[r, col] (+)= sa[r] · sw[col] · Σ_q A[r, q] · B[q, col]` for
/// `rows` rows and `sw.len()` columns, dispatched on the row count and the CPU.
///
/// # Safety
/// `c` valid for `rows` rows of `sw.len()` columns at stride `c_rs`; `a` holds `rows` rows of
/// `kq` pairs at a stride of `a_rs` values (`a_rs / 2` pairs); `b` holds `kq` blocks of 32
/// values.
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn tile(
    avx2: bool,
    rows: usize,
    kq: usize,
    a: &[i32],
    a_rs: usize,
    b: &[i16],
    sa: &[f32],
    sw: &[f32],
    c: *mut f32,
    c_rs: usize,
    load_c: bool,
) {
    debug_assert!(b.len() >= kq * 2 * NR);
    debug_assert!(kq == 0 || a.len() >= (rows - 1) * (a_rs / 2) + kq);
    let mut acc = [[0i32; NR]; MR];
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: AVX2 is present (`avx2`); the extents are the caller's (debug-asserted).
        unsafe {
            let (a, b, a_rs) = (a.as_ptr(), b.as_ptr(), a_rs / 2);
            match rows {
                6 => avx2::tile::<6>(kq, a, a_rs, b, &mut acc),
                5 => avx2::tile::<5>(kq, a, a_rs, b, &mut acc),
                4 => avx2::tile::<4>(kq, a, a_rs, b, &mut acc),
                3 => avx2::tile::<3>(kq, a, a_rs, b, &mut acc),
                2 => avx2::tile::<2>(kq, a, a_rs, b, &mut acc),
                _ => avx2::tile::<1>(kq, a, a_rs, b, &mut acc),
            }
        }
    }
    if !avx2 || cfg!(not(target_arch = "x86_64")) {
        for q in 0..kq {
            let block = &b[q * 2 * NR..(q + 1) * 2 * NR];
            for (r, acc_r) in acc.iter_mut().enumerate().take(rows) {
                let pair = a[r * (a_rs / 2) + q];
                let (x0, x1) = (pair as i16 as i32, (pair >> 16) as i16 as i32);
                for (col, s) in acc_r.iter_mut().enumerate() {
                    let lane = (col / 8) * NR + (col % 8) * 2;
                    *s += x0 * block[lane] as i32 + x1 * block[lane + 1] as i32;
                }
            }
        }
    }
    for (r, acc_r) in acc.iter().enumerate().take(rows) {
        for (col, (v, w)) in acc_r.iter().zip(sw).enumerate() {
            let y = *v as f32 * (sa[r] * w);
            // SAFETY: (r, col) is inside the caller's rows and columns.
            unsafe {
                let dst = c.add(r * c_rs + col);
                *dst = if load_c { *dst + y } else { y };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// [`super::quantize_row`] with AVX2: the maximum 8 lanes at a time, then
    /// `cvtps2dq` (round to nearest even under the default MXCSR) and a saturating pack to i16.
    ///
    /// # Safety
    /// AVX2 present; `out.len() == row.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn quantize_row(row: &[f32], range: f32, out: &mut [i16]) -> f32 {
        debug_assert_eq!(row.len(), out.len());
        let n = row.len();
        let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
        let mut vmax = _mm256_setzero_ps();
        let chunks = n / 16;
        // SAFETY: every load reads 8 values below `16 · chunks <= n`.
        unsafe {
            for c in 0..2 * chunks {
                let v = _mm256_loadu_ps(row.as_ptr().add(8 * c));
                vmax = _mm256_max_ps(vmax, _mm256_and_ps(v, abs));
            }
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds 8 f32.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), vmax) };
        let max = row[16 * chunks..]
            .iter()
            .chain(&lanes)
            .fold(0.0f32, |m, v| m.max(v.abs()));
        if max == 0.0 {
            out.fill(0);
            return 0.0;
        }
        let inv = range / max;
        let vinv = _mm256_set1_ps(inv);
        // SAFETY: as above; the stores write 16 i16 below `16 · chunks <= n`.
        unsafe {
            for c in 0..chunks {
                let lo = _mm256_mul_ps(_mm256_loadu_ps(row.as_ptr().add(16 * c)), vinv);
                let hi = _mm256_mul_ps(_mm256_loadu_ps(row.as_ptr().add(16 * c + 8)), vinv);
                let packed = _mm256_packs_epi32(_mm256_cvtps_epi32(lo), _mm256_cvtps_epi32(hi));
                // packs interleaves the 128-bit lanes: [lo0-3, hi0-3, lo4-7, hi4-7].
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                _mm256_storeu_si256(out.as_mut_ptr().add(16 * c) as *mut __m256i, ordered);
            }
        }
        for (o, v) in out[16 * chunks..].iter_mut().zip(&row[16 * chunks..]) {
            *o = (v * inv).round_ties_even().clamp(-range, range) as i16;
        }
        max / range
    }

    /// `acc[0..R] = Σ_q A[0..R, pair q] · B[pair q, 0..16]` in i32, one `vpmaddwd` per row and
    /// half panel per pair of `k`.
    ///
    /// # Safety
    /// AVX2 present; `a` valid for `R` rows of `kq` pairs at a stride of `a_rs` pairs, `b`
    /// for `kq × 32` i16.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tile<const R: usize>(
        kq: usize,
        a: *const i32,
        a_rs: usize,
        b: *const i16,
        out: &mut [[i32; NR]; MR],
    ) {
        let mut acc = [[_mm256_setzero_si256(); 2]; R];
        // Pairs read as f32 bit patterns: `vbroadcastss` from memory, as the f32 kernel.
        let mut rows = [a as *const f32; R];
        for (r, row) in rows.iter_mut().enumerate() {
            // SAFETY: row r of A is inside the caller's extent.
            *row = unsafe { a.add(r * a_rs) } as *const f32;
        }
        for q in 0..kq {
            // SAFETY: q < kq, inside B's blocks and each A row's pairs (4-aligned i32s).
            unsafe {
                let b0 = _mm256_loadu_si256(b.add(q * 2 * NR) as *const __m256i);
                let b1 = _mm256_loadu_si256(b.add(q * 2 * NR + NR) as *const __m256i);
                for r in 0..R {
                    let pair = _mm256_castps_si256(_mm256_broadcast_ss(&*rows[r].add(q)));
                    acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(pair, b0));
                    acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(pair, b1));
                }
            }
        }
        for (acc_r, out_r) in acc.iter().zip(out.iter_mut()) {
            // SAFETY: `out_r` holds 16 i32.
            unsafe {
                _mm256_storeu_si256(out_r.as_mut_ptr() as *mut __m256i, acc_r[0]);
                _mm256_storeu_si256(out_r.as_mut_ptr().add(8) as *mut __m256i, acc_r[1]);
            }
        }
    }
}

#[cfg(test)]
#[path = "int8_tests.rs"]
mod tests;
