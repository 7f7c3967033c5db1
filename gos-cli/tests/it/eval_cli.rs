//! `gos eval` end to end on the fixture library, and the matched-arms property at the library
//! level.

use crate::util::{fixtures, gos_out};
use gos_core::{RetrievalMode, RetrieveOptions, Retriever, Workspace};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const METRICS: [&str; 30] = [
    "recall_available",
    "recall_available_equiv",
    "recall_full",
    "recall_full_equiv",
    "completeness",
    "completeness_equiv",
    "precision",
    "precision_equiv",
    "f1",
    "f1_equiv",
    "f2",
    "f2_equiv",
    "co_recovery",
    "co_recovery_equiv",
    "hit_at_1",
    "hit_at_1_equiv",
    "mrr_at_10",
    "mrr_at_10_equiv",
    "recall_at_10",
    "recall_at_10_equiv",
    "recall_at_20",
    "recall_at_20_equiv",
    "recall_at_50",
    "recall_at_50_equiv",
    "fc_at_10",
    "fc_at_10_equiv",
    "bundle_size",
    "context_chars",
    "latency_p50_ms",
    "latency_p95_ms",
];

const ARMS: [&str; 4] = [
    "reverse/lexical",
    "forward/lexical",
    "one-hop/lexical",
    "no-graph/lexical",
];

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "gos failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Build the fixture library into `dir/ws` and return the workspace path.
fn build_workspace(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    let library = fixtures().join("library");
    ok(gos_out(&[
        "build",
        library.to_str().unwrap(),
        "-w",
        ws.to_str().unwrap(),
        "-q",
    ]));
    ws
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn eval_reports_every_metric_for_every_arm() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = build_workspace(tmp.path());
    let out_dir = tmp.path().join("eval");
    let tasks = fixtures().join("tasks.jsonl");
    let out = ok(gos_out(&[
        "eval",
        "-w",
        ws.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--json",
    ]));
    let summary: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let report = read_json(&out_dir.join("report.json"));
    assert_eq!(summary["arms"], report["arms"]);
    assert_eq!(summary["ci"], report["ci"]);

    for arm in ARMS {
        let m = &report["arms"][arm];
        assert_eq!(m.as_object().unwrap().len(), METRICS.len(), "{arm}: {m}");
        for metric in METRICS {
            let v = &m[metric];
            let x = v.as_f64().unwrap_or_else(|| panic!("{arm} {metric} = {v}"));
            let in_range = match metric {
                "bundle_size" => (0.0..=8.0).contains(&x),
                "context_chars" => (0.0..=12_000.0).contains(&x),
                "latency_p50_ms" | "latency_p95_ms" => x >= 0.0 && x.is_finite(),
                _ => (0.0..=1.0).contains(&x),
            };
            assert!(in_range, "{arm} {metric} = {x}");
        }
        assert!(m["latency_p50_ms"].as_f64() <= m["latency_p95_ms"].as_f64());
        // Every fixture oracle is in the library: both recalls agree.
        assert_eq!(m["recall_available"], m["recall_full"]);
        // The fixture library holds no near-copies: equivalent and strict agree.
        assert_eq!(m["recall_available"], m["recall_available_equiv"]);
        assert_eq!(m["f2"], m["f2_equiv"]);
    }
    // Intervals against the reverse arm, for every other arm.
    let ci = report["ci"].as_object().unwrap();
    assert_eq!(ci.len(), 3);
    for (arm, metrics) in ci {
        let r = &metrics["recall_available"];
        let (lo, mean, hi) = (r["lo"].as_f64(), r["mean_diff"].as_f64(), r["hi"].as_f64());
        assert!(lo <= mean && mean <= hi, "{arm}: {r}");
    }
    let config = &report["config"];
    assert_eq!(config["seed"], 0);
    assert_eq!(config["resamples"], 5000);
    assert_eq!(config["baseline"], "reverse/lexical");
    assert_eq!(report["missing_oracles"]["count"], 0);

    // Per-task records: every arm, identical seeds across arms.
    let records = report["tasks"].as_array().unwrap();
    assert_eq!(records.len(), 10);
    for t in records {
        let arms = &t["arms"];
        let seeds = &arms["reverse/lexical"]["seeds"];
        assert!(!seeds.as_array().unwrap().is_empty(), "{}", t["id"]);
        for arm in ARMS {
            assert_eq!(&arms[arm]["seeds"], seeds, "{} {arm}", t["id"]);
            assert!(arms[arm]["bundle"].is_array());
            assert!(arms[arm]["oracle_ranks"].is_object());
            assert!(arms[arm]["timings_ms"]["total"].as_f64().unwrap() >= 0.0);
        }
        for f in t["failures"].as_array().unwrap() {
            let class = f["class"].as_str().unwrap();
            assert!(["seed_miss", "budget_cut"].contains(&class), "{f}");
        }
    }

    for svg in ["recall_at_k.svg", "recall_diff.svg"] {
        let text = std::fs::read_to_string(out_dir.join(svg)).unwrap();
        assert!(text.starts_with("<svg") && text.contains("</svg>"), "{svg}");
        assert!(text.contains("reverse/lexical"), "{svg} has no legend");
    }
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    for needle in [
        "| recall_available |",
        "## Difference from",
        "## Failure analysis",
    ] {
        assert!(md.contains(needle), "report.md lacks {needle}");
    }
}

#[test]
fn missing_oracles_are_reported_and_count_as_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = build_workspace(tmp.path());
    let tasks = tmp.path().join("tasks.jsonl");
    std::fs::write(
        &tasks,
        concat!(
            r#"{"id": "kepler", "instruction": "Find the orbital period of the planet in the Kepler light curve kplr.fits and report the transit depth.", "oracle_skills": ["light-curve-preprocessing", "transit-search", "bls-periodogram"], "oracle_dirs": ["science/light-curve-preprocessing", "science/transit-search", "science/bls-periodogram"]}"#,
            "\n\n",
            r#"{"id": "absent", "instruction": "Bake sourdough bread with a long cold proof.", "oracle_skills": ["sourdough"], "oracle_dirs": ["kitchen/sourdough"]}"#,
            "\n"
        ),
    )
    .unwrap();
    let out_dir = tmp.path().join("eval");
    ok(gos_out(&[
        "eval",
        "-w",
        ws.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--arms",
        "reverse,no-graph/lexical",
        "--resamples",
        "200",
        "-q",
    ]));
    let report = read_json(&out_dir.join("report.json"));
    let missing = &report["missing_oracles"];
    assert_eq!(missing["count"], 2);
    let dirs: Vec<&str> = missing["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["dir"].as_str().unwrap())
        .collect();
    assert_eq!(dirs, ["science/bls-periodogram", "kitchen/sourdough"]);
    assert_eq!(report["config"]["tasks_with_available_oracle"], 1);
    let m = &report["arms"]["reverse/lexical"];
    // T+ = {kepler}; both available oracles are easy BM25 hits.
    assert_eq!(m["recall_available"], 1.0);
    // (2/3 + 0/1) / 2: the missing oracles count as misses over all tasks.
    assert!((m["recall_full"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    let classes: Vec<&str> = report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["failures"].as_array().unwrap())
        .map(|f| f["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["not_in_workspace", "not_in_workspace"]);
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(md.contains("`kitchen/sourdough` (sourdough)"), "{md}");
}

#[test]
fn unavailable_arms_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = fixtures().join("tasks.jsonl");
    for (arm, needle) in [
        ("reverse/semantic", "not one of lexical, dense, hybrid"),
        ("reverse/lexical/cross-encoder", "reranker"),
    ] {
        let out = gos_out(&[
            "eval",
            "-w",
            tmp.path().to_str().unwrap(),
            "--tasks",
            tasks.to_str().unwrap(),
            "--out",
            tmp.path().join("o").to_str().unwrap(),
            "--arms",
            arm,
        ]);
        assert!(!out.status.success(), "{arm} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{arm}: {err}");
    }
}

/// The arms differ only in the graph operation: for every task the seeds and the lexical pool
/// are identical across modes, and only the ranked list and the bundle can differ.
#[test]
fn arms_share_seeds_and_lexical_pool() {
    let tmp = tempfile::tempdir().unwrap();
    let retriever = Retriever::new(Workspace::open(&build_workspace(tmp.path())).unwrap());
    let text = std::fs::read_to_string(fixtures().join("tasks.jsonl")).unwrap();
    let mut bundles_differ = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let task: Value = serde_json::from_str(line).unwrap();
        let query = task["instruction"].as_str().unwrap();
        let runs: Vec<_> = RetrievalMode::ALL
            .iter()
            .map(|&mode| {
                let opts = RetrieveOptions {
                    mode,
                    ..RetrieveOptions::default()
                };
                retriever.retrieve(query, &opts).unwrap()
            })
            .collect();
        let pool = |r: &gos_core::retrieve::Retrieval| {
            let mut p: Vec<(usize, usize, f32)> = r
                .ranked
                .iter()
                .filter_map(|s| s.pool_rank.map(|l| (s.node, l, s.pool_score)))
                .collect();
            p.sort_by_key(|e| e.1);
            p
        };
        let reverse = &runs[0];
        assert!(!reverse.seeds.is_empty());
        for r in &runs[1..] {
            assert_eq!(r.seeds, reverse.seeds, "{} {}", task["id"], r.mode);
            assert_eq!(r.top_seed_score, reverse.top_seed_score);
            assert_eq!(pool(r), pool(reverse), "{} {}", task["id"], r.mode);
        }
        let ids = |r: &gos_core::retrieve::Retrieval| -> Vec<String> {
            r.bundle.skills.iter().map(|s| s.id.clone()).collect()
        };
        if ids(&runs[0]) != ids(&runs[3]) {
            bundles_differ += 1;
        }
    }
    assert!(bundles_differ > 0, "the graph never changed a bundle");
}
