//! Assembly of an [`LlmService`] from plain settings: endpoint, model, key, cache file, offline.
//!
//! [`LlmConfig`] is what a front end (the CLI, a Rust program) fills in; it checks the settings
//! and opens the cache and the client. Its errors are typed ([`LlmError`]) and name no
//! command-line flag, so each front end can word them for its own users.

use crate::cache::{CacheError, LlmCache};
use crate::client::{ChatClient, ClientConfig, ClientError};
use crate::service::LlmService;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable holding the endpoint's bearer key (never a flag or a file, so it lands
/// neither in shell history nor in process lists).
pub const API_KEY_ENV: &str = "GOS_LLM_API_KEY";
/// Default whole-request timeout in seconds (`gos --llm-timeout-s`).
pub const DEFAULT_TIMEOUT_S: f64 = 120.0;
/// Default extra attempts after the first (`gos --llm-retries`).
pub const DEFAULT_RETRIES: u32 = 4;
/// First backoff step between attempts; doubles on each retry (see [`crate::client`]).
pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_millis(500);

/// The key in [`API_KEY_ENV`], when set and not empty.
pub fn api_key_from_env() -> Option<String> {
    std::env::var(API_KEY_ENV).ok().filter(|k| !k.is_empty())
}

/// Why a configuration cannot become a service. No variant holds the API key.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// An endpoint or offline use needs a model id (it is part of every cache key).
    #[error("an LLM endpoint or offline use needs a model id")]
    MissingModel,
    /// The timeout is not a positive finite number of seconds.
    #[error("the LLM timeout must be positive seconds, got {0}")]
    BadTimeout(f64),
    /// The base URL is not an `http://` or `https://` URL.
    #[error("the LLM base URL must start with http:// or https://, got {0}")]
    BadBaseUrl(String),
    /// The cache file cannot be read or opened for appending.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// The HTTP client cannot be created.
    #[error("LLM client: {0}")]
    Client(#[from] ClientError),
}

/// Where and how to reach an LLM. `Debug` hides the key.
#[derive(Clone, PartialEq)]
pub struct LlmConfig {
    /// Base URL of an OpenAI-compatible API, ending before `/chat/completions`; `None`: no
    /// endpoint.
    pub base_url: Option<String>,
    /// Model id sent with each request and part of every cache key.
    pub model: Option<String>,
    /// Bearer key (usually [`api_key_from_env`]); never printed, never written to disk.
    pub api_key: Option<String>,
    /// Cache file shared between workspaces; `None` uses the caller's default (a workspace's
    /// [`crate::cache::CACHE_FILE`]).
    pub cache: Option<PathBuf>,
    /// Seconds before one HTTP attempt times out (default [`DEFAULT_TIMEOUT_S`]).
    pub timeout_s: f64,
    /// Extra attempts on 429, 5xx, timeouts and connection errors (default [`DEFAULT_RETRIES`]).
    pub max_retries: u32,
    /// Cache only: no HTTP even when `base_url` is set.
    pub offline: bool,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            base_url: None,
            model: None,
            api_key: None,
            cache: None,
            timeout_s: DEFAULT_TIMEOUT_S,
            max_retries: DEFAULT_RETRIES,
            offline: false,
        }
    }
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set, hidden>"))
            .field("cache", &self.cache)
            .field("timeout_s", &self.timeout_s)
            .field("max_retries", &self.max_retries)
            .field("offline", &self.offline)
            .finish()
    }
}

impl LlmConfig {
    /// Whether an LLM is in use at all: an endpoint, or offline (cache-only) use.
    pub fn is_configured(&self) -> bool {
        self.base_url.is_some() || self.offline
    }

    /// The model id, trimmed of nothing but checked not blank.
    ///
    /// # Errors
    /// [`LlmError::MissingModel`] when absent or blank.
    pub fn model(&self) -> Result<String, LlmError> {
        self.model
            .clone()
            .filter(|m| !m.trim().is_empty())
            .ok_or(LlmError::MissingModel)
    }

    /// The client settings: `None` offline or without an endpoint. The backoff base is
    /// [`DEFAULT_BACKOFF_BASE`].
    ///
    /// # Errors
    /// [`LlmError::BadTimeout`], [`LlmError::BadBaseUrl`], [`LlmError::MissingModel`].
    pub fn client_config(&self) -> Result<Option<ClientConfig>, LlmError> {
        let (Some(base_url), false) = (&self.base_url, self.offline) else {
            return Ok(None);
        };
        let model = self.model()?;
        if !(self.timeout_s > 0.0 && self.timeout_s.is_finite()) {
            return Err(LlmError::BadTimeout(self.timeout_s));
        }
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(LlmError::BadBaseUrl(base_url.clone()));
        }
        Ok(Some(ClientConfig {
            base_url: base_url.clone(),
            model,
            api_key: self.api_key.clone(),
            timeout: Duration::from_secs_f64(self.timeout_s),
            max_retries: self.max_retries,
            backoff_base: DEFAULT_BACKOFF_BASE,
        }))
    }

    /// The cache file: [`LlmConfig::cache`], else `default`.
    pub fn cache_path(&self, default: &Path) -> PathBuf {
        self.cache.clone().unwrap_or_else(|| default.to_path_buf())
    }

    /// A service for one-off requests (query rewrite): one request in flight, no budget, the
    /// cache at [`LlmConfig::cache_path`]`(default_cache)`. `None` when [`Self::is_configured`]
    /// is false; a service without a client (cache only) when offline.
    ///
    /// # Errors
    /// The checks of [`Self::client_config`] and [`Self::model`], then [`LlmError::Cache`]
    /// when the cache cannot be opened and [`LlmError::Client`] when the HTTP client cannot be
    /// created.
    pub fn service(&self, default_cache: &Path) -> Result<Option<LlmService>, LlmError> {
        if !self.is_configured() {
            return Ok(None);
        }
        let model = self.model()?;
        let client = self.client_config()?;
        let cache = LlmCache::open(&self.cache_path(default_cache), None)?;
        let client = client.map(ChatClient::new).transpose()?;
        Ok(Some(LlmService::new(client, model, cache, 1, None)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint() -> LlmConfig {
        LlmConfig {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            model: Some("m".into()),
            api_key: Some("sk-hidden".into()),
            ..LlmConfig::default()
        }
    }

    #[test]
    fn nothing_configured_gives_no_service() {
        let tmp = tempfile::tempdir().unwrap();
        let none = LlmConfig::default().service(&tmp.path().join("c.jsonl"));
        assert!(none.unwrap().is_none());
        assert!(!tmp.path().join("c.jsonl").exists());
    }

    #[test]
    fn settings_are_checked_before_anything_is_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = tmp.path().join("c.jsonl");
        let no_model = LlmConfig {
            model: Some("  ".into()),
            ..endpoint()
        };
        assert!(matches!(
            no_model.service(&cache),
            Err(LlmError::MissingModel)
        ));
        let bad_timeout = LlmConfig {
            timeout_s: f64::NAN,
            ..endpoint()
        };
        assert!(matches!(
            bad_timeout.service(&cache),
            Err(LlmError::BadTimeout(_))
        ));
        let bad_url = LlmConfig {
            base_url: Some("ftp://x".into()),
            ..endpoint()
        };
        let e = bad_url.service(&cache).err().unwrap();
        assert!(matches!(e, LlmError::BadBaseUrl(_)));
        assert!(!e.to_string().contains("sk-hidden"));
        assert!(!cache.exists());
    }

    #[test]
    fn offline_uses_the_cache_only_and_the_key_stays_hidden() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = LlmConfig {
            offline: true,
            ..endpoint()
        };
        assert!(cfg.client_config().unwrap().is_none());
        let s = cfg.service(&tmp.path().join("c.jsonl")).unwrap().unwrap();
        assert!(s.offline());
        assert_eq!(s.model(), "m");
        let online = endpoint().service(&tmp.path().join("c.jsonl")).unwrap();
        assert!(!online.unwrap().offline());
        assert!(!format!("{:?}", endpoint()).contains("sk-hidden"));
    }
}
