//! Exact personalized PageRank by power iteration: the reference solver.

use super::{PprParams, PprResult, TransitionMatrix};

/// Normalize `personalization` to sum 1; `None` when it sums to zero or less.
pub(super) fn normalized(personalization: &[f64]) -> Option<Vec<f64>> {
    let total: f64 = personalization.iter().sum();
    (total > 0.0).then(|| personalization.iter().map(|x| x / total).collect())
}

/// Personalized PageRank by power iteration: `s' = a p + (1 - a) (M^T s + d(s) p)` from
/// `s = p` until the L1 change is at most `params.tolerance` or `params.max_iter` iterations
/// have run (\[C\] `personalized_pagerank`). The result is normalized to sum 1; its L1 distance
/// to the fixed point is at most `residual * (1 - a) / a`.
///
/// `personalization` has one non-negative entry per node; it is normalized to sum 1. An
/// all-zero vector gives all-zero scores. `M^T s` is a scatter over the rows of the CSR
/// matrix in row order, in `f64`. Cost: O(iterations * (nodes + nonzeros)) time,
/// three vectors of `nodes` f64.
///
/// # Panics
/// When `personalization.len()` differs from the matrix size.
pub fn personalized_pagerank(
    m: &TransitionMatrix,
    personalization: &[f64],
    params: &PprParams,
) -> PprResult {
    let n = m.node_count();
    assert_eq!(personalization.len(), n, "personalization length");
    let Some(p) = normalized(personalization) else {
        return PprResult::zeros(n);
    };
    let a = params.restart_prob;
    let csr = m.arrays();
    let mut s = p.clone();
    let mut next = vec![0.0; n];
    let mut iterations = 0;
    let mut residual = f64::INFINITY;
    while iterations < params.max_iter {
        iterations += 1;
        next.iter_mut().for_each(|x| *x = 0.0);
        let mut dangling_mass = 0.0;
        for (u, &su) in s.iter().enumerate() {
            if su == 0.0 {
                continue;
            }
            let (cols, probs) = csr.row(u);
            let leak = csr.leak(u);
            if leak > 0.0 {
                dangling_mass += su * leak;
            }
            for (&v, &w) in cols.iter().zip(probs) {
                next[v as usize] += su * w as f64;
            }
        }
        residual = 0.0;
        for ((x, &pv), &sv) in next.iter_mut().zip(&p).zip(&s) {
            *x = a * pv + (1.0 - a) * (*x + dangling_mass * pv);
            residual += (*x - sv).abs();
        }
        std::mem::swap(&mut s, &mut next);
        if residual <= params.tolerance {
            break;
        }
    }
    let sum: f64 = s.iter().sum();
    if sum > 0.0 {
        s.iter_mut().for_each(|x| *x /= sum);
    }
    PprResult {
        scores: s,
        iterations,
        residual,
    }
}
