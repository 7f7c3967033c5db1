//! Command-line flags of the LLM layer, shared by `gos build` and `gos retrieve`, and their
//! translation into `gos_build::llm` options. The API key is read from `GOS_LLM_API_KEY` only
//! (never a flag, so it does not land in shell history or process lists) and never printed.

use anyhow::{Context, Result};
use gos_build::llm::LlmOptions;
use gos_build::llm::cache::LlmCache;
use gos_build::llm::client::{ChatClient, ClientConfig};
use gos_build::llm::gates::GateOptions;
use gos_build::llm::service::LlmService;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Endpoint flags (any OpenAI-compatible chat completions server; see docs/llm.md).
#[derive(Debug, Clone, clap::Args)]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API, ending before /chat/completions
    /// (e.g. https://api.openai.com/v1, http://127.0.0.1:8000/v1). Key: GOS_LLM_API_KEY.
    #[arg(long, env = "GOS_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Model id sent to the endpoint; part of every cache key.
    #[arg(long, env = "GOS_LLM_MODEL")]
    pub llm_model: Option<String>,
    /// Response cache file shared between workspaces (default: WORKSPACE/llm-cache.jsonl).
    #[arg(long, value_name = "PATH")]
    pub llm_cache: Option<PathBuf>,
    /// Seconds before one HTTP attempt times out.
    #[arg(long, default_value_t = 120.0)]
    pub llm_timeout_s: f64,
    /// Extra attempts on 429, 5xx, timeouts and connection errors (exponential backoff).
    #[arg(long, default_value_t = 4)]
    pub llm_retries: u32,
}

/// Build-only LLM flags.
#[derive(Debug, Clone, clap::Args)]
pub struct LlmBuildArgs {
    /// Use only the response cache: no HTTP; uncached prompts are skipped and reported.
    #[arg(long)]
    pub offline: bool,
    /// Most LLM requests in flight.
    #[arg(long, default_value_t = 4)]
    pub llm_concurrency: usize,
    /// Most HTTP requests this build may send (cache hits are free); the rest are skipped.
    #[arg(long)]
    pub llm_max_requests: Option<u64>,
    /// Also fill empty retrieval fields of nodes (semantic completion, provenance inferred).
    #[arg(long)]
    pub llm_complete: bool,
    /// Candidate pool size k per focus skill for relation validation.
    #[arg(long, default_value_t = 8)]
    pub llm_pool_k: usize,
    /// Least confidence of an accepted relation, in [0, 1].
    #[arg(long, default_value_t = 0.6)]
    pub llm_min_confidence: f64,
}

fn client_config(a: &LlmArgs, base_url: &str, model: &str) -> Result<ClientConfig> {
    anyhow::ensure!(
        a.llm_timeout_s > 0.0 && a.llm_timeout_s.is_finite(),
        "--llm-timeout-s must be positive, got {}",
        a.llm_timeout_s
    );
    anyhow::ensure!(
        base_url.starts_with("http://") || base_url.starts_with("https://"),
        "--llm-base-url must start with http:// or https://, got {base_url}"
    );
    Ok(ClientConfig {
        base_url: base_url.to_string(),
        model: model.to_string(),
        api_key: std::env::var("GOS_LLM_API_KEY")
            .ok()
            .filter(|k| !k.is_empty()),
        timeout: Duration::from_secs_f64(a.llm_timeout_s),
        max_retries: a.llm_retries,
        backoff_base: Duration::from_millis(500),
    })
}

fn model(a: &LlmArgs) -> Result<String> {
    a.llm_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .context(
            "an LLM endpoint or --offline needs a model id: pass --llm-model or set GOS_LLM_MODEL",
        )
}

/// LLM options of a build: `None` (deterministic build) when neither an endpoint nor
/// `--offline` is given.
pub fn build_options(a: &LlmArgs, b: &LlmBuildArgs) -> Result<Option<LlmOptions>> {
    if a.llm_base_url.is_none() && !b.offline {
        return Ok(None);
    }
    anyhow::ensure!(
        b.llm_concurrency >= 1,
        "--llm-concurrency must be at least 1"
    );
    anyhow::ensure!(b.llm_pool_k >= 1, "--llm-pool-k must be at least 1");
    anyhow::ensure!(
        (0.0..=1.0).contains(&b.llm_min_confidence),
        "--llm-min-confidence must be in [0, 1], got {}",
        b.llm_min_confidence
    );
    let model = model(a)?;
    let client = match (&a.llm_base_url, b.offline) {
        (Some(url), false) => Some(client_config(a, url, &model)?),
        _ => None,
    };
    let mut o = LlmOptions::new(&model, client);
    o.cache_path = a.llm_cache.clone();
    o.concurrency = b.llm_concurrency;
    o.max_requests = b.llm_max_requests;
    o.complete = b.llm_complete;
    o.pool_k = b.llm_pool_k;
    o.gates = GateOptions {
        min_confidence: b.llm_min_confidence,
        ..GateOptions::default()
    };
    Ok(Some(o))
}

/// The service of a query rewrite: `None` without an endpoint. The cache is `--llm-cache`
/// or the workspace's `llm-cache.jsonl`.
pub fn rewrite_service(a: &LlmArgs, workspace: &Path) -> Result<Option<LlmService>> {
    let Some(url) = &a.llm_base_url else {
        return Ok(None);
    };
    let model = model(a)?;
    let cfg = client_config(a, url, &model)?;
    let path = a
        .llm_cache
        .clone()
        .unwrap_or_else(|| workspace.join(gos_build::llm::CACHE_FILE));
    let cache = LlmCache::open(&path, None)?;
    let client = ChatClient::new(cfg)?;
    Ok(Some(LlmService::new(Some(client), model, cache, 1, None)))
}
