//! Dense retrieval costs: sentence-encoder throughput (texts per second by batch size), exact
//! and HNSW top-50 search over 384-dimensional unit vectors, and end-to-end `retrieve` with
//! hybrid seeds (query encoding included) against lexical seeds.
//!
//! Needs all-MiniLM-L6-v2 (`scripts/setup-model.sh`, or `GOS_MODEL_DIR`); the encoder and
//! retrieve groups are skipped with a message without it. `GOS_DENSE_WS` may name a workspace
//! built with `--model-dir` (e.g. the real library) for the retrieve group; the default is the
//! fixture library, built here.
//!
//! Run: `cargo bench -p gos-benches --bench dense`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gos_build::build::NoProgress;
use gos_build::embed::EmbedOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::index::dense::search::{HnswParams, build_hnsw, exact_search, hnsw_search};
use gos_core::index::dense::{TextView, Vectors};
use gos_core::rng::SplitMix64;
use gos_core::seed::SeedSource;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use gos_models::dense::{SentenceEncoder, load_workspace_encoder};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

const QUERY: &str = "Make a choropleth PNG of population density per county from \
                     /root/data/counties.shp, reprojected to an equal-area projection.";

fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOS_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
        });
    if dir.join("model.safetensors").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP encoder and retrieve groups: no model at {}",
            dir.display()
        );
        None
    }
}

fn random_unit_vectors(n: usize, dim: usize, seed: u64) -> Vectors {
    let mut rng = SplitMix64::new(seed);
    let rows: Vec<Vec<f32>> = (0..n)
        .map(|_| {
            let v: Vec<f32> = (0..dim)
                .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter().map(|x| x / norm).collect()
        })
        .collect();
    let hashes = (0..n).map(|i| i.to_string()).collect();
    Vectors::from_rows("random".into(), "card".into(), dim, rows, hashes).expect("rows")
}

fn bench_search(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense-search-top50");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let query = random_unit_vectors(1, 384, 99);
    for n in [5_584usize, 50_000] {
        let v = random_unit_vectors(n, 384, 7);
        g.bench_with_input(BenchmarkId::new("exact", n), &v, |b, v| {
            b.iter(|| black_box(exact_search(v, query.row(0), 50)))
        });
    }
    let v = random_unit_vectors(10_000, 384, 7);
    let hnsw = build_hnsw(&v, &HnswParams::default());
    g.bench_function(BenchmarkId::new("hnsw", 10_000), |b| {
        b.iter(|| black_box(hnsw_search(&hnsw, query.row(0), 50)))
    });
    g.finish();
}

fn bench_encoder(c: &mut Criterion) {
    let Some(dir) = model_dir() else { return };
    let device = gos_models::device::parse_device("cpu").expect("cpu");
    let enc = SentenceEncoder::load(&dir, &device).expect("model loads");
    // Card views of the fixture skills: realistic lengths (40-90 tokens).
    let tmp = tempfile::tempdir().expect("tempdir");
    let ws = tmp.path().join("ws");
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library");
    build_workspace(
        &BuildOptions {
            force: false,
            library: lib,
            workspace: ws.clone(),
            relate: Default::default(),
            embed: None,
        },
        &NoProgress,
    )
    .expect("fixture build");
    let w = Workspace::open(&ws).expect("open");
    let texts: Vec<String> = w
        .manifest()
        .nodes
        .iter()
        .map(|n| TextView::Card.render(n, ""))
        .cycle()
        .take(64)
        .collect();
    let mut g = c.benchmark_group("encode-64-card-texts");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(texts.len() as u64));
    for batch in [1usize, 8, 32, 64] {
        g.bench_with_input(BenchmarkId::from_parameter(batch), &batch, |b, &batch| {
            b.iter(|| {
                for chunk in texts.chunks(batch) {
                    let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                    black_box(enc.encode(&refs).expect("encode"));
                }
            })
        });
    }
    g.finish();
}

fn bench_retrieve(c: &mut Criterion) {
    let Some(dir) = model_dir() else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let ws_dir = match std::env::var_os("GOS_DENSE_WS") {
        Some(p) => PathBuf::from(p),
        None => {
            let ws = tmp.path().join("ws");
            build_workspace(
                &BuildOptions {
                    force: false,
                    library: Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library"),
                    workspace: ws.clone(),
                    relate: Default::default(),
                    embed: Some(EmbedOptions::new(dir.clone(), load_workspace_encoder)),
                },
                &NoProgress,
            )
            .expect("fixture build with vectors");
            ws
        }
    };
    let ws = Workspace::open(&ws_dir).expect("open");
    let enc = load_workspace_encoder(&dir, "cpu").expect("model loads");
    let retriever = Retriever::new(ws).with_embedder(enc).expect("same model");
    let mut g = c.benchmark_group(format!("retrieve-{}-skills", retriever.workspace().len()));
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    for source in [SeedSource::Lexical, SeedSource::Hybrid] {
        let mut opts = RetrieveOptions::default();
        opts.seeds.source = source;
        g.bench_function(source.as_str(), |b| {
            b.iter(|| black_box(retriever.retrieve(QUERY, &opts).expect("retrieve")))
        });
    }
    g.bench_function("encode-query-only", |b| {
        b.iter(|| black_box(retriever.embed_query(QUERY, false).expect("encode")))
    });
    g.finish();
}

criterion_group!(benches, bench_search, bench_encoder, bench_retrieve);
criterion_main!(benches);
