//! The dependency-edge rule at query time: which edges make one skill a prerequisite of
//! another, and which candidates the graph added.
//!
//! A dependency edge `x -> s` ([`EdgeType::Dependency`]) says `x` produces something `s`
//! consumes: `x` is a *prerequisite* of `s`. Every online use of that rule is here:
//!
//! - one-hop expansion ([`crate::diffuse::OneHop`]) gives mass to the prerequisites of each
//!   seed ([`prerequisites`]);
//! - a bundle entry's reason names the better-ranked skill it is linked to, and how
//!   ([`link_to`]);
//! - the cross-encoder keeps a reserved share of the bundle for candidates the graph added
//!   ([`graph_added`]).
//!
//! The diffusion itself reads every edge type through the transition matrix
//! ([`crate::ppr::TransitionMatrix`], reverse mass by type).

use crate::candidate::RankedSkill;
use crate::graph::{EdgeType, SkillEdge, SkillGraph};
use crate::mode::RetrievalMode;

/// The prerequisites of node `s`: `(x, weight)` for every dependency edge `x -> s`, in the
/// graph's edge order. Cost: O(in-degree of `s`).
pub fn prerequisites(graph: &SkillGraph, s: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
    graph
        .incoming(s)
        .filter(|(_, e)| e.edge_type == EdgeType::Dependency)
        .map(|(x, e)| (x, e.weight))
}

/// How a candidate relates to a better-ranked one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The candidate is the edge's source: "prerequisite of" the other skill.
    PrerequisiteOf,
    /// The candidate is the edge's target: it "follows" the other skill.
    Follows,
}

impl Link {
    /// The words a reason uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Link::PrerequisiteOf => "prerequisite of",
            Link::Follows => "follows",
        }
    }
}

/// The first edge (of any type) between `node` and one of `above` (better-ranked candidates,
/// in rank order): the other node, the direction, and the edge. An edge leaving `node` wins
/// over one entering it for the same other node.
pub fn link_to<'g>(
    graph: &'g SkillGraph,
    node: usize,
    above: &[RankedSkill],
) -> Option<(usize, Link, &'g SkillEdge)> {
    above.iter().find_map(|a| {
        if let Some((_, e)) = graph.outgoing(node).find(|(t, _)| *t == a.node) {
            return Some((a.node, Link::PrerequisiteOf, e));
        }
        graph
            .incoming(node)
            .find(|(s, _)| *s == a.node)
            .map(|(_, e)| (a.node, Link::Follows, e))
    })
}

/// Whether candidate `r`, at 1-based position `pre_rank` before a reranker, was added by the
/// graph: in a mode that uses the graph, a non-seed with graph mass that the graph ranked above
/// its first-stage rank (or that the first stage never found).
pub fn graph_added(mode: RetrievalMode, pre_rank: usize, r: &RankedSkill) -> bool {
    mode != RetrievalMode::NoGraph
        && r.seed_rank.is_none()
        && r.graph_score > 0.0
        && r.pool_rank.is_none_or(|l| l > pre_rank)
}
