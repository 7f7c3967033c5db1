//! The report of a run: per-arm metrics, bootstrap intervals, the failure analysis, and their
//! rendering as `report.json` and `report.md`.

use crate::arm::Arm;
use crate::bootstrap::LEVEL;
use crate::failure::{FailureClass, failures};
use crate::metric::Metric;
use crate::metrics::{TaskScores, mean, recall_at_k, summarize};
use crate::run::{Intervals, TaskRecord};
use gos_core::{RetrieveOptions, Workspace};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

/// What `report.json`'s `config` records about a run besides the arms and the retrieval
/// options.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// Workspace directory, as given.
    pub workspace: PathBuf,
    /// Task file, as given.
    pub task_file: PathBuf,
    /// Bootstrap seed.
    pub seed: u64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Cross-encoder settings, recorded when an arm uses the cross-encoder.
    pub cross_encoder: Option<CrossEncoderInfo>,
}

/// The cross-encoder settings of a run, as recorded in `report.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossEncoderInfo {
    /// Model directory.
    pub reranker_dir: Option<PathBuf>,
    /// Candidates scored.
    pub top: usize,
    /// Characters of candidate text.
    pub max_chars: usize,
    /// Weight of the cross-encoder probability.
    pub weight: f64,
    /// Share of bundle positions kept for graph-added prerequisites.
    pub reserved_share: f64,
    /// Device name, e.g. `cpu`.
    pub device: String,
}

/// A finished evaluation.
pub struct EvalReport {
    /// Arm names in run order.
    pub arms: Vec<String>,
    /// Index of the baseline arm.
    pub baseline: usize,
    /// Per-task records.
    pub records: Vec<TaskRecord>,
    /// Per arm, every metric in [`Metric::ALL`] order.
    pub summaries: Vec<Vec<(Metric, Option<f64>)>>,
    /// Intervals of `arm − baseline` per non-baseline arm and per-task metric.
    pub ci: Intervals,
    /// Run configuration, as written to `report.json`.
    pub config: Value,
    /// Skill id of every workspace node, by node index.
    pub node_ids: Vec<String>,
}

impl EvalReport {
    /// Summarize the records of a run of `arms` on `ws` with `options`, intervals against arm
    /// `baseline`.
    pub fn new(
        arms: &[Arm],
        baseline: usize,
        records: Vec<TaskRecord>,
        ci: Intervals,
        options: &RetrieveOptions,
        run: &RunInfo,
        ws: &Workspace,
    ) -> Self {
        let summaries = (0..arms.len())
            .map(|i| {
                let scores: Vec<TaskScores> =
                    records.iter().map(|t| t.arms[i].scores.clone()).collect();
                summarize(&scores)
            })
            .collect();
        let t_plus = records.iter().filter(|t| !t.available().is_empty()).count();
        let config = json!({
            "workspace": run.workspace.display().to_string(),
            "workspace_skills": ws.len(),
            "task_file": run.task_file.display().to_string(),
            "tasks": records.len(),
            "tasks_with_available_oracle": t_plus,
            "arms": arms.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
            "baseline": arms[baseline].name,
            "seed": run.seed,
            "resamples": run.resamples,
            "confidence_level": LEVEL,
            "bootstrap": "paired over tasks; percentile interval of the mean per-task difference",
            "options": {
                "budgets": options.budgets,
                "seed_k": options.seeds.seed_k,
                "pool_k": options.seeds.pool_k,
                "min_seed_score": options.min_seed_score,
                "min_relative_score": options.min_relative_score,
                "ppr": options.ppr.method.as_str(),
                "all": format!("{options:?}"),
            },
            "cross_encoder": arms
                .iter()
                .any(|a| a.cross_encoder)
                .then_some(run.cross_encoder.as_ref())
                .flatten(),
            "gos_version": env!("CARGO_PKG_VERSION"),
        });
        EvalReport {
            arms: arms.iter().map(|a| a.name.clone()).collect(),
            baseline,
            records,
            summaries,
            ci,
            config,
            node_ids: ws.manifest().nodes.iter().map(|n| n.id.clone()).collect(),
        }
    }

    /// With a peer arm ([`crate::peer::PEER_ARM`]): one sentence comparing its median latency
    /// with the baseline's, e.g. "peer p50 latency 481.8 ms, reverse/lexical 37.3 ms: gos is
    /// 12.9x faster".
    pub fn peer_latency_ratio(&self) -> Option<String> {
        let peer = self.arms.iter().position(|a| a == crate::peer::PEER_ARM)?;
        let p50 = |arm: usize| {
            self.summaries[arm]
                .iter()
                .find(|(m, _)| *m == Metric::LatencyP50Ms)
                .and_then(|(_, v)| *v)
        };
        let (peer_ms, base_ms) = (p50(peer)?, p50(self.baseline)?);
        (base_ms > 0.0).then(|| {
            format!(
                "{} p50 latency {peer_ms:.1} ms, {} {base_ms:.1} ms: gos is {:.1}x faster \
                 (same run, same machine).",
                crate::peer::PEER_ARM,
                self.arms[self.baseline],
                peer_ms / base_ms
            )
        })
    }

    /// `(task id, oracle dir, oracle name)` of every oracle skill missing from the workspace.
    pub fn missing_oracles(&self) -> Vec<(&str, &str, &str)> {
        self.records
            .iter()
            .flat_map(|t| {
                t.oracles
                    .iter()
                    .filter(|o| o.node.is_none())
                    .map(|o| (t.id.as_str(), o.dir.as_str(), o.name.as_str()))
            })
            .collect()
    }

    /// Mean recall@k over `T₊` for k = 1..=`k_max` of one arm.
    pub fn recall_curve(&self, arm: usize, k_max: usize) -> Vec<(usize, f64)> {
        (1..=k_max)
            .filter_map(|k| {
                let values = self
                    .records
                    .iter()
                    .map(|t| recall_at_k(&t.arms[arm].ranked_top, &t.available(), k));
                mean(values).map(|m| (k, m))
            })
            .collect()
    }

    /// Per-task `recall_available` difference `arm − baseline` (`None` outside `T₊`).
    pub fn recall_diffs(&self, arm: usize) -> Vec<(&str, Option<f64>)> {
        self.records
            .iter()
            .map(|t| {
                let d = t.arms[arm]
                    .scores
                    .recall_available
                    .zip(t.arms[self.baseline].scores.recall_available)
                    .map(|(a, b)| a - b);
                (t.id.as_str(), d)
            })
            .collect()
    }

    fn failure_counts(&self) -> BTreeMap<&'static str, usize> {
        self.failure_counts_of(self.baseline)
    }

    /// Oracle skills arm `arm` left out of its bundle while the bundle holds a near-copy of
    /// them, over all tasks.
    pub fn copy_stand_ins(&self, arm: usize) -> usize {
        self.records
            .iter()
            .map(|t| {
                let bundle = &t.arms[arm].bundle_nodes;
                t.oracles
                    .iter()
                    .filter(|o| o.node.is_some_and(|n| !bundle.contains(&n)))
                    .filter(|o| o.copies.iter().any(|c| bundle.contains(c)))
                    .count()
            })
            .sum()
    }

    /// Failure counts per class of arm `arm` (an index into the arms).
    fn failure_counts_of(&self, arm: usize) -> BTreeMap<&'static str, usize> {
        let mut counts: BTreeMap<&'static str, usize> =
            FailureClass::ALL.map(|c| (c.as_str(), 0)).into();
        for t in &self.records {
            for f in failures(t, arm) {
                *counts.entry(f.class.as_str()).or_default() += 1;
            }
        }
        counts
    }

    /// The whole report as `report.json`.
    pub fn to_json(&self) -> Value {
        let arms: Map<String, Value> = self
            .arms
            .iter()
            .zip(&self.summaries)
            .map(|(name, s)| {
                let m: Map<String, Value> = s
                    .iter()
                    .map(|(k, v)| (k.key().to_string(), json!(v)))
                    .collect();
                (name.clone(), Value::Object(m))
            })
            .collect();
        let tasks: Vec<Value> = self.records.iter().map(|t| self.task_json(t)).collect();
        let missing = self.missing_oracles();
        let mut distinct: Vec<&str> = missing.iter().map(|m| m.1).collect();
        distinct.sort_unstable();
        distinct.dedup();
        json!({
            "arms": arms,
            "ci": self.ci,
            "tasks": tasks,
            "failure_summary": {
                "arm": self.arms[self.baseline],
                "counts": self.failure_counts(),
                "by_arm": (0..self.arms.len())
                    .map(|i| (self.arms[i].clone(), json!(self.failure_counts_of(i))))
                    .collect::<Map<String, Value>>(),
            },
            "missing_oracles": {
                "count": missing.len(),
                "distinct": distinct.len(),
                "oracles": missing.iter().map(|(task, dir, name)| {
                    json!({ "task": task, "dir": dir, "name": name })
                }).collect::<Vec<_>>(),
            },
            "config": self.config,
        })
    }

    fn task_json(&self, t: &TaskRecord) -> Value {
        let arms: Map<String, Value> = self
            .arms
            .iter()
            .zip(&t.arms)
            .map(|(name, a)| {
                let ranks = |r: &[Option<usize>]| -> Map<String, Value> {
                    t.oracles
                        .iter()
                        .zip(r)
                        .map(|(o, r)| (o.dir.clone(), json!(r)))
                        .collect()
                };
                let v = json!({
                    "status": a.status,
                    "bundle": a.bundle,
                    "seeds": a.seeds,
                    "oracle_ranks": ranks(&a.oracle_ranks),
                    "oracle_lexical_ranks": ranks(&a.oracle_lexical_ranks),
                    "context_chars": a.context_chars,
                    "top_seed_score": a.top_seed_score,
                    "top_dense_score": a.top_dense_score,
                    "lexical_coverage": a.lexical_coverage.overlap,
                    "lexical_coverage_query_share": a.lexical_coverage.query_share,
                    "lexical_coverage_skill_share": a.lexical_coverage.skill_share,
                    "lexical_coverage_geometric": a.lexical_coverage.geometric,
                    "timings_ms": a.timings,
                    "metrics": a.scores,
                });
                (name.clone(), v)
            })
            .collect();
        json!({
            "id": t.id,
            "oracles": t.oracles.iter().map(|o| json!({
                "dir": o.dir,
                "name": o.name,
                "in_workspace": o.node.is_some(),
                "copies": o.copies.iter().map(|&n| self.node_ids[n].as_str()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "arms": arms,
            "failures": failures(t, self.baseline),
        })
    }

    /// The report a person reads: metric table, interval table, failure analysis.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let c = &self.config;
        let base = &self.arms[self.baseline];
        let missing = self.missing_oracles();
        let _ = writeln!(md, "# gos eval report\n");
        let _ = writeln!(
            md,
            "Workspace `{}` ({} skills); tasks `{}`: {} tasks, {} with at least one oracle skill \
             in the workspace (T+); {} oracle skills missing from the workspace.\n",
            c["workspace"].as_str().unwrap_or_default(),
            c["workspace_skills"],
            c["task_file"].as_str().unwrap_or_default(),
            c["tasks"],
            c["tasks_with_available_oracle"],
            missing.len()
        );
        let _ = writeln!(md, "## Metrics\n");
        let _ = writeln!(
            md,
            "Each `*_equiv` row is the metric above it with a near-copy of an oracle counted as \
             the oracle (same normalized name, SKILL.md word-trigram Jaccard > {}; each oracle \
             once); the plain rows credit the labelled package only. {} of the {} available \
             oracle references have near-copies in the workspace.\n",
            crate::equiv::JACCARD_THRESHOLD,
            self.records
                .iter()
                .flat_map(|t| &t.oracles)
                .filter(|o| !o.copies.is_empty())
                .count(),
            self.records
                .iter()
                .map(|t| t.available().len())
                .sum::<usize>(),
        );
        let _ = writeln!(md, "{}", metric_table(&self.arms, &self.summaries));
        if let Some(line) = self.peer_latency_ratio() {
            let _ = writeln!(md, "{line}\n");
        }
        let _ = writeln!(
            md,
            "## Difference from {base} (paired bootstrap, {} resamples, seed {}, {:.0}% \
             percentile interval)\n",
            c["resamples"],
            c["seed"],
            LEVEL * 100.0
        );
        if self.ci.is_empty() {
            let _ = writeln!(md, "Only one arm: nothing to compare.\n");
        } else {
            let _ = writeln!(md, "{}", self.ci_table());
        }
        let _ = writeln!(md, "## Failure analysis ({base})\n");
        let counts = self.failure_counts();
        let _ = writeln!(
            md,
            "Oracle skills left out of the bundle: {} seed_miss (not in the BM25 pool), {} \
             budget_cut (ranked but not hydrated), {} duplicate_slot (dropped for a copy of \
             itself, or cut where second copies of other skills took the slots), {} \
             not_in_workspace; {} of them have a near-copy in the bundle (the equivalent \
             metrics count those as found).\n",
            counts["seed_miss"],
            counts["budget_cut"],
            counts["duplicate_slot"],
            counts["not_in_workspace"],
            self.copy_stand_ins(self.baseline)
        );
        let _ = writeln!(
            md,
            "| task | oracle | class | BM25 pool rank | ranked-list rank | bundle |\n\
             |---|---|---|---:|---:|---|"
        );
        for t in &self.records {
            for f in failures(t, self.baseline) {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} |",
                    cell(&t.id),
                    cell(&f.oracle),
                    f.class.as_str(),
                    rank(f.lexical_rank),
                    rank(f.ranked_rank),
                    t.arms[self.baseline].status
                );
            }
        }
        let _ = writeln!(md, "\n## Oracle skills missing from the workspace\n");
        if missing.is_empty() {
            let _ = writeln!(md, "None.");
        }
        for (task, dir, name) in missing {
            let _ = writeln!(md, "- `{task}`: `{dir}` ({name})");
        }
        md
    }

    fn ci_table(&self) -> String {
        let others: Vec<&String> = self
            .arms
            .iter()
            .filter(|a| self.ci.contains_key(*a))
            .collect();
        let mut t = format!("| metric | {} |\n|---|", join(&others));
        t.push_str(&"---:|".repeat(others.len()));
        t.push('\n');
        for m in Metric::PER_TASK {
            let cells: Vec<String> = others
                .iter()
                .map(|a| match self.ci[*a][&m] {
                    Some(i) => format!(
                        "{} [{}, {}]",
                        signed(m, i.mean_diff),
                        signed(m, i.lo),
                        signed(m, i.hi)
                    ),
                    None => "n/a".into(),
                })
                .collect();
            let _ = writeln!(t, "| {m} | {} |", cells.join(" | "));
        }
        t
    }
}

/// The main table: one row per metric, one column per arm (also pasted into
/// docs/evaluation.md).
pub fn metric_table(arms: &[String], summaries: &[Vec<(Metric, Option<f64>)>]) -> String {
    let mut t = format!("| metric | {} |\n|---|", join(arms));
    t.push_str(&"---:|".repeat(arms.len()));
    t.push('\n');
    for (row, m) in Metric::ALL.iter().enumerate() {
        let cells: Vec<String> = summaries.iter().map(|s| m.format(s[row].1)).collect();
        let _ = writeln!(t, "| {m} | {} |", cells.join(" | "));
    }
    t
}

/// A signed difference with [`Metric::format`]'s precision.
fn signed(metric: Metric, v: f64) -> String {
    let s = metric.format(Some(v));
    if s.starts_with('-') {
        s
    } else {
        format!("+{s}")
    }
}

fn join<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| cell(s.as_ref()))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn rank(r: Option<usize>) -> String {
    r.map_or("-".into(), |r| r.to_string())
}
