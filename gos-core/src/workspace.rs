//! The workspace directory: what `gos build` writes and `gos retrieve` reads.
//!
//! Layout (format version [`FORMAT_VERSION`]):
//!
//! | file | content |
//! | --- | --- |
//! | `workspace.json` | [`WorkspaceInfo`]: format version, builder version, library root |
//! | `manifest.json` | the [`Manifest`] (nodes with provenance), byte-reproducible |
//! | `graph.json` | the [`GraphFile`] (typed edges with provenance), byte-reproducible |
//! | `tantivy/` | the BM25 index ([`LexicalIndex`]) |
//! | `build-report.json` | counts, skipped packages, recoveries, timings |
//! | `vectors-VIEW.bin` | skill embeddings of one text view ([`crate::dense::vectors`]), when built with a model |
//! | `hnsw-VIEW.cbor` | HNSW index over them, only for collections above the build's threshold |
//!
//! Writes are atomic at the directory level ([`commit_dir`]): a build fills a temporary sibling
//! directory and renames it into place, so an interrupted or failed build leaves the previous
//! workspace whole (the same idea as tantivy's atomic meta file).

use crate::dense::{DenseInfo, DenseSet};
use crate::error::{Error, Result};
use crate::graph::{GraphFile, SkillGraph};
use crate::lexical::LexicalIndex;
use crate::manifest::Manifest;
use crate::ppr::{ReverseWeights, TransitionMatrix};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Workspace format version written and read by this build of gos.
pub const FORMAT_VERSION: u32 = 1;

/// Contents of `workspace.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceInfo {
    /// Always `"gos-workspace"`.
    pub format: String,
    /// [`FORMAT_VERSION`] at write time.
    pub format_version: u32,
    /// Version of the builder that wrote it.
    pub builder_version: String,
    /// Absolute path of the library root the workspace was built from.
    pub library_root: String,
    /// Number of skill nodes.
    pub skills: usize,
    /// Dense vectors, when the build had a sentence encoder (absent otherwise; older
    /// workspaces of the same format version simply have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseInfo>,
}

/// An open workspace: manifest, graph, BM25 index and the transition matrices of the two
/// diffusion modes, ready for queries. Opening costs a few hundred milliseconds at 5,000
/// skills (JSON parsing dominates).
pub struct Workspace {
    dir: PathBuf,
    /// `workspace.json`.
    pub info: WorkspaceInfo,
    /// The nodes.
    pub manifest: Manifest,
    /// The typed graph; node `i` is `manifest.nodes[i]`.
    pub graph: SkillGraph,
    /// The BM25 index.
    pub lexical: LexicalIndex,
    /// Transition matrix with the default reverse weights.
    pub reverse_matrix: TransitionMatrix,
    /// Transition matrix with all reverse weights zero.
    pub forward_matrix: TransitionMatrix,
    /// Skill embeddings, when the workspace has them.
    pub dense: Option<DenseSet>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

impl Workspace {
    /// Open the workspace in `dir`.
    ///
    /// # Errors
    /// [`Error::NotAWorkspace`] when `workspace.json` is missing, [`Error::FormatVersion`] when
    /// it names another format version (the message says to rebuild), [`Error::Inconsistent`]
    /// when its files disagree, and I/O, JSON or index errors naming the file.
    pub fn open(dir: &Path) -> Result<Self> {
        let info_path = dir.join("workspace.json");
        if !info_path.is_file() {
            return Err(Error::NotAWorkspace {
                path: dir.to_path_buf(),
            });
        }
        let raw: serde_json::Value = read_json(&info_path)?;
        let found = raw
            .get("format_version")
            .and_then(|v| v.as_u64())
            .unwrap_or(0) as u32;
        if found != FORMAT_VERSION {
            return Err(Error::FormatVersion {
                path: dir.to_path_buf(),
                found,
                expected: FORMAT_VERSION,
            });
        }
        let info: WorkspaceInfo = serde_json::from_value(raw).map_err(|source| Error::Json {
            path: info_path.clone(),
            source,
        })?;
        let manifest: Manifest = read_json(&dir.join("manifest.json"))?;
        let graph_path = dir.join("graph.json");
        let graph_file: GraphFile = read_json(&graph_path)?;
        let ids_match = graph_file.nodes.len() == manifest.nodes.len()
            && graph_file
                .nodes
                .iter()
                .zip(&manifest.nodes)
                .all(|(g, n)| *g == n.id);
        if !ids_match {
            return Err(Error::Inconsistent {
                path: graph_path,
                reason: "graph nodes differ from manifest nodes".into(),
            });
        }
        let graph = SkillGraph::from_file(graph_file).map_err(|reason| Error::Inconsistent {
            path: graph_path.clone(),
            reason,
        })?;
        let lexical = LexicalIndex::open(&dir.join("tantivy"), manifest.nodes.len())?;
        let reverse_matrix = TransitionMatrix::build(&graph, &ReverseWeights::default());
        let forward_matrix = TransitionMatrix::build(&graph, &ReverseWeights::FORWARD_ONLY);
        let dense = match &info.dense {
            Some(d) => Some(DenseSet::open(dir, d.clone(), manifest.nodes.len())?),
            None => None,
        };
        Ok(Workspace {
            dir: dir.to_path_buf(),
            info,
            manifest,
            graph,
            lexical,
            reverse_matrix,
            forward_matrix,
            dense,
        })
    }

    /// Directory of the workspace.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of skill nodes.
    pub fn len(&self) -> usize {
        self.manifest.nodes.len()
    }

    /// Whether the workspace has no skills.
    pub fn is_empty(&self) -> bool {
        self.manifest.nodes.is_empty()
    }

    /// Node index of a skill id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.graph.index_of(id)
    }
}

/// A temporary directory next to `target` (same file system, so [`commit_dir`] can rename it).
/// Staging directories left by killed builds of the same target are removed first (one build
/// per workspace at a time is assumed).
///
/// # Errors
/// I/O errors creating the parent or the directory.
pub fn staging_dir(target: &Path) -> Result<PathBuf> {
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "workspace".into());
    // Leftovers of builds that were killed: they are never a workspace, remove them.
    let prefix = format!(".{name}.building-");
    if let Ok(entries) = std::fs::read_dir(parent) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let staging = parent.join(format!("{prefix}{}", std::process::id()));
    std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
    Ok(staging)
}

/// Move the finished `staging` directory to `target`, replacing a previous workspace.
///
/// The old workspace is first renamed aside (`.NAME.old-PID`), the new one renamed into place,
/// then the old one removed. Each rename is atomic, so at any moment either the old or the new
/// workspace is complete on disk; if the process dies between the two renames, the previous
/// workspace is still whole under its `.old` name.
///
/// # Errors
/// I/O errors of the renames, naming the path.
pub fn commit_dir(staging: &Path, target: &Path) -> Result<()> {
    if target.exists() {
        let parent = target.parent().unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        std::fs::rename(target, &old).map_err(|e| Error::io(target, e))?;
        std::fs::rename(staging, target).map_err(|e| Error::io(target, e))?;
        std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
    } else {
        std::fs::rename(staging, target).map_err(|e| Error::io(target, e))?;
    }
    Ok(())
}
