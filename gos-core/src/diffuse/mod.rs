//! Diffusion: spreading the seed weights over the skill graph.
//!
//! A [`Diffusion`] maps the personalization vector (seed weights) to a graph score per node.
//! Four exist, one per [`RetrievalMode`] (the ablation arms of the GoS paper, \[P\] Table 2):
//!
//! | mode | diffusion |
//! | --- | --- |
//! | reverse | [`Ppr`] over the transition matrix with reverse mass (the GoS default) |
//! | forward | [`Ppr`] over the matrix with every reverse factor zero |
//! | one-hop | [`OneHop`]: seeds plus their direct prerequisites, no iteration |
//! | no-graph | [`NoGraph`]: the seed weights themselves |
//!
//! The two PPR modes weigh each edge type by [`TypeWeights`] (typed diffusion). With the
//! default weights they use the workspace's prebuilt matrices; otherwise the matrix is built
//! for the query (O(edges log edges), about a millisecond at the real library's edge count).
//! One-hop reads the dependency edges as stored, so the one-hop and no-graph arms stay what
//! they were whatever the weights.

pub mod mode;

pub use mode::RetrievalMode;

use crate::graph::SkillGraph;
use crate::graph::ppr::{
    PprMethod, PprParams, TransitionMatrix, TypeWeights, personalized_pagerank, push_pagerank,
};
use crate::graph::prerequisite::prerequisites;
use crate::workspace::Workspace;
use std::sync::Arc;

/// A graph operation on the seed weights.
///
/// # Contract
///
/// `diffuse(p)` takes the personalization vector `p` (length = node count, non-negative,
/// summing to 1, or all zero when there are no seeds) and returns a score per node:
///
/// - the same length as `p`, every value finite and non-negative;
/// - zero exactly for the nodes the operation does not reach (the candidates of a retrieval
///   are the first-stage pool plus every node with a positive score);
/// - deterministic: it depends on `p` and the graph only, not on the order nodes were added.
///
/// Scores are compared within one query only (the final score divides by their maximum), so an
/// implementation need not preserve total mass.
pub trait Diffusion {
    /// The graph score of every node for personalization `p`.
    fn diffuse(&self, p: &[f64]) -> Vec<f64>;
}

/// Personalized PageRank over a transition matrix, with the solver `params.method` selects
/// ([`personalized_pagerank`] or [`push_pagerank`]).
pub struct Ppr<'a> {
    matrix: Matrix<'a>,
    params: PprParams,
}

/// The matrix a [`Ppr`] walks: the workspace's own, or a shared one from the workspace's
/// cache of typed matrices.
enum Matrix<'a> {
    Borrowed(&'a TransitionMatrix),
    Shared(Arc<TransitionMatrix>),
}

impl std::ops::Deref for Matrix<'_> {
    type Target = TransitionMatrix;
    fn deref(&self) -> &TransitionMatrix {
        match self {
            Matrix::Borrowed(m) => m,
            Matrix::Shared(m) => m,
        }
    }
}

impl<'a> Ppr<'a> {
    /// PPR over `matrix` with `params`.
    pub fn new(matrix: &'a TransitionMatrix, params: PprParams) -> Self {
        Ppr {
            matrix: Matrix::Borrowed(matrix),
            params,
        }
    }

    /// PPR over a matrix shared with the workspace's cache ([`Workspace::typed_matrix`]).
    pub fn shared(matrix: Arc<TransitionMatrix>, params: PprParams) -> Self {
        Ppr {
            matrix: Matrix::Shared(matrix),
            params,
        }
    }
}

impl Diffusion for Ppr<'_> {
    fn diffuse(&self, p: &[f64]) -> Vec<f64> {
        match self.params.method {
            PprMethod::Exact => personalized_pagerank(&self.matrix, p, &self.params).scores,
            PprMethod::Push => push_pagerank(&self.matrix, p, &self.params).scores,
        }
    }
}

/// One-hop expansion: the personalization vector plus, for each seed `s` and each dependency
/// edge `x -> s` ([`prerequisites`]), mass `(1 - restart) * p(s) * w(x -> s) / W(s)` on `x`,
/// where `W(s)` is the total weight of dependency edges into `s`. Cost: O(seeds x in-degree).
pub struct OneHop<'a> {
    graph: &'a SkillGraph,
    restart_prob: f64,
}

impl<'a> OneHop<'a> {
    /// One-hop over `graph` with the PPR restart probability `restart_prob`.
    pub fn new(graph: &'a SkillGraph, restart_prob: f64) -> Self {
        OneHop {
            graph,
            restart_prob,
        }
    }
}

impl Diffusion for OneHop<'_> {
    fn diffuse(&self, p: &[f64]) -> Vec<f64> {
        let mut g = p.to_vec();
        for (s, &ps) in p.iter().enumerate().filter(|(_, w)| **w > 0.0) {
            let preds: Vec<(usize, f64)> = prerequisites(self.graph, s).collect();
            let total: f64 = preds.iter().map(|(_, w)| w).sum();
            for (x, w) in preds {
                if total > 0.0 {
                    g[x] += (1.0 - self.restart_prob) * ps * w / total;
                }
            }
        }
        g
    }
}

/// No graph: the seed weights are the graph scores.
pub struct NoGraph;

impl Diffusion for NoGraph {
    fn diffuse(&self, p: &[f64]) -> Vec<f64> {
        p.to_vec()
    }
}

/// The diffusion of `mode` over the workspace's graph and matrices, the PPR modes with the
/// per-type factors `weights` (forward mode: their reverse factors set to 0).
pub fn for_mode<'a>(
    mode: RetrievalMode,
    ws: &'a Workspace,
    params: &PprParams,
    weights: &TypeWeights,
) -> Box<dyn Diffusion + 'a> {
    let typed = |w: TypeWeights, default: TypeWeights, prebuilt: &'a TransitionMatrix| {
        if w == default {
            Ppr::new(prebuilt, *params)
        } else {
            Ppr::shared(ws.typed_matrix(&w), *params)
        }
    };
    match mode {
        RetrievalMode::Reverse => {
            Box::new(typed(*weights, TypeWeights::default(), ws.reverse_matrix()))
        }
        RetrievalMode::Forward => Box::new(typed(
            weights.forward_only(),
            TypeWeights::default().forward_only(),
            ws.forward_matrix(),
        )),
        RetrievalMode::OneHop => Box::new(OneHop::new(ws.graph(), params.restart_prob)),
        RetrievalMode::NoGraph => Box::new(NoGraph),
    }
}
