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
//! | `vectors-VIEW.bin` | skill embeddings of one text view ([`crate::index::dense::vectors`]), when built with a model |
//! | `hnsw-VIEW.cbor` | HNSW index over them, only for collections above the build's threshold |
//! | `duplicates.json` | near-duplicate groups ([`duplicates::DuplicateGroups`]), only when the build found any |
//! | `alternatives.json` | alternative groups (components of the alternative edges; [`duplicates::ALTERNATIVES_FILE`]), only when the build found any |
//!
//! Writes are atomic at the directory level ([`commit_dir`]): a build fills a temporary sibling
//! directory and renames it into place, so an interrupted or failed build leaves the previous
//! workspace whole (the same idea as tantivy's atomic meta file).
//!
//! A skill's stored texts as the stages read them (its body, the hydrated content, the
//! cross-encoder's text) are methods of [`Workspace`] ([`Workspace::content`] and the others
//! beside it). Submodules: [`manifest`], [`duplicates`], [`lock`] (the build lock).

pub mod duplicates;
pub mod lock;
pub mod manifest;
mod target;
mod texts;

use crate::error::{Error, Result};
use crate::graph::ppr::{ReverseWeights, TransitionMatrix, TypeWeights};
use crate::graph::{GraphFile, SkillGraph};
use crate::index::dense::{DenseInfo, DenseSet};
use crate::index::lexical::LexicalIndex;
use duplicates::NodeGroups;
use manifest::Manifest;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use target::interrupted_swaps;
pub use target::{
    BuildTarget, check_build_target, commit_dir, recover_interrupted_swap, staging_dir,
};
#[cfg(test)]
use target::{STAGING_MARKER, classify_target};

/// How many typed transition matrices [`Workspace::typed_matrix`] keeps (the last built).
pub const TYPED_MATRIX_CACHE: usize = 4;

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
    /// Every labelled root of a build from several roots (or explicitly labelled ones), in
    /// order; `library_root` is the first. Empty, and not written, for a classic one-root build.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<WorkspaceRoot>,
    /// Number of skill nodes.
    pub skills: usize,
    /// Dense vectors, when the build had a sentence encoder (absent otherwise; older
    /// workspaces of the same format version simply have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseInfo>,
}

/// One labelled library root of a workspace (`workspace.json` `roots`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRoot {
    /// Label prefixed to the ids of its skills.
    pub label: String,
    /// Absolute path.
    pub path: String,
}

/// An open workspace: manifest, graph, BM25 index and the transition matrices of the two
/// diffusion modes, ready for queries. Opening costs a few hundred milliseconds at 5,000
/// skills (JSON parsing dominates).
pub struct Workspace {
    dir: PathBuf,
    /// `workspace.json`.
    info: WorkspaceInfo,
    /// The nodes.
    manifest: Manifest,
    /// The typed graph; node `i` is `manifest.nodes[i]`.
    graph: SkillGraph,
    /// The BM25 index.
    lexical: LexicalIndex,
    /// Transition matrix with the default reverse weights.
    reverse_matrix: TransitionMatrix,
    /// Transition matrix with all reverse weights zero.
    forward_matrix: TransitionMatrix,
    /// Matrices of other typed weights, built on first use ([`Workspace::typed_matrix`]).
    typed_matrices: Mutex<Vec<(TypeWeights, Arc<TransitionMatrix>)>>,
    /// Skill embeddings, when the workspace has them.
    dense: Option<DenseSet>,
    /// Near-duplicate groups (none when `duplicates.json` is absent).
    duplicates: NodeGroups,
    /// Near-duplicate groups merged with the alternative groups of `alternatives.json`.
    alternatives: NodeGroups,
}

/// Parse the JSON file at `path`; bytes that are not UTF-8 or not JSON are a damaged
/// workspace ([`Error::Json`], whose message says rebuild).
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    serde_json::from_slice(&bytes).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Attempts of [`Workspace::open`] when the directory is replaced while it reads.
const OPEN_ATTEMPTS: u32 = 5;

/// Identity of a directory (device and inode on Unix; modification time elsewhere), or `None`
/// when it does not exist. A build's swap gives the workspace path a new identity.
fn dir_identity(dir: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let t = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some((t.as_secs(), t.subsec_nanos() as u64))
    }
}

impl Workspace {
    /// Open the workspace in `dir`, read-only (nothing in `dir` is created or locked).
    ///
    /// A build may replace the workspace while it is read (two renames; see [`commit_dir`]).
    /// Open notices when the directory changed identity or vanished during the reads and
    /// reads again (up to 5 attempts, a few tens of milliseconds apart), so a reader never
    /// mixes files of two builds. When `dir` is missing but a build killed between its two
    /// renames left the previous workspace whole under `.NAME.old-PID` beside it, that copy
    /// is opened (with a warning in the log); the next build puts it back
    /// ([`recover_interrupted_swap`]).
    ///
    /// # Errors
    /// [`Error::NotAWorkspace`] when `workspace.json` is missing, [`Error::FormatVersion`] when
    /// it names another format version (the message says to rebuild), [`Error::Inconsistent`]
    /// when its files disagree, and I/O, JSON or index errors naming the file.
    pub fn open(dir: &Path) -> Result<Self> {
        let mut attempt = 1;
        loop {
            let before = dir_identity(dir);
            let result = Self::open_once(dir);
            let stable = before.is_some() && before == dir_identity(dir);
            if stable {
                return result;
            }
            let leftover = interrupted_swaps(dir).into_iter().next();
            if before.is_none() && leftover.is_none() {
                // Nothing there and no swap under way: the plain error.
                return result;
            }
            if attempt >= OPEN_ATTEMPTS {
                if let (None, Some(old)) = (dir_identity(dir), leftover) {
                    tracing::warn!(
                        "workspace {} is missing: a build was interrupted while replacing it; \
                         reading the previous workspace at {} (the next build restores it)",
                        dir.display(),
                        old.display()
                    );
                    return Self::open_once(&old);
                }
                return result;
            }
            std::thread::sleep(std::time::Duration::from_millis(20 * u64::from(attempt)));
            attempt += 1;
        }
    }

    /// One read of every file of the workspace in `dir`.
    fn open_once(dir: &Path) -> Result<Self> {
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
        let ids: Vec<&str> = manifest.nodes.iter().map(|n| n.id.as_str()).collect();
        let duplicates = NodeGroups::load(dir, &ids)?;
        let alternatives = NodeGroups::load_alternatives(dir, &ids, &duplicates)?;
        Ok(Workspace {
            dir: dir.to_path_buf(),
            info,
            manifest,
            graph,
            lexical,
            reverse_matrix,
            forward_matrix,
            typed_matrices: Mutex::new(Vec::new()),
            dense,
            duplicates,
            alternatives,
        })
    }

    /// `workspace.json`: format version, builder version, library root, dense info.
    pub fn info(&self) -> &WorkspaceInfo {
        &self.info
    }

    /// The manifest; node `i` of the graph is `manifest().nodes[i]`.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The typed skill graph.
    pub fn graph(&self) -> &SkillGraph {
        &self.graph
    }

    /// The BM25 index.
    pub fn lexical(&self) -> &LexicalIndex {
        &self.lexical
    }

    /// Transition matrix with the default reverse weights (reverse-aware diffusion).
    pub fn reverse_matrix(&self) -> &TransitionMatrix {
        &self.reverse_matrix
    }

    /// Transition matrix with every reverse weight zero (forward-only diffusion).
    pub fn forward_matrix(&self) -> &TransitionMatrix {
        &self.forward_matrix
    }

    /// The transition matrix of `weights` ([`TransitionMatrix::build_typed`]), built on first
    /// use and kept for the next queries (the last [`TYPED_MATRIX_CACHE`] weight settings), so
    /// a non-default setting such as lexical seeds' semantic factor costs one build per
    /// workspace, not one per query (about 1 ms at 5,584 skills and 11,000 edges).
    pub fn typed_matrix(&self, weights: &TypeWeights) -> Arc<TransitionMatrix> {
        let mut cache = self
            .typed_matrices
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, m)) = cache.iter().find(|(w, _)| w == weights) {
            return Arc::clone(m);
        }
        let m = Arc::new(TransitionMatrix::build_typed(&self.graph, weights));
        if cache.len() == TYPED_MATRIX_CACHE {
            cache.remove(0);
        }
        cache.push((*weights, Arc::clone(&m)));
        m
    }

    /// Skill embeddings, when the workspace was built with a sentence encoder.
    pub fn dense(&self) -> Option<&DenseSet> {
        self.dense.as_ref()
    }

    /// Near-duplicate groups of the nodes (empty for a workspace built without any, or by a
    /// gos that did not look for them).
    pub fn duplicates(&self) -> &NodeGroups {
        &self.duplicates
    }

    /// The near-duplicate groups merged with the alternative groups (`alternatives.json`):
    /// what one slot per group spends on ([`NodeGroups::load_alternatives`]).
    pub fn alternative_groups(&self) -> &NodeGroups {
        &self.alternatives
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

#[cfg(test)]
mod tests;
