//! Personalized PageRank over a sparse, row-stochastic transition matrix with type-specific
//! reverse mass ("reverse-aware" diffusion, \[P\] §3.4).
//!
//! Transition matrix (\[C\] `retrieval.py::build_transition_matrix`, with the fixes of §7.17):
//! every stored edge `u -> v` of weight `w` adds `w` to `M[u, v]` (forward mass); directed
//! types (dependency, workflow) also add `w * gamma_type` to `M[v, u]` (reverse mass), so a
//! seeded consumer sends relevance back to its prerequisites. Semantic and alternative
//! relations are symmetric, so they add `w * gamma_type` both ways whatever direction was
//! stored (the reference stored them directed and let the emitted direction change the
//! diffusion). Their factors are 0 by default: the deterministic semantic and alternative
//! edges of issue 22 are built for reasons, views and one-slot-per-group bundles, and
//! diffusion uses them only once cross-validation has chosen their weights. Alternative edges
//! are never dependency edges, so they carry no prerequisite mass in one-hop expansion or in
//! reasons ([`crate::graph::prerequisite`]). Rows
//! are normalized to sum 1. A row with no out-weight (dangling node) sends its mass back to the
//! personalization vector instead of keeping it in a self loop (the reference's self loop lets
//! sinks absorb mass). Optionally ([`TypeWeights::substochastic`]) a row whose weights sum
//! below 1 keeps them, and its shortfall (its *leak*, [`TransitionMatrix::leak`]) returns to
//! the personalization vector the same way, so an edge's weight reads as a confidence.
//!
//! The fixed point is `s = a p + (1 - a) (M^T s + d(s) p)` where `a` is the **restart
//! probability** (0.2 by default; the reference calls it `PPR_DAMPING`, which is the teleport
//! probability, i.e. d = 0.8 in the textbook convention) and `d(s)` the mass on dangling nodes
//! (with sub-stochastic rows, `sum_u leak_u s_u`).
//! Two solvers reach it:
//!
//! - `power`: exact power iteration (\[C\] `personalized_pagerank`), stopping when the L1
//!   change is at most `tolerance` (1e-6) or after `max_iter` (50) iterations. Cost per
//!   iteration O(nodes + nonzeros). The reference for tests and the default of `gos eval`.
//! - `push`: local forward push (Andersen, Chung and Lang 2006, "Local graph partitioning
//!   using PageRank vectors"), which only touches nodes whose residual exceeds a threshold.
//!   Its result is below the exact fixed point everywhere and the L1 gap equals the residual
//!   mass it returns, so every call states its own error bound.
//!
//! Storage ([`TransitionMatrix`]): `M` as a sprs CSR matrix (`sprs::CsMatI<f32, u32>`: `u32`
//! column indices and row pointers, `f32` probabilities; 8 bytes per nonzero plus 4 per node).
//! Both solvers read its CSR arrays and accumulate in `f64`.

mod matrix;
mod power;
mod push;
mod typed;

use matrix::CsrArrays;
pub use matrix::TransitionMatrix;
pub use power::personalized_pagerank;
pub use push::push_pagerank;
pub use typed::TypeWeights;

use crate::error::{Error, Result};
use crate::graph::EdgeType;
use std::str::FromStr;

/// Per-type factors of the transition matrix. For the directed types (dependency, workflow)
/// the factor scales the reverse mass (forward mass is the edge weight); for the symmetric
/// types (semantic, alternative) it scales the mass in both directions. Defaults: dependency
/// 1.0 and workflow 0.5, the reference's reverse factors (`retrieval.py`); semantic 0 and
/// alternative 0 (the reference's 0.2 and 0.1 applied to its LLM relations; gos's
/// deterministic semantic and alternative edges stay out of diffusion until cross-validation
/// sets their weights, so retrieval over a workspace that has them is unchanged).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReverseWeights {
    /// Reverse factor of dependency edges, in [0, 1].
    pub dependency: f64,
    /// Reverse factor of workflow edges, in [0, 1].
    pub workflow: f64,
    /// Factor of semantic edges, both directions, in [0, 1].
    pub semantic: f64,
    /// Factor of alternative edges, both directions, in [0, 1].
    pub alternative: f64,
}

impl Default for ReverseWeights {
    fn default() -> Self {
        ReverseWeights {
            dependency: 1.0,
            workflow: 0.5,
            semantic: 0.0,
            alternative: 0.0,
        }
    }
}

impl ReverseWeights {
    /// Reverse factors zero: forward-only diffusion (symmetric types off as by default).
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

/// Diffusion parameters. Defaults: restart probability 0.2, tolerance 1e-6 (L1), at most 50
/// iterations (\[C\] `Settings`: `PPR_DAMPING`, `PPR_TOLERANCE`, `PPR_MAX_ITER`); push threshold
/// 1e-6 per unit of out-degree, the exact solver's own tolerance (docs/performance.md,
/// "The push threshold": on the real library every DEV metric equals the exact solver's, and
/// the bench keeps the exact top 50 at 1e-6 on every synthetic graph up to 1M nodes; 1e-9,
/// the threshold before semantic edges entered the lexical walk, cost 1.1 ms a query there).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PprParams {
    /// Probability of jumping back to the personalization vector at each step, in (0, 1].
    pub restart_prob: f64,
    /// L1 change under which the iteration stops.
    pub tolerance: f64,
    /// Iteration cap.
    pub max_iter: usize,
    /// Solver used by retrieval.
    pub method: PprMethod,
    /// Push threshold: a node is pushed while its residual is at least `push_epsilon` times
    /// its number of out-neighbours (at least 1). Smaller is more exact and slower; the work
    /// is at most `1 / (restart_prob * push_epsilon)` edge visits (ACL 2006, Lemma 2).
    pub push_epsilon: f64,
}

/// Which solver computes a diffusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum PprMethod {
    /// Power iteration to an L1 change under the tolerance (`personalized_pagerank`).
    Exact,
    /// Local forward push; its leftover residual is its L1 error (`push_pagerank`).
    #[default]
    Push,
}

impl PprMethod {
    /// Command-line name: `exact` or `push`.
    pub fn as_str(self) -> &'static str {
        match self {
            PprMethod::Exact => "exact",
            PprMethod::Push => "push",
        }
    }
}

impl FromStr for PprMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "exact" => Ok(PprMethod::Exact),
            "push" => Ok(PprMethod::Push),
            _ => Err(Error::InvalidOption {
                name: "ppr",
                reason: format!("`{s}` is not one of exact, push"),
            }),
        }
    }
}

impl std::fmt::Display for PprMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Default for PprParams {
    fn default() -> Self {
        PprParams {
            restart_prob: 0.2,
            tolerance: 1e-6,
            max_iter: 50,
            method: PprMethod::default(),
            push_epsilon: 1e-6,
        }
    }
}

/// Result of one diffusion.
#[derive(Debug, Clone, PartialEq)]
pub struct PprResult {
    /// Score per node, non-negative. Exact path: sums to 1 when the personalization vector
    /// is non-zero. Push path: sums to `1 - residual` and is below the exact fixed point at
    /// every node.
    pub scores: Vec<f64>,
    /// Iterations (exact) or pushes (push) run.
    pub iterations: usize,
    /// Exact path: L1 change of the last iteration. Push path: residual mass left, which is
    /// exactly the L1 distance to the fixed point.
    pub residual: f64,
}

impl PprResult {
    /// The result of an all-zero personalization vector over `n` nodes: all-zero scores.
    pub(crate) fn zeros(n: usize) -> Self {
        PprResult {
            scores: vec![0.0; n],
            iterations: 0,
            residual: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{EdgeProvenance, SkillEdge, SkillGraph};

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

    /// L1 distance between two score vectors (the solvers' tests; typed.rs's too).
    pub(super) fn l1(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
    }

    /// Hand computation (reference notes §2.7 golden vector): rows of M are
    /// [0,1,0], [1/1.8, 0, 0.8/1.8], [0,1,0]; the fixed point of
    /// s = 0.2 e_2 + 0.8 M^T s is s = (20/81, 45/81, 16/81).
    #[test]
    fn reverse_aware_matches_hand_computed_three_node_example() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let dense = m.to_dense_rows();
        // f32 probabilities: relative rounding below 6e-8.
        assert!(close(&dense[1], &[1.0 / 1.8, 0.0, 0.8 / 1.8], 1e-7));
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

    /// Semantic and alternative edges weigh 0 by default: the chain with them added has the
    /// same matrix and the same scores as without; with a factor they carry mass both ways.
    #[test]
    fn symmetric_edges_stay_out_of_diffusion_by_default() {
        let mut g = chain();
        for (s, t, ty) in [
            ("read_csv", "plot_chart", EdgeType::Semantic),
            ("plot_chart", "read_csv", EdgeType::Alternative),
        ] {
            assert!(g.add_edge(SkillEdge {
                source: s.into(),
                target: t.into(),
                edge_type: ty,
                weight: 0.9,
                provenance: EdgeProvenance::Vector,
                evidence: String::new(),
            }));
        }
        let base = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let with = TransitionMatrix::build(&g, &ReverseWeights::default());
        assert_eq!(with.to_dense_rows(), base.to_dense_rows());
        let p = [0.0, 1.0, 0.0];
        let params = PprParams::default();
        assert_eq!(
            personalized_pagerank(&with, &p, &params).scores,
            personalized_pagerank(&base, &p, &params).scores
        );
        // Semantic at 0.5: read_csv -> plot_chart gets 0.9 * 0.5 = 0.45 both ways (the
        // alternative edge stays at 0); row read_csv is [0, 1, 0.45] / 1.45, and row
        // plot_chart adds it to the workflow edge's reverse mass 0.8 * 0.5: [0.45, 0.4, 0] / 0.85.
        let on = ReverseWeights {
            semantic: 0.5,
            ..ReverseWeights::default()
        };
        let dense = TransitionMatrix::build(&g, &on).to_dense_rows();
        assert!(close(&dense[0], &[0.0, 1.0 / 1.45, 0.45 / 1.45], 1e-7));
        assert!(close(&dense[2], &[0.45 / 0.85, 0.4 / 0.85, 0.0], 1e-7));
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

    /// A deterministic pseudo-random graph (xorshift): `n` nodes, `k` out-edges each, some
    /// nodes left dangling, reverse mass 0.5 as in the directed types.
    fn random_matrix(n: usize, k: usize, seed: u64) -> TransitionMatrix {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut entries = Vec::new();
        for u in 0..n as u32 {
            if u % 7 == 3 {
                continue;
            }
            for _ in 0..k {
                let v = (next() % n as u64) as u32;
                let w = 0.5 + (next() % 100) as f64 / 100.0;
                entries.push((u, v, w));
                entries.push((v, u, 0.5 * w));
            }
        }
        TransitionMatrix::from_weighted_entries(n, entries)
    }

    #[test]
    fn duplicate_entries_are_summed_and_rows_normalized() {
        let m = TransitionMatrix::from_weighted_entries(
            3,
            vec![(0, 1, 1.0), (0, 1, 1.0), (0, 2, 2.0), (1, 0, 0.0)],
        );
        assert_eq!(m.nnz(), 2);
        assert_eq!(m.row(0), (&[1u32, 2][..], &[0.5f32, 0.5][..]));
        assert!(m.is_dangling(1) && m.is_dangling(2));
        assert_eq!(m.memory_bytes(), 4 * 4 + 2 * 4 + 2 * 4);
    }

    #[test]
    fn the_matrix_is_a_sprs_csr_and_an_empty_graph_works() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let csr = m.csr();
        assert!(csr.is_csr());
        assert_eq!(csr.shape(), (3, 3));
        assert_eq!(csr.indptr().raw_storage(), &[0u32, 1, 3, 4][..]);
        assert_eq!(csr.indices(), &[1u32, 0, 2, 1][..]);
        let empty = TransitionMatrix::from_weighted_entries(0, Vec::new());
        assert_eq!((empty.node_count(), empty.nnz()), (0, 0));
        let r = personalized_pagerank(&empty, &[], &PprParams::default());
        assert!(r.scores.is_empty());
        assert!(
            push_pagerank(&empty, &[], &PprParams::default())
                .scores
                .is_empty()
        );
    }

    #[test]
    fn push_matches_hand_computed_example_within_its_residual() {
        let m = TransitionMatrix::build(&chain(), &ReverseWeights::default());
        let params = PprParams {
            push_epsilon: 1e-9,
            ..PprParams::default()
        };
        let r = push_pagerank(&m, &[0.0, 1.0, 0.0], &params);
        let exact = [20.0 / 81.0, 45.0 / 81.0, 16.0 / 81.0];
        let l1 = l1(&r.scores, &exact);
        assert!(r.residual < 1e-7, "residual {}", r.residual);
        // f32 probabilities: 1/1.8 is stored with a relative error below 6e-8.
        assert!(l1 <= r.residual + 1e-6, "l1 {l1} residual {}", r.residual);
    }

    /// Push vs exact on a 2,000-node graph with dangling nodes: the push estimate is below the
    /// (tightly converged) exact vector at every node and the L1 gap is the stated residual.
    #[test]
    fn push_is_below_exact_and_its_residual_is_the_l1_gap() {
        let m = random_matrix(2000, 2, 0x9e37_79b9_7f4a_7c15);
        let mut p = vec![0.0; 2000];
        for (i, s) in [5usize, 77, 1234, 1999, 42].iter().enumerate() {
            p[*s] = 5.0 - i as f64;
        }
        let tight = PprParams {
            tolerance: 1e-14,
            max_iter: 1000,
            ..PprParams::default()
        };
        let exact = personalized_pagerank(&m, &p, &tight);
        assert!(exact.residual <= 1e-14);
        for eps in [1e-4, 1e-6, 1e-8] {
            let params = PprParams {
                push_epsilon: eps,
                ..PprParams::default()
            };
            let push = push_pagerank(&m, &p, &params);
            let l1: f64 = exact
                .scores
                .iter()
                .zip(&push.scores)
                .map(|(e, x)| e - x)
                .sum();
            assert!(
                exact
                    .scores
                    .iter()
                    .zip(&push.scores)
                    .all(|(e, x)| *x <= e + 1e-7),
                "push above exact at eps {eps}"
            );
            // Equal up to the f32 rounding of the row sums (about 6e-8 of the mass moved).
            assert!(
                (l1 - push.residual).abs() < 1e-6,
                "eps {eps}: l1 {l1} residual {}",
                push.residual
            );
            // The residual is bounded by the threshold times the number of edge slots.
            assert!(push.residual <= eps * (m.nnz() + m.node_count()) as f64);
        }
        let fine = push_pagerank(
            &m,
            &p,
            &PprParams {
                push_epsilon: 1e-10,
                ..PprParams::default()
            },
        );
        assert!(fine.residual < 1e-6, "residual {}", fine.residual);
    }

    /// The default exact path agrees with a tightly converged run within the power-iteration
    /// bound `tolerance * (1 - a) / a`.
    #[test]
    fn default_exact_is_within_its_stated_bound() {
        let m = random_matrix(500, 3, 7);
        let mut p = vec![0.0; 500];
        p[3] = 1.0;
        p[400] = 2.0;
        let d = personalized_pagerank(&m, &p, &PprParams::default());
        let t = personalized_pagerank(
            &m,
            &p,
            &PprParams {
                tolerance: 1e-14,
                max_iter: 1000,
                ..PprParams::default()
            },
        );
        let l1 = l1(&d.scores, &t.scores);
        assert!(
            l1 <= d.residual * 4.0 + 1e-12,
            "l1 {l1} residual {}",
            d.residual
        );
    }

    #[test]
    fn method_names_round_trip() {
        for m in [PprMethod::Exact, PprMethod::Push] {
            assert_eq!(m.as_str().parse::<PprMethod>().unwrap(), m);
        }
        assert!("dense".parse::<PprMethod>().is_err());
    }
}
