//! The candidate list of one query: the first-stage pool plus every node the graph reached,
//! each with the evidence the rerankers read.

use crate::rerank::RankedSkill;
use crate::seed::{FirstStage, Seed};
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// Most graph-reached candidates outside the first-stage pool that [`assemble`] keeps: the
/// ones with the most graph mass. A walk over semantic edges reaches thousands of skills with
/// vanishing mass, and reranking them all cost 1.6 ms of a 6 ms lexical retrieval on the real
/// library; a skill past the 200th by graph mass and outside the pool has never reached a DEV
/// bundle or a ranked list's top 50 (docs/graph-quality.md, "Session 16").
pub const MAX_REACHED: usize = 200;

/// One [`RankedSkill`] per pool node and per node with a positive graph score (at most
/// [`MAX_REACHED`] of those outside the pool, the ones with the most mass, ties to the lower
/// node index), with its first-stage, BM25, dense and seed evidence; scores are 0 until a
/// reranker sets them.
pub fn assemble(
    ws: &Workspace,
    first: &FirstStage,
    seeds: &[Seed],
    graph_scores: &[f64],
) -> Vec<RankedSkill> {
    let pool: BTreeMap<usize, (usize, f32)> = first
        .pool
        .iter()
        .enumerate()
        .map(|(i, &(node, score))| (node, (i + 1, score)))
        .collect();
    let bm25: BTreeMap<usize, f32> = first.bm25.iter().copied().collect();
    let dense: BTreeMap<usize, f32> = first.dense.iter().copied().collect();
    let seed_rank: BTreeMap<usize, usize> = seeds.iter().map(|s| (s.node, s.rank)).collect();
    let mut reached: Vec<usize> = graph_scores
        .iter()
        .enumerate()
        .filter(|(i, g)| **g > 0.0 && !pool.contains_key(i))
        .map(|(i, _)| i)
        .collect();
    if reached.len() > MAX_REACHED {
        let by_mass =
            |a: &usize, b: &usize| graph_scores[*b].total_cmp(&graph_scores[*a]).then(a.cmp(b));
        reached.select_nth_unstable_by(MAX_REACHED - 1, by_mass);
        reached.truncate(MAX_REACHED);
        reached.sort_unstable();
    }
    pool.keys()
        .copied()
        .chain(reached)
        .map(|node| {
            let (pool_rank, pool_score) =
                pool.get(&node).map_or((None, 0.0), |&(r, s)| (Some(r), s));
            RankedSkill {
                node,
                id: ws.manifest().nodes[node].id.clone(),
                score: 0.0,
                graph_score: graph_scores[node],
                pool_score,
                pool_rank,
                bm25_score: bm25.get(&node).copied(),
                dense_score: dense.get(&node).copied(),
                seed_rank: seed_rank.get(&node).copied(),
                cross_encoder_score: None,
            }
        })
        .collect()
}
