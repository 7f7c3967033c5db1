//! Nearest-neighbour search over the skill embeddings: exact below a size threshold, HNSW
//! (instant-distance) above it.
//!
//! Measured on this 2-core machine (../shared/docs/toolchain-notes.md): exact top-50 over
//! 50,000 x 384 takes ~4.4 ms on one core, and instant-distance at its default ef recalled only
//! 0.38-0.79 of the top-50 on uniform random vectors (0.98-0.997 on clustered ones). Exact search
//! is therefore the default up to [`DEFAULT_HNSW_THRESHOLD`] vectors; docs/performance.md has the
//! measurements on real embeddings that back the threshold and [`HnswParams::default`].

use crate::error::{Error, Result};
use crate::index::dense::vectors::Vectors;
use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Collections with at least this many vectors get an HNSW index at build time; smaller ones
/// are searched exactly.
pub const DEFAULT_HNSW_THRESHOLD: usize = 100_000;

/// An L2-normalized embedding as an HNSW point; distance is `1 - cosine`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitVector(pub Vec<f32>);

impl Point for UnitVector {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot(&self.0, &other.0)
    }
}

/// Dot product of two equal-length slices (cosine similarity for unit vectors).
///
/// Eight independent partial sums let the compiler vectorize the loop (a single running f32
/// sum cannot be reordered, so it would stay scalar).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 8;
    let mut acc = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// HNSW construction and search parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HnswParams {
    /// Candidate list size while inserting (`efConstruction`; instant-distance default 100).
    pub ef_construction: usize,
    /// Candidate list size while searching (`ef`; also the most results one search returns).
    /// 200, above instant-distance's 100, because 100 recalled too little on 384-dim data.
    pub ef_search: usize,
    /// Seed of the level assignment, so builds are reproducible.
    pub seed: u64,
}

impl Default for HnswParams {
    fn default() -> Self {
        HnswParams {
            ef_construction: 100,
            ef_search: 200,
            seed: 0,
        }
    }
}

/// A built HNSW graph whose values are row numbers of the vectors file.
pub type Hnsw = HnswMap<UnitVector, u32>;

/// Build an HNSW index over all rows of `vectors` (parallel, rayon).
pub fn build_hnsw(vectors: &Vectors, params: &HnswParams) -> Hnsw {
    let points = (0..vectors.len())
        .map(|i| UnitVector(vectors.row(i).to_vec()))
        .collect();
    let values = (0..vectors.len() as u32).collect();
    Builder::default()
        .ef_construction(params.ef_construction)
        .ef_search(params.ef_search)
        .seed(params.seed)
        .build(points, values)
}

/// Write an HNSW index (CBOR).
///
/// # Errors
/// [`Error::Io`] naming `path`.
pub fn write_hnsw(hnsw: &Hnsw, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = std::io::BufWriter::new(file);
    ciborium::into_writer(hnsw, &mut w).map_err(|e| Error::Inconsistent {
        path: path.to_path_buf(),
        reason: format!("cannot encode the HNSW index: {e}"),
    })
}

/// Read an HNSW index written by [`write_hnsw`].
///
/// # Errors
/// [`Error::Io`] when unreadable, [`Error::Inconsistent`] when it does not decode.
pub fn read_hnsw(path: &Path) -> Result<Hnsw> {
    let file = std::fs::File::open(path).map_err(|e| Error::read(path, e))?;
    ciborium::from_reader(std::io::BufReader::new(file)).map_err(|e| Error::Inconsistent {
        path: path.to_path_buf(),
        reason: format!("cannot decode the HNSW index: {e}"),
    })
}

/// Check that every value of `hnsw` (a row number of the vectors file) is below `rows`, so
/// that search results can index the vectors and the manifest.
///
/// # Errors
/// [`Error::Inconsistent`] naming `path` (the HNSW file) when a value is out of range or a
/// point holds NaN or infinity.
pub fn check_hnsw_rows(hnsw: &Hnsw, rows: usize, path: &Path) -> Result<()> {
    let bad = |reason: String| {
        Err(Error::Inconsistent {
            path: path.to_path_buf(),
            reason,
        })
    };
    if let Some(v) = hnsw.values.iter().find(|&&v| v as usize >= rows) {
        return bad(format!(
            "the HNSW index names row {v} of a {rows}-row vectors file"
        ));
    }
    if let Some((id, _)) = hnsw
        .iter()
        .find(|(_, p)| p.0.iter().any(|v| !v.is_finite()))
    {
        return bad(format!(
            "point {} of the HNSW index holds a non-finite value",
            id.into_inner()
        ));
    }
    Ok(())
}

/// Exact top-`k` rows by cosine similarity to the unit vector `query`: `(row, cosine)` by
/// descending cosine, ties by row. O(N·dim).
pub fn exact_search(vectors: &Vectors, query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut scored: Vec<(usize, f32)> = (0..vectors.len())
        .map(|i| (i, dot(vectors.row(i), query)))
        .collect();
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k < scored.len() {
        if k == 0 {
            return Vec::new();
        }
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_by(order);
    scored
}

/// Approximate top-`k` through `hnsw` (at most `ef_search` results): `(row, cosine)` by
/// descending cosine.
pub fn hnsw_search(hnsw: &Hnsw, query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut search = Search::default();
    let q = UnitVector(query.to_vec());
    hnsw.search(&q, &mut search)
        .take(k)
        .map(|item| (*item.value as usize, 1.0 - item.distance))
        .collect()
}

/// The dense index of a workspace: the vectors, and an HNSW graph when one was built.
pub struct DenseIndex {
    /// Embeddings, row i = node i.
    pub vectors: Vectors,
    hnsw: Option<Hnsw>,
}

impl std::fmt::Debug for DenseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseIndex")
            .field("header", &self.vectors.header.model)
            .field("rows", &self.vectors.len())
            .field("hnsw", &self.hnsw.is_some())
            .finish()
    }
}

impl DenseIndex {
    /// An index over `vectors`, searched through `hnsw` when given, else exactly.
    pub fn new(vectors: Vectors, hnsw: Option<Hnsw>) -> Self {
        DenseIndex { vectors, hnsw }
    }

    /// True when searches go through HNSW.
    pub fn is_approximate(&self) -> bool {
        self.hnsw.is_some()
    }

    /// Top-`k` rows for the unit vector `query`: `(row, cosine)` by descending cosine.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(usize, f32)> {
        match &self.hnsw {
            Some(h) => hnsw_search(h, query, k),
            None => exact_search(&self.vectors, query, k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::dot;

    #[test]
    fn dot_matches_the_plain_sum_for_every_tail_length() {
        for n in [0usize, 1, 7, 8, 9, 17, 384] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f64 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (*x as f64) * (*y as f64))
                .sum();
            assert!((dot(&a, &b) as f64 - plain).abs() < 1e-4, "n = {n}");
        }
    }
}
