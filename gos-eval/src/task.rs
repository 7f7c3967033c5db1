//! The task format (`tasks.jsonl`) and the matching of oracle skills to workspace nodes.

use crate::error::{Error, Result};
use gos_core::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::Path;

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
/// [`Error::Io`] when the file cannot be read; [`Error::TaskLine`] for a malformed line, a
/// duplicate id, or `oracle_skills` and `oracle_dirs` of different lengths (naming the file and
/// line); [`Error::NoTasks`] when the file holds no task.
pub fn load_tasks(path: &Path) -> Result<Vec<TaskLine>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        action: "reading task file",
        path: path.to_path_buf(),
        source,
    })?;
    let mut tasks: Vec<TaskLine> = Vec::new();
    let mut ids = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |reason: String| Error::TaskLine {
            at: format!("{}:{}", path.display(), i + 1),
            reason,
        };
        let task: TaskLine = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        if !ids.insert(task.id.clone()) {
            return Err(bad(format!("duplicate task id `{}`", task.id)));
        }
        if !(task.oracle_skills.is_empty() || task.oracle_skills.len() == task.oracle_dirs.len()) {
            return Err(bad(format!(
                "task `{}` has {} oracle_skills but {} oracle_dirs",
                task.id,
                task.oracle_skills.len(),
                task.oracle_dirs.len()
            )));
        }
        tasks.push(task);
    }
    if tasks.is_empty() {
        return Err(Error::NoTasks(path.to_path_buf()));
    }
    Ok(tasks)
}

/// One oracle skill of a task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OracleRef {
    /// Package id from `oracle_dirs`.
    pub dir: String,
    /// Name from `oracle_skills` (or the last path component of `dir`).
    pub name: String,
    /// Workspace node, `None` when the skill is not in the workspace.
    #[serde(skip)]
    pub node: Option<usize>,
    /// Near-copies of the oracle in the workspace (other nodes, [`crate::equiv`]), which the
    /// equivalent metrics count as it; filled by the run loop, empty from [`match_oracles`].
    #[serde(skip)]
    pub copies: Vec<usize>,
}

/// Match a task's oracle dirs to workspace nodes (exact package id, trailing `/` ignored);
/// a dir listed twice counts once.
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
                copies: Vec::new(),
                dir,
                name,
            }
        })
        .collect()
}
