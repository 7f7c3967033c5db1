//! The online pipeline: seed -> diffuse -> rerank -> decide -> hydrate.
//!
//! [`Retriever::retrieve`] is the whole pipeline; each stage is a module of its own:
//!
//! 1. **seed** ([`crate::seed`]): a [`Seeder`] gives the first-stage lists and the pool the
//!    seed set is drawn from;
//! 2. **diffuse** ([`crate::diffuse`]): a [`crate::diffuse::Diffusion`] spreads the seed
//!    weights over the graph;
//! 3. **rerank** ([`crate::rerank`]): [`FieldEvidence`], then optionally the cross-encoder;
//! 4. **decide** ([`crate::relevance`]): the floors say whether anything is relevant;
//! 5. **hydrate** ([`crate::hydrate`]): the bundle under character budgets, each skill with
//!    its reason (`reason`).

mod candidates;
pub mod collapse;
pub mod coverage;
pub mod cut;
pub mod limits;
mod options;
mod reason;

pub use cut::{BundleCut, KeepPrerequisites};
pub use options::{
    DEFAULT_COLLAPSE_ALTERNATIVES, DEFAULT_COLLAPSE_DUPLICATES, DEFAULT_CUT_WITHOUT_SEMANTIC,
    DEFAULT_EDGE_SEMANTIC_LEXICAL, DEFAULT_KEEP_PREREQUISITES, DEFAULT_MIN_SKILL_COSINE,
    RetrieveOptions,
};

pub use crate::diffuse::RetrievalMode;
pub use crate::relevance::DenseFloor;
pub use crate::rerank::RankedSkill;

use crate::diffuse;
use crate::error::{Error, Result};
use crate::graph::ppr::TypeWeights;
use crate::hydrate::{self, Bundle, SourcePaths, no_hit};
use crate::index::dense::TextEmbedder;
use crate::index::lexical::analyzer::{analyzer, tokens};
use crate::query::Query;
use crate::relevance::{self, Decision, RelevanceEvidence};
use crate::rerank::{
    CrossEncoderReranker, FieldEvidence, PairScorer, RerankContext, Reranker, StageParams,
};
use crate::seed::{
    DenseSeeder, FirstStage, HybridSeeder, LexicalSeeder, Seed, SeedSource, Seeder, seeds_from_pool,
};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

/// Milliseconds per stage.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Timings {
    /// Query embedding by the sentence encoder (0 for lexical seeds).
    pub encode: f64,
    /// Query analysis, BM25, dense search and fusion (encoding excluded).
    pub seed: f64,
    /// Graph operation.
    pub diffuse: f64,
    /// Final scoring and sort.
    pub rerank: f64,
    /// Cross-encoder stage (text views, tokenization, forward passes); 0 when it is off.
    pub cross_encoder: f64,
    /// Bundle rendering.
    pub hydrate: f64,
    /// Whole retrieval.
    pub total: f64,
}

/// Result of one retrieval.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    /// Mode used.
    pub mode: RetrievalMode,
    /// Seeds of the diffusion.
    pub seeds: Vec<Seed>,
    /// Seed source used ([`SeedSource::Auto`] resolved).
    pub source: SeedSource,
    /// Best BM25 score divided by the query's idf mass (the lexical relevance-floor
    /// evidence), 0 without hits or without a BM25 list.
    pub top_seed_score: f32,
    /// Best cosine between the query and a skill (the dense relevance-floor evidence), when
    /// dense retrieval ran.
    pub top_dense_score: Option<f32>,
    /// How well the best BM25 hits' names and descriptions cover the query (the coverage
    /// floor's evidence, [`relevance::lexical_coverage`]); all 0 without a BM25 list.
    pub lexical_coverage: relevance::LexicalCoverage,
    /// All candidates in final order (the ranked list that hit@k and recall@k read), one
    /// member per near-duplicate group with [`RetrieveOptions::collapse_duplicates`].
    pub ranked: Vec<RankedSkill>,
    /// Group members dropped from `ranked`, per kept node ([`collapse::Alternates`]).
    pub alternates: collapse::Alternates,
    /// The relevance decision, with the reason when nothing is returned.
    pub decision: Decision,
    /// The hydrated bundle.
    pub bundle: Bundle,
    /// Stage timings.
    pub timings: Timings,
    /// Caps of [`limits`] that applied to this query, in words (empty for ordinary queries).
    pub limits_applied: Vec<String>,
    /// The facets and what covers them, with [`RetrieveOptions::coverage`] on.
    pub coverage: Option<coverage::Coverage>,
}

/// Retrieval over an open workspace, with the models it uses.
///
/// A retriever owns what it reads: the workspace behind an [`Arc`], the query embedder and the
/// pair scorer behind [`Arc`]s too, so it has no lifetime, is cheap to clone (reference counts
/// only) and can be shared by any number of threads and kept across requests. Creating one
/// analyzes every skill name once (a few milliseconds at 5,000 skills).
///
/// Without models, [`SeedSource::Auto`] seeds lexically. [`Retriever::with_embedder`] adds the
/// query embedder (dense and hybrid seeds; then `Auto` is hybrid) and
/// [`Retriever::with_pair_scorer`] the cross-encoder stage. The models themselves are loaded by
/// the `gos-models` crate (`gos_models::retriever` loads the workspace's own encoder).
#[derive(Clone)]
pub struct Retriever {
    ws: Arc<Workspace>,
    name_tokens: Arc<[Vec<String>]>,
    embedder: Option<Arc<dyn TextEmbedder>>,
    pair_scorer: Option<(Arc<dyn PairScorer>, StageParams)>,
}

impl std::fmt::Debug for Retriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retriever")
            .field("workspace", &self.ws.dir())
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_id()))
            .field(
                "pair_scorer",
                &self.pair_scorer.as_ref().map(|(m, p)| (m.model_name(), p)),
            )
            .finish()
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

impl Retriever {
    /// A retriever over `ws` (a [`Workspace`] or an `Arc<Workspace>`) without models:
    /// [`SeedSource::Auto`] seeds lexically.
    pub fn new(ws: impl Into<Arc<Workspace>>) -> Self {
        let ws = ws.into();
        let mut a = analyzer();
        let name_tokens = ws
            .manifest()
            .nodes
            .iter()
            .map(|n| tokens(&mut a, &n.name))
            .collect();
        Retriever {
            ws,
            name_tokens,
            embedder: None,
            pair_scorer: None,
        }
    }

    /// Use `embedder` for query embeddings (needed by dense and hybrid seeds, and what makes
    /// [`SeedSource::Auto`] hybrid).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the workspace has no vectors or they come from another
    /// model than `embedder` ([`TextEmbedder::model_id`]).
    pub fn with_embedder(mut self, embedder: Arc<dyn TextEmbedder>) -> Result<Self> {
        let Some(dense) = self.ws.dense() else {
            return Err(Error::InvalidOption {
                name: "Retriever::encoder",
                reason: format!(
                    "workspace {} has no skill vectors; rebuild it with `gos build --model-dir DIR`",
                    self.ws.dir().display()
                ),
            });
        };
        if !crate::index::dense::same_model(&dense.info.model, embedder.model_id()) {
            return Err(Error::InvalidOption {
                name: "Retriever::encoder",
                reason: format!(
                    "the workspace vectors come from {} but the query encoder is {}; use the \
                     same model directory or rebuild the workspace",
                    dense.info.model,
                    embedder.model_id()
                ),
            });
        }
        self.embedder = Some(embedder);
        Ok(self)
    }

    /// Add the cross-encoder stage after field-evidence reranking
    /// ([`crate::rerank::CrossEncoderReranker`]), scoring with `scorer` under `params` (checked
    /// when a retrieval runs, [`StageParams::validate`]).
    pub fn with_pair_scorer(mut self, scorer: Arc<dyn PairScorer>, params: StageParams) -> Self {
        self.pair_scorer = Some((scorer, params));
        self
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The query embedder, when the retriever has one.
    pub fn embedder(&self) -> Option<&Arc<dyn TextEmbedder>> {
        self.embedder.as_ref()
    }

    /// Whether the retriever has a query embedder (then [`SeedSource::Auto`] seeds hybrid).
    pub fn has_embedder(&self) -> bool {
        self.embedder.is_some()
    }

    /// The candidates the adaptive cut keeps when the same query is ranked by the walk
    /// without semantic edges (`graph_scores`), each with its copies (on a first-stage tie
    /// the two rankings may give a group's slot to different copies): the input of
    /// [`cut::keep_cut_of`].
    fn cut_without_semantic(
        &self,
        first: &FirstStage,
        seeds: &[Seed],
        graph_scores: &[f64],
        opts: &RetrieveOptions,
        ctx: &RerankContext<'_>,
    ) -> Result<HashSet<usize>> {
        let mut plain = candidates::assemble(&self.ws, first, seeds, graph_scores);
        FieldEvidence::new(opts.rerank, &self.name_tokens).rerank(&mut plain, ctx)?;
        let copies = collapse::collapse(
            &self.ws,
            &mut plain,
            opts.collapse_duplicates,
            opts.collapse_alternatives,
        );
        let floors = opts.floors(self.ws.graph().node_count());
        plain.truncate(relevance::eligible(&plain, floors.min_relative_score));
        collapse::drop_unsupported(&mut plain, opts.min_skill_cosine);
        let size = opts
            .bundle_cut
            .keep_with_cosines(&plain, plain.len(), |node| self.cosine(ctx.query, node));
        Ok(plain[..size]
            .iter()
            .flat_map(|r| {
                std::iter::once(r.node).chain(copies.get(&r.node).into_iter().flatten().copied())
            })
            .collect())
    }

    /// The cosine of skill `node` with `query`'s embeddings
    /// ([`crate::index::dense::DenseSet::cosine`]), `None` when the query has none (lexical
    /// seeds) or the workspace has no vectors.
    fn cosine(&self, query: &Query<'_>, node: usize) -> Option<f32> {
        self.ws.dense()?.cosine(query.vectors?, node)
    }

    /// The seed source `asked` resolves to with this retriever ([`SeedSource::resolve`]).
    pub fn seed_source(&self, asked: SeedSource) -> SeedSource {
        asked.resolve(self.has_embedder())
    }

    /// Retrieve a bundle for `query`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the seed source needs vectors the workspace or the
    /// retriever lacks; index errors while searching or reading stored content; model errors.
    pub fn retrieve(&self, query: &str, opts: &RetrieveOptions) -> Result<Retrieval> {
        self.retrieve_embedded(query, None, opts)
    }

    /// Embed `query` with the retriever's embedder ([`TextEmbedder::embed_queries`]): unit
    /// vectors of the embedder's dimension, the whole text first, then (with `chunks`) one per
    /// passage of [`crate::index::dense::query_passages`]. A skill's dense score is its best cosine
    /// over them. (For gos's sentence encoders with a Normalize module, all-MiniLM-L6-v2
    /// among them, these are the encoder's own vectors bit for bit.)
    ///
    /// # Errors
    /// [`Error::InvalidOption`] without an embedder; embedder failures.
    pub fn embed_query(&self, query: &str, chunks: bool) -> Result<Vec<Vec<f32>>> {
        let embedder = self.embedder.as_ref().ok_or_else(|| Error::InvalidOption {
            name: "SeedParams::source",
            reason: "dense and hybrid seeds need a query encoder (a model directory)".into(),
        })?;
        let (query, _) = limits::cap_query(query);
        let mut texts = vec![query.to_string()];
        if chunks {
            texts.extend(limits::capped_passages(query).0);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        embedder.embed_queries(&refs)
    }

    /// [`Retriever::retrieve`] with the query embedding computed beforehand (e.g. once per
    /// task for several evaluation arms); `None` embeds the query here when the seed source
    /// needs it. `query_vectors` must come from [`Retriever::embed_query`] with
    /// `opts.seeds.query_chunks`.
    ///
    /// # Errors
    /// As [`Retriever::retrieve`].
    pub fn retrieve_embedded(
        &self,
        text: &str,
        query_vectors: Option<&[Vec<f32>]>,
        opts: &RetrieveOptions,
    ) -> Result<Retrieval> {
        let start = Instant::now();
        let (text, cut) = limits::cap_query(text);
        let mut limits_applied: Vec<String> = cut.into_iter().collect();
        let source = self.seed_source(opts.seeds.source);
        if source.needs_vectors() && opts.seeds.query_chunks {
            limits_applied.extend(limits::capped_passages(text).1);
        }
        let seeder = self.seeder(source, opts)?;
        let t = Instant::now();
        let embedded;
        let code_boost = opts
            .query
            .code_boost
            .unwrap_or_else(|| source.default_code_boost());
        let mut query = Query::with_params(text, opts.query.markup, code_boost);
        if source.needs_vectors() {
            query = query.with_vectors(match query_vectors {
                Some(v) => v,
                None => {
                    embedded = self.embed_query(text, opts.seeds.query_chunks)?;
                    &embedded
                }
            });
        }
        let t_encode = if source.needs_vectors() { ms(t) } else { 0.0 };
        let first = seeder.first_stage(&query, opts.seeds.pool_k.max(opts.seeds.seed_k))?;
        if let Some((node, score)) = first
            .bm25
            .iter()
            .chain(&first.dense)
            .find(|(_, s)| !s.is_finite())
        {
            return Err(Error::Inconsistent {
                path: self.ws.dir().to_path_buf(),
                reason: format!(
                    "skill {} got the non-finite first-stage score {score} (damaged vectors, \
                     index or query encoder)",
                    self.ws.manifest().nodes[*node].id
                ),
            });
        }
        let seeds = seeds_from_pool(&first.pool, &opts.seeds);
        let t_seed = ms(start) - t_encode;

        let t = Instant::now();
        let mut p = vec![0.0; self.ws.len()];
        for s in &seeds {
            p[s.node] += s.weight;
        }
        let facets = (opts.coverage.enabled)
            .then(|| coverage::Prepared::new(self.ws.lexical(), text, &opts.coverage))
            .transpose()?;
        facets.iter().for_each(|f| f.seed(&mut p));
        let mut edge_weights = opts.edge_weights;
        if source == SeedSource::Lexical {
            edge_weights.semantic = opts.edge_semantic_lexical;
        }
        let graph_scores =
            diffuse::for_mode(opts.mode, &self.ws, &opts.ppr, &edge_weights).diffuse(&p);
        let t_diffuse = ms(t);

        let t = Instant::now();
        let mut ranked = candidates::assemble(&self.ws, &first, &seeds, &graph_scores);
        let text_view = |r: &RankedSkill| self.ws.cross_encoder_text(r.node);
        let mut ctx = RerankContext {
            query: &query,
            mode: opts.mode,
            eligible: ranked.len(),
            top_n: opts.budgets.top_n,
            text: &text_view,
        };
        FieldEvidence::new(opts.rerank, &self.name_tokens).rerank(&mut ranked, &ctx)?;
        // With semantic edges in the walk, the cut reads the walk without them.
        let ppr = matches!(opts.mode, RetrievalMode::Reverse | RetrievalMode::Forward);
        let semantic_cut = if ppr && opts.cut_without_semantic && edge_weights.semantic > 0.0 {
            let plain_weights = TypeWeights {
                semantic: 0.0,
                ..edge_weights
            };
            let plain_scores =
                diffuse::for_mode(opts.mode, &self.ws, &opts.ppr, &plain_weights).diffuse(&p);
            Some(self.cut_without_semantic(&first, &seeds, &plain_scores, opts, &ctx)?)
        } else {
            None
        };
        let alternates = collapse::collapse(
            &self.ws,
            &mut ranked,
            opts.collapse_duplicates,
            opts.collapse_alternatives,
        );
        let t_rerank = ms(t);
        let floors = opts.floors(self.ws.graph().node_count());
        let eligible = relevance::eligible(&ranked, floors.min_relative_score);
        let t = Instant::now();
        ctx.eligible = eligible;
        let t_cross_encoder = if self.cross_encode(&mut ranked, &ctx)? {
            ms(t)
        } else {
            0.0
        };
        let (g, top_n) = (self.ws.graph(), opts.budgets.top_n);
        let coverage = facets.map(|f| f.choose(&mut ranked, eligible, top_n));
        if opts.mode != RetrievalMode::NoGraph {
            crate::prerequisite::reserve(g, &mut ranked, eligible, top_n, &opts.prerequisites);
        }

        let t = Instant::now();
        let lexical_coverage = relevance::coverage_of_hits(&self.ws, &query.terms, &first.bm25)?;
        let evidence = RelevanceEvidence {
            top_seed_score: relevance::top_seed_score(
                &first.bm25,
                self.ws.lexical().idf_mass(&query.terms)?,
            ),
            top_dense_score: source
                .needs_vectors()
                .then(|| first.dense.first().map_or(0.0, |h| h.1)),
            coverage: lexical_coverage.overlap,
        };
        // The bundle's candidates: the eligible ones with lexical or dense support (the ranked
        // list keeps the others), then the adaptive cut. Copied only when something drops
        // out or moves.
        let mut pool = std::borrow::Cow::Borrowed(&ranked[..eligible]);
        if !pool
            .iter()
            .all(|r| collapse::is_supported(r, opts.min_skill_cosine))
        {
            collapse::drop_unsupported(pool.to_mut(), opts.min_skill_cosine);
        }
        let mut eligible = match &semantic_cut {
            Some(kept) => cut::keep_cut_of(pool.to_mut(), kept),
            None => opts
                .bundle_cut
                .keep_with_cosines(&pool, pool.len(), |node| self.cosine(&query, node)),
        };
        if opts.mode != RetrievalMode::NoGraph && opts.keep_prerequisites != KeepPrerequisites::Off
        {
            eligible = cut::keep_prerequisites(g, pool.to_mut(), eligible, opts.keep_prerequisites);
        }
        let mut decision = relevance::decide(&floors, &evidence, eligible);
        let bundle = match decision {
            Decision::Hit { eligible } => {
                let eligible = &pool[..eligible];
                let selection = hydrate::select(
                    &self.ws,
                    eligible,
                    opts.budgets.top_n,
                    opts.exclude_flagged,
                    |i, r| reason::reason(&self.ws, &eligible[..i], r, opts.mode),
                    |node| collapse::alternates_of(&self.ws, &alternates, node),
                )?;
                let paths = SourcePaths::of(&self.ws, opts.absolute_paths);
                let bundle = selection.hydrate(text, &opts.budgets, &paths);
                bundle.unwrap_or_else(|why| {
                    decision = Decision::NoHit(why);
                    no_hit(text, &why)
                })
            }
            Decision::NoHit(why) => no_hit(text, &why),
        };
        let t_hydrate = ms(t);
        Ok(Retrieval {
            mode: opts.mode,
            seeds,
            source,
            top_seed_score: evidence.top_seed_score,
            top_dense_score: evidence.top_dense_score,
            lexical_coverage,
            ranked,
            alternates,
            decision,
            bundle,
            timings: Timings {
                encode: t_encode,
                seed: t_seed,
                diffuse: t_diffuse,
                rerank: t_rerank,
                cross_encoder: t_cross_encoder,
                hydrate: t_hydrate,
                total: ms(start),
            },
            limits_applied,
            coverage,
        })
    }

    /// Run the cross-encoder reranker when the retriever has one; whether it ran.
    fn cross_encode(&self, ranked: &mut Vec<RankedSkill>, ctx: &RerankContext<'_>) -> Result<bool> {
        let Some((model, params)) = &self.pair_scorer else {
            return Ok(false);
        };
        CrossEncoderReranker::new(model.as_ref(), *params)?.rerank(ranked, ctx)?;
        Ok(true)
    }

    /// The seeder of the concrete `source`.
    fn seeder(&self, source: SeedSource, opts: &RetrieveOptions) -> Result<Box<dyn Seeder + '_>> {
        let lexical = self.ws.lexical();
        if !source.needs_vectors() {
            let seeder = LexicalSeeder::new(lexical)
                .with_max_term_df(opts.seeds.max_term_df)
                .with_field_boosts(opts.query.field_boosts);
            return Ok(Box::new(seeder));
        }
        let Some(set) = self.ws.dense() else {
            return Err(Error::InvalidOption {
                name: "SeedParams::source",
                reason: format!(
                    "workspace {dir} has no skill vectors, so {source} seeds are unavailable; \
                     rebuild it with `gos build LIBRARY -w {dir} --model-dir DIR` or use lexical seeds",
                    dir = self.ws.dir().display()
                ),
            });
        };
        Ok(match source {
            SeedSource::Dense => Box::new(DenseSeeder::new(set)),
            _ => Box::new(
                HybridSeeder::new(lexical, set, opts.seeds.fusion)
                    .with_field_boosts(opts.query.field_boosts),
            ),
        })
    }
}

/// Convenience for tests and tools: the rank (1-based) of `node` in `ranked`.
pub fn rank_of(ranked: &[RankedSkill], node: usize) -> Option<usize> {
    ranked.iter().position(|r| r.node == node).map(|p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shareable<T: Clone + Send + Sync>() {}

    /// A retriever is shared by server threads and kept across requests as is.
    #[test]
    fn a_retriever_is_clone_send_and_sync() {
        shareable::<Retriever>();
    }
}
