//! Builds with the real sentence encoder: vectors in the workspace, reuse of unchanged
//! embeddings, dense and hybrid seeds end to end.
//!
//! Needs all-MiniLM-L6-v2 unpacked by `scripts/setup-model.sh` (or `GOS_MODEL_DIR`); skips with
//! a message without it, unless `GOS_REQUIRE_MODEL=1` (set by `.ci/run`).

use gos_build::build::NoProgress;
use gos_build::embed::EmbedOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::index::dense::{TextView, Vectors, vectors_file};
use gos_core::seed::SeedSource;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use gos_models::dense::load_workspace_encoder;
use gos_testkit::{model_dir, repo};
use std::path::Path;
use std::sync::Arc;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn build(library: &Path, ws: &Path, model: &Path, view: TextView) -> gos_build::BuildReport {
    let opts = BuildOptions {
        force: false,
        library: library.to_path_buf(),
        workspace: ws.to_path_buf(),
        relate: Default::default(),
        embed: Some(EmbedOptions {
            view,
            ..EmbedOptions::new(model.to_path_buf(), load_workspace_encoder)
        }),
    };
    build_workspace(&opts, &NoProgress).expect("build succeeds")
}

#[test]
fn rebuild_re_embeds_only_the_changed_package() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    copy_dir(&repo().join("fixtures/library"), &lib);
    let ws = tmp.path().join("ws");

    let first = build(&lib, &ws, &model, TextView::Card);
    let e = first.embed.as_ref().expect("embed stats");
    assert_eq!((e.embedded, e.reused, e.dim), (36, 0, 384));
    assert!(e.texts_per_sec > 0.0);
    assert!(!e.hnsw, "36 skills are searched exactly");
    let before = Vectors::read(&ws.join(vectors_file(TextView::Card))).unwrap();

    let again = build(&lib, &ws, &model, TextView::Card);
    let e = again.embed.as_ref().unwrap();
    assert_eq!((e.embedded, e.reused), (0, 36));
    let same = Vectors::read(&ws.join(vectors_file(TextView::Card))).unwrap();
    assert_eq!(same, before, "reused vectors are bit-identical");

    // Touch one package: only it is re-embedded.
    let skill = lib.join("geo/choropleth-map/SKILL.md");
    let text = std::fs::read_to_string(&skill).unwrap();
    let changed = text.replacen(
        "description:",
        "description: Thematic maps for census statistics.",
        1,
    );
    assert_ne!(changed, text, "the fixture has a description key");
    std::fs::write(&skill, changed).unwrap();
    let third = build(&lib, &ws, &model, TextView::Card);
    let e = third.embed.as_ref().unwrap();
    assert_eq!((e.embedded, e.reused), (1, 35));
    let after = Vectors::read(&ws.join(vectors_file(TextView::Card))).unwrap();
    let w = Workspace::open(&ws).unwrap();
    let changed_row = w.index_of("geo/choropleth-map").unwrap();
    for i in 0..after.len() {
        assert_eq!(after.row(i) == before.row(i), i != changed_row, "row {i}");
    }

    // Another view re-embeds everything.
    let other = build(&lib, &ws, &model, TextView::Description);
    assert_eq!(other.embed.as_ref().unwrap().embedded, 36);
}

#[test]
fn dense_and_hybrid_seeds_find_a_paraphrase_that_bm25_misses() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws_dir = tmp.path().join("ws");
    build(
        &repo().join("fixtures/library"),
        &ws_dir,
        &model,
        TextView::Card,
    );
    let ws = Arc::new(Workspace::open(&ws_dir).unwrap());
    let info = ws.dense().expect("vectors loaded").info.clone();
    assert_eq!(info.view, TextView::Card);
    assert_eq!(info.dim, 384);
    let encoder = load_workspace_encoder(&model, "cpu").unwrap();
    let retriever = Retriever::new(ws.clone())
        .with_embedder(encoder.clone())
        .unwrap();
    // No word (or stem) of this query is in the skill's name or description
    // (email-drafting: "Draft professional emails - requests, follow-ups, apologies, ...").
    let query = "write to a client saying sorry that their parcel arrived late";
    let rank_of = |source: SeedSource| {
        let opts = RetrieveOptions {
            seeds: gos_core::seed::SeedParams {
                source,
                ..Default::default()
            },
            ..Default::default()
        };
        let r = retriever.retrieve(query, &opts).unwrap();
        assert_eq!(r.source, source);
        let node = ws.index_of("docs/email-drafting").unwrap();
        (gos_core::retrieve::rank_of(&r.ranked, node), r)
    };
    let node = ws.index_of("docs/email-drafting").unwrap();
    let (lexical_rank, _) = rank_of(SeedSource::Lexical);
    let (dense_rank, dense) = rank_of(SeedSource::Dense);
    eprintln!("email-drafting: lexical rank {lexical_rank:?}, dense rank {dense_rank:?}");
    // The skill is the dense first stage's best match (seed 1).
    let entry = dense.ranked.iter().find(|r| r.node == node).unwrap();
    assert_eq!(entry.pool_rank, Some(1), "{entry:?}");
    assert_eq!(entry.seed_rank, Some(1));
    assert!(dense_rank.is_some_and(|r| r <= 2), "{dense_rank:?}");
    let top = dense.top_dense_score.unwrap();
    assert!(top > 0.3 && top <= 1.0, "best cosine {top}");
    assert!(dense.timings.encode > 0.0);
    let (hybrid_rank, hybrid) = rank_of(SeedSource::Hybrid);
    eprintln!("hybrid rank {hybrid_rank:?}");
    assert!(hybrid_rank.is_some_and(|r| r <= 3), "{hybrid_rank:?}");
    assert!(
        lexical_rank.is_none_or(|l| l > hybrid_rank.unwrap()),
        "BM25 alone ranks it {lexical_rank:?}"
    );
    assert!(hybrid.ranked[0].dense_score.is_some());

    // A workspace without vectors refuses dense seeds with a clear error.
    let plain = tmp.path().join("plain");
    build_workspace(
        &BuildOptions {
            force: false,
            library: repo().join("fixtures/library"),
            workspace: plain.clone(),
            relate: Default::default(),
            embed: None,
        },
        &NoProgress,
    )
    .unwrap();
    let ws2 = Workspace::open(&plain).unwrap();
    let err = Retriever::new(ws2)
        .with_embedder(encoder)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("has no skill vectors"), "{err}");
}

/// Writes `dir/NAME/SKILL.md` with the given description and declared types.
fn skill(dir: &Path, name: &str, description: &str, inputs: &str, outputs: &str) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let text = format!(
        "---\nname: {name}\ndescription: {description}\ninputs: [{inputs}]\noutputs: [{outputs}]\n---\n\n# {name}\n\n{description}\n"
    );
    std::fs::write(d.join("SKILL.md"), text).unwrap();
}

/// The io edges of a workspace's graph.json as (source, target) pairs, sorted.
fn io_pairs(ws: &Path) -> Vec<(String, String)> {
    let g: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.join("graph.json")).unwrap()).unwrap();
    let mut p: Vec<(String, String)> = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["provenance"] == "io")
        .map(|e| {
            (
                e["source"].as_str().unwrap().to_string(),
                e["target"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    p.sort();
    p
}

/// Issue 22 item 8: with skill vectors, an io edge between skills of unrelated fields (one
/// shared common type, card vectors far apart) is dropped, and exactly those below the floor
/// go. The cosines are the real encoder's, read back from the workspace's vectors.
#[test]
fn io_edges_between_unrelated_skills_are_dropped_by_the_cosine_floor() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    skill(
        &lib,
        "telescope-log-export",
        "Export the night's telescope observation log from the observatory control system as CSV.",
        "",
        "csv",
    );
    skill(
        &lib,
        "sales-order-export",
        "Export the shop's sales orders from the order database as CSV files.",
        "",
        "csv",
    );
    skill(
        &lib,
        "sales-revenue-report",
        "Summarise sales order CSV files into a monthly revenue report per product.",
        "csv",
        "markdown",
    );
    let options = |ws: &Path, floor: f32| BuildOptions {
        force: false,
        library: lib.clone(),
        workspace: ws.to_path_buf(),
        // Three skills make every type rare at the default; `specific_type_df` 1 makes `csv`
        // (named by all three) a common type, as it is in a real library, and with no rare
        // type the evidence rule would want shared terms, so it is off here.
        relate: gos_build::relate::RelateOptions {
            io_min_cosine: floor,
            specific_type_df: 1,
            min_shared_terms: 0,
            ..Default::default()
        },
        embed: Some(EmbedOptions::new(model.clone(), load_workspace_encoder)),
    };
    let all_ws = tmp.path().join("all");
    let all = build_workspace(&options(&all_ws, 0.0), &NoProgress).unwrap();
    assert_eq!(all.relate.io_below_cosine, 0);
    let kept_ws = tmp.path().join("kept");
    let floor = gos_build::io_filters::DEFAULT_IO_MIN_COSINE;
    let kept = build_workspace(&options(&kept_ws, floor), &NoProgress).unwrap();

    let vectors = Vectors::read(&all_ws.join(vectors_file(TextView::Card))).unwrap();
    let ws = Workspace::open(&all_ws).unwrap();
    let row = |id: &str| vectors.row(ws.index_of(id).unwrap()).to_vec();
    let cosine = |a: &str, b: &str| -> f32 { row(a).iter().zip(row(b)).map(|(x, y)| x * y).sum() };
    let every = io_pairs(&all_ws);
    let expected: Vec<(String, String)> = every
        .iter()
        .filter(|(a, b)| cosine(a, b) >= floor)
        .cloned()
        .collect();
    assert_eq!(io_pairs(&kept_ws), expected);
    assert_eq!(
        kept.relate.io_below_cosine as usize,
        every.len() - expected.len()
    );
    // The fixture's point: the shop export feeds the revenue report, the telescope log does
    // not, though both write CSV.
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    let telescope = pair("telescope-log-export", "sales-revenue-report");
    let sales = pair("sales-order-export", "sales-revenue-report");
    assert!(
        every.contains(&telescope) && every.contains(&sales),
        "{every:?}"
    );
    assert!(cosine(&telescope.0, &telescope.1) < floor);
    assert_eq!(expected, vec![sales]);
}
