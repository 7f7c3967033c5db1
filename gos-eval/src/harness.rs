//! One evaluation end to end: run the arms, compute the intervals, summarize, write the files.

use crate::arm::{Arm, baseline_index};
use crate::error::{Error, Result};
use crate::peer::{PeerCommand, append_peer, peer_arm, run_peer};
use crate::plots;
use crate::report::{EvalReport, RunInfo};
use crate::run::{Models, Progress, intervals, run_arms};
use crate::task::TaskLine;
use gos_core::{RetrieveOptions, Workspace};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// What to evaluate: the arms, the options they share, and what the report records.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// Arms in run order; intervals compare each with the first reverse arm
    /// ([`baseline_index`]).
    pub arms: Vec<Arm>,
    /// Options every arm starts from ([`crate::arm::arm_options`] sets mode and seeds).
    pub options: RetrieveOptions,
    /// Paths, bootstrap seed and resamples, cross-encoder settings.
    pub run: RunInfo,
    /// A peer retriever scored as one more arm, named [`crate::peer::PEER_ARM`], after gos's
    /// arms ([`crate::peer`]); `None` for none.
    pub peer: Option<PeerCommand>,
}

/// Run `config`'s arms on `tasks` over `ws` and summarize them into a report: per-arm metrics,
/// paired bootstrap intervals against the baseline arm, failure analysis. `progress` is called
/// as in [`run_arms`]. With [`EvalConfig::peer`], the peer runs once after gos's arms and is
/// reported as one more arm.
///
/// # Errors
/// [`Error::NoArms`] when `config.arms` is empty; see [`run_arms`] and
/// [`crate::peer::run_peer`].
pub fn evaluate(
    ws: &Arc<Workspace>,
    tasks: &[TaskLine],
    config: &EvalConfig,
    models: Models<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<EvalReport> {
    if config.arms.is_empty() {
        return Err(Error::NoArms);
    }
    let mut records = run_arms(ws, tasks, &config.arms, &config.options, &models, progress)?;
    let mut arms = config.arms.clone();
    if let Some(peer) = &config.peer {
        let rankings = run_peer(peer)?;
        let top_n = config.options.budgets.top_n;
        append_peer(ws, &mut records, &rankings, top_n, &peer.program)?;
        arms.push(peer_arm());
    }
    let arms = &arms;
    let baseline = baseline_index(arms);
    let ci = intervals(
        &records,
        arms,
        baseline,
        config.run.resamples,
        config.run.seed,
    );
    Ok(EvalReport::new(
        arms,
        baseline,
        records,
        ci,
        &config.options,
        &config.run,
        ws,
    ))
}

/// Write `report` into the folder `out` (created if missing): `report.json`, `report.md`,
/// `recall_at_k.svg` and `recall_diff.svg`. Returns the JSON that `report.json` holds.
///
/// # Errors
/// [`Error::Io`] when the folder or a file cannot be written; [`Error::Plot`] when a plot
/// cannot be drawn.
pub fn write_report(report: &EvalReport, out: &Path) -> Result<Value> {
    std::fs::create_dir_all(out).map_err(|source| Error::Io {
        action: "creating output directory",
        path: out.to_path_buf(),
        source,
    })?;
    let json = report.to_json();
    let write = |name: &str, text: String| -> Result<()> {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|source| Error::Io {
            action: "writing",
            path,
            source,
        })
    };
    write("report.json", serde_json::to_string_pretty(&json)? + "\n")?;
    write("report.md", report.to_markdown())?;
    plots::recall_at_k(report, &out.join("recall_at_k.svg"))?;
    plots::recall_diff(report, &out.join("recall_diff.svg"))?;
    Ok(json)
}
