//! Fusion of first-stage lists: how hybrid seeds turn a BM25 list and a dense list into one
//! pool.
//!
//! | function | where it is used | formula |
//! | --- | --- | --- |
//! | [`min_max`] | hybrid seeds, the dense evidence of the final score ([`crate::rerank::FieldEvidence`]) | `(v - min) / (max - min)`, 1 when the list has one value |
//! | [`reciprocal_rank_fusion`] | hybrid seeds, [`super::Fusion::Rrf`] | `sum over lists of 1 / (k + rank)` |
//! | [`weighted_fusion`] | hybrid seeds, [`super::Fusion::Weighted`] | `w * lexical + (1 - w) * dense` over min-max normalized lists |
//!
//! The later mixing of a candidate's signals into its final score is
//! [`crate::rerank::mix`]. Scores are `f64` inside and `f32` where a first-stage list stores
//! them.

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
}
