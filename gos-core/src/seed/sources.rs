//! The three [`Seeder`]s: lexical (BM25), dense (cosine) and hybrid (both, fused).

use super::{FirstStage, Fusion, Query, SeedSource, Seeder};
use crate::error::{Error, Result};
use crate::index::dense::DenseSet;
use crate::index::lexical::{FieldBoosts, LexicalIndex};
use crate::seed::fusion::{reciprocal_rank_fusion, weighted_fusion};

/// BM25 over all fields: the pool is the BM25 list, searched with the query's term weights
/// ([`Query::boosts`]) and the seeder's field boosts.
#[derive(Clone, Copy)]
pub struct LexicalSeeder<'a> {
    index: &'a LexicalIndex,
    max_term_df: f64,
    fields: FieldBoosts,
}

impl<'a> LexicalSeeder<'a> {
    /// A seeder over `index`, with every query term.
    pub fn new(index: &'a LexicalIndex) -> Self {
        LexicalSeeder {
            index,
            max_term_df: 1.0,
            fields: FieldBoosts::default(),
        }
    }

    /// The same seeder searching with the BM25 field boosts `fields`
    /// ([`crate::query::QueryParams::field_boosts`]).
    pub fn with_field_boosts(mut self, fields: FieldBoosts) -> Self {
        self.fields = fields;
        self
    }

    /// BM25 top-`pool_k` of `query` with every term kept.
    fn bm25(&self, query: &Query<'_>, pool_k: usize) -> Result<Vec<(usize, f32)>> {
        self.index
            .search_with(&query.terms, &query.boosts, &self.fields, pool_k)
    }

    /// The same seeder searching without the terms more than `share` of the skills use
    /// ([`LexicalIndex::without_common_terms`], [`super::SeedParams::max_term_df`]).
    pub fn with_max_term_df(mut self, share: f64) -> Self {
        self.max_term_df = share;
        self
    }
}

impl Seeder for LexicalSeeder<'_> {
    fn source(&self) -> SeedSource {
        SeedSource::Lexical
    }

    fn first_stage(&self, query: &Query<'_>, pool_k: usize) -> Result<FirstStage> {
        let terms = self
            .index
            .without_common_terms(&query.terms, self.max_term_df)?;
        let bm25 = self
            .index
            .search_with(&terms, &query.boosts, &self.fields, pool_k)?;
        Ok(FirstStage {
            pool: bm25.clone(),
            bm25,
            dense: Vec::new(),
        })
    }
}

/// Cosine over the skill embeddings: the pool is the dense list (a skill's score is its best
/// cosine over the query's vectors).
#[derive(Clone, Copy)]
pub struct DenseSeeder<'a> {
    set: &'a DenseSet,
}

impl<'a> DenseSeeder<'a> {
    /// A seeder over the embeddings `set`.
    pub fn new(set: &'a DenseSet) -> Self {
        DenseSeeder { set }
    }

    fn dense_list(&self, query: &Query<'_>, pool_k: usize) -> Result<Vec<(usize, f32)>> {
        let vectors = query.vectors.ok_or_else(|| Error::InvalidOption {
            name: "Query::vectors",
            reason: "dense and hybrid seeds need the query's embeddings; give the retriever a \
                     query encoder"
                .into(),
        })?;
        Ok(self.set.search_many(vectors, pool_k))
    }
}

impl Seeder for DenseSeeder<'_> {
    fn source(&self) -> SeedSource {
        SeedSource::Dense
    }

    fn first_stage(&self, query: &Query<'_>, pool_k: usize) -> Result<FirstStage> {
        let dense = self.dense_list(query, pool_k)?;
        Ok(FirstStage {
            pool: dense.clone(),
            bm25: Vec::new(),
            dense,
        })
    }
}

/// BM25 and dense lists fused by [`Fusion`] into the pool; both lists are kept as evidence.
#[derive(Clone, Copy)]
pub struct HybridSeeder<'a> {
    lexical: LexicalSeeder<'a>,
    dense: DenseSeeder<'a>,
    fusion: Fusion,
}

impl<'a> HybridSeeder<'a> {
    /// A seeder fusing BM25 over `index` and cosine over `set` with `fusion`.
    pub fn new(index: &'a LexicalIndex, set: &'a DenseSet, fusion: Fusion) -> Self {
        HybridSeeder {
            lexical: LexicalSeeder::new(index),
            dense: DenseSeeder::new(set),
            fusion,
        }
    }

    /// The same seeder searching BM25 with the field boosts `fields`
    /// ([`LexicalSeeder::with_field_boosts`]).
    pub fn with_field_boosts(mut self, fields: FieldBoosts) -> Self {
        self.lexical = self.lexical.with_field_boosts(fields);
        self
    }
}

impl Seeder for HybridSeeder<'_> {
    fn source(&self) -> SeedSource {
        SeedSource::Hybrid
    }

    fn first_stage(&self, query: &Query<'_>, pool_k: usize) -> Result<FirstStage> {
        let dense = self.dense.dense_list(query, pool_k)?;
        let bm25 = self.lexical.bm25(query, pool_k)?;
        let pool = match self.fusion {
            Fusion::Rrf { k } => reciprocal_rank_fusion(&[&bm25, &dense], k),
            Fusion::Weighted { lexical } => weighted_fusion(&bm25, &dense, lexical),
        };
        Ok(FirstStage { pool, bm25, dense })
    }
}
