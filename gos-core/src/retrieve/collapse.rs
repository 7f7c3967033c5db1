//! Near-duplicate collapse in the ranked list: one member per group, the best-ranked, with the
//! others as its alternates ([`crate::workspace::duplicates::NodeGroups::collapse`]).

use crate::hydrate::Alternate;
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// Dropped group members per kept node, in rank order (node indices).
pub type Alternates = BTreeMap<usize, Vec<usize>>;

/// Collapse `ranked` (in final order) to one member per group of `ws`: the alternative
/// groups merged with the near-duplicate ones when `alternatives`, else the near-duplicate
/// groups when `duplicates`; the alternates of each kept node. Without groups, or when both
/// are off, nothing changes.
pub fn collapse(
    ws: &Workspace,
    ranked: &mut Vec<RankedSkill>,
    duplicates: bool,
    alternatives: bool,
) -> Alternates {
    if alternatives {
        ws.alternative_groups().collapse(ranked, |r| r.node)
    } else if duplicates {
        ws.duplicates().collapse(ranked, |r| r.node)
    } else {
        Alternates::new()
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
