//! A matrix product on right-hand sides packed once into column panels, with an AVX2 + FMA
//! 6 × 16 micro-kernel (issue 24: the query encoder on CPUs without AVX-512).
//!
//! Layout ([`Panels`]): a `k x n` matrix `B` is cut into `ceil(n / 16)` panels of [`NR`] = 16
//! columns; panel `j` holds rows `0..k` of columns `16j..16j + 16`, each row's 16 values
//! contiguous, the last panel zero-padded. A weight matrix is packed so once at load, so no
//! product re-packs it (gemm's packing was 9% of the query encode); attention packs its keys
//! and values per head (`O(len · d)` copies for `O(len² · d)` multiply-adds).
//!
//! The micro-kernel keeps a 6 × 16 block of `C` in 12 ymm accumulators and, per step of `k`,
//! loads one panel row (2 × 8 lanes) and broadcasts 6 values of `A` (read in place, row-major
//! with any row stride): 12 FMAs for 8 loads, the same shape as gemm's AVX2 `x2x6` kernel.
//! The loops around it ([`matmul_panels`]) run `k` in blocks of at most [`KC`] (a panel's block
//! stays in L1 while every 6-row block of `A` passes over it; `A`'s block stays in L2), then
//! panel by panel, then 6 rows at a time. Row counts that are not a multiple of 6 use the same
//! kernel with fewer rows; a partial last panel is stored through a small buffer.
//!
//! The AVX2 kernel runs when the CPU has AVX2 and FMA (checked at run time, once); otherwise a
//! portable loop of the same order runs (callers choose gemm instead on such machines, and on
//! AVX-512 machines, where gemm's own kernel is already good: see [`panels_preferred`]).

use std::sync::OnceLock;

/// Columns per panel: two ymm registers of f32.
pub(crate) const NR: usize = 16;
/// Rows of `C` per micro-kernel call.
pub(crate) const MR: usize = 6;
/// Largest block of `k` per pass: a panel's block is `KC × 16 × 4` bytes = 16 KiB, half of
/// Zen 3's 32 KiB L1 data cache, and a 256-row block of `A` is 256 KiB, inside its 512 KiB L2.
pub(crate) const KC: usize = 256;

/// Whether this CPU runs the AVX2 + FMA micro-kernel (checked once).
fn has_avx2_fma() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Whether the CPU BERT should hold its weights as [`Panels`] and run this module's kernel:
/// true on x86-64 with AVX2 and FMA but without AVX-512 (there gemm's AVX-512 kernel is at
/// least as good, and without AVX2 this module's portable loop would be slower than gemm's),
/// or with AVX-512 turned off by `GOS_AVX512=off` ([`super::kernels::avx512_enabled`]).
pub(crate) fn panels_preferred() -> bool {
    static PREFERRED: OnceLock<bool> = OnceLock::new();
    *PREFERRED.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            has_avx2_fma()
                && !(std::arch::is_x86_feature_detected!("avx512f")
                    && super::kernels::avx512_allowed())
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// A `k x n` f32 matrix packed into panels of [`NR`] columns (see the module doc), the data
/// 64-byte aligned so that every panel row is one cache line. The default is an empty `0 x 0`
/// matrix, to be filled by [`Panels::pack`] (which reuses its buffer).
#[derive(Default)]
pub(crate) struct Panels {
    buf: Vec<f32>,
    start: usize,
    k: usize,
    n: usize,
}

impl Panels {
    /// Pack `B` (`k x n`, element `(p, j)` at `b[p * b_rs + j * b_cs]`) into `self`.
    ///
    /// # Panics
    /// When `b` is too short for the shape and strides (an internal shape error).
    pub(crate) fn pack(&mut self, b: &[f32], (k, n): (usize, usize), b_rs: usize, b_cs: usize) {
        if k > 0 && n > 0 {
            assert!(
                b.len() > (k - 1) * b_rs + (n - 1) * b_cs,
                "Panels::pack: source too short"
            );
        }
        let len = n.div_ceil(NR) * NR * k;
        self.buf.clear();
        self.buf.resize(len + NR, 0.0);
        // Elements to skip so that the data starts on a 64-byte boundary (f32 is 4-aligned).
        let misalign = (self.buf.as_ptr() as usize / 4) % NR;
        self.start = (NR - misalign) % NR;
        self.k = k;
        self.n = n;
        let data = &mut self.buf[self.start..self.start + len];
        for (j, panel) in data
            .chunks_exact_mut(NR * k.max(1))
            .enumerate()
            .take(n.div_ceil(NR))
        {
            let cols = NR.min(n - j * NR);
            for (p, row) in panel.chunks_exact_mut(NR).enumerate().take(k) {
                for (c, v) in row[..cols].iter_mut().enumerate() {
                    *v = b[p * b_rs + (j * NR + c) * b_cs];
                }
            }
        }
    }

    /// A weight given PyTorch's way, `(outputs, inputs)` row-major, packed as the `inputs x
    /// outputs` right-hand side of `x · Wᵀ`.
    pub(crate) fn from_weight(weight: &[f32], outputs: usize, inputs: usize) -> Self {
        let mut p = Panels::default();
        p.pack(weight, (inputs, outputs), 1, inputs);
        p
    }

    /// Rows (`k`).
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Columns (`n`).
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Element `(p, j)` of the packed matrix (row `p < k`, column `j < n`).
    pub(crate) fn get(&self, p: usize, j: usize) -> f32 {
        self.data()[(j / NR) * NR * self.k + p * NR + j % NR]
    }

    /// Number of panels, `ceil(n / 16)`.
    pub(crate) fn panels(&self) -> usize {
        self.n.div_ceil(NR)
    }

    fn data(&self) -> &[f32] {
        &self.buf[self.start..self.start + self.panels() * NR * self.k]
    }
}

/// `C[.., cols] = A · B[.., cols]` (or `+=` when `accumulate`) for the columns of panels
/// `panels` of `b`, single-threaded. `A` is `m x b.k()` row-major with row stride `a_rs`; `C`
/// is row-major with row stride `c_rs`, element `(i, j)` at `c.add(i * c_rs + j)` for the
/// product's column `j` (so `c` points at `C`'s column 0 even when `panels` starts later).
///
/// # Safety
/// `c` must be valid for reads and writes of rows `0..m`, columns `16 · panels.start ..
/// min(16 · panels.end, b.n())` at those strides, and no other thread may access those
/// elements during the call (other columns may be written concurrently: that is how callers
/// split a product across threads).
///
/// # Panics
/// When `a` is too short for `m` rows of `b.k()` at stride `a_rs`, or `panels` reaches past
/// `b`'s panels.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn matmul_panels(
    m: usize,
    a: &[f32],
    a_rs: usize,
    b: &Panels,
    panels: std::ops::Range<usize>,
    c: *mut f32,
    c_rs: usize,
    accumulate: bool,
) {
    // SAFETY: passed on from the caller.
    unsafe { matmul_panels_on(has_avx2_fma(), m, a, a_rs, b, panels, c, c_rs, accumulate) }
}

/// [`matmul_panels`] with the kernel chosen by the caller: `avx2` runs the AVX2 + FMA kernel
/// (the CPU must have both), else the portable loop.
///
/// # Safety
/// As [`matmul_panels`]; and `avx2` only when the CPU has AVX2 and FMA.
#[allow(clippy::too_many_arguments)]
unsafe fn matmul_panels_on(
    avx2: bool,
    m: usize,
    a: &[f32],
    a_rs: usize,
    b: &Panels,
    panels: std::ops::Range<usize>,
    c: *mut f32,
    c_rs: usize,
    accumulate: bool,
) {
    let (k, n) = (b.k(), b.n());
    assert!(panels.end <= b.panels(), "matmul_panels: panel range");
    if m == 0 || panels.is_empty() {
        return;
    }
    let col_range = panels.start * NR..n.min(panels.end * NR);
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                for j in col_range.clone() {
                    // SAFETY: (i, j) is inside the caller's rows and columns.
                    unsafe { *c.add(i * c_rs + j) = 0.0 };
                }
            }
        }
        return;
    }
    assert!(
        a_rs >= k && a.len() >= (m - 1) * a_rs + k,
        "matmul_panels: lhs too short"
    );
    let data = b.data();
    let blocks = k.div_ceil(KC);
    let kc_len = k.div_ceil(blocks);
    for block in 0..blocks {
        let p0 = block * kc_len;
        let kc = kc_len.min(k - p0);
        let load_c = accumulate || block > 0;
        for j in panels.clone() {
            let cols = NR.min(n - j * NR);
            let bp = &data[j * NR * k + p0 * NR..j * NR * k + (p0 + kc) * NR];
            let mut i0 = 0;
            while i0 < m {
                let rows = MR.min(m - i0);
                let ap = &a[i0 * a_rs + p0..];
                // SAFETY: the caller gives `c` for these rows and columns; `ap` and `bp` hold
                // `rows` rows of `kc` and `kc` rows of 16 (asserted and sliced above).
                unsafe {
                    let cp = c.add(i0 * c_rs + j * NR);
                    tile(avx2, rows, kc, ap, a_rs, bp, cp, c_rs, cols, load_c);
                }
                i0 += rows;
            }
        }
    }
}

/// One micro-kernel call, dispatched on the row count (a const generic) and the CPU.
///
/// # Safety
/// `c` valid for `rows` rows of `cols` at stride `c_rs`; `a` holds `rows` rows of `kc` at
/// stride `a_rs`; `b` holds `kc × 16` values.
#[allow(clippy::too_many_arguments)]
#[inline]
unsafe fn tile(
    avx2: bool,
    rows: usize,
    kc: usize,
    a: &[f32],
    a_rs: usize,
    b: &[f32],
    c: *mut f32,
    c_rs: usize,
    cols: usize,
    load_c: bool,
) {
    debug_assert!(b.len() >= kc * NR);
    debug_assert!(kc == 0 || a.len() >= (rows - 1) * a_rs + kc);
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: AVX2 and FMA are present (`avx2`); the pointers' extents are the caller's.
        unsafe {
            let (a, b) = (a.as_ptr(), b.as_ptr());
            match rows {
                6 => avx2::tile::<6>(kc, a, a_rs, b, c, c_rs, cols, load_c),
                5 => avx2::tile::<5>(kc, a, a_rs, b, c, c_rs, cols, load_c),
                4 => avx2::tile::<4>(kc, a, a_rs, b, c, c_rs, cols, load_c),
                3 => avx2::tile::<3>(kc, a, a_rs, b, c, c_rs, cols, load_c),
                2 => avx2::tile::<2>(kc, a, a_rs, b, c, c_rs, cols, load_c),
                _ => avx2::tile::<1>(kc, a, a_rs, b, c, c_rs, cols, load_c),
            }
        }
        return;
    }
    let _ = avx2;
    // Portable: the same order of additions per element (k ascending).
    let mut acc = [[0.0f32; NR]; MR];
    for p in 0..kc {
        let brow = &b[p * NR..p * NR + NR];
        for (r, acc_r) in acc.iter_mut().enumerate().take(rows) {
            let av = a[r * a_rs + p];
            for (x, bv) in acc_r.iter_mut().zip(brow) {
                *x = av.mul_add(*bv, *x);
            }
        }
    }
    for (r, acc_r) in acc.iter().enumerate().take(rows) {
        for (col, v) in acc_r.iter().enumerate().take(cols) {
            // SAFETY: (r, col) is inside the caller's rows and columns.
            unsafe {
                let dst = c.add(r * c_rs + col);
                *dst = if load_c { *dst + v } else { *v };
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::NR;
    use std::arch::x86_64::*;

    /// `C[0..R, 0..cols] (+)= A[0..R, 0..kc] · B[0..kc, 0..16]`, the 16 columns of `B` one
    /// panel row per step of `k`.
    ///
    /// # Safety
    /// AVX2 and FMA present; `a` valid for `R` rows of `kc` at stride `a_rs`, `b` for `kc × 16`,
    /// `c` for `R` rows of `cols` (≤ 16) at stride `c_rs`.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile<const R: usize>(
        kc: usize,
        a: *const f32,
        a_rs: usize,
        b: *const f32,
        c: *mut f32,
        c_rs: usize,
        cols: usize,
        load_c: bool,
    ) {
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        let mut rows = [a; R];
        for (r, row) in rows.iter_mut().enumerate() {
            // SAFETY: row r of A is inside the caller's extent.
            *row = unsafe { a.add(r * a_rs) };
        }
        for p in 0..kc {
            // SAFETY: p < kc, inside B's kc × 16 and each A row's kc.
            unsafe {
                let b0 = _mm256_loadu_ps(b.add(p * NR));
                let b1 = _mm256_loadu_ps(b.add(p * NR + 8));
                for r in 0..R {
                    let av = _mm256_broadcast_ss(&*rows[r].add(p));
                    acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
                    acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
                }
            }
        }
        if cols == NR {
            for (r, acc_r) in acc.iter().enumerate() {
                // SAFETY: row r, columns 0..16 of C are the caller's.
                unsafe {
                    let dst = c.add(r * c_rs);
                    let (mut lo, mut hi) = (acc_r[0], acc_r[1]);
                    if load_c {
                        lo = _mm256_add_ps(lo, _mm256_loadu_ps(dst));
                        hi = _mm256_add_ps(hi, _mm256_loadu_ps(dst.add(8)));
                    }
                    _mm256_storeu_ps(dst, lo);
                    _mm256_storeu_ps(dst.add(8), hi);
                }
            }
        } else {
            let mut buf = [0.0f32; NR];
            for (r, acc_r) in acc.iter().enumerate() {
                // SAFETY: `buf` holds 16 f32; row r, columns 0..cols of C are the caller's.
                unsafe {
                    _mm256_storeu_ps(buf.as_mut_ptr(), acc_r[0]);
                    _mm256_storeu_ps(buf.as_mut_ptr().add(8), acc_r[1]);
                    let dst = c.add(r * c_rs);
                    for (col, v) in buf.iter().enumerate().take(cols) {
                        let d = dst.add(col);
                        *d = if load_c { *d + v } else { *v };
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1) from an index (a small LCG), so that a wrong index or a
    /// dropped term shows in the sum.
    fn values(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    /// `C = A · B` (plus `C` when accumulating) in f64 over the same strided layouts.
    #[allow(clippy::too_many_arguments)]
    fn naive(
        (m, n, k): (usize, usize, usize),
        a: &[f32],
        a_rs: usize,
        b: &[f32],
        b_rs: usize,
        b_cs: usize,
        c: &[f32],
        c_rs: usize,
        accumulate: bool,
    ) -> Vec<f64> {
        let mut out = vec![0.0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s: f64 = if accumulate {
                    c[i * c_rs + j] as f64
                } else {
                    0.0
                };
                for p in 0..k {
                    s += a[i * a_rs + p] as f64 * b[p * b_rs + j * b_cs] as f64;
                }
                out[i * n + j] = s;
            }
        }
        out
    }

    /// Both the AVX2 kernel (when the CPU has it) and the portable loop, against the naive
    /// product, over odd shapes: m not a multiple of 6, n not a multiple of 16, k not a
    /// multiple of 8, k past one KC block, strides wider than the rows, a panel subrange.
    #[test]
    fn panel_products_match_a_naive_product_on_odd_shapes() {
        let shapes = [
            (1, 1, 1),
            (5, 17, 7),
            (13, 37, 45),
            (7, 16, 300),  // two k blocks of 150
            (25, 48, 513), // three k blocks
            (12, 3, 0),    // k = 0: C becomes zeros (or stays)
        ];
        for (s, &(m, n, k)) in shapes.iter().enumerate() {
            let (a_rs, c_rs) = (k + 3, n + 5);
            let a = values(m * a_rs, 10 + s as u64);
            // B stored transposed (element (p, j) at j * (k + 1) + p), as a PyTorch weight.
            let b_cs = k + 1;
            let b = values(n * b_cs + 1, 20 + s as u64);
            let mut packed = Panels::default();
            packed.pack(&b, (k, n), 1, b_cs);
            for accumulate in [false, true] {
                for portable in [false, true] {
                    if !portable && !has_avx2_fma() {
                        continue;
                    }
                    let c0 = values(m * c_rs, 30 + s as u64);
                    let mut c = c0.clone();
                    let want = naive((m, n, k), &a, a_rs, &b, 1, b_cs, &c0, c_rs, accumulate);
                    run(
                        m,
                        &a,
                        a_rs,
                        &packed,
                        0..packed.panels(),
                        &mut c,
                        c_rs,
                        accumulate,
                        portable,
                    );
                    for i in 0..m {
                        for j in 0..n {
                            let got = c[i * c_rs + j] as f64;
                            let w = want[i * n + j];
                            assert!(
                                (got - w).abs()
                                    <= 1e-5 * (1.0 + w.abs()) * (k as f64).sqrt().max(1.0),
                                "{m}x{n}x{k} acc {accumulate} portable {portable} ({i},{j}): {got} vs {w}"
                            );
                        }
                        for j in n..c_rs {
                            assert_eq!(
                                c[i * c_rs + j],
                                c0[i * c_rs + j],
                                "column {j} past n written"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_panel_subrange_writes_only_its_columns() {
        let (m, n, k) = (9, 50, 20);
        let a = values(m * k, 1);
        let b = values(k * n, 2); // row-major k x n
        let mut packed = Panels::default();
        packed.pack(&b, (k, n), n, 1);
        assert_eq!(packed.panels(), 4);
        let mut c = vec![7.0f32; m * n];
        run(m, &a, k, &packed, 1..3, &mut c, n, false, !has_avx2_fma());
        let want = naive((m, n, k), &a, k, &b, n, 1, &c, n, false);
        for i in 0..m {
            for j in 0..n {
                let got = c[i * n + j];
                if (16..48).contains(&j) {
                    assert!((got as f64 - want[i * n + j]).abs() < 1e-5, "({i},{j})");
                } else {
                    assert_eq!(got, 7.0, "({i},{j}) outside the panels written");
                }
            }
        }
    }

    #[test]
    fn packed_data_is_cache_line_aligned_and_zero_padded() {
        let b = values(5 * 20, 3);
        let packed = Panels::from_weight(&b, 20, 5); // 20 outputs of 5 inputs
        assert_eq!((packed.k(), packed.n(), packed.panels()), (5, 20, 2));
        let data = packed.data();
        assert_eq!(data.as_ptr() as usize % 64, 0);
        // Panel 1, row p: outputs 16..20 of input p, then zeros.
        for p in 0..5 {
            let row = &data[16 * 5 + p * 16..16 * 5 + p * 16 + 16];
            for c in 0..4 {
                assert_eq!(row[c], b[(16 + c) * 5 + p]);
            }
            assert!(row[4..].iter().all(|v| *v == 0.0));
        }
    }

    /// [`matmul_panels`] on a slice, with the portable loop when asked.
    #[allow(clippy::too_many_arguments)]
    fn run(
        m: usize,
        a: &[f32],
        a_rs: usize,
        b: &Panels,
        panels: std::ops::Range<usize>,
        c: &mut [f32],
        c_rs: usize,
        accumulate: bool,
        portable: bool,
    ) {
        if m > 0 && b.n() > 0 {
            assert!(c.len() >= (m - 1) * c_rs + b.n());
        }
        let avx2 = !portable && has_avx2_fma();
        // SAFETY: `c` holds m rows of n at stride c_rs (asserted above); `avx2` only with the
        // features.
        unsafe {
            matmul_panels_on(
                avx2,
                m,
                a,
                a_rs,
                b,
                panels,
                c.as_mut_ptr(),
                c_rs,
                accumulate,
            )
        };
    }
}
