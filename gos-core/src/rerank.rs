//! Reranking: the final order of candidates from graph score and field evidence.
//!
//! `score(v) = graph * g(v)/max g + lexical * b(v)/max b + dense * d(v) + name * c(v)` where `g`
//! is the diffusion score (PPR, one-hop mass, or the personalization vector itself in no-graph
//! mode), `b` the BM25 score over the boosted fields (0 outside the BM25 pool), `d` the cosine
//! with the query min-max normalized over the dense pool (0 outside it, and for lexical seeds,
//! which compute no cosines) and `c` the share of
//! the skill name's tokens present in the query (token level with word boundaries, so a skill
//! named `ck` does not match "check", the reference's §7.16 flaw). Both scores are normalized
//! to [0, 1] before mixing, unlike the reference where summed field terms dwarfed PPR mass
//! (§2.2), so the graph can change the order.

use std::collections::BTreeMap;

/// Mixing weights of the final score. Defaults were chosen on the DEV set with `gos eval`
/// (docs/evaluation.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RerankWeights {
    /// Weight of the normalized graph score.
    pub graph: f64,
    /// Weight of the normalized BM25 field evidence.
    pub lexical: f64,
    /// Weight of the normalized dense (cosine) evidence; only dense and hybrid seeds have it.
    pub dense: f64,
    /// Weight of the query's coverage of the skill name.
    pub name: f64,
}

/// Default [`RerankWeights::dense`], chosen on the DEV set (docs/evaluation.md).
pub const DEFAULT_DENSE_WEIGHT: f64 = 0.5;

/// The evidence of one candidate, each signal with the maximum it is normalized by.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Evidence {
    /// Graph score and the largest graph score of the query.
    pub graph: (f64, f64),
    /// BM25 score (0 outside the pool) and the best BM25 score of the query.
    pub lexical: (f64, f64),
    /// Dense evidence already normalized to [0, 1].
    pub dense: f64,
    /// Name coverage in [0, 1].
    pub name: f64,
}

impl Default for RerankWeights {
    fn default() -> Self {
        RerankWeights {
            graph: 1.0,
            lexical: 1.0,
            dense: DEFAULT_DENSE_WEIGHT,
            name: 0.1,
        }
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

/// Combine the evidence of one node (see the module docs).
pub fn combine(w: &RerankWeights, e: &Evidence) -> f64 {
    let ratio = |(v, max): (f64, f64)| if max > 0.0 { v / max } else { 0.0 };
    w.graph * ratio(e.graph) + w.lexical * ratio(e.lexical) + w.dense * e.dense + w.name * e.name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_coverage_is_token_level() {
        let q: BTreeMap<String, u32> = [("check".to_string(), 1), ("mesh".to_string(), 2)]
            .into_iter()
            .collect();
        assert_eq!(name_coverage(&["ck".into()], &q), 0.0);
        assert_eq!(name_coverage(&["mesh".into(), "analysi".into()], &q), 0.5);
    }

    #[test]
    fn combine_normalizes_each_signal() {
        let w = RerankWeights::default();
        let e = Evidence {
            graph: (0.2, 0.4),
            lexical: (5.0, 10.0),
            dense: 0.6,
            name: 1.0,
        };
        let expected = 0.5 + 0.5 + DEFAULT_DENSE_WEIGHT * 0.6 + 0.1;
        assert!((combine(&w, &e) - expected).abs() < 1e-12);
        assert_eq!(combine(&w, &Evidence::default()), 0.0);
    }
}
