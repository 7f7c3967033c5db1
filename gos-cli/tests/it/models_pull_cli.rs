//! `gos models pull` and `gos models list` end to end against a loopback fake of the Hugging
//! Face hub's file API (`HF_ENDPOINT=http://127.0.0.1:PORT`), serving a tiny random model:
//! a pull, a cached re-pull that sends no request, corrupt bytes refused by their sha256 (from
//! the hub and in the cache), and an unreachable hub.

use crate::util::{gos, repo, write_tiny_bert};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The repo the `ms-marco-MiniLM-L-6-v2` name stands for, and the commit the fake hub reports.
const REPO: &str = "cross-encoder/ms-marco-MiniLM-L-6-v2";
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A served file: its bytes and the ETag announced for it (the sha256 of the right bytes, as
/// the hub does for LFS files; a corrupt file is served with the ETag of the original).
struct Served {
    body: Vec<u8>,
    etag: String,
}

/// The fake hub: answers `GET /{REPO}/resolve/{main|COMMIT}/{file}` with hf-hub 0.5's ranged
/// requests (`x-repo-commit`, `etag`, `content-range`), 404 for anything else, and counts
/// requests.
struct FakeHub {
    endpoint: String,
    requests: Arc<AtomicUsize>,
}

impl FakeHub {
    fn start(files: HashMap<String, Served>) -> FakeHub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = requests.clone();
        let files = Arc::new(Mutex::new(files));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = answer(stream, &files.lock().unwrap());
            }
        });
        FakeHub { endpoint, requests }
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn answer(stream: TcpStream, files: &HashMap<String, Served>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut range = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("range")
        {
            range = v.trim().strip_prefix("bytes=").map(str::to_string);
        }
    }
    let mut out = stream;
    let served = path
        .strip_prefix(&format!("/{REPO}/resolve/"))
        .and_then(|rest| rest.split_once('/'))
        .filter(|(rev, _)| *rev == "main" || *rev == COMMIT)
        .and_then(|(_, file)| files.get(file));
    let Some(s) = served else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found",
        );
    };
    let size = s.body.len();
    let (start, end) = match range.as_deref().and_then(|r| r.split_once('-')) {
        Some((a, b)) => (
            a.parse::<usize>().unwrap_or(0),
            b.parse::<usize>().map_or(size - 1, |e| e.min(size - 1)),
        ),
        None => (0, size - 1),
    };
    let body = &s.body[start..=end];
    let head = format!(
        "HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes \
         {start}-{end}/{size}\r\netag: \"{}\"\r\nx-repo-commit: {COMMIT}\r\nconnection: \
         close\r\n\r\n",
        body.len(),
        s.etag
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body)
}

/// A tiny random BERT's files (config.json, tokenizer.json, model.safetensors) under `dir`,
/// served as they are.
fn tiny_model(dir: &Path) -> HashMap<String, Served> {
    write_tiny_bert(dir, 11);
    ["config.json", "tokenizer.json", "model.safetensors"]
        .into_iter()
        .map(|f| {
            let body = std::fs::read(dir.join(f)).unwrap();
            let etag = sha256(&body);
            (f.to_string(), Served { body, etag })
        })
        .collect()
}

fn pull(endpoint: &str, cache: &Path, home: &Path) -> Output {
    pull_with(endpoint, cache, home, &[])
}

/// `gos models pull ms-marco-MiniLM-L-6-v2 --json` against `endpoint`, with `extra` flags.
fn pull_with(endpoint: &str, cache: &Path, home: &Path, extra: &[&str]) -> Output {
    gos()
        .args(["models", "pull", "ms-marco-MiniLM-L-6-v2", "--json", "-q"])
        .arg("--cache")
        .arg(cache)
        .args(extra)
        .env("HF_ENDPOINT", endpoint)
        .env("HF_HOME", home)
        .output()
        .unwrap()
}

fn json_ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn a_pull_pins_the_commit_and_hashes_then_a_cached_repull_sends_no_request() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let files = tiny_model(&src);
    let hub = FakeHub::start(files);
    let cache = tmp.path().join("hub");

    let r = json_ok(&pull(&hub.endpoint, &cache, tmp.path()));
    assert_eq!(r["repo"], REPO);
    assert_eq!(r["commit"], COMMIT);
    assert_eq!(r["revision"], "main");
    assert_eq!(r["downloaded"], 3);
    assert_eq!(r["cached"], 0);
    let dir = Path::new(r["model_dir"].as_str().unwrap()).to_path_buf();
    assert_eq!(
        dir,
        cache
            .join("models--cross-encoder--ms-marco-MiniLM-L-6-v2/snapshots")
            .join(COMMIT)
    );
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        assert_eq!(
            std::fs::read(dir.join(f)).unwrap(),
            std::fs::read(src.join(f)).unwrap(),
            "{f}"
        );
    }
    let lock = std::fs::read_to_string(cache.join("models.lock")).unwrap();
    let weights = std::fs::read(src.join("model.safetensors")).unwrap();
    assert!(lock.contains(COMMIT), "{lock}");
    assert!(lock.contains(&sha256(&weights)), "{lock}");
    assert!(
        lock.contains(&format!("size = {}", weights.len())),
        "{lock}"
    );
    let after_first = hub.requests();
    assert!(after_first >= 6, "two requests per file, got {after_first}");

    // Again: everything from the cache, pinned by the lock's commit, not one request.
    let again = json_ok(&pull(&hub.endpoint, &cache, tmp.path()));
    assert_eq!(again["downloaded"], 0);
    assert_eq!(again["cached"], 3);
    assert_eq!(again["files"], r["files"]);
    assert_eq!(hub.requests(), after_first);

    // `--revision main` asks the hub again (the first, small file), the rest stays cached.
    let moved = json_ok(&pull_with(
        &hub.endpoint,
        &cache,
        tmp.path(),
        &["--revision", "main"],
    ));
    assert_eq!(moved["downloaded"], 1);
    assert_eq!(moved["commit"], COMMIT);
    assert_eq!(hub.requests(), after_first + 2);

    let listed = json_ok(
        &gos()
            .args(["models", "list", "--json", "--cache"])
            .arg(&cache)
            .output()
            .unwrap(),
    );
    assert_eq!(listed["models"][0]["name"], "ms-marco-MiniLM-L-6-v2");
    assert_eq!(listed["models"][0]["status"], "ok");
    assert_eq!(listed["models"][0]["files"], 3);
    assert_eq!(listed["unlocked"].as_array().unwrap().len(), 0);

    // The pulled folder is a model gos loads (the tiny BERT serves as a sentence encoder).
    let out = gos()
        .args(["build", "-q", "--json", "-w"])
        .arg(tmp.path().join("ws"))
        .arg("--model-dir")
        .arg(&dir)
        .arg(repo().join("fixtures/library"))
        .output()
        .unwrap();
    assert_eq!(json_ok(&out)["embed"]["embedded"], 36);
}

#[test]
fn corrupt_bytes_are_refused_by_their_sha256_from_the_hub_and_in_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = tiny_model(&tmp.path().join("src"));
    let weights = files.get_mut("model.safetensors").unwrap();
    let good = weights.body.clone();
    let n = weights.body.len();
    weights.body[n - 1] ^= 0xff;
    let hub = FakeHub::start(files);
    let cache = tmp.path().join("hub");
    let out = pull(&hub.endpoint, &cache, tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("model.safetensors"), "{err}");
    assert!(err.contains(&format!("says {}", sha256(&good))), "{err}");
    assert!(
        err.contains("corrupt and was removed from the cache"),
        "{err}"
    );
    let snapshot = cache
        .join("models--cross-encoder--ms-marco-MiniLM-L-6-v2/snapshots")
        .join(COMMIT);
    assert!(!snapshot.join("model.safetensors").exists());
    assert!(!cache.join("models.lock").exists());

    // A good pull, then the cached weights change on disk: the lock's sha256 refuses them.
    let good_hub = FakeHub::start(tiny_model(&tmp.path().join("src2")));
    json_ok(&pull(&good_hub.endpoint, &cache, tmp.path()));
    let blob = std::fs::canonicalize(snapshot.join("model.safetensors")).unwrap();
    let mut bytes = std::fs::read(&blob).unwrap();
    bytes[0] ^= 0x01;
    std::fs::write(&blob, bytes).unwrap();
    let out = pull(&good_hub.endpoint, &cache, tmp.path());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("models.lock says"), "{err}");
    assert!(!snapshot.join("model.safetensors").exists());
}

#[test]
fn an_unreachable_hub_is_a_fast_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    let out = pull(&endpoint, &tmp.path().join("hub"), tmp.path());
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("from the model hub at {endpoint}")),
        "{err}"
    );
    assert!(err.contains("config.json"), "{err}");
    assert!(err.lines().count() <= 3, "{err}");
}

#[test]
fn list_without_models_says_how_to_get_one() {
    let tmp = tempfile::tempdir().unwrap();
    let out = gos()
        .args(["models", "list", "--cache"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("gos models pull NAME"), "{text}");
    let out = gos()
        .args(["models", "pull", "no-such-model"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown model `no-such-model`"), "{err}");
    assert!(err.contains("bge-base-en-v1.5"), "{err}");
}
