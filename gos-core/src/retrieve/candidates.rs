//! The candidate list of one query: the first-stage pool plus every node the graph reached,
//! each with the evidence the rerankers read.

use crate::rerank::RankedSkill;
use crate::seed::{FirstStage, Seed};
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// One [`RankedSkill`] per pool node and per node with a positive graph score, with its
/// first-stage, BM25, dense and seed evidence; scores are 0 until a reranker sets them.
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
    let reached = graph_scores
        .iter()
        .enumerate()
        .filter(|(i, g)| **g > 0.0 && !pool.contains_key(i))
        .map(|(i, _)| i);
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
