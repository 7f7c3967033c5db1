//! `gos synth` end to end: a synthetic library builds, its planted chains become dependency
//! edges, the task file is readable by `gos eval`, and both PPR solvers retrieve the chain.

use crate::util::{gos, gos_ok};
use std::path::Path;
use std::process::Output;

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn synthetic_library_builds_and_both_solvers_retrieve_the_planted_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let d = dir.to_str().unwrap();
    let summary = json(&gos_ok(&[
        "synth", "--skills", "300", "--seed", "9", "--out", d, "--json", "-q",
    ]));
    assert_eq!(summary["skills"], 300);
    let chains = summary["chains"].as_u64().unwrap();
    assert!(chains >= 30, "{summary}");

    // Deterministic for a seed: a second run writes the same first task.
    let dir2 = tmp.path().join("s2");
    gos_ok(&[
        "synth",
        "--skills",
        "300",
        "--seed",
        "9",
        "--out",
        dir2.to_str().unwrap(),
        "-q",
    ]);
    let first = |p: &Path| std::fs::read_to_string(p.join("tasks.jsonl")).unwrap();
    assert_eq!(first(&dir), first(&dir2));
    // An existing library is never overwritten.
    let again = gos()
        .args(["synth", "--skills", "300", "--out", d, "-q"])
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    let ws = tmp.path().join("ws");
    let w = ws.to_str().unwrap();
    let lib = dir.join("library");
    let report = json(&gos_ok(&[
        "build",
        lib.to_str().unwrap(),
        "-w",
        w,
        "--json",
        "-q",
    ]));
    assert_eq!(report["nodes"], 300);
    assert!(
        report["edges"]["dependency"].as_u64().unwrap() >= chains,
        "{report}"
    );

    let task: serde_json::Value =
        serde_json::from_str(first(&dir).lines().next().unwrap()).unwrap();
    let query = task["instruction"].as_str().unwrap();
    let oracle: Vec<&str> = task["oracle_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut bundles = Vec::new();
    for solver in ["exact", "push"] {
        let r = json(&gos_ok(&[
            "retrieve", "-w", w, "--ppr", solver, "--json", query,
        ]));
        let ids: Vec<String> = r["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect();
        // The whole planted chain, prerequisites included, is in the bundle.
        for o in &oracle {
            assert!(
                ids.iter().any(|i| i == o),
                "{solver}: {o} missing from {ids:?}"
            );
        }
        bundles.push(ids);
    }
    assert_eq!(
        bundles[0], bundles[1],
        "push and exact give the same bundle"
    );

    let bad = gos()
        .args(["retrieve", "-w", w, "--ppr", "dense", query])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("exact, push"));
}
