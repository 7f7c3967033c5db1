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

pub use cut::BundleCut;
pub use options::{DEFAULT_COLLAPSE_DUPLICATES, RetrieveOptions};

pub use crate::candidate::RankedSkill;
pub use crate::mode::RetrievalMode;
pub use crate::relevance::DenseFloor;

#[cfg(feature = "neural")]
use crate::cross_encoder::CrossEncoder;
#[cfg(feature = "neural")]
use crate::dense::SentenceEncoder;
use crate::diffuse;
use crate::error::{Error, Result};
use crate::hydrate::{Bundle, HydrationInput, SourcePaths, hydrate, no_hit};
use crate::query::Query;
use crate::relevance::{self, Decision, NoHitReason, RelevanceEvidence};
#[cfg(feature = "neural")]
use crate::rerank::{CrossEncoderReranker, StageParams};
use crate::rerank::{FieldEvidence, RerankContext, Reranker};
use crate::seed::{
    DenseSeeder, HybridSeeder, LexicalSeeder, Seed, SeedSource, Seeder, seeds_from_pool,
};
use crate::text::{analyzer, tokens};
use crate::workspace::Workspace;
use serde::Serialize;
#[cfg(feature = "neural")]
use std::path::Path;
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

/// A model the retriever either borrows or owns.
#[cfg(feature = "neural")]
enum Held<'w, T> {
    Borrowed(&'w T),
    Owned(Box<T>),
}

#[cfg(feature = "neural")]
impl<T> std::ops::Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Held::Borrowed(t) => t,
            Held::Owned(t) => t,
        }
    }
}

/// Retrieval over an open workspace. Creating one analyzes every skill name once (a few
/// milliseconds at 5,000 skills); it can then serve any number of queries, from several threads.
pub struct Retriever<'w> {
    ws: &'w Workspace,
    name_tokens: Vec<Vec<String>>,
    #[cfg(feature = "neural")]
    encoder: Option<Held<'w, SentenceEncoder>>,
    #[cfg(feature = "neural")]
    cross_encoder: Option<(Held<'w, CrossEncoder>, StageParams)>,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

impl<'w> Retriever<'w> {
    /// A retriever over `ws` without neural models: [`SeedSource::Auto`] seeds lexically.
    pub fn new(ws: &'w Workspace) -> Self {
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
            #[cfg(feature = "neural")]
            encoder: None,
            #[cfg(feature = "neural")]
            cross_encoder: None,
        }
    }

    #[cfg(feature = "neural")]
    /// The retriever `gos retrieve` uses: when the workspace has skill vectors, it loads the
    /// sentence encoder they were built with (from `model_dir` when given, else from the model
    /// directory the workspace recorded) on `device`, so [`SeedSource::Auto`] seeds hybrid;
    /// without vectors it is [`Retriever::new`].
    ///
    /// # Errors
    /// [`Error::Model`] when the model directory cannot be loaded (the message names it; pass
    /// another `model_dir`, or use [`Retriever::new`] for lexical seeds);
    /// [`Error::InvalidOption`] when the model is not the one the vectors came from.
    pub fn from_workspace(
        ws: &'w Workspace,
        model_dir: Option<&Path>,
        device: &candle_core::Device,
    ) -> Result<Self> {
        let retriever = Retriever::new(ws);
        let Some(dense) = ws.dense() else {
            return Ok(retriever);
        };
        let dir = model_dir.map_or_else(
            || Path::new(&dense.info.model_dir).to_path_buf(),
            Path::to_path_buf,
        );
        let encoder = SentenceEncoder::load(&dir, device)?;
        retriever.attach_encoder(Held::Owned(Box::new(encoder)))
    }

    #[cfg(feature = "neural")]
    /// Use `encoder` for query embeddings (needed by dense and hybrid seeds, and what makes
    /// [`SeedSource::Auto`] hybrid).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the workspace has no vectors or they come from another
    /// model than `encoder`.
    pub fn with_encoder(self, encoder: &'w SentenceEncoder) -> Result<Self> {
        self.attach_encoder(Held::Borrowed(encoder))
    }

    #[cfg(feature = "neural")]
    fn attach_encoder(mut self, encoder: Held<'w, SentenceEncoder>) -> Result<Self> {
        let Some(dense) = self.ws.dense() else {
            return Err(Error::InvalidOption {
                name: "Retriever::encoder",
                reason: format!(
                    "workspace {} has no skill vectors; rebuild it with `gos build --model-dir DIR`",
                    self.ws.dir().display()
                ),
            });
        };
        if dense.info.model != encoder.model_id() {
            return Err(Error::InvalidOption {
                name: "Retriever::encoder",
                reason: format!(
                    "the workspace vectors come from {} but the query encoder is {}; use the \
                     same model directory or rebuild the workspace",
                    dense.info.model,
                    encoder.model_id()
                ),
            });
        }
        self.encoder = Some(encoder);
        Ok(self)
    }

    #[cfg(feature = "neural")]
    /// Add the cross-encoder reranker after field-evidence reranking
    /// ([`crate::rerank::CrossEncoderReranker`]).
    pub fn with_cross_encoder(mut self, ce: &'w CrossEncoder, params: StageParams) -> Self {
        self.cross_encoder = Some((Held::Borrowed(ce), params));
        self
    }

    #[cfg(feature = "neural")]
    /// [`Retriever::with_cross_encoder`] with a model the retriever keeps.
    pub fn with_owned_cross_encoder(mut self, ce: CrossEncoder, params: StageParams) -> Self {
        self.cross_encoder = Some((Held::Owned(Box::new(ce)), params));
        self
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        self.ws
    }

    /// Whether the retriever has a query encoder (then [`SeedSource::Auto`] seeds hybrid).
    pub fn has_encoder(&self) -> bool {
        #[cfg(feature = "neural")]
        return self.encoder.is_some();
        #[cfg(not(feature = "neural"))]
        false
    }

    /// The seed source `asked` resolves to with this retriever ([`SeedSource::resolve`]).
    pub fn seed_source(&self, asked: SeedSource) -> SeedSource {
        asked.resolve(self.has_encoder())
    }

    /// Retrieve a bundle for `query`.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the seed source needs vectors the workspace or the
    /// retriever lacks; index errors while searching or reading stored content; model errors.
    pub fn retrieve(&self, query: &str, opts: &RetrieveOptions) -> Result<Retrieval> {
        self.retrieve_embedded(query, None, opts)
    }

    #[cfg(feature = "neural")]
    /// Embed `query` with the retriever's encoder: unit vectors of the encoder's dimension,
    /// the whole text first, then (with `chunks`) one per passage of
    /// [`crate::dense::query_passages`]. A skill's dense score is its best cosine over them.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] without an encoder; encoder failures.
    pub fn embed_query(&self, query: &str, chunks: bool) -> Result<Vec<Vec<f32>>> {
        let encoder = self.encoder.as_ref().ok_or_else(|| Error::InvalidOption {
            name: "SeedParams::source",
            reason: "dense and hybrid seeds need a query encoder (a model directory)".into(),
        })?;
        let (query, _) = limits::cap_query(query);
        let mut texts = vec![query.to_string()];
        if chunks {
            texts.extend(limits::capped_passages(query).0);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        encoder.encode(&refs)
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
        let code_boost = opts.query.code_boost_for(source);
        let mut query = Query::with_params(text, opts.query.markup, code_boost);
        if source.needs_vectors() {
            query = query.with_vectors(match query_vectors {
                Some(v) => v,
                None => {
                    embedded = self.embed_query_or_refuse(text, opts)?;
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
        let graph_scores = diffuse::for_mode(opts.mode, self.ws, &opts.ppr).diffuse(&p);
        let t_diffuse = ms(t);

        let t = Instant::now();
        let mut ranked = candidates::assemble(self.ws, &first, &seeds, &graph_scores);
        let text_view = |r: &RankedSkill| -> Result<String> {
            Ok(format!(
                "{}\n{}",
                self.ws.manifest().nodes[r.node].name,
                self.content(r.node)?
            ))
        };
        let mut ctx = RerankContext {
            query: &query,
            mode: opts.mode,
            eligible: ranked.len(),
            top_n: opts.budgets.top_n,
            text: &text_view,
        };
        FieldEvidence::new(opts.rerank, &self.name_tokens).rerank(&mut ranked, &ctx)?;
        let alternates = collapse::collapse(self.ws, &mut ranked, opts.collapse_duplicates);
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
        let lexical_coverage = relevance::coverage_of_hits(self.ws, &query.terms, &first.bm25)?;
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
        let eligible = opts.bundle_cut.keep(&ranked, eligible);
        let mut decision = relevance::decide(&floors, &evidence, eligible);
        let bundle = match decision {
            Decision::Hit { eligible } => {
                let (inputs, flagged) =
                    self.hydration_inputs(&ranked[..eligible], &alternates, opts)?;
                let paths = SourcePaths {
                    library_root: self.ws.info().library_root.clone(),
                    absolute: opts.absolute_paths,
                };
                let why = if inputs.is_empty() {
                    Err(NoHitReason::AllFlagged { flagged })
                } else {
                    hydrate(text, &inputs, &opts.budgets, &paths).map_err(|f| {
                        NoHitReason::NothingFits {
                            needed: f.needed,
                            available: f.available,
                            max_context_chars: opts.budgets.max_context_chars,
                            max_chars_per_skill: opts.budgets.max_chars_per_skill,
                        }
                    })
                };
                why.unwrap_or_else(|why| {
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

    /// The query's embeddings for dense and hybrid seeds.
    fn embed_query_or_refuse(&self, text: &str, opts: &RetrieveOptions) -> Result<Vec<Vec<f32>>> {
        #[cfg(feature = "neural")]
        return self.embed_query(text, opts.seeds.query_chunks);
        #[cfg(not(feature = "neural"))]
        {
            let _ = (text, opts);
            Err(Error::InvalidOption {
                name: "SeedParams::source",
                reason: "dense and hybrid seeds need the query's embeddings: pass them to \
                         retrieve_embedded, or build gos-core with the `neural` feature"
                    .into(),
            })
        }
    }

    /// Run the cross-encoder reranker when the retriever has one; whether it ran.
    fn cross_encode(&self, ranked: &mut Vec<RankedSkill>, ctx: &RerankContext<'_>) -> Result<bool> {
        #[cfg(feature = "neural")]
        if let Some((model, params)) = &self.cross_encoder {
            CrossEncoderReranker::new(model, *params)?.rerank(ranked, ctx)?;
            return Ok(true);
        }
        let _ = (ranked, ctx);
        Ok(false)
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

    /// The first `opts.budgets.top_n` candidates of `eligible` as hydration inputs, each with
    /// its reason, skipping flagged skills with [`RetrieveOptions::exclude_flagged`]; and how
    /// many flagged skills were skipped.
    fn hydration_inputs(
        &self,
        eligible: &[RankedSkill],
        alternates: &collapse::Alternates,
        opts: &RetrieveOptions,
    ) -> Result<(Vec<HydrationInput>, usize)> {
        let n = eligible.len().min(opts.budgets.top_n);
        let mut inputs = Vec::with_capacity(n);
        let mut flagged = 0;
        for (i, r) in eligible.iter().enumerate() {
            if inputs.len() == n {
                break;
            }
            let node = &self.ws.manifest().nodes[r.node];
            if opts.exclude_flagged && !node.warnings.is_empty() {
                flagged += 1;
                continue;
            }
            inputs.push(HydrationInput {
                node: r.node,
                id: node.id.clone(),
                name: node.name.clone(),
                source: node.source_path.clone(),
                score: r.score,
                reason: reason::reason(self.ws, &eligible[..i], r, opts.mode),
                content: self.content(r.node)?,
                warnings: node.warnings.clone(),
                alternates: collapse::alternates_of(self.ws, alternates, r.node),
            });
        }
        Ok((inputs, flagged))
    }

    /// A skill's hydrated content: its description paragraph, then its stored body.
    fn content(&self, node: usize) -> Result<String> {
        let body = self.ws.lexical().body(node)?.unwrap_or_default();
        let description = self.ws.manifest().nodes[node].description.value.trim();
        Ok(if description.is_empty() {
            body
        } else {
            format!("{description}\n\n{}", body.trim())
        })
    }
}

#[cfg(feature = "neural")]
/// The query encoder of `ws`: `None` when the workspace has no skill vectors; otherwise the
/// sentence encoder loaded from `model_dir` when given, else from the model directory the
/// workspace recorded at build time, on `device`.
///
/// # Errors
/// [`Error::Model`] when the model directory cannot be loaded (the message names it).
pub fn load_query_encoder(
    ws: &Workspace,
    model_dir: Option<&Path>,
    device: &candle_core::Device,
) -> Result<Option<SentenceEncoder>> {
    let Some(dense) = ws.dense() else {
        return Ok(None);
    };
    let dir = model_dir.map_or_else(
        || Path::new(&dense.info.model_dir).to_path_buf(),
        Path::to_path_buf,
    );
    SentenceEncoder::load(&dir, device).map(Some)
}

/// Convenience for tests and tools: the rank (1-based) of `node` in `ranked`.
pub fn rank_of(ranked: &[RankedSkill], node: usize) -> Option<usize> {
    ranked.iter().position(|r| r.node == node).map(|p| p + 1)
}
