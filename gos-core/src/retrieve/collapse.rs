//! Near-duplicate collapse in the ranked list: one member per group, the best-ranked, with the
//! others as its alternates ([`crate::workspace::duplicates::NodeGroups::collapse`]).

use crate::hydrate::Alternate;
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// Dropped group members per kept node, in rank order (node indices).
pub type Alternates = BTreeMap<usize, Vec<usize>>;

/// Collapse `ranked` (in final order) to one member per near-duplicate group of `ws` when
/// `on`; the alternates of each kept node. Without groups, or when off, nothing changes.
pub fn collapse(ws: &Workspace, ranked: &mut Vec<RankedSkill>, on: bool) -> Alternates {
    if on {
        ws.duplicates().collapse(ranked, |r| r.node)
    } else {
        Alternates::new()
    }
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
