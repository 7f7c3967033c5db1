//! Command-line flags of the LLM layer, shared by `gos build` and `gos retrieve`, and their
//! mapping onto [`gos_llm::LlmConfig`] (which assembles the service) and
//! [`gos_build::llm::LlmOptions`]. The API key is read from `GOS_LLM_API_KEY` only (never a
//! flag, so it does not land in shell history or process lists) and never printed.

use anyhow::Result;
use gos_build::llm::gates::GateOptions;
use gos_build::llm::{DEFAULT_CONCURRENCY, DEFAULT_POOL_K, LlmOptions};
use gos_llm::cache::CACHE_FILE;
use gos_llm::config::{DEFAULT_RETRIES, DEFAULT_TIMEOUT_S, api_key_from_env};
use gos_llm::{LlmConfig, LlmError, LlmService};
use std::path::{Path, PathBuf};

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
    #[arg(long, default_value_t = DEFAULT_TIMEOUT_S)]
    pub llm_timeout_s: f64,
    /// Extra attempts on 429, 5xx, timeouts and connection errors (exponential backoff).
    #[arg(long, default_value_t = DEFAULT_RETRIES)]
    pub llm_retries: u32,
}

/// Build-only LLM flags.
#[derive(Debug, Clone, clap::Args)]
pub struct LlmBuildArgs {
    /// Use only the response cache: no HTTP; uncached prompts are skipped and reported.
    #[arg(long)]
    pub offline: bool,
    /// Most LLM requests in flight.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY)]
    pub llm_concurrency: usize,
    /// Most HTTP requests this build may send (cache hits are free); the rest are skipped.
    #[arg(long)]
    pub llm_max_requests: Option<u64>,
    /// Also fill empty retrieval fields of nodes (semantic completion, provenance inferred).
    #[arg(long)]
    pub llm_complete: bool,
    /// Candidate pool size k per focus skill for relation validation.
    #[arg(long, default_value_t = DEFAULT_POOL_K)]
    pub llm_pool_k: usize,
    /// Least confidence of an accepted relation, in [0, 1].
    #[arg(long, default_value_t = 0.6)]
    pub llm_min_confidence: f64,
}

/// The library configuration of the endpoint flags (`offline` from `gos build --offline`).
fn config(a: &LlmArgs, offline: bool) -> LlmConfig {
    LlmConfig {
        base_url: a.llm_base_url.clone(),
        model: a.llm_model.clone(),
        api_key: api_key_from_env(),
        cache: a.llm_cache.clone(),
        timeout_s: a.llm_timeout_s,
        max_retries: a.llm_retries,
        offline,
    }
}

/// `e` worded with the flags that set the value at fault.
fn flag_error(e: LlmError) -> anyhow::Error {
    match e {
        LlmError::MissingModel => anyhow::anyhow!(
            "an LLM endpoint or --offline needs a model id: pass --llm-model or set GOS_LLM_MODEL"
        ),
        LlmError::BadTimeout(t) => anyhow::anyhow!("--llm-timeout-s must be positive, got {t}"),
        LlmError::BadBaseUrl(url) => {
            anyhow::anyhow!("--llm-base-url must start with http:// or https://, got {url}")
        }
        other => other.into(),
    }
}

/// LLM options of a build: `None` (deterministic build) when neither an endpoint nor
/// `--offline` is given.
pub fn build_options(a: &LlmArgs, b: &LlmBuildArgs) -> Result<Option<LlmOptions>> {
    let cfg = config(a, b.offline);
    if !cfg.is_configured() {
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
    let Some(mut o) = LlmOptions::from_config(&cfg).map_err(flag_error)? else {
        return Ok(None);
    };
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
    config(a, false)
        .service(&workspace.join(CACHE_FILE))
        .map_err(flag_error)
}
