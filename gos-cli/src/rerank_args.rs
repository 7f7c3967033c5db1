//! Cross-encoder options of `gos retrieve` and `gos eval` mapped to the library's reranker.

pub use crate::args::CrossEncoderArgs;
use anyhow::{Context, Result};
use gos_core::rerank::{PairScorer, StageParams};
use gos_models::cross_encoder::CrossEncoder;
use std::path::PathBuf;
use std::sync::Arc;

impl CrossEncoderArgs {
    /// Stage parameters from the flags (their ranges are checked by the flags' parsers and
    /// again here).
    pub fn params(&self) -> Result<StageParams> {
        let p = StageParams {
            top: self.rerank_top,
            max_chars: self.rerank_max_chars,
            weight: self.rerank_weight,
            reserved_share: self.rerank_reserved_share,
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

    /// Load the cross-encoder (a BERT or XLM-RoBERTa sequence classifier,
    /// [`CrossEncoder::load`]) on the requested device and check the stage parameters.
    pub fn load(&self, what: &str) -> Result<(Arc<dyn PairScorer>, StageParams)> {
        let params = self.params()?;
        let dir = self.dir(what)?;
        let device = gos_models::device::parse_device(&self.device)?;
        let ce = CrossEncoder::load(dir, &device)
            .with_context(|| format!("loading the cross-encoder from {}", dir.display()))?;
        Ok((Arc::new(ce), params))
    }
}
