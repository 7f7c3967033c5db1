//! Reranking: the final order of the candidates that seeding and diffusion reached.
//!
//! A [`Reranker`] rescores and reorders a list of [`RankedSkill`]s. Two exist:
//!
//! - [`FieldEvidence`] (always first): the graph score and the field-level evidence of the
//!   query in each skill, mixed by [`mix::final_score`];
//! - [`CrossEncoderReranker`] (optional, `--rerank cross-encoder`): a cross-encoder (any
//!   [`PairScorer`]) reads the query with the top candidates' text and reorders them, keeping
//!   a reserved share of the bundle for graph-added prerequisites.

mod candidate;
mod cross_encoder;
mod fields;
pub mod mix;
mod scorer;
mod window;

pub use candidate::RankedSkill;
pub use cross_encoder::CrossEncoderReranker;
pub use fields::{FieldEvidence, name_coverage};
pub use mix::{DEFAULT_DENSE_WEIGHT, RerankWeights};
pub use scorer::PairScorer;
pub use window::{
    DEFAULT_BATCH_SIZE, DEFAULT_MAX_CHARS, DEFAULT_RESERVED_SHARE, DEFAULT_TOP, DEFAULT_WEIGHT,
    StageParams, WindowItem, graph_added, order_window,
};

use crate::diffuse::RetrievalMode;
use crate::error::Result;
use crate::query::Query;

/// What a reranker may know about the retrieval besides the candidates.
pub struct RerankContext<'a> {
    /// The query.
    pub query: &'a Query<'a>,
    /// The graph operation the candidates came from.
    pub mode: RetrievalMode,
    /// How many candidates at the front of the list cleared the relative-score floor
    /// ([`crate::relevance::eligible`]); the list's length before the first reranker.
    pub eligible: usize,
    /// Bundle size (most skills hydrated).
    pub top_n: usize,
    /// A candidate's text as a model reads it: [`crate::Workspace::cross_encoder_text`] in a
    /// retrieval (a function here so that rerankers need no workspace in tests).
    pub text: &'a dyn Fn(&RankedSkill) -> Result<String>,
}

/// A reranking stage.
///
/// # Contract
///
/// `rerank(candidates, ctx)` receives the candidates in the current order and leaves them in
/// the new one.
///
/// - It keeps the same set of candidates: nothing is added or dropped, only `score`, the order
///   and the reranker's own evidence field (e.g. [`RankedSkill::cross_encoder_score`]) change.
/// - On return, `score` is non-increasing down the list and ties are in ascending node order,
///   so the list is a ranking that later stages and the metrics read as is.
/// - It never moves a candidate across the `ctx.eligible` boundary: the candidates above the
///   relative floor before it ran are the ones above it after (the first reranker sees
///   `eligible == candidates.len()` and sets the scores the floor is computed from).
/// - It is deterministic: the same candidates and context give the same order.
///
/// # Errors
/// Errors of `ctx.text` (reading a skill's stored body) and of a model's forward pass; on error
/// the list may be left in any order.
pub trait Reranker {
    /// Rescore and reorder `candidates` (see the trait docs).
    fn rerank(&self, candidates: &mut Vec<RankedSkill>, ctx: &RerankContext<'_>) -> Result<()>;
}

/// Which rerankers run after diffusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum RerankerKind {
    /// Graph score and field evidence only.
    #[default]
    Fields,
    /// Field evidence, then a cross-encoder over the top candidates (needs a model).
    CrossEncoder,
}

impl RerankerKind {
    /// Wire name (`fields`, `cross-encoder`).
    pub fn as_str(self) -> &'static str {
        match self {
            RerankerKind::Fields => "fields",
            RerankerKind::CrossEncoder => "cross-encoder",
        }
    }
}

impl std::fmt::Display for RerankerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
