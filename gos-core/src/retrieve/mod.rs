//! The online pipeline: seeds -> diffusion -> rerank -> hydration.

mod mode;

pub use mode::RetrievalMode;

use crate::cross_encoder::{CrossEncoder, StageParams};
use crate::dense::SentenceEncoder;
use crate::error::{Error, Result};
use crate::graph::EdgeType;
use crate::hydrate::{Budgets, Bundle, HydrationInput, hydrate, no_hit};
use crate::lexical::LexicalIndex;
use crate::ppr::{PprMethod, PprParams, TransitionMatrix, personalized_pagerank, push_pagerank};
use crate::rerank::{Evidence, RerankWeights, combine, name_coverage};
use crate::seed::{Seed, SeedParams, SeedSource, seeding};
use crate::text::{analyzer, tokens};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// Everything that shapes one retrieval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrieveOptions {
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seeding.
    pub seeds: SeedParams,
    /// Diffusion.
    pub ppr: PprParams,
    /// Final-score mixing.
    pub rerank: RerankWeights,
    /// Bundle budgets.
    pub budgets: Budgets,
    /// Lexical relevance floor (lexical seeds): NO_SKILL_HIT when the best BM25 score divided
    /// by the query's idf mass ([`LexicalIndex::idf_mass`]) is below it. Default from the DEV
    /// and unrelated-query measurements in docs/evaluation.md.
    pub min_seed_score: f32,
    /// Dense relevance floor (dense and hybrid seeds): NO_SKILL_HIT when the best cosine
    /// between the query and a skill embedding is below it. Default from the DEV and
    /// unrelated-query measurements in docs/evaluation.md.
    pub min_dense_score: f32,
    /// Candidates whose final score is below this share of the best final score are not
    /// hydrated (0 keeps all reached candidates).
    pub min_relative_score: f64,
}

impl Default for RetrieveOptions {
    fn default() -> Self {
        RetrieveOptions {
            mode: RetrievalMode::Reverse,
            seeds: SeedParams::default(),
            ppr: PprParams::default(),
            rerank: RerankWeights::default(),
            budgets: Budgets::default(),
            min_seed_score: 0.5,
            min_dense_score: DEFAULT_MIN_DENSE_SCORE,
            min_relative_score: 0.05,
        }
    }
}

/// Default [`RetrieveOptions::min_dense_score`] (all-MiniLM-L6-v2 cosine; docs/evaluation.md).
pub const DEFAULT_MIN_DENSE_SCORE: f32 = 0.30;

/// One entry of the ranked list before hydration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedSkill {
    /// Node index.
    pub node: usize,
    /// Skill id.
    pub id: String,
    /// Final score.
    pub score: f64,
    /// Graph score (PPR mass, one-hop mass or seed weight), unnormalized.
    pub graph_score: f64,
    /// First-stage score (BM25, cosine or fused, by seed source), 0 outside the pool.
    pub pool_score: f32,
    /// 1-based rank in the first-stage pool.
    pub pool_rank: Option<usize>,
    /// BM25 score when the node is in the BM25 top-`pool_k`.
    pub bm25_score: Option<f32>,
    /// Cosine with the query when the node is in the dense top-`pool_k`.
    pub dense_score: Option<f32>,
    /// 1-based seed rank.
    pub seed_rank: Option<usize>,
    /// Cross-encoder score (logit scale) when the cross-encoder stage scored this candidate.
    pub cross_encoder_score: Option<f32>,
}

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
    /// Seed source used.
    pub source: SeedSource,
    /// Best BM25 score divided by the query's idf mass (the lexical relevance-floor
    /// evidence), 0 without hits or without a BM25 list.
    pub top_seed_score: f32,
    /// Best cosine between the query and a skill (the dense relevance-floor evidence), when
    /// dense retrieval ran.
    pub top_dense_score: Option<f32>,
    /// All candidates in final order (the ranked list that hit@k and recall@k read).
    pub ranked: Vec<RankedSkill>,
    /// The hydrated bundle.
    pub bundle: Bundle,
    /// Stage timings.
    pub timings: Timings,
}

/// Retrieval over an open workspace. Cheap to create; shares the workspace.
pub struct Retriever<'w> {
    ws: &'w Workspace,
    name_tokens: Vec<Vec<String>>,
    encoder: Option<&'w SentenceEncoder>,
    cross_encoder: Option<(&'w CrossEncoder, StageParams)>,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

impl<'w> Retriever<'w> {
    /// A retriever over `ws`. Cost: analyzes every skill name once.
    pub fn new(ws: &'w Workspace) -> Self {
        let mut a = analyzer();
        let name_tokens = ws
            .manifest
            .nodes
            .iter()
            .map(|n| tokens(&mut a, &n.name))
            .collect();
        Retriever {
            ws,
            name_tokens,
            encoder: None,
            cross_encoder: None,
        }
    }

    /// Use `encoder` for query embeddings (needed by dense and hybrid seeds).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] (option `model-dir`) when the workspace has no vectors or they
    /// come from another model than `encoder`.
    pub fn with_encoder(mut self, encoder: &'w SentenceEncoder) -> Result<Self> {
        let Some(dense) = &self.ws.dense else {
            return Err(Error::InvalidOption {
                name: "model-dir",
                reason: format!(
                    "workspace {} has no skill vectors; rebuild it with `gos build --model-dir DIR`",
                    self.ws.dir().display()
                ),
            });
        };
        if dense.info.model != encoder.model_id() {
            return Err(Error::InvalidOption {
                name: "model-dir",
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

    /// Add the cross-encoder rerank stage after field-evidence reranking
    /// ([`crate::cross_encoder::stage`]).
    pub fn with_cross_encoder(mut self, ce: &'w CrossEncoder, params: StageParams) -> Self {
        self.cross_encoder = Some((ce, params));
        self
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        self.ws
    }

    /// Retrieve a bundle for `query`.
    ///
    /// # Errors
    /// Index errors while searching or reading stored content.
    pub fn retrieve(&self, query: &str, opts: &RetrieveOptions) -> Result<Retrieval> {
        self.retrieve_embedded(query, None, opts)
    }

    /// Embed `query` with the retriever's encoder: unit vectors of the encoder's dimension,
    /// the whole text first, then (with `chunks`) one per passage of
    /// [`crate::dense::query_passages`]. A skill's dense score is its best cosine over them.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] without an encoder; encoder failures.
    pub fn embed_query(&self, query: &str, chunks: bool) -> Result<Vec<Vec<f32>>> {
        let encoder = self.encoder.ok_or_else(|| Error::InvalidOption {
            name: "seeds",
            reason: "dense and hybrid seeds need a query encoder (--model-dir)".into(),
        })?;
        let mut texts = vec![query.to_string()];
        if chunks {
            texts.extend(crate::dense::query_passages(query));
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
        query: &str,
        query_vectors: Option<&[Vec<f32>]>,
        opts: &RetrieveOptions,
    ) -> Result<Retrieval> {
        let start = Instant::now();
        let source = opts.seeds.source;
        let pool_k = opts.seeds.pool_k.max(opts.seeds.seed_k);
        let terms = LexicalIndex::query_terms(query);
        let (dense, t_encode) = if source.needs_vectors() {
            let Some(set) = &self.ws.dense else {
                return Err(Error::InvalidOption {
                    name: "seeds",
                    reason: format!(
                        "{source} seeds need skill vectors: build the workspace with --model-dir"
                    ),
                });
            };
            let t = Instant::now();
            let embedded;
            let q = match query_vectors {
                Some(v) => v,
                None => {
                    embedded = self.embed_query(query, opts.seeds.query_chunks)?;
                    &embedded
                }
            };
            let t_encode = ms(t);
            (set.search_many(q, pool_k), t_encode)
        } else {
            (Vec::new(), 0.0)
        };
        let lexical = if source == SeedSource::Dense {
            Vec::new()
        } else {
            self.ws.lexical.search(&terms, pool_k)?
        };
        let seeding = seeding(&opts.seeds, &lexical, &dense);
        let t_seed = ms(start) - t_encode;

        let t = Instant::now();
        let n = self.ws.len();
        let mut p = vec![0.0; n];
        for s in &seeding.seeds {
            p[s.node] += s.weight;
        }
        let graph_scores = match opts.mode {
            RetrievalMode::Reverse => diffuse(&self.ws.reverse_matrix, &p, &opts.ppr),
            RetrievalMode::Forward => diffuse(&self.ws.forward_matrix, &p, &opts.ppr),
            RetrievalMode::OneHop => self.one_hop(&p, &opts.ppr),
            RetrievalMode::NoGraph => p.clone(),
        };
        let t_diffuse = ms(t);

        let t = Instant::now();
        let lists = FirstStage {
            pool: &seeding.pool,
            bm25: &lexical,
            dense: &dense,
        };
        let mut ranked = self.rank(&terms, &lists, &seeding.seeds, &graph_scores, opts);
        let t_rerank = ms(t);
        // `ranked` is sorted by descending score, so the candidates above the relative floor
        // are a prefix; the cross-encoder stage reorders within it and keeps its length.
        let eligible = ranked.first().map_or(0, |b| {
            let floor = opts.min_relative_score * b.score;
            ranked.iter().take_while(|r| r.score >= floor).count()
        });
        let t = Instant::now();
        if let Some((ce, params)) = &self.cross_encoder {
            self.cross_encoder_stage(ce, params, query, &mut ranked, eligible, opts)?;
        }
        let t_cross_encoder = if self.cross_encoder.is_some() {
            ms(t)
        } else {
            0.0
        };

        let t = Instant::now();
        let mass = self.ws.lexical.idf_mass(&terms)?;
        let top_seed_score = match lexical.first() {
            Some(h) if mass > 0.0 => h.1 / mass,
            _ => 0.0,
        };
        let top_dense_score = source
            .needs_vectors()
            .then(|| dense.first().map_or(0.0, |h| h.1));
        let relevant = match top_dense_score {
            Some(cos) => cos >= opts.min_dense_score,
            None => top_seed_score >= opts.min_seed_score,
        };
        let bundle = if ranked.is_empty() || !relevant {
            no_hit(query)
        } else {
            // Reasons are only worked out for the skills hydrated.
            let mut inputs = Vec::new();
            for (i, r) in ranked
                .iter()
                .take(eligible)
                .take(opts.budgets.top_n)
                .enumerate()
            {
                let reason = self.reason(&ranked[..i], r, opts.mode);
                inputs.push(self.hydration_input(r, reason)?);
            }
            hydrate(query, &inputs, &opts.budgets)
        };
        let t_hydrate = ms(t);
        Ok(Retrieval {
            mode: opts.mode,
            seeds: seeding.seeds,
            source,
            top_seed_score,
            top_dense_score,
            ranked,
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
        })
    }

    /// One-hop expansion: the personalization vector plus, for each seed `s` and each
    /// dependency edge `x -> s`, mass `(1 - restart) * p(s) * w(x -> s) / W(s)` on `x`, where
    /// `W(s)` is the total weight of dependency edges into `s`.
    fn one_hop(&self, p: &[f64], params: &PprParams) -> Vec<f64> {
        let mut g = p.to_vec();
        for (s, &ps) in p.iter().enumerate().filter(|(_, w)| **w > 0.0) {
            let preds: Vec<(usize, f64)> = self
                .ws
                .graph
                .incoming(s)
                .filter(|(_, e)| e.edge_type == EdgeType::Dependency)
                .map(|(x, e)| (x, e.weight))
                .collect();
            let total: f64 = preds.iter().map(|(_, w)| w).sum();
            for (x, w) in preds {
                if total > 0.0 {
                    g[x] += (1.0 - params.restart_prob) * ps * w / total;
                }
            }
        }
        g
    }

    fn rank(
        &self,
        terms: &BTreeMap<String, u32>,
        lists: &FirstStage<'_>,
        seeds: &[Seed],
        graph_scores: &[f64],
        opts: &RetrieveOptions,
    ) -> Vec<RankedSkill> {
        let pool = lists.pool;
        let mut lex_rank: BTreeMap<usize, (usize, f32)> = BTreeMap::new();
        for (i, &(node, score)) in pool.iter().enumerate() {
            lex_rank.insert(node, (i + 1, score));
        }
        let bm25: BTreeMap<usize, f32> = lists.bm25.iter().copied().collect();
        let dense: BTreeMap<usize, f32> = lists.dense.iter().copied().collect();
        let seed_rank: BTreeMap<usize, usize> = seeds.iter().map(|s| (s.node, s.rank)).collect();
        let max_graph = graph_scores.iter().cloned().fold(0.0, f64::max);
        let max_bm25 = lists.bm25.first().map(|h| h.1 as f64).unwrap_or(0.0);
        let (dmax, dmin) = (
            lists.dense.first().map(|h| h.1).unwrap_or(0.0),
            lists.dense.last().map(|h| h.1).unwrap_or(0.0),
        );
        let dense_norm = |node: usize| match dense.get(&node) {
            Some(&c) if dmax > dmin => ((c - dmin) / (dmax - dmin)) as f64,
            Some(_) => 1.0,
            None => 0.0,
        };
        let mut candidates: Vec<usize> = lex_rank.keys().copied().collect();
        candidates.extend(
            graph_scores
                .iter()
                .enumerate()
                .filter(|(i, g)| **g > 0.0 && !lex_rank.contains_key(i))
                .map(|(i, _)| i),
        );
        let mut ranked: Vec<RankedSkill> = candidates
            .into_iter()
            .map(|node| {
                let (lrank, lscore) = lex_rank
                    .get(&node)
                    .map(|&(r, s)| (Some(r), s))
                    .unwrap_or((None, 0.0));
                let cov = name_coverage(&self.name_tokens[node], terms);
                RankedSkill {
                    node,
                    id: self.ws.manifest.nodes[node].id.clone(),
                    score: combine(
                        &opts.rerank,
                        &Evidence {
                            graph: (graph_scores[node], max_graph),
                            lexical: (bm25.get(&node).copied().unwrap_or(0.0) as f64, max_bm25),
                            dense: dense_norm(node),
                            name: cov,
                        },
                    ),
                    graph_score: graph_scores[node],
                    pool_score: lscore,
                    pool_rank: lrank,
                    bm25_score: bm25.get(&node).copied(),
                    dense_score: dense.get(&node).copied(),
                    seed_rank: seed_rank.get(&node).copied(),
                    cross_encoder_score: None,
                }
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        ranked
    }

    /// The cross-encoder stage: the candidate's text view is its name, description and body;
    /// graph-added candidates (protected by the reserved share) are non-seeds with graph mass
    /// that the graph ranked above their BM25 rank, in the modes that use the graph.
    fn cross_encoder_stage(
        &self,
        ce: &CrossEncoder,
        params: &StageParams,
        query: &str,
        ranked: &mut Vec<RankedSkill>,
        eligible: usize,
        opts: &RetrieveOptions,
    ) -> Result<()> {
        let graph_mode = opts.mode != RetrievalMode::NoGraph;
        let text = |r: &RankedSkill| -> Result<String> {
            let content = self.hydration_input(r, String::new())?.content;
            Ok(format!(
                "{}\n{content}",
                self.ws.manifest.nodes[r.node].name
            ))
        };
        let protected = |pre_rank: usize, r: &RankedSkill| {
            graph_mode
                && r.seed_rank.is_none()
                && r.graph_score > 0.0
                && r.pool_rank.is_none_or(|l| l > pre_rank)
        };
        let top_n = opts.budgets.top_n;
        crate::cross_encoder::stage::rerank(
            ce, query, ranked, eligible, top_n, params, text, protected,
        )?;
        Ok(())
    }

    /// Why `r` is a candidate: its seed or lexical rank, or the graph edge linking it to a
    /// better-ranked candidate.
    fn reason(&self, above: &[RankedSkill], r: &RankedSkill, mode: RetrievalMode) -> String {
        let evidence = || {
            let mut parts = Vec::new();
            if let Some(b) = r.bm25_score {
                parts.push(format!("BM25 {b:.1}"));
            }
            if let Some(c) = r.dense_score {
                parts.push(format!("cosine {c:.2}"));
            }
            parts.join(", ")
        };
        if let Some(s) = r.seed_rank {
            return format!("seed match (rank {s}: {})", evidence());
        }
        let nodes = &self.ws.manifest.nodes;
        if matches!(
            mode,
            RetrievalMode::Reverse | RetrievalMode::Forward | RetrievalMode::OneHop
        ) && r.graph_score > 0.0
        {
            let describe = |relation: &str, other: usize, e: &crate::graph::SkillEdge| {
                format!(
                    "{relation} {} via {} edge ({}: {})",
                    nodes[other].name,
                    e.edge_type.as_str(),
                    e.provenance.as_str(),
                    e.evidence
                )
            };
            for a in above {
                if let Some((_, e)) = self.ws.graph.outgoing(r.node).find(|(t, _)| *t == a.node) {
                    return describe("prerequisite of", a.node, e);
                }
                if let Some((_, e)) = self.ws.graph.incoming(r.node).find(|(s, _)| *s == a.node) {
                    return describe("follows", a.node, e);
                }
            }
        }
        match r.pool_rank {
            Some(l) => format!("first-stage match (rank {l}: {})", evidence()),
            None => "reached by graph diffusion".to_string(),
        }
    }

    fn hydration_input(&self, r: &RankedSkill, reason: String) -> Result<HydrationInput> {
        let node = &self.ws.manifest.nodes[r.node];
        let body = self.ws.lexical.body(r.node)?.unwrap_or_default();
        let description = node.description.value.trim();
        let content = if description.is_empty() {
            body
        } else {
            format!("{description}\n\n{}", body.trim())
        };
        Ok(HydrationInput {
            node: r.node,
            id: node.id.clone(),
            name: node.name.clone(),
            source: node.source_path.clone(),
            score: r.score,
            reason,
            content,
        })
    }
}

/// The first-stage lists of one query.
struct FirstStage<'a> {
    /// The pool the seeds were drawn from (BM25, dense or fused).
    pool: &'a [(usize, f32)],
    /// BM25 top-`pool_k` (empty for dense seeds).
    bm25: &'a [(usize, f32)],
    /// Dense top-`pool_k` (empty for lexical seeds).
    dense: &'a [(usize, f32)],
}

/// PPR scores over `m` with the solver `params.method` selects.
fn diffuse(m: &TransitionMatrix, p: &[f64], params: &PprParams) -> Vec<f64> {
    match params.method {
        PprMethod::Exact => personalized_pagerank(m, p, params).scores,
        PprMethod::Push => push_pagerank(m, p, params).scores,
    }
}

/// Convenience for tests and tools: the rank (1-based) of `node` in `ranked`.
pub fn rank_of(ranked: &[RankedSkill], node: usize) -> Option<usize> {
    ranked.iter().position(|r| r.node == node).map(|p| p + 1)
}
