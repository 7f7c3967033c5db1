//! Near-duplicate collapse in the ranked list: one slot per group, at the rank of the group's
//! best-ranked member, held by the member the query matches best, with the others as its
//! alternates ([`crate::workspace::duplicates::NodeGroups::collapse`]).
//!
//! "Matches best" is the first-stage score ([`RankedSkill::pool_score`]: BM25, cosine or their
//! fusion), not the final score: the final score adds graph mass, and among copies of one skill
//! that mass says which copy has more (often wrong) edges, not which copy answers the query
//! (issue 22 item 2: "the copy the query matches best"; docs/graph-quality.md).

use crate::hydrate::Alternate;
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;
use crate::workspace::duplicates::NodeGroups;
use std::collections::{BTreeMap, HashMap};

/// Dropped group members per kept node, in rank order (node indices).
pub type Alternates = BTreeMap<usize, Vec<usize>>;

/// Collapse `ranked` (in final order) to one member per group of `ws`: the alternative
/// groups merged with the near-duplicate ones when `alternatives`, else the near-duplicate
/// groups when `duplicates`; the alternates of each kept node. Each group keeps the slot and
/// the final score of its best-ranked member, held by its member with the highest first-stage
/// score ([`query_match_first`]). Without groups, or when both are off, nothing changes.
pub fn collapse(
    ws: &Workspace,
    ranked: &mut Vec<RankedSkill>,
    duplicates: bool,
    alternatives: bool,
) -> Alternates {
    let groups = if alternatives {
        ws.alternative_groups()
    } else if duplicates {
        ws.duplicates()
    } else {
        return Alternates::new();
    };
    query_match_first(groups, ranked);
    groups.collapse(ranked, |r| r.node)
}

/// Put, in the first position each group of `groups` holds in `ranked`, the group's member
/// with the highest [`RankedSkill::pool_score`]; on a tie between two members of the
/// first-stage pool, the smaller node index (the smaller id), otherwise the earlier one (so a
/// group none of whose members is in the pool is left as it is). Among copies with one
/// first-stage score the rank order is graph mass alone, whose last digits differ between the
/// PPR solvers (exact and push chose different copies on 5 DEV tasks, docs/performance.md);
/// for such ties between pool members the id makes `gos retrieve` and `gos eval` pick the same
/// copy. The group's other members move
/// one group position down, keeping their order, so the alternates stay in rank order. Final
/// scores stay with the positions, so the list stays in non-increasing score order and the
/// bundle cut sees the scores it saw before; entries outside the group do not move. Cost:
/// O(ranked) with a hash map per group.
pub fn query_match_first(groups: &NodeGroups, ranked: &mut [RankedSkill]) {
    let mut positions: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut best: HashMap<u32, usize> = HashMap::new();
    for (i, r) in ranked.iter().enumerate() {
        if let Some(g) = groups.group_of(r.node) {
            positions.entry(g).or_default().push(i);
            let b = best.entry(g).or_insert(i);
            let held = &ranked[*b];
            let tie_to_smaller_id = r.pool_score == held.pool_score
                && r.pool_rank.is_some()
                && held.pool_rank.is_some()
                && r.node < held.node;
            if r.pool_score > held.pool_score || tie_to_smaller_id {
                *b = i;
            }
        }
    }
    for (g, at) in positions {
        let b = best[&g];
        let Some(k) = at.iter().position(|&i| i == b).filter(|&k| k > 0) else {
            continue;
        };
        let scores: Vec<f64> = at[..=k].iter().map(|&i| ranked[i].score).collect();
        // Bubble the best member up through the group's positions only.
        for j in (1..=k).rev() {
            ranked.swap(at[j], at[j - 1]);
        }
        for (&i, score) in at[..=k].iter().zip(scores) {
            ranked[i].score = score;
        }
    }
}

/// Drop the candidates of `ranked` without lexical or dense support: no BM25 hit, and a
/// cosine with the query that is known and below `min_cosine`
/// ([`super::RetrieveOptions::min_skill_cosine`]). A candidate whose cosine is unknown (lexical
/// seeds, or reached by the graph outside the dense list) stays. Retrieval applies it to the
/// bundle's candidates, not to the ranked list. Returns how many were dropped.
pub fn drop_unsupported(ranked: &mut Vec<RankedSkill>, min_cosine: f32) -> usize {
    let before = ranked.len();
    ranked.retain(|r| is_supported(r, min_cosine));
    before - ranked.len()
}

/// Whether `r` has lexical or dense support: a BM25 hit, or a cosine that is unknown or at
/// least `min_cosine` ([`drop_unsupported`] keeps exactly these).
pub fn is_supported(r: &RankedSkill, min_cosine: f32) -> bool {
    r.bm25_score.is_some_and(|s| s > 0.0) || r.dense_score.is_none_or(|c| c >= min_cosine)
}

/// The alternates of `node` as hydration inputs (ids and library-relative sources).
pub fn alternates_of(ws: &Workspace, alternates: &Alternates, node: usize) -> Vec<Alternate> {
    alternates.get(&node).map_or_else(Vec::new, |nodes| {
        nodes
            .iter()
            .map(|&n| {
                let skill = &ws.manifest().nodes[n];
                Alternate {
                    id: skill.id.clone(),
                    source: skill.source_path.clone(),
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::duplicates::DuplicateGroups;
    use std::path::Path;

    /// Group {s1, s3, s5}: s1 ranks second on graph mass, s5 sixth but the query matches it
    /// best (first-stage 0.6 against 0.2 and 0.1). The group's slot stays second with its
    /// score 0.9, held by s5; s1 and s3 are its alternates, in rank order. A group no member of
    /// which is in the pool ({s2, s4}, tied at 0) keeps its best-ranked member s4, though s2
    /// has the smaller id: the id breaks ties between pool members only. Entries outside the
    /// group keep their places and scores.
    #[test]
    fn the_copy_the_query_matches_best_takes_its_groups_slot() {
        let stored = DuplicateGroups {
            method: "test".into(),
            threshold: 0.7,
            groups: vec![
                vec!["s1".into(), "s3".into(), "s5".into()],
                vec!["s2".into(), "s4".into()],
            ],
        };
        let ids = ["s0", "s1", "s2", "s3", "s4", "s5"];
        let groups = NodeGroups::new(&stored, &ids, Path::new("x")).unwrap();
        let with = |node, score, pool| RankedSkill {
            pool_score: pool,
            ..RankedSkill::scored(node, score)
        };
        let mut r = vec![
            with(0, 1.0, 0.9),
            with(1, 0.9, 0.2),
            with(4, 0.8, 0.0),
            with(3, 0.7, 0.1),
            with(2, 0.6, 0.0),
            with(5, 0.5, 0.6),
        ];
        query_match_first(&groups, &mut r);
        let order: Vec<(usize, f64)> = r.iter().map(|x| (x.node, x.score)).collect();
        assert_eq!(
            order,
            vec![(0, 1.0), (5, 0.9), (4, 0.8), (1, 0.7), (2, 0.6), (3, 0.5)]
        );
        let alternates = groups.collapse(&mut r, |x| x.node);
        let kept: Vec<usize> = r.iter().map(|x| x.node).collect();
        assert_eq!(kept, vec![0, 5, 4]);
        assert_eq!(alternates, BTreeMap::from([(5, vec![1, 3]), (4, vec![2])]));
    }

    /// Group {s1, s2, s3}: s3 and s1 tie on the first-stage score (two identical copies), s3
    /// ranks first on graph mass. The slot goes to s1, the smaller id, whatever the graph mass
    /// says; s2 (lower first-stage score) stays an alternate. Reversing the graph-mass order
    /// of the tied pair changes nothing.
    #[test]
    fn a_tie_on_the_first_stage_score_goes_to_the_smaller_id() {
        let stored = DuplicateGroups {
            method: "test".into(),
            threshold: 0.7,
            groups: vec![vec!["s1".into(), "s2".into(), "s3".into()]],
        };
        let ids = ["s0", "s1", "s2", "s3"];
        let groups = NodeGroups::new(&stored, &ids, Path::new("x")).unwrap();
        let with = |node, score, pool, rank| RankedSkill {
            pool_score: pool,
            pool_rank: Some(rank),
            ..RankedSkill::scored(node, score)
        };
        for first in [3, 1] {
            let second = 4 - first;
            let mut r = vec![
                with(0, 1.0, 0.9, 1),
                with(first, 0.8, 0.5, 2),
                with(2, 0.7, 0.4, 4),
                with(second, 0.6, 0.5, 3),
            ];
            query_match_first(&groups, &mut r);
            assert_eq!(r[1].node, 1, "graph mass ranked s{first} first");
            assert_eq!(r[1].score, 0.8);
            let alternates = groups.collapse(&mut r, |x| x.node);
            assert_eq!(r.iter().map(|x| x.node).collect::<Vec<_>>(), vec![0, 1]);
            assert_eq!(alternates[&1].len(), 2);
        }
    }

    #[test]
    fn a_skill_with_no_lexical_hit_and_a_cosine_near_zero_is_dropped() {
        let with = |node, bm25: Option<f32>, dense: Option<f32>| RankedSkill {
            bm25_score: bm25,
            dense_score: dense,
            ..RankedSkill::scored(node, 1.0)
        };
        let mut r = vec![
            with(0, Some(3.0), Some(0.02)), // lexical match: stays
            with(1, None, Some(0.35)),      // semantic match: stays
            with(2, None, Some(-0.01)),     // neither: dropped
            with(3, None, None),            // reached by the graph only: stays
            with(4, None, Some(0.0999)),    // below 0.1: dropped
        ];
        assert_eq!(drop_unsupported(&mut r, 0.1), 2);
        assert_eq!(r.iter().map(|r| r.node).collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(drop_unsupported(&mut r, f32::NEG_INFINITY), 0);
    }
}
