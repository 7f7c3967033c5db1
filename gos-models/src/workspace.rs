//! The models of a workspace: the query encoder its skill vectors were built with, and a
//! [`Retriever`] that uses it.
//!
//! A workspace built with `--model-dir` records its encoder's identity and directory in
//! `workspace.json` (`dense.model`, `dense.model_dir`). Query vectors must come from the same
//! model, so the retriever of such a workspace loads that encoder (or one from a directory the
//! caller names) and checks its identity ([`Retriever::with_embedder`]); then
//! [`gos_core::seed::SeedSource::Auto`] seeds hybrid. A workspace without vectors needs no
//! model and seeds lexically.

use crate::dense::load_sentence_encoder;
use candle_core::Device;
use gos_core::index::dense::TextEmbedder;
use gos_core::{Result, Retriever, Workspace};
use std::path::Path;
use std::sync::Arc;

/// The query encoder of `ws`: `None` when the workspace has no skill vectors; otherwise the
/// sentence encoder ([`load_sentence_encoder`]) loaded from `model_dir` when given, else from
/// the model directory the workspace recorded at build time, on `device`.
///
/// # Errors
/// [`gos_core::Error::Model`] when the model directory cannot be loaded (the message names
/// it).
pub fn query_encoder(
    ws: &Workspace,
    model_dir: Option<&Path>,
    device: &Device,
) -> Result<Option<Arc<dyn TextEmbedder>>> {
    let Some(dense) = ws.dense() else {
        return Ok(None);
    };
    let dir = model_dir.map_or_else(
        || Path::new(&dense.info.model_dir).to_path_buf(),
        Path::to_path_buf,
    );
    load_sentence_encoder(&dir, device).map(Some)
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
    let retriever = Retriever::new(ws);
    match query_encoder(retriever.workspace(), model_dir, device)? {
        Some(encoder) => retriever.with_embedder(encoder),
        None => Ok(retriever),
    }
}
