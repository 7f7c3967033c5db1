//! Load client for `gos serve`: N concurrent clients POST `/v1/retrieve` with task texts for a
//! fixed time, or until a stop file appears, and one JSON line reports throughput, latency
//! percentiles, every failed request, and the workspace generations `/readyz` reported while
//! the load ran (so a run across rebuilds shows the swaps it survived).
//!
//! ```text
//! serve-load --url http://127.0.0.1:PORT --queries tasks.jsonl --clients 64 --secs 20
//! serve-load --url ... --queries ... --clients 64 --until /tmp/stop --secs 900
//! ```
//!
//! Each client is one tokio task with its own request loop over a shared connection pool
//! (reqwest, HTTP/1.1 keep-alive): a closed loop, so the offered load is `clients` requests in
//! flight at any time. A request counts as ok when the status is 2xx and the body is a bundle
//! document (a JSON object with a `status` field); anything else (a non-2xx status, a transport
//! error, a malformed body) is an error, counted by kind. Latency is the client's round trip in
//! microseconds, from sending the request to the last byte of the body. The process exits 1
//! when any request failed, so a script can assert "0 errors".
//!
//! Queries: the `--field` (default `instruction`) of each JSONL line, cut to `--max-chars`
//! characters (default 4,000: the server's `max_query_chars`), used round robin, each client
//! starting at a different offset.
//!
//! Run: `cargo run -p gos-benches --bin serve-load -- --help` (debug is enough: the client's
//! work is HTTP and JSON, and its dependencies build optimized; see the workspace Cargo.toml).

use clap::Parser;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(about = "Closed-loop load client for gos serve's POST /v1/retrieve")]
struct Args {
    /// Base URL of the server, e.g. http://127.0.0.1:7341.
    #[arg(long)]
    url: String,
    /// JSONL file of tasks; each line's `--field` is one query.
    #[arg(long)]
    queries: PathBuf,
    /// The JSON field holding the task text.
    #[arg(long, default_value = "instruction")]
    field: String,
    /// Longest query in characters (the server refuses longer ones with 400).
    #[arg(long, default_value_t = 4_000)]
    max_chars: usize,
    /// Concurrent clients (requests in flight).
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Seconds to run; with --until, the most seconds to wait for the stop file.
    #[arg(long, default_value_t = 20.0)]
    secs: f64,
    /// Stop when this file exists (checked every 100 ms) instead of after --secs.
    #[arg(long)]
    until: Option<PathBuf>,
    /// Per-request timeout in seconds; a request past it counts as a `timeout` error.
    #[arg(long, default_value_t = 60.0)]
    timeout_secs: f64,
    /// A label copied into the report (e.g. the workspace and phase).
    #[arg(long, default_value = "")]
    label: String,
}

/// One client's tally.
#[derive(Default)]
struct Tally {
    /// Round trips of ok requests, microseconds.
    latencies_us: Vec<u64>,
    /// Failed requests by kind (`http_503`, `timeout`, `connect`, `body`, ...).
    errors: BTreeMap<String, u64>,
    /// The first few error messages, for the report.
    samples: Vec<String>,
}

impl Tally {
    fn fail(&mut self, kind: &str, message: String) {
        *self.errors.entry(kind.to_string()).or_default() += 1;
        if self.samples.len() < 3 {
            self.samples.push(message);
        }
    }
}

/// The queries of `path`: the `field` of each non-empty line, cut to `max_chars`.
fn read_queries(path: &PathBuf, field: &str, max_chars: usize) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the queries file {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("{} line {}: not JSON: {e}", path.display(), n + 1))?;
        let q = v[field].as_str().ok_or_else(|| {
            format!(
                "{} line {}: no string field {field:?} (choose one with --field)",
                path.display(),
                n + 1
            )
        })?;
        out.push(q.chars().take(max_chars).collect());
    }
    if out.is_empty() {
        return Err(format!("{} holds no queries", path.display()));
    }
    Ok(out)
}

/// The 1-, 5- and 15-minute load averages of /proc/loadavg (empty where there is none).
fn loadavg() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| {
            s.split_whitespace()
                .take(3)
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The value at quantile `q` (0..=1) of sorted `v`, nearest rank, in milliseconds.
fn quantile_ms(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1e3
}

/// One request: ok with its round trip, or the error kind and message.
async fn one(
    client: &reqwest::Client,
    url: &str,
    body: Vec<u8>,
) -> Result<Duration, (String, String)> {
    let t = Instant::now();
    let resp = client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| (transport_kind(&e), e.to_string()))?;
    let status = resp.status();
    let bytes = resp
        .bytes()
        .await
        .map_err(|e| (transport_kind(&e), e.to_string()))?;
    let elapsed = t.elapsed();
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
        return Err((format!("http_{}", status.as_u16()), text));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.get("status").and_then(Value::as_str).is_some() => Ok(elapsed),
        Ok(_) => Err(("body".into(), "a 2xx body without a bundle status".into())),
        Err(e) => Err(("body".into(), format!("a 2xx body that is not JSON: {e}"))),
    }
}

fn transport_kind(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else {
        "transport"
    }
    .into()
}

/// Poll `/readyz` every 200 ms until `stop`: the generations seen, in order, and failed polls.
async fn watch_generations(
    client: reqwest::Client,
    url: String,
    stop: Arc<AtomicBool>,
) -> (Vec<u64>, u64) {
    let mut seen: Vec<u64> = Vec::new();
    let mut failed = 0;
    while !stop.load(Ordering::Relaxed) {
        let generation = async {
            let v: Value = client.get(&url).send().await.ok()?.json().await.ok()?;
            v["generation"].as_u64()
        }
        .await;
        match generation {
            Some(g) if seen.last() != Some(&g) => seen.push(g),
            Some(_) => {}
            None => failed += 1,
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    (seen, failed)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let queries = match read_queries(&args.queries, &args.field, args.max_chars) {
        Ok(q) => Arc::new(q),
        Err(e) => {
            eprintln!("serve-load: {e}");
            std::process::exit(2);
        }
    };
    let bodies: Arc<Vec<Vec<u8>>> = Arc::new(
        queries
            .iter()
            .map(|q| serde_json::to_vec(&serde_json::json!({ "query": q })).expect("a string"))
            .collect(),
    );
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs_f64(args.timeout_secs))
        .pool_max_idle_per_host(args.clients + 1)
        .build()
        .expect("a reqwest client with default TLS");
    let base = args.url.trim_end_matches('/').to_string();
    let retrieve_url = Arc::new(format!("{base}/v1/retrieve"));
    let stop = Arc::new(AtomicBool::new(false));
    let load_start = loadavg();
    let watcher = tokio::spawn(watch_generations(
        client.clone(),
        format!("{base}/readyz"),
        stop.clone(),
    ));

    let started = Instant::now();
    let mut tasks = Vec::with_capacity(args.clients);
    for c in 0..args.clients {
        let (client, bodies, url, stop) = (
            client.clone(),
            bodies.clone(),
            retrieve_url.clone(),
            stop.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut tally = Tally::default();
            let mut i = c * 7;
            while !stop.load(Ordering::Relaxed) {
                let body = bodies[i % bodies.len()].clone();
                i += 1;
                match one(&client, &url, body).await {
                    Ok(d) => tally.latencies_us.push(d.as_micros() as u64),
                    Err((kind, message)) => tally.fail(&kind, message),
                }
            }
            tally
        }));
    }

    let limit = Duration::from_secs_f64(args.secs);
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let done = match &args.until {
            Some(file) => file.exists(),
            None => false,
        };
        if done || started.elapsed() >= limit {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let mut all = Tally::default();
    for t in tasks {
        let t = t.await.expect("a client task panicked");
        all.latencies_us.extend(t.latencies_us);
        for (k, n) in t.errors {
            *all.errors.entry(k).or_default() += n;
        }
        all.samples
            .extend(t.samples.into_iter().take(3 - all.samples.len().min(3)));
    }
    let secs = started.elapsed().as_secs_f64();
    let (generations, readyz_failed) = watcher.await.expect("the readyz watcher panicked");
    let stopped_by_file = args.until.as_ref().is_some_and(|f| f.exists());
    all.latencies_us.sort_unstable();
    let ok = all.latencies_us.len() as u64;
    let errors: u64 = all.errors.values().sum();
    let report = serde_json::json!({
        "label": args.label,
        "clients": args.clients,
        "secs": (secs * 10.0).round() / 10.0,
        "stopped_by_file": stopped_by_file,
        "requests": ok + errors,
        "ok": ok,
        "errors": errors,
        "errors_by_kind": all.errors,
        "error_samples": all.samples,
        "requests_per_s": ((ok as f64 / secs) * 10.0).round() / 10.0,
        "p50_ms": quantile_ms(&all.latencies_us, 0.50),
        "p90_ms": quantile_ms(&all.latencies_us, 0.90),
        "p99_ms": quantile_ms(&all.latencies_us, 0.99),
        "max_ms": quantile_ms(&all.latencies_us, 1.0),
        "generations_seen": generations,
        "readyz_failed": readyz_failed,
        "loadavg_start": load_start,
        "loadavg_end": loadavg(),
        "queries": queries.len(),
    });
    println!("{report}");
    if errors > 0 || (args.until.is_some() && !stopped_by_file) {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::quantile_ms;

    #[test]
    fn nearest_rank_quantiles_of_a_hundred_values() {
        let v: Vec<u64> = (1..=100).map(|x| x * 1000).collect();
        assert_eq!(quantile_ms(&v, 0.5), 50.0);
        assert_eq!(quantile_ms(&v, 0.99), 99.0);
        assert_eq!(quantile_ms(&v, 1.0), 100.0);
        assert_eq!(quantile_ms(&v[..1], 0.99), 1.0);
        assert!(quantile_ms(&[], 0.5).is_nan());
    }
}
