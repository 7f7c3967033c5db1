//! The run loop: every arm once on every task, on one workspace, into per-task records; then
//! the paired bootstrap intervals of every per-task metric against the baseline arm.

use crate::arm::{Arm, arm_options};
use crate::bootstrap::{Interval, LEVEL, paired_interval};
use crate::equiv::Copies;
use crate::error::{Error, Result};
use crate::metric::Metric;
use crate::metrics::{TaskInput, TaskScores};
use crate::task::{OracleRef, TaskLine, match_oracles};
use gos_core::index::dense::TextEmbedder;
use gos_core::rerank::{PairScorer, StageParams};
use gos_core::retrieve::{Timings, rank_of};
use gos_core::{EdgeType, RetrieveOptions, Retriever, Workspace};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many nodes of each arm's ranked list a record keeps ([`ArmTask::ranked_top`]): the
/// deepest cut-off any ranked-list metric or plot reads (recall@50 and the recall@k curve for
/// k = 1..=50).
pub const RANKED_DEPTH: usize = 50;

/// One arm's retrieval of one task.
#[derive(Debug, Clone)]
pub struct ArmTask {
    /// `SKILL_HIT` or `NO_SKILL_HIT`.
    pub status: &'static str,
    /// Hydrated skill ids in bundle order.
    pub bundle: Vec<String>,
    /// Hydrated nodes.
    pub bundle_nodes: Vec<usize>,
    /// The first [`RANKED_DEPTH`] nodes of the ranked list (what recall@k reads).
    pub ranked_top: Vec<usize>,
    /// 1-based rank of each oracle (parallel to [`TaskRecord::oracles`]) in the ranked list.
    pub oracle_ranks: Vec<Option<usize>>,
    /// 1-based rank of each oracle in the BM25 pool (`RankedSkill::pool_rank`).
    pub oracle_lexical_ranks: Vec<Option<usize>>,
    /// Per oracle, how many candidates ranked above it are a second (or later) member of a
    /// near-duplicate group (always 0 when the arm collapses duplicates).
    pub oracle_duplicates_above: Vec<usize>,
    /// Nodes the near-duplicate collapse dropped from the ranked list in favour of a
    /// better-ranked copy (`Retrieval::alternates`).
    pub collapsed: Vec<usize>,
    /// Seed ids in seed order.
    pub seeds: Vec<String>,
    /// Characters of the rendered context.
    pub context_chars: usize,
    /// The lexical relevance evidence (`Retrieval::top_seed_score`).
    pub top_seed_score: f32,
    /// The dense relevance evidence (`Retrieval::top_dense_score`), with dense or hybrid
    /// seeds.
    pub top_dense_score: Option<f32>,
    /// The coverage evidence (`Retrieval::lexical_coverage`).
    pub lexical_coverage: gos_core::relevance::LexicalCoverage,
    /// Stage timings in milliseconds.
    pub timings: Timings,
    /// Per-task metric values.
    pub scores: TaskScores,
}

/// One task: its oracle skills and every arm's retrieval, in arm order.
#[derive(Debug, Clone)]
pub struct TaskRecord {
    /// Task id.
    pub id: String,
    /// Oracle skills, available or not.
    pub oracles: Vec<OracleRef>,
    /// Per arm, in the order of the report's arms.
    pub arms: Vec<ArmTask>,
}

impl TaskRecord {
    /// Available oracle nodes `A_t`.
    pub fn available(&self) -> Vec<usize> {
        self.oracles.iter().filter_map(|o| o.node).collect()
    }

    /// Per available oracle, the nodes the equivalent metrics count as it: the oracle, then
    /// its near-copies ([`TaskInput::matches`]).
    pub fn matches(&self) -> Vec<Vec<usize>> {
        oracle_matches(&self.oracles)
    }
}

/// [`TaskRecord::matches`] of a task's oracles.
fn oracle_matches(oracles: &[OracleRef]) -> Vec<Vec<usize>> {
    oracles
        .iter()
        .filter_map(|o| {
            let node = o.node?;
            Some(
                std::iter::once(node)
                    .chain(o.copies.iter().copied())
                    .collect(),
            )
        })
        .collect()
}

/// Where a run stands, given to the progress callback of [`run_arms`] when a task starts and
/// after each arm.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Id of the task being run.
    pub task: &'a str,
    /// `(task, arm)` retrievals finished.
    pub done: usize,
    /// `(task, arm)` retrievals in the run: tasks × arms.
    pub total: usize,
}

/// The models a run may use: the query encoder for dense and hybrid arms, the cross-encoder
/// and its stage parameters for cross-encoder arms.
#[derive(Clone, Default)]
pub struct Models<'a> {
    /// Sentence encoder of the queries (the workspace's model).
    pub encoder: Option<Arc<dyn TextEmbedder>>,
    /// Cross-encoder reranker and its parameters.
    pub cross_encoder: Option<(Arc<dyn PairScorer>, StageParams)>,
    /// The loaded pipelines of `pipeline:NAME` arms, by arm name.
    pub pipelines: Option<&'a BTreeMap<String, gos_pipeline::Pipeline>>,
}

/// Run every arm once on every task and collect the per-task records, in task order. Dense and
/// hybrid arms use `models.encoder`; each task is embedded once and every arm that needs the
/// vector is charged the encoding time, so latencies stay comparable with `gos retrieve`.
///
/// # Errors
/// [`Error::Retrieve`] naming the task and the arm; [`Error::MissingModel`] for a
/// cross-encoder arm without a cross-encoder.
pub fn run_arms(
    ws: &Arc<Workspace>,
    tasks: &[TaskLine],
    arms: &[Arm],
    base: &RetrieveOptions,
    models: &Models<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<TaskRecord>> {
    let retriever = match &models.encoder {
        Some(e) => Retriever::new(Arc::clone(ws))
            .with_embedder(Arc::clone(e))
            .map_err(|source| Error::Retrieve {
                context: "attaching the query encoder".into(),
                source,
            })?,
        None => Retriever::new(Arc::clone(ws)),
    };
    let ce_retriever = models
        .cross_encoder
        .as_ref()
        .map(|(ce, p)| retriever.clone().with_pair_scorer(Arc::clone(ce), *p));
    if ce_retriever.is_none() && arms.iter().any(|a| a.cross_encoder) {
        return Err(Error::MissingModel(
            "a cross-encoder arm needs a cross-encoder model".into(),
        ));
    }
    let dependency_edges: Vec<(usize, usize)> = ws
        .graph()
        .indexed_edges()
        .filter(|(_, _, e)| e.edge_type == EdgeType::Dependency)
        .map(|(s, t, _)| (s, t))
        .collect();
    let total = tasks.len() * arms.len();
    let mut done = 0;
    let mut records = Vec::with_capacity(tasks.len());
    let mut copies = Copies::new(ws);
    for task in tasks {
        progress(Progress {
            task: &task.id,
            done,
            total,
        });
        let mut oracles = match_oracles(ws, task);
        for o in &mut oracles {
            if let Some(node) = o.node {
                o.copies = copies.of(node)?;
            }
        }
        let available: Vec<usize> = oracles.iter().filter_map(|o| o.node).collect();
        let (query_vectors, encode_ms) = if models.encoder.is_some() {
            let t = std::time::Instant::now();
            let v = retriever
                .embed_query(&task.instruction, base.seeds.query_chunks)
                .map_err(|source| Error::Retrieve {
                    context: format!("embedding task `{}`", task.id),
                    source,
                })?;
            (Some(v), t.elapsed().as_secs_f64() * 1e3)
        } else {
            (None, 0.0)
        };
        let mut per_arm = Vec::with_capacity(arms.len());
        for arm in arms {
            let opts = arm_options(base, arm);
            if arm.pipeline().is_some() {
                let r = run_pipeline(&retriever, models, arm, &task.instruction, base)?;
                per_arm.push(arm_task(ws, &r, &oracles, &available, &dependency_edges));
                done += 1;
                progress(Progress {
                    task: &task.id,
                    done,
                    total,
                });
                continue;
            }
            let arm_retriever = match (arm.cross_encoder, &ce_retriever) {
                (false, _) => &retriever,
                (true, Some(r)) => r,
                (true, None) => {
                    return Err(Error::MissingModel(
                        "a cross-encoder arm needs a cross-encoder model".into(),
                    ));
                }
            };
            let mut r = arm_retriever
                .retrieve_embedded(&task.instruction, query_vectors.as_deref(), &opts)
                .map_err(|source| Error::Retrieve {
                    context: format!("task `{}`, arm {}", task.id, arm.name),
                    source,
                })?;
            if arm.source.needs_vectors() {
                r.timings.encode = encode_ms;
                r.timings.total += encode_ms;
            }
            per_arm.push(arm_task(ws, &r, &oracles, &available, &dependency_edges));
            done += 1;
            progress(Progress {
                task: &task.id,
                done,
                total,
            });
        }
        records.push(TaskRecord {
            id: task.id.clone(),
            oracles,
            arms: per_arm,
        });
    }
    Ok(records)
}

/// One `pipeline:NAME` arm's retrieval of `text`, with the base options unchanged.
fn run_pipeline(
    retriever: &Retriever,
    models: &Models<'_>,
    arm: &Arm,
    text: &str,
    base: &RetrieveOptions,
) -> Result<gos_core::retrieve::Retrieval> {
    let pipeline = models
        .pipelines
        .and_then(|p| p.get(&arm.name))
        .ok_or_else(|| {
            Error::MissingModel(format!("arm {} needs its pipeline loaded", arm.name))
        })?;
    match pipeline.run(retriever, text, base) {
        Ok(run) => Ok(run.retrieval),
        Err(gos_pipeline::Error::Core { stage, source }) => Err(Error::Retrieve {
            context: format!("arm {}, stage `{stage}`", arm.name),
            source,
        }),
        Err(e) => Err(Error::MissingModel(e.to_string())),
    }
}

/// The record of one retrieval `r` (every arm, pipelines included, records the same fields).
fn arm_task(
    ws: &Workspace,
    r: &gos_core::retrieve::Retrieval,
    oracles: &[OracleRef],
    available: &[usize],
    dependency_edges: &[(usize, usize)],
) -> ArmTask {
    let bundle_nodes: Vec<usize> = r.bundle.skills.iter().map(|s| s.node).collect();
    let ranked: Vec<usize> = r.ranked.iter().map(|s| s.node).collect();
    let context_chars = r.bundle.rendered_context.chars().count();
    let matches = oracle_matches(oracles);
    let scores = TaskScores::compute(&TaskInput {
        available,
        matches: &matches,
        oracle_total: oracles.len(),
        bundle: &bundle_nodes,
        ranked: &ranked,
        dependency_edges,
        context_chars,
        latency_ms: r.timings.total,
    });
    let lexical_rank = |node: usize| {
        r.ranked
            .iter()
            .find(|s| s.node == node)
            .and_then(|s| s.pool_rank)
    };
    let repeats = duplicate_repeats(ws, &ranked);
    ArmTask {
        status: r.bundle.status.as_str(),
        bundle: r.bundle.skills.iter().map(|s| s.id.clone()).collect(),
        bundle_nodes,
        ranked_top: ranked.iter().take(RANKED_DEPTH).copied().collect(),
        oracle_ranks: oracles
            .iter()
            .map(|o| o.node.and_then(|n| rank_of(&r.ranked, n)))
            .collect(),
        oracle_lexical_ranks: oracles
            .iter()
            .map(|o| o.node.and_then(lexical_rank))
            .collect(),
        oracle_duplicates_above: oracles
            .iter()
            .map(|o| {
                let rank = o.node.and_then(|n| rank_of(&r.ranked, n));
                rank.map_or(0, |k| repeats[..k - 1].iter().filter(|&&x| x).count())
            })
            .collect(),
        collapsed: r.alternates.values().flatten().copied().collect(),
        seeds: r
            .seeds
            .iter()
            .map(|s| ws.manifest().nodes[s.node].id.clone())
            .collect(),
        context_chars,
        top_seed_score: r.top_seed_score,
        top_dense_score: r.top_dense_score,
        lexical_coverage: r.lexical_coverage,
        timings: r.timings,
        scores,
    }
}

/// Per position of `ranked`, whether the node repeats a near-duplicate group of `ws` already
/// seen higher in the list.
fn duplicate_repeats(ws: &Workspace, ranked: &[usize]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::new();
    ranked
        .iter()
        .map(|&n| ws.duplicates().group_of(n).is_some_and(|g| !seen.insert(g)))
        .collect()
}

/// Intervals of `arm − baseline`, per non-baseline arm name and per metric of
/// [`Metric::PER_TASK`]; `None` where no task has both values.
pub type Intervals = BTreeMap<String, BTreeMap<Metric, Option<Interval>>>;

/// Paired bootstrap intervals ([`paired_interval`], confidence [`LEVEL`]) of every per-task
/// metric, each arm against arm `baseline`, with `resamples` resamples from `seed`. Every
/// record must hold one [`ArmTask`] per arm.
pub fn intervals(
    records: &[TaskRecord],
    arms: &[Arm],
    baseline: usize,
    resamples: usize,
    seed: u64,
) -> Intervals {
    let values = |arm: usize, metric: Metric| -> Vec<Option<f64>> {
        records
            .iter()
            .map(|t| t.arms[arm].scores.get(metric))
            .collect()
    };
    arms.iter()
        .enumerate()
        .filter(|(i, _)| *i != baseline)
        .map(|(i, arm)| {
            let per_metric = Metric::PER_TASK
                .into_iter()
                .map(|m| {
                    let ci = paired_interval(
                        &values(i, m),
                        &values(baseline, m),
                        resamples,
                        seed,
                        LEVEL,
                    );
                    (m, ci)
                })
                .collect();
            (arm.name.clone(), per_metric)
        })
        .collect()
}
