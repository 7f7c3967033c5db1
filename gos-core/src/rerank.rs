//! Reranking: the final order of candidates from graph score and field evidence.
//!
//! `score(v) = graph * g(v)/max g + lexical * b(v)/max b + name * c(v)` where `g` is the
//! diffusion score (PPR, one-hop mass, or the personalization vector itself in no-graph mode),
//! `b` the BM25 score over the boosted fields (0 outside the lexical pool) and `c` the share of
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
    /// Weight of the query's coverage of the skill name.
    pub name: f64,
}

impl Default for RerankWeights {
    fn default() -> Self {
        RerankWeights {
            graph: 1.0,
            lexical: 1.0,
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

/// Combine the three evidence values for one node (see the module docs).
pub fn combine(
    w: &RerankWeights,
    graph: f64,
    max_graph: f64,
    lexical: f64,
    max_lexical: f64,
    name_cov: f64,
) -> f64 {
    let g = if max_graph > 0.0 {
        graph / max_graph
    } else {
        0.0
    };
    let b = if max_lexical > 0.0 {
        lexical / max_lexical
    } else {
        0.0
    };
    w.graph * g + w.lexical * b + w.name * name_cov
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
        assert!((combine(&w, 0.2, 0.4, 5.0, 10.0, 1.0) - (0.5 + 0.5 + 0.1)).abs() < 1e-12);
        assert_eq!(combine(&w, 0.0, 0.0, 0.0, 0.0, 0.0), 0.0);
    }
}
