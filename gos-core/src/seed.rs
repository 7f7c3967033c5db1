//! Seeding: the lexical candidate pool and the seed set that personalizes the diffusion.
//!
//! The pool is the BM25 top-`pool_k` over all fields ([`crate::lexical`]); the seed set is its
//! first `seed_k` entries. The reference took 5 seeds with harmonic rank weights
//! ([C] `build_rank_distribution`: w_r = (1/r)/H_n); gos weights seeds by their BM25 score
//! relative to the best one by default, which keeps a clear winner from being diluted by weak
//! runners-up, and keeps the harmonic weights as an option.

use crate::error::Result;
use crate::lexical::LexicalIndex;
use std::collections::BTreeMap;

/// How seed weights are computed from the pool order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeedWeighting {
    /// Weight proportional to the BM25 score.
    #[default]
    Score,
    /// Weight `(1/r) / H_n` for rank `r` of `n` seeds ([C] reference behaviour).
    Harmonic,
}

/// Seeding parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeedParams {
    /// Seeds fed to the diffusion (reference `SEED_TOP_K` = 5).
    pub seed_k: usize,
    /// Size of the lexical candidate pool, the ranked list before the graph (>= `seed_k`).
    pub pool_k: usize,
    /// Seed weighting.
    pub weighting: SeedWeighting,
}

impl Default for SeedParams {
    fn default() -> Self {
        SeedParams {
            seed_k: 5,
            pool_k: 50,
            weighting: SeedWeighting::Score,
        }
    }
}

/// One seed of the diffusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Seed {
    /// Node index.
    pub node: usize,
    /// 1-based rank in the lexical pool.
    pub rank: usize,
    /// BM25 score.
    pub score: f32,
    /// Personalization weight; the seed weights sum to 1.
    pub weight: f64,
}

/// The lexical pool and the seeds drawn from it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Seeding {
    /// `(node, BM25 score)` by descending score.
    pub pool: Vec<(usize, f32)>,
    /// The first `seed_k` pool entries with weights.
    pub seeds: Vec<Seed>,
}

/// Run BM25 for the analyzed query `terms` and draw the seeds.
///
/// # Errors
/// Index errors from [`LexicalIndex::search`].
pub fn lexical_seeds(
    index: &LexicalIndex,
    terms: &BTreeMap<String, u32>,
    params: &SeedParams,
) -> Result<Seeding> {
    let pool = index.search(terms, params.pool_k.max(params.seed_k))?;
    let seeds = seeds_from_pool(&pool, params);
    Ok(Seeding { pool, seeds })
}

/// Draw weighted seeds from a ranked pool.
pub fn seeds_from_pool(pool: &[(usize, f32)], params: &SeedParams) -> Vec<Seed> {
    let n = pool.len().min(params.seed_k);
    let raw: Vec<f64> = (0..n)
        .map(|i| match params.weighting {
            SeedWeighting::Score => pool[i].1.max(0.0) as f64,
            SeedWeighting::Harmonic => 1.0 / (i + 1) as f64,
        })
        .collect();
    let total: f64 = raw.iter().sum();
    (0..n)
        .map(|i| Seed {
            node: pool[i].0,
            rank: i + 1,
            score: pool[i].1,
            weight: if total > 0.0 { raw[i] / total } else { 0.0 },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_weights_match_the_reference_distribution() {
        let pool: Vec<(usize, f32)> = (0..7).map(|i| (i, 10.0 - i as f32)).collect();
        let params = SeedParams {
            weighting: SeedWeighting::Harmonic,
            ..SeedParams::default()
        };
        let w: Vec<f64> = seeds_from_pool(&pool, &params)
            .iter()
            .map(|s| s.weight)
            .collect();
        let expected = [0.4380, 0.2190, 0.1460, 0.1095, 0.0876];
        assert_eq!(w.len(), 5);
        for (a, b) in w.iter().zip(expected) {
            assert!((a - b).abs() < 1e-4, "{w:?}");
        }
    }

    #[test]
    fn score_weights_are_proportional() {
        let pool = [(4, 3.0f32), (2, 1.0)];
        let s = seeds_from_pool(&pool, &SeedParams::default());
        assert_eq!(s.len(), 2);
        assert!((s[0].weight - 0.75).abs() < 1e-12);
        assert_eq!((s[1].node, s[1].rank), (2, 2));
    }
}
