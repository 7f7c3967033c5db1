//! A peer retriever in the same run: an external program ranks every task, and its rankings are
//! scored with the same metrics as gos's arms, so one report holds both (issue: "a peer in the
//! same run").
//!
//! The program is run once as `PROGRAM --library ROOT --tasks TASKS --top K` and must print one
//! JSON object per task on stdout, `{"id": TASK_ID, "ranked": [PACKAGE_ID, ...], "ms": F}`, where
//! a package id is the package folder relative to the library root (gos's skill id) and `ms` is
//! that task's query time in milliseconds. `benches/peer_bm25.py` implements the protocol for the
//! skill-usage server's BM25 (reference-notes §8).
//!
//! The peer's bundle is the first [`Budgets::top_n`](gos_core::hydrate::Budgets::top_n) ids of
//! its ranking (the peer returns no context, so its context characters are 0); ids the
//! workspace does not hold keep their bundle slot but match no oracle.

use crate::arm::Arm;
use crate::error::{Error, Result};
use crate::metrics::{TaskInput, TaskScores};
use crate::run::{ArmTask, RANKED_DEPTH, TaskRecord};
use gos_core::retrieve::Timings;
use gos_core::seed::SeedSource;
use gos_core::{EdgeType, RetrievalMode, Workspace};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Name of the peer's arm in the report.
pub const PEER_ARM: &str = "peer";

/// One task's ranking by the peer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PeerRanking {
    /// Task id.
    pub id: String,
    /// Package ids, best first.
    pub ranked: Vec<String>,
    /// Query time in milliseconds.
    pub ms: f64,
}

/// How to run the peer.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerCommand {
    /// The program (an executable script such as `benches/peer_bm25.py`).
    pub program: PathBuf,
    /// Library root given as `--library`.
    pub library: PathBuf,
    /// Task file given as `--tasks`.
    pub tasks: PathBuf,
    /// Ranked ids asked for per task (`--top`); at least [`RANKED_DEPTH`] for recall@50.
    pub top: usize,
}

/// Run the peer once over every task and parse its rankings.
///
/// # Errors
/// [`Error::Peer`] when the program cannot be started, exits with a failure status (its stderr
/// is quoted), or prints a line that is not a ranking.
pub fn run_peer(cmd: &PeerCommand) -> Result<Vec<PeerRanking>> {
    let refuse = |reason: String| Error::Peer {
        program: cmd.program.clone(),
        reason,
    };
    let out = Command::new(&cmd.program)
        .arg("--library")
        .arg(&cmd.library)
        .arg("--tasks")
        .arg(&cmd.tasks)
        .arg("--top")
        .arg(cmd.top.to_string())
        .output()
        .map_err(|e| refuse(format!("cannot start it: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(refuse(format!(
            "it exited with {}: {}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    parse_rankings(&String::from_utf8_lossy(&out.stdout))
        .map_err(|(line, e)| refuse(format!("output line {line}: {e}")))
}

/// Parse the peer's JSONL output; blank lines are skipped. The error is the 1-based line and
/// the parser's message.
pub fn parse_rankings(text: &str) -> std::result::Result<Vec<PeerRanking>, (usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let r: PeerRanking = serde_json::from_str(l).map_err(|e| (i + 1, e.to_string()))?;
            if r.ms.is_finite() && r.ms >= 0.0 {
                Ok(r)
            } else {
                Err((i + 1, format!("`ms` is {}, not a duration", r.ms)))
            }
        })
        .collect()
}

/// The arm the peer's results are reported under (`mode` and `source` are placeholders that
/// nothing reads for this arm; it is never the baseline because it is not a reverse arm).
pub fn peer_arm() -> Arm {
    Arm {
        name: PEER_ARM.into(),
        mode: RetrievalMode::NoGraph,
        source: SeedSource::Lexical,
        cross_encoder: false,
        overrides: Vec::new(),
    }
}

/// Score the peer's rankings as one more arm of `records` (appended to every record's
/// `arms`), with bundles of `top_n` ids.
///
/// # Errors
/// [`Error::Peer`] when a task of `records` has no ranking (the program skipped it).
pub fn append_peer(
    ws: &Workspace,
    records: &mut [TaskRecord],
    rankings: &[PeerRanking],
    top_n: usize,
    program: &Path,
) -> Result<()> {
    let by_task: HashMap<&str, &PeerRanking> =
        rankings.iter().map(|r| (r.id.as_str(), r)).collect();
    let nodes: HashMap<&str, usize> = ws
        .manifest()
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let dependency_edges: Vec<(usize, usize)> = ws
        .graph()
        .indexed_edges()
        .filter(|(_, _, e)| e.edge_type == EdgeType::Dependency)
        .map(|(s, t, _)| (s, t))
        .collect();
    for record in records.iter_mut() {
        let Some(r) = by_task.get(record.id.as_str()) else {
            return Err(Error::Peer {
                program: program.to_path_buf(),
                reason: format!("it printed no ranking for task `{}`", record.id),
            });
        };
        let ranked: Vec<usize> = r
            .ranked
            .iter()
            .filter_map(|id| nodes.get(id.as_str()).copied())
            .collect();
        let bundle: Vec<String> = r.ranked.iter().take(top_n).cloned().collect();
        let bundle_nodes: Vec<usize> = bundle
            .iter()
            .filter_map(|id| nodes.get(id.as_str()).copied())
            .collect();
        let available = record.available();
        let matches = record.matches();
        let scores = TaskScores::compute(&TaskInput {
            available: &available,
            matches: &matches,
            oracle_total: record.oracles.len(),
            bundle: &bundle_nodes,
            ranked: &ranked,
            dependency_edges: &dependency_edges,
            context_chars: 0,
            latency_ms: r.ms,
        });
        let rank = |node: usize| ranked.iter().position(|&n| n == node).map(|p| p + 1);
        record.arms.push(ArmTask {
            status: if bundle.is_empty() {
                "NO_SKILL_HIT"
            } else {
                "SKILL_HIT"
            },
            bundle,
            bundle_nodes,
            ranked_top: ranked.iter().take(RANKED_DEPTH).copied().collect(),
            oracle_ranks: record
                .oracles
                .iter()
                .map(|o| o.node.and_then(rank))
                .collect(),
            oracle_lexical_ranks: record
                .oracles
                .iter()
                .map(|o| o.node.and_then(rank))
                .collect(),
            oracle_duplicates_above: vec![0; record.oracles.len()],
            collapsed: Vec::new(),
            seeds: Vec::new(),
            context_chars: 0,
            top_seed_score: 0.0,
            top_dense_score: None,
            lexical_coverage: Default::default(),
            timings: Timings {
                seed: r.ms,
                total: r.ms,
                ..Timings::default()
            },
            scores,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rankings_parse_and_bad_lines_name_their_line() {
        let ok = parse_rankings(
            "{\"id\":\"t1\",\"ranked\":[\"a/b\",\"c\"],\"ms\":12.5}\n\n{\"id\":\"t2\",\"ranked\":[],\"ms\":0}\n",
        )
        .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].ranked, vec!["a/b".to_string(), "c".to_string()]);
        assert_eq!(ok[0].ms, 12.5);
        assert!(ok[1].ranked.is_empty());
        let (line, msg) =
            parse_rankings("{\"id\":\"t1\",\"ranked\":[],\"ms\":1}\nnot json\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(!msg.is_empty());
        let (line, msg) = parse_rankings("{\"id\":\"t1\",\"ranked\":[],\"ms\":-1}").unwrap_err();
        assert_eq!(line, 1);
        assert!(msg.contains("not a duration"), "{msg}");
    }
}
