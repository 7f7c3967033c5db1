//! The build report: counts, skipped packages, recoveries, timings. Written to
//! `build-report.json` and printed by `gos build --json`. Unlike the manifest and the graph,
//! it holds timings and so differs between builds.

use crate::embed::EmbedStats;
use crate::relate::RelateStats;
use serde::Serialize;
use std::collections::BTreeMap;

/// A package left out of the workspace: unreadable or unusable, refused by discovery, ignored
/// by a `.gosignore`, or filtered by `--include`/`--exclude`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// Path relative to the library root (prefixed with the root's label for a labelled root).
    pub path: String,
    /// Why, in words.
    pub reason: String,
}

/// A repair the parser made to keep a package.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recovered {
    /// `SKILL.md` path relative to the library root.
    pub path: String,
    /// What was repaired.
    pub what: String,
}

/// Degree statistics of the graph (in + out edges per node).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DegreeStats {
    /// Mean degree.
    pub mean: f64,
    /// Largest degree.
    pub max: usize,
    /// Id of a node with the largest degree.
    pub max_node: String,
}

/// One library root of the build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootReport {
    /// Label prefixed to its ids; absent for the one unlabelled root of a classic build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Absolute path.
    pub path: String,
    /// Packages kept from it (before parsing; skipped ones are listed in `skipped`).
    pub packages: usize,
}

/// What a live rebuild ([`crate::watch`]) took from the stage caches of the build before it
/// (`crate::stage_cache`), stage by stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReuseStats {
    /// Bodies whose shingle set came from the cache (of all bodies), near-duplicate stage.
    pub dedup_bodies: usize,
    /// Bodies whose workflow claims came from the cache.
    pub workflow_bodies: usize,
    /// BM25 index parts taken unchanged.
    pub index_parts: usize,
    /// BM25 index parts indexed again.
    pub index_parts_indexed: usize,
    /// BM25 index segments merged again from their parts (a segment holds consecutive
    /// parts; see `gos_core::index::lexical::MAX_SEGMENTS`).
    pub index_segments_merged: usize,
    /// Whether the neighbour rows of the semantic stage (BM25 rows in a lexical workspace,
    /// vector rows with skill vectors) were taken unchanged.
    pub neighbour_rows: bool,
}

/// Everything `gos build` reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BuildReport {
    /// Library root (absolute).
    pub library: String,
    /// Workspace directory.
    pub workspace: String,
    /// SKILL.md files found.
    pub discovered: usize,
    /// Skill nodes written.
    pub nodes: usize,
    /// Edge counts by type (`dependency`, `workflow`, `semantic`, `alternative`).
    pub edges: BTreeMap<String, usize>,
    /// Edge counts by provenance (`io`, `mention`, `llm`, `declared`).
    pub edges_by_provenance: BTreeMap<String, usize>,
    /// Nodes with no edge.
    pub isolated: usize,
    /// Degree statistics.
    pub degree: DegreeStats,
    /// Packages left out, each with the reason.
    pub skipped: Vec<Skipped>,
    /// Repairs made to packages that were kept.
    pub recovered: Vec<Recovered>,
    /// Counters of the dependency pass (scored pairs prove it is not all-pairs).
    pub relate: RelateStats,
    /// The semantic pass ([`crate::semantic`]); absent when it was off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<crate::semantic::SemanticStats>,
    /// Alternative edges made, by provenance (`duplicate`, `same_job`), and the number of
    /// alternative groups written to `alternatives.json`.
    pub alternative: AlternativeStats,
    /// The workflow pass ([`crate::workflow`]): sequencing cues read, edges made and dropped
    /// by each guard.
    pub workflow: crate::workflow::WorkflowStats,
    /// The embedding stage, when the build had a sentence encoder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embed: Option<EmbedStats>,
    /// What a live rebuild took from the previous build's stage caches; absent from a build
    /// without them (`gos build` without `--watch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused: Option<ReuseStats>,
    /// Wall milliseconds per stage: `discover`, `parse`, `relate` (io, mention and declared
    /// edges), `dedup` (near-duplicate groups), `alternative` (alternative edges), `workflow`
    /// (workflow edges), `index` (tantivy index and workspace files), `semantic`, and `embed`
    /// and `llm` when they ran.
    pub stage_ms: BTreeMap<String, u64>,
    /// Whole build in milliseconds.
    pub wall_ms: u64,
    /// Every root read, with its label and package count (issue 13).
    pub roots: Vec<RootReport>,
    /// Declared dependencies (frontmatter `requires`, `dependencies`, ...): edges made, and
    /// declarations that named no skill or several, with the candidates.
    pub declared: crate::declared::DeclaredStats,
    /// The LLM layer: configuration, requests, cache hits, tokens, completion and validation
    /// counters, rejected proposals by gate, skipped nodes.
    pub llm: crate::llm::LlmReport,
    /// Skills flagged by each content-warning rule (`crate::warnings`, docs/security.md);
    /// rules without hits are left out.
    pub warnings: BTreeMap<String, usize>,
}

/// Counters of the alternative pass ([`crate::alternative`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AlternativeStats {
    /// Edges from near-duplicate groups.
    pub duplicate_edges: usize,
    /// Edges from the same-job rule.
    pub same_job_edges: usize,
    /// Connected components written to `alternatives.json`.
    pub groups: usize,
    /// Skills in those groups.
    pub grouped_skills: usize,
}
