//! The access guard on every route (gos_server::guard): Host, Origin and the bearer token,
//! in process over the fixture workspace. A DNS-rebinding page (its own name as `Host`) or a
//! page of another origin (`Origin`) must not read the JSON API, a skill, the web page or
//! MCP; nothing answers with CORS headers. Only the probes answer anyone.

use crate::http::state;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use gos_server::guard::BearerToken;
use gos_server::http::{HttpConfig, router};
use serde_json::Value;
use tower::ServiceExt;

/// One request of each route kind: method, path, body.
const ROUTES: &[(&str, &str, &str)] = &[
    ("GET", "/", ""),
    ("GET", "/v1/status", ""),
    ("GET", "/v1/skills/geo/shapefile-reader", ""),
    ("POST", "/v1/search", r#"{"query": "shapefile"}"#),
    (
        "POST",
        "/v1/retrieve",
        r#"{"query": "convert a shapefile"}"#,
    ),
    (
        "POST",
        "/mcp",
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "gos-test", "version": "0"}}}"#,
    ),
    ("GET", "/no/such/route", ""),
];

/// A request of `route` with the given headers.
fn request(route: (&str, &str, &str), headers: &[(header::HeaderName, &str)]) -> Request<Body> {
    let (method, path, body) = route;
    let mut b = Request::builder()
        .method(method)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream");
    for (name, value) in headers {
        b = b.header(name, *value);
    }
    b.body(Body::from(body.to_string())).unwrap()
}

/// Status, the error code when the body is a gos error, and whether a CORS header came back.
async fn send(config: &HttpConfig, req: Request<Body>) -> (StatusCode, Option<String>, bool) {
    let res = router(state(), config.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let cors = res
        .headers()
        .keys()
        .any(|k| k.as_str().starts_with("access-control-"));
    let body = to_bytes(res.into_body(), 16 << 20).await.unwrap();
    let code = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["error"]["code"].as_str().map(str::to_string));
    (status, code, cors)
}

#[tokio::test]
async fn a_foreign_host_or_origin_is_refused_on_every_route() {
    let config = HttpConfig::default();
    for &route in ROUTES {
        let what = format!("{} {}", route.0, route.1);
        // Allowed: a loopback Host, with or without a port, and a same-site Origin.
        let (s, _, cors) = send(
            &config,
            request(
                route,
                &[
                    (header::HOST, "127.0.0.1:8765"),
                    (header::ORIGIN, "http://localhost:8765"),
                ],
            ),
        )
        .await;
        assert_ne!(s, StatusCode::FORBIDDEN, "{what}: a loopback request");
        assert!(!cors, "{what}: CORS header sent");
        let refused: [(&[(header::HeaderName, &str)], &str); 5] = [
            (&[(header::HOST, "evil.example")], "forbidden_host"),
            (&[(header::HOST, "evil.example:8765")], "forbidden_host"),
            (&[], "forbidden_host"),
            (
                &[
                    (header::HOST, "localhost"),
                    (header::ORIGIN, "http://evil.example"),
                ],
                "forbidden_origin",
            ),
            (
                &[(header::HOST, "localhost"), (header::ORIGIN, "null")],
                "forbidden_origin",
            ),
        ];
        for (headers, want) in refused {
            let (s, code, cors) = send(&config, request(route, headers)).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{what} {headers:?}");
            assert_eq!(code.as_deref(), Some(want), "{what} {headers:?}");
            assert!(!cors, "{what}: CORS header sent");
        }
    }
}

#[tokio::test]
async fn the_probes_answer_without_host_or_token() {
    let config = HttpConfig {
        token: Some(BearerToken::new("0123456789abcdef0123456789abcdef").unwrap()),
        allowed_hosts: Vec::new(),
        ..HttpConfig::default()
    };
    for path in ["/healthz", "/readyz"] {
        let (s, _, cors) = send(&config, request(("GET", path, ""), &[])).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        assert!(!cors);
    }
}

#[tokio::test]
async fn an_empty_allow_list_refuses_every_host() {
    let config = HttpConfig {
        allowed_hosts: Vec::new(),
        ..HttpConfig::default()
    };
    let (s, code, _) = send(&config, request(ROUTES[1], &[(header::HOST, "localhost")])).await;
    assert_eq!(ROUTES[1].1, "/v1/status");
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(code.as_deref(), Some("forbidden_host"));
}

#[tokio::test]
async fn a_token_is_required_on_every_route_when_set() {
    let token = "0123456789abcdef0123456789abcdef";
    let config = HttpConfig {
        token: Some(BearerToken::new(token).unwrap()),
        ..HttpConfig::default()
    };
    let right = format!("Bearer {token}");
    let wrong = format!("Bearer {}x", &token[..31]);
    for &route in ROUTES {
        let what = format!("{} {}", route.0, route.1);
        for auth in [None, Some(wrong.as_str()), Some(token)] {
            let mut headers = vec![(header::HOST, "localhost")];
            headers.extend(auth.map(|a| (header::AUTHORIZATION, a)));
            let res = router(state(), config.clone())
                .oneshot(request(route, &headers))
                .await
                .unwrap();
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{what} {auth:?}");
            assert_eq!(res.headers()[header::WWW_AUTHENTICATE], "Bearer");
        }
        let headers = [
            (header::HOST, "localhost"),
            (header::AUTHORIZATION, right.as_str()),
        ];
        let (s, _, _) = send(&config, request(route, &headers)).await;
        assert!(
            s != StatusCode::UNAUTHORIZED && s != StatusCode::FORBIDDEN,
            "{what}: {s}"
        );
    }
}
