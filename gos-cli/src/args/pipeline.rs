//! Arguments of retrieval pipelines: the models of a pipeline's stages (`--stage-model`), for
//! `gos retrieve --pipeline` and `gos eval`'s `pipeline:NAME` arms (docs/pipelines.md).

use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Model directories of pipeline stages.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StageModelArgs {
    /// Model directory of a pipeline stage, STAGE=DIR or PIPELINE.STAGE=DIR (repeatable):
    /// e.g. retrieve=models/bge-base-en-v1.5 shallow=models/ms-marco-MiniLM-L-6-v2
    /// deep=models/bge-reranker-v2-m3 (docs/pipelines.md lists each preset's stages).
    #[arg(long = "stage-model", value_name = "STAGE=DIR")]
    pub stage_model: Vec<String>,
}

impl StageModelArgs {
    /// The `STAGE=DIR` pairs as a map.
    ///
    /// # Errors
    /// When an item has no `=`, an empty name or an empty directory.
    pub fn models(&self) -> Result<BTreeMap<String, PathBuf>> {
        let mut out = BTreeMap::new();
        for item in &self.stage_model {
            match item.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                    out.insert(k.trim().to_string(), PathBuf::from(v.trim()));
                }
                _ => bail!(
                    "--stage-model expects STAGE=DIR (e.g. shallow=models/ms-marco-MiniLM-L-6-v2), got `{item}`"
                ),
            }
        }
        Ok(out)
    }
}
