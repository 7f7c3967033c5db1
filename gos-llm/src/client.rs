//! HTTP client of an OpenAI-compatible chat completions endpoint (OpenAI, vLLM, llama.cpp
//! server, Ollama): `POST {base_url}/chat/completions` with a JSON body, temperature 0 and
//! JSON mode, blocking (reqwest), with timeouts and retries.
//!
//! Retries: a request that times out, cannot connect, or gets HTTP 429 or 5xx is sent again
//! up to [`ClientConfig::max_retries`] times, after `base * 2^attempt` plus a jitter of up to
//! half of that (a `Retry-After` header in seconds, when present and larger, wins; every wait
//! is capped at 30 s). Other 4xx statuses fail at once (a bad key or model name does not get
//! better by waiting).
//!
//! Failing fast: after [`UNREACHABLE_AFTER`] consecutive connection failures (refused, reset,
//! no route, DNS), counted across all requests of one client, no more attempts are made: the
//! request in progress and every later one fail at once with [`ClientError::Unreachable`],
//! so a dead endpoint costs seconds, not minutes of retries. Any HTTP answer resets the count.
//!
//! Secrets: the API key (and a password in the base URL) never appears in an error. Every
//! text that comes from the endpoint or the transport (error bodies, transport errors, parse
//! errors) is passed through [`ChatClient::redact`] before it is stored in a [`ClientError`],
//! so reports, logs and messages built from errors cannot leak the key, whatever the server
//! echoes.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Consecutive connection failures after which a client stops trying (see the module doc).
pub const UNREACHABLE_AFTER: u32 = 3;

/// What replaces a secret in error texts.
pub const REDACTED: &str = "[REDACTED]";

/// Longest single wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How to reach the endpoint.
#[derive(Clone)]
pub struct ClientConfig {
    /// Base URL given the OpenAI way, ending before `/chat/completions`
    /// (e.g. `http://127.0.0.1:8000/v1`, `https://api.openai.com/v1`).
    pub base_url: String,
    /// Model id sent in each request (and part of every cache key).
    pub model: String,
    /// Bearer key; never printed (the `Debug` impl hides it) and never written to disk.
    pub api_key: Option<String>,
    /// Whole-request timeout (connect + reply).
    pub timeout: Duration,
    /// Extra attempts after the first on 429, 5xx, timeouts and connection errors.
    pub max_retries: u32,
    /// First backoff step; doubles on each retry.
    pub backoff_base: Duration,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set, hidden>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .finish()
    }
}

/// Token counts of one reply, as the endpoint reports them (`usage`); zero when absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
}

/// A successful reply: the assistant message text, token usage, and how many attempts it took.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    /// `choices[0].message.content`.
    pub content: String,
    /// Token usage.
    pub usage: Usage,
    /// HTTP attempts made (1 = no retry).
    pub attempts: u32,
}

/// Why a request failed after its retries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// Every attempt timed out.
    #[error("timed out after {attempts} attempt(s)")]
    Timeout {
        /// Attempts made.
        attempts: u32,
    },
    /// The endpoint could not be reached (connection refused, DNS, TLS).
    #[error("endpoint unreachable after {attempts} attempt(s): {reason}")]
    Unreachable {
        /// Attempts made.
        attempts: u32,
        /// Transport error text.
        reason: String,
    },
    /// The endpoint answered with an error status (after retries for 429/5xx).
    #[error("HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// Last status code.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// Start of the error body.
        body: String,
    },
    /// The HTTP body is not a chat completion (no `choices[0].message.content`).
    #[error("reply is not a chat completion: {reason}")]
    BadReply {
        /// What is missing.
        reason: String,
    },
}

impl ClientError {
    /// Short kind name used as a report counter key.
    pub fn kind(&self) -> &'static str {
        match self {
            ClientError::Timeout { .. } => "timeout",
            ClientError::Unreachable { .. } => "unreachable",
            ClientError::Status { status: 429, .. } => "http_429",
            ClientError::Status { status, .. } if *status >= 500 => "http_5xx",
            ClientError::Status { .. } => "http_4xx",
            ClientError::BadReply { .. } => "bad_reply",
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system` or `user`.
    pub role: String,
    /// Text.
    pub content: String,
}

/// The blocking chat client.
pub struct ChatClient {
    config: ClientConfig,
    http: reqwest::blocking::Client,
    url: String,
    /// Texts never to show: the API key and the base URL's password.
    secrets: Vec<String>,
    /// Connection failures in a row, over all requests (reset by any HTTP answer).
    refusals: AtomicU32,
    /// HTTP attempts made by this client, over all requests.
    attempts_made: AtomicU64,
}

/// Deterministic-free jitter in `[0, max]`, from the clock and a counter (no RNG crate needed;
/// jitter only has to spread concurrent retries apart).
fn jitter(max: Duration, salt: u64) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    let mut x = nanos ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    let frac = (x % 1_000_000) as f64 / 1_000_000.0;
    max.mul_f64(frac)
}

/// Wait before retry number `attempt` (0-based): `base * 2^attempt + jitter(base * 2^attempt / 2)`,
/// or `retry_after` when larger, capped at 30 s.
pub fn backoff(base: Duration, attempt: u32, retry_after: Option<Duration>, salt: u64) -> Duration {
    let step = base.saturating_mul(1u32 << attempt.min(16));
    let wait = step + jitter(step / 2, salt);
    wait.max(retry_after.unwrap_or_default()).min(MAX_BACKOFF)
}

enum Attempt {
    Done(ChatReply),
    Retry(ClientError, Option<Duration>),
    Fail(ClientError),
}

impl ChatClient {
    /// A client for `config`.
    ///
    /// # Errors
    /// [`ClientError::Unreachable`] when the HTTP client cannot be created (TLS backend).
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let http = reqwest::blocking::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| ClientError::Unreachable {
                attempts: 0,
                reason: e.to_string(),
            })?;
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        let mut secrets: Vec<String> = config.api_key.iter().cloned().collect();
        if let Ok(u) = reqwest::Url::parse(&config.base_url)
            && let Some(p) = u.password()
        {
            secrets.push(p.to_string());
        }
        secrets.retain(|s| !s.is_empty());
        Ok(ChatClient {
            config,
            http,
            url,
            secrets,
            refusals: AtomicU32::new(0),
            attempts_made: AtomicU64::new(0),
        })
    }

    /// `text` with every occurrence of the API key and of the base URL's password replaced by
    /// [`REDACTED`], and the token of any `Bearer ...` replaced too (a server may echo a
    /// header in another spelling).
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            out = out.replace(s.as_str(), REDACTED);
        }
        redact_bearer(&out)
    }

    /// HTTP attempts this client has made so far, over all requests (attempts skipped after
    /// [`UNREACHABLE_AFTER`] connection failures are not counted).
    pub fn attempts_made(&self) -> u64 {
        self.attempts_made.load(Ordering::SeqCst)
    }

    /// Whether [`UNREACHABLE_AFTER`] connection failures in a row were seen.
    fn given_up(&self) -> bool {
        self.refusals.load(Ordering::SeqCst) >= UNREACHABLE_AFTER
    }

    fn gave_up_error(&self, attempts: u32) -> ClientError {
        ClientError::Unreachable {
            attempts,
            reason: format!(
                "gave up after {UNREACHABLE_AFTER} connection failures in a row to {}",
                self.redact(&self.url)
            ),
        }
    }

    /// The configuration (the key stays hidden in its `Debug` form).
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The JSON body sent for `messages`: model, messages, temperature 0, JSON mode.
    pub fn request_body(model: &str, messages: &[Message]) -> serde_json::Value {
        Self::request_body_at(model, messages, 0.0)
    }

    /// The JSON body sent for `messages` at `temperature`.
    pub fn request_body_at(
        model: &str,
        messages: &[Message],
        temperature: f64,
    ) -> serde_json::Value {
        serde_json::json!({
            "model": model,
            "messages": messages,
            "temperature": temperature,
            "response_format": {"type": "json_object"},
        })
    }

    /// Send `messages` at temperature 0 and return the reply, retrying as the module docs say.
    ///
    /// # Errors
    /// [`ClientError`] after the last attempt.
    pub fn chat(&self, messages: &[Message], salt: u64) -> Result<ChatReply, ClientError> {
        self.chat_at(messages, salt, 0.0)
    }

    /// [`ChatClient::chat`] at `temperature`.
    ///
    /// # Errors
    /// [`ClientError`] after the last attempt.
    pub fn chat_at(
        &self,
        messages: &[Message],
        salt: u64,
        temperature: f64,
    ) -> Result<ChatReply, ClientError> {
        let body = Self::request_body_at(&self.config.model, messages, temperature);
        let mut attempt = 0u32;
        loop {
            if self.given_up() {
                return Err(self.gave_up_error(attempt));
            }
            match self.attempt(&body, attempt + 1) {
                Attempt::Done(r) => return Ok(r),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry(e, retry_after) => {
                    if attempt >= self.config.max_retries {
                        return Err(e);
                    }
                    if self.given_up() {
                        return Err(self.gave_up_error(attempt + 1));
                    }
                    let wait = backoff(self.config.backoff_base, attempt, retry_after, salt);
                    tracing::debug!("LLM request failed ({e}); retrying in {wait:?}");
                    std::thread::sleep(wait);
                    attempt += 1;
                }
            }
        }
    }

    fn attempt(&self, body: &serde_json::Value, attempts: u32) -> Attempt {
        let mut req = self.http.post(&self.url).json(body);
        if let Some(key) = &self.config.api_key {
            req = req.bearer_auth(key);
        }
        self.attempts_made.fetch_add(1, Ordering::SeqCst);
        let resp = match req.send() {
            Ok(r) => r,
            Err(e) => {
                if e.is_connect() {
                    self.refusals.fetch_add(1, Ordering::SeqCst);
                }
                return self.transport_failure(&e, attempts);
            }
        };
        self.refusals.store(0, Ordering::SeqCst);
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = match resp.text() {
            Ok(t) => t,
            Err(e) => return self.transport_failure(&e, attempts),
        };
        if !(200..300).contains(&status) {
            let err = ClientError::Status {
                status,
                attempts,
                body: self.redact(&text).chars().take(200).collect(),
            };
            return if status == 429 || status >= 500 {
                Attempt::Retry(err, retry_after)
            } else {
                Attempt::Fail(err)
            };
        }
        match parse_completion(&text) {
            Ok((content, usage)) => Attempt::Done(ChatReply {
                content,
                usage,
                attempts,
            }),
            Err(reason) => Attempt::Fail(ClientError::BadReply {
                reason: self.redact(&reason),
            }),
        }
    }

    /// A failure before a complete HTTP response (sending, or reading the body): a timeout or
    /// an unreachable endpoint, both retried.
    fn transport_failure(&self, e: &reqwest::Error, attempts: u32) -> Attempt {
        let error = if e.is_timeout() {
            ClientError::Timeout { attempts }
        } else {
            ClientError::Unreachable {
                attempts,
                reason: self.redact(&e.to_string()),
            }
        };
        Attempt::Retry(error, None)
    }
}

/// Replace the token after every `Bearer ` (any case) by [`REDACTED`].
fn redact_bearer(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find("bearer ").map(|i| i + from) {
        let start = i + "bearer ".len();
        let end = text[start..]
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | '}' | ']'))
            .map_or(text.len(), |e| start + e);
        if end > start && &text[start..end] != REDACTED {
            out.push_str(&text[rest..start]);
            out.push_str(REDACTED);
            rest = end;
        }
        from = end.max(start);
    }
    out.push_str(&text[rest..]);
    out
}

/// `choices[0].message.content` and `usage` of a chat completion body.
///
/// # Errors
/// A message naming what is missing.
pub fn parse_completion(text: &str) -> Result<(String, Usage), String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("body is not JSON ({e})"))?;
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(|c| c.as_str())
        .ok_or_else(|| "no choices[0].message.content".to_string())?;
    let usage = v
        .get("usage")
        .and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok())
        .unwrap_or_default();
    Ok((content.to_string(), usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_respects_retry_after_and_cap() {
        let base = Duration::from_millis(100);
        let b0 = backoff(base, 0, None, 1);
        let b2 = backoff(base, 2, None, 1);
        assert!(b0 >= base && b0 <= base * 3 / 2, "{b0:?}");
        assert!(b2 >= base * 4 && b2 <= base * 6, "{b2:?}");
        assert_eq!(
            backoff(base, 0, Some(Duration::from_secs(5)), 1),
            Duration::from_secs(5)
        );
        assert_eq!(backoff(base, 20, None, 1), MAX_BACKOFF);
    }

    #[test]
    fn completion_body_is_parsed_and_key_is_hidden() {
        let (c, u) = parse_completion(
            r#"{"choices":[{"message":{"role":"assistant","content":"{}"}}],"usage":{"prompt_tokens":7,"completion_tokens":2}}"#,
        )
        .unwrap();
        assert_eq!(c, "{}");
        assert_eq!(
            u,
            Usage {
                prompt_tokens: 7,
                completion_tokens: 2
            }
        );
        assert!(parse_completion("{}").is_err());
        let cfg = ClientConfig {
            base_url: "http://x/v1".into(),
            model: "m".into(),
            api_key: Some("sk-secret".into()),
            timeout: Duration::from_secs(1),
            max_retries: 0,
            backoff_base: Duration::from_millis(1),
        };
        assert!(!format!("{cfg:?}").contains("sk-secret"));
    }

    #[test]
    fn redaction_covers_the_key_url_passwords_and_bearer_tokens() {
        let client = ChatClient::new(ClientConfig {
            base_url: "http://user:pw-1234@127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: Some("sk-live-42".into()),
            timeout: Duration::from_secs(1),
            max_retries: 0,
            backoff_base: Duration::from_millis(1),
        })
        .unwrap();
        let text = r#"{"error":"bad key sk-live-42","auth":"Bearer other-token","url":"http://user:pw-1234@h"} BEARER x"#;
        let out = client.redact(text);
        for secret in ["sk-live-42", "other-token", "pw-1234", "BEARER x"] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert_eq!(out.matches(REDACTED).count(), 4, "{out}");
        assert_eq!(redact_bearer("no secrets here"), "no secrets here");
        assert_eq!(redact_bearer("Bearer "), "Bearer ");
    }
}
