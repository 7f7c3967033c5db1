//! The library-side stages at scale, on synthetic libraries of 1K to 100K skills: parse +
//! normalize per package, dependency induction, BM25 indexing and query, one PPR on the built
//! workspace, and end-to-end retrieve (lexical seeds, workspace open) with the push and the
//! exact solver.
//!
//! Data: `GOS_SYNTH_ROOT/N/library`, `GOS_SYNTH_ROOT/N/tasks.jsonl` and the workspace
//! `GOS_SYNTH_ROOT/N/ws` (root default `/tmp/gos-synth`), as benches/run-performance.sh
//! writes them with `gos synth` and `gos build`; a missing library or workspace is generated
//! here (seed 42). Sizes: `GOS_BENCH_SIZES` (default `1000,10000`). BM25 index building is
//! only benchmarked up to 10K skills (it is the `index` stage of `gos build` above that).
//!
//! Run: `cargo bench -p gos-benches --bench scale`. Prints one `relate-stats` line per size
//! with the scored pairs of the dependency induction.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gos_benches::synth::{SynthConfig, SynthLibrary, write_library};
use gos_build::build::NoProgress;
use gos_build::normalize::{lexical_doc, normalize};
use gos_build::package::{discover, parse_package};
use gos_build::relate::{RelateOptions, RelateStats, io_edges};
use gos_build::{BuildOptions, build_workspace};
use gos_core::graph::ppr::{PprMethod, PprParams, personalized_pagerank, push_pagerank};
use gos_core::index::lexical::LexicalIndex;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn sizes() -> Vec<usize> {
    std::env::var("GOS_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000])
}

/// The folder of size `n`, generated and built when missing.
fn prepared(n: usize) -> PathBuf {
    let root = std::env::var("GOS_SYNTH_ROOT").unwrap_or_else(|_| "/tmp/gos-synth".into());
    let dir = Path::new(&root).join(n.to_string());
    if !dir.join("library").exists() {
        let lib = SynthLibrary::plan(SynthConfig::new(n, 42));
        write_library(&lib, &dir, |_| {}).expect("writing the synthetic library");
    }
    if !dir.join("ws").exists() {
        build_workspace(
            &BuildOptions {
                force: false,
                library: dir.join("library"),
                workspace: dir.join("ws"),
                relate: RelateOptions::default(),
                embed: None,
            },
            &NoProgress,
        )
        .expect("building the synthetic workspace");
    }
    dir
}

/// Instructions of the task file.
fn task_queries(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("tasks.jsonl")).expect("tasks.jsonl");
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("task line");
            v["instruction"].as_str().expect("instruction").to_string()
        })
        .take(50)
        .collect()
}

fn bench_scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("scale");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in sizes() {
        let dir = prepared(n);
        let library = dir.join("library");
        let found = discover(&library).expect("discover");
        let sample: Vec<PathBuf> = found
            .packages
            .iter()
            .step_by((n / 200).max(1))
            .take(200)
            .cloned()
            .collect();
        group.throughput(Throughput::Elements(sample.len() as u64));
        group.bench_function(BenchmarkId::new("parse_normalize_200", n), |b| {
            b.iter(|| {
                for p in &sample {
                    black_box(normalize(&parse_package(&library, p).expect("parse")));
                }
            })
        });
        group.throughput(Throughput::Elements(1));
        let ws = Arc::new(Workspace::open(&dir.join("ws")).expect("open workspace"));
        let nodes = ws.manifest().nodes.clone();
        let mut stats = RelateStats::default();
        let edges = io_edges(&nodes, &RelateOptions::default(), &mut stats);
        println!(
            "relate-stats {n}: scored_pairs {} all_pairs {} ratio {:.2e} io_edges {}",
            stats.scored_pairs,
            stats.all_pairs,
            stats.scored_pairs as f64 / stats.all_pairs.max(1) as f64,
            edges.len()
        );
        group.bench_function(BenchmarkId::new("dependency_induction", n), |b| {
            b.iter(|| {
                let mut s = RelateStats::default();
                io_edges(black_box(&nodes), &RelateOptions::default(), &mut s)
            })
        });
        if n <= 10_000 {
            let normalized: Vec<_> = found
                .packages
                .iter()
                .map(|p| normalize(&parse_package(&library, p).expect("parse")))
                .collect();
            group.bench_function(BenchmarkId::new("bm25_index", n), |b| {
                b.iter(|| {
                    let tmp = tempfile::tempdir().expect("tempdir");
                    LexicalIndex::build(
                        tmp.path(),
                        normalized
                            .iter()
                            .enumerate()
                            .map(|(i, x)| lexical_doc(i, x)),
                    )
                    .expect("index")
                })
            });
        }
        let queries = task_queries(&dir);
        let terms: Vec<_> = queries
            .iter()
            .map(|q| LexicalIndex::query_terms(q))
            .collect();
        let mut k = 0;
        group.bench_function(BenchmarkId::new("bm25_query_top50", n), |b| {
            b.iter(|| {
                k = (k + 1) % terms.len();
                ws.lexical()
                    .search(black_box(&terms[k]), 50)
                    .expect("search")
            })
        });
        let hits = ws.lexical().search(&terms[0], 5).expect("search");
        let mut p = vec![0.0; ws.len()];
        for (node, score) in hits {
            p[node] = score as f64;
        }
        let params = PprParams::default();
        group.bench_function(BenchmarkId::new("ppr_exact", n), |b| {
            b.iter(|| personalized_pagerank(ws.reverse_matrix(), black_box(&p), &params))
        });
        group.bench_function(BenchmarkId::new("ppr_push", n), |b| {
            b.iter(|| push_pagerank(ws.reverse_matrix(), black_box(&p), &params))
        });
        let retriever = Retriever::new(ws.clone());
        for method in [PprMethod::Push, PprMethod::Exact] {
            let opts = RetrieveOptions {
                ppr: PprParams {
                    method,
                    ..PprParams::default()
                },
                ..RetrieveOptions::default()
            };
            let mut k = 0;
            group.bench_function(BenchmarkId::new(format!("retrieve_{method}"), n), |b| {
                b.iter(|| {
                    k = (k + 1) % queries.len();
                    retriever
                        .retrieve(black_box(&queries[k]), &opts)
                        .expect("retrieve")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_scale);
criterion_main!(benches);
