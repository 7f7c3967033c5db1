//! [`PairScorer`]: what a reranking stage needs from a model that reads a query and a document
//! together, whatever its family.
//!
//! Reranking stages (gos's cross-encoder stage, SkillFlow's shallow and deep rerankers,
//! SkillRouter's reranker) hold a `Box<dyn PairScorer>`. BERT and XLM-RoBERTa sequence
//! classifiers ([`CrossEncoder`]) score with their classification head; a Qwen3-based reranker
//! scores with its yes/no next-token logits in its own prompt template.

use crate::cross_encoder::{CrossEncoder, DEFAULT_BATCH_SIZE, Qwen3Reranker};
use crate::dense::qwen3::is_qwen3;
use crate::error::Result;
use crate::model_dir::read_config;

/// A relevance model over (query, document) pairs.
pub trait PairScorer: Send + Sync + std::fmt::Debug {
    /// A short name of the model for reports (its directory name for local models).
    fn model_name(&self) -> String;

    /// One relevance score per document, in input order; higher is more relevant. The scale is
    /// the model's own (logits or log-odds), so scores compare within one call only.
    ///
    /// # Errors
    /// [`crate::Error::Model`] on tokenizer or tensor failures.
    fn score_pairs(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>>;
}

/// BERT and XLM-RoBERTa sequence classifiers, in batches of [`DEFAULT_BATCH_SIZE`] pairs.
impl PairScorer for CrossEncoder {
    fn model_name(&self) -> String {
        self.dir()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.dir().display().to_string())
    }

    fn score_pairs(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>> {
        self.score(query, docs, DEFAULT_BATCH_SIZE)
    }
}

/// Load the pair scorer in `dir` (Hugging Face layout) onto `device` with an optional sequence
/// limit in tokens, choosing the implementation from the model's `config.json`: a Qwen3 model
/// (`model_type` `qwen3`) is a [`Qwen3Reranker`] with its default instruction and a 4,096-token
/// default limit; anything else a BERT or XLM-RoBERTa sequence classifier
/// ([`CrossEncoder::load_with_max_length`]) scored in batches sorted by length.
///
/// # Errors
/// [`crate::Error::Model`] naming the file when a file is missing or unreadable, or the model
/// family is not supported.
pub fn load_pair_scorer(
    dir: &std::path::Path,
    device: &candle_core::Device,
    max_length: Option<usize>,
) -> Result<Box<dyn PairScorer>> {
    let config = read_config(dir)?;
    if is_qwen3(&config) {
        return Ok(Box::new(Qwen3Reranker::load(dir, device, max_length)?));
    }
    Ok(Box::new(CrossEncoder::load_with_max_length(
        dir, device, max_length,
    )?))
}
