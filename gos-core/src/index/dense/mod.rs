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

    /// The cosine of skill `node` with the unit query vectors `queries`: the best over the
    /// vectors and the parts of the view, exact and for any node. [`DenseSet::search_many`]
    /// gives the same value to a node that is in the top-`k` of every part and query vector,
    /// and a lower one (or none) otherwise. `None` when `queries` is empty. Cost: one dot
    /// product of `dim` values per query vector and part.
    ///
    /// # Panics
    /// When `node` is not a row of the vectors.
    pub fn cosine(&self, queries: &[Vec<f32>], node: usize) -> Option<f32> {
        self.parts
            .iter()
            .flat_map(|(_, idx)| {
                let row = idx.vectors.row(node);
                queries.iter().map(move |q| search::dot(q, row))
            })
            .reduce(f32::max)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: [f32; 3]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    fn part(rows: Vec<Vec<f32>>) -> DenseIndex {
        let hashes = vec![String::new(); rows.len()];
        DenseIndex::new(
            Vectors::from_rows("m".into(), "v".into(), 3, rows, hashes).unwrap(),
            None,
        )
    }

    /// A sectioned set (card and body parts) of three skills: a skill's cosine is its best over
    /// the parts and the query vectors, the value `search_many` ranks it by when it is in every
    /// part's top-`k`, and exact for a node outside the top-`k` too.
    #[test]
    fn a_skills_cosine_is_its_best_over_parts_and_query_vectors() {
        let card = part(vec![
            unit([1.0, 0.0, 0.0]),
            unit([0.0, 1.0, 0.0]),
            unit([0.0, 0.0, 1.0]),
        ]);
        let body = part(vec![
            unit([0.0, 1.0, 0.0]),
            unit([1.0, 1.0, 0.0]),
            unit([0.0, 0.0, -1.0]),
        ]);
        let set = DenseSet {
            info: DenseInfo {
                model: "m".into(),
                model_dir: String::new(),
                view: TextView::Sectioned,
                dim: 3,
                hnsw: false,
            },
            parts: vec![(TextView::Card, card), (TextView::Body, body)],
        };
        let q = vec![unit([1.0, 0.0, 0.0])];
        // Skill 0: card 1.0; skill 1: body 1/sqrt(2); skill 2: 0 and -0.
        assert_eq!(set.cosine(&q, 0), Some(1.0));
        assert!((set.cosine(&q, 1).unwrap() - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(set.cosine(&q, 2), Some(0.0));
        for (node, cos) in set.search_many(&q, 3) {
            assert_eq!(set.cosine(&q, node), Some(cos));
        }
        // With k = 1 the search returns skill 0 alone (skill 1 tops the body part but is cut
        // from the merged list, skill 2 tops neither); their exact cosines are still known.
        assert_eq!(set.search_many(&q, 1), [(0, 1.0)]);
        assert!((set.cosine(&q, 1).unwrap() - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert_eq!(set.cosine(&q, 2), Some(0.0));
        // A second query vector raises skill 2 to its card's 1.0; no vectors, no cosine.
        let two = vec![q[0].clone(), unit([0.0, 0.0, 1.0])];
        assert_eq!(set.cosine(&two, 2), Some(1.0));
        assert_eq!(set.cosine(&[], 0), None);
    }
}
