//! The query encoder of dense and hybrid arms.
//!
//! Interim: this is a copy of the CLI's encoder policy (`gos-cli/src/encoder_arg.rs`, `load`)
//! so that the harness does not depend on the CLI; it goes away when `gos_core::Retriever`
//! owns the seed-source and encoder policy.

use crate::error::{Error, Result};
use gos_core::Workspace;
use gos_core::dense::SentenceEncoder;
use std::path::{Path, PathBuf};

/// Load the query encoder when `needed` (some arm seeds dense or hybrid); `None` otherwise.
/// The model is `model_dir` when given, else the model directory the workspace was built with;
/// `device` is a device name such as `cpu` or `cuda:0`.
///
/// # Errors
/// [`Error::MissingModel`] when the workspace has no vectors; [`Error::Encoder`] when the
/// device is unknown or the model directory cannot be loaded. Each message says what to do.
pub fn load_query_encoder(
    ws: &Workspace,
    needed: bool,
    model_dir: Option<&Path>,
    device: &str,
) -> Result<Option<SentenceEncoder>> {
    if !needed {
        return Ok(None);
    }
    let Some(dense) = ws.dense() else {
        return Err(Error::MissingModel(format!(
            "workspace {} has no skill vectors, so dense and hybrid seeds are unavailable; \
             rebuild it with `gos build LIBRARY -w {} --model-dir DIR` or use --seeds lexical",
            ws.dir().display(),
            ws.dir().display()
        )));
    };
    let dir: PathBuf = model_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(&dense.info.model_dir));
    let device = gos_core::device::parse_device(device).map_err(|source| Error::Encoder {
        context: "choosing the device of the query encoder".into(),
        source,
    })?;
    let encoder = SentenceEncoder::load(&dir, &device).map_err(|source| Error::Encoder {
        context: format!(
            "loading the query encoder from {} (set --model-dir or GOS_MODEL_DIR)",
            dir.display()
        ),
        source,
    })?;
    Ok(Some(encoder))
}
