//! Every route of the HTTP service in process: [`gos_server::http::router`] over the fixture
//! workspace (36 skills, lexical), driven with `tower::ServiceExt::oneshot`, no socket. Status
//! codes, JSON bodies, the error shape and the `/mcp` Host guard. The
//! spawned-binary tests (gos-cli `serve_http`) keep the socket, reload and CLI-equivalence
//! checks.

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use gos_server::http::{HttpConfig, router};
use gos_server::state::{ServeConfig, ServerState};
use serde_json::{Value, json};
use std::sync::Arc;
use tower::ServiceExt;

/// The fixture skill that "convert a shapefile to geojson" finds first.
const SHAPEFILE: &str = "geo/shapefile-reader";

/// A skill of the fixture workspace with at least one prerequisite and one dependent (from
/// graph.json).
fn connected_skill() -> String {
    let graph = gos_testkit::fixtures_workspace().join("graph.json");
    let graph: Value = serde_json::from_str(&std::fs::read_to_string(graph).unwrap()).unwrap();
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

/// The server state over the shared fixture workspace (lexical: no encoder to load).
pub(crate) fn state() -> Arc<ServerState> {
    Arc::new(
        ServerState::open(ServeConfig {
            workspace: gos_testkit::fixtures_workspace().to_path_buf(),
            model_dir: None,
            lexical_only: true,
            precision: Default::default(),
        })
        .expect("opening the fixture workspace"),
    )
}

/// Send `req` through a fresh router with `config`; the status and the body bytes.
async fn send_with(config: HttpConfig, req: Request<Body>) -> (StatusCode, Vec<u8>) {
    let res = router(state(), config).oneshot(req).await.unwrap();
    let status = res.status();
    let body = to_bytes(res.into_body(), 16 << 20).await.unwrap();
    (status, body.to_vec())
}

/// Send `req` with the default configuration; the status and the JSON body.
async fn send(req: Request<Body>) -> (StatusCode, Value) {
    let (status, body) = send_with(HttpConfig::default(), req).await;
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (status, v)
}

fn get(uri: &str) -> Request<Body> {
    Request::get(uri)
        .header(header::HOST, "localhost")
        .body(Body::empty())
        .unwrap()
}

fn post_raw(uri: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(uri)
        .header(header::HOST, "localhost")
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.into())
        .unwrap()
}

fn post(uri: &str, body: &Value) -> Request<Body> {
    post_raw(uri, body.to_string())
}

/// The error code of a `{"error": {"code", "message"}}` body, after checking the status and
/// that the message is not empty.
fn error_code(status: StatusCode, body: &Value, want: StatusCode) -> String {
    assert_eq!(status, want, "{body}");
    assert!(
        !body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .is_empty(),
        "no message: {body}"
    );
    body["error"]["code"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn health_readiness_and_status_describe_the_loaded_workspace() {
    let (s, health) = send(get("/healthz")).await;
    assert_eq!((s, health), (StatusCode::OK, json!({ "status": "ok" })));
    let (s, ready) = send(get("/readyz")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(ready["status"], "ready");
    assert_eq!(ready["generation"], 1);
    assert_eq!(ready["skills"], 36);
    let (s, st) = send(get("/v1/status")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(st["skills"], 36);
    assert!(st["edges"].as_u64().unwrap() > 0, "{st}");
}

#[tokio::test]
async fn the_page_is_html_that_is_never_cached() {
    let res = router(state(), HttpConfig::default())
        .oneshot(get("/"))
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CACHE_CONTROL], "no-store");
    assert!(
        res.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let body = to_bytes(res.into_body(), 16 << 20).await.unwrap();
    assert_eq!(body, gos_server::page::PAGE.as_bytes());
}

#[tokio::test]
async fn retrieve_returns_the_bundle_within_the_requested_limits() {
    let (s, b) = send(post(
        "/v1/retrieve",
        &json!({ "query": "convert a shapefile to geojson" }),
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "SKILL_HIT");
    let ids: Vec<&str> = b["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&SHAPEFILE), "{ids:?}");

    let (s, b) = send(post(
        "/v1/retrieve",
        &json!({ "query": "convert a shapefile to geojson", "max_skills": 2,
                 "mode": "no-graph", "max_context_chars": 3000 }),
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert!(b["skills"].as_array().unwrap().len() <= 2, "{b}");
    assert_eq!(b["mode"], "no-graph");
    assert!(b["context_chars"].as_u64().unwrap() <= 3000, "{b}");
}

#[tokio::test]
async fn search_returns_the_hits_best_first() {
    let (s, found) = send(post(
        "/v1/search",
        &json!({ "query": "convert a shapefile to geojson", "limit": 3 }),
    ))
    .await;
    assert_eq!(s, StatusCode::OK, "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3, "{found}");
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(hits[0]["id"], SHAPEFILE, "{found}");
}

#[tokio::test]
async fn a_skill_its_neighbours_and_close_matches_for_a_misspelt_id() {
    let skill = connected_skill();
    let (s, doc) = send(get(&format!("/v1/skills/{skill}"))).await;
    assert_eq!(s, StatusCode::OK, "{doc}");
    let on_disk = std::fs::read_to_string(
        gos_testkit::fixtures()
            .join("library")
            .join(&skill)
            .join("SKILL.md"),
    )
    .unwrap();
    assert_eq!(doc["skill_md"], on_disk.as_str());
    assert_eq!(doc["truncated"], false);

    let (s, n) = send(get(&format!("/v1/skills/{skill}/neighbors"))).await;
    assert_eq!(s, StatusCode::OK, "{n}");
    assert!(!n["prerequisites"].as_array().unwrap().is_empty(), "{n}");
    assert!(!n["dependents"].as_array().unwrap().is_empty(), "{n}");

    let (s, b) = send(get("/v1/skills/geo/shapefile-readr")).await;
    assert_eq!(error_code(s, &b, StatusCode::NOT_FOUND), "unknown_skill");
    assert!(
        b["error"]["close_matches"]
            .as_array()
            .unwrap()
            .contains(&json!(SHAPEFILE)),
        "{b}"
    );
    let (s, b) = send(get("/v1/skills/nothing-like-it/neighbors")).await;
    assert_eq!(error_code(s, &b, StatusCode::NOT_FOUND), "unknown_skill");
}

#[tokio::test]
async fn bad_requests_get_their_json_error_codes() {
    let cases: Vec<(Request<Body>, StatusCode, &str)> = vec![
        (
            post_raw("/v1/retrieve", "{\"query\": "),
            StatusCode::BAD_REQUEST,
            "invalid_json",
        ),
        (
            post("/v1/retrieve", &json!({ "max_skills": 3 })),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/v1/retrieve", &json!({ "query": "csv", "colour": 1 })),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/v1/retrieve", &json!({ "query": "   " })),
            StatusCode::BAD_REQUEST,
            "empty_query",
        ),
        (
            post("/v1/retrieve", &json!({ "query": "word ".repeat(2000) })),
            StatusCode::BAD_REQUEST,
            "query_too_long",
        ),
        (
            post("/v1/retrieve", &json!({ "query": "csv", "max_skills": 0 })),
            StatusCode::BAD_REQUEST,
            "out_of_range",
        ),
        (
            post(
                "/v1/retrieve",
                &json!({ "query": "csv", "mode": "sideways" }),
            ),
            StatusCode::BAD_REQUEST,
            "unknown_mode",
        ),
        (
            post("/v1/search", &json!({ "query": "" })),
            StatusCode::BAD_REQUEST,
            "empty_query",
        ),
        (get("/v1/nowhere"), StatusCode::NOT_FOUND, "not_found"),
        (
            get("/v1/retrieve"),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            post("/v1/status", &json!({})),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
    ];
    for (req, want, code) in cases {
        let what = format!("{} {}", req.method(), req.uri());
        let (s, b) = send(req).await;
        assert_eq!(error_code(s, &b, want), code, "{what}: {b}");
    }
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let config = HttpConfig {
        max_body_bytes: 1024,
        ..HttpConfig::default()
    };
    let body = json!({ "query": "a".repeat(2048) }).to_string();
    let (s, bytes) = send_with(config, post_raw("/v1/retrieve", body)).await;
    let b: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(
        error_code(s, &b, StatusCode::PAYLOAD_TOO_LARGE),
        "body_too_large"
    );
}

/// An MCP `initialize` request to `/mcp` with `host` (and `origin`, when given).
fn mcp_initialize(host: &str, origin: Option<&str>) -> Request<Body> {
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "gos-test", "version": "0" }
        }
    });
    let mut b = Request::post("/mcp")
        .header(header::HOST, host)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    if let Some(o) = origin {
        b = b.header(header::ORIGIN, o);
    }
    b.body(Body::from(init.to_string())).unwrap()
}

#[tokio::test]
async fn mcp_answers_initialize_for_a_loopback_host_and_refuses_another_host() {
    let (s, body) = send_with(HttpConfig::default(), mcp_initialize("localhost", None)).await;
    assert_eq!(s, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let text = String::from_utf8(body).unwrap();
    let data = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| !d.is_empty())
        .unwrap_or_else(|| panic!("no SSE data in {text}"));
    let v: Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["result"]["serverInfo"]["name"], "gos", "{v}");

    // The DNS-rebinding guard: a Host outside `allowed_hosts` is refused, and so is an
    // Origin from another site (tests/it/guard.rs covers the other routes).
    for (host, origin) in [
        ("evil.example", None),
        ("127.0.0.1", Some("http://evil.example")),
    ] {
        let (s, body) = send_with(HttpConfig::default(), mcp_initialize(host, origin)).await;
        assert_eq!(
            s,
            StatusCode::FORBIDDEN,
            "{host} {origin:?}: {}",
            String::from_utf8_lossy(&body)
        );
    }
}
