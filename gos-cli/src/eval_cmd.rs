//! `gos eval`: run retrieval arms over a labelled task set and report metrics, paired bootstrap
//! intervals against the reverse arm, a failure analysis and plots.
//!
//! Every arm runs with the same [`RetrieveOptions`] except the graph operation
//! ([`RetrieveOptions::mode`]) and the seed source ([`SeedParams::source`]) that its name
//! gives ([`arm_options`]), so differences between arms come from those alone.

use crate::EvalArgs;
use crate::eval_report::{ArmTask, EvalReport, OracleRef, TaskRecord};
use anyhow::{Context, Result, bail, ensure};
use gos_core::bootstrap::{Interval, paired_interval};
use gos_core::cross_encoder::CrossEncoder;
use gos_core::dense::SentenceEncoder;
use gos_core::metrics::{PER_TASK_METRICS, TaskInput, TaskScores};
use gos_core::ppr::PprParams;
use gos_core::rerank::StageParams;
use gos_core::retrieve::rank_of;
use gos_core::seed::{SeedParams, SeedSource};
use gos_core::{EdgeType, RetrievalMode, RetrieveOptions, Retriever, Workspace};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Default `--arms`: the four graph operations with lexical seeds, the reverse arm first.
pub const DEFAULT_ARMS: &str = "reverse/lexical,forward/lexical,one-hop/lexical,no-graph/lexical";

/// Confidence level of the bootstrap intervals.
pub const LEVEL: f64 = 0.95;

/// One retrieval configuration under test, named `MODE/SEEDS[/RERANKER]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arm {
    /// Canonical name, e.g. `reverse/lexical`.
    pub name: String,
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seed source.
    pub source: SeedSource,
    /// Whether the cross-encoder stage runs after field-evidence reranking.
    pub cross_encoder: bool,
}

/// Rerankers an arm can name after its seeds.
const RERANKERS: [&str; 1] = ["cross-encoder"];

/// Parse one arm name `MODE/SEEDS[/RERANKER]`. A bare `MODE` means lexical seeds.
///
/// # Errors
/// An unknown mode or seed source, or a reranker other than `cross-encoder` (the built-in
/// field-evidence scoring is part of every arm).
pub fn parse_arm(spec: &str) -> Result<Arm> {
    let parts: Vec<&str> = spec.trim().split('/').map(str::trim).collect();
    ensure!(
        (1..=3).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty()),
        "arm `{spec}`: expected MODE/SEEDS[/RERANKER], e.g. reverse/lexical"
    );
    let mode: RetrievalMode = parts[0].parse().with_context(|| format!("arm `{spec}`"))?;
    let seeds = parts.get(1).copied().unwrap_or("lexical");
    let source: SeedSource = seeds.parse().with_context(|| format!("arm `{spec}`"))?;
    let reranker = parts.get(2).copied();
    if let Some(r) = reranker.filter(|r| !RERANKERS.contains(r)) {
        bail!(
            "arm `{spec}`: reranker `{r}` is not available (the only reranker is \
             `cross-encoder`; leave it out for field-evidence scoring, e.g. `{}/{seeds}`)",
            mode.as_str()
        );
    }
    Ok(Arm {
        name: match reranker {
            Some(r) => format!("{}/{seeds}/{r}", mode.as_str()),
            None => format!("{}/{seeds}", mode.as_str()),
        },
        mode,
        source,
        cross_encoder: reranker.is_some(),
    })
}

/// Parse a comma-separated arm list; duplicates are an error.
///
/// # Errors
/// See [`parse_arm`]; an empty list.
pub fn parse_arms(list: &str) -> Result<Vec<Arm>> {
    let mut arms: Vec<Arm> = Vec::new();
    for spec in list.split(',').filter(|s| !s.trim().is_empty()) {
        let arm = parse_arm(spec)?;
        ensure!(
            arms.iter().all(|a| a.name != arm.name),
            "arm `{}` is listed twice",
            arm.name
        );
        arms.push(arm);
    }
    ensure!(!arms.is_empty(), "--arms names no arm");
    Ok(arms)
}

/// The options of one arm: `base` with the arm's mode and seed source, nothing else changed.
pub fn arm_options(base: &RetrieveOptions, arm: &Arm) -> RetrieveOptions {
    RetrieveOptions {
        mode: arm.mode,
        seeds: SeedParams {
            source: arm.source,
            ..base.seeds
        },
        ..*base
    }
}

/// Index of the arm the intervals and the failure analysis compare against: the first reverse
/// arm, or the first arm when none is reverse.
pub fn baseline_index(arms: &[Arm]) -> usize {
    arms.iter()
        .position(|a| a.mode == RetrievalMode::Reverse)
        .unwrap_or(0)
}

/// One line of a task file (`tasks.jsonl`).
#[derive(Debug, Clone, Deserialize)]
pub struct TaskLine {
    /// Task id, unique in the file.
    pub id: String,
    /// Task text, the query.
    pub instruction: String,
    /// Oracle skill names (frontmatter names), parallel to `oracle_dirs`.
    #[serde(default)]
    pub oracle_skills: Vec<String>,
    /// Oracle package ids relative to the library root: what is matched to workspace nodes.
    #[serde(default)]
    pub oracle_dirs: Vec<String>,
}

/// Read a JSONL task file; blank lines are skipped.
///
/// # Errors
/// I/O errors, malformed lines, duplicate ids, `oracle_skills` and `oracle_dirs` of different
/// lengths, no task at all; each names the file and line.
pub fn load_tasks(path: &Path) -> Result<Vec<TaskLine>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading task file {}", path.display()))?;
    let mut tasks: Vec<TaskLine> = Vec::new();
    let mut ids = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", path.display(), i + 1);
        let task: TaskLine = serde_json::from_str(line).with_context(at)?;
        ensure!(
            ids.insert(task.id.clone()),
            "{}: duplicate task id `{}`",
            at(),
            task.id
        );
        ensure!(
            task.oracle_skills.is_empty() || task.oracle_skills.len() == task.oracle_dirs.len(),
            "{}: task `{}` has {} oracle_skills but {} oracle_dirs",
            at(),
            task.id,
            task.oracle_skills.len(),
            task.oracle_dirs.len()
        );
        tasks.push(task);
    }
    ensure!(!tasks.is_empty(), "{}: no tasks", path.display());
    Ok(tasks)
}

/// Match a task's oracle dirs to workspace nodes (exact package id, trailing `/` ignored).
pub fn match_oracles(ws: &Workspace, task: &TaskLine) -> Vec<OracleRef> {
    let mut seen = HashSet::new();
    task.oracle_dirs
        .iter()
        .enumerate()
        .filter(|(_, d)| seen.insert(d.trim().trim_end_matches('/').to_string()))
        .map(|(i, d)| {
            let dir = d.trim().trim_end_matches('/').to_string();
            let name = task
                .oracle_skills
                .get(i)
                .cloned()
                .unwrap_or_else(|| dir.rsplit('/').next().unwrap_or(&dir).to_string());
            OracleRef {
                node: ws.index_of(&dir),
                dir,
                name,
            }
        })
        .collect()
}

fn progress(total: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:40}] {pos}/{len} {msg} eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_draw_target(if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    });
    bar.set_prefix("eval");
    bar
}

/// Run every arm once on every task and collect the per-task records. Dense and hybrid arms
/// use `encoder`; arms with the cross-encoder use `cross_encoder`; each must then be given.
///
/// # Errors
/// Retrieval errors, naming the task and the arm; a cross-encoder arm without a model.
pub fn run_arms<'a>(
    ws: &'a Workspace,
    tasks: &[TaskLine],
    arms: &[Arm],
    base: &RetrieveOptions,
    encoder: Option<&'a SentenceEncoder>,
    cross_encoder: Option<(&'a CrossEncoder, StageParams)>,
    quiet: bool,
) -> Result<Vec<TaskRecord>> {
    let with_encoder = |r: Retriever<'a>| -> Result<Retriever<'a>> {
        match encoder {
            Some(e) => Ok(r.with_encoder(e)?),
            None => Ok(r),
        }
    };
    let retriever = with_encoder(Retriever::new(ws))?;
    let ce_retriever = match cross_encoder {
        Some((ce, p)) => Some(with_encoder(Retriever::new(ws))?.with_cross_encoder(ce, p)),
        None => None,
    };
    ensure!(
        ce_retriever.is_some() || arms.iter().all(|a| !a.cross_encoder),
        "a cross-encoder arm needs a cross-encoder model"
    );
    let dependency_edges: Vec<(usize, usize)> = ws
        .graph
        .indexed_edges()
        .filter(|(_, _, e)| e.edge_type == EdgeType::Dependency)
        .map(|(s, t, _)| (s, t))
        .collect();
    let bar = progress((tasks.len() * arms.len()) as u64, quiet);
    let mut records = Vec::with_capacity(tasks.len());
    for task in tasks {
        bar.set_message(task.id.clone());
        let oracles = match_oracles(ws, task);
        let available: Vec<usize> = oracles.iter().filter_map(|o| o.node).collect();
        // Embed the task once; every arm that needs it gets the vector and is charged the
        // encoding time, so latencies stay comparable with `gos retrieve`.
        let (query_vectors, encode_ms) = if encoder.is_some() {
            let t = std::time::Instant::now();
            let v = retriever
                .embed_query(&task.instruction, base.seeds.query_chunks)
                .with_context(|| format!("embedding task `{}`", task.id))?;
            (Some(v), t.elapsed().as_secs_f64() * 1e3)
        } else {
            (None, 0.0)
        };
        let mut per_arm = Vec::with_capacity(arms.len());
        for arm in arms {
            let opts = arm_options(base, arm);
            let mut r = if arm.cross_encoder {
                ce_retriever.as_ref().expect("checked above")
            } else {
                &retriever
            }
            .retrieve_embedded(&task.instruction, query_vectors.as_deref(), &opts)
            .with_context(|| format!("task `{}`, arm {}", task.id, arm.name))?;
            if arm.source.needs_vectors() {
                r.timings.encode = encode_ms;
                r.timings.total += encode_ms;
            }
            let bundle_nodes: Vec<usize> = r.bundle.skills.iter().map(|s| s.node).collect();
            let ranked: Vec<usize> = r.ranked.iter().map(|s| s.node).collect();
            let context_chars = r.bundle.rendered_context.chars().count();
            let scores = TaskScores::compute(&TaskInput {
                available: &available,
                oracle_total: oracles.len(),
                bundle: &bundle_nodes,
                ranked: &ranked,
                dependency_edges: &dependency_edges,
                context_chars,
                latency_ms: r.timings.total,
            });
            let lexical_rank = |node: usize| {
                r.ranked
                    .iter()
                    .find(|s| s.node == node)
                    .and_then(|s| s.pool_rank)
            };
            per_arm.push(ArmTask {
                status: r.bundle.status.as_str(),
                bundle: r.bundle.skills.iter().map(|s| s.id.clone()).collect(),
                bundle_nodes,
                ranked_top: ranked
                    .iter()
                    .take(crate::eval_plots::K_MAX)
                    .copied()
                    .collect(),
                oracle_ranks: oracles
                    .iter()
                    .map(|o| o.node.and_then(|n| rank_of(&r.ranked, n)))
                    .collect(),
                oracle_lexical_ranks: oracles
                    .iter()
                    .map(|o| o.node.and_then(lexical_rank))
                    .collect(),
                seeds: r
                    .seeds
                    .iter()
                    .map(|s| ws.manifest.nodes[s.node].id.clone())
                    .collect(),
                context_chars,
                timings: r.timings,
                scores,
            });
            bar.inc(1);
        }
        records.push(TaskRecord {
            id: task.id.clone(),
            oracles,
            arms: per_arm,
        });
    }
    bar.finish_and_clear();
    Ok(records)
}

/// Paired bootstrap intervals of every per-task metric, each arm against `baseline`.
pub fn intervals(
    records: &[TaskRecord],
    arms: &[Arm],
    baseline: usize,
    resamples: usize,
    seed: u64,
) -> BTreeMap<String, BTreeMap<&'static str, Option<Interval>>> {
    let values = |arm: usize, metric: &str| -> Vec<Option<f64>> {
        records
            .iter()
            .map(|t| t.arms[arm].scores.get(metric))
            .collect()
    };
    arms.iter()
        .enumerate()
        .filter(|(i, _)| *i != baseline)
        .map(|(i, arm)| {
            let per_metric = PER_TASK_METRICS
                .iter()
                .map(|&m| {
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

/// `gos eval`.
pub fn run(args: EvalArgs) -> Result<()> {
    let arms = parse_arms(&args.arms)?;
    ensure!(args.resamples > 0, "--resamples must be at least 1");
    let ce_arm = arms.iter().find(|a| a.cross_encoder);
    if let Some(arm) = ce_arm {
        args.cross_encoder.dir(&format!("arm `{}`", arm.name))?;
    }
    let tasks = load_tasks(&args.tasks)?;
    let ws = Workspace::open(&args.workspace)
        .with_context(|| format!("opening workspace {}", args.workspace.display()))?;
    let cross_encoder = match ce_arm {
        Some(arm) => Some(args.cross_encoder.load(&format!("arm `{}`", arm.name))?),
        None => None,
    };
    let mut base = RetrieveOptions {
        ppr: PprParams {
            method: args.ppr,
            ..PprParams::default()
        },
        ..RetrieveOptions::default()
    };
    args.dense.apply(&mut base)?;
    let needs_vectors = arms.iter().any(|a| a.source.needs_vectors());
    let encoder = crate::encoder_arg::load(
        &ws,
        needs_vectors,
        args.dense.model_dir.as_deref(),
        &args.cross_encoder.device,
    )?;
    let records = run_arms(
        &ws,
        &tasks,
        &arms,
        &base,
        encoder.as_ref(),
        cross_encoder.as_ref().map(|(ce, p)| (ce, *p)),
        args.quiet,
    )?;
    let baseline = baseline_index(&arms);
    let ci = intervals(&records, &arms, baseline, args.resamples, args.seed);
    let report = EvalReport::new(&arms, baseline, records, ci, &base, &args, &ws);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating output directory {}", args.out.display()))?;
    let json = report.to_json();
    let write = |name: &str, text: String| -> Result<()> {
        let path = args.out.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    write("report.json", serde_json::to_string_pretty(&json)? + "\n")?;
    write("report.md", report.to_markdown())?;
    crate::eval_plots::recall_at_k(&report, &args.out.join("recall_at_k.svg"))?;
    crate::eval_plots::recall_diff(&report, &args.out.join("recall_diff.svg"))?;
    if args.json {
        let summary = serde_json::json!({ "arms": json["arms"], "ci": json["ci"] });
        println!("{summary}");
    } else {
        eprintln!(
            "evaluated {} arms on {} tasks ({} oracle skills missing from the workspace); \
             report in {}",
            arms.len(),
            report.records.len(),
            report.missing_oracles().len(),
            args.out.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_names_parse() {
        let arms = parse_arms(DEFAULT_ARMS).unwrap();
        let modes: Vec<RetrievalMode> = arms.iter().map(|a| a.mode).collect();
        assert_eq!(modes, RetrievalMode::ALL);
        assert_eq!(parse_arm(" one-hop ").unwrap().name, "one-hop/lexical");
        assert_eq!(baseline_index(&arms), 0);
        assert_eq!(baseline_index(&parse_arms("no-graph,reverse").unwrap()), 1);
    }

    #[test]
    fn unavailable_arms_are_rejected_with_a_reason() {
        let err = |s: &str| format!("{:#}", parse_arm(s).unwrap_err());
        let hybrid = parse_arm("reverse/hybrid").unwrap();
        assert_eq!(
            (hybrid.name.as_str(), hybrid.source),
            ("reverse/hybrid", SeedSource::Hybrid)
        );
        assert_eq!(
            parse_arm("no-graph/dense").unwrap().source,
            SeedSource::Dense
        );
        assert!(err("reverse/lexical/colbert").contains("reranker `colbert`"));
        let ce = parse_arm("one-hop/lexical/cross-encoder").unwrap();
        assert_eq!(ce.name, "one-hop/lexical/cross-encoder");
        assert!(ce.cross_encoder && !parse_arm("one-hop").unwrap().cross_encoder);
        assert!(err("sideways/lexical").contains("sideways"));
        assert!(err("reverse/bm42").contains("not one of lexical, dense, hybrid"));
        assert!(err("reverse//").contains("MODE/SEEDS"));
        assert!(
            format!("{:#}", parse_arms("reverse,reverse/lexical").unwrap_err()).contains("twice")
        );
        assert!(parse_arms(" , ").is_err());
    }

    #[test]
    fn arms_differ_only_in_mode() {
        let base = RetrieveOptions {
            min_seed_score: 3.5,
            ..RetrieveOptions::default()
        };
        for arm in parse_arms(DEFAULT_ARMS).unwrap() {
            let opts = arm_options(&base, &arm);
            assert_eq!(opts.mode, arm.mode);
            assert_eq!(
                RetrieveOptions {
                    mode: base.mode,
                    ..opts
                },
                base
            );
        }
        let hybrid = arm_options(&base, &parse_arm("forward/hybrid").unwrap());
        assert_eq!(hybrid.seeds.source, SeedSource::Hybrid);
        assert_eq!(hybrid.min_seed_score, 3.5);
    }
}
