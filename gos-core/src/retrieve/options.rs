//! [`RetrieveOptions`]: everything that shapes one retrieval.

use crate::diffuse::RetrievalMode;
use crate::graph::ppr::PprParams;
use crate::hydrate::Budgets;
use crate::relevance::{
    DEFAULT_MIN_RELATIVE_SCORE, DEFAULT_MIN_SEED_SCORE, DenseFloor, RelevanceFloors,
};
use crate::rerank::RerankWeights;
use crate::seed::SeedParams;

use super::cut::BundleCut;

/// Everything that shapes one retrieval. `RetrieveOptions::default()` is what `gos retrieve`
/// does without options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrieveOptions {
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seeding (source [`crate::seed::SeedSource::Auto`] by default: hybrid when the retriever has a query
    /// encoder, else lexical).
    pub seeds: SeedParams,
    /// Diffusion.
    pub ppr: PprParams,
    /// Final-score mixing.
    pub rerank: RerankWeights,
    /// Bundle budgets.
    pub budgets: Budgets,
    /// Lexical relevance floor ([`RelevanceFloors::min_seed_score`]).
    pub min_seed_score: f32,
    /// Dense relevance floor ([`RelevanceFloors::min_dense_score`]).
    pub min_dense_score: DenseFloor,
    /// Relative floor ([`RelevanceFloors::min_relative_score`]).
    pub min_relative_score: f64,
    /// Leave out skills the build flagged with content warnings
    /// ([`crate::SkillNode::warnings`], docs/security.md); off by default.
    pub exclude_flagged: bool,
    /// Write `Source:` paths as absolute paths under the workspace's library root instead of
    /// relative to it ([`crate::hydrate::SourcePaths::absolute`]); off by default.
    pub absolute_paths: bool,
    /// Keep one member per near-duplicate group of the workspace in the ranked list, the
    /// best-ranked, and list the others as its alternates ([`crate::workspace::duplicates`]). A
    /// workspace without groups is unaffected. Default: [`DEFAULT_COLLAPSE_DUPLICATES`].
    pub collapse_duplicates: bool,
    /// Adaptive bundle size ([`BundleCut`]); off by default.
    pub bundle_cut: BundleCut,
    /// Bundle slots reserved for prerequisites of the top-ranked skills in graph modes
    /// ([`crate::prerequisite::reserve`]); off by default.
    pub prerequisites: crate::prerequisite::PrerequisiteShare,
    /// Facet seeding and coverage selection ([`super::coverage`]); off by default.
    pub coverage: super::coverage::CoverageParams,
    /// How the query text becomes BM25 terms: markup stripping, code-like token boosts,
    /// field boosts ([`crate::query::QueryParams`]); today's behaviour by default.
    pub query: crate::query::QueryParams,
    /// Lexical coverage floor ([`RelevanceFloors::min_coverage`]); default
    /// [`crate::relevance::DEFAULT_MIN_COVERAGE`].
    pub min_coverage: f32,
}

/// Default [`RetrieveOptions::collapse_duplicates`]: off, because on DEV the kept copy is often
/// not the labelled one and bundle recall falls from 0.736 to 0.638 (docs/evaluation.md).
pub const DEFAULT_COLLAPSE_DUPLICATES: bool = false;

impl Default for RetrieveOptions {
    fn default() -> Self {
        RetrieveOptions {
            mode: RetrievalMode::Reverse,
            seeds: SeedParams::default(),
            ppr: PprParams::default(),
            rerank: RerankWeights::default(),
            budgets: Budgets::default(),
            min_seed_score: DEFAULT_MIN_SEED_SCORE,
            min_dense_score: DenseFloor::Auto,
            min_relative_score: DEFAULT_MIN_RELATIVE_SCORE,
            exclude_flagged: false,
            absolute_paths: false,
            collapse_duplicates: DEFAULT_COLLAPSE_DUPLICATES,
            bundle_cut: BundleCut::default(),
            prerequisites: Default::default(),
            coverage: Default::default(),
            query: Default::default(),
            min_coverage: crate::relevance::DEFAULT_MIN_COVERAGE,
        }
    }
}

impl RetrieveOptions {
    /// The relevance floors of these options.
    pub fn floors(&self, skills: usize) -> RelevanceFloors {
        RelevanceFloors {
            min_seed_score: self.min_seed_score,
            min_dense_score: self.min_dense_score.cosine(skills),
            min_relative_score: self.min_relative_score,
            min_coverage: self.min_coverage,
        }
    }
}
