//! Choosing parameters without fooling ourselves: a grid sweep scored by k-fold
//! cross-validation over tasks.
//!
//! Every point of the grid (the Cartesian product of the sweeps, in the order given) runs one
//! arm on every task. Tasks are split into `k` fixed folds ([`assign_folds`]: by a hash of the
//! task id, so the folds do not depend on the file's order or on the grid). For each fold, the
//! point with the best mean *selection metric* on the other `k − 1` folds is chosen (ties go to
//! the earlier point, so list the current default first), and the fold's tasks are scored with
//! that point. The *out-of-fold* figure of a metric is the mean over all tasks of those
//! held-out scores: an estimate of what choosing by this sweep gives on tasks it did not see.
//! The *in-sample* figure is the best point's mean over all tasks, which is optimistic by
//! construction; the report shows both.

pub use crate::param::{Param, Sweep, grid, parse_sweep};

use crate::arm::Arm;
use crate::error::{Error, Result};
use crate::metric::Metric;
use crate::metrics::TaskScores;
use crate::run::{Models, Progress, run_arms};
use crate::task::TaskLine;
use gos_core::{RetrieveOptions, Workspace};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// Default selection metric: bundle recall over the available oracles with near-copies of an
/// oracle counted as the oracle (issue 22: cross-validation chooses by the equivalent
/// metrics; the strict recall, `recall_available`, is reported beside it).
pub const DEFAULT_CV_METRIC: Metric = Metric::RecallAvailableEquiv;

/// 64-bit FNV-1a of `s` (Fowler, Noll and Vo), a fixed hash for fold assignment.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The fold (0..k) of each task id: ids sorted by their FNV-1a hash (then by id) and dealt
/// round-robin, so folds differ in size by at most one and depend only on the ids.
pub fn assign_folds(ids: &[&str], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| {
        (fnv1a(ids[a]), ids[a])
            .cmp(&(fnv1a(ids[b]), ids[b]))
            .then(a.cmp(&b))
    });
    let mut folds = vec![0; ids.len()];
    for (pos, &i) in order.iter().enumerate() {
        folds[i] = pos % k.max(1);
    }
    folds
}

/// Mean of `metric` over the tasks `keep` admits, skipping tasks outside its population.
fn mean_of(scores: &[TaskScores], metric: Metric, keep: impl Fn(usize) -> bool) -> Option<f64> {
    let values: Vec<f64> = scores
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .filter_map(|(_, s)| s.get(metric))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// One grid point's in-sample means.
#[derive(Debug, Clone, PartialEq)]
pub struct GridPoint {
    /// The parameter values of the point.
    pub values: Vec<(Param, f64)>,
    /// Mean over all tasks of each metric of [`Metric::PER_TASK`].
    pub means: Vec<(Metric, Option<f64>)>,
}

/// What one fold chose.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldChoice {
    /// Tasks held out in this fold.
    pub tasks: usize,
    /// Index into [`CvReport::grid`] of the point chosen on the other folds.
    pub chosen: usize,
    /// The chosen point's mean selection metric on the other folds.
    pub train_mean: Option<f64>,
    /// The chosen point's mean selection metric on this fold.
    pub held_out_mean: Option<f64>,
}

/// A finished sweep with cross-validation.
#[derive(Debug, Clone, PartialEq)]
pub struct CvReport {
    /// The arm every point ran.
    pub arm: String,
    /// Folds.
    pub k: usize,
    /// Selection metric.
    pub metric: Metric,
    /// The points, in grid order.
    pub grid: Vec<GridPoint>,
    /// The point with the best in-sample selection metric (ties: the earlier).
    pub best_in_sample: usize,
    /// Per fold, in fold order.
    pub folds: Vec<FoldChoice>,
    /// Out-of-fold mean of each metric of [`Metric::PER_TASK`].
    pub out_of_fold: Vec<(Metric, Option<f64>)>,
}

/// Index of the best `Some` value of `metric` (the largest, or the smallest for a cost such as
/// bundle size; the first on ties), or 0 when all are `None`.
fn argbest(values: &[Option<f64>], metric: Metric) -> usize {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values.iter().enumerate() {
        if let Some(v) = *v
            && best.is_none_or(|(_, b)| metric.better(v, b))
        {
            best = Some((i, v));
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// Run `arm` at every point of `sweeps`' grid over `tasks` and cross-validate the choice of
/// point with `k` folds on `metric` (one of [`Metric::PER_TASK`]). `progress` counts
/// `(task, point)` retrievals over the whole sweep.
///
/// # Errors
/// [`Error::Sweep`] for `k < 2`, more folds than tasks, or a metric that is not a mean of
/// per-task values (co-recovery, the latency percentiles); see
/// [`Param::apply`] and [`run_arms`].
#[allow(clippy::too_many_arguments)]
pub fn cross_validate(
    ws: &Arc<Workspace>,
    tasks: &[TaskLine],
    arm: &Arm,
    base: &RetrieveOptions,
    sweeps: &[Sweep],
    k: usize,
    metric: Metric,
    models: Models<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<CvReport> {
    if k < 2 || k > tasks.len() {
        return Err(Error::Sweep(format!(
            "--cv {k}: the number of folds must be between 2 and the number of tasks ({})",
            tasks.len()
        )));
    }
    if !metric.is_per_task() {
        let names: Vec<&str> = Metric::PER_TASK.iter().map(|m| m.key()).collect();
        return Err(Error::Sweep(format!(
            "selection metric `{metric}` is not a mean of per-task values (one of {})",
            names.join(", ")
        )));
    }
    let points = grid(sweeps);
    let total = points.len() * tasks.len();
    let mut per_point: Vec<Vec<TaskScores>> = Vec::with_capacity(points.len());
    for (p, point) in points.iter().enumerate() {
        let mut opts = *base;
        for &(param, v) in point {
            param.apply(&mut opts, v)?;
        }
        let records = run_arms(
            ws,
            tasks,
            std::slice::from_ref(arm),
            &opts,
            &models,
            &mut |pr| {
                progress(Progress {
                    task: pr.task,
                    done: p * tasks.len() + pr.done,
                    total,
                })
            },
        )?;
        per_point.push(
            records
                .into_iter()
                .map(|r| r.arms[0].scores.clone())
                .collect(),
        );
    }
    let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let folds = assign_folds(&ids, k);
    let grid_points: Vec<GridPoint> = points
        .iter()
        .zip(&per_point)
        .map(|(values, scores)| GridPoint {
            values: values.clone(),
            means: Metric::PER_TASK
                .into_iter()
                .map(|m| (m, mean_of(scores, m, |_| true)))
                .collect(),
        })
        .collect();
    let all_means: Vec<Option<f64>> = per_point
        .iter()
        .map(|s| mean_of(s, metric, |_| true))
        .collect();
    let best_in_sample = argbest(&all_means, metric);
    let mut choices = Vec::with_capacity(k);
    let mut chosen_of_task = vec![0; tasks.len()];
    for f in 0..k {
        let train: Vec<Option<f64>> = per_point
            .iter()
            .map(|s| mean_of(s, metric, |i| folds[i] != f))
            .collect();
        let chosen = argbest(&train, metric);
        for (i, _) in folds.iter().enumerate().filter(|(_, g)| **g == f) {
            chosen_of_task[i] = chosen;
        }
        choices.push(FoldChoice {
            tasks: folds.iter().filter(|&&g| g == f).count(),
            chosen,
            train_mean: train[chosen],
            held_out_mean: mean_of(&per_point[chosen], metric, |i| folds[i] == f),
        });
    }
    let out_of_fold: Vec<TaskScores> = chosen_of_task
        .iter()
        .enumerate()
        .map(|(i, &p)| per_point[p][i].clone())
        .collect();
    Ok(CvReport {
        arm: arm.name.clone(),
        k,
        metric,
        grid: grid_points,
        best_in_sample,
        folds: choices,
        out_of_fold: Metric::PER_TASK
            .into_iter()
            .map(|m| (m, mean_of(&out_of_fold, m, |_| true)))
            .collect(),
    })
}

/// `name=value, ...` of a grid point (`base options` for the empty point).
fn point_label(values: &[(Param, f64)]) -> String {
    if values.is_empty() {
        return "base options".into();
    }
    values
        .iter()
        .map(|(p, v)| format!("{}={v}", p.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

/// The headline metrics of the report tables.
const SHOWN: [Metric; 15] = [
    Metric::RecallAvailable,
    Metric::RecallAvailableEquiv,
    Metric::Completeness,
    Metric::CompletenessEquiv,
    Metric::Precision,
    Metric::PrecisionEquiv,
    Metric::F1,
    Metric::F1Equiv,
    Metric::F2,
    Metric::F2Equiv,
    Metric::HitAt1,
    Metric::HitAt1Equiv,
    Metric::MrrAt10,
    Metric::MrrAt10Equiv,
    Metric::BundleSize,
];

impl CvReport {
    /// Everything, for `cv.json`.
    pub fn to_json(&self) -> Value {
        let point = |g: &GridPoint| {
            json!({
                "values": g.values.iter().map(|(p, v)| (p.as_str(), *v)).collect::<BTreeMap<_, _>>(),
                "in_sample": g.means.iter().copied().collect::<BTreeMap<_, _>>(),
            })
        };
        json!({
            "arm": self.arm,
            "k": self.k,
            "selection_metric": self.metric,
            "folds": "tasks sorted by FNV-1a of their id, dealt round-robin",
            "grid": self.grid.iter().map(point).collect::<Vec<_>>(),
            "best_in_sample": self.best_in_sample,
            "fold_choices": self.folds.iter().map(|f| json!({
                "tasks": f.tasks,
                "chosen": f.chosen,
                "values": point_label(&self.grid[f.chosen].values),
                "train_mean": f.train_mean,
                "held_out_mean": f.held_out_mean,
            })).collect::<Vec<_>>(),
            "out_of_fold": self.out_of_fold.iter().copied().collect::<BTreeMap<_, _>>(),
        })
    }

    /// The tables a person reads, for `cv.md`.
    pub fn to_markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# gos eval sweep: {} with {}-fold cross-validation on {}\n",
            self.arm, self.k, self.metric
        );
        let shown: Vec<&str> = SHOWN.iter().map(|m| m.key()).collect();
        let _ = writeln!(md, "| point | {} |", shown.join(" | "));
        let _ = writeln!(md, "|---|{}", "---:|".repeat(SHOWN.len()));
        let row = |label: String, means: &[(Metric, Option<f64>)]| {
            let cells: Vec<String> = SHOWN
                .iter()
                .map(|m| fmt(means.iter().find(|(n, _)| n == m).and_then(|(_, v)| *v)))
                .collect();
            format!("| {label} | {} |", cells.join(" | "))
        };
        for (i, g) in self.grid.iter().enumerate() {
            let mark = if i == self.best_in_sample {
                " (best in-sample)"
            } else {
                ""
            };
            let _ = writeln!(md, "{}", row(point_label(&g.values) + mark, &g.means));
        }
        let _ = writeln!(md, "{}", row("**out-of-fold**".into(), &self.out_of_fold));
        let _ = writeln!(
            md,
            "\n| fold | tasks | chosen on the other folds | train {m} | held-out {m} |\n|---:|---:|---|---:|---:|",
            m = self.metric
        );
        for (f, c) in self.folds.iter().enumerate() {
            let _ = writeln!(
                md,
                "| {f} | {} | {} | {} | {} |",
                c.tasks,
                point_label(&self.grid[c.chosen].values),
                fmt(c.train_mean),
                fmt(c.held_out_mean)
            );
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_parse_and_refuse_what_cannot_be_set() {
        let s = parse_sweep("top_n=4, 6,8").unwrap();
        assert_eq!(s.param, Param::named("top_n").unwrap());
        assert_eq!(s.values, vec![4.0, 6.0, 8.0]);
        let e = parse_sweep("top_n=2.5").unwrap_err().to_string();
        assert!(e.contains("whole number"), "{e}");
        let e = parse_sweep("restart_prob=1").unwrap_err().to_string();
        assert!(e.contains("(0, 1)"), "{e}");
        let e = parse_sweep("alpha=1").unwrap_err().to_string();
        assert!(e.contains("unknown parameter `alpha`") && e.contains("min_seed_score"));
        assert!(parse_sweep("top_n=").is_err());
        assert!(parse_sweep("top_n").is_err());
        assert!(parse_sweep("min_seed_score=NaN").is_err());
        let mut o = RetrieveOptions::default();
        Param::named("min_seed_score")
            .unwrap()
            .apply(&mut o, 4.5)
            .unwrap();
        Param::named("graph_weight")
            .unwrap()
            .apply(&mut o, 0.25)
            .unwrap();
        assert_eq!((o.min_seed_score, o.rerank.graph), (4.5, 0.25));
    }

    #[test]
    fn grid_is_the_cartesian_product_first_sweep_slowest() {
        let g = grid(&[
            parse_sweep("top_n=4,8").unwrap(),
            parse_sweep("min_seed_score=0,1,2").unwrap(),
        ]);
        assert_eq!(g.len(), 6);
        assert_eq!(
            g[0],
            vec![
                (Param::named("top_n").unwrap(), 4.0),
                (Param::named("min_seed_score").unwrap(), 0.0)
            ]
        );
        assert_eq!(
            g[2],
            vec![
                (Param::named("top_n").unwrap(), 4.0),
                (Param::named("min_seed_score").unwrap(), 2.0)
            ]
        );
        assert_eq!(
            g[3],
            vec![
                (Param::named("top_n").unwrap(), 8.0),
                (Param::named("min_seed_score").unwrap(), 0.0)
            ]
        );
        assert_eq!(grid(&[]), vec![Vec::new()]);
    }

    #[test]
    fn folds_are_balanced_and_depend_only_on_the_ids() {
        let ids: Vec<String> = (0..10).map(|i| format!("task-{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let f = assign_folds(&refs, 4);
        let sizes: Vec<usize> = (0..4)
            .map(|k| f.iter().filter(|&&g| g == k).count())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), 10);
        assert!(sizes.iter().all(|&s| s == 2 || s == 3), "{sizes:?}");
        // Reversing the input order keeps every task in its fold.
        let rev: Vec<&str> = refs.iter().rev().copied().collect();
        let g = assign_folds(&rev, 4);
        for (i, id) in refs.iter().enumerate() {
            let j = rev.iter().position(|r| r == id).unwrap();
            assert_eq!(f[i], g[j], "{id}");
        }
        // FNV-1a test vector (the empty string hashes to the offset basis).
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn argbest_prefers_the_earlier_point_on_ties() {
        let r = Metric::RecallAvailable;
        assert_eq!(argbest(&[Some(0.5), Some(0.7), Some(0.7)], r), 1);
        assert_eq!(argbest(&[None, Some(0.1)], r), 1);
        assert_eq!(argbest(&[None, None], r), 0);
        // A cost is minimized.
        let size = Metric::BundleSize;
        assert_eq!(argbest(&[Some(8.0), Some(4.0), Some(4.0)], size), 1);
    }
}
