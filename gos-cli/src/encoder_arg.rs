//! The query encoder of `gos retrieve` and `gos eval`: loaded from `--model-dir` /
//! `GOS_MODEL_DIR`, else from the model directory the workspace was built with.

use anyhow::{Context, Result, bail};
use gos_core::dense::SentenceEncoder;
use gos_core::seed::SeedSource;
use gos_core::{RetrieveOptions, Workspace};
use std::path::{Path, PathBuf};

/// Dense and hybrid seeding options, shared by `gos retrieve` and `gos eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct DenseArgs {
    /// Fusion of hybrid seeds: weighted:W (W = weight of the min-max normalized BM25 list,
    /// the rest for the dense list), rrf (reciprocal rank fusion, k = 60) or rrf:K.
    #[arg(long, default_value = "weighted:0.7")]
    pub fusion: String,
    /// Weight of the dense (cosine) evidence in the final score, next to graph 1.0 and BM25 1.0.
    #[arg(long, default_value_t = gos_core::rerank::DEFAULT_DENSE_WEIGHT)]
    pub dense_weight: f64,
    /// Also embed each passage of the task (paragraphs, list items) and score a skill by its
    /// best cosine over them.
    #[arg(long)]
    pub query_chunks: bool,
    /// Sentence encoder for the query (default: the model the workspace was built with).
    #[arg(long, env = "GOS_MODEL_DIR")]
    pub model_dir: Option<std::path::PathBuf>,
}

impl DenseArgs {
    /// Set the fusion, dense weight and query passages of `opts`.
    ///
    /// # Errors
    /// An invalid `--fusion`.
    pub fn apply(&self, opts: &mut RetrieveOptions) -> Result<()> {
        opts.seeds.fusion = self.fusion.parse()?;
        opts.seeds.query_chunks = self.query_chunks;
        opts.rerank.dense = self.dense_weight;
        Ok(())
    }
}

/// The seed source to use: the one asked for, else hybrid when the workspace has vectors and
/// lexical when it does not.
pub fn seed_source(asked: Option<&str>, ws: &Workspace) -> Result<SeedSource> {
    match asked {
        Some(s) => Ok(s.parse()?),
        None if ws.dense.is_some() => Ok(SeedSource::Hybrid),
        None => Ok(SeedSource::Lexical),
    }
}

/// Load the query encoder when `needed`; `None` otherwise.
///
/// # Errors
/// The workspace has no vectors, the model directory cannot be loaded, or the device is
/// unknown; each message says what to do.
pub fn load(
    ws: &Workspace,
    needed: bool,
    model_dir: Option<&Path>,
    device: &str,
) -> Result<Option<SentenceEncoder>> {
    if !needed {
        return Ok(None);
    }
    let Some(dense) = &ws.dense else {
        bail!(
            "workspace {} has no skill vectors, so dense and hybrid seeds are unavailable; \
             rebuild it with `gos build LIBRARY -w {} --model-dir DIR` or use --seeds lexical",
            ws.dir().display(),
            ws.dir().display()
        );
    };
    let dir: PathBuf = model_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(&dense.info.model_dir));
    let device = gos_core::device::parse_device(device)?;
    let encoder = SentenceEncoder::load(&dir, &device).with_context(|| {
        format!(
            "loading the query encoder from {} (set --model-dir or GOS_MODEL_DIR)",
            dir.display()
        )
    })?;
    Ok(Some(encoder))
}
