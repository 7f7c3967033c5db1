//! Dense and hybrid seeding options of `gos retrieve` and `gos eval` mapped to library options.

pub use crate::args::DenseArgs;
use anyhow::Result;
use gos_core::RetrieveOptions;

impl DenseArgs {
    /// Set the fusion, dense weight and query passages of `opts`.
    ///
    /// # Errors
    /// None today; kept fallible for options checked against the workspace.
    pub fn apply(&self, opts: &mut RetrieveOptions) -> Result<()> {
        opts.seeds.fusion = self.fusion;
        opts.seeds.query_chunks = self.query_chunks;
        opts.rerank.dense = self.dense_weight;
        Ok(())
    }
}

/// Load the query encoder of `ws` when `needed` (some evaluation arm seeds dense or hybrid);
/// `None` otherwise.
///
/// # Errors
/// The workspace has no vectors, the model directory cannot be loaded, or the device is
/// unknown; each message says what to do.
pub fn load(
    ws: &gos_core::Workspace,
    needed: bool,
    model_dir: Option<&std::path::Path>,
    device: &str,
) -> Result<Option<gos_core::dense::SentenceEncoder>> {
    use anyhow::Context;
    if !needed {
        return Ok(None);
    }
    let Some(dense) = ws.dense() else {
        anyhow::bail!(
            "workspace {} has no skill vectors, so dense and hybrid seeds are unavailable; \
             rebuild it with `gos build LIBRARY -w {} --model-dir DIR` or use --seeds lexical",
            ws.dir().display(),
            ws.dir().display()
        );
    };
    let dir = model_dir.map_or_else(
        || std::path::PathBuf::from(&dense.info.model_dir),
        std::path::Path::to_path_buf,
    );
    let device = gos_core::device::parse_device(device)?;
    let encoder = gos_core::dense::SentenceEncoder::load(&dir, &device).with_context(|| {
        format!(
            "loading the query encoder from {} (set --model-dir or GOS_MODEL_DIR)",
            dir.display()
        )
    })?;
    Ok(Some(encoder))
}
