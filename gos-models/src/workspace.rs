//! The models of a workspace: the query encoder its skill vectors were built with, and a
//! [`Retriever`] that uses it.
//!
//! A workspace built with `--model-dir` records its encoder's identity and directory in
//! `workspace.json` (`dense.model`, `dense.model_dir`). Query vectors must come from the same
//! model, so the retriever of such a workspace loads that encoder (or one from a directory the
//! caller names) and checks its identity ([`Retriever::with_embedder`]); then
//! [`gos_core::seed::SeedSource::Auto`] seeds hybrid. A workspace without vectors needs no
//! model and seeds lexically.

use crate::dense::{Precision, SentenceEncoder};
use candle_core::Device;
use gos_core::index::dense::TextEmbedder;
use gos_core::{Result, Retriever, Workspace};
use std::path::Path;
use std::sync::Arc;

/// The query encoder of `ws`: `None` when the workspace has no skill vectors; otherwise the
/// sentence encoder ([`SentenceEncoder::load_with`]) loaded from `model_dir` when given, else
/// from the model directory the workspace recorded at build time, on `device`, in the
/// precision `GOS_QUERY_PRECISION` names ([`Precision::from_env`]; f32 unless it says `int8`).
///
/// # Errors
/// [`gos_core::Error::Model`] when the model directory cannot be loaded (the message names
/// it); [`gos_core::Error::InvalidOption`] when `GOS_QUERY_PRECISION` is neither `f32` nor
/// `int8`, or asks for int8 on a GPU.
pub fn query_encoder(
    ws: &Workspace,
    model_dir: Option<&Path>,
    device: &Device,
) -> Result<Option<Arc<dyn TextEmbedder>>> {
    query_encoder_with(ws, model_dir, device, Precision::from_env()?)
}

/// [`query_encoder`] in the given `precision` (`gos --query-precision`), whatever the
/// environment says.
///
/// # Errors
/// [`gos_core::Error::Model`] when the model directory cannot be loaded (the message names
/// it); [`gos_core::Error::InvalidOption`] when int8 is asked for on a GPU.
pub fn query_encoder_with(
    ws: &Workspace,
    model_dir: Option<&Path>,
    device: &Device,
    precision: Precision,
) -> Result<Option<Arc<dyn TextEmbedder>>> {
    let Some(dense) = ws.dense() else {
        return Ok(None);
    };
    let dir = model_dir.map_or_else(
        || Path::new(&dense.info.model_dir).to_path_buf(),
        Path::to_path_buf,
    );
    let encoder: Arc<dyn TextEmbedder> =
        Arc::new(SentenceEncoder::load_with(&dir, device, precision)?);
    Ok(Some(encoder))
}

/// The retriever `gos retrieve` uses: over `ws` (a [`Workspace`] or an `Arc<Workspace>`), with
/// the workspace's query encoder ([`query_encoder`]) when it has skill vectors, so
/// [`gos_core::seed::SeedSource::Auto`] seeds hybrid; without vectors it is
/// [`Retriever::new`].
///
/// # Errors
/// [`gos_core::Error::Model`] when the model directory cannot be loaded (the message names
/// it; pass another `model_dir`, or use [`Retriever::new`] for lexical seeds);
/// [`gos_core::Error::InvalidOption`] when the model is not the one the vectors came from.
pub fn retriever(
    ws: impl Into<Arc<Workspace>>,
    model_dir: Option<&Path>,
    device: &Device,
) -> Result<Retriever> {
    retriever_with(ws, model_dir, device, Precision::from_env()?)
}

/// [`retriever`] with its query encoder in the given `precision` ([`query_encoder_with`]).
///
/// # Errors
/// As [`retriever`].
pub fn retriever_with(
    ws: impl Into<Arc<Workspace>>,
    model_dir: Option<&Path>,
    device: &Device,
    precision: Precision,
) -> Result<Retriever> {
    let retriever = Retriever::new(ws);
    match query_encoder_with(retriever.workspace(), model_dir, device, precision)? {
        Some(encoder) => retriever.with_embedder(encoder),
        None => Ok(retriever),
    }
}
