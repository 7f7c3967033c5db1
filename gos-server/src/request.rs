//! Retrieval requests as both servers receive them: validation against [`Limits`], the
//! mapping to [`RetrieveOptions`], and the answers (the bundle document, the ranked list).

use crate::bundle::{CallTimings, bundle_json};
use crate::error::RequestError;
use crate::staged::{self, Control};
use crate::state::Loaded;
use gos_core::hydrate::{DEFAULT_MAX_CHARS_PER_SKILL, DEFAULT_MAX_CONTEXT_CHARS, DEFAULT_TOP_N};
use gos_core::rerank::RerankerKind;
use gos_core::{Budgets, RetrievalMode, RetrieveOptions};
use rmcp::schemars::{self, JsonSchema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Instant;

/// Bounds on what one request may ask for. The defaults keep one request's work to a few
/// tens of milliseconds at 5,000 skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most characters of a query (default 4,000).
    pub max_query_chars: usize,
    /// Most skills in a bundle or hits in a search (default 50).
    pub max_skills: usize,
    /// Most characters of one skill block (default 100,000).
    pub max_chars_per_skill: usize,
    /// Most characters of a rendered context (default 400,000).
    pub max_context_chars: usize,
    /// Most bytes of SKILL.md text `get_skill` returns (default 200,000; longer files are
    /// cut at a character boundary and flagged `truncated`).
    pub max_skill_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_query_chars: 4_000,
            max_skills: 50,
            max_chars_per_skill: 100_000,
            max_context_chars: 400_000,
            max_skill_bytes: 200_000,
        }
    }
}

/// A bundle request: `retrieve_skill_bundle` over MCP, `POST /v1/retrieve` over HTTP. The
/// optional fields default to what `gos retrieve` does without flags.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetrieveRequest {
    /// The task description.
    pub query: String,
    /// Most skills in the bundle (`gos retrieve --top-n`, default 8).
    #[serde(default)]
    pub max_skills: Option<u64>,
    /// Most characters of one skill block (`--max-chars-per-skill`, default 2,400).
    #[serde(default)]
    pub max_chars_per_skill: Option<u64>,
    /// Most characters of the whole rendered context (`--max-context-chars`, default
    /// 12,000).
    #[serde(default)]
    pub max_context_chars: Option<u64>,
    /// Graph operation: `reverse` (default), `forward`, `one-hop` or `no-graph`.
    #[serde(default)]
    pub mode: Option<String>,
}

/// A search request: `search_skills` over MCP, `POST /v1/search` over HTTP.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// The task description.
    pub query: String,
    /// Most hits (default 10).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// One hit of a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// Skill id (package path relative to the library root).
    pub id: String,
    /// Display name.
    pub name: String,
    /// The skill's description.
    pub description: String,
    /// Final retrieval score (higher is better).
    pub score: f64,
}

/// The answer to a search: the ranked list without bodies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    /// `SKILL_HIT` when the relevance floors found the query relevant, else `NO_SKILL_HIT`
    /// (the hits are then the best of a weak lot).
    pub status: String,
    /// Hits, best first.
    pub hits: Vec<SearchHit>,
}

fn checked_query(query: &str, limits: &Limits) -> Result<(), RequestError> {
    if query.trim().is_empty() {
        return Err(RequestError::new(
            "empty_query",
            "the query is empty; describe the task in a sentence",
        ));
    }
    let chars = query.chars().count();
    if chars > limits.max_query_chars {
        return Err(RequestError::new(
            "query_too_long",
            format!(
                "the query has {chars} characters; at most {} are accepted",
                limits.max_query_chars
            ),
        ));
    }
    Ok(())
}

fn bounded(
    name: &str,
    value: Option<u64>,
    default: usize,
    max: usize,
) -> Result<usize, RequestError> {
    match value {
        None => Ok(default),
        Some(v) if v >= 1 && v <= max as u64 => Ok(v as usize),
        Some(v) => Err(RequestError::new(
            "out_of_range",
            format!("{name} is {v}; it must be between 1 and {max}"),
        )),
    }
}

impl RetrieveRequest {
    /// The retrieval options the request asks for (the library defaults, as `gos retrieve`
    /// without flags, for what it leaves out).
    ///
    /// # Errors
    /// `empty_query`, `query_too_long`, `out_of_range` (a budget of 0 or above `limits`) and
    /// `unknown_mode`.
    pub fn options(&self, limits: &Limits) -> Result<RetrieveOptions, RequestError> {
        checked_query(&self.query, limits)?;
        let mode = match self.mode.as_deref() {
            None => RetrievalMode::default(),
            Some(m) => m.parse().map_err(|_| {
                RequestError::new(
                    "unknown_mode",
                    format!("mode `{m}` is unknown; use reverse, forward, one-hop or no-graph"),
                )
            })?,
        };
        Ok(RetrieveOptions {
            mode,
            budgets: Budgets {
                top_n: bounded(
                    "max_skills",
                    self.max_skills,
                    DEFAULT_TOP_N,
                    limits.max_skills,
                )?,
                max_chars_per_skill: bounded(
                    "max_chars_per_skill",
                    self.max_chars_per_skill,
                    DEFAULT_MAX_CHARS_PER_SKILL,
                    limits.max_chars_per_skill,
                )?,
                max_context_chars: bounded(
                    "max_context_chars",
                    self.max_context_chars,
                    DEFAULT_MAX_CONTEXT_CHARS,
                    limits.max_context_chars,
                )?,
                ..Budgets::default()
            },
            ..RetrieveOptions::default()
        })
    }
}

/// Run a bundle request on `loaded` in stages under `control` ([`staged`]): the document of
/// [`bundle_json`], exactly what `gos retrieve --json` prints for the same options (timings
/// aside).
///
/// # Errors
/// The validation errors of [`RetrieveRequest::options`]; `cancelled` when `control` was
/// cancelled before a stage; `internal` when retrieval fails (an unreadable index).
pub fn retrieve(
    loaded: &Loaded,
    req: &RetrieveRequest,
    limits: &Limits,
    control: &Control,
) -> Result<Value, RequestError> {
    let start = Instant::now();
    let opts = req.options(limits)?;
    let r = staged::retrieve(loaded, &req.query, &opts, control)?;
    Ok(bundle_json(
        loaded.workspace(),
        &req.query,
        opts.mode,
        &r,
        RerankerKind::default().as_str(),
        Value::Null,
        CallTimings {
            total: start.elapsed().as_secs_f64() * 1e3,
            ..CallTimings::default()
        },
    ))
}

/// Run a search request on `loaded`: the retrieval's ranked list (seeds, their
/// prerequisites and the lexical pool, in final order), cut to `limit`.
///
/// # Errors
/// `empty_query`, `query_too_long`, `out_of_range` for a limit of 0 or above
/// [`Limits::max_skills`]; `cancelled` as in [`retrieve`]; `internal` when retrieval fails.
pub fn search(
    loaded: &Loaded,
    req: &SearchRequest,
    limits: &Limits,
    control: &Control,
) -> Result<SearchResult, RequestError> {
    checked_query(&req.query, limits)?;
    let limit = bounded("limit", req.limit, 10, limits.max_skills)?;
    let r = staged::retrieve(loaded, &req.query, &RetrieveOptions::default(), control)?;
    let nodes = &loaded.workspace().manifest().nodes;
    let hits = r
        .ranked
        .iter()
        .take(limit)
        .map(|s| {
            let node = &nodes[s.node];
            SearchHit {
                id: node.id.clone(),
                name: node.name.clone(),
                description: node.description.value.clone(),
                score: s.score,
            }
        })
        .collect();
    Ok(SearchResult {
        status: r.bundle.status.as_str().to_string(),
        hits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str) -> RetrieveRequest {
        RetrieveRequest {
            query: query.into(),
            max_skills: None,
            max_chars_per_skill: None,
            max_context_chars: None,
            mode: None,
        }
    }

    #[test]
    fn defaults_are_what_gos_retrieve_does_without_flags() {
        let opts = req("parse a csv").options(&Limits::default()).unwrap();
        assert_eq!(opts, RetrieveOptions::default());
    }

    #[test]
    fn budgets_mode_and_query_are_checked() {
        let limits = Limits::default();
        for n in [0, 1_000_000_000] {
            let r = RetrieveRequest {
                max_skills: Some(n),
                ..req("csv")
            };
            assert_eq!(r.options(&limits).unwrap_err().code, "out_of_range");
        }
        let r = RetrieveRequest {
            max_skills: Some(3),
            mode: Some("one-hop".into()),
            ..req("csv")
        };
        let opts = r.options(&limits).unwrap();
        assert_eq!((opts.budgets.top_n, opts.mode), (3, RetrievalMode::OneHop));
        let r = RetrieveRequest {
            mode: Some("sideways".into()),
            ..req("csv")
        };
        assert_eq!(r.options(&limits).unwrap_err().code, "unknown_mode");
        assert_eq!(
            req(" \n ").options(&limits).unwrap_err().code,
            "empty_query"
        );
        let long = "é".repeat(limits.max_query_chars + 1);
        assert_eq!(
            req(&long).options(&limits).unwrap_err().code,
            "query_too_long"
        );
        let fits = "é".repeat(limits.max_query_chars);
        assert!(
            req(&fits).options(&limits).is_ok(),
            "the limit counts characters, not bytes"
        );
    }

    /// Every request field but the query is a knob of the parameter registry (`max_skills` is
    /// `top_n`'s wire name), and leaving it out gives the registry's default.
    #[test]
    fn request_fields_are_registry_knobs() {
        let full = RetrieveRequest {
            max_skills: Some(1),
            max_chars_per_skill: Some(1),
            max_context_chars: Some(1),
            mode: Some("reverse".into()),
            ..req("q")
        };
        let json = serde_json::to_value(&full).unwrap();
        let fields: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(fields.len(), 5);
        let opts = req("q").options(&Limits::default()).unwrap();
        for f in fields.into_iter().filter(|f| *f != "query") {
            let k = gos_core::param::knob(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            assert_eq!(
                gos_core::param::get(&opts, k.name).unwrap(),
                k.default_value(),
                "{f}"
            );
        }
    }
}
