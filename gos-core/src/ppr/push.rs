//! Local forward-push personalized PageRank (Andersen, Chung and Lang 2006).
//!
//! State: an estimate `x` (starts at 0) and a residual `r` (starts at the normalized
//! personalization `p`). With `L(y)` the exact diffusion of a non-negative vector `y`, the
//! invariant is `exact = x + L(r)`. Pushing node `u` moves `a * r_u` into `x_u` and spreads
//! `(1 - a) * r_u` along row `u` of `M` (or over `p` when `u` is dangling), which keeps the
//! invariant because `L(e_u) = a e_u + (1 - a) L(M^T e_u)`. `L` preserves L1 mass on
//! non-negative vectors, so at any time `0 <= exact - x` elementwise and
//! `||exact - x||_1 = sum(r)`: the returned residual is the exact L1 error, not an estimate.

use super::power::normalized;
use super::{PprParams, PprResult, TransitionMatrix};
use std::collections::VecDeque;

/// Personalized PageRank by forward push: nodes are pushed in FIFO order while their residual
/// is at least `params.push_epsilon * max(1, out_degree)`. Also stops after
/// `params.max_iter * nodes` pushes (a safety cap that the threshold normally never reaches).
///
/// Returns scores that are not renormalized (they sum to `1 - residual`), the number of
/// pushes in `iterations`, and the residual mass left in `residual`, which equals the L1
/// distance to the exact fixed point (module docs). Work: at most
/// `1 / (restart_prob * push_epsilon)` edge visits, independent of the graph size apart from
/// allocating the two `nodes`-long vectors.
///
/// # Panics
/// When `personalization.len()` differs from the matrix size.
pub fn push_pagerank(
    m: &TransitionMatrix,
    personalization: &[f64],
    params: &PprParams,
) -> PprResult {
    let n = m.node_count();
    assert_eq!(personalization.len(), n, "personalization length");
    let Some(p) = normalized(personalization) else {
        return PprResult {
            scores: vec![0.0; n],
            iterations: 0,
            residual: 0.0,
        };
    };
    let a = params.restart_prob;
    let eps = params.push_epsilon;
    let threshold = |u: usize| eps * (m.row(u).0.len().max(1)) as f64;
    let seeds: Vec<(usize, f64)> = p
        .iter()
        .enumerate()
        .filter(|(_, w)| **w > 0.0)
        .map(|(i, &w)| (i, w))
        .collect();
    let mut x = vec![0.0f64; n];
    let mut r = p;
    let mut queued = vec![false; n];
    let mut queue: VecDeque<u32> = VecDeque::new();
    for &(u, w) in &seeds {
        if w >= threshold(u) {
            queued[u] = true;
            queue.push_back(u as u32);
        }
    }
    let cap = params.max_iter.saturating_mul(n.max(1));
    let mut pushes = 0usize;
    while let Some(u) = queue.pop_front() {
        let u = u as usize;
        queued[u] = false;
        let ru = r[u];
        r[u] = 0.0;
        x[u] += a * ru;
        let spread = (1.0 - a) * ru;
        let (cols, probs) = m.row(u);
        let mut visit = |v: usize, add: f64, queue: &mut VecDeque<u32>| {
            r[v] += add;
            if !queued[v] && r[v] >= threshold(v) {
                queued[v] = true;
                queue.push_back(v as u32);
            }
        };
        if cols.is_empty() {
            for &(v, w) in &seeds {
                visit(v, spread * w, &mut queue);
            }
        } else {
            for (&v, &w) in cols.iter().zip(probs) {
                visit(v as usize, spread * w as f64, &mut queue);
            }
        }
        pushes += 1;
        if pushes >= cap {
            break;
        }
    }
    let residual = r.iter().sum::<f64>().max(0.0);
    PprResult {
        scores: x,
        iterations: pushes,
        residual,
    }
}
