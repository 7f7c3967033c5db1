//! [`Pipeline`]: a [`PipelineSpec`] with its models loaded and its LLM service, run one query at
//! a time into a [`gos_core::retrieve::Retrieval`] and a [`PipelineTrace`].

use crate::error::{Error, Result};
use crate::spec::{GosStage, PipelineSpec, StageSpec};
use crate::stages::{Candidate, DenseRunner, StageNotes, llm_queries, llm_select, rerank};
use gos_core::hydrate::{self, SourcePaths, no_hit};
use gos_core::relevance::{Decision, NoHitReason};
use gos_core::rerank::PairScorer;
use gos_core::retrieve::{RankedSkill, Retrieval, Timings, limits};
use gos_core::seed::SeedSource;
use gos_core::{RetrievalMode, RetrieveOptions, Retriever, Workspace};
use gos_llm::LlmService;
use gos_models::cross_encoder::load_pair_scorer;
use gos_models::dense::load_embedder;
use gos_models::device::Device;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// One stage's entry of the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageTrace {
    /// Stage name.
    pub name: String,
    /// Stage kind (`gos`, `dense`, `rerank`, `llm-queries`, `llm-select`).
    pub kind: &'static str,
    /// Candidates in (the library size for the first candidate stage).
    pub input: usize,
    /// Candidates out.
    pub output: usize,
    /// The stage's caps and depths (view caps, `depth`, `keep`, `top`, `max_skills`, ...).
    pub caps: Value,
    /// Milliseconds of the stage.
    pub ms: f64,
    /// The model the stage ran (name or id), when it has one.
    pub model: Option<String>,
    /// Fallbacks taken, in words (empty when none).
    pub fallbacks: Vec<String>,
    /// Stage-specific facts (queries, document-vector cache, union size, LLM outcome).
    pub detail: Value,
    /// Ids of the first [`TRACE_HEAD`] candidates out, in order.
    pub head: Vec<String>,
}

/// Candidates a [`StageTrace`] names.
pub const TRACE_HEAD: usize = 10;

/// The trace of one pipeline run: what `gos retrieve --json` prints under `pipeline`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelineTrace {
    /// Pipeline name.
    pub name: String,
    /// One entry per stage, in run order.
    pub stages: Vec<StageTrace>,
}

/// The result of [`Pipeline::run`].
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineRun {
    /// The retrieval, hydrated like any gos retrieval.
    pub retrieval: Retrieval,
    /// What each stage did.
    pub trace: PipelineTrace,
}

enum Stage {
    Gos(GosStage),
    Dense(Box<DenseRunner>),
    Rerank(crate::spec::RerankStage, Box<dyn PairScorer>),
    Queries(crate::spec::LlmQueriesStage),
    Select(crate::spec::LlmSelectStage),
}

/// A pipeline ready to run: its spec, its loaded models and its LLM service.
pub struct Pipeline {
    spec: PipelineSpec,
    stages: Vec<Stage>,
    llm: Option<LlmService>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("spec", &self.spec)
            .field("llm", &self.llm.as_ref().map(LlmService::model))
            .finish()
    }
}

/// The model directory of stage `stage` of pipeline `pipeline`: `models["pipeline.stage"]`,
/// else `models["stage"]`, else the stage's own `model`.
fn model_dir(
    models: &BTreeMap<String, PathBuf>,
    pipeline: &str,
    stage: &str,
    own: Option<&PathBuf>,
) -> Option<PathBuf> {
    models
        .get(&format!("{pipeline}.{stage}"))
        .or_else(|| models.get(stage))
        .or(own)
        .cloned()
}

fn core(stage: &str) -> impl Fn(gos_core::Error) -> Error + '_ {
    move |source| Error::Core {
        stage: stage.to_string(),
        source,
    }
}

impl Pipeline {
    /// Load the models of `spec` onto `device`. `models` maps `STAGE` or `PIPELINE.STAGE` to a
    /// model directory (the qualified name wins, then the plain one, then the stage's `model`);
    /// names of stages the pipeline lacks are ignored. `llm` serves the LLM stages (without it
    /// they fall back).
    ///
    /// # Errors
    /// [`Error::Invalid`] from [`PipelineSpec::validate`]; [`Error::MissingModel`] naming the
    /// stage and the flag that gives it; [`Error::Core`] when a model does not load.
    pub fn load(
        spec: PipelineSpec,
        models: &BTreeMap<String, PathBuf>,
        device: &Device,
        llm: Option<LlmService>,
    ) -> Result<Self> {
        spec.validate()?;
        let mut stages = Vec::with_capacity(spec.stages.len());
        for s in &spec.stages {
            let missing = |what: &'static str| Error::MissingModel {
                pipeline: spec.name.clone(),
                stage: s.name().to_string(),
                kind: s.kind(),
                what,
            };
            stages.push(match s {
                StageSpec::Gos(g) => Stage::Gos(g.clone()),
                StageSpec::Dense(d) => {
                    let dir = model_dir(models, &spec.name, &d.name, d.model.as_ref()).ok_or_else(
                        || missing("an embedding model such as BAAI/bge-base-en-v1.5"),
                    )?;
                    let m = load_embedder(&dir, device).map_err(core(&d.name))?;
                    Stage::Dense(Box::new(DenseRunner::new(d.clone(), m)))
                }
                StageSpec::Rerank(r) => {
                    let dir = model_dir(models, &spec.name, &r.name, r.model.as_ref()).ok_or_else(
                        || missing("a cross-encoder such as cross-encoder/ms-marco-MiniLM-L-6-v2"),
                    )?;
                    let m = load_pair_scorer(&dir, device, r.max_length).map_err(core(&r.name))?;
                    Stage::Rerank(r.clone(), m)
                }
                StageSpec::LlmQueries(q) => Stage::Queries(q.clone()),
                StageSpec::LlmSelect(l) => Stage::Select(l.clone()),
            });
        }
        Ok(Pipeline { spec, stages, llm })
    }

    /// The spec.
    pub fn spec(&self) -> &PipelineSpec {
        &self.spec
    }

    /// Whether a stage is gos's retriever (then the caller's retriever needs its encoder and
    /// cross-encoder as for `gos retrieve`).
    pub fn has_gos_stage(&self) -> bool {
        self.stages.iter().any(|s| matches!(s, Stage::Gos(_)))
    }

    /// The LLM service's counters, when it has one.
    pub fn llm_stats(&self) -> Option<gos_llm::RequestStats> {
        self.llm.as_ref().map(LlmService::stats)
    }

    /// Run the stages for `task` over `retriever`'s workspace with the command's `opts`
    /// (budgets, floors, and the gos stage's defaults). A pipeline that is one gos stage
    /// without `keep` returns exactly `retriever.retrieve(task, opts)`; otherwise the last
    /// stage's candidates are hydrated in order under `opts.budgets`.
    ///
    /// # Errors
    /// [`Error::Core`] naming the stage on index or model errors. LLM failures are not errors.
    pub fn run(
        &self,
        retriever: &Retriever,
        task: &str,
        opts: &RetrieveOptions,
    ) -> Result<PipelineRun> {
        let start = Instant::now();
        let ws = retriever.workspace();
        let (text, cut) = limits::cap_query(task);
        let mut cands: Option<Vec<Candidate>> = None;
        let mut queries: Vec<String> = Vec::new();
        let mut gos: Option<Retrieval> = None;
        let mut trace = Vec::with_capacity(self.stages.len());
        let mut timings = Timings::default();
        let mut top_dense = None;
        for (i, stage) in self.stages.iter().enumerate() {
            let spec = &self.spec.stages[i];
            let input = cands.as_ref().map_or(ws.len(), Vec::len);
            let t = Instant::now();
            let err = core(spec.name());
            let (model, caps, notes) = match stage {
                Stage::Gos(g) => {
                    let (r, out) = run_gos(retriever, g, text, opts).map_err(err)?;
                    cands = Some(out);
                    let caps = json!({"keep": g.keep, "top_n": opts.budgets.top_n});
                    let detail = json!({"mode": r.mode.as_str(), "seed_source": r.source.as_str(), "status": r.bundle.status.as_str()});
                    for (a, b) in [
                        (&mut timings.encode, r.timings.encode),
                        (&mut timings.seed, r.timings.seed),
                        (&mut timings.diffuse, r.timings.diffuse),
                        (&mut timings.rerank, r.timings.rerank),
                        (&mut timings.cross_encoder, r.timings.cross_encoder),
                    ] {
                        *a += b;
                    }
                    gos = Some(r);
                    let notes = StageNotes {
                        detail,
                        ..StageNotes::default()
                    };
                    (None, caps, notes)
                }
                Stage::Dense(d) => {
                    let (out, notes) = d.run(ws, text, &queries, cands.as_deref()).map_err(err)?;
                    top_dense = out.first().and_then(|c| c.dense);
                    cands = Some(out);
                    timings.encode += notes.encode_ms;
                    timings.seed += t.elapsed().as_secs_f64() * 1e3 - notes.encode_ms;
                    let s = &d.spec;
                    let caps = json!({"view": s.view.caps(), "query_chars": s.query_chars, "depth": s.depth, "keep": s.keep, "queries": s.queries, "rescore": s.rescore});
                    (Some(d.model.model_id().to_string()), caps, notes)
                }
                Stage::Rerank(r, m) => {
                    let given = cands.take().unwrap_or_default();
                    let (out, notes) = rerank(ws, r, m.as_ref(), text, given).map_err(err)?;
                    cands = Some(out);
                    timings.cross_encoder += t.elapsed().as_secs_f64() * 1e3;
                    let caps = json!({"view": r.view.caps(), "query_chars": r.query_chars, "top": r.top, "keep": r.keep, "max_length": r.max_length});
                    (Some(m.model_name()), caps, notes)
                }
                Stage::Queries(q) => {
                    let (qs, notes) = llm_queries(self.llm.as_ref(), text, q.count);
                    queries = qs;
                    (self.llm_model(), json!({"count": q.count}), notes)
                }
                Stage::Select(l) => {
                    let given = cands.take().unwrap_or_default();
                    let (out, notes) =
                        llm_select(ws, self.llm.as_ref(), l, text, given).map_err(err)?;
                    cands = Some(out);
                    let caps = json!({"max_skills": l.max_skills, "max_chars": l.max_chars, "specificity": l.specificity});
                    (self.llm_model(), caps, notes)
                }
            };
            trace.push(StageTrace {
                name: spec.name().to_string(),
                kind: spec.kind(),
                input,
                output: cands.as_ref().map_or(input, Vec::len),
                caps,
                ms: t.elapsed().as_secs_f64() * 1e3,
                model,
                fallbacks: notes.fallbacks,
                detail: notes.detail,
                head: cands
                    .iter()
                    .flatten()
                    .take(TRACE_HEAD)
                    .map(|c| ws.manifest().nodes[c.node].id.clone())
                    .collect(),
            });
        }
        let trace = PipelineTrace {
            name: self.spec.name.clone(),
            stages: trace,
        };
        if let ([Stage::Gos(g)], Some(r)) = (self.stages.as_slice(), &gos)
            && g.keep.is_none()
        {
            return Ok(PipelineRun {
                retrieval: r.clone(),
                trace,
            });
        }
        let mut limits_applied: Vec<String> = cut.into_iter().collect();
        if let Some(r) = &gos {
            limits_applied.extend(r.limits_applied.iter().cloned());
            limits_applied.dedup();
        }
        let finish = Finish {
            ws,
            text,
            opts,
            pipeline: &self.spec.name,
            last: self.spec.stages.last().map_or("", StageSpec::name),
        };
        let t = Instant::now();
        let (ranked, decision, bundle) = finish
            .hydrate(cands.unwrap_or_default(), gos.as_ref())
            .map_err(core("hydrate"))?;
        timings.hydrate = t.elapsed().as_secs_f64() * 1e3;
        timings.total = start.elapsed().as_secs_f64() * 1e3;
        let has_dense = self.stages.iter().any(|s| matches!(s, Stage::Dense(_)));
        let retrieval = Retrieval {
            mode: gos.as_ref().map_or(RetrievalMode::NoGraph, |r| r.mode),
            seeds: gos.as_ref().map(|r| r.seeds.clone()).unwrap_or_default(),
            source: match &gos {
                Some(r) => r.source,
                None if has_dense => SeedSource::Dense,
                None => SeedSource::Lexical,
            },
            top_seed_score: gos.as_ref().map_or(0.0, |r| r.top_seed_score),
            top_dense_score: top_dense.or(gos.as_ref().and_then(|r| r.top_dense_score)),
            lexical_coverage: gos.as_ref().map(|r| r.lexical_coverage).unwrap_or_default(),
            ranked,
            // Pipelines do not collapse near-duplicates nor select by facet coverage.
            alternates: Default::default(),
            decision,
            bundle,
            timings,
            limits_applied,
            coverage: None,
        };
        Ok(PipelineRun { retrieval, trace })
    }

    fn llm_model(&self) -> Option<String> {
        self.llm.as_ref().map(|s| s.model().to_string())
    }
}

/// The gos stage: the retrieval and its eligible candidates (the first `keep`).
fn run_gos(
    retriever: &Retriever,
    g: &GosStage,
    text: &str,
    opts: &RetrieveOptions,
) -> gos_core::Result<(Retrieval, Vec<Candidate>)> {
    let mut o = *opts;
    if let Some(m) = g.mode {
        o.mode = m;
    }
    if let Some(s) = g.seeds {
        o.seeds.source = s;
    }
    let r = retriever.retrieve(text, &o)?;
    // The candidates above the relative floor, in final order: the later stages choose from
    // them. Not the bundle's count (`Decision::Hit::eligible`), which the adaptive cut and the
    // per-skill floor take from a filtered, reordered copy of the list: passing that many
    // ranked candidates gave fixtures/pipelines/gos-then-rerankers.toml's rerankers one
    // candidate instead of its `keep` of 20.
    let eligible = match r.decision {
        Decision::Hit { .. } => gos_core::relevance::eligible(&r.ranked, o.min_relative_score),
        Decision::NoHit(_) => 0,
    };
    let n = g.keep.map_or(eligible, |k| k.min(eligible));
    let out = r.ranked[..n.min(r.ranked.len())]
        .iter()
        .map(|s| Candidate {
            node: s.node,
            score: s.score,
            dense: s.dense_score,
            pair: s.cross_encoder_score,
            graph: s.graph_score,
        })
        .collect();
    Ok((r, out))
}

/// The final hydration of a pipeline's candidates.
struct Finish<'a> {
    ws: &'a Workspace,
    text: &'a str,
    opts: &'a RetrieveOptions,
    pipeline: &'a str,
    last: &'a str,
}

impl Finish<'_> {
    fn hydrate(
        &self,
        cands: Vec<Candidate>,
        gos: Option<&Retrieval>,
    ) -> gos_core::Result<(Vec<RankedSkill>, Decision, gos_core::Bundle)> {
        let nodes = &self.ws.manifest().nodes;
        let ranked: Vec<RankedSkill> = cands
            .iter()
            .map(|c| RankedSkill {
                node: c.node,
                id: nodes[c.node].id.clone(),
                score: c.score,
                graph_score: c.graph,
                pool_score: c.dense.unwrap_or(0.0),
                pool_rank: None,
                bm25_score: None,
                dense_score: c.dense,
                seed_rank: None,
                cross_encoder_score: c.pair,
            })
            .collect();
        if cands.is_empty() {
            let why = match gos.map(|r| r.decision) {
                Some(Decision::NoHit(why)) => why,
                _ => NoHitReason::NoCandidates,
            };
            return Ok((ranked, Decision::NoHit(why), no_hit(self.text, &why)));
        }
        let selection = hydrate::select(
            self.ws,
            &ranked,
            self.opts.budgets.top_n,
            self.opts.exclude_flagged,
            |i, _| {
                format!(
                    "pipeline {}: rank {} after stage `{}`",
                    self.pipeline,
                    i + 1,
                    self.last
                )
            },
            |_| Vec::new(),
        )?;
        let paths = SourcePaths::of(self.ws, self.opts.absolute_paths);
        let result = selection.hydrate(self.text, &self.opts.budgets, &paths);
        Ok(match result {
            Ok(bundle) => (
                ranked,
                Decision::Hit {
                    eligible: cands.len(),
                },
                bundle,
            ),
            Err(why) => (ranked, Decision::NoHit(why), no_hit(self.text, &why)),
        })
    }
}
