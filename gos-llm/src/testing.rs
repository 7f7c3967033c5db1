//! A small OpenAI-compatible chat completions server for tests: HTTP/1.1 on 127.0.0.1, one
//! thread per connection, `Connection: close`, replying from fixture files.
//!
//! Compiled only with the `test-support` cargo feature (a dev-dependency of gos-llm, gos-build
//! and gos-cli); it is no part of the library a user links.
//!
//! Reply selection, by the first line of the user message (the prompt headers of
//! [`crate::prompts`]):
//!
//! - `Focus skill:` (relation validation): `validate/<focus id with / as __>.json`, else
//!   `validate/_default.json`;
//! - `Skill to complete:`: `complete/<id>.json`, else `complete/_default.json`;
//! - `Task:` (query rewrite): `rewrite/_default.json`.
//!
//! In a fixture, `{{focus}}` becomes the focus id and `{{c1}}` ... `{{c8}}` the candidate ids
//! in prompt order (a placeholder whose candidate is missing becomes `missing-candidate`). The
//! fixture text is the assistant message content, sent as is (so a fixture may hold broken
//! JSON on purpose).
//!
//! Faults: [`Fault`]s queued with [`Responder::push_faults`] are applied to the next requests,
//! one per request, before normal replies resume.

use crate::prompts::{COMPLETE_HEADER, VALIDATE_HEADER};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A deviation applied to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer with this HTTP status (e.g. 429, 503) and a short error body.
    Status(u16),
    /// Wait this long before answering normally (longer than the client timeout: a timeout).
    Delay(Duration),
    /// Answer 200 with this text as the assistant content instead of the fixture.
    Content(String),
    /// Answer with this HTTP status and an error body that repeats the request's
    /// `Authorization` header, as careless servers do (the key must not leak from there).
    EchoAuthorization(u16),
}

struct Shared {
    fixtures: PathBuf,
    faults: Mutex<VecDeque<Fault>>,
    requests: AtomicU64,
    models: Mutex<Vec<String>>,
    temperatures: Mutex<Vec<f64>>,
    user_messages: Mutex<Vec<String>>,
    stop: AtomicBool,
}

/// A running responder; stops when dropped.
pub struct Responder {
    shared: Arc<Shared>,
    port: u16,
}

impl Responder {
    /// Start on an ephemeral port of 127.0.0.1 (or `port` when non-zero), replying from
    /// `fixtures`.
    pub fn start(fixtures: PathBuf, port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared {
            fixtures,
            faults: Mutex::new(VecDeque::new()),
            requests: AtomicU64::new(0),
            models: Mutex::new(Vec::new()),
            temperatures: Mutex::new(Vec::new()),
            user_messages: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = conn {
                    let s = Arc::clone(&s);
                    std::thread::spawn(move || {
                        let _ = serve(&s, stream);
                    });
                }
            }
        });
        Ok(Responder { shared, port })
    }

    /// Base URL the OpenAI way: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Chat requests received so far (faulty ones included).
    pub fn requests(&self) -> u64 {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// Model ids seen, in arrival order.
    pub fn models(&self) -> Vec<String> {
        self.shared.models.lock().unwrap().clone()
    }

    /// The `temperature` of each chat request received so far, in arrival order.
    pub fn temperatures(&self) -> Vec<f64> {
        self.shared.temperatures.lock().unwrap().clone()
    }

    /// The last `user` message of each chat request received so far, in arrival order (what
    /// the prompt showed the model).
    pub fn user_messages(&self) -> Vec<String> {
        self.shared.user_messages.lock().unwrap().clone()
    }

    /// Queue faults for the next requests.
    pub fn push_faults(&self, faults: impl IntoIterator<Item = Fault>) {
        self.shared.faults.lock().unwrap().extend(faults);
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

fn serve(s: &Shared, mut stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    let mut authorization = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("authorization")
        {
            authorization = v.trim().to_string();
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    if !request_line.starts_with("POST ") || !request_line.contains("/chat/completions") {
        return respond(&mut stream, 404, r#"{"error":{"message":"not found"}}"#);
    }
    s.requests.fetch_add(1, Ordering::SeqCst);
    let fault = s.faults.lock().unwrap().pop_front();
    let req: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => return respond(&mut stream, 400, r#"{"error":{"message":"bad json"}}"#),
    };
    if let Some(m) = req.get("model").and_then(|m| m.as_str()) {
        s.models.lock().unwrap().push(m.to_string());
    }
    if let Some(t) = req.get("temperature").and_then(|t| t.as_f64()) {
        s.temperatures.lock().unwrap().push(t);
    }
    let user = req
        .get("messages")
        .and_then(|m| m.as_array())
        .and_then(|m| {
            m.iter()
                .rev()
                .find(|m| m.get("role").and_then(|r| r.as_str()) == Some("user"))
        })
        .and_then(|m| m.get("content"))
        .and_then(|c| c.as_str());
    if let Some(u) = user {
        s.user_messages.lock().unwrap().push(u.to_string());
    }
    let content = match fault {
        Some(Fault::Status(code)) => {
            return respond(
                &mut stream,
                code,
                r#"{"error":{"message":"injected fault"}}"#,
            );
        }
        Some(Fault::EchoAuthorization(code)) => {
            let body = serde_json::json!({"error": {
                "message": format!("invalid credentials: {authorization}"),
                "received_key": authorization.strip_prefix("Bearer ").unwrap_or(&authorization),
            }});
            return respond(&mut stream, code, &body.to_string());
        }
        Some(Fault::Delay(d)) => {
            std::thread::sleep(d);
            reply_for(s, &req)
        }
        Some(Fault::Content(c)) => c,
        None => reply_for(s, &req),
    };
    let out = serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": req.get("model").cloned().unwrap_or_default(),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": body.len() / 4, "completion_tokens": 20, "total_tokens": body.len() / 4 + 20},
    });
    respond(&mut stream, 200, &out.to_string())
}

/// Ids in `[...]` at the start of `- ` lines.
fn bracket_id(line: &str) -> Option<String> {
    let rest = line.strip_prefix("- [")?;
    rest.split_once(']').map(|(id, _)| id.to_string())
}

fn reply_for(s: &Shared, req: &serde_json::Value) -> String {
    let user = req
        .pointer("/messages/1/content")
        .and_then(|c| c.as_str())
        .unwrap_or("");
    let mut lines = user.lines();
    let header = lines.next().unwrap_or("");
    let ids: Vec<String> = user.lines().filter_map(bracket_id).collect();
    let (dir, focus) = match header {
        VALIDATE_HEADER => ("validate", ids.first().cloned()),
        COMPLETE_HEADER => ("complete", ids.first().cloned()),
        _ => ("rewrite", None),
    };
    let dir = s.fixtures.join(dir);
    let specific = focus
        .as_ref()
        .map(|f| dir.join(format!("{}.json", f.replace('/', "__"))));
    let text = specific
        .filter(|p| p.is_file())
        .or_else(|| Some(dir.join("_default.json")))
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_else(|| "{}".to_string());
    let mut text = text.replace("{{focus}}", focus.as_deref().unwrap_or(""));
    for i in (1..=8).rev() {
        let c = ids
            .get(i)
            .map(String::as_str)
            .unwrap_or("missing-candidate");
        text = text.replace(&format!("{{{{c{i}}}}}"), c);
    }
    text
}
