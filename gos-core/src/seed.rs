//! Seeding: the first-stage candidate pool and the seed set that personalizes the diffusion.
//!
//! The pool is the BM25 top-`pool_k` over all fields ([`crate::lexical`]), the dense top-`pool_k`
//! by cosine ([`crate::dense`]), or both fused ([`SeedSource::Hybrid`]: a weighted sum of min-max
//! normalized scores by default, or reciprocal rank fusion); the seed set is its first
//! `seed_k` entries. The reference took 5 seeds with harmonic rank weights
//! ([C] `build_rank_distribution`: w_r = (1/r)/H_n); gos weights seeds by their BM25 score
//! relative to the best one by default, which keeps a clear winner from being diluted by weak
//! runners-up, and keeps the harmonic weights as an option.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::str::FromStr;

/// Where the first-stage pool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SeedSource {
    /// BM25 only.
    #[default]
    Lexical,
    /// Dense retrieval only (cosine over the skill embeddings).
    Dense,
    /// BM25 and dense lists fused ([`Fusion`]).
    Hybrid,
}

impl SeedSource {
    /// All sources.
    pub const ALL: [SeedSource; 3] = [SeedSource::Lexical, SeedSource::Dense, SeedSource::Hybrid];

    /// Command-line name (`lexical`, `dense`, `hybrid`).
    pub fn as_str(self) -> &'static str {
        match self {
            SeedSource::Lexical => "lexical",
            SeedSource::Dense => "dense",
            SeedSource::Hybrid => "hybrid",
        }
    }

    /// Whether this source needs skill embeddings and a query encoder.
    pub fn needs_vectors(self) -> bool {
        self != SeedSource::Lexical
    }
}

impl FromStr for SeedSource {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        SeedSource::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::InvalidOption {
                name: "seeds",
                reason: format!("`{s}` is not one of lexical, dense, hybrid"),
            })
    }
}

impl std::fmt::Display for SeedSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the BM25 and dense lists are fused for [`SeedSource::Hybrid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion: `sum over lists of 1 / (k + rank)`, rank 1-based
    /// (Cormack, Clarke and Buettcher 2009; k = 60 there and by default here).
    Rrf {
        /// Rank offset k (> 0).
        k: f64,
    },
    /// `w * lexical + (1 - w) * dense` over scores min-max normalized within each list
    /// (a node missing from a list scores 0 there).
    Weighted {
        /// Weight w of the lexical list, in [0, 1].
        lexical: f64,
    },
}

/// Rank offset of [`Fusion::Rrf`] when none is given (Cormack et al. 2009).
pub const DEFAULT_RRF_K: f64 = 60.0;

/// The default fusion is `weighted:0.7`: on the 48 DEV tasks with all-MiniLM-L6-v2 it kept the
/// lexical arm's recall within noise and raised hit@1 and MRR@10, where RRF (k = 60) lost
/// 0.03-0.07 of available-oracle recall (docs/evaluation.md, "Dense and hybrid seeds").
impl Default for Fusion {
    fn default() -> Self {
        Fusion::Weighted { lexical: 0.7 }
    }
}

impl FromStr for Fusion {
    type Err = Error;
    /// `rrf`, `rrf:K` (K > 0), or `weighted:W` (W in [0, 1], the lexical weight).
    fn from_str(s: &str) -> Result<Self> {
        let bad = |reason: String| Error::InvalidOption {
            name: "fusion",
            reason,
        };
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        let num = |a: &str| {
            a.parse::<f64>()
                .map_err(|_| bad(format!("`{a}` in `{s}` is not a number")))
        };
        match (kind, arg) {
            ("rrf", None) => Ok(Fusion::Rrf { k: DEFAULT_RRF_K }),
            ("rrf", Some(a)) => match num(a)? {
                k if k > 0.0 => Ok(Fusion::Rrf { k }),
                _ => Err(bad(format!("`{s}`: K must be > 0"))),
            },
            ("weighted", Some(a)) => match num(a)? {
                w if (0.0..=1.0).contains(&w) => Ok(Fusion::Weighted { lexical: w }),
                _ => Err(bad(format!("`{s}`: W must be in [0, 1]"))),
            },
            _ => Err(bad(format!("`{s}` is not rrf, rrf:K or weighted:W"))),
        }
    }
}

impl std::fmt::Display for Fusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fusion::Rrf { k } => write!(f, "rrf:{k}"),
            Fusion::Weighted { lexical } => write!(f, "weighted:{lexical}"),
        }
    }
}

/// Reciprocal rank fusion of ranked lists (each by descending score): `(node, fused score)` by
/// descending fused score, ties by node index.
pub fn reciprocal_rank_fusion(lists: &[&[(usize, f32)]], k: f64) -> Vec<(usize, f32)> {
    let mut fused: HashMap<usize, f64> = HashMap::new();
    for list in lists {
        for (r, &(node, _)) in list.iter().enumerate() {
            *fused.entry(node).or_insert(0.0) += 1.0 / (k + (r + 1) as f64);
        }
    }
    sorted(fused)
}

/// Weighted fusion of a lexical and a dense list (see [`Fusion::Weighted`]).
pub fn weighted_fusion(
    lexical: &[(usize, f32)],
    dense: &[(usize, f32)],
    lexical_weight: f64,
) -> Vec<(usize, f32)> {
    let mut fused: HashMap<usize, f64> = HashMap::new();
    for (list, w) in [(lexical, lexical_weight), (dense, 1.0 - lexical_weight)] {
        let max = list.iter().map(|h| h.1).fold(f32::MIN, f32::max) as f64;
        let min = list.iter().map(|h| h.1).fold(f32::MAX, f32::min) as f64;
        let span = max - min;
        for &(node, score) in list {
            let norm = if span > 0.0 {
                (score as f64 - min) / span
            } else {
                1.0
            };
            *fused.entry(node).or_insert(0.0) += w * norm;
        }
    }
    sorted(fused)
}

fn sorted(fused: HashMap<usize, f64>) -> Vec<(usize, f32)> {
    let mut out: Vec<(usize, f32)> = fused.into_iter().map(|(n, s)| (n, s as f32)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

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
    /// First-stage source.
    pub source: SeedSource,
    /// Fusion of the two lists for [`SeedSource::Hybrid`].
    pub fusion: Fusion,
    /// Also embed the query's passages ([`crate::dense::query_passages`]) and score each skill
    /// by its best cosine over them (long multi-paragraph tasks dilute one mean-pooled vector).
    pub query_chunks: bool,
}

impl Default for SeedParams {
    fn default() -> Self {
        SeedParams {
            seed_k: 5,
            pool_k: 50,
            weighting: SeedWeighting::Score,
            source: SeedSource::Lexical,
            fusion: Fusion::default(),
            query_chunks: false,
        }
    }
}

/// One seed of the diffusion.
#[derive(Debug, Clone, PartialEq)]
pub struct Seed {
    /// Node index.
    pub node: usize,
    /// 1-based rank in the first-stage pool.
    pub rank: usize,
    /// First-stage score (BM25, cosine or fused score, by [`SeedSource`]).
    pub score: f32,
    /// Personalization weight; the seed weights sum to 1.
    pub weight: f64,
}

/// The first-stage pool and the seeds drawn from it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Seeding {
    /// `(node, first-stage score)` by descending score.
    pub pool: Vec<(usize, f32)>,
    /// The first `seed_k` pool entries with weights.
    pub seeds: Vec<Seed>,
}

/// The first-stage pool of `params.source` from the BM25 list `lexical` and the dense list
/// `dense` (each by descending score; the one the source does not use may be empty), fused for
/// [`SeedSource::Hybrid`] by `params.fusion`, and the seeds drawn from it.
pub fn seeding(params: &SeedParams, lexical: &[(usize, f32)], dense: &[(usize, f32)]) -> Seeding {
    let pool = match (params.source, params.fusion) {
        (SeedSource::Lexical, _) => lexical.to_vec(),
        (SeedSource::Dense, _) => dense.to_vec(),
        (SeedSource::Hybrid, Fusion::Rrf { k }) => reciprocal_rank_fusion(&[lexical, dense], k),
        (SeedSource::Hybrid, Fusion::Weighted { lexical: w }) => weighted_fusion(lexical, dense, w),
    };
    Seeding {
        seeds: seeds_from_pool(&pool, params),
        pool,
    }
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
    fn score_weights_are_proportional() {
        let pool = [(4, 3.0f32), (2, 1.0)];
        let s = seeds_from_pool(&pool, &SeedParams::default());
        assert_eq!(s.len(), 2);
        assert!((s[0].weight - 0.75).abs() < 1e-12);
        assert_eq!((s[1].node, s[1].rank), (2, 2));
    }
}
