//! The transition matrix `M` of the diffusion: built from a skill graph (edge weights, the
//! reverse and symmetric factors, optionally sub-stochastic rows) or from raw entries, stored
//! as a sprs CSR matrix, and read by the solvers through [`CsrArrays`].

use super::ReverseWeights;
use crate::graph::{EdgeType, SkillGraph};
use sprs::CsMatI;

/// The row-stochastic transition matrix `M` as a sprs CSR matrix (row = from node, `u32`
/// indices and row pointers, `f32` probabilities): row `u` holds its out-neighbours with
/// probabilities summing to 1, or nothing when `u` is dangling. Built once per workspace and
/// mode.
///
/// Memory: `8 * nnz + 4 * (nodes + 1)` bytes ([`TransitionMatrix::memory_bytes`]); the `u32`
/// indices limit it to 2^32 - 1 nodes and 2^32 - 1 nonzeros.
#[derive(Debug, Clone)]
pub struct TransitionMatrix {
    csr: CsMatI<f32, u32>,
    /// Sub-stochastic matrices only ([`TransitionMatrix::build_typed`] with
    /// [`TypeWeights::substochastic`](super::TypeWeights::substochastic)): per row, the share of the walk that restarts at the
    /// personalization vector instead of following an edge (`1 - row sum`, in [0, 1]).
    /// `None`: every non-empty row sums to 1.
    leak: Option<Vec<f32>>,
}

/// Borrowed CSR arrays of a [`TransitionMatrix`], read by the solvers' inner loops: row `u`
/// is `indices[indptr[u]..indptr[u + 1]]` with probabilities `data[..]`.
#[derive(Clone, Copy)]
pub(super) struct CsrArrays<'a> {
    indptr: &'a [u32],
    indices: &'a [u32],
    data: &'a [f32],
    leak: Option<&'a [f32]>,
}

impl<'a> CsrArrays<'a> {
    /// Out-neighbours of `u` with their transition probabilities.
    #[inline]
    pub(super) fn row(&self, u: usize) -> (&'a [u32], &'a [f32]) {
        let r = self.indptr[u] as usize..self.indptr[u + 1] as usize;
        (&self.indices[r.clone()], &self.data[r])
    }

    /// Number of out-neighbours of `u`.
    #[inline]
    pub(super) fn degree(&self, u: usize) -> usize {
        (self.indptr[u + 1] - self.indptr[u]) as usize
    }

    /// Share of `u`'s walk that returns to the personalization vector: 1 when `u` is
    /// dangling, `1 - row sum` in a sub-stochastic matrix, else 0.
    #[inline]
    pub(super) fn leak(&self, u: usize) -> f64 {
        if self.degree(u) == 0 {
            1.0
        } else {
            self.leak.map_or(0.0, |l| l[u] as f64)
        }
    }
}

impl TransitionMatrix {
    /// Build from `graph` with reverse factors `reverse` (see the module docs for the
    /// weights). Cost: O(nodes + edges log edges).
    ///
    /// # Panics
    /// When the graph has 2^32 or more nodes or stored nonzeros.
    pub fn build(graph: &SkillGraph, reverse: &ReverseWeights) -> Self {
        Self::build_scaled(graph, reverse, |_| 1.0, false)
    }

    /// [`TransitionMatrix::build`] with each edge's weight first multiplied by `forward(e)`
    /// (the typed factors of [`super::typed::TypeWeights`]).
    pub(super) fn build_scaled(
        graph: &SkillGraph,
        reverse: &ReverseWeights,
        forward: impl Fn(&crate::graph::SkillEdge) -> f64,
        substochastic: bool,
    ) -> Self {
        let mut entries: Vec<(u32, u32, f64)> = Vec::with_capacity(2 * graph.edge_count());
        for (u, v, e) in graph.indexed_edges() {
            let mut w = (e.weight * forward(e)).max(0.0);
            if matches!(e.edge_type, EdgeType::Semantic | EdgeType::Alternative) {
                w *= reverse.factor(e.edge_type);
            }
            if w == 0.0 {
                continue;
            }
            entries.push((u as u32, v as u32, w));
            let back = match e.edge_type {
                EdgeType::Semantic | EdgeType::Alternative => w,
                t => w * reverse.factor(t),
            };
            if back > 0.0 {
                entries.push((v as u32, u as u32, back));
            }
        }
        Self::from_entries(graph.node_count(), entries, substochastic)
    }

    /// Build from raw weighted entries `(from, to, weight)` over `n` nodes: duplicates are
    /// summed, non-positive weights dropped, rows normalized (the sum in `f64`, each
    /// probability rounded once to `f32`). Used by [`TransitionMatrix::build`] and by
    /// benchmarks on synthetic graphs.
    ///
    /// # Panics
    /// When an index is `>= n`, or `n` or the number of distinct entries does not fit in
    /// `u32`.
    pub fn from_weighted_entries(n: usize, entries: Vec<(u32, u32, f64)>) -> Self {
        Self::from_entries(n, entries, false)
    }

    /// [`TransitionMatrix::from_weighted_entries`]; with `substochastic`, a row whose weights
    /// sum below 1 keeps them as probabilities (the rest of its walk restarts, see
    /// [`TypeWeights::substochastic`](super::TypeWeights::substochastic)) and only rows summing above 1 are normalized.
    fn from_entries(n: usize, mut entries: Vec<(u32, u32, f64)>, substochastic: bool) -> Self {
        assert!(n <= u32::MAX as usize, "too many nodes for u32 indices");
        entries.retain(|e| e.2 > 0.0);
        entries.sort_unstable_by_key(|e| (e.0, e.1));
        let mut counts = vec![0usize; n + 1];
        let mut indices: Vec<u32> = Vec::with_capacity(entries.len());
        let mut weights: Vec<f64> = Vec::with_capacity(entries.len());
        let mut last: Option<(u32, u32)> = None;
        for (u, v, w) in entries {
            assert!((u as usize) < n && (v as usize) < n, "entry out of range");
            if last == Some((u, v)) {
                *weights.last_mut().expect("an entry was stored") += w;
                continue;
            }
            last = Some((u, v));
            indices.push(v);
            weights.push(w);
            counts[u as usize + 1] += 1;
        }
        assert!(
            indices.len() <= u32::MAX as usize,
            "too many nonzeros for u32 row pointers"
        );
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut data = vec![0.0f32; weights.len()];
        let mut leak = substochastic.then(|| vec![0.0f32; n]);
        for u in 0..n {
            let row = counts[u]..counts[u + 1];
            if row.is_empty() {
                continue;
            }
            let sum: f64 = weights[row.clone()].iter().sum();
            let scale = match leak.as_mut() {
                Some(leak) if sum < 1.0 => {
                    leak[u] = (1.0 - sum) as f32;
                    1.0
                }
                _ => sum,
            };
            for k in row {
                data[k] = (weights[k] / scale) as f32;
            }
        }
        let indptr: Vec<u32> = counts.into_iter().map(|c| c as u32).collect();
        // Rows sorted by column without duplicates and all indices in range, by construction:
        // sprs's structure check cannot fail.
        TransitionMatrix {
            csr: CsMatI::new((n, n), indptr, indices, data),
            leak,
        }
    }

    /// The matrix as a sprs CSR matrix (`nodes x nodes`, row = from node).
    pub fn csr(&self) -> &CsMatI<f32, u32> {
        &self.csr
    }

    /// The CSR arrays. The matrix is owned and never sliced, so its row pointers start at 0.
    pub(super) fn arrays(&self) -> CsrArrays<'_> {
        let (indptr, indices, data) = self.csr.view().into_raw_storage();
        CsrArrays {
            indptr,
            indices,
            data,
            leak: self.leak.as_deref(),
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.csr.rows()
    }

    /// Number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.csr.nnz()
    }

    /// Heap bytes of the matrix (row pointers, indices, probabilities, and the per-row
    /// restart shares of a sub-stochastic matrix).
    pub fn memory_bytes(&self) -> usize {
        (self.node_count() + 1) * std::mem::size_of::<u32>()
            + self.nnz() * (std::mem::size_of::<u32>() + std::mem::size_of::<f32>())
            + self
                .leak
                .as_ref()
                .map_or(0, |l| l.len() * std::mem::size_of::<f32>())
    }

    /// Share of `u`'s walk that restarts at the personalization vector instead of following
    /// an edge: 1 for a dangling node, `1 - row sum` for a row of a sub-stochastic matrix
    /// ([`TypeWeights::substochastic`](super::TypeWeights::substochastic)), else 0.
    ///
    /// # Panics
    /// When `u >= node_count()`.
    pub fn leak(&self, u: usize) -> f64 {
        self.arrays().leak(u)
    }

    /// Whether `u` has no out-neighbours (its mass returns to the personalization vector).
    ///
    /// # Panics
    /// When `u >= node_count()`.
    pub fn is_dangling(&self, u: usize) -> bool {
        self.arrays().degree(u) == 0
    }

    /// Out-neighbours of `u` (ascending) with their transition probabilities.
    ///
    /// # Panics
    /// When `u >= node_count()`.
    pub fn row(&self, u: usize) -> (&[u32], &[f32]) {
        self.arrays().row(u)
    }

    /// Dense row-stochastic matrix `M` (row = from, column = to); for tests and small graphs.
    pub fn to_dense_rows(&self) -> Vec<Vec<f64>> {
        let n = self.node_count();
        let mut m = vec![vec![0.0; n]; n];
        for (from, row) in m.iter_mut().enumerate() {
            let (cols, probs) = self.row(from);
            for (&to, &p) in cols.iter().zip(probs) {
                row[to as usize] += p as f64;
            }
        }
        m
    }
}
