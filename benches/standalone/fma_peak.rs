//! The machine's arithmetic limit, for quoting encoder figures against it (issue 24): the f32
//! FMA rate of AVX2 (`vfmadd` on 8 lanes, 12 independent chains, enough for 2 pipes of latency
//! 4) and the int8 dot-product rate without VNNI (`vpmaddubsw` + `vpmaddwd` + `vpaddd`), for one
//! thread and for two. Standalone (no crate, no dependency); x86-64 with AVX2 and FMA only:
//!
//! ```sh
//! rustc -C opt-level=3 -C target-cpu=native benches/standalone/fma_peak.rs -o /tmp/fma_peak
//! /tmp/fma_peak            # 400M iterations a run (~2 s), best of 5
//! ```
//!
//! Runs shorter than a second under-report two threads when another process holds a core;
//! quote the figure with the load average it was taken at (printed first).
use std::arch::x86_64::*;
use std::time::Instant;

#[target_feature(enable = "avx2,fma")]
unsafe fn chains(iters: u64) -> f32 {
    // 12 independent accumulators: latency 4 x 2 pipes needs >= 8 in flight.
    let m = _mm256_set1_ps(0.999_999);
    let a = _mm256_set1_ps(1e-7);
    let mut r = [_mm256_set1_ps(1.0); 12];
    for _ in 0..iters {
        for k in 0..12 {
            r[k] = _mm256_fmadd_ps(r[k], m, a);
        }
    }
    let mut s = _mm256_setzero_ps();
    for k in 0..12 {
        s = _mm256_add_ps(s, r[k]);
    }
    let mut out = [0f32; 8];
    _mm256_storeu_ps(out.as_mut_ptr(), s);
    out.iter().sum()
}

#[target_feature(enable = "avx2")]
unsafe fn int8_chains(iters: u64) -> i32 {
    // u8 x s8 dot products without VNNI: vpmaddubsw (32 u8*s8 -> 16 s16 pair sums),
    // vpmaddwd by ones (-> 8 s32), vpaddd into one of 8 accumulators: 32 multiply-adds per
    // group, 8 groups per iteration. Inline asm so the compiler cannot fold the loop.
    let mut out = [0i32; 8];
    std::arch::asm!(
        "vpcmpeqw ymm15, ymm15, ymm15",
        "vpsrlw ymm15, ymm15, 15",          // ones (s16)
        "vpcmpeqb ymm14, ymm14, ymm14",
        "vpabsb ymm14, ymm14",              // bytes = 1
        "vpaddb ymm13, ymm14, ymm14",       // bytes = 2
        "vpxor ymm0, ymm0, ymm0", "vpxor ymm1, ymm1, ymm1", "vpxor ymm2, ymm2, ymm2", "vpxor ymm3, ymm3, ymm3",
        "vpxor ymm4, ymm4, ymm4", "vpxor ymm5, ymm5, ymm5", "vpxor ymm6, ymm6, ymm6", "vpxor ymm7, ymm7, ymm7",
        "2:",
        "vpmaddubsw ymm8, ymm13, ymm14", "vpmaddwd ymm8, ymm8, ymm15", "vpaddd ymm0, ymm0, ymm8",
        "vpmaddubsw ymm9, ymm13, ymm14", "vpmaddwd ymm9, ymm9, ymm15", "vpaddd ymm1, ymm1, ymm9",
        "vpmaddubsw ymm10, ymm13, ymm14", "vpmaddwd ymm10, ymm10, ymm15", "vpaddd ymm2, ymm2, ymm10",
        "vpmaddubsw ymm11, ymm13, ymm14", "vpmaddwd ymm11, ymm11, ymm15", "vpaddd ymm3, ymm3, ymm11",
        "vpmaddubsw ymm8, ymm13, ymm14", "vpmaddwd ymm8, ymm8, ymm15", "vpaddd ymm4, ymm4, ymm8",
        "vpmaddubsw ymm9, ymm13, ymm14", "vpmaddwd ymm9, ymm9, ymm15", "vpaddd ymm5, ymm5, ymm9",
        "vpmaddubsw ymm10, ymm13, ymm14", "vpmaddwd ymm10, ymm10, ymm15", "vpaddd ymm6, ymm6, ymm10",
        "vpmaddubsw ymm11, ymm13, ymm14", "vpmaddwd ymm11, ymm11, ymm15", "vpaddd ymm7, ymm7, ymm11",
        "dec {n}",
        "jnz 2b",
        "vpaddd ymm0, ymm0, ymm1", "vpaddd ymm2, ymm2, ymm3", "vpaddd ymm4, ymm4, ymm5", "vpaddd ymm6, ymm6, ymm7",
        "vpaddd ymm0, ymm0, ymm2", "vpaddd ymm4, ymm4, ymm6", "vpaddd ymm0, ymm0, ymm4",
        "vmovdqu [{o}], ymm0",
        n = inout(reg) iters => _,
        o = in(reg) out.as_mut_ptr(),
        out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _, out("ymm5") _,
        out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
        out("ymm13") _, out("ymm14") _, out("ymm15") _,
    );
    out.iter().sum()
}

fn run_int8(threads: usize, iters: u64) -> f64 {
    let t = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|_| std::thread::spawn(move || unsafe { int8_chains(iters) }))
        .collect();
    let mut sink = 0;
    for h in hs {
        sink += h.join().unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    // 8 chains x 32 multiply-adds x 2 ops per iteration per thread
    (threads as f64) * (iters as f64) * 8.0 * 32.0 * 2.0 / s / 1e9
}

fn run(threads: usize, iters: u64) -> f64 {
    let t = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|_| std::thread::spawn(move || unsafe { chains(iters) }))
        .collect();
    let mut sink = 0.0;
    for h in hs {
        sink += h.join().unwrap();
    }
    let s = t.elapsed().as_secs_f64();
    std::hint::black_box(sink);
    // 12 FMAs x 8 lanes x 2 flops per iteration per thread
    (threads as f64) * (iters as f64) * 12.0 * 8.0 * 2.0 / s / 1e9
}

fn main() {
    assert!(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"));
    let iters: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(400_000_000);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    for threads in [1usize, 2] {
        let mut best: f64 = 0.0;
        let mut all = vec![];
        for _ in 0..5 {
            let g = run(threads, iters);
            all.push(g);
            best = best.max(g);
        }
        println!(
            "f32 FMA threads {threads}: best {best:.1} GFLOP/s, runs {:?}",
            all.iter().map(|g| format!("{g:.1}")).collect::<Vec<_>>()
        );
    }
    for threads in [1usize, 2] {
        let mut best: f64 = 0.0;
        let mut all = vec![];
        for _ in 0..5 {
            let g = run_int8(threads, iters / 2);
            all.push(g);
            best = best.max(g);
        }
        println!(
            "int8 maddubs threads {threads}: best {best:.1} GOP/s, runs {:?}",
            all.iter().map(|g| format!("{g:.1}")).collect::<Vec<_>>()
        );
    }
}
