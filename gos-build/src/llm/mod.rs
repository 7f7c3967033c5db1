//! The LLM layer of the build: semantic completion of empty fields and validation of
//! candidate relations by an OpenAI-compatible chat endpoint, with a response cache that makes
//! rebuilds reproducible and free, and an incremental plan that re-asks only what changed.
//!
//! Stages, in build order (after the deterministic relation pass):
//!
//! 1. [`complete`] (optional): fill empty retrieval fields, provenance `inferred`;
//! 2. [`pools`]: a candidate pool of k skills per focus skill from pluggable providers;
//! 3. [`incremental`]: reuse the previous build's pools where nothing changed;
//! 4. [`validate`]: one request per focus skill, [`gates`], `llm` edges.
//!
//! Every request goes through a [`gos_llm::LlmService`]: cache first, then the chat client
//! within the request budget and concurrency limit (the client, cache, prompts and service
//! live in gos-llm). Nothing here fails the build: a failed request leaves its node with
//! deterministic edges and is listed in the report.

pub mod complete;
pub mod gates;
pub mod incremental;
pub mod pools;
pub mod validate;

use crate::normalize::Normalized;
use crate::progress::BuildProgress;
use gates::{GateContext, GateOptions};
use gos_core::index::lexical::LexicalIndex;
use gos_core::{SkillGraph, SkillNode};
use gos_llm::cache::LlmCache;
use gos_llm::client::{ChatClient, ClientConfig};
use gos_llm::prompts;
use gos_llm::{LlmConfig, LlmError, LlmService, RequestStats};
use incremental::{POOLS_FILE, PoolsFile, plan_pools};
use pools::{IoNeighbours, LexicalNeighbours, PoolProvider};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// File name of the default cache in a workspace (defined by [`gos_llm::cache`]).
pub use gos_llm::cache::CACHE_FILE;
/// Default of [`LlmOptions::concurrency`].
pub const DEFAULT_CONCURRENCY: usize = 4;
/// Default of [`LlmOptions::pool_k`] (reference `LINK_TOP_K`).
pub const DEFAULT_POOL_K: usize = 8;
/// Name of the pool source [`with_candidates`] in the pools file and the report: the skills
/// that a candidate edge joins to the focus skill.
pub const CANDIDATE_EDGES_PROVIDER: &str = "candidate_edges";
/// Most skipped entries listed in the report (the total is always given).
const MAX_SKIPPED_LISTED: usize = 200;

/// How the build uses an LLM.
#[derive(Debug, Clone)]
pub struct LlmOptions {
    /// Endpoint; `None` means offline: replies come from the cache only.
    pub client: Option<ClientConfig>,
    /// Model id (part of every cache key; also used offline).
    pub model: String,
    /// Cache file shared between workspaces; `None` keeps it in the workspace
    /// (`llm-cache.jsonl`, carried over from the previous build).
    pub cache_path: Option<PathBuf>,
    /// Most requests in flight (at least 1; default [`DEFAULT_CONCURRENCY`]).
    pub concurrency: usize,
    /// Most HTTP requests this build may send (retries not counted); `None` = no limit.
    pub max_requests: Option<u64>,
    /// Run semantic completion before validation.
    pub complete: bool,
    /// Run relation validation (default true).
    pub validate: bool,
    /// Pool size k (default [`DEFAULT_POOL_K`]).
    pub pool_k: usize,
    /// Gate thresholds.
    pub gates: GateOptions,
}

impl LlmOptions {
    /// Options for `model` at `client` (or offline), other settings at their defaults.
    pub fn new(model: &str, client: Option<ClientConfig>) -> Self {
        LlmOptions {
            client,
            model: model.to_string(),
            cache_path: None,
            concurrency: DEFAULT_CONCURRENCY,
            max_requests: None,
            complete: false,
            validate: true,
            pool_k: DEFAULT_POOL_K,
            gates: GateOptions::default(),
        }
    }

    /// Options of the endpoint, model and cache of `config`, other settings at their defaults;
    /// `None` (a deterministic build) when `config` names neither an endpoint nor offline use.
    ///
    /// # Errors
    /// [`LlmError`] when the model is missing or the endpoint settings are invalid
    /// ([`LlmConfig::client_config`]).
    pub fn from_config(config: &LlmConfig) -> Result<Option<Self>, LlmError> {
        if !config.is_configured() {
            return Ok(None);
        }
        let model = config.model()?;
        let mut o = LlmOptions::new(&model, config.client_config()?);
        o.cache_path = config.cache.clone();
        Ok(Some(o))
    }
}

/// A node the LLM layer could not serve, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmSkipped {
    /// Skill id.
    pub id: String,
    /// Stage and reason.
    pub reason: String,
}

/// The `llm` section of the build report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LlmReport {
    /// Whether an LLM (endpoint or offline cache) was configured.
    pub configured: bool,
    /// One line for people.
    pub note: String,
    /// Whether every LLM request the build needed got a usable reply (always true when no
    /// LLM is configured). `gos build` exits with status 3 when this is false.
    pub complete: bool,
    /// Model id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Endpoint base URL (never the key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Cache only.
    pub offline: bool,
    /// Cache file used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<String>,
    /// Request counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<RequestStats>,
    /// Completion counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<complete::CompletionStats>,
    /// Validation counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<validate::ValidationStats>,
    /// Nodes whose LLM work was skipped, with reasons (first 200).
    pub skipped: Vec<LlmSkipped>,
    /// Total skipped entries.
    pub skipped_total: usize,
}

impl LlmReport {
    /// The report of a build with no LLM.
    pub fn not_configured() -> Self {
        LlmReport {
            configured: false,
            note: "no LLM configured: deterministic edges only".into(),
            complete: true,
            ..LlmReport::default()
        }
    }
}

/// One build's LLM layer: the service and what it did so far.
pub struct LlmRun {
    opts: LlmOptions,
    service: Option<LlmService>,
    report: LlmReport,
    skipped: Vec<(String, String)>,
    previous_pools: Option<PoolsFile>,
}

impl LlmRun {
    /// Open the cache and the client. `staging` is the new workspace directory being
    /// written, `previous` the workspace it replaces (its cache and pools are read).
    /// Problems (cache unreadable, client not creatable) disable the layer and are reported;
    /// they do not fail the build.
    pub fn start(opts: &LlmOptions, staging: &Path, previous: &Path) -> Self {
        let (cache_path, seed) = match &opts.cache_path {
            Some(p) => (p.clone(), None),
            None => (staging.join(CACHE_FILE), Some(previous.join(CACHE_FILE))),
        };
        let mut report = LlmReport {
            configured: true,
            complete: true,
            model: Some(opts.model.clone()),
            endpoint: opts.client.as_ref().map(|c| c.base_url.clone()),
            offline: opts.client.is_none(),
            cache: Some(cache_path.display().to_string()),
            ..LlmReport::default()
        };
        let service = LlmCache::open(&cache_path, seed.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|cache| {
                let client = match &opts.client {
                    Some(c) => Some(ChatClient::new(c.clone()).map_err(|e| e.to_string())?),
                    None => None,
                };
                Ok(LlmService::new(
                    client,
                    opts.model.clone(),
                    cache,
                    opts.concurrency,
                    opts.max_requests,
                ))
            });
        let service = match service {
            Ok(s) => Some(s),
            Err(e) => {
                report.complete = false;
                report.note = format!("LLM layer disabled: {e}");
                None
            }
        };
        LlmRun {
            opts: opts.clone(),
            service,
            report,
            skipped: Vec::new(),
            previous_pools: PoolsFile::read(&previous.join(POOLS_FILE)),
        }
    }

    /// Semantic completion of `normalized` (when enabled).
    pub fn complete(&mut self, normalized: &mut [Normalized], progress: &dyn BuildProgress) {
        let (true, Some(service)) = (self.opts.complete, &self.service) else {
            return;
        };
        let eligible = normalized
            .iter()
            .filter(|n| !complete::missing_fields(&n.node).is_empty())
            .count();
        progress.stage("complete", Some(eligible as u64));
        let stats = complete::complete_nodes(normalized, service, &mut self.skipped, &|| {
            progress.advance(1)
        });
        progress.finish_stage();
        self.report.completion = Some(stats);
    }

    /// Relation validation over `nodes` into `graph`; writes `llm-pools.json` into `staging`.
    /// `common_types` are the artifact types too common to be evidence (the relate pass's
    /// generic types), `max_type_df` the same limit for the I/O pool provider.
    #[allow(clippy::too_many_arguments)]
    pub fn relations(
        &mut self,
        nodes: &[SkillNode],
        graph: &mut SkillGraph,
        lexical: &LexicalIndex,
        common_types: &BTreeSet<String>,
        max_type_df: usize,
        staging: &Path,
        progress: &dyn BuildProgress,
    ) -> std::io::Result<()> {
        let (true, Some(service)) = (self.opts.validate, &self.service) else {
            return Ok(());
        };
        let lexical_p = LexicalNeighbours::new(nodes, lexical);
        let io_p = IoNeighbours::new(nodes, max_type_df);
        // Pool providers, in order. A dense provider (workspace vectors) is added here.
        let providers: Vec<&dyn PoolProvider> = vec![&lexical_p, &io_p];
        // Only dependency evidence (io, mention, declared) settles a pair: a pair that only a
        // candidate rule joined (semantic, alternative, workflow) stays in the pool, so the
        // model can confirm, retype or reject its edge (GoS's relation validation).
        let linked: std::collections::HashSet<(usize, usize)> = graph
            .indexed_edges()
            .filter(|(_, _, e)| !e.provenance.is_candidate())
            .flat_map(|(s, t, _)| [(s, t), (t, s)])
            .collect();
        let exclude = |f: usize, c: usize| linked.contains(&(f, c));
        let fingerprints = incremental::candidate_fingerprint(nodes, graph);
        let expected = PoolsFile::new(
            &[],
            &[],
            &[],
            &self.opts.model,
            prompts::VALIDATE_TEMPLATE,
            self.opts.pool_k,
            providers
                .iter()
                .map(|p| p.name().to_string())
                .chain([CANDIDATE_EDGES_PROVIDER.to_string()])
                .collect(),
        );
        progress.stage("pools", None);
        let (pools, inc) = plan_pools(
            nodes,
            self.previous_pools.as_ref(),
            &expected,
            &fingerprints,
            &providers,
            &exclude,
        );
        let pools = with_candidates(pools, graph, self.opts.pool_k, &exclude);
        progress.finish_stage();
        let collections: BTreeSet<String> = nodes
            .iter()
            .map(|n| n.collection().to_lowercase())
            .collect();
        let ctx = GateContext {
            nodes,
            common_types,
            collections: &collections,
            opts: self.opts.gates,
        };
        let prompts_n = pools.iter().filter(|p| !p.is_empty()).count();
        progress.stage("validate", Some(prompts_n as u64));
        let mut stats = validate::validate_relations(
            nodes,
            &pools,
            graph,
            service,
            &ctx,
            &mut self.skipped,
            &|| progress.advance(1),
        );
        stats.pool_k = self.opts.pool_k;
        stats.providers = expected.providers.clone();
        stats.incremental = inc;
        progress.finish_stage();
        self.report.validation = Some(stats);
        let record = PoolsFile::new(
            nodes,
            &pools,
            &fingerprints,
            &self.opts.model,
            prompts::VALIDATE_TEMPLATE,
            self.opts.pool_k,
            expected.providers,
        );
        std::fs::write(staging.join(POOLS_FILE), record.to_json())
    }

    /// The finished report.
    pub fn finish(mut self) -> LlmReport {
        if let Some(s) = &self.service {
            self.report.requests = Some(s.stats());
        }
        self.report.skipped_total = self.skipped.len();
        if !self.skipped.is_empty() {
            self.report.complete = false;
        }
        self.report.skipped = self
            .skipped
            .into_iter()
            .take(MAX_SKIPPED_LISTED)
            .map(|(id, reason)| LlmSkipped { id, reason })
            .collect();
        if self.report.note.is_empty() {
            let v = self.report.validation.as_ref();
            self.report.note = format!(
                "{} model {}: {} LLM edges accepted, {} proposals rejected, {} nodes skipped",
                if self.report.offline {
                    "offline (cache only),"
                } else {
                    "endpoint"
                },
                self.opts.model,
                v.map_or(0, |v| v.accepted),
                v.map_or(0, |v| v.rejected.values().sum::<u64>()),
                self.report.skipped_total
            );
        }
        self.report
    }
}

/// `pools` with, appended to each focus skill's pool, the skills a candidate edge
/// ([`gos_core::EdgeProvenance::is_candidate`]: semantic, alternative, workflow) joins it to
/// and the pool lacks, heaviest edge first (ties by node index), at most `k` of them, pairs
/// that `exclude` settles left out. Appending keeps the fused pool's order, so every candidate
/// edge of a focus skill is put to the validator, which confirms, retypes or rejects it.
pub fn with_candidates(
    mut pools: Vec<Vec<usize>>,
    graph: &SkillGraph,
    k: usize,
    exclude: &dyn Fn(usize, usize) -> bool,
) -> Vec<Vec<usize>> {
    let mut joined: Vec<Vec<(usize, f64)>> = vec![Vec::new(); pools.len()];
    for (s, t, e) in graph.indexed_edges() {
        if e.provenance.is_candidate() && s < pools.len() && t < pools.len() {
            joined[s].push((t, e.weight));
            joined[t].push((s, e.weight));
        }
    }
    for (f, pool) in pools.iter_mut().enumerate() {
        let list = &mut joined[f];
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut added = 0;
        for &(c, _) in list.iter() {
            if added == k {
                break;
            }
            if c != f && !exclude(f, c) && !pool.contains(&c) {
                pool.push(c);
                added += 1;
            }
        }
    }
    pools
}
