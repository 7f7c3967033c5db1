//! Personalized PageRank over a sparse, row-stochastic transition matrix with type-specific
//! reverse mass ("reverse-aware" diffusion, [P] §3.4).
//!
//! Transition matrix ([C] `retrieval.py::build_transition_matrix`, with the fixes of §7.17):
//! every stored edge `u -> v` of weight `w` adds `w` to `M[u, v]` (forward mass); directed
//! types (dependency, workflow) also add `w * gamma_type` to `M[v, u]` (reverse mass), so a
//! seeded consumer sends relevance back to its prerequisites. Semantic and alternative
//! relations are symmetric, so they add `w` both ways whatever direction was stored (the
//! reference stored them directed and let the emitted direction change the diffusion). Rows
//! are normalized to sum 1. A row with no out-weight (dangling node) sends its mass back to the
//! personalization vector instead of keeping it in a self loop (the reference's self loop lets
//! sinks absorb mass).
//!
//! Iteration ([C] `personalized_pagerank`): `s' = a p + (1 - a) (M^T s + d(s) p)` where `a` is
//! the **restart probability** (0.2 by default; the reference calls it `PPR_DAMPING`, which is
//! the teleport probability, i.e. d = 0.8 in the textbook convention), `d(s)` the mass on
//! dangling nodes; stop when the L1 change is at most `tolerance` (1e-6) or after `max_iter`
//! (50) iterations. Cost per iteration: O(nodes + nonzeros).

use crate::graph::{EdgeType, SkillGraph};
use sprs::{CsMat, TriMat};

/// Reverse-mass factors per relation type. Defaults are the reference's hard-coded values
/// (`retrieval.py`): dependency 1.0, workflow 0.5, semantic 0.2, alternative 0.1. Only the
/// directed types (dependency, workflow) use them; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReverseWeights {
    /// Reverse factor of dependency edges, in [0, 1].
    pub dependency: f64,
    /// Reverse factor of workflow edges, in [0, 1].
    pub workflow: f64,
    /// Recorded for completeness: semantic edges are symmetric.
    pub semantic: f64,
    /// Recorded for completeness: alternative edges are symmetric.
    pub alternative: f64,
}

impl Default for ReverseWeights {
    fn default() -> Self {
        ReverseWeights {
            dependency: 1.0,
            workflow: 0.5,
            semantic: 0.2,
            alternative: 0.1,
        }
    }
}

impl ReverseWeights {
    /// All reverse factors zero: forward-only diffusion.
    pub const FORWARD_ONLY: ReverseWeights = ReverseWeights {
        dependency: 0.0,
        workflow: 0.0,
        semantic: 0.0,
        alternative: 0.0,
    };

    fn factor(&self, t: EdgeType) -> f64 {
        match t {
            EdgeType::Dependency => self.dependency,
            EdgeType::Workflow => self.workflow,
            EdgeType::Semantic => self.semantic,
            EdgeType::Alternative => self.alternative,
        }
    }
}

/// Power-iteration parameters. Defaults: restart probability 0.2, tolerance 1e-6 (L1), at
/// most 50 iterations ([C] `Settings`: `PPR_DAMPING`, `PPR_TOLERANCE`, `PPR_MAX_ITER`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PprParams {
    /// Probability of jumping back to the personalization vector at each step, in (0, 1].
    pub restart_prob: f64,
    /// L1 change under which the iteration stops.
    pub tolerance: f64,
    /// Iteration cap.
    pub max_iter: usize,
}

impl Default for PprParams {
    fn default() -> Self {
        PprParams {
            restart_prob: 0.2,
            tolerance: 1e-6,
            max_iter: 50,
        }
    }
}

/// The transposed transition matrix `M^T` in CSR form (row `v` lists the nodes that send mass
/// to `v`), plus the dangling-node mask. Built once per workspace and mode.
#[derive(Debug, Clone)]
pub struct TransitionMatrix {
    mt: CsMat<f64>,
    dangling: Vec<bool>,
}

impl TransitionMatrix {
    /// Build from `graph` with reverse factors `reverse`. Cost: O(nodes + edges log edges).
    pub fn build(graph: &SkillGraph, reverse: &ReverseWeights) -> Self {
        let n = graph.node_count();
        let mut entries: Vec<(usize, usize, f64)> = Vec::new();
        for (u, v, e) in graph.indexed_edges() {
            let w = e.weight.max(0.0);
            if w == 0.0 {
                continue;
            }
            entries.push((u, v, w));
            let back = match e.edge_type {
                EdgeType::Semantic | EdgeType::Alternative => w,
                t => w * reverse.factor(t),
            };
            if back > 0.0 {
                entries.push((v, u, back));
            }
        }
        let mut out_sum = vec![0.0f64; n];
        for &(u, _, w) in &entries {
            out_sum[u] += w;
        }
        let mut tri = TriMat::with_capacity((n, n), entries.len());
        for &(u, v, w) in &entries {
            tri.add_triplet(v, u, w / out_sum[u]);
        }
        TransitionMatrix {
            mt: tri.to_csr(),
            dangling: out_sum.iter().map(|&s| s == 0.0).collect(),
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.dangling.len()
    }

    /// Number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.mt.nnz()
    }

    /// Dense row-stochastic matrix `M` (row = from, column = to); for tests and small graphs.
    pub fn to_dense_rows(&self) -> Vec<Vec<f64>> {
        let n = self.node_count();
        let mut m = vec![vec![0.0; n]; n];
        for (to, row) in self.mt.outer_iterator().enumerate() {
            for (from, &p) in row.iter() {
                m[from][to] += p;
            }
        }
        m
    }
}

/// Result of one diffusion.
#[derive(Debug, Clone, PartialEq)]
pub struct PprResult {
    /// Score per node; non-negative, sums to 1 when the personalization vector is non-zero.
    pub scores: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// L1 change of the last iteration.
    pub residual: f64,
}

/// Personalized PageRank by power iteration (see the module docs for the update).
///
/// `personalization` has one non-negative entry per node; it is normalized to sum 1. An
/// all-zero vector gives all-zero scores.
///
/// # Panics
/// When `personalization.len()` differs from the matrix size.
pub fn personalized_pagerank(
    m: &TransitionMatrix,
    personalization: &[f64],
    params: &PprParams,
) -> PprResult {
    let n = m.node_count();
    assert_eq!(personalization.len(), n, "personalization length");
    let total: f64 = personalization.iter().sum();
    if total <= 0.0 {
        return PprResult {
            scores: vec![0.0; n],
            iterations: 0,
            residual: 0.0,
        };
    }
    let p: Vec<f64> = personalization.iter().map(|x| x / total).collect();
    let a = params.restart_prob;
    let mut s = p.clone();
    let mut next = vec![0.0; n];
    let mut iterations = 0;
    let mut residual = f64::INFINITY;
    while iterations < params.max_iter {
        iterations += 1;
        let dangling_mass: f64 = s
            .iter()
            .zip(&m.dangling)
            .filter(|(_, d)| **d)
            .map(|(x, _)| x)
            .sum();
        for (v, row) in m.mt.outer_iterator().enumerate() {
            let inflow: f64 = row.iter().map(|(u, &w)| w * s[u]).sum();
            next[v] = a * p[v] + (1.0 - a) * (inflow + dangling_mass * p[v]);
        }
        residual = next.iter().zip(&s).map(|(x, y)| (x - y).abs()).sum();
        std::mem::swap(&mut s, &mut next);
        if residual <= params.tolerance {
            break;
        }
    }
    let sum: f64 = s.iter().sum();
    if sum > 0.0 {
        s.iter_mut().for_each(|x| *x /= sum);
    }
    PprResult {
        scores: s,
        iterations,
        residual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{EdgeProvenance, SkillEdge};

    fn chain() -> SkillGraph {
        let mut g = SkillGraph::new(["read_csv", "analyze_trend", "plot_chart"].map(String::from));
        for (s, t, ty, w) in [
            ("read_csv", "analyze_trend", EdgeType::Dependency, 1.0),
            ("analyze_trend", "plot_chart", EdgeType::Workflow, 0.8),
        ] {
            g.add_edge(SkillEdge {
                source: s.into(),
                target: t.into(),
                edge_type: ty,
                weight: w,
                provenance: EdgeProvenance::Io,
                evidence: String::new(),
            });
        }
        g
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < tol)
    }

    /// Hand computation (reference notes §2.7 golden vector): rows of M are
    /// [0,1,0], [1/1.8, 0, 0.8/1.8], [0,1,0]; the fixed point of
    /// s = 0.2 e_2 + 0.8 M^T s is s = (20/81, 45/81, 16/81).
    #[test]
    fn reverse_aware_matches_hand_computed_three_node_example() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let dense = m.to_dense_rows();
        assert!(close(&dense[1], &[1.0 / 1.8, 0.0, 0.8 / 1.8], 1e-12));
        assert!(close(&dense[2], &[0.0, 1.0, 0.0], 1e-12));
        let r = personalized_pagerank(&m, &[0.0, 1.0, 0.0], &PprParams::default());
        assert!(
            close(&r.scores, &[20.0 / 81.0, 45.0 / 81.0, 16.0 / 81.0], 1e-5),
            "{:?}",
            r.scores
        );
        assert!(close(&r.scores, &[0.24691, 0.55556, 0.19753], 1e-5));
    }

    /// Forward only: read_csv gets nothing; plot_chart is dangling and returns its mass to
    /// the seed, so s_B = 0.2 + 0.8 s_C and s_C = 0.8 s_B: s = (0, 5/9, 4/9).
    #[test]
    fn forward_only_never_reaches_the_prerequisite() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::FORWARD_ONLY);
        let r = personalized_pagerank(&m, &[0.0, 1.0, 0.0], &PprParams::default());
        assert_eq!(r.scores[0], 0.0);
        assert!(
            close(&r.scores, &[0.0, 5.0 / 9.0, 4.0 / 9.0], 1e-5),
            "{:?}",
            r.scores
        );
    }

    #[test]
    fn scores_are_a_distribution_and_zero_personalization_gives_zero() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let r = personalized_pagerank(&m, &[3.0, 0.0, 1.0], &PprParams::default());
        assert!((r.scores.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(r.scores.iter().all(|&x| x >= 0.0));
        let z = personalized_pagerank(&m, &[0.0; 3], &PprParams::default());
        assert_eq!(z.scores, vec![0.0; 3]);
    }
}
