//! Diffusion at scale: transition-matrix build, one exact (power iteration) and one push PPR
//! on synthetic graphs of 1K to 1M nodes.
//!
//! Two graph families per size (benches/src/graphs.rs): `random4`, the toolchain baseline
//! (2N random edges plus 0.5-weight reverse entries, ~4 nonzeros a node, an expander and so
//! the worst case for push) and `planted`, the relations planted by the synthetic library
//! generator (chains, distractors, mentions; what `gos build` induces on it).
//!
//! Sizes: `GOS_BENCH_SIZES` (comma-separated, default `1000,10000,100000,1000000`).
//! Run: `cargo bench -p gos-benches --bench ppr`. Besides criterion's output it prints one
//! `ppr-stats` line per graph: nonzeros, matrix bytes per nonzero, pushes and residual.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gos_benches::graphs::{self, Entries};
use gos_benches::synth::{SynthConfig, SynthLibrary};
use gos_core::graph::ppr::{PprParams, personalized_pagerank, push_pagerank};
use std::hint::black_box;
use std::time::Duration;

/// Sizes from `GOS_BENCH_SIZES`, or `default`.
pub fn sizes(default: &[usize]) -> Vec<usize> {
    std::env::var("GOS_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn bench_ppr(c: &mut Criterion) {
    let mut group = c.benchmark_group("ppr");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in sizes(&[1_000, 10_000, 100_000, 1_000_000]) {
        let families: [(&str, Entries); 2] = [
            ("random4", graphs::random_entries(n, 42)),
            (
                "planted",
                graphs::planted_entries(&SynthLibrary::plan(SynthConfig::new(n, 42))),
            ),
        ];
        for (family, entries) in families {
            let id = format!("{family}/{n}");
            group.bench_function(BenchmarkId::new("matrix_build", &id), |b| {
                b.iter(|| graphs::matrix(n, black_box(entries.clone())))
            });
            let m = graphs::matrix(n, entries);
            let p = graphs::seed_vector(n, 5, 7);
            let params = PprParams::default();
            let exact = personalized_pagerank(&m, &p, &params);
            let push = push_pagerank(&m, &p, &params);
            let l1: f64 = exact
                .scores
                .iter()
                .zip(&push.scores)
                .map(|(a, b)| (a - b).abs())
                .sum();
            println!(
                "ppr-stats {id}: nnz {} bytes {} bytes/nnz {:.2} exact_iter {} push_pushes {} push_residual {:.3e} l1_push_vs_exact {:.3e}",
                m.nnz(),
                m.memory_bytes(),
                m.memory_bytes() as f64 / m.nnz().max(1) as f64,
                exact.iterations,
                push.iterations,
                push.residual,
                l1
            );
            group.bench_function(BenchmarkId::new("exact", &id), |b| {
                b.iter(|| personalized_pagerank(&m, black_box(&p), &params))
            });
            group.bench_function(BenchmarkId::new("push", &id), |b| {
                b.iter(|| push_pagerank(&m, black_box(&p), &params))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_ppr);
criterion_main!(benches);
