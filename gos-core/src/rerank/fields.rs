//! Field-evidence reranking: the final score of every candidate from its graph score and the
//! evidence of the query in its fields.
//!
//! `score(v) = graph * g(v)/max g + lexical * b(v)/max b + dense * d(v) + name * c(v)`
//! ([`crate::rerank::mix::final_score`]) where `g` is the diffusion score (PPR, one-hop mass, or the
//! personalization vector itself in no-graph mode), `b` the BM25 score over the boosted fields
//! (0 outside the BM25 pool), `d` the cosine with the query min-max normalized over the dense
//! pool (0 outside it, and for lexical seeds, which compute no cosines) and `c` the share of the
//! skill name's tokens present in the query (token level with word boundaries, so a skill named
//! `ck` does not match "check", the reference's §7.16 flaw).

use super::{RankedSkill, RerankContext, Reranker};
use crate::error::Result;
use crate::rerank::mix::{Evidence, RerankWeights, final_score};
use crate::seed::fusion::min_max;
use std::collections::BTreeMap;

/// The field-evidence reranker. Cost: O(c log c) for c candidates.
pub struct FieldEvidence<'a> {
    weights: RerankWeights,
    name_tokens: &'a [Vec<String>],
}

impl<'a> FieldEvidence<'a> {
    /// A reranker mixing by `weights`; `name_tokens[node]` are the analyzed tokens of each
    /// skill's name (same analyzer as the query terms).
    pub fn new(weights: RerankWeights, name_tokens: &'a [Vec<String>]) -> Self {
        FieldEvidence {
            weights,
            name_tokens,
        }
    }
}

impl Reranker for FieldEvidence<'_> {
    /// Scores every candidate (the maxima are taken over the candidates, which hold every
    /// node with graph mass and every first-stage hit) and sorts by descending score, ties by
    /// node index.
    fn rerank(&self, candidates: &mut Vec<RankedSkill>, ctx: &RerankContext<'_>) -> Result<()> {
        let max_graph = candidates.iter().map(|c| c.graph_score).fold(0.0, f64::max);
        let max_bm25 = candidates
            .iter()
            .filter_map(|c| c.bm25_score)
            .fold(0.0f32, f32::max) as f64;
        let cosines = candidates.iter().filter_map(|c| c.dense_score);
        let (dmin, dmax) = cosines.fold((f32::MAX, f32::MIN), |(lo, hi), c| (lo.min(c), hi.max(c)));
        for c in candidates.iter_mut() {
            let evidence = Evidence {
                graph: (c.graph_score, max_graph),
                lexical: (c.bm25_score.unwrap_or(0.0) as f64, max_bm25),
                dense: c.dense_score.map_or(0.0, |d| min_max(d, dmin, dmax)),
                name: name_coverage(&self.name_tokens[c.node], &ctx.query.terms),
            };
            c.score = final_score(&self.weights, &evidence);
        }
        candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        Ok(())
    }
}

/// Share (0..=1) of `name_tokens` found in `query_terms`; tokens shorter than 3 bytes do not
/// count, and a name with no such token scores 0.
pub fn name_coverage(name_tokens: &[String], query_terms: &BTreeMap<String, u32>) -> f64 {
    let useful: Vec<&String> = name_tokens.iter().filter(|t| t.len() >= 3).collect();
    if useful.is_empty() {
        return 0.0;
    }
    let hit = useful
        .iter()
        .filter(|t| query_terms.contains_key(t.as_str()))
        .count();
    hit as f64 / useful.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diffuse::RetrievalMode;
    use crate::query::Query;

    #[test]
    fn name_coverage_is_token_level() {
        let q: BTreeMap<String, u32> = [("check".to_string(), 1), ("mesh".to_string(), 2)]
            .into_iter()
            .collect();
        assert_eq!(name_coverage(&["ck".into()], &q), 0.0);
        assert_eq!(name_coverage(&["mesh".into(), "analysi".into()], &q), 0.5);
    }

    fn candidate(node: usize, graph: f64, bm25: Option<f32>, dense: Option<f32>) -> RankedSkill {
        RankedSkill {
            node,
            id: format!("s{node}"),
            score: 0.0,
            graph_score: graph,
            pool_score: 0.0,
            pool_rank: None,
            bm25_score: bm25,
            dense_score: dense,
            seed_rank: None,
            cross_encoder_score: None,
        }
    }

    #[test]
    fn field_evidence_mixes_normalized_signals_and_sorts() {
        let names = vec![vec!["mesh".to_string()], vec![], vec![]];
        let query = Query::new("mesh volume");
        let text = |_: &RankedSkill| Ok(String::new());
        let ctx = RerankContext {
            query: &query,
            mode: RetrievalMode::Reverse,
            eligible: 3,
            top_n: 8,
            text: &text,
        };
        let mut c = vec![
            candidate(0, 0.1, Some(5.0), Some(0.5)),
            candidate(1, 0.4, Some(10.0), Some(0.7)),
            candidate(2, 0.2, None, Some(0.3)),
        ];
        FieldEvidence::new(RerankWeights::default(), &names)
            .rerank(&mut c, &ctx)
            .unwrap();
        let order: Vec<usize> = c.iter().map(|r| r.node).collect();
        assert_eq!(order, [1, 0, 2]);
        // Graph weight 0.5, BM25 1, dense 0.5, name 0.1 (defaults). Node 1: 0.5 * 1 + 1 + 0.5 * 1;
        // node 0: 0.5 * 0.25 + 0.5 + 0.5 * 0.5 + 0.1 * 1; node 2: 0.5 * 0.5.
        assert!((c[0].score - 2.0).abs() < 1e-12);
        assert!((c[1].score - 0.975).abs() < 1e-12);
        assert!((c[2].score - 0.25).abs() < 1e-12);
    }
}
