//! Dense retrieval: the skill embeddings of a workspace, nearest-neighbour search over them,
//! and the interface of the model that embeds queries.
//!
//! - [`embedder`]: [`TextEmbedder`], the model-family-independent interface retrievers hold
//!   (the models themselves, a BERT-family sentence encoder and a Qwen3 embedder, are in the
//!   `gos-models` crate);
//! - [`vectors`]: the `vectors` file (f32 little-endian rows with a JSON header naming model,
//!   view, dimension and count);
//! - [`search`]: exact search below a size threshold, instant-distance HNSW above it;
//! - [`knn`]: every row's nearest other rows (blocked exact, or HNSW above a limit), for the
//!   build's semantic edges;
//! - [`view`]: which text of a skill is embedded, a [`TextView`] (docs/evaluation.md has the
//!   DEV measurements behind the default).

pub mod embedder;
pub mod knn;
pub mod search;
pub mod vectors;
pub mod view;

pub use embedder::{TextEmbedder, model_content_id, same_model};
pub use search::{DenseIndex, HnswParams};
pub use vectors::Vectors;
pub use view::TextView;

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `dense` entry of `workspace.json`: which encoder and view the vectors come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenseInfo {
    /// Encoder identity ([`TextEmbedder::model_id`]); a query encoder must have the same.
    pub model: String,
    /// Absolute model directory used at build time: the default for queries.
    pub model_dir: String,
    /// Text view embedded.
    pub view: TextView,
    /// Embedding dimension.
    pub dim: usize,
    /// Whether HNSW files were written (collections at or above the build's threshold).
    pub hnsw: bool,
}

/// File name of the vectors of one single-text view (`vectors-card.bin`).
pub fn vectors_file(part: TextView) -> String {
    format!("vectors-{}.bin", part.as_str())
}

/// File name of the HNSW index of one single-text view (`hnsw-card.cbor`).
pub fn hnsw_file(part: TextView) -> String {
    format!("hnsw-{}.cbor", part.as_str())
}

/// The dense side of an open workspace: one [`DenseIndex`] per part of the view.
#[derive(Debug)]
pub struct DenseSet {
    /// What was embedded, with which model.
    pub info: DenseInfo,
    parts: Vec<(TextView, DenseIndex)>,
}

impl DenseSet {
    /// Load the vectors (and HNSW files when `info.hnsw`) of workspace `dir`, checking that
    /// each file has `nodes` rows of `info.dim` values from `info.model`.
    ///
    /// # Errors
    /// I/O and decoding errors naming the file; [`Error::Inconsistent`] when a file disagrees
    /// with `workspace.json` or the manifest.
    pub fn open(dir: &Path, info: DenseInfo, nodes: usize) -> Result<Self> {
        let mut parts = Vec::new();
        for &part in info.view.parts() {
            let path = dir.join(vectors_file(part));
            let v = Vectors::read(&path)?;
            if !same_model(&v.header.model, &info.model)
                || v.header.dim != info.dim
                || v.len() != nodes
            {
                return Err(Error::Inconsistent {
                    path,
                    reason: format!(
                        "{} rows of {} from {}, expected {nodes} rows of {} from {}",
                        v.len(),
                        v.header.dim,
                        v.header.model,
                        info.dim,
                        info.model
                    ),
                });
            }
            let hnsw = if info.hnsw {
                let path = dir.join(hnsw_file(part));
                let h = search::read_hnsw(&path)?;
                search::check_hnsw_rows(&h, nodes, &path)?;
                Some(h)
            } else {
                None
            };
            parts.push((part, DenseIndex::new(v, hnsw)));
        }
        Ok(DenseSet { info, parts })
    }

    /// Top-`k` skills for the unit query vector: `(node, cosine)` by descending cosine, ties by
    /// node. With several parts (the sectioned view) a node's score is its best part's cosine.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        if let [(_, only)] = self.parts.as_slice() {
            return only.search(query, k);
        }
        let mut best: std::collections::HashMap<usize, f32> = std::collections::HashMap::new();
        for (_, idx) in &self.parts {
            for (node, cos) in idx.search(query, k) {
                let e = best.entry(node).or_insert(f32::MIN);
                *e = e.max(cos);
            }
        }
        let mut out: Vec<(usize, f32)> = best.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }

    /// [`DenseSet::search`] for several query vectors: a node's score is its best cosine over
    /// all of them.
    pub fn search_many(&self, queries: &[Vec<f32>], k: usize) -> Vec<(usize, f32)> {
        if let [only] = queries {
            return self.search(only, k);
        }
        let mut best: std::collections::HashMap<usize, f32> = std::collections::HashMap::new();
        for q in queries {
            for (node, cos) in self.search(q, k) {
                let e = best.entry(node).or_insert(f32::MIN);
                *e = e.max(cos);
            }
        }
        let mut out: Vec<(usize, f32)> = best.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }

    /// True when searches go through HNSW.
    pub fn is_approximate(&self) -> bool {
        self.parts.iter().any(|(_, i)| i.is_approximate())
    }
}

/// Split a task text into passages for per-passage query embeddings: paragraphs and list
/// items, long ones cut at sentence ends so each passage stays under about
/// [`QUERY_PASSAGE_CHARS`]; passages shorter than 20 characters are merged into the next. A
/// text that is one short passage yields nothing (the whole-text vector covers it).
pub fn query_passages(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| {
        let t = current.trim();
        if t.chars().count() >= 20 {
            out.push(t.to_string());
            current.clear();
        }
    };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            flush(&mut current, &mut out);
            continue;
        }
        for sentence in line.split_inclusive(". ") {
            if current.chars().count() + sentence.chars().count() > QUERY_PASSAGE_CHARS {
                flush(&mut current, &mut out);
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(sentence.trim());
        }
        if line.starts_with(['-', '*']) || line.ends_with(':') {
            continue;
        }
        flush(&mut current, &mut out);
    }
    flush(&mut current, &mut out);
    if out.len() <= 1 { Vec::new() } else { out }
}

/// Target passage length of [`query_passages`], in characters.
pub const QUERY_PASSAGE_CHARS: usize = 300;
