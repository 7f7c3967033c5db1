//! Seeding: the first-stage candidate pool and the seed set that personalizes the diffusion.
//!
//! A [`Seeder`] turns a [`Query`] into its first-stage lists ([`FirstStage`]): the BM25 top-`pool_k`
//! over all fields ([`LexicalSeeder`], [`crate::index::lexical`]), the dense top-`pool_k` by cosine
//! ([`DenseSeeder`], [`crate::index::dense`]), or both fused ([`HybridSeeder`]: a weighted sum of min-max
//! normalized scores by default, or reciprocal rank fusion; formulas in [`crate::seed::fusion`]). The
//! seed set is the pool's first `seed_k` entries ([`seeds_from_pool`]). The reference took 5
//! seeds with harmonic rank weights (\[C\] `build_rank_distribution`: w_r = (1/r)/H_n); gos
//! weights seeds by their first-stage score relative to the others by default, which keeps a
//! clear winner from being diluted by weak runners-up, and keeps the harmonic weights as an
//! option.
//!
//! Which source a retrieval uses is one policy, shared by the library and the CLI:
//! [`SeedSource::Auto`] (the default) is hybrid when the retriever has a query encoder for the
//! workspace's vectors, lexical otherwise ([`SeedSource::resolve`]).

pub mod fusion;
mod sources;

pub use crate::query::Query;
pub use sources::{DenseSeeder, HybridSeeder, LexicalSeeder};

use crate::error::{Error, Result};
use std::str::FromStr;

/// Where the first-stage pool comes from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum SeedSource {
    /// Hybrid when the retriever has a query encoder for the workspace's vectors, else lexical.
    #[default]
    Auto,
    /// BM25 only.
    Lexical,
    /// Dense retrieval only (cosine over the skill embeddings).
    Dense,
    /// BM25 and dense lists fused (see `Fusion`).
    Hybrid,
}

impl SeedSource {
    /// The concrete sources ([`SeedSource::Auto`] resolves to one of them).
    pub const ALL: [SeedSource; 3] = [SeedSource::Lexical, SeedSource::Dense, SeedSource::Hybrid];

    /// Wire name (`auto`, `lexical`, `dense`, `hybrid`).
    pub fn as_str(self) -> &'static str {
        match self {
            SeedSource::Auto => "auto",
            SeedSource::Lexical => "lexical",
            SeedSource::Dense => "dense",
            SeedSource::Hybrid => "hybrid",
        }
    }

    /// Whether this source needs skill embeddings and a query encoder ([`SeedSource::Auto`]
    /// does not: it falls back to lexical).
    pub fn needs_vectors(self) -> bool {
        matches!(self, SeedSource::Dense | SeedSource::Hybrid)
    }

    /// The code-like token boost of a retrieval with seeds from this (resolved) source when
    /// [`crate::query::QueryParams::code_boost`] is not set:
    /// [`crate::query::DEFAULT_HYBRID_CODE_BOOST`] for hybrid seeds, 1 (none) for the others.
    pub fn default_code_boost(self) -> f32 {
        match self {
            SeedSource::Hybrid => crate::query::DEFAULT_HYBRID_CODE_BOOST,
            _ => 1.0,
        }
    }

    /// The concrete source: [`SeedSource::Auto`] becomes hybrid when `encoder_ready` (the
    /// retriever has a query encoder matching the workspace's vectors), else lexical; the
    /// others are returned as they are.
    pub fn resolve(self, encoder_ready: bool) -> SeedSource {
        match self {
            SeedSource::Auto if encoder_ready => SeedSource::Hybrid,
            SeedSource::Auto => SeedSource::Lexical,
            other => other,
        }
    }
}

impl FromStr for SeedSource {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        [SeedSource::Auto]
            .into_iter()
            .chain(SeedSource::ALL)
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::InvalidOption {
                name: "SeedParams::source",
                reason: format!("`{s}` is not one of auto, lexical, dense, hybrid"),
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
            name: "SeedParams::fusion",
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
                k if k > 0.0 && k.is_finite() => Ok(Fusion::Rrf { k }),
                _ => Err(bad(format!("`{s}`: K must be a finite number > 0"))),
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

/// How seed weights are computed from the pool order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeedWeighting {
    /// Weight proportional to the BM25 score.
    #[default]
    Score,
    /// Weight `(1/r) / H_n` for rank `r` of `n` seeds (\[C\] reference behaviour).
    Harmonic,
}

/// Seeding parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeedParams {
    /// Seeds fed to the diffusion (reference `SEED_TOP_K` = 5).
    pub seed_k: usize,
    /// Size of each first-stage list, the ranked list before the graph (at least `seed_k` is
    /// used).
    pub pool_k: usize,
    /// Seed weighting.
    pub weighting: SeedWeighting,
    /// First-stage source; [`SeedSource::Auto`] by default (see the module docs).
    pub source: SeedSource,
    /// Fusion of the two lists for [`SeedSource::Hybrid`].
    pub fusion: Fusion,
    /// Also embed the query's passages ([`crate::index::dense::query_passages`]) and score each skill
    /// by its best cosine over them (long multi-paragraph tasks dilute one mean-pooled vector).
    pub query_chunks: bool,
    /// IDF floor of lexical seeds: query terms used by more than this share of the skills are
    /// left out of the BM25 query, in (0, 1]; 1 (the default) keeps every term
    /// (docs/graph-quality.md).
    pub max_term_df: f64,
}

impl Default for SeedParams {
    fn default() -> Self {
        SeedParams {
            seed_k: 5,
            pool_k: 50,
            weighting: SeedWeighting::Score,
            source: SeedSource::Auto,
            fusion: Fusion::default(),
            query_chunks: false,
            max_term_df: 1.0,
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

/// The first-stage lists of one query, each `(node, score)` by descending score, ties by node
/// index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FirstStage {
    /// The pool the seeds are drawn from: the BM25 list, the dense list, or their fusion.
    pub pool: Vec<(usize, f32)>,
    /// BM25 top-`pool_k` (empty when the seeder computes none).
    pub bm25: Vec<(usize, f32)>,
    /// Dense top-`pool_k` by cosine (empty when the seeder computes none).
    pub dense: Vec<(usize, f32)>,
}

/// A first-stage retriever: the candidate pool a retrieval draws its seeds from.
///
/// # Contract
///
/// `first_stage(query, pool_k)` is a pure function of the query and the index behind the
/// seeder: the same query gives the same lists, bit for bit.
///
/// - Every list it returns is sorted by descending score, ties by ascending node index, holds
///   each node at most once, and is at most `pool_k` long (a fused pool may be longer: it is
///   the union of two such lists).
/// - `pool` is the list seeds are drawn from ([`seeds_from_pool`]). `bm25` and `dense` are the
///   raw lists the seeder computed, kept as evidence for the final score
///   ([`crate::rerank::mix::final_score`]) and the relevance floors ([`crate::relevance`]); a seeder
///   leaves a list it does not compute empty, and never fills one with another's scores.
/// - An empty query (no terms, no vectors) gives empty lists, not an error.
///
/// # Errors
/// Index errors from tantivy; [`Error::InvalidOption`] when a seeder that needs query vectors
/// gets a [`Query`] without them.
pub trait Seeder {
    /// The concrete source this seeder implements (never [`SeedSource::Auto`]).
    fn source(&self) -> SeedSource;

    /// The first-stage lists of `query`, each at most `pool_k` long.
    fn first_stage(&self, query: &Query<'_>, pool_k: usize) -> Result<FirstStage>;
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
    fn auto_resolves_by_encoder_and_explicit_sources_stay() {
        assert_eq!(SeedSource::Auto.resolve(true), SeedSource::Hybrid);
        assert_eq!(SeedSource::Auto.resolve(false), SeedSource::Lexical);
        assert_eq!(SeedSource::Dense.resolve(false), SeedSource::Dense);
        assert_eq!(SeedParams::default().source, SeedSource::Auto);
        assert_eq!("auto".parse::<SeedSource>().unwrap(), SeedSource::Auto);
    }

    #[test]
    fn the_default_code_boost_depends_on_the_seed_source() {
        assert_eq!(SeedSource::Hybrid.default_code_boost(), 1.5);
        assert_eq!(SeedSource::Lexical.default_code_boost(), 1.0);
        assert_eq!(SeedSource::Dense.default_code_boost(), 1.0);
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
