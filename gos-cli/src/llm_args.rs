//! The LLM flags of `gos build` and `gos retrieve` (defined in [`crate::args`]) mapped onto [`gos_llm::LlmConfig`] (which assembles the service) and
//! [`gos_build::llm::LlmOptions`]. The API key is read from `GOS_LLM_API_KEY` only (never a
//! flag, so it does not land in shell history or process lists) and never printed.

use anyhow::Result;
use gos_build::llm::LlmOptions;
use gos_build::llm::gates::GateOptions;
use gos_llm::cache::CACHE_FILE;
use gos_llm::config::api_key_from_env;
use gos_llm::{LlmConfig, LlmError, LlmService};
use std::path::Path;

pub use crate::args::{LlmArgs, LlmBuildArgs};

/// The library configuration of the endpoint flags (`offline` from `gos build --offline`).
fn config(a: &LlmArgs, offline: bool) -> LlmConfig {
    LlmConfig {
        base_url: a.llm_base_url.clone(),
        model: a.llm_model.clone(),
        api_key: api_key_from_env(),
        cache: a.llm_cache.clone(),
        timeout_s: a.llm_timeout_secs,
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
