//! The query encoder of dense and hybrid arms: [`gos_models::query_encoder`], the policy
//! `gos retrieve` uses, loaded only when some arm needs it.

use crate::error::{Error, Result};
use gos_core::Workspace;
use gos_core::index::dense::TextEmbedder;
use std::path::Path;
use std::sync::Arc;

/// Load the query encoder when `needed` (some arm seeds dense or hybrid); `None` otherwise.
/// The model is `model_dir` when given, else the model directory the workspace was built with;
/// `device` is a device name such as `cpu` or `cuda:0`, `precision` the query encoder's
/// ([`gos_models::dense::Precision`]).
///
/// # Errors
/// [`Error::MissingModel`] when the workspace has no vectors; [`Error::Encoder`] when the
/// device is unknown or the model directory cannot be loaded. Each message says what to do.
pub fn load_query_encoder(
    ws: &Workspace,
    needed: bool,
    model_dir: Option<&Path>,
    device: &str,
    precision: gos_models::dense::Precision,
) -> Result<Option<Arc<dyn TextEmbedder>>> {
    if !needed {
        return Ok(None);
    }
    if ws.dense().is_none() {
        return Err(Error::MissingModel(format!(
            "workspace {} has no skill vectors, so dense and hybrid seeds are unavailable; \
             rebuild it with `gos build LIBRARY -w {} --model-dir DIR` or use --seeds lexical",
            ws.dir().display(),
            ws.dir().display()
        )));
    }
    let device = gos_models::device::parse_device(device).map_err(|source| Error::Encoder {
        context: "choosing the device of the query encoder".into(),
        source,
    })?;
    gos_models::query_encoder_with(ws, model_dir, &device, precision).map_err(|source| {
        Error::Encoder {
            context: "loading the query encoder (set --model-dir or GOS_MODEL_DIR)".into(),
            source,
        }
    })
}
