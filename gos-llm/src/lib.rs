//! LLM access of gos: an OpenAI-compatible chat client, a response cache, the prompt
//! templates, the request service that ties them together, and query rewrite.
//!
//! The builder (gos-build) uses it to complete empty skill fields and to validate candidate
//! relations; `gos retrieve --rewrite` uses it to turn a task into a retrieval query. Nothing
//! here knows about workspaces or the build: it sends prompts and returns parsed JSON objects.
//!
//! # How a request is served
//!
//! Every prompt goes through an [`LlmService`] ([`service`]):
//!
//! 1. **Cache first.** The [`cache`] key is the SHA-256 of model id, template id and version,
//!    rendered messages and request parameters. A hit whose content is a JSON object is the
//!    answer, at no cost; a rebuild that renders the same prompts sends nothing.
//! 2. **Then the client, within the budget.** Misses get budget tickets in list order (so
//!    which prompts a spent budget cuts does not depend on thread timing); offline, or once
//!    the budget is spent, a miss fails as [`Failure::Offline`] or [`Failure::Budget`].
//! 3. **Within the concurrency limit.** Ticketed prompts are sent by at most `concurrency`
//!    threads through the [`client`], which retries timeouts, connection errors, 429 and 5xx
//!    with exponential backoff.
//! 4. **Only usable replies count.** A reply whose content is not a JSON object fails as
//!    [`Failure::Malformed`] and is not cached, so the next run asks again.
//!
//! Every outcome is counted in [`RequestStats`] (cache hits, calls, retries, tokens, failures
//! by kind); no failure panics or aborts the caller.
//!
//! # Query rewrite
//!
//! [`rewrite::rewrite_query`] asks for a retrieval schema (goal, operations, artifacts,
//! constraints, keywords) and retrieves with the schema's text followed by the task. It never
//! fails: without a service, when the request fails, or when the reply has neither a goal nor
//! keywords, it falls back to the task text as is and says why in [`rewrite::RewriteSource`].
//!
//! # Assembly
//!
//! [`LlmConfig`] turns plain settings (endpoint, model, key from [`config::API_KEY_ENV`], cache
//! file, offline) into a service, with typed [`LlmError`]s:
//!
//! ```no_run
//! use gos_llm::{LlmConfig, rewrite::rewrite_query};
//! use std::path::Path;
//!
//! let config = LlmConfig {
//!     base_url: Some("http://127.0.0.1:8000/v1".into()),
//!     model: Some("my-model".into()),
//!     api_key: gos_llm::config::api_key_from_env(),
//!     ..LlmConfig::default()
//! };
//! let service = config.service(Path::new("workspace/llm-cache.jsonl"))?;
//! let rewrite = rewrite_query(service.as_ref(), "plot sales.csv as a bar chart");
//! println!("{}", rewrite.text);
//! # Ok::<(), gos_llm::LlmError>(())
//! ```
//!
//! The test responder, a loopback OpenAI-compatible server replying from fixture files, is in
//! `testing` behind the non-default `test-support` feature.

#![warn(missing_docs)]

pub mod cache;
pub mod client;
pub mod config;
pub mod prompts;
pub mod rewrite;
pub mod service;
pub mod skillflow;
#[cfg(feature = "test-support")]
pub mod testing;

pub use config::{LlmConfig, LlmError};
pub use service::{Answer, Failure, LlmService, Prompt, RequestStats, parse_json_object};
