//! Tests of the int8 product: against the product of the dequantized operands, and its speed.
use super::*;

/// Deterministic values in [-1, 1) (a small LCG).
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

/// The product of the dequantized operands in f64: what the integer kernel must give, up
/// to f32 rounding of the final scaling.
fn dequantized_product(
    x: &QuantizedRows,
    w: &QuantizedPanels,
    (m, n, k): (usize, usize, usize),
) -> Vec<f64> {
    let mut out = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f64;
            for p in 0..k {
                let pair = x.data[(i * x.stride + p) / 2];
                let v = if p % 2 == 0 {
                    pair as i16
                } else {
                    (pair >> 16) as i16
                };
                let xv = v as f64 * x.scales[i] as f64;
                s += xv * w.dequantized(p, j) as f64;
            }
            out[i * n + j] = s;
        }
    }
    out
}

/// Both kernels (AVX2 when the CPU has it, and the portable loop) against the product of
/// the dequantized operands, over odd shapes (m not a multiple of 6, n not of 16, k odd,
/// k past one block of pairs), with and without accumulation; and the dequantized weights
/// within half a step of the f32 weights.
#[test]
fn quantized_products_match_the_dequantized_product_on_odd_shapes() {
    for (s, &(m, n, k)) in [(1, 1, 1), (7, 17, 5), (13, 40, 45), (9, 33, 777)]
        .iter()
        .enumerate()
    {
        let x = values(m * k, 40 + s as u64);
        let weight = values(n * k, 50 + s as u64); // (outputs, inputs)
        let w = QuantizedPanels::from_weight(&weight, n, k);
        for j in 0..n {
            for p in 0..k {
                let err = (w.dequantized(p, j) - weight[j * k + p]).abs();
                assert!(
                    err <= 0.5 * w.scales[j] + 1e-7,
                    "weight ({p},{j}) off by {err}"
                );
            }
        }
        let q = QuantizedRows::quantize(&x, m, k);
        let want = dequantized_product(&q, &w, (m, n, k));
        for accumulate in [false, true] {
            for portable in [false, true] {
                if !portable && !has_avx2() {
                    continue;
                }
                let c_rs = n + 3;
                let c0 = values(m * c_rs, 60 + s as u64);
                let mut c = c0.clone();
                // SAFETY: `c` holds m rows of n at stride c_rs; avx2 only with the feature.
                unsafe {
                    matmul_quantized_on(
                        !portable,
                        &q,
                        &w,
                        0..w.panels(),
                        c.as_mut_ptr(),
                        c_rs,
                        accumulate,
                    )
                };
                for i in 0..m {
                    for j in 0..n {
                        let base = if accumulate {
                            c0[i * c_rs + j] as f64
                        } else {
                            0.0
                        };
                        let wv = base + want[i * n + j];
                        let got = c[i * c_rs + j] as f64;
                        assert!(
                            (got - wv).abs() <= 1e-5 * (1.0 + wv.abs()),
                            "{m}x{n}x{k} acc {accumulate} portable {portable} ({i},{j}): {got} vs {wv}"
                        );
                    }
                    for j in n..c_rs {
                        assert_eq!(c[i * c_rs + j], c0[i * c_rs + j], "column {j} written");
                    }
                }
            }
        }
    }
}

/// The quantized product stays close to the f32 one: for values uniform in [-1, 1) the
/// error of each dot product is a small fraction of its spread.
#[test]
fn quantized_product_is_close_to_the_f32_product() {
    let (m, n, k) = (8, 32, 384);
    let x = values(m * k, 7);
    let weight = values(n * k, 8);
    let w = QuantizedPanels::from_weight(&weight, n, k);
    let q = QuantizedRows::quantize(&x, m, k);
    let mut c = vec![0.0f32; m * n];
    // SAFETY: `c` holds m rows of n.
    unsafe { matmul_quantized(&q, &w, 0..w.panels(), c.as_mut_ptr(), n, false) };
    let (mut err2, mut ref2) = (0.0f64, 0.0f64);
    for i in 0..m {
        for j in 0..n {
            let exact: f64 = (0..k)
                .map(|p| x[i * k + p] as f64 * weight[j * k + p] as f64)
                .sum();
            err2 += (c[i * n + j] as f64 - exact).powi(2);
            ref2 += exact.powi(2);
        }
    }
    let relative = (err2 / ref2).sqrt();
    assert!(relative < 0.01, "relative RMS error {relative}");
}

#[test]
fn an_all_zero_row_or_column_quantizes_to_zero() {
    let (n, k) = (3, 4);
    let mut weight = values(n * k, 9);
    weight[4..8].fill(0.0); // output 1
    let w = QuantizedPanels::from_weight(&weight, n, k);
    assert_eq!(w.scales[1], 0.0);
    let x = vec![0.0f32; k];
    let q = QuantizedRows::quantize(&x, 1, k);
    let mut c = vec![5.0f32; n];
    // SAFETY: `c` holds one row of n.
    unsafe { matmul_quantized(&q, &w, 0..w.panels(), c.as_mut_ptr(), n, false) };
    assert_eq!(c, vec![0.0; n]);
}

/// Single-threaded speed of the int8 product against the f32 panel product on one feed-forward
/// up projection of a 256-token query (256 × 384 → 1,536), best of 20; prints both (`cargo test
/// --workspace --lib int8_speed -- --ignored --nocapture`). A measurement, not a check.
#[test]
#[ignore]
fn int8_speed_against_f32_panels() {
    use crate::bert::panels::{Panels, matmul_panels};
    use std::time::Instant;
    let (m, k, n) = (256, 384, 1536);
    let x: Vec<f32> = (0..m * k)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
        .collect();
    let w: Vec<f32> = (0..n * k)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
        .collect();
    let fp = Panels::from_weight(&w, n, k);
    let qp = QuantizedPanels::from_weight(&w, n, k);
    let mut c = vec![0.0f32; m * n];
    let time = |f: &mut dyn FnMut()| {
        (0..20)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    // SAFETY: `c` holds m rows of n.
    let f32_s = time(&mut || unsafe {
        matmul_panels(m, &x, k, &fp, 0..fp.panels(), c.as_mut_ptr(), n, false)
    });
    let mut quantize_s = 0.0;
    let int8_s = time(&mut || {
        let t = Instant::now();
        let q = QuantizedRows::quantize(&x, m, k);
        quantize_s = t.elapsed().as_secs_f64();
        // SAFETY: as above.
        unsafe { matmul_quantized(&q, &qp, 0..qp.panels(), c.as_mut_ptr(), n, false) };
    });
    let gflop = 2.0 * (m * k * n) as f64 / 1e9;
    println!(
        "{m}x{k}x{n}: f32 panels {:.2} ms ({:.1} GFLOP/s), int8 {:.2} ms ({:.1} GFLOP/s \
         f32-equivalent; quantizing the rows {:.3} ms)",
        f32_s * 1e3,
        gflop / f32_s,
        int8_s * 1e3,
        gflop / int8_s,
        quantize_s * 1e3
    );
}
