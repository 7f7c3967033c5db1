//! The dependency-edge rule: which edges make one skill a prerequisite of another.
//!
//! A dependency edge `x -> s` ([`EdgeType::Dependency`]) says `x` produces something `s`
//! consumes: `x` is a *prerequisite* of `s`. The online uses of that rule read it here:
//!
//! - one-hop expansion ([`crate::diffuse::OneHop`]) gives mass to the prerequisites of each
//!   seed ([`prerequisites`]);
//! - a bundle entry's reason names the better-ranked skill it is linked to, and how, a
//!   declared edge before an inferred one ([`link_to`]);
//! - the prerequisites of the top-ranked skills may get a reserved share of the bundle
//!   ([`crate::prerequisite::reserve`], off by default).
//!
//! The diffusion itself reads every edge type through the transition matrix
//! ([`super::ppr::TransitionMatrix`], reverse mass by type).

use super::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};

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
    /// A semantic edge, either direction: "related to" the other skill.
    RelatedTo,
    /// An alternative edge, either direction: "alternative to" the other skill.
    AlternativeTo,
}

impl Link {
    /// The words a reason uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Link::PrerequisiteOf => "prerequisite of",
            Link::Follows => "follows",
            Link::RelatedTo => "related to",
            Link::AlternativeTo => "alternative to",
        }
    }
}

/// The edge between `node` and one of the nodes `above` (better-ranked candidates, in rank
/// order) that a reason names: the other node, the link, and the edge. A declared edge
/// ([`EdgeProvenance::Declared`]) to any of `above` outranks every inferred one; then the
/// first directed edge (dependency, workflow) to the best-ranked linked candidate; then the
/// first symmetric one (semantic: [`Link::RelatedTo`], alternative: [`Link::AlternativeTo`]).
/// For the same other node, an edge leaving `node` wins over one entering it. Cost:
/// O(|above| x degree of `node`).
pub fn link_to<I>(graph: &SkillGraph, node: usize, above: I) -> Option<(usize, Link, &SkillEdge)>
where
    I: IntoIterator<Item = usize> + Clone,
{
    let symmetric =
        |e: &SkillEdge| matches!(e.edge_type, EdgeType::Semantic | EdgeType::Alternative);
    let link = |e: &SkillEdge, out: bool| match e.edge_type {
        EdgeType::Semantic => Link::RelatedTo,
        EdgeType::Alternative => Link::AlternativeTo,
        _ if out => Link::PrerequisiteOf,
        _ => Link::Follows,
    };
    let first = |keep: &dyn Fn(&SkillEdge) -> bool| {
        above.clone().into_iter().find_map(|a| {
            if let Some((_, e)) = graph.outgoing(node).find(|(t, e)| *t == a && keep(e)) {
                return Some((a, link(e, true), e));
            }
            graph
                .incoming(node)
                .find(|(s, e)| *s == a && keep(e))
                .map(|(_, e)| (a, link(e, false), e))
        })
    };
    first(&|e| e.provenance == EdgeProvenance::Declared)
        .or_else(|| first(&|e| !symmetric(e)))
        .or_else(|| first(&symmetric))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(s: &str, t: &str, provenance: EdgeProvenance) -> SkillEdge {
        SkillEdge {
            source: s.into(),
            target: t.into(),
            edge_type: EdgeType::Dependency,
            weight: 0.8,
            provenance,
            evidence: String::new(),
        }
    }

    #[test]
    fn a_declared_edge_outranks_an_inferred_one_to_a_better_ranked_skill() {
        let mut g = SkillGraph::new(["a", "b", "c"].map(String::from));
        g.add_edge(edge("c", "a", EdgeProvenance::Io));
        g.add_edge(edge("b", "c", EdgeProvenance::Declared));
        let above = [0, 1];
        let (other, link, e) = link_to(&g, 2, above).unwrap();
        assert_eq!((other, link), (1, Link::Follows));
        assert_eq!(e.provenance, EdgeProvenance::Declared);
        // Without the declared edge, the best-ranked linked skill wins.
        let mut g = SkillGraph::new(["a", "b", "c"].map(String::from));
        g.add_edge(edge("c", "a", EdgeProvenance::Io));
        g.add_edge(edge("b", "c", EdgeProvenance::Mention));
        let (other, link, _) = link_to(&g, 2, above).unwrap();
        assert_eq!((other, link), (0, Link::PrerequisiteOf));
    }

    #[test]
    fn a_dependency_edge_outranks_a_semantic_one_and_alternatives_are_never_prerequisites() {
        let mut g = SkillGraph::new(["a", "b", "c"].map(String::from));
        g.add_edge(SkillEdge {
            edge_type: EdgeType::Semantic,
            provenance: EdgeProvenance::Vector,
            ..edge("c", "a", EdgeProvenance::Io)
        });
        g.add_edge(SkillEdge {
            edge_type: EdgeType::Alternative,
            provenance: EdgeProvenance::Duplicate,
            ..edge("b", "c", EdgeProvenance::Io)
        });
        // Only symmetric edges: the best-ranked one (a, semantic) names the link.
        let (other, link, _) = link_to(&g, 2, [0, 1]).unwrap();
        assert_eq!((other, link.as_str()), (0, "related to"));
        let (other, link, _) = link_to(&g, 2, [1]).unwrap();
        assert_eq!((other, link), (1, Link::AlternativeTo));
        assert_eq!(prerequisites(&g, 2).count(), 0);
        assert_eq!(prerequisites(&g, 0).count(), 0);
        // A dependency edge to a worse-ranked candidate wins over the semantic edge.
        g.add_edge(edge("b", "c", EdgeProvenance::Io));
        let (other, link, _) = link_to(&g, 2, [0, 1]).unwrap();
        assert_eq!((other, link), (1, Link::Follows));
        assert_eq!(prerequisites(&g, 2).collect::<Vec<_>>(), vec![(1, 0.8)]);
    }
}
