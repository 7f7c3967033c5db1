//! MCP 2026-07-28 in `gos mcp` (stdio) and `gos serve`'s `/mcp` (streamable HTTP), driven with
//! raw JSON-RPC: stateless requests (`server/discover`, then calls that carry their own `_meta`
//! instead of an `initialize` and a session), `notifications/progress` for a retrieval whose
//! request has a `progressToken`, and cancellation (on stdio `notifications/cancelled`, over
//! HTTP closing the response stream, as the 2026-07-28 cancellation page asks) that stops a
//! retrieval before its ranking stage.

use crate::serve_support::{cli_bundle, client, fixture_workspace, repo};
use crate::util::{gos, model_dir};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

const PROTOCOL: &str = "2026-07-28";

/// The per-request `_meta` a 2026-07-28 client sends, plus `extra`.
fn meta(extra: Value) -> Value {
    let mut m = json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "gos-lifecycle-test", "version": "0"}
    });
    if let (Some(m), Some(e)) = (m.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    m
}

fn call(id: u64, tool: &str, arguments: Value, extra_meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"_meta": meta(extra_meta), "name": tool, "arguments": arguments}})
}

/// `(progress, total, message)` of each progress notification for `token`.
fn progress_of(messages: &[Value], token: &Value) -> Vec<(f64, f64, String)> {
    messages
        .iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == *token
        })
        .map(|m| {
            let p = &m["params"];
            (
                p["progress"].as_f64().unwrap(),
                p["total"].as_f64().unwrap(),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn steps(list: &[(f64, f64, &str)]) -> Vec<(f64, f64, String)> {
    list.iter()
        .map(|(p, t, m)| (*p, *t, m.to_string()))
        .collect()
}

/// The lines a child process wrote to stderr, collected by a thread.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    fn drain(&self, stderr: impl Read + Send + 'static, tag: &'static str) {
        let lines = self.0.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[{tag}] {line}");
                lines.lock().unwrap().push(line);
            }
        });
    }

    /// The first line containing `needle`, waiting up to `secs` seconds.
    fn wait_for(&self, needle: &str, secs: u64) -> Option<String> {
        let end = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < end {
            if let Some(l) = self.0.lock().unwrap().iter().find(|l| l.contains(needle)) {
                return Some(l.clone());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

/// `gos mcp -w ws` over stdio, no `initialize`: every request carries its `_meta`.
struct StdioPeer {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    log: Log,
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioPeer {
    fn start(ws: &Path, model: Option<&Path>) -> StdioPeer {
        let mut cmd = gos();
        cmd.arg("mcp").arg("-w").arg(ws);
        if let Some(m) = model {
            cmd.arg("--model-dir").arg(m);
        }
        let mut child = cmd
            .env("GOS_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Log::default();
        log.drain(child.stderr.take().unwrap(), "gos mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        StdioPeer {
            child,
            stdin,
            rx,
            log,
        }
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Every message up to and including the answer to `id`.
    fn until(&mut self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let m = self
                .rx
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no answer to request {id}; got {seen:?}"));
            let done = m["id"] == id;
            seen.push(m);
            if done {
                return seen;
            }
        }
    }
}

/// `gos serve -w ws` on a free loopback port, its stderr collected.
struct Serve {
    child: Child,
    base: String,
    log: Log,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(ws: &Path, model: Option<&Path>) -> Serve {
        let mut cmd = gos();
        cmd.arg("serve")
            .arg("-w")
            .arg(ws)
            .args(["--addr", "127.0.0.1:0"]);
        if let Some(m) = model {
            cmd.arg("--model-dir").arg(m);
        }
        let mut child = cmd
            .env("GOS_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = Log::default();
        log.drain(child.stderr.take().unwrap(), "gos serve");
        let line = log
            .wait_for("listening on ", 120)
            .expect("gos serve did not start listening");
        let base = line.split("listening on ").nth(1).unwrap();
        let base = base.split_whitespace().next().unwrap().to_string();
        Serve { child, base, log }
    }

    /// POST one 2026-07-28 message to `/mcp` (no session): status, whether a session id came
    /// back, and the JSON-RPC messages of the answer (SSE or JSON).
    fn post(&self, msg: &Value) -> (u16, bool, Vec<Value>) {
        let r = self.request(msg).send().unwrap();
        let status = r.status().as_u16();
        let session = r.headers().contains_key("mcp-session-id");
        let text = r.text().unwrap();
        let mut messages: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect();
        if messages.is_empty()
            && let Ok(v) = serde_json::from_str(&text)
        {
            messages.push(v);
        }
        (status, session, messages)
    }

    fn request(&self, msg: &Value) -> reqwest::blocking::RequestBuilder {
        let method = msg["method"].as_str().unwrap_or_default().to_string();
        let mut req = client()
            .post(format!("{}/mcp", self.base))
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .header("mcp-method", method)
            .json(msg);
        if let Some(name) = msg["params"]["name"].as_str() {
            req = req.header("mcp-name", name);
        }
        req
    }
}

/// A workspace of the fixture library with all-MiniLM-L6-v2 card vectors (hybrid seeds, so a
/// retrieval has an encoding stage), or `None` after a visible skip without the model.
fn vector_workspace(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let model = model_dir()?;
    let ws = dir.join("ws-vec");
    let out = gos()
        .args(["build", "--quiet", "--json"])
        .arg(repo().join("fixtures/library"))
        .arg("-w")
        .arg(&ws)
        .arg("--model-dir")
        .arg(&model)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some((ws, model))
}

/// A task text of about 4,000 characters (the query limit): its encoding is the longest stage.
fn long_query() -> String {
    "extract the tables from a scanned PDF invoice, clean the columns and write them to an \
     Excel report with a totals row; "
        .repeat(34)
        .chars()
        .take(3_990)
        .collect()
}

/// What `server/discover` must answer, on either transport.
fn check_discover(result: &Value) {
    let versions: Vec<&str> = result["supportedVersions"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(versions.contains(&PROTOCOL), "{versions:?}");
    assert!(versions.contains(&"2025-11-25"), "{versions:?}");
    let caps = &result["capabilities"];
    assert!(caps["tools"].is_object(), "{result}");
    assert!(caps["resources"].is_object(), "{result}");
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "gos",
        "{result}"
    );
}

const QUERY: &str = "transcribe the speech in an mp4 video and write subtitles";

#[test]
fn stateless_requests_over_stdio_discover_call_and_report_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(tmp.path());
    let mut mcp = StdioPeer::start(&ws, None);

    mcp.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(json!({}))}}));
    let discover = mcp.until(1).pop().unwrap();
    check_discover(&discover["result"]);

    // Without the per-request context a discover is refused, naming the missing keys.
    mcp.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}}));
    let bad = mcp.until(2).pop().unwrap();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let why = bad["error"]["message"].as_str().unwrap();
    assert!(
        why.contains("io.modelcontextprotocol/protocolVersion"),
        "{why}"
    );

    // A tool call without initialize: the bundle `gos retrieve` renders, and progress for the
    // token (a lexical workspace has one stage).
    let token = json!("bundle-1");
    mcp.send(&call(
        3,
        "retrieve_skill_bundle",
        json!({"query": QUERY}),
        json!({"progressToken": token}),
    ));
    let messages = mcp.until(3);
    let answer = messages.last().unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        cli_bundle(&ws, QUERY)["rendered_context"],
        "{answer}"
    );
    assert_eq!(
        progress_of(&messages, &token),
        steps(&[
            (0.0, 1.0, "ranking and hydrating the skills"),
            (1.0, 1.0, "done")
        ])
    );
    // No token, no progress.
    mcp.send(&call(
        4,
        "search_skills",
        json!({"query": QUERY}),
        json!({}),
    ));
    let messages = mcp.until(4);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(
        messages[0]["result"]["structuredContent"]["status"],
        "SKILL_HIT"
    );
}

#[test]
fn stateless_requests_over_http_need_no_session_and_report_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(tmp.path());
    let server = Serve::start(&ws, None);

    let (status, session, messages) = server.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(json!({}))}}));
    assert_eq!(status, 200, "{messages:?}");
    assert!(!session, "a 2026-07-28 request opens no session");
    check_discover(&messages.last().unwrap()["result"]);

    let token = json!(7);
    let (status, session, messages) = server.post(&call(
        2,
        "retrieve_skill_bundle",
        json!({"query": QUERY}),
        json!({"progressToken": token}),
    ));
    assert_eq!((status, session), (200, false), "{messages:?}");
    let answer = messages.last().unwrap();
    assert_eq!(answer["id"], 2);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        cli_bundle(&ws, QUERY)["rendered_context"]
    );
    assert_eq!(
        progress_of(&messages, &token),
        steps(&[
            (0.0, 1.0, "ranking and hydrating the skills"),
            (1.0, 1.0, "done")
        ])
    );
}

#[test]
fn notifications_cancelled_on_stdio_stops_a_retrieval_before_ranking() {
    let tmp = tempfile::tempdir().unwrap();
    let Some((ws, model)) = vector_workspace(tmp.path()) else {
        return;
    };
    let mut mcp = StdioPeer::start(&ws, Some(&model));

    // Hybrid seeds: two stages, encoding first.
    let token = json!("hybrid");
    mcp.send(&call(
        1,
        "retrieve_skill_bundle",
        json!({"query": QUERY}),
        json!({"progressToken": token}),
    ));
    let messages = mcp.until(1);
    assert_eq!(
        progress_of(&messages, &token),
        steps(&[
            (0.0, 2.0, "encoding the query"),
            (1.0, 2.0, "ranking and hydrating the skills"),
            (2.0, 2.0, "done")
        ])
    );

    // Cancel a long retrieval once its encoding has started.
    let token = json!("long");
    mcp.send(&call(
        2,
        "retrieve_skill_bundle",
        json!({"query": long_query()}),
        json!({"progressToken": token}),
    ));
    let first = mcp.rx.recv_timeout(Duration::from_secs(120)).unwrap();
    assert_eq!(first["params"]["message"], "encoding the query", "{first}");
    mcp.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"_meta": meta(json!({})), "requestId": 2, "reason": "test"}}),
    );
    let stopped = mcp
        .log
        .wait_for("retrieval stopped", 120)
        .expect("the retrieval did not stop");
    assert!(
        stopped.contains(
            "the request was cancelled before ranking and hydrating the skills (stage 2 of 2)"
        ),
        "{stopped}"
    );
    // The server stays up and sends nothing for the cancelled request.
    mcp.send(&call(3, "workspace_status", json!({}), json!({})));
    let after = mcp.until(3);
    assert!(after.iter().all(|m| m["id"] != 2), "{after:?}");
    assert_eq!(
        after.last().unwrap()["result"]["structuredContent"]["skills"],
        36
    );
}

#[test]
fn closing_the_http_response_stream_stops_a_retrieval_before_ranking() {
    let tmp = tempfile::tempdir().unwrap();
    let Some((ws, model)) = vector_workspace(tmp.path()) else {
        return;
    };
    let server = Serve::start(&ws, Some(&model));
    let msg = call(
        1,
        "retrieve_skill_bundle",
        json!({"query": long_query()}),
        json!({"progressToken": "long"}),
    );
    let mut response = server.request(&msg).send().unwrap();
    assert_eq!(response.status().as_u16(), 200);
    // Read the stream until the encoding stage has started, then hang up.
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("encoding the query") {
        let n = response.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the stream ended: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    drop(response);
    let stopped = server
        .log
        .wait_for("retrieval stopped", 120)
        .expect("the retrieval did not stop");
    assert!(
        stopped.contains(
            "the request was cancelled before ranking and hydrating the skills (stage 2 of 2)"
        ),
        "{stopped}"
    );
    // The next stateless call is served.
    let (status, _, messages) = server.post(&call(2, "workspace_status", json!({}), json!({})));
    assert_eq!(status, 200);
    assert_eq!(
        messages.last().unwrap()["result"]["structuredContent"]["skills"],
        36
    );
}
