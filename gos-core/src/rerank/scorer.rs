//! [`PairScorer`]: what a reranking stage needs from a model that reads a query and a document
//! together, whatever its family.
//!
//! Reranking stages (gos's cross-encoder stage, [`super::CrossEncoderReranker`]; SkillFlow's
//! shallow and deep rerankers and SkillRouter's reranker in `gos-pipeline`) hold an
//! `Arc<dyn PairScorer>`. The models live in the `gos-models` crate: BERT and XLM-RoBERTa
//! sequence classifiers score with their classification head, a Qwen3-based reranker with its
//! yes/no next-token logits in its own prompt template.

use crate::error::Result;

/// A relevance model over (query, document) pairs.
///
/// # Contract
///
/// - The scoring methods return one score per document, in input order (an empty input gives
///   an empty output); higher is more relevant. The scale is the model's own (logits,
///   log-odds or a probability), so scores compare within one call only.
/// - A document's score does not depend on the other documents of the call nor on how they
///   are batched, beyond floating-point rounding: [`PairScorer::score_pairs_batched`] with any
///   batch size gives the scores of [`PairScorer::score_pairs`].
/// - It is deterministic: the same query and documents give the same scores.
pub trait PairScorer: Send + Sync + std::fmt::Debug {
    /// A short name of the model for reports (its directory name for local models).
    fn model_name(&self) -> String;

    /// One relevance score per document, in input order, in the model's own batches.
    ///
    /// # Errors
    /// [`crate::Error::Model`] on tokenizer or tensor failures.
    fn score_pairs(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>>;

    /// [`PairScorer::score_pairs`] with at most about `batch_size` pairs per forward pass (a
    /// memory bound; [`super::StageParams::batch_size`] of the cross-encoder stage). The
    /// default ignores `batch_size` and calls [`PairScorer::score_pairs`], for models that
    /// batch by their own rule (Qwen3's reranker runs groups of 4).
    ///
    /// # Errors
    /// As [`PairScorer::score_pairs`]; a model that uses `batch_size` refuses 0 with
    /// [`crate::Error::InvalidOption`].
    fn score_pairs_batched(
        &self,
        query: &str,
        docs: &[&str],
        batch_size: usize,
    ) -> Result<Vec<f32>> {
        let _ = batch_size;
        self.score_pairs(query, docs)
    }
}
