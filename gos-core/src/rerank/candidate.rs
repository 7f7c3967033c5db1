//! The candidate of a retrieval: one skill with the evidence every stage gathered about it.

use serde::Serialize;

/// One candidate of a retrieval with the evidence every stage gathered about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedSkill {
    /// Node index.
    pub node: usize,
    /// Skill id.
    pub id: String,
    /// Final score (set by the rerankers; non-increasing down a reranked list).
    pub score: f64,
    /// Graph score (PPR mass, one-hop mass or seed weight), unnormalized.
    pub graph_score: f64,
    /// First-stage score (BM25, cosine or fused, by seed source), 0 outside the pool.
    pub pool_score: f32,
    /// 1-based rank in the first-stage pool.
    pub pool_rank: Option<usize>,
    /// BM25 score when the node is in the BM25 top-`pool_k`.
    pub bm25_score: Option<f32>,
    /// Cosine with the query when the node is in the dense top-`pool_k`.
    pub dense_score: Option<f32>,
    /// 1-based seed rank.
    pub seed_rank: Option<usize>,
    /// Cross-encoder score (logit scale) when the cross-encoder stage scored this candidate.
    pub cross_encoder_score: Option<f32>,
}

#[cfg(test)]
impl RankedSkill {
    /// A candidate with only its node, id `s{node}` and final score set (unit tests).
    pub(crate) fn scored(node: usize, score: f64) -> Self {
        RankedSkill {
            node,
            id: format!("s{node}"),
            score,
            graph_score: 0.0,
            pool_score: 0.0,
            pool_rank: None,
            bm25_score: None,
            dense_score: None,
            seed_rank: None,
            cross_encoder_score: None,
        }
    }
}
