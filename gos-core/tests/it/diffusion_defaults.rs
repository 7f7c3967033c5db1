//! The session-16 diffusion defaults on a real workspace of `fixtures/library` (36 skills,
//! lexical seeds, BM25 semantic edges): the adaptive cut reads the query evidence, lexical
//! seeds walk the semantic edges with their own factor, and typed matrices are built once.

use gos_core::graph::ppr::{TransitionMatrix, TypeWeights};
use gos_core::seed::SeedSource;
use gos_core::{RetrievalMode, RetrieveOptions, Retriever, Workspace};
use std::sync::Arc;

fn fixture_workspace() -> Arc<Workspace> {
    let ws = gos_testkit::fixtures_workspace();
    Arc::new(Workspace::open(ws).expect("opening the fixture workspace"))
}

/// The instructions of fixtures/tasks.jsonl.
fn fixture_tasks() -> Vec<String> {
    let path = gos_testkit::fixtures().join("tasks.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|t| t["instruction"].as_str().unwrap().to_string())
        .collect()
}

fn lexical() -> RetrieveOptions {
    let mut opts = RetrieveOptions::default();
    opts.seeds.source = SeedSource::Lexical;
    opts
}

fn bundle_ids(r: &Retriever, text: &str, opts: &RetrieveOptions) -> Vec<String> {
    let got = r.retrieve(text, opts).unwrap();
    got.bundle.skills.iter().map(|s| s.id.clone()).collect()
}

#[test]
fn the_bundle_has_the_size_the_query_gives_it_without_the_graph() {
    let ws = fixture_workspace();
    let r = Retriever::new(ws);
    let on = lexical();
    assert!(
        on.cut_on_query,
        "the default reads the cut off the query evidence"
    );
    let off = RetrieveOptions {
        cut_on_query: false,
        ..on
    };
    let no_graph = RetrieveOptions {
        mode: RetrievalMode::NoGraph,
        ..on
    };
    let mut graph_moved_the_cut = 0;
    for task in fixture_tasks() {
        let sized = bundle_ids(&r, &task, &on);
        let plain = bundle_ids(&r, &task, &no_graph);
        assert_eq!(sized.len(), plain.len(), "{task}");
        if bundle_ids(&r, &task, &off).len() != plain.len() {
            graph_moved_the_cut += 1;
        }
    }
    eprintln!("tasks whose cut the graph's mass moves: {graph_moved_the_cut}");
}

#[test]
fn lexical_seeds_walk_semantic_edges_with_their_own_factor() {
    let r = Retriever::new(fixture_workspace());
    let scores = |opts: &RetrieveOptions, text: &str| -> Vec<(String, f64)> {
        let got = r.retrieve(text, opts).unwrap();
        got.ranked
            .iter()
            .map(|s| (s.id.clone(), s.graph_score))
            .collect()
    };
    let default = lexical();
    assert_eq!(default.edge_semantic_lexical, 0.3);
    assert_eq!(default.edge_weights.semantic, 0.0);
    // The lexical factor replaces edge_semantic: setting edge_semantic changes nothing here.
    let mut other = default;
    other.edge_weights.semantic = 0.7;
    let mut without = default;
    without.edge_semantic_lexical = 0.0;
    let mut differs = 0;
    for task in fixture_tasks() {
        assert_eq!(scores(&default, &task), scores(&other, &task), "{task}");
        if scores(&default, &task) != scores(&without, &task) {
            differs += 1;
        }
    }
    eprintln!("tasks whose graph scores the semantic edges move: {differs}");
}

#[test]
fn a_typed_matrix_is_built_once_per_setting() {
    let ws = fixture_workspace();
    let w = TypeWeights {
        semantic: 0.1,
        ..TypeWeights::default()
    };
    let first = ws.typed_matrix(&w);
    assert!(Arc::ptr_eq(&first, &ws.typed_matrix(&w)));
    assert_eq!(
        first.to_dense_rows(),
        TransitionMatrix::build_typed(ws.graph(), &w).to_dense_rows()
    );
    let other = ws.typed_matrix(&TypeWeights { semantic: 0.3, ..w });
    assert!(!Arc::ptr_eq(&first, &other));
    assert_ne!(first.to_dense_rows(), other.to_dense_rows());
}
