//! All nearest neighbours of a vector collection: each row's `k` most similar *other* rows,
//! the self-join the semantic edges of a build read (`gos_build::semantic`).
//!
//! - **Exact, blocked** ([`exact_all_top_k`]) up to a size limit: blocks of
//!   [`QUERY_BLOCK`] rows against blocks of [`CANDIDATE_BLOCK`] rows as one matrix product
//!   (`matrixmultiply::sgemm`, which picks AVX2/FMA kernels at run time), query blocks in
//!   parallel (rayon); each pair is scored once (by the block of its smaller row) and offered
//!   to both rows, which keep their best candidates above a running floor, so selection costs
//!   two comparisons per pair. Cost: N² · dim / 2 multiply-adds and N² comparisons; memory
//!   one `QUERY_BLOCK x CANDIDATE_BLOCK` tile per thread and one `k`-list per row. docs/graph-quality.md has the
//!   timings (100,000 x 384).
//! - **HNSW** ([`hnsw_all_top_k`]) above it: an instant-distance graph over all rows, then one
//!   search per row. Approximate (recall depends on the data; docs/performance.md), sub-quadratic.
//!
//! Both return, for row `i`, `(row, cosine)` by descending cosine, ties by smaller row, `i`
//! itself left out; rows must be L2-normalized for the scores to be cosines.

use crate::index::dense::search::{HnswParams, build_hnsw, hnsw_search};
use crate::index::dense::vectors::Vectors;
use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

/// Rows per query block of the exact search.
pub const QUERY_BLOCK: usize = 128;
/// Rows per candidate block of the exact search (a tile of 128 x 2,048 f32 is 1 MiB).
pub const CANDIDATE_BLOCK: usize = 2_048;

/// Neighbour lists of every row: exact up to `exact_limit` rows, HNSW with `params` above.
pub fn all_top_k(
    vectors: &Vectors,
    k: usize,
    exact_limit: usize,
    params: &HnswParams,
) -> Vec<Vec<(usize, f32)>> {
    if vectors.len() <= exact_limit {
        exact_all_top_k(vectors, k)
    } else {
        hnsw_all_top_k(vectors, k, params)
    }
}

fn order(a: &(usize, f32), b: &(usize, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The best `k` of a stream of candidates: a buffer trimmed to `k` whenever it grows past
/// `4k`, with the k-th score as the floor below which candidates are not kept.
struct Best {
    k: usize,
    floor: f32,
    items: Vec<(usize, f32)>,
}

impl Best {
    fn new(k: usize) -> Self {
        Best {
            k,
            floor: f32::NEG_INFINITY,
            items: Vec::with_capacity(4 * k + 1),
        }
    }

    fn trim(&mut self) {
        if self.items.len() > self.k {
            self.items.select_nth_unstable_by(self.k - 1, order);
            self.items.truncate(self.k);
        }
        if self.items.len() == self.k {
            self.floor = self.items.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
        }
    }

    fn push(&mut self, row: usize, score: f32) {
        // Ties with the floor stay: the smaller row may win them.
        if score >= self.floor {
            self.items.push((row, score));
            if self.items.len() >= 4 * self.k {
                self.trim();
            }
        }
    }

    fn finish(mut self) -> Vec<(usize, f32)> {
        self.trim();
        self.items.sort_by(order);
        self.items
    }
}

/// `out[r * ld + j] = a_r . b_j` for each row `a_r` of `a` and `b_j` of `b` (both row-major,
/// `dim` values a row), through `matrixmultiply::sgemm`. Both [`exact_all_top_k`] and
/// [`update_exact_top_k`] score pairs here, so the update's scores are the full pass's bits.
///
/// # Panics
/// When `dim` is 0, `ld` is less than `b`'s row count, or `out` cannot hold the rows.
fn scores_into(a: &[f32], b: &[f32], dim: usize, out: &mut [f32], ld: usize) {
    let (m, w) = (a.len() / dim, b.len() / dim);
    assert!(ld >= w && (m == 0 || out.len() >= (m - 1) * ld + w));
    // SAFETY: `a` is m x dim row-major, `b` is w x dim row-major read as its transpose
    // (dim x w: row stride 1, column stride dim), `out` holds the m x w cells at row stride
    // `ld` (asserted above); beta = 0 means `out` is only written.
    unsafe {
        matrixmultiply::sgemm(
            m,
            dim,
            w,
            1.0,
            a.as_ptr(),
            dim as isize,
            1,
            b.as_ptr(),
            1,
            dim as isize,
            0.0,
            out.as_mut_ptr(),
            ld as isize,
            1,
        );
    }
}

/// Exact neighbour lists of every row (module docs). Each pair is scored once, by the block of
/// its smaller row, and offered to both rows: the larger row's list is shared (a lock per row,
/// taken only for candidates above the row's floor), so the cost is N² · dim / 2
/// multiply-adds.
pub fn exact_all_top_k(vectors: &Vectors, k: usize) -> Vec<Vec<(usize, f32)>> {
    let (n, dim) = (vectors.len(), vectors.header.dim);
    if k == 0 || n < 2 || dim == 0 {
        return vec![Vec::new(); n];
    }
    let data = &vectors.data[..n * dim];
    // Per row: its best among the smaller rows (filled by their blocks), and that list's floor
    // as f32 bits for a lock-free first test.
    let shared: Vec<Mutex<Best>> = (0..n).map(|_| Mutex::new(Best::new(k))).collect();
    let floors: Vec<AtomicU32> = (0..n)
        .map(|_| AtomicU32::new(f32::NEG_INFINITY.to_bits()))
        .collect();
    let own: Vec<Vec<Best>> = (0..n.div_ceil(QUERY_BLOCK))
        .into_par_iter()
        .map(|b| {
            let q0 = b * QUERY_BLOCK;
            let m = QUERY_BLOCK.min(n - q0);
            let mut best: Vec<Best> = (0..m).map(|_| Best::new(k)).collect();
            let mut tile = vec![0.0f32; m * CANDIDATE_BLOCK];
            let mut col_floor = vec![0.0f32; CANDIDATE_BLOCK];
            let mut spill: Vec<(usize, f32, usize)> = Vec::new();
            let a = &data[q0 * dim..(q0 + m) * dim];
            // Columns from this block's first row on: pairs with a smaller row were scored by
            // that row's block.
            let mut c0 = q0;
            while c0 < n {
                let w = CANDIDATE_BLOCK.min(n - c0);
                let bmat = &data[c0 * dim..(c0 + w) * dim];
                scores_into(a, bmat, dim, &mut tile, w);
                for (j, f) in col_floor[..w].iter_mut().enumerate() {
                    *f = f32::from_bits(floors[c0 + j].load(Ordering::Relaxed));
                }
                for (r, top) in best.iter_mut().enumerate() {
                    let me = q0 + r;
                    // Only columns after the row: in the first tile, skip the block's square
                    // up to and including the diagonal.
                    let from = (me + 1).saturating_sub(c0).min(w);
                    let row = &tile[r * w..(r + 1) * w];
                    for (j, &s) in row.iter().enumerate().skip(from) {
                        if s >= top.floor {
                            top.push(c0 + j, s);
                        }
                        if s >= col_floor[j] {
                            spill.push((c0 + j, s, me));
                        }
                    }
                }
                spill.sort_unstable_by_key(|x| x.0);
                for group in spill.chunk_by(|x, y| x.0 == y.0) {
                    let col = group[0].0;
                    let mut list = shared[col].lock().unwrap_or_else(|e| e.into_inner());
                    for &(_, s, row) in group {
                        list.push(row, s);
                    }
                    list.trim();
                    floors[col].store(list.floor.to_bits(), Ordering::Relaxed);
                }
                spill.clear();
                c0 += w;
            }
            best
        })
        .collect();
    own.into_iter()
        .flatten()
        .zip(shared)
        .map(|(mine, theirs)| {
            let theirs = theirs.into_inner().unwrap_or_else(|e| e.into_inner());
            let mut all = mine.finish();
            all.extend(theirs.finish());
            all.sort_by(order);
            all.truncate(k);
            all
        })
        .collect()
}

/// Approximate neighbour lists of every row through an HNSW graph built with `params` (its
/// `ef_search` bounds the list length). Cost: the HNSW build plus N searches.
pub fn hnsw_all_top_k(vectors: &Vectors, k: usize, params: &HnswParams) -> Vec<Vec<(usize, f32)>> {
    if k == 0 || vectors.len() < 2 {
        return vec![Vec::new(); vectors.len()];
    }
    let hnsw = build_hnsw(vectors, params);
    (0..vectors.len())
        .into_par_iter()
        .map(|i| {
            let mut row: Vec<(usize, f32)> = hnsw_search(&hnsw, vectors.row(i), k + 1)
                .into_iter()
                .filter(|&(j, _)| j != i)
                .collect();
            row.sort_by(order);
            row.truncate(k);
            row
        })
        .collect()
}

/// Rows whose lists [`update_exact_top_k`] recomputes at most; with more, a caller runs
/// [`exact_all_top_k`] again (each recomputed row reads every vector once more).
pub const MAX_UPDATED_ROWS: usize = 512;

/// Rows per matrix product in [`update_exact_top_k`] (a 32 x 100,000 score block is 12.8 MB).
const UPDATE_BLOCK: usize = 32;

/// The best `k` of `list` by [`order`], sorted.
fn best_k(mut list: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    if list.len() > k {
        list.select_nth_unstable_by(k - 1, order);
        list.truncate(k);
    }
    list.sort_by(order);
    list
}

/// `rows` made exact again after the vectors of the rows `changed` changed: `rows` must be
/// [`exact_all_top_k`]`(old, k)` of a collection `old` with the same count and dimension that
/// differs from `vectors` only in the rows `changed` (repeats allowed). Returns what
/// [`exact_all_top_k`] returns over `vectors`, bit for bit, or `None` when more than
/// [`MAX_UPDATED_ROWS`] rows need a new list (the caller then runs the full pass).
///
/// A row that is changed, or whose old list holds a changed row, gets a new list from its
/// scores against every row; any other row keeps its old list with the changed rows' new
/// scores merged in (every other score it saw is unchanged, and a row outside its list ranked
/// below the list's last). The scores come from the same `sgemm` as the full pass: in
/// matrixmultiply 0.3's kernels each cell is one accumulator summed over the depth in order,
/// in depth blocks that do not depend on the block shapes, and `a_c . b_i` multiplies the
/// same factors as `a_i . b_c`, so the bits are the full pass's (test
/// `updated_lists_equal_a_full_pass_bit_for_bit`; re-check on a matrixmultiply upgrade).
/// Vectors read from a workspace are finite ([`Vectors::read`] refuses others), so no score is
/// NaN.
///
/// Cost: (changed rows + the rows that listed them) x N x dim multiply-adds; memory one
/// 32 x N score block per thread plus N scores per changed row.
///
/// # Panics
/// When `rows` does not hold one list per row, or an index in `changed` or `rows` is not a
/// row of `vectors`.
pub fn update_exact_top_k(
    vectors: &Vectors,
    rows: &[Vec<(usize, f32)>],
    changed: &[usize],
    k: usize,
) -> Option<Vec<Vec<(usize, f32)>>> {
    let (n, dim) = (vectors.len(), vectors.header.dim);
    if k == 0 || n < 2 || dim == 0 {
        return Some(vec![Vec::new(); n]);
    }
    assert_eq!(rows.len(), n, "one old list per row");
    let mut is_changed = vec![false; n];
    for &c in changed {
        is_changed[c] = true;
    }
    let redo: Vec<usize> = (0..n)
        .filter(|&i| is_changed[i] || rows[i].iter().any(|&(j, _)| is_changed[j]))
        .collect();
    if redo.len() > MAX_UPDATED_ROWS {
        return None;
    }
    let data = &vectors.data[..n * dim];
    // Per recomputed row: its new list, and for a changed row its scores against every row.
    type Redone = (usize, Vec<(usize, f32)>, Option<Vec<f32>>);
    let redone: Vec<Redone> = redo
        .par_chunks(UPDATE_BLOCK)
        .flat_map_iter(|block| {
            let m = block.len();
            let a: Vec<f32> = block
                .iter()
                .flat_map(|&r| data[r * dim..(r + 1) * dim].iter().copied())
                .collect();
            let mut out = vec![0.0f32; m * n];
            let mut c0 = 0;
            while c0 < n {
                let w = CANDIDATE_BLOCK.min(n - c0);
                let bmat = &data[c0 * dim..(c0 + w) * dim];
                scores_into(&a, bmat, dim, &mut out[c0..], n);
                c0 += w;
            }
            block
                .iter()
                .zip(out.chunks(n))
                .map(|(&r, scores)| {
                    let list = scores
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != r)
                        .map(|(j, &x)| (j, x))
                        .collect();
                    let full = is_changed[r].then(|| scores.to_vec());
                    (r, best_k(list, k), full)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut new_lists: Vec<Option<Vec<(usize, f32)>>> = vec![None; n];
    let mut changed_scores: Vec<(usize, Vec<f32>)> = Vec::new();
    for (r, list, full) in redone {
        new_lists[r] = Some(list);
        if let Some(full) = full {
            changed_scores.push((r, full));
        }
    }
    let updated = new_lists
        .into_par_iter()
        .enumerate()
        .map(|(i, list)| {
            list.unwrap_or_else(|| {
                let merged = rows[i]
                    .iter()
                    .copied()
                    .chain(changed_scores.iter().map(|(c, sc)| (*c, sc[i])))
                    .collect();
                best_k(merged, k)
            })
        })
        .collect();
    Some(updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::dense::search::dot;
    use crate::rng::SplitMix64;

    /// `n` unit vectors of `dim` around `centres` random centres (noise `spread`).
    fn clustered(n: usize, dim: usize, centres: usize, spread: f32, seed: u64) -> Vectors {
        let mut rng = SplitMix64::new(seed);
        let unit = |v: Vec<f32>| {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / norm).collect::<Vec<f32>>()
        };
        let cs: Vec<Vec<f32>> = (0..centres)
            .map(|_| unit((0..dim).map(|_| rng.signed_f32()).collect()))
            .collect();
        let rows: Vec<Vec<f32>> = (0..n)
            .map(|i| {
                let c = &cs[i % centres];
                unit(c.iter().map(|x| x + spread * rng.signed_f32()).collect())
            })
            .collect();
        let hashes = (0..n).map(|i| i.to_string()).collect();
        Vectors::from_rows("m".into(), "card".into(), dim, rows, hashes).unwrap()
    }

    fn brute(v: &Vectors, k: usize) -> Vec<Vec<(usize, f32)>> {
        (0..v.len())
            .map(|i| {
                let mut row: Vec<(usize, f32)> = (0..v.len())
                    .filter(|&j| j != i)
                    .map(|j| (j, dot(v.row(i), v.row(j))))
                    .collect();
                row.sort_by(order);
                row.truncate(k);
                row
            })
            .collect()
    }

    #[test]
    fn exact_blocks_find_the_brute_force_neighbours_across_block_edges() {
        // 2,500 rows: two candidate blocks (the second partial) and 20 query blocks.
        let v = clustered(2_500, 24, 40, 0.6, 7);
        let got = exact_all_top_k(&v, 15);
        let want = brute(&v, 15);
        assert_eq!(got.len(), 2_500);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let gi: Vec<usize> = g.iter().map(|x| x.0).collect();
            let wi: Vec<usize> = w.iter().map(|x| x.0).collect();
            assert_eq!(gi, wi, "row {i}");
            for (a, b) in g.iter().zip(w) {
                assert!((a.1 - b.1).abs() < 1e-5, "row {i}: {} vs {}", a.1, b.1);
            }
        }
        assert!(got.iter().all(|r| r.len() == 15));
    }

    #[test]
    fn ties_go_to_the_smaller_row_and_tiny_inputs_are_safe() {
        // Four copies of one vector: every row's neighbours are the other three, in row order.
        let rows = vec![vec![0.6, 0.8]; 4];
        let v = Vectors::from_rows(
            "m".into(),
            "card".into(),
            2,
            rows,
            (0..4).map(|i| i.to_string()).collect(),
        )
        .unwrap();
        let got = exact_all_top_k(&v, 2);
        assert_eq!(got[0].iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(got[3].iter().map(|x| x.0).collect::<Vec<_>>(), [0, 1]);
        assert!(exact_all_top_k(&v, 0).iter().all(Vec::is_empty));
        let one = Vectors::from_rows(
            "m".into(),
            "card".into(),
            2,
            vec![vec![1.0, 0.0]],
            vec!["0".into()],
        )
        .unwrap();
        assert_eq!(exact_all_top_k(&one, 5), vec![Vec::<(usize, f32)>::new()]);
    }

    #[test]
    fn hnsw_lists_recall_most_exact_neighbours_on_clustered_vectors() {
        let v = clustered(2_000, 32, 50, 0.5, 11);
        let want = exact_all_top_k(&v, 10);
        let got = all_top_k(&v, 10, 1_000, &HnswParams::default());
        let mut hit = 0usize;
        for (g, w) in got.iter().zip(&want) {
            assert!(g.len() <= 10 && g.windows(2).all(|p| p[0].1 >= p[1].1));
            hit += g.iter().filter(|x| w.iter().any(|y| y.0 == x.0)).count();
        }
        let recall = hit as f64 / (2_000.0 * 10.0);
        assert!(recall > 0.9, "recall {recall}");
        // Under the limit the same call is exact.
        assert_eq!(all_top_k(&v, 10, 2_000, &HnswParams::default()), want);
    }

    #[test]
    fn updated_lists_equal_a_full_pass_bit_for_bit() {
        // 2,300 rows: two candidate blocks and a partial query block; copies make exact ties.
        let old = clustered(2_300, 24, 30, 0.6, 5);
        let k = 12;
        let before = exact_all_top_k(&old, k);
        let fresh = clustered(2_300, 24, 30, 0.6, 99);
        let bits = |l: &Vec<Vec<(usize, f32)>>| -> Vec<Vec<(usize, u32)>> {
            l.iter()
                .map(|r| r.iter().map(|&(j, s)| (j, s.to_bits())).collect())
                .collect()
        };
        for changed in [
            vec![0],
            vec![2_299],
            vec![5, 128, 2_047, 2_048, 128],
            (0..40).map(|i| i * 57).collect::<Vec<_>>(),
        ] {
            let mut v = old.clone();
            for &c in &changed {
                let row = if c % 2 == 0 {
                    fresh.row(c).to_vec()
                } else {
                    // A copy of another row: its ties must go to the smaller row.
                    old.row((c + 1) % 2_300).to_vec()
                };
                v.data[c * 24..(c + 1) * 24].copy_from_slice(&row);
            }
            let want = exact_all_top_k(&v, k);
            let got = update_exact_top_k(&v, &before, &changed, k).expect("few rows to redo");
            assert_eq!(bits(&got), bits(&want), "changed {changed:?}");
            assert_ne!(bits(&got), bits(&before), "the change moved some list");
        }
        // The encoder's dimension: products summed over more than one of the kernel's
        // depth blocks.
        let (old, fresh) = (
            clustered(700, 384, 20, 0.5, 3),
            clustered(700, 384, 20, 0.5, 4),
        );
        let before384 = exact_all_top_k(&old, k);
        let mut v = old.clone();
        for c in [3, 350, 699] {
            v.data[c * 384..(c + 1) * 384].copy_from_slice(fresh.row(c));
        }
        let got = update_exact_top_k(&v, &before384, &[3, 350, 699], k).unwrap();
        assert_eq!(bits(&got), bits(&exact_all_top_k(&v, k)));
        // Too many rows to redo: the caller runs the full pass.
        let all: Vec<usize> = (0..700).collect();
        assert!(update_exact_top_k(&v, &before384, &all, k).is_none());
    }
}
