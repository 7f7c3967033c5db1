//! Typed diffusion (issue 22 item 4): one transition factor per edge type and provenance, and
//! one per reverse direction, each a knob of [`crate::param`].
//!
//! An edge `u -> v` of weight `w` enters the transition matrix with forward mass
//! `w * forward(e)` on `M[u, v]`, where `forward(e)` is the edge's factor below; directed
//! types add `w * forward(e) * reverse_type` on `M[v, u]`; semantic edges add
//! `w * semantic` both ways. Alternative edges never carry mass (they join copies of one job,
//! not prerequisites; the bundle spends one slot per group instead, [`crate::retrieve`]).
//! Rows are normalized afterwards, so only the ratios between the factors of a node's edges
//! matter, and a factor of 0 removes that kind of edge from the walk.
//!
//! [`TypeWeights::default`] reproduces the matrix of [`ReverseWeights::default`] exactly
//! (every forward factor 1, semantic 0), so retrieval is unchanged until cross-validation
//! chooses other values (docs/graph-quality.md, "Typed diffusion").

use super::{ReverseWeights, TransitionMatrix};
use crate::graph::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};

/// Per-type transition factors, each finite and non-negative (rows are renormalized, so a
/// factor is a relative weight, not a probability).
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
        Self::build_scaled(graph, &weights.reverse(), |e| weights.forward(e))
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
}
