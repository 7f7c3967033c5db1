//! The checks every HTTP route passes before it answers (the JSON API, the web page, `/mcp`
//! and unknown paths alike; only the probes `/healthz` and `/readyz` are exempt): the `Host`
//! header, the `Origin` header when present, and a bearer token when one is configured.
//!
//! - **Host** must name one of the allowed hosts (default the loopback names), with or
//!   without a port. A page on another origin whose name resolves to 127.0.0.1 (DNS
//!   rebinding) sends its own name as `Host` and gets 403. A request with no `Host` is refused
//!   too.
//! - **Origin**, when a browser sends one, must be `http://` or `https://` followed by an
//!   allowed host; `null` and every other origin get 403. No CORS headers are ever sent, so a
//!   browser never lets another origin read an answer.
//! - **Token**: with [`BearerToken`] set, every request needs `Authorization: Bearer TOKEN`
//!   (401 otherwise). The comparison is constant time in the token's bytes (`subtle`'s
//!   `ConstantTimeEq`; only the length can leak) and the token is never printed: its `Debug`
//!   shows `BearerToken(<redacted>)`.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// A secret every request must present as `Authorization: Bearer TOKEN`.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(Vec<u8>);

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

/// Shortest token accepted, in bytes (a guessable token would defeat the check).
pub const MIN_TOKEN_BYTES: usize = 16;

impl BearerToken {
    /// The token `text`, surrounding white space removed.
    ///
    /// # Errors
    /// A message when the token is shorter than [`MIN_TOKEN_BYTES`] or holds white space or
    /// control characters inside (it must fit an HTTP header).
    pub fn new(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.len() < MIN_TOKEN_BYTES {
            return Err(format!(
                "the bearer token is {} bytes; use at least {MIN_TOKEN_BYTES} (for example \
                 `openssl rand -hex 32`)",
                t.len()
            ));
        }
        if t.bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err("the bearer token holds white space or control characters".into());
        }
        Ok(BearerToken(t.as_bytes().to_vec()))
    }

    /// The token in the file at `path` (its first line; the rest must be empty).
    ///
    /// # Errors
    /// A message naming `path` when it cannot be read or the token is not acceptable
    /// ([`BearerToken::new`]).
    pub fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the token file: {e}", path.display()))?;
        BearerToken::new(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Whether `presented` is this token, in time that does not depend on where they differ.
    pub fn matches(&self, presented: &[u8]) -> bool {
        bool::from(self.0.as_slice().ct_eq(presented))
    }
}

/// What [`Access::check`] lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// Host names (or IP addresses, IPv6 without brackets) accepted in `Host` and `Origin`,
    /// compared without case. Empty: every request is refused.
    pub allowed_hosts: Vec<String>,
    /// The token every request must carry, if any.
    pub token: Option<BearerToken>,
}

/// The host part of a `Host` header value or an origin's authority, lower case, without a
/// port and without IPv6 brackets; `None` when it is malformed.
fn host_part(authority: &str) -> Option<String> {
    let a = authority.trim();
    let host = if let Some(rest) = a.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        inside
    } else {
        match a.rsplit_once(':') {
            Some((h, port)) if is_port(port) && !h.contains(':') => h,
            Some(_) => return None,
            None => a,
        }
    };
    if host.is_empty() || host.contains(['/', '@', ' ']) {
        return None;
    }
    Some(host.to_ascii_lowercase())
}

fn is_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
}

impl Access {
    fn allows_host(&self, host: &str) -> bool {
        self.allowed_hosts.iter().any(|a| {
            let a = a.trim_start_matches('[').trim_end_matches(']');
            a.eq_ignore_ascii_case(host)
        })
    }

    /// `Ok` when `headers` pass the Host, Origin and token checks; else the refusal: status,
    /// error code and message.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, &'static str, String)> {
        let forbidden = |code, msg| Err((StatusCode::FORBIDDEN, code, msg));
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .and_then(host_part);
        match host {
            None => {
                return forbidden(
                    "forbidden_host",
                    "the request has no valid Host header; gos serve answers only requests \
                     naming one of its allowed hosts"
                        .into(),
                );
            }
            Some(h) if !self.allows_host(&h) => {
                return forbidden(
                    "forbidden_host",
                    format!(
                        "Host `{h}` is not one this server answers to (DNS-rebinding guard); \
                         if the name is yours, start gos serve with --allow-host {h}"
                    ),
                );
            }
            Some(_) => {}
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let origin_host = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                .and_then(host_part);
            if !origin_host.is_some_and(|h| self.allows_host(&h)) {
                return forbidden(
                    "forbidden_origin",
                    format!(
                        "Origin `{origin}` may not use this server (cross-origin guard); only \
                         pages served from an allowed host may (--allow-host)"
                    ),
                );
            }
        }
        if let Some(token) = &self.token {
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "));
            if !presented.is_some_and(|p| token.matches(p)) {
                return Err((
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    "this server requires `Authorization: Bearer TOKEN` (the token gos serve \
                     was started with, from --token-file or GOS_TOKEN)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}

/// The probes, answered without any check: they tell only that the process serves and the
/// workspace's generation and skill count, and container health checks send neither a
/// token nor (over HTTP/1.0) a `Host`.
pub const PROBES: [&str; 2] = ["/healthz", "/readyz"];

/// The axum middleware: [`Access::check`] on every request but the [`PROBES`], the JSON
/// error on refusal.
pub async fn guard(State(access): State<Arc<Access>>, req: Request, next: Next) -> Response {
    if PROBES.contains(&req.uri().path()) {
        return next.run(req).await;
    }
    match access.check(req.headers()) {
        Ok(()) => next.run(req).await,
        Err((status, code, message)) => {
            let body = axum::Json(json!({ "error": { "code": code, "message": message } }));
            if status == StatusCode::UNAUTHORIZED {
                (status, [(header::WWW_AUTHENTICATE, "Bearer")], body).into_response()
            } else {
                (status, body).into_response()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_part_strips_ports_and_brackets() {
        assert_eq!(host_part("LocalHost:8080").as_deref(), Some("localhost"));
        assert_eq!(host_part("127.0.0.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(host_part("[::1]:7000").as_deref(), Some("::1"));
        assert_eq!(host_part("[::1]").as_deref(), Some("::1"));
        assert_eq!(
            host_part("evil.example:80").as_deref(),
            Some("evil.example")
        );
        assert_eq!(host_part("a:b:c"), None);
        assert_eq!(host_part("host:port"), None);
        assert_eq!(host_part("user@host"), None);
        assert_eq!(host_part(""), None);
    }

    #[test]
    fn tokens_compare_whole_and_never_print() {
        let t = BearerToken::new(" 0123456789abcdef\n").unwrap();
        assert!(t.matches(b"0123456789abcdef"));
        assert!(!t.matches(b"0123456789abcdeF"));
        assert!(!t.matches(b"0123456789abcde"));
        assert!(!t.matches(b""));
        assert_eq!(format!("{t:?}"), "BearerToken(<redacted>)");
        assert!(
            BearerToken::new("short")
                .unwrap_err()
                .contains("at least 16")
        );
        assert!(BearerToken::new("0123456789 abcdef").is_err());
    }
}
