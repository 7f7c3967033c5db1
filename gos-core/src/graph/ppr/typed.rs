//! Typed diffusion (issue 22 item 4): one transition factor per edge type and provenance, and
//! one per reverse direction, each a knob of [`crate::param`].
//!
//! An edge `u -> v` of weight `w` enters the transition matrix with forward mass
//! `w * forward(e)` on `M[u, v]`, where `forward(e)` is the edge's factor below; directed
//! types add `w * forward(e) * reverse_type` on `M[v, u]`; semantic edges add
//! `w * semantic` both ways. Alternative edges never carry mass (they join copies of one job,
//! not prerequisites; the bundle spends one slot per group instead, [`crate::retrieve`]).
//! Rows are normalized afterwards, so only the ratios between the factors of a node's edges
//! matter, and a factor of 0 removes that kind of edge from the walk; with
//! [`TypeWeights::substochastic`] only rows summing above 1 are, and a row's shortfall
//! restarts at the seeds, so a factor below 1 lowers the mass its edges carry.
//!
//! [`TypeWeights::default`] reproduces the matrix of [`ReverseWeights::default`] exactly
//! (every forward factor 1, semantic 0), so retrieval is unchanged until cross-validation
//! chooses other values (docs/graph-quality.md, "Typed diffusion").

use super::{ReverseWeights, TransitionMatrix};
use crate::graph::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};

/// Per-type transition factors, each finite and non-negative (rows are renormalized, so a
/// factor is a relative weight, not a probability, unless [`TypeWeights::substochastic`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TypeWeights {
    /// Forward factor of dependency edges found by the input/output rule (provenance `io`);
    /// default 1.
    pub io: f64,
    /// Forward factor of dependency edges from an explicit mention in the consumer's body
    /// (provenance `mention`); default 1.
    pub mention: f64,
    /// Forward factor of dependency edges declared in frontmatter (provenance `declared`) or
    /// proposed by an LLM and accepted by the gates (provenance `llm`); default 1.
    pub declared: f64,
    /// Forward factor of workflow edges; default 1.
    pub workflow: f64,
    /// Reverse factor of dependency edges (consumer back to prerequisite), relative to the
    /// edge's forward mass; default 1.0, the reference's (`retrieval.py`).
    pub reverse_dependency: f64,
    /// Reverse factor of workflow edges; default 0.5, the reference's.
    pub reverse_workflow: f64,
    /// Factor of semantic edges, both directions; default 0 (out of the walk until
    /// cross-validation gives it a weight).
    pub semantic: f64,
    /// Sub-stochastic rows: a node whose weighted out-edges (weight x factor, both
    /// directions) sum to less than 1 sends only that share of its walk along them and
    /// restarts the rest at the personalization vector, so an edge's weight x factor reads as
    /// the probability that the walk follows it (a confidence), not only as a share among the
    /// node's edges. Rows summing to 1 or more are normalized as before. Default false: every
    /// row is normalized to 1 (the reference, `retrieval.py`), so one edge, however weak,
    /// carries all of its node's walk.
    pub substochastic: bool,
}

impl Default for TypeWeights {
    fn default() -> Self {
        let r = ReverseWeights::default();
        TypeWeights {
            io: 1.0,
            mention: 1.0,
            declared: 1.0,
            workflow: 1.0,
            reverse_dependency: r.dependency,
            reverse_workflow: r.workflow,
            semantic: r.semantic,
            substochastic: false,
        }
    }
}

impl TypeWeights {
    /// The same factors with both reverse factors 0 (forward-only diffusion).
    pub fn forward_only(self) -> Self {
        TypeWeights {
            reverse_dependency: 0.0,
            reverse_workflow: 0.0,
            ..self
        }
    }

    /// The reverse and symmetric factors as [`ReverseWeights`] (alternative always 0).
    pub fn reverse(&self) -> ReverseWeights {
        ReverseWeights {
            dependency: self.reverse_dependency,
            workflow: self.reverse_workflow,
            semantic: self.semantic,
            alternative: 0.0,
        }
    }

    /// Forward factor of `edge` (1 for the symmetric types: their mass is set by
    /// [`TypeWeights::semantic`] and the alternative factor 0).
    pub fn forward(&self, edge: &SkillEdge) -> f64 {
        match edge.edge_type {
            EdgeType::Dependency => match edge.provenance {
                EdgeProvenance::Io => self.io,
                EdgeProvenance::Mention => self.mention,
                _ => self.declared,
            },
            EdgeType::Workflow => self.workflow,
            EdgeType::Semantic | EdgeType::Alternative => 1.0,
        }
    }
}

impl TransitionMatrix {
    /// Build from `graph` with per-type factors `weights` (module docs). With
    /// [`TypeWeights::default`] the result equals
    /// `TransitionMatrix::build(graph, &ReverseWeights::default())`. Cost: O(nodes + edges
    /// log edges).
    ///
    /// # Panics
    /// As [`TransitionMatrix::build`].
    pub fn build_typed(graph: &SkillGraph, weights: &TypeWeights) -> Self {
        Self::build_scaled(
            graph,
            &weights.reverse(),
            |e| weights.forward(e),
            weights.substochastic,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(s: &str, t: &str, ty: EdgeType, prov: EdgeProvenance, w: f64) -> SkillEdge {
        SkillEdge {
            source: s.into(),
            target: t.into(),
            edge_type: ty,
            weight: w,
            provenance: prov,
            evidence: String::new(),
        }
    }

    /// a -io-> c, b -mention-> c, c ~semantic~ d, c ~alternative~ e.
    fn graph() -> SkillGraph {
        let mut g = SkillGraph::new(["a", "b", "c", "d", "e"].map(String::from));
        for e in [
            edge("a", "c", EdgeType::Dependency, EdgeProvenance::Io, 0.5),
            edge("b", "c", EdgeType::Dependency, EdgeProvenance::Mention, 1.0),
            edge("c", "d", EdgeType::Semantic, EdgeProvenance::Vector, 0.8),
            edge(
                "c",
                "e",
                EdgeType::Alternative,
                EdgeProvenance::Duplicate,
                1.0,
            ),
        ] {
            assert!(g.add_edge(e));
        }
        g
    }

    #[test]
    fn the_defaults_give_todays_matrix() {
        let g = graph();
        assert_eq!(
            TransitionMatrix::build_typed(&g, &TypeWeights::default()).to_dense_rows(),
            TransitionMatrix::build(&g, &ReverseWeights::default()).to_dense_rows()
        );
        assert_eq!(
            TransitionMatrix::build_typed(&g, &TypeWeights::default().forward_only())
                .to_dense_rows(),
            TransitionMatrix::build(&g, &ReverseWeights::FORWARD_ONLY).to_dense_rows()
        );
    }

    /// Row c (the consumer) holds the reverse mass to its prerequisites: by default
    /// a 0.5 and b 1.0 (so [1/3, 2/3]); io at 0.2 makes a's 0.1, so [0.1, 1.0] / 1.1; semantic
    /// at 0.25 adds d with 0.8 * 0.25 = 0.2; the alternative edge never carries mass.
    #[test]
    fn each_factor_scales_its_own_edges() {
        let g = graph();
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-7);
        let row_c =
            |w: &TypeWeights| TransitionMatrix::build_typed(&g, w).to_dense_rows()[2].clone();
        assert!(close(
            &row_c(&TypeWeights::default()),
            &[1.0 / 3.0, 2.0 / 3.0, 0.0, 0.0, 0.0]
        ));
        let io = TypeWeights {
            io: 0.2,
            ..TypeWeights::default()
        };
        assert!(close(&row_c(&io), &[0.1 / 1.1, 1.0 / 1.1, 0.0, 0.0, 0.0]));
        let sem = TypeWeights {
            semantic: 0.25,
            ..TypeWeights::default()
        };
        assert!(close(
            &row_c(&sem),
            &[0.5 / 1.7, 1.0 / 1.7, 0.0, 0.2 / 1.7, 0.0]
        ));
        // Row a sends its forward mass to c only; row e (alternative only) stays dangling.
        let m = TransitionMatrix::build_typed(&g, &sem);
        assert!(close(&m.to_dense_rows()[0], &[0.0, 0.0, 1.0, 0.0, 0.0]));
        assert!(m.is_dangling(4));
        // Reverse dependency 0: c keeps only the semantic edge.
        let no_rev = TypeWeights {
            reverse_dependency: 0.0,
            ..sem
        };
        assert!(close(&row_c(&no_rev), &[0.0, 0.0, 0.0, 1.0, 0.0]));
    }

    /// Sub-stochastic rows, by hand: one io edge a -> c of weight 0.5 at factor 0.4 carries
    /// 0.2 each way and each row restarts 0.8 of its walk; seeded at c (restart 0.2):
    /// s_a = 0.8 (0.2 s_c) and s_c = 0.2 + 0.8 (0.2 s_a + 0.8 s_a + 0.8 s_c), so s = (4/29,
    /// 25/29). Normalized rows give the prerequisite 4/9 whatever the factor.
    #[test]
    fn substochastic_rows_let_a_weak_edge_carry_little() {
        use crate::graph::ppr::{PprParams, personalized_pagerank, push_pagerank};
        let mut g = SkillGraph::new(["a", "c"].map(String::from));
        assert!(g.add_edge(edge(
            "a",
            "c",
            EdgeType::Dependency,
            EdgeProvenance::Io,
            0.5
        )));
        let weak = TypeWeights {
            io: 0.4,
            substochastic: true,
            ..TypeWeights::default()
        };
        let m = TransitionMatrix::build_typed(&g, &weak);
        let close =
            |a: &[f64], b: &[f64], tol: f64| a.iter().zip(b).all(|(x, y)| (x - y).abs() < tol);
        assert!(close(&m.to_dense_rows()[0], &[0.0, 0.2], 1e-7));
        assert!(close(&m.to_dense_rows()[1], &[0.2, 0.0], 1e-7));
        assert!((m.leak(0) - 0.8).abs() < 1e-7 && (m.leak(1) - 0.8).abs() < 1e-7);
        // A threshold tighter than the default, so push's residual lies under the hand-solved
        // values' tolerance.
        let params = PprParams {
            push_epsilon: 1e-9,
            ..PprParams::default()
        };
        let exact = personalized_pagerank(&m, &[0.0, 1.0], &params);
        assert!(
            close(&exact.scores, &[4.0 / 29.0, 25.0 / 29.0], 1e-5),
            "{:?}",
            exact.scores
        );
        let push = push_pagerank(&m, &[0.0, 1.0], &params);
        let gap = crate::graph::ppr::tests::l1(&exact.scores, &push.scores);
        assert!(
            gap <= push.residual + 1e-6,
            "gap {gap}, residual {}",
            push.residual
        );
        assert!(push.residual < 1e-6);
        // The same factor with normalized rows: the one edge carries the whole walk.
        let normalized = TransitionMatrix::build_typed(
            &g,
            &TypeWeights {
                substochastic: false,
                ..weak
            },
        );
        assert_eq!(normalized.leak(0), 0.0);
        let r = personalized_pagerank(&normalized, &[0.0, 1.0], &params);
        assert!(
            close(&r.scores, &[4.0 / 9.0, 5.0 / 9.0], 1e-5),
            "{:?}",
            r.scores
        );
    }

    /// A row whose weights sum above 1 is normalized as before, and the default weights give
    /// today's matrix whatever the switch says about rows of strong edges.
    #[test]
    fn substochastic_rows_above_one_are_normalized() {
        let g = graph();
        let sub = TypeWeights {
            substochastic: true,
            ..TypeWeights::default()
        };
        let m = TransitionMatrix::build_typed(&g, &sub);
        // Row c holds 0.5 + 1.0 = 1.5 of reverse mass: normalized, no leak.
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-7);
        assert!(close(
            &m.to_dense_rows()[2],
            &[1.0 / 3.0, 2.0 / 3.0, 0.0, 0.0, 0.0]
        ));
        assert_eq!(m.leak(2), 0.0);
        // Row a: the io edge of weight 0.5 alone, so half of a's walk restarts.
        assert!(close(&m.to_dense_rows()[0], &[0.0, 0.0, 0.5, 0.0, 0.0]));
        assert!((m.leak(0) - 0.5).abs() < 1e-7);
        // Dangling e leaks everything, as before.
        assert_eq!(m.leak(4), 1.0);
    }

    /// On a random graph of io edges at factor 0.3 (most rows sum below 1): the exact solver
    /// meets the sub-stochastic fixed point `s = a p + (1 - a) (M^T s + (leak . s) p)`, and
    /// push stays below it with its residual as the L1 gap.
    #[test]
    fn both_solvers_reach_the_substochastic_fixed_point() {
        use crate::graph::ppr::{PprParams, personalized_pagerank, push_pagerank};
        let n = 300;
        let names: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
        let mut g = SkillGraph::new(names.clone());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2 * n {
            let (u, v) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
            let w = 0.5 + (next() % 50) as f64 / 100.0;
            if u != v {
                g.add_edge(edge(
                    &names[u],
                    &names[v],
                    EdgeType::Dependency,
                    EdgeProvenance::Io,
                    w,
                ));
            }
        }
        let weights = TypeWeights {
            io: 0.3,
            substochastic: true,
            ..TypeWeights::default()
        };
        let m = TransitionMatrix::build_typed(&g, &weights);
        let leaking = (0..n)
            .filter(|&u| m.leak(u) > 0.0 && !m.is_dangling(u))
            .count();
        assert!(leaking > n / 2, "{leaking} rows leak");
        let mut p = vec![0.0; n];
        for (i, w) in [(3, 5.0), (77, 3.0), (150, 1.0)] {
            p[i] = w;
        }
        let params = PprParams {
            tolerance: 1e-12,
            max_iter: 500,
            ..PprParams::default()
        };
        let exact = personalized_pagerank(&m, &p, &params);
        let a = params.restart_prob;
        let total: f64 = p.iter().sum();
        let pn: Vec<f64> = p.iter().map(|x| x / total).collect();
        let rows = m.to_dense_rows();
        let leaked: f64 = (0..n).map(|u| m.leak(u) * exact.scores[u]).sum();
        for v in 0..n {
            let inflow: f64 = (0..n).map(|u| rows[u][v] * exact.scores[u]).sum();
            let rhs = a * pn[v] + (1.0 - a) * (inflow + leaked * pn[v]);
            assert!((exact.scores[v] - rhs).abs() < 1e-9, "node {v}");
        }
        let push = push_pagerank(&m, &p, &PprParams::default());
        let gap: f64 = exact
            .scores
            .iter()
            .zip(&push.scores)
            .map(|(e, x)| e - x)
            .sum();
        assert!(
            push.scores
                .iter()
                .zip(&exact.scores)
                .all(|(x, e)| *x <= e + 1e-12)
        );
        assert!(
            (gap - push.residual).abs() < 1e-6,
            "gap {gap}, residual {}",
            push.residual
        );
    }
}
