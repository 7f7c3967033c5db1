//! Retrieval latency on the fixture library: BM25 seeding, one reverse-aware PPR, and the
//! whole retrieve (seed -> diffuse -> rerank -> hydrate), with the workspace already open.
//! Larger libraries and the scale targets arrive with the synthetic generator.
//!
//! Run: `cargo bench -p gos-benches --bench retrieve`

use criterion::{Criterion, criterion_group, criterion_main};
use gos_build::build::NoProgress;
use gos_build::{BuildOptions, build_workspace};
use gos_core::graph::ppr::{PprParams, personalized_pagerank};
use gos_core::index::lexical::LexicalIndex;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

const QUERY: &str = "Make a choropleth PNG of population density per county from \
                     /root/data/counties.shp, reprojected to an equal-area projection.";

fn bench_retrieve(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let ws_dir = tmp.path().join("ws");
    let library = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library");
    build_workspace(
        &BuildOptions {
            force: false,
            library,
            workspace: ws_dir.clone(),
            relate: Default::default(),
            embed: None,
        },
        &NoProgress,
    )
    .expect("fixture build");
    let ws = Arc::new(Workspace::open(&ws_dir).expect("open"));
    let retriever = Retriever::new(ws.clone());
    let opts = RetrieveOptions::default();
    let terms = LexicalIndex::query_terms(QUERY);

    c.bench_function("bm25_top50_fixtures", |b| {
        b.iter(|| ws.lexical().search(black_box(&terms), 50).expect("search"))
    });
    let mut p = vec![0.0; ws.len()];
    p[0] = 1.0;
    c.bench_function("ppr_reverse_fixtures", |b| {
        b.iter(|| personalized_pagerank(ws.reverse_matrix(), black_box(&p), &PprParams::default()))
    });
    c.bench_function("retrieve_end_to_end_fixtures", |b| {
        b.iter(|| {
            retriever
                .retrieve(black_box(QUERY), &opts)
                .expect("retrieve")
        })
    });
}

criterion_group!(benches, bench_retrieve);
criterion_main!(benches);
