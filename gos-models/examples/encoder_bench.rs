//! The query encoder against the machine's own f32 limit, in one run (issue 24 item 2).
//!
//! Measures the f32 FMA peak in-process (12 independent `vfmadd` chains of 8 lanes per thread,
//! the method of `benches/standalone/fma_peak.rs`, and of 16 lanes on CPUs with AVX-512F, for
//! every thread of the pool; the share is of the larger), then encodes each text of a tasks file one at a time (batch 1, the query path) and
//! prints the per-text latency (best of `REPS` per text), its p50 / p90 over the texts, the
//! achieved GFLOP/s and its share of the peak. FLOPs per text of `n` tokens:
//! `layers × (2·n·h·(3h + h + 2·f) + 4·n²·h)` (the four linear layers and the two attention
//! products; element-wise work left out).
//!
//! ```sh
//! cargo run -p gos-models --release --example encoder_bench -- \
//!     models/all-MiniLM-L6-v2 /work/shared/data/skillsbench/dev/tasks.jsonl
//! ```
//!
//! Environment: `GOS_AVX512=off` runs the encoder's AVX2 kernels on an AVX-512 CPU and
//! compares with the 8-lane peak (what a CPU without AVX-512 gets); `REPS` (default 5) encodes
//! per text; `INT8=1` also loads the int8 encoder
//! (`Precision::Int8`), alternates it with f32 text by text, and prints its latency and its
//! cosine agreement with f32 (min and mean over the texts); `DUMP=FILE` writes the f32 vectors (one JSON
//! array per line, in file order); `COMPARE=FILE` reads such a file and prints the max abs
//! difference and the min cosine against it (how a kernel change is checked against the
//! previous implementation). The tasks file is JSON lines with an `instruction` field.

use gos_models::dense::{Precision, SentenceEncoder};
use gos_models::device::Device;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let model = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
    });
    let tasks = args
        .next()
        .unwrap_or_else(|| "/work/shared/data/skillsbench/dev/tasks.jsonl".into());
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let texts: Vec<String> = std::fs::read_to_string(&tasks)
        .map_err(|e| format!("{tasks}: {e} (give a tasks .jsonl file as the second argument)"))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| -> Result<String, Box<dyn std::error::Error>> {
            let v: serde_json::Value = serde_json::from_str(l)?;
            Ok(v["instruction"]
                .as_str()
                .ok_or_else(|| format!("{tasks}: a line without an `instruction` string"))?
                .to_string())
        })
        .collect::<Result<_, _>>()?;

    println!("cpu: {}", cpu_name());
    println!("load average at start: {}", load_average());
    let threads = rayon::current_num_threads();
    let peak_before = fma_peak(threads);

    let mut encoders = vec![(
        "f32",
        SentenceEncoder::load_with(&model, &Device::Cpu, Precision::F32)?,
    )];
    if std::env::var("INT8").is_ok_and(|v| v == "1") {
        encoders.push((
            "int8",
            SentenceEncoder::load_with(&model, &Device::Cpu, Precision::Int8)?,
        ));
    }
    let encoder = &encoders[0].1;
    let (h, f, layers) = (384.0, 1536.0, 6.0);
    let flops = |n: usize| {
        let n = n as f64;
        layers * (2.0 * n * h * (3.0 * h + h + 2.0 * f) + 4.0 * n * n * h)
    };
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens: Vec<usize> = encoder.token_ids(&refs)?.iter().map(Vec::len).collect();
    // Per encoder: the vectors and the best time per text; the encoders alternate per text,
    // so a change of load touches both alike.
    let mut vectors = vec![Vec::with_capacity(texts.len()); encoders.len()];
    let mut best = vec![Vec::with_capacity(texts.len()); encoders.len()];
    for (_, e) in &encoders {
        e.encode(&refs[..1])?; // warm-up: first-touch of the weights and buffers
    }
    for text in &refs {
        for (e, (_, encoder)) in encoders.iter().enumerate() {
            let mut fastest = f64::INFINITY;
            let mut v = Vec::new();
            for _ in 0..reps.max(1) {
                let t = Instant::now();
                v = encoder.encode(&[text])?.remove(0);
                fastest = fastest.min(t.elapsed().as_secs_f64());
            }
            vectors[e].push(v);
            best[e].push(fastest);
        }
    }
    let peak_after = fma_peak(threads);
    let peak = peak_before.max(peak_after);

    let mut tok_sorted = tokens.clone();
    tok_sorted.sort();
    let at_cap: Vec<usize> = (0..texts.len())
        .filter(|&i| tokens[i] == encoder.max_seq_length())
        .collect();
    println!(
        "texts {} (tokens min {} / p50 {} / max {}; {} at the {}-token cap), {} threads, best of {reps}",
        texts.len(),
        tok_sorted[0],
        tok_sorted[tok_sorted.len() / 2],
        tok_sorted[tok_sorted.len() - 1],
        at_cap.len(),
        encoder.max_seq_length(),
        threads,
    );
    println!(
        "f32 FMA peak ({threads} threads): {peak_before:.1} GFLOP/s before, {peak_after:.1} after"
    );
    for ((name, _), best) in encoders.iter().zip(&best) {
        report(name, best, &tokens, &at_cap, &flops, peak, threads);
    }
    if encoders.len() == 2 {
        let cos: Vec<f32> = vectors[0]
            .iter()
            .zip(&vectors[1])
            .map(|(a, b)| cosine(a, b))
            .collect();
        let min = cos.iter().copied().fold(f32::INFINITY, f32::min);
        let mean = cos.iter().sum::<f32>() / cos.len() as f32;
        println!("int8 against f32: cosine min {min:.6}, mean {mean:.6}");
    }
    println!("load average at end: {}", load_average());
    let vectors = &vectors[0];

    if let Ok(path) = std::env::var("DUMP") {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        for v in vectors {
            writeln!(out, "{}", serde_json::to_string(v)?)?;
        }
        println!("vectors written to {path}");
    }
    if let Ok(path) = std::env::var("COMPARE") {
        let old: Vec<Vec<f32>> = std::fs::read_to_string(&path)?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        if old.len() != vectors.len() {
            return Err(
                format!("{path}: {} vectors for {} texts", old.len(), vectors.len()).into(),
            );
        }
        let (mut max_diff, mut min_cos) = (0.0f32, f32::INFINITY);
        for (a, b) in vectors.iter().zip(&old) {
            min_cos = min_cos.min(cosine(a, b));
            for (x, y) in a.iter().zip(b) {
                max_diff = max_diff.max((x - y).abs());
            }
        }
        println!("against {path}: max abs diff {max_diff:.3e}, min cosine {min_cos:.8}");
    }
    Ok(())
}

/// Print one encoder's latency (p50 / p90 / min / max over the texts' best times), achieved
/// GFLOP/s and share of `peak`, and the same for the texts at the token cap.
fn report(
    name: &str,
    best: &[f64],
    tokens: &[usize],
    at_cap: &[usize],
    flops: &dyn Fn(usize) -> f64,
    peak: f64,
    threads: usize,
) {
    let mut sorted = best.to_vec();
    sorted.sort_by(f64::total_cmp);
    let pct = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize] * 1e3;
    let total_flops: f64 = tokens.iter().map(|&n| flops(n)).sum();
    let gflops = total_flops / best.iter().sum::<f64>() / 1e9;
    println!(
        "{name}: encode p50 {:.1} ms, p90 {:.1} ms, min {:.1} ms, max {:.1} ms; \
         {gflops:.1} GFLOP/s (f32-equivalent) = {:.1}% of the {threads}-thread peak {peak:.1}",
        pct(0.5),
        pct(0.9),
        sorted[0] * 1e3,
        sorted[sorted.len() - 1] * 1e3,
        100.0 * gflops / peak
    );
    if let Some(&first) = at_cap.first() {
        let s: f64 = at_cap.iter().map(|&i| best[i]).sum();
        let fl: f64 = at_cap.iter().map(|&i| flops(tokens[i])).sum();
        println!(
            "{name}: at the cap ({} tokens, {:.2} GFLOP each): mean {:.1} ms, {:.1} GFLOP/s = {:.1}% of peak",
            tokens[first],
            flops(tokens[first]) / 1e9,
            s / at_cap.len() as f64 * 1e3,
            fl / s / 1e9,
            100.0 * fl / s / 1e9 / peak
        );
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// The f32 FMA peak on `threads` threads, GFLOP/s: the larger of the 8-lane (AVX2) and, on
/// CPUs with AVX-512 unless `GOS_AVX512=off` keeps the encoder off it, the 16-lane chains
/// ([`fma_peak_lanes`]), each printed.
fn fma_peak(threads: usize) -> f64 {
    let avx2 = fma_peak_lanes(threads, 8);
    let avx512 = if std::env::var("GOS_AVX512").is_ok_and(|v| v == "off") {
        println!("  GOS_AVX512=off: the AVX2 kernels, against the 8-lane peak");
        0.0
    } else {
        fma_peak_lanes(threads, 16)
    };
    if avx512 > 0.0 {
        println!("  FMA chains: 8 lanes {avx2:.1} GFLOP/s, 16 lanes {avx512:.1} GFLOP/s");
    }
    avx2.max(avx512)
}

/// Best of 3 runs of ~0.4 s each of the FMA chains of `lanes` lanes (8: AVX2 + FMA, 16:
/// AVX-512F) on `threads` threads, GFLOP/s; 0 when the CPU lacks those instructions.
fn fma_peak_lanes(threads: usize, lanes: usize) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        let supported = match lanes {
            8 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            16 => is_x86_feature_detected!("avx512f"),
            _ => false,
        };
        if !supported {
            return 0.0;
        }
        let iters = 50_000_000u64;
        let mut best = 0.0f64;
        for _ in 0..3 {
            let t = Instant::now();
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    std::thread::spawn(move || {
                        // SAFETY: the instructions of `lanes` were detected just above.
                        unsafe {
                            if lanes == 16 {
                                fma_chains_512(iters)
                            } else {
                                fma_chains(iters)
                            }
                        }
                    })
                })
                .collect();
            let sink: f32 = handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum();
            std::hint::black_box(sink);
            let s = t.elapsed().as_secs_f64();
            // 12 FMAs x `lanes` lanes x 2 flops per iteration per thread.
            best = best.max(threads as f64 * iters as f64 * 12.0 * lanes as f64 * 2.0 / s / 1e9);
        }
        best
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (threads, lanes);
        0.0
    }
}

/// [`fma_chains`] with 16-lane AVX-512 registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn fma_chains_512(iters: u64) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm512_set1_ps(0.999_999);
    let a = _mm512_set1_ps(1e-7);
    let mut r = [_mm512_set1_ps(1.0); 12];
    for _ in 0..iters {
        for v in r.iter_mut() {
            *v = _mm512_fmadd_ps(*v, m, a);
        }
    }
    let mut s = _mm512_setzero_ps();
    for v in r {
        s = _mm512_add_ps(s, v);
    }
    _mm512_reduce_add_ps(s)
}

/// 12 independent FMA chains (latency 4 × 2 pipes needs at least 8 in flight).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_chains(iters: u64) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm256_set1_ps(0.999_999);
    let a = _mm256_set1_ps(1e-7);
    let mut r = [_mm256_set1_ps(1.0); 12];
    for _ in 0..iters {
        for v in r.iter_mut() {
            *v = _mm256_fmadd_ps(*v, m, a);
        }
    }
    let mut s = _mm256_setzero_ps();
    for v in r {
        s = _mm256_add_ps(s, v);
    }
    let mut out = [0f32; 8];
    // SAFETY: `out` holds 8 f32.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), s) };
    out.iter().sum()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn cpu_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .unwrap_or("unknown")
        .trim()
        .to_string();
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    format!(
        "{model}, {} logical CPUs, avx2 {}, fma {}, avx512f {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        has("avx2"),
        has("fma"),
        has("avx512f")
    )
}
