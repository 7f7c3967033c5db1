//! The harness as a library on the fixture library and tasks: the metric tables and intervals
//! equal what `gos eval` printed before the harness moved into this crate (same arms, same
//! bootstrap seed and resamples).
//!
//! The hybrid test needs all-MiniLM-L6-v2 (`scripts/setup-model.sh` or `GOS_MODEL_DIR`); it
//! skips with a message without it.

use gos_build::build::NoProgress;
use gos_build::embed::EmbedOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::{RetrieveOptions, Workspace};
use gos_eval::bootstrap::{DEFAULT_RESAMPLES, DEFAULT_SEED};
use gos_eval::encoder::load_query_encoder;
use gos_eval::report::metric_table;
use gos_eval::{DEFAULT_ARMS, EvalConfig, EvalReport, Models, RunInfo};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOS_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("models/all-MiniLM-L6-v2"));
    dir.join("model.safetensors").exists().then_some(dir)
}

/// Build `fixtures/library` into `dir/ws`, with vectors from `model` when given.
fn workspace(dir: &Path, model: Option<&Path>) -> Workspace {
    let ws = dir.join("ws");
    build_workspace(
        &BuildOptions {
            force: false,
            library: repo().join("fixtures/library"),
            workspace: ws.clone(),
            relate: RelateOptions::default(),
            embed: model.map(|m| EmbedOptions::new(m.to_path_buf())),
        },
        &NoProgress,
    )
    .expect("building the fixture workspace");
    Workspace::open(&ws).expect("opening the fixture workspace")
}

/// Evaluate `arms` on the fixture tasks with `gos eval`'s defaults (exact PPR).
fn evaluate(ws: &Workspace, arms: &str, model: Option<&Path>) -> EvalReport {
    let task_file = repo().join("fixtures/tasks.jsonl");
    let tasks = gos_eval::load_tasks(&task_file).unwrap();
    let arms = gos_eval::parse_arms(arms).unwrap();
    let needs_vectors = arms.iter().any(|a| a.source.needs_vectors());
    let encoder = load_query_encoder(ws, needs_vectors, model, "cpu").unwrap();
    let mut options = RetrieveOptions::default();
    options.ppr.method = "exact".parse().unwrap();
    let config = EvalConfig {
        arms,
        options,
        run: RunInfo {
            workspace: ws.dir().to_path_buf(),
            task_file,
            seed: DEFAULT_SEED,
            resamples: DEFAULT_RESAMPLES,
            cross_encoder: None,
        },
    };
    let models = Models {
        encoder: encoder.as_ref(),
        cross_encoder: None,
    };
    let mut calls = 0;
    let report = gos_eval::evaluate(ws, &tasks, &config, models, &mut |p| {
        assert!(p.done <= p.total && p.total == tasks.len() * config.arms.len());
        calls += 1;
    })
    .unwrap();
    assert_eq!(calls, tasks.len() * (config.arms.len() + 1));
    report
}

/// The metric table without the latency rows (wall-clock times differ between runs).
fn table_without_latency(report: &EvalReport) -> String {
    metric_table(&report.arms, &report.summaries)
        .lines()
        .filter(|l| !l.starts_with("| latency"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// An interval as `(mean_diff, lo, hi)`.
fn ci(report: &EvalReport, arm: &str, metric: &str) -> (f64, f64, f64) {
    let i = report.ci[arm][metric].expect("interval defined");
    (i.mean_diff, i.lo, i.hi)
}

fn close(a: (f64, f64, f64), b: (f64, f64, f64)) {
    let near = |x: f64, y: f64| (x - y).abs() < 1e-9;
    assert!(
        near(a.0, b.0) && near(a.1, b.1) && near(a.2, b.2),
        "{a:?} != {b:?}"
    );
}

#[test]
fn default_arms_reproduce_the_reported_metrics() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path(), None);
    let report = evaluate(&ws, DEFAULT_ARMS, None);
    assert_eq!(
        table_without_latency(&report),
        "\
| metric | reverse/lexical | forward/lexical | one-hop/lexical | no-graph/lexical |
|---|---:|---:|---:|---:|
| recall_available | 1.000 | 0.967 | 1.000 | 1.000 |
| recall_full | 1.000 | 0.967 | 1.000 | 1.000 |
| completeness | 1.000 | 0.900 | 1.000 | 1.000 |
| precision | 0.287 | 0.275 | 0.289 | 0.300 |
| co_recovery | 1.000 | 0.929 | 1.000 | 1.000 |
| hit_at_1 | 0.900 | 0.900 | 0.900 | 0.900 |
| mrr_at_10 | 0.933 | 0.933 | 0.925 | 0.933 |
| recall_at_10 | 1.000 | 1.000 | 1.000 | 1.000 |
| recall_at_20 | 1.000 | 1.000 | 1.000 | 1.000 |
| recall_at_50 | 1.000 | 1.000 | 1.000 | 1.000 |
| fc_at_10 | 1.000 | 1.000 | 1.000 | 1.000 |
| bundle_size | 8.00 | 8.00 | 7.90 | 7.60 |
| context_chars | 9415 | 9339 | 9250 | 9026 |
"
    );
    // Unrounded values and bootstrap intervals (seed 0, 5,000 resamples) as `gos eval` wrote
    // them to report.json.
    let value = |arm: usize, metric: &str| {
        report.summaries[arm]
            .iter()
            .find(|(m, _)| *m == metric)
            .and_then(|(_, v)| *v)
            .unwrap()
    };
    assert!((value(1, "co_recovery") - 13.0 / 14.0).abs() < 1e-12);
    assert!((value(3, "precision") - 0.300_357_142_857_142_9).abs() < 1e-12);
    assert!((value(0, "context_chars") - 9415.3).abs() < 1e-9);
    close(
        ci(&report, "forward/lexical", "recall_available"),
        (-0.033_333_333_333_333_34, -0.1, 0.0),
    );
    close(
        ci(&report, "no-graph/lexical", "context_chars"),
        (-389.1, -1278.7, 153.504_999_999_999_94),
    );
    assert_eq!(report.records.len(), 10);
    assert!(report.missing_oracles().is_empty());
    let json = report.to_json();
    assert_eq!(json["failure_summary"]["counts"]["seed_miss"], 0);
    assert_eq!(json["config"]["baseline"], "reverse/lexical");
}

#[test]
fn hybrid_arm_reproduces_the_reported_metrics() {
    let Some(model) = model_dir() else {
        eprintln!("skipped: no all-MiniLM-L6-v2 (run scripts/setup-model.sh or set GOS_MODEL_DIR)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path(), Some(&model));
    let report = evaluate(
        &ws,
        "reverse/lexical,reverse/hybrid,no-graph/dense",
        Some(&model),
    );
    assert_eq!(
        table_without_latency(&report),
        "\
| metric | reverse/lexical | reverse/hybrid | no-graph/dense |
|---|---:|---:|---:|
| recall_available | 1.000 | 0.967 | 0.933 |
| recall_full | 1.000 | 0.967 | 0.933 |
| completeness | 1.000 | 0.900 | 0.800 |
| precision | 0.287 | 0.275 | 0.263 |
| co_recovery | 1.000 | 0.929 | 0.857 |
| hit_at_1 | 0.900 | 0.900 | 1.000 |
| mrr_at_10 | 0.933 | 0.950 | 1.000 |
| recall_at_10 | 1.000 | 0.967 | 0.967 |
| recall_at_20 | 1.000 | 1.000 | 0.967 |
| recall_at_50 | 1.000 | 1.000 | 1.000 |
| fc_at_10 | 1.000 | 0.900 | 0.900 |
| bundle_size | 8.00 | 8.00 | 8.00 |
| context_chars | 9415 | 9409 | 9050 |
"
    );
    close(
        ci(&report, "reverse/hybrid", "mrr_at_10"),
        (0.016_666_666_666_666_67, 0.0, 0.05),
    );
}
