//! The HTTP service (axum): the JSON API, health and readiness probes, the web page, and MCP
//! over streamable HTTP at `/mcp`.
//!
//! | route | answer |
//! | --- | --- |
//! | `POST /v1/retrieve` | body [`RetrieveRequest`]; the bundle document of `gos retrieve --json` |
//! | `POST /v1/search` | body [`SearchRequest`]; [`crate::request::SearchResult`] |
//! | `GET /v1/skills/{id}` | [`crate::skills::SkillDocument`] (ids may contain `/`) |
//! | `GET /v1/skills/{id}/neighbors` | [`crate::skills::Neighborhood`] |
//! | `GET /v1/status` | [`crate::skills::WorkspaceStatus`] |
//! | `GET /healthz` | 200 while the process serves |
//! | `GET /readyz` | 200 with the generation while a workspace is loaded |
//! | `GET /` | the web page ([`crate::page`]) |
//! | `/mcp` | MCP, streamable HTTP transport |
//!
//! Every route first passes [`crate::guard`]: `Host` among [`HttpConfig::allowed_hosts`],
//! `Origin` (when sent) from an allowed host, and the bearer token when one is set (403 or
//! 401 otherwise). No CORS headers are sent.
//!
//! Every error is `{"error": {"code": ..., "message": ...}}` (plus `close_matches` for an
//! unknown id) with a 4xx or 5xx status; bodies above [`HttpConfig::max_body_bytes`] get 413,
//! requests running past [`HttpConfig::request_timeout`] get 503.

use crate::error::RequestError;
use crate::guard::{Access, BearerToken};
use crate::mcp::GosMcp;
use crate::request::{self, Limits, RetrieveRequest, SearchRequest};
use crate::skills;
use crate::staged::Control;
use crate::state::{Loaded, ServerState};
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::de::DeserializeOwned;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How the HTTP service limits requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// Per-request limits on queries and budgets.
    pub limits: Limits,
    /// Largest accepted request body in bytes (default 64 KiB).
    pub max_body_bytes: usize,
    /// Longest a request may run before it gets a 503 (default 30 s).
    pub request_timeout: Duration,
    /// Host names every route accepts in `Host` and `Origin` (DNS-rebinding and
    /// cross-origin guard, [`crate::guard`]; default the loopback names). Empty: every
    /// request is refused.
    pub allowed_hosts: Vec<String>,
    /// The bearer token every request must carry (required by `gos serve` on a bind
    /// address that is not loopback); `None`: no token.
    pub token: Option<BearerToken>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            limits: Limits::default(),
            max_body_bytes: 64 * 1024,
            request_timeout: Duration::from_secs(30),
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            token: None,
        }
    }
}

#[derive(Clone)]
struct App {
    state: Arc<ServerState>,
    config: Arc<HttpConfig>,
}

/// An error response: status and `{"error": {...}}`.
struct ApiError(StatusCode, RequestError);

impl From<RequestError> for ApiError {
    fn from(e: RequestError) -> Self {
        let status =
            StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError(status, e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let ApiError(status, e) = self;
        let mut error = json!({ "code": e.code, "message": e.message });
        if !e.close_matches.is_empty() {
            error["close_matches"] = json!(e.close_matches);
        }
        (status, axum::Json(json!({ "error": error }))).into_response()
    }
}

/// The body of a JSON request, or a JSON error: 413 for a body above the limit, 400 for
/// malformed JSON or missing and unknown fields.
fn parse_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|rejection| {
        let status = rejection.status();
        let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
            "body_too_large"
        } else {
            "invalid_request"
        };
        ApiError(status, RequestError::new(code, rejection.body_text()))
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let code = if e.is_syntax() || e.is_eof() {
            "invalid_json"
        } else {
            "invalid_request"
        };
        ApiError(
            StatusCode::BAD_REQUEST,
            RequestError::new(code, format!("the request body is not valid: {e}")),
        )
    })
}

/// Run `f` on the current state on the blocking pool, within the request timeout. When the
/// request ends early (the timeout fired, or the client went away and axum dropped this
/// future), the [`Control`] handed to `f` is cancelled, so a retrieval skips the stages it
/// has not started ([`crate::staged`]).
async fn run<T: Send + 'static>(
    app: &App,
    f: impl FnOnce(&Loaded, &Limits, &Control) -> Result<T, RequestError> + Send + 'static,
) -> Result<T, ApiError> {
    let loaded = app.state.current();
    let limits = app.config.limits;
    let control = Control::new();
    // Cancelling a finished retrieval does nothing, so the guard needs no disarming.
    let _cancel = control.cancel_on_drop();
    let task = tokio::task::spawn_blocking(move || f(&loaded, &limits, &control));
    match tokio::time::timeout(app.config.request_timeout, task).await {
        Ok(Ok(result)) => result.map_err(ApiError::from),
        Ok(Err(e)) => Err(RequestError::new("internal", format!("the request failed: {e}")).into()),
        Err(_) => Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            RequestError::new(
                "timeout",
                format!(
                    "the request ran past {} s",
                    app.config.request_timeout.as_secs_f64()
                ),
            ),
        )),
    }
}

async fn retrieve(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: RetrieveRequest = parse_body(body)?;
    let bundle = run(&app, move |l, limits, control| {
        request::retrieve(l, &req, limits, control)
    })
    .await?;
    Ok(axum::Json(bundle).into_response())
}

async fn search(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: SearchRequest = parse_body(body)?;
    let hits = run(&app, move |l, limits, control| {
        request::search(l, &req, limits, control)
    })
    .await?;
    Ok(axum::Json(hits).into_response())
}

/// `GET /v1/skills/{*rest}`: a skill, or `{id}/neighbors`. A full id wins over the suffix.
async fn skill(State(app): State<App>, Path(rest): Path<String>) -> Result<Response, ApiError> {
    run(&app, move |l, limits, _| {
        let ws = l.workspace();
        match rest.strip_suffix("/neighbors") {
            Some(id) if ws.index_of(&rest).is_none() => {
                skills::neighbors(l, id).map(|n| axum::Json(n).into_response())
            }
            _ => skills::get_skill(l, &rest, limits).map(|d| axum::Json(d).into_response()),
        }
    })
    .await
}

async fn status(State(app): State<App>) -> Response {
    axum::Json(skills::status(&app.state)).into_response()
}

async fn healthz() -> Response {
    axum::Json(json!({ "status": "ok" })).into_response()
}

async fn readyz(State(app): State<App>) -> Response {
    let loaded = app.state.current();
    axum::Json(json!({
        "status": "ready",
        "generation": loaded.generation,
        "skills": loaded.workspace().len(),
    }))
    .into_response()
}

async fn page() -> Response {
    (
        [(header::CACHE_CONTROL, "no-store")],
        Html(crate::page::PAGE),
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        RequestError::new(
            "not_found",
            "no such route; see /v1/retrieve, /v1/search, /v1/skills/{id}, /healthz, /readyz, /mcp",
        ),
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        RequestError::new(
            "method_not_allowed",
            "wrong method; /v1/retrieve and /v1/search take POST, the rest GET",
        ),
    )
}

/// The whole service over `state`.
pub fn router(state: Arc<ServerState>, config: HttpConfig) -> Router {
    let mcp_state = state.clone();
    let limits = config.limits;
    // rmcp's own Host check stays on with the same list (the guard below runs first).
    let mcp_config =
        StreamableHttpServerConfig::default().with_allowed_hosts(config.allowed_hosts.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(GosMcp::new(mcp_state.clone(), limits)),
        LocalSessionManager::default().into(),
        mcp_config,
    );
    let backstop = config.request_timeout + Duration::from_secs(5);
    let access = Arc::new(Access {
        allowed_hosts: config.allowed_hosts.clone(),
        token: config.token.clone(),
    });
    let app = App {
        state,
        config: Arc::new(config.clone()),
    };
    Router::new()
        .route("/", get(page))
        .route("/v1/retrieve", post(retrieve))
        .route("/v1/search", post(search))
        .route("/v1/skills/{*rest}", get(skill))
        .route("/v1/status", get(status))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .nest_service("/mcp", mcp)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(config.max_body_bytes))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            backstop,
        ))
        .layer(axum::middleware::from_fn_with_state(
            access,
            crate::guard::guard,
        ))
        .with_state(app)
}

/// Serve `router` on `listener` until `shutdown` resolves; requests in flight then finish.
///
/// # Errors
/// I/O errors of the listener.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), crate::ServerError> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|source| crate::ServerError::Io {
            what: "serving HTTP".into(),
            source,
        })
}
