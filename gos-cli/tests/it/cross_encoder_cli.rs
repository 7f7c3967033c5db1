//! The cross-encoder stage end to end on the fixture library, with a tiny random-weight BERT
//! classifier written by the test: `gos retrieve --rerank cross-encoder`, the
//! `MODE/SEEDS/cross-encoder` arm of `gos eval`, and the stage's contract at the library level.

use crate::util::{fixtures, gos, gos_out};
use gos_core::rerank::StageParams;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use gos_models::cross_encoder::{Architecture, CrossEncoder};
use gos_models::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

const QUERY: &str = "Make a choropleth PNG of population density per county from \
                     /root/data/counties.shp, reprojected to an equal-area projection.";

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "gos failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The fixture workspace and a tiny random cross-encoder under `dir`.
fn setup(dir: &Path) -> (PathBuf, PathBuf) {
    let ws = dir.join("ws");
    let library = fixtures().join("library");
    ok(gos_out(&[
        "build",
        library.to_str().unwrap(),
        "-w",
        ws.to_str().unwrap(),
        "-q",
    ]));
    let model = dir.join("ce");
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::Bert, vocab, 3);
    spec.max_positions = 512;
    write_random_classifier(&model, &spec, &tok).unwrap();
    (ws, model)
}

#[test]
fn cross_encoder_retrieve_cli_reports_the_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let ws = ws.to_str().unwrap();
    // The adaptive cut reads the final scores, which the stage replaces, and (with vectors)
    // the cosines in the stage's order, so it is off here.
    let no_cut = [
        "--bundle-gap",
        "0",
        "--bundle-floor",
        "0",
        "--bundle-min-cosine",
        "-1",
    ];
    let plain: Value = serde_json::from_slice(
        &ok(gos_out(
            &[&["retrieve", "-w", ws, "--json", QUERY][..], &no_cut[..]].concat(),
        ))
        .stdout,
    )
    .unwrap();
    assert_eq!(plain["rerank"], "fields");
    assert_eq!(plain["timings_ms"]["cross_encoder"], 0.0);
    let out = ok(gos_out(&[
        "retrieve",
        "-w",
        ws,
        "--rerank",
        "cross-encoder",
        "--reranker-dir",
        model.to_str().unwrap(),
        "--rerank-top",
        "16",
        "--ce-weight",
        "1",
        "--bundle-gap",
        "0",
        "--bundle-floor",
        "0",
        "--json",
        QUERY,
    ]));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["rerank"], "cross-encoder");
    assert_eq!(v["status"], "SKILL_HIT");
    assert!(
        v["timings_ms"]["cross_encoder"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    assert!(
        v["timings_ms"]["reranker_load"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    // The stage reorders, it never changes how many candidates pass the floors.
    assert_eq!(
        v["skills"].as_array().unwrap().len(),
        plain["skills"].as_array().unwrap().len()
    );
    // The environment variable works as --reranker-dir.
    let out = gos()
        .args([
            "retrieve",
            "-w",
            ws,
            "--rerank",
            "cross-encoder",
            "--json",
            QUERY,
        ])
        .env("GOS_RERANKER_DIR", &model)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cross_encoder_cli_errors_are_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let ws = ws.to_str().unwrap();
    let err = |args: &[&str]| {
        let out = gos_out(args);
        assert!(!out.status.success(), "{args:?} accepted");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = err(&["retrieve", "-w", ws, "--rerank", "cross-encoder", QUERY]);
    assert!(
        e.contains("--reranker-dir") && e.contains("GOS_RERANKER_DIR"),
        "{e}"
    );
    let m = model.to_str().unwrap();
    let e = err(&[
        "retrieve",
        "-w",
        ws,
        "--rerank",
        "cross-encoder",
        "--reranker-dir",
        m,
        "--ce-weight",
        "2",
        QUERY,
    ]);
    assert!(e.contains("--rerank-weight"), "{e}"); // the old name is a hidden alias
    let e = err(&[
        "retrieve",
        "-w",
        ws,
        "--rerank",
        "cross-encoder",
        "--reranker-dir",
        ws,
        QUERY,
    ]);
    assert!(e.contains("missing config.json"), "{e}");
    if !cfg!(feature = "cuda") {
        let e = err(&[
            "retrieve",
            "-w",
            ws,
            "--rerank",
            "cross-encoder",
            "--reranker-dir",
            m,
            "--device",
            "cuda:0",
            QUERY,
        ]);
        assert!(e.contains("--features cuda"), "{e}");
    }
    let tasks = fixtures().join("tasks.jsonl");
    let e = err(&[
        "eval",
        "-w",
        ws,
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        tmp.path().join("o").to_str().unwrap(),
        "--arms",
        "reverse/lexical/cross-encoder",
    ]);
    assert!(e.contains("--reranker-dir"), "{e}");
}

#[test]
fn cross_encoder_eval_arm_runs_and_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let out_dir = tmp.path().join("eval");
    let tasks = fixtures().join("tasks.jsonl");
    ok(gos_out(&[
        "eval",
        "-w",
        ws.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--arms",
        "reverse/lexical,reverse/lexical/cross-encoder",
        "--reranker-dir",
        model.to_str().unwrap(),
        "--resamples",
        "50",
        "-q",
    ]));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    assert!(report["arms"]["reverse/lexical/cross-encoder"]["recall_available"].is_number());
    assert_eq!(report["config"]["cross_encoder"]["top"], 32);
    assert!(report["ci"]["reverse/lexical/cross-encoder"].is_object());
}

/// At the library level: weight 0 without reserved slots keeps the field-evidence order; weight
/// 1 orders the window by the model's score except for reserved prerequisites, and leaves the
/// candidates after the window in place.
#[test]
fn cross_encoder_stage_reorders_only_the_window() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws_dir, model) = setup(tmp.path());
    let retriever = Retriever::new(Workspace::open(&ws_dir).unwrap());
    let ce = CrossEncoder::load(&model, &gos_models::device::parse_device("cpu").unwrap()).unwrap();
    let ce = Arc::new(ce);
    let opts = RetrieveOptions::default();
    let plain = retriever.retrieve(QUERY, &opts).unwrap();
    let ids = |r: &gos_core::retrieve::Retrieval| -> Vec<usize> {
        r.ranked.iter().map(|s| s.node).collect()
    };
    let params = |weight, reserved_share| StageParams {
        top: 6,
        weight,
        reserved_share,
        ..StageParams::default()
    };
    let same = retriever
        .clone()
        .with_pair_scorer(ce.clone(), params(0.0, 0.0))
        .retrieve(QUERY, &opts)
        .unwrap();
    assert_eq!(ids(&same), ids(&plain));
    assert!(
        same.ranked[..6]
            .iter()
            .all(|s| s.cross_encoder_score.is_some())
    );
    assert!(
        same.ranked[6..]
            .iter()
            .all(|s| s.cross_encoder_score.is_none())
    );
    let full = retriever
        .with_pair_scorer(ce, params(1.0, 0.0))
        .retrieve(QUERY, &opts)
        .unwrap();
    let window: Vec<f32> = full.ranked[..6]
        .iter()
        .map(|s| s.cross_encoder_score.unwrap())
        .collect();
    assert!(window.windows(2).all(|w| w[0] >= w[1]), "{window:?}");
    assert_eq!(ids(&full)[6..], ids(&plain)[6..]);
    let mut a = ids(&full)[..6].to_vec();
    let mut b = ids(&plain)[..6].to_vec();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let scores: Vec<f64> = full.ranked.iter().map(|s| s.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(full.timings.cross_encoder > 0.0);
}
