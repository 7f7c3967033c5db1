//! Score fusion: every place where gos turns several scores into one.
//!
//! | function | where it is used | formula |
//! | --- | --- | --- |
//! | [`min_max`] | hybrid seeds, the dense evidence of the final score | `(v - min) / (max - min)`, 1 when the list has one value |
//! | [`reciprocal_rank_fusion`] | hybrid seeds, [`crate::seed::Fusion::Rrf`] | `sum over lists of 1 / (k + rank)` |
//! | [`weighted_fusion`] | hybrid seeds, [`crate::seed::Fusion::Weighted`] | `w * lexical + (1 - w) * dense` over min-max normalized lists |
//! | [`final_score`] | field-evidence reranking ([`crate::rerank::FieldEvidence`]) | `graph * g/max g + lexical * b/max b + dense * d + name * c` |
//! | [`cross_encoder_mix`] | the cross-encoder reranker ([`crate::rerank::CrossEncoderReranker`]) | `w * sigmoid(ce) + (1 - w) * s / max s` |
//!
//! Scores are `f64` inside and `f32` where a first-stage list stores them.

use std::collections::HashMap;
use std::ops::{Div, Sub};

/// `value` min-max normalized into `[0, 1]` against `min` and `max` of its list; 1 when the
/// list has a single value (`max <= min`). Computed in the precision of `T` (cosines are `f32`
/// as stored, fused scores `f64`), then widened.
pub fn min_max<T>(value: T, min: T, max: T) -> f64
where
    T: Copy + Default + PartialOrd + Sub<Output = T> + Div<Output = T> + Into<f64>,
{
    let span = max - min;
    if span > T::default() {
        ((value - min) / span).into()
    } else {
        1.0
    }
}

/// `value / max`, or 0 when `max` is not positive (a signal absent from a query).
pub fn ratio(value: f64, max: f64) -> f64 {
    if max > 0.0 { value / max } else { 0.0 }
}

/// Reciprocal rank fusion of ranked lists (each by descending score): `(node, fused score)` by
/// descending fused score, ties by node index (Cormack, Clarke and Buettcher, SIGIR 2009).
pub fn reciprocal_rank_fusion(lists: &[&[(usize, f32)]], k: f64) -> Vec<(usize, f32)> {
    let mut fused: HashMap<usize, f64> = HashMap::new();
    for list in lists {
        for (r, &(node, _)) in list.iter().enumerate() {
            *fused.entry(node).or_insert(0.0) += 1.0 / (k + (r + 1) as f64);
        }
    }
    sorted(fused)
}

/// Weighted fusion of a lexical and a dense list: each list's scores min-max normalized
/// ([`min_max`]) within the list, then `lexical_weight * lexical + (1 - lexical_weight) * dense`
/// (a node missing from a list scores 0 there). By descending fused score, ties by node index.
pub fn weighted_fusion(
    lexical: &[(usize, f32)],
    dense: &[(usize, f32)],
    lexical_weight: f64,
) -> Vec<(usize, f32)> {
    let mut fused: HashMap<usize, f64> = HashMap::new();
    for (list, w) in [(lexical, lexical_weight), (dense, 1.0 - lexical_weight)] {
        let max = list.iter().map(|h| h.1).fold(f32::MIN, f32::max) as f64;
        let min = list.iter().map(|h| h.1).fold(f32::MAX, f32::min) as f64;
        for &(node, score) in list {
            *fused.entry(node).or_insert(0.0) += w * min_max(score as f64, min, max);
        }
    }
    sorted(fused)
}

fn sorted(fused: HashMap<usize, f64>) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = fused.into_iter().map(|(n, s)| (n, s as f32)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
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
    fn rrf_sums_reciprocal_ranks() {
        let a = [(7, 9.0f32), (3, 5.0)];
        let b = [(3, 0.9f32), (1, 0.8)];
        let f = reciprocal_rank_fusion(&[&a, &b], 60.0);
        assert_eq!(f[0].0, 3);
        assert!((f[0].1 as f64 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-7);
        // 7 and 1 both have one rank-1 / rank-2 entry: 7 (1/61) before 1 (1/62).
        assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 7, 1]);
    }

    #[test]
    fn weighted_fusion_min_max_normalizes_each_list() {
        let lex = [(1, 10.0f32), (2, 5.0), (3, 0.0)];
        let dense = [(3, 0.9f32), (2, 0.5)];
        let f = weighted_fusion(&lex, &dense, 0.5);
        let get = |n| f.iter().find(|x| x.0 == n).unwrap().1;
        assert!((get(1) - 0.5).abs() < 1e-6);
        assert!((get(2) - 0.25).abs() < 1e-6);
        assert!((get(3) - 0.5).abs() < 1e-6);
        assert_eq!(f[0].0, 1, "ties by node index");
    }

    #[test]
    fn min_max_of_a_single_value_is_one() {
        assert_eq!(min_max(0.4, 0.4, 0.4), 1.0);
        assert!((min_max(0.5, 0.0, 2.0) - 0.25).abs() < 1e-15);
        // f32 inputs are normalized in f32, as the stored cosines are.
        let (v, lo, hi) = (0.7f32, 0.3f32, 0.9f32);
        assert_eq!(min_max(v, lo, hi), ((v - lo) / (hi - lo)) as f64);
    }

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
