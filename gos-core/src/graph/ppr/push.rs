//! Local forward-push personalized PageRank (Andersen, Chung and Lang 2006).
//!
//! State: an estimate `x` (starts at 0) and a residual `r` (starts at the normalized
//! personalization `p`). With `L(y)` the exact diffusion of a non-negative vector `y`, the
//! invariant is `exact = x + L(r)`. Pushing node `u` moves `a * r_u` into `x_u` and spreads
//! `(1 - a) * r_u` along row `u` of `M` and its leak share `leak_u` over `p` (all of it when `u`
//! is dangling), which keeps the invariant because
//! `L(e_u) = a e_u + (1 - a) (L(M^T e_u) + leak_u L(p))`. `L` preserves L1 mass on
//! non-negative vectors, so at any time `0 <= exact - x` elementwise and
//! `||exact - x||_1 = sum(r)`: the returned residual is the exact L1 error, not an estimate.

use super::power::normalized;
use super::{CsrArrays, PprParams, PprResult, TransitionMatrix};
use std::collections::VecDeque;

/// Share of the nodes (`1 / SWEEP_SHARE`) in the queue at which push switches to sweeps.
const SWEEP_SHARE: usize = 16;

/// Push node `u`: move `a * r_u` into `x_u` and spread `(1 - a) * r_u` along CSR row `u`, its
/// leak share ([`CsrArrays::leak`]: all of it when `u` is dangling) over the seeds, calling
/// `touched(v, new r_v)` for every receiver.
fn push_node(
    m: CsrArrays<'_>,
    a: f64,
    u: usize,
    x: &mut [f64],
    r: &mut [f64],
    seeds: &[(usize, f64)],
    mut touched: impl FnMut(usize, f64),
) {
    let ru = r[u];
    r[u] = 0.0;
    x[u] += a * ru;
    let spread = (1.0 - a) * ru;
    let (cols, probs) = m.row(u);
    let leak = m.leak(u);
    if leak > 0.0 {
        for &(v, w) in seeds {
            r[v] += spread * leak * w;
            touched(v, r[v]);
        }
    }
    for (&v, &w) in cols.iter().zip(probs) {
        let v = v as usize;
        r[v] += spread * w as f64;
        touched(v, r[v]);
    }
}

/// Personalized PageRank by forward push: nodes are pushed in FIFO order while their residual
/// is at least `params.push_epsilon * max(1, out_degree)`, switching to in-order sweeps over
/// all nodes when more than 1/16 of them are active at once. Also stops after
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
        return PprResult::zeros(n);
    };
    let a = params.restart_prob;
    let eps = params.push_epsilon;
    let csr = m.arrays();
    let threshold = |u: usize| eps * (csr.degree(u).max(1)) as f64;
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
    // Local phase: FIFO queue of nodes above threshold. When the active set grows past
    // `n / SWEEP_SHARE` the diffusion is global (e.g. on expander-like graphs) and in-order
    // sweeps over all nodes (Gauss-Seidel order, sequential row reads) are cheaper than the
    // queue; the threshold and therefore the error statement are the same in both phases.
    let sweep_at = (n / SWEEP_SHARE).max(64);
    let mut global = false;
    while let Some(u) = queue.pop_front() {
        let u = u as usize;
        queued[u] = false;
        push_node(csr, a, u, &mut x, &mut r, &seeds, |v, r| {
            if !queued[v] && r >= threshold(v) {
                queued[v] = true;
                queue.push_back(v as u32);
            }
        });
        pushes += 1;
        if pushes >= cap {
            break;
        }
        if queue.len() > sweep_at {
            global = true;
            break;
        }
    }
    while global && pushes < cap {
        let mut pushed = false;
        for u in 0..n {
            if r[u] > 0.0 && r[u] >= threshold(u) {
                push_node(csr, a, u, &mut x, &mut r, &seeds, |_, _| {});
                pushes += 1;
                pushed = true;
            }
        }
        global = pushed;
    }
    let residual = r.iter().sum::<f64>().max(0.0);
    PprResult {
        scores: x,
        iterations: pushes,
        residual,
    }
}
