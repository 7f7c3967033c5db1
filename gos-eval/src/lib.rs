//! The evaluation harness of gos: run retrieval *arms* over a labelled task set and report
//! metrics, paired bootstrap intervals and a failure analysis (`gos eval` is a thin front end).
//! The synthetic libraries of `gos synth` are the `gos-synth` crate.
//!
//! # The method
//!
//! 1. **Tasks** ([`task`]): a JSONL file, one task a line, with the task text and its *oracle*
//!    skills (the package ids a correct bundle holds). Oracles are matched to workspace nodes by
//!    exact package id; an oracle missing from the workspace is kept and counts as a miss in the
//!    full-oracle recall.
//! 2. **Arms** ([`arm`]): an arm is named `MODE/SEEDS[/RERANKER]`, e.g. `reverse/lexical` or
//!    `no-graph/hybrid/cross-encoder`. Every arm starts from the same
//!    [`gos_core::RetrieveOptions`] and changes only the graph operation, the seed source and
//!    whether the cross-encoder runs, so a difference between two arms comes from those alone.
//! 3. **Matched tasks** ([`run`]): every arm runs once on every task over one workspace; a task
//!    is embedded once and every dense or hybrid arm gets that vector and its encoding time.
//!    Each run keeps one record per task and arm: bundle, seeds, the oracle ranks in the ranked
//!    list and in the BM25 pool, the top [`run::RANKED_DEPTH`] of the ranked list, timings and
//!    the per-task metrics.
//! 4. **Metrics** ([`metrics`]): bundle metrics (available- and full-oracle recall,
//!    completeness, precision, pooled dependency-pair co-recovery) and ranked-list metrics
//!    (Hit@1, MRR@10, Recall@10/20/50, FC@10), plus bundle size, context characters and
//!    latency percentiles. Each mean runs over its own task population (`T₊`, the tasks with at
//!    least one oracle in the workspace, or all tasks). Every bundle and ranked-list metric is
//!    reported *strict* (the labelled package only) and *equivalent* (`*_equiv`: a near-copy
//!    of an oracle, by SkillRouter's rule computed from the library's files in [`equiv`],
//!    counts as the oracle, each oracle once). [`metric::Metric`] names them all.
//! 5. **Bootstrap intervals** ([`bootstrap`]): each arm is compared with the *first reverse
//!    arm* (the baseline; the first arm when none is reverse) by a paired bootstrap over tasks:
//!    per-task differences, resampled with replacement from a fixed seed (5,000 resamples and
//!    seed 0 by default), 95% percentile intervals of the mean difference. The same seed gives
//!    the same intervals bit for bit.
//! 6. **Failure analysis** ([`failure`]): every oracle the baseline left out of its bundle is
//!    classified as `seed_miss` (not in the BM25 pool), `budget_cut` (ranked but not hydrated)
//!    or `not_in_workspace`.
//! 7. **Report** ([`report`], [`plots`]): `report.json` (everything), `report.md` (the tables a
//!    person reads) and two SVG plots (recall@k curves, per-task recall differences).
//!
//! [`harness::evaluate`] runs steps 3 to 6 and [`harness::write_report`] step 7; the pieces are
//! public for callers that need only some of them.
//!
//! Parameters are chosen by k-fold cross-validation over tasks ([`cv`]): a grid sweep reports
//! each point's in-sample means next to the out-of-fold figures of choosing by the sweep.
//!
//! A peer retriever can run in the same evaluation ([`peer`]): an external program ranks every
//! task and is scored as one more arm, latency included.
//!
//! Module dependencies form a DAG (`scripts/check-module-cycles.py` checks it; every module
//! may use [`error`]): [`param`] ← [`arm`]; [`metric`] ← [`metrics`] ← [`bootstrap`]; `task`, `arm`,
//! `metrics`, `bootstrap`, [`equiv`] ← [`run`] ← [`failure`], [`peer`] ← [`report`] ← [`plots`] ←
//! [`harness`]; [`cv`] reads `param`, `arm` and `run`; [`encoder`] stands alone.

#![warn(missing_docs)]

pub mod arm;
pub mod bootstrap;
pub mod cv;
pub mod encoder;
pub mod equiv;
pub mod error;
pub mod failure;
pub mod harness;
pub mod metric;
pub mod metrics;
pub mod param;
pub mod peer;
pub mod plots;
pub mod report;
pub mod run;
pub mod task;

pub use arm::{Arm, DEFAULT_ARMS, parse_arm, parse_arms};
pub use error::{Error, Result};
pub use harness::{EvalConfig, evaluate, write_report};
pub use metric::Metric;
pub use report::{CrossEncoderInfo, EvalReport, RunInfo};
pub use run::{Models, Progress, RANKED_DEPTH};
pub use task::{TaskLine, load_tasks};
