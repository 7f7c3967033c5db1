//! `gos build` and `gos retrieve --rewrite` with an LLM endpoint: the OpenAI-compatible test
//! responder of gos-llm (`gos_llm::testing`, a real HTTP server on 127.0.0.1) replying from
//! `fixtures/llm/`.

use crate::util::{gos, repo};
use gos_llm::testing::Responder;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn build(ws: &Path, extra: &[&str]) -> Output {
    gos()
        .args([
            "build",
            "--json",
            "-q",
            "--llm-model",
            "fixture-model",
            "-w",
        ])
        .arg(ws)
        .arg(repo().join("fixtures/llm/library"))
        .args(extra)
        .env("GOS_LLM_API_KEY", "sk-cli-secret")
        .output()
        .unwrap()
}

#[test]
fn build_with_an_endpoint_then_offline_then_unreachable_sets_the_exit_status() {
    let r = Responder::start(repo().join("fixtures/llm/replies"), 0).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let out = build(&ws, &["--llm-base-url", &r.base_url()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(report["llm"]["validation"]["accepted"], 2);
    assert_eq!(report["llm"]["requests"]["calls"], 7);
    assert_eq!(report["edges_by_provenance"]["llm"], 2);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sk-cli-secret"));

    let out = build(&ws, &["--offline"]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    assert_eq!(report["llm"]["requests"]["cache_hits"], 7);
    assert_eq!(report["llm"]["requests"]["calls"], 0);
    assert_eq!(r.requests(), 7);

    // Offline in a fresh workspace with no cache: written, but incomplete (status 3).
    let out = build(&tmp.path().join("cold"), &["--offline"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(json(&out)["llm"]["requests"]["failures"]["offline_miss"], 7);
    assert!(tmp.path().join("cold/graph.json").is_file());

    // Text summary for people.
    let out = build(&ws, &["--llm-base-url", &r.base_url()]);
    assert_eq!(out.status.code(), Some(0));
    let text = gos()
        .args([
            "build",
            "-q",
            "--llm-model",
            "fixture-model",
            "--offline",
            "-w",
        ])
        .arg(&ws)
        .arg(repo().join("fixtures/llm/library"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(stderr.contains("7 cache hits"), "{stderr}");
    assert!(stderr.contains("rejected: cross_domain 1"), "{stderr}");

    // A missing model is a usage error.
    let out = gos()
        .args(["build", "-q", "--offline", "-w"])
        .arg(tmp.path().join("x"))
        .arg(repo().join("fixtures/llm/library"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--llm-model"));
}

#[test]
fn retrieve_rewrite_uses_the_endpoint_or_falls_back_and_says_so() {
    let r = Responder::start(repo().join("fixtures/llm/replies"), 0).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let out = gos()
        .args(["build", "-q", "-w"])
        .arg(&ws)
        .arg(repo().join("fixtures/llm/library"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let task = "Plot sales.csv as a bar chart";
    let out = gos()
        .args(["retrieve", "--json", "--rewrite", "-w"])
        .arg(&ws)
        .arg(task)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no LLM endpoint configured"));
    assert_eq!(json(&out)["rewrite"]["source"]["kind"], "fallback");

    let out = gos()
        .args([
            "retrieve",
            "--json",
            "--rewrite",
            "--llm-model",
            "fixture-model",
        ])
        .args(["--llm-base-url", &r.base_url(), "-w"])
        .arg(&ws)
        .arg(task)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["rewrite"]["source"]["kind"], "llm");
    assert_eq!(
        v["rewrite"]["schema"]["goal"],
        "Draw a bar chart from a CSV table"
    );
    assert_eq!(v["status"], "SKILL_HIT");
    assert_eq!(r.requests(), 1);
    assert!(ws.join("llm-cache.jsonl").is_file());
}
