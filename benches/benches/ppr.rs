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
//!
//! Push thresholds: the default (1e-6 per out-edge, the exact solver's tolerance) keeps every
//! DEV metric equal to the exact solver's, and on an expander push is the costly part. Issue 22 asks for one PPR within a
//! time at the threshold that leaves the top 50 unchanged, so for each graph the bench also
//! walks the thresholds 1e-9, 1e-8, ..., 1e-4, prints a `ppr-top50` line (pushes, residual and
//! whether the 50 best nodes are the exact solver's, in order) and times `push_top50`: push at
//! the loosest threshold whose top 50 equals the exact one's (every threshold up to it as
//! well).

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
            let loose = loosest_top50_threshold(&id, &m, &p, &params, &exact.scores);
            let loose_params = PprParams {
                push_epsilon: loose,
                ..params
            };
            group.bench_function(BenchmarkId::new("push_top50", &id), |b| {
                b.iter(|| push_pagerank(&m, black_box(&p), &loose_params))
            });
        }
    }
    group.finish();
}

/// How many of the best nodes a looser push threshold must leave unchanged (issue 22).
const TOP: usize = 50;

/// The `TOP` best nodes of `scores`, best first (ties by node id, so the order is total).
fn top_nodes(scores: &[f64]) -> Vec<usize> {
    let mut ids: Vec<usize> = (0..scores.len()).collect();
    ids.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    ids.truncate(TOP);
    ids
}

/// The loosest threshold of 1e-9, 1e-8, ..., 1e-4 such that push at it and at every tighter
/// one of the list gives the exact solver's top `TOP` in order; prints one `ppr-top50` line per
/// threshold. Falls back to 1e-9 when even 1e-9 differs.
fn loosest_top50_threshold(
    id: &str,
    m: &gos_core::graph::ppr::TransitionMatrix,
    p: &[f64],
    params: &PprParams,
    exact: &[f64],
) -> f64 {
    let want = top_nodes(exact);
    let mut loosest = 1e-9;
    let mut unchanged_so_far = true;
    for exp in (4..=9).rev() {
        let eps = 10f64.powi(-exp);
        let r = push_pagerank(
            m,
            p,
            &PprParams {
                push_epsilon: eps,
                ..*params
            },
        );
        let same = top_nodes(&r.scores) == want;
        println!(
            "ppr-top50 {id}: threshold {eps:.0e} pushes {} residual {:.3e} top50_unchanged {same}",
            r.iterations, r.residual
        );
        unchanged_so_far &= same;
        if unchanged_so_far {
            loosest = eps;
        }
    }
    loosest
}

criterion_group!(benches, bench_ppr);
criterion_main!(benches);
