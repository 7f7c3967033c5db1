//! Prerequisite reservation (off by default; docs/graph-quality.md): bundle slots kept for
//! the prerequisites of the top-ranked skills when the score gap allows. Which edges make a
//! prerequisite is [`crate::graph::prerequisite`].

use crate::graph::SkillGraph;
use crate::graph::prerequisite::prerequisites;
use crate::rerank::RankedSkill;

/// How many bundle slots the prerequisites of the top-ranked skills may take
/// ([`reserve`]). Off by default (`slots` 0); choose the values with `gos eval --cv 4 --sweep
/// prereq_slots=...` (docs/graph-quality.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrerequisiteShare {
    /// Most bundle slots given to prerequisites that would otherwise be cut (0: off).
    pub slots: usize,
    /// How many of the best-ranked candidates are anchors whose prerequisites qualify.
    pub anchors: usize,
    /// A prerequisite qualifies when its final score is at least this share of the score of
    /// the last candidate that would be in the bundle without it, in [0, 1] (the score gap).
    pub min_ratio: f64,
}

impl Default for PrerequisiteShare {
    fn default() -> Self {
        PrerequisiteShare {
            slots: 0,
            anchors: 3,
            min_ratio: 0.0,
        }
    }
}

/// Move prerequisites of the anchors into the bundle: among `ranked[..eligible]` (final order),
/// the bundle is the first `n = min(top_n, eligible)`. Each dependency edge `x -> a` into an
/// anchor `a` (one of the first `share.anchors` candidates, in rank order; edges by descending
/// weight) whose source `x` is ranked after the bundle and scores at least
/// `share.min_ratio * ranked[n - 1].score` makes `x` a pick, up to `share.slots` picks; the
/// picks move, in pick order, to position `n - picks`, pushing the bundle's last candidates
/// just after them. Returns the nodes moved. Cost: O(anchors x in-degree + eligible).
pub fn reserve(
    graph: &SkillGraph,
    ranked: &mut Vec<RankedSkill>,
    eligible: usize,
    top_n: usize,
    share: &PrerequisiteShare,
) -> Vec<usize> {
    let eligible = eligible.min(ranked.len());
    let n = top_n.min(eligible);
    if share.slots == 0 || n == 0 || eligible <= n {
        return Vec::new();
    }
    let floor = share.min_ratio * ranked[n - 1].score;
    let position: std::collections::HashMap<usize, usize> = ranked[n..eligible]
        .iter()
        .enumerate()
        .map(|(i, r)| (r.node, n + i))
        .collect();
    let mut picks: Vec<usize> = Vec::new();
    'anchors: for a in ranked[..share.anchors.min(n)].iter().map(|r| r.node) {
        let mut edges: Vec<(usize, f64)> = prerequisites(graph, a).collect();
        edges.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        for (x, _) in edges {
            if picks.len() == share.slots.min(n) {
                break 'anchors;
            }
            if let Some(&i) = position.get(&x)
                && ranked[i].score >= floor
                && !picks.contains(&i)
            {
                picks.push(i);
            }
        }
    }
    let moved: Vec<RankedSkill> = picks.iter().map(|&i| ranked[i].clone()).collect();
    let mut rest: Vec<RankedSkill> = ranked
        .drain(..)
        .enumerate()
        .filter(|(i, _)| !picks.contains(i))
        .map(|(_, r)| r)
        .collect();
    let at = n - moved.len();
    let nodes = moved.iter().map(|r| r.node).collect();
    rest.splice(at..at, moved);
    *ranked = rest;
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{EdgeProvenance, EdgeType, SkillEdge};

    fn scored(node: usize, score: f64) -> RankedSkill {
        RankedSkill::scored(node, score)
    }

    #[test]
    fn reserve_moves_anchor_prerequisites_above_the_cut_within_the_gap() {
        // 6 nodes ranked 0..6 with scores 1.0, 0.9, ..., 0.5; bundle of 3.
        let mut g = SkillGraph::new(["a", "b", "c", "d", "e", "f"].map(String::from));
        // f (rank 6) is a prerequisite of the top skill; e (rank 5) of the second; d of c,
        // which is no anchor with anchors = 2.
        g.add_edge(edge("f", "a", EdgeProvenance::Io));
        g.add_edge(edge("e", "b", EdgeProvenance::Mention));
        g.add_edge(edge("d", "c", EdgeProvenance::Io));
        let base: Vec<RankedSkill> = (0..6).map(|i| scored(i, 1.0 - 0.1 * i as f64)).collect();
        let share = PrerequisiteShare {
            slots: 1,
            anchors: 2,
            min_ratio: 0.0,
        };
        let mut r = base.clone();
        assert_eq!(reserve(&g, &mut r, 6, 3, &share), vec![5]);
        let order: Vec<usize> = r.iter().map(|r| r.node).collect();
        assert_eq!(order, vec![0, 1, 5, 2, 3, 4]);
        // Two slots: f then e, in anchor order.
        let two = PrerequisiteShare { slots: 2, ..share };
        let mut r = base.clone();
        assert_eq!(reserve(&g, &mut r, 6, 3, &two), vec![5, 4]);
        let order: Vec<usize> = r.iter().map(|r| r.node).collect();
        assert_eq!(order, vec![0, 5, 4, 1, 2, 3]);
        // The gap: f scores 0.5, e 0.6, the last bundle entry 0.8; at 0.7 only e qualifies.
        let gap = PrerequisiteShare {
            min_ratio: 0.7,
            ..two
        };
        let mut r = base.clone();
        assert_eq!(reserve(&g, &mut r, 6, 3, &gap), vec![4]);
        // Nothing moves past the eligible cut, or when everything eligible fits.
        let mut r = base.clone();
        assert_eq!(reserve(&g, &mut r, 4, 3, &two), Vec::<usize>::new());
        assert_eq!(r, base);
        let mut r = base.clone();
        assert!(reserve(&g, &mut r, 3, 3, &two).is_empty());
        // Off by default.
        let mut r = base.clone();
        assert!(reserve(&g, &mut r, 6, 3, &PrerequisiteShare::default()).is_empty());
    }

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
}
