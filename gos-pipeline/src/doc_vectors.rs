//! Document vectors of a dense stage: one unit vector per skill of the workspace for one
//! (model, text view), cached in the workspace.
//!
//! **Why a cache, not query-time encoding.** A dense stage that searches the whole library
//! needs every skill's vector. With the tests' tiny random models, embedding the 5,584 skills of
//! the real library takes seconds; with bge-base-en-v1.5 (110 M parameters) on a 2-core CPU it
//! takes tens of minutes, which no query can wait for. So the vectors are computed once, on
//! the first query, and kept in `WS/pipeline-vectors/<model>-<view>.vec` (the workspace's
//! [`Vectors`] format: a JSON header with model id, view key and one content hash per row,
//! then f32 rows). The file is written to a temporary name and renamed, so a reader never sees
//! half a file. A later run reuses every row whose text hash is unchanged and embeds only the
//! rest, so a rebuilt workspace with one changed package re-embeds one text. When the workspace
//! cannot be written (read-only), the vectors are used for this run only and the trace says so.
//! `gos build` replaces the whole workspace directory, so a rebuild starts without the cache.

use crate::view::DocView;
use gos_core::Workspace;
use gos_core::index::dense::TextEmbedder;
use gos_core::index::dense::vectors::{Vectors, text_hash};
use std::path::PathBuf;

/// Directory of the cache files inside a workspace.
pub const CACHE_DIR: &str = "pipeline-vectors";

/// Texts embedded per model call.
const BATCH: usize = 32;

/// What [`doc_vectors`] did, for the trace.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CacheReport {
    /// The cache file.
    pub path: PathBuf,
    /// Rows taken from the cache.
    pub reused: usize,
    /// Rows embedded now.
    pub embedded: usize,
    /// Why the file could not be written, when it could not.
    pub write_error: Option<String>,
}

/// A file name part from free text: ASCII letters, digits, `-`, `_` and `.`, others as `_`.
fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The view text of every skill of `ws`, in node order.
///
/// # Errors
/// Index errors reading stored bodies.
pub fn view_texts(ws: &Workspace, view: &DocView) -> gos_core::Result<Vec<String>> {
    (0..ws.len()).map(|i| view.text_of(ws, i)).collect()
}

/// Every skill's vector of `view` under `model`, from the cache where the text is unchanged,
/// embedded otherwise; the cache is rewritten when anything was embedded (module docs).
///
/// # Errors
/// Index errors reading bodies; model errors embedding.
pub fn doc_vectors(
    ws: &Workspace,
    model: &dyn TextEmbedder,
    view: &DocView,
) -> gos_core::Result<(Vectors, CacheReport)> {
    let texts = view_texts(ws, view)?;
    let hashes: Vec<String> = texts.iter().map(|t| text_hash(t)).collect();
    let dir = ws.dir().join(CACHE_DIR);
    let path = dir.join(format!(
        "{}-{}.vec",
        file_part(model.model_id()),
        file_part(&view.key())
    ));
    let view_key = view.key();
    let old = Vectors::read(&path)
        .ok()
        .filter(|v| v.header.dim == model.dim());
    let reusable = old
        .as_ref()
        .map(|v| v.reusable_rows(model.model_id(), &view_key))
        .unwrap_or_default();
    let mut rows: Vec<Option<Vec<f32>>> = hashes
        .iter()
        .map(|h| reusable.get(h.as_str()).map(|r| r.to_vec()))
        .collect();
    let missing: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].is_none()).collect();
    let reused = rows.len() - missing.len();
    for chunk in missing.chunks(BATCH) {
        let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
        for (&i, v) in chunk.iter().zip(model.embed_documents(&batch)?) {
            rows[i] = Some(v);
        }
    }
    let rows: Vec<Vec<f32>> = rows.into_iter().map(Option::unwrap_or_default).collect();
    let vectors = Vectors::from_rows(
        model.model_id().to_string(),
        view_key,
        model.dim(),
        rows,
        hashes,
    )?;
    let write_error = if missing.is_empty() && old.is_some() {
        None
    } else {
        write_atomically(&vectors, &dir, &path).err()
    };
    Ok((
        vectors,
        CacheReport {
            path,
            reused,
            embedded: missing.len(),
            write_error,
        },
    ))
}

/// Write `vectors` to a temporary file in `dir`, then rename it to `path`.
fn write_atomically(
    vectors: &Vectors,
    dir: &std::path::Path,
    path: &PathBuf,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let tmp = path.with_extension(format!("vec.tmp{}", std::process::id()));
    vectors.write(&tmp).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("renaming {} to {}: {e}", tmp.display(), path.display())
    })
}
