//! Options of the cross-encoder rerank stage, shared by `gos retrieve` and `gos eval`.

use anyhow::{Context, Result};
use gos_core::cross_encoder::{CrossEncoder, StageParams, stage};
use std::path::PathBuf;

/// Cross-encoder options (docs/cross-encoder.md).
#[derive(Debug, Clone, clap::Args)]
pub struct CrossEncoderArgs {
    /// Cross-encoder model directory in Hugging Face layout (config.json, tokenizer.json,
    /// model.safetensors): a BERT (ms-marco MiniLM) or XLM-RoBERTa (bge-reranker) sequence
    /// classifier.
    #[arg(long, env = "GOS_RERANKER_DIR")]
    pub reranker_dir: Option<PathBuf>,
    /// Candidates scored by the cross-encoder (the top R after field-evidence reranking).
    #[arg(long, default_value_t = stage::DEFAULT_TOP)]
    pub rerank_top: usize,
    /// Characters of each candidate's text (name, description, body) given to the
    /// cross-encoder.
    #[arg(long, default_value_t = stage::DEFAULT_MAX_CHARS)]
    pub rerank_max_chars: usize,
    /// Weight of the cross-encoder probability in the final score, in [0, 1]; the rest is the
    /// normalized graph and field-evidence score (1 = cross-encoder alone).
    #[arg(long, default_value_t = stage::DEFAULT_WEIGHT)]
    pub ce_weight: f64,
    /// Share of the bundle's positions kept for graph-added prerequisites that were in the
    /// bundle before the cross-encoder, in [0, 1].
    #[arg(long, default_value_t = stage::DEFAULT_RESERVED_SHARE)]
    pub ce_reserved_share: f64,
    /// Device of the neural models (query encoder and cross-encoder): cpu, cuda or cuda:N
    /// (cuda needs a build with `--features cuda`).
    #[arg(long, default_value = "cpu")]
    pub device: String,
}

impl CrossEncoderArgs {
    /// Stage parameters from the flags, checked.
    pub fn params(&self) -> Result<StageParams> {
        let p = StageParams {
            top: self.rerank_top,
            max_chars: self.rerank_max_chars,
            weight: self.ce_weight,
            reserved_share: self.ce_reserved_share,
            ..StageParams::default()
        };
        p.validate()?;
        Ok(p)
    }

    /// The reranker directory, or an error saying how to give one; `what` names the command
    /// or arm that asked for the cross-encoder.
    pub fn dir(&self, what: &str) -> Result<&PathBuf> {
        self.reranker_dir.as_ref().with_context(|| {
            format!(
                "{what} needs a cross-encoder reranker: pass --reranker-dir DIR or set \
                 GOS_RERANKER_DIR (see docs/cross-encoder.md)"
            )
        })
    }

    /// Load the cross-encoder on the requested device and check the stage parameters.
    pub fn load(&self, what: &str) -> Result<(CrossEncoder, StageParams)> {
        let params = self.params()?;
        let dir = self.dir(what)?;
        let device = gos_core::device::parse_device(&self.device)?;
        let ce = CrossEncoder::load(dir, &device)
            .with_context(|| format!("loading the cross-encoder from {}", dir.display()))?;
        Ok((ce, params))
    }
}
