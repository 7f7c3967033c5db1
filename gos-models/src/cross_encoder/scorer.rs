//! The cross-encoders behind gos-core's [`PairScorer`], and the loader that picks the family of
//! a model directory.
//!
//! Reranking stages (gos's cross-encoder stage, SkillFlow's shallow and deep rerankers,
//! SkillRouter's reranker) hold an `Arc<dyn PairScorer>`. BERT and XLM-RoBERTa sequence
//! classifiers ([`CrossEncoder`]) score with their classification head; a Qwen3-based reranker
//! scores with its yes/no next-token logits in its own prompt template.

use crate::cross_encoder::{CrossEncoder, DEFAULT_BATCH_SIZE, Qwen3Reranker};
use crate::model_dir::read_config;
use crate::qwen3::is_qwen3;
use gos_core::Result;
use gos_core::rerank::PairScorer;

/// BERT and XLM-RoBERTa sequence classifiers: [`CrossEncoder::score`] in batches of
/// [`DEFAULT_BATCH_SIZE`] pairs, or of the stage's batch size.
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

    fn score_pairs_batched(
        &self,
        query: &str,
        docs: &[&str],
        batch_size: usize,
    ) -> Result<Vec<f32>> {
        self.score(query, docs, batch_size)
    }
}

/// Load the pair scorer in `dir` (Hugging Face layout) onto `device` with an optional sequence
/// limit in tokens, choosing the implementation from the model's `config.json`: a Qwen3 model
/// (`model_type` `qwen3`) is a [`Qwen3Reranker`] with its default instruction and a 4,096-token
/// default limit; anything else a BERT or XLM-RoBERTa sequence classifier
/// ([`CrossEncoder::load_with_max_length`]) scored in batches sorted by length.
///
/// # Errors
/// [`gos_core::Error::Model`] naming the file when a file is missing or unreadable, or the
/// model family is not supported.
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
