//! Helpers of the server tests: a fixture workspace, a `gos serve` process on a free loopback
//! port, and a small HTTP client.

pub use crate::util::{gos, repo};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

/// Build `library` into `ws` (lexical, no vectors); panics with gos's stderr on failure.
pub fn build(library: &Path, ws: &Path) {
    let out = gos()
        .args(["build", "--quiet", "--json"])
        .arg(library)
        .arg("-w")
        .arg(ws)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gos build failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fixture library built into `dir/ws`.
pub fn fixture_workspace(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    build(&repo().join("fixtures/library"), &ws);
    ws
}

/// The first `n` task instructions of `fixtures/tasks.jsonl`.
pub fn fixture_queries(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("fixtures/tasks.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["instruction"].as_str().unwrap().to_string()
        })
        .collect()
}

/// A skill of `ws` with at least one prerequisite and one dependent (from graph.json).
pub fn connected_skill(ws: &Path) -> String {
    let graph: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("graph.json")).unwrap()).unwrap();
    let edges = graph["edges"].as_array().unwrap();
    let directed = |e: &Value| matches!(e["type"].as_str(), Some("dependency" | "workflow"));
    edges
        .iter()
        .filter(|e| directed(e))
        .map(|e| e["target"].as_str().unwrap())
        .find(|t| {
            edges
                .iter()
                .any(|e| directed(e) && e["source"].as_str() == Some(*t))
        })
        .expect("the fixture graph has a chain of two edges")
        .to_string()
}

/// A running `gos serve`; killed on drop.
pub struct Server {
    /// The child process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `gos serve -w ws --addr 127.0.0.1:0 EXTRA...` and wait for its address line.
pub fn serve(ws: &Path, extra: &[&str]) -> Server {
    let mut child = gos()
        .arg("serve")
        .arg("-w")
        .arg(ws)
        .args(["--addr", "127.0.0.1:0"])
        .args(extra)
        .env("GOS_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("gos serve exited before listening")
            .unwrap();
        eprintln!("[gos serve] {line}");
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            eprintln!("[gos serve] {line}");
        }
    });
    Server { child, base }
}

/// A blocking HTTP client with a generous timeout.
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// Status and JSON body of a response.
pub fn json_of(r: reqwest::blocking::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let text = r.text().unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, v)
}

/// The bundle document without its timings (the only part that differs between runs).
pub fn without_timings(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("timings_ms");
    }
    v
}

/// `gos retrieve --json -w ws QUERY` without timings.
pub fn cli_bundle(ws: &Path, query: &str) -> Value {
    let out = gos()
        .arg("retrieve")
        .arg("-w")
        .arg(ws)
        .arg("--json")
        .arg(query)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    without_timings(serde_json::from_slice(&out.stdout).unwrap())
}
