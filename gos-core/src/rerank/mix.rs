//! Score mixing: how the rerankers turn a candidate's signals into its final score.
//!
//! | function | where it is used | formula |
//! | --- | --- | --- |
//! | [`final_score`] | field-evidence reranking ([`super::FieldEvidence`]) | `graph * g/max g + lexical * b/max b + dense * d + name * c` |
//! | [`cross_encoder_mix`] | the cross-encoder reranker ([`super::CrossEncoderReranker`]) | `w * sigmoid(ce) + (1 - w) * s / max s` |
//!
//! The fusion of the first-stage lists (hybrid seeds) is [`crate::seed::fusion`]. Scores are
//! `f64`.

/// `value / max`, or 0 when `max` is not positive (a signal absent from a query).
pub fn ratio(value: f64, max: f64) -> f64 {
    if max > 0.0 { value / max } else { 0.0 }
}

/// Mixing weights of the final score ([`final_score`]). Defaults were chosen on the DEV set with
/// `gos eval` (docs/evaluation.md): lexical 1.0 gave reverse bundle recall 0.736 against 0.700
/// at 0.5.
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

/// Default [`RerankWeights::graph`]: 0.5, chosen by 4-fold cross-validation over the DEV tasks
/// on the session-3 graph (`gos eval --cv 4 --sweep graph_weight=1,0.5,2`): every fold chose 0.5
/// with lexical and with hybrid seeds; out-of-fold bundle recall 0.737 (lexical) and 0.719
/// (hybrid) against 0.722 and 0.699 at the former 1.0 (docs/evaluation.md).
pub const DEFAULT_GRAPH_WEIGHT: f64 = 0.5;

impl Default for RerankWeights {
    fn default() -> Self {
        RerankWeights {
            graph: DEFAULT_GRAPH_WEIGHT,
            lexical: 1.0,
            dense: DEFAULT_DENSE_WEIGHT,
            name: 0.1,
        }
    }
}

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

/// The final score of one candidate: `graph * g/max g + lexical * b/max b + dense * d + name * c`
/// ([`ratio`] for the first two). Both ratios lie in [0, 1] before mixing, unlike the reference
/// implementation where summed field terms dwarfed PPR mass (reference notes §2.2), so the graph
/// can change the order.
pub fn final_score(w: &RerankWeights, e: &Evidence) -> f64 {
    w.graph * ratio(e.graph.0, e.graph.1)
        + w.lexical * ratio(e.lexical.0, e.lexical.1)
        + w.dense * e.dense
        + w.name * e.name
}

/// The logistic function, mapping a relevance logit to a probability.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The cross-encoder's mixed score: `weight * sigmoid(logit) + (1 - weight) * ratio(prior,
/// prior_max)`, both terms in [0, 1]. `weight = 1` is the cross-encoder alone, 0 the prior order.
pub fn cross_encoder_mix(weight: f64, logit: f32, prior: f64, prior_max: f64) -> f64 {
    weight * sigmoid(logit as f64) + (1.0 - weight) * ratio(prior, prior_max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_normalizes_each_signal() {
        let w = RerankWeights::default();
        let e = Evidence {
            graph: (0.2, 0.4),
            lexical: (5.0, 10.0),
            dense: 0.6,
            name: 1.0,
        };
        let expected = DEFAULT_GRAPH_WEIGHT * 0.5 + 0.5 + DEFAULT_DENSE_WEIGHT * 0.6 + 0.1;
        assert!((final_score(&w, &e) - expected).abs() < 1e-12);
        assert_eq!(final_score(&w, &Evidence::default()), 0.0);
    }

    #[test]
    fn cross_encoder_mix_interpolates() {
        assert!((cross_encoder_mix(1.0, 0.0, 3.0, 6.0) - 0.5).abs() < 1e-15);
        assert!((cross_encoder_mix(0.0, 9.0, 3.0, 6.0) - 0.5).abs() < 1e-15);
        assert_eq!(cross_encoder_mix(0.0, 9.0, 3.0, 0.0), 0.0);
    }
}
