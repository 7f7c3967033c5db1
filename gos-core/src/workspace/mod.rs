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

/// Name of the marker file every staging directory holds, so that only directories a gos build
/// created are ever cleaned up.
const STAGING_MARKER: &str = ".gos-staging";

/// What a build target holds before a build replaces it (see [`check_build_target`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildTarget {
    /// Nothing exists at the path; the build creates it.
    Absent,
    /// An empty directory; the build replaces it.
    Empty,
    /// A workspace written by gos (its `workspace.json` says `"format": "gos-workspace"`), of
    /// any format version, holding `skills` skills.
    Workspace {
        /// Skill count recorded in its `workspace.json` (0 when unreadable).
        skills: usize,
    },
}

/// Decide whether a build may write its workspace at `target` for the library at `library`.
///
/// gos writes only where it owns the place: a path that does not exist yet, an empty directory,
/// or a workspace gos wrote before. Everything else is refused before any work starts, so a
/// mistyped `-w` can never remove or move a user's files.
///
/// # Errors
/// [`Error::UnsafeTarget`] when `target` is a symbolic link, a file, a non-empty directory
/// without a gos `workspace.json`, or when it is, contains or lies inside `library` (both
/// compared after resolving symbolic links); I/O errors reading `target`.
pub fn check_build_target(target: &Path, library: &Path) -> Result<BuildTarget> {
    let refuse = |reason: String| Error::UnsafeTarget {
        path: target.to_path_buf(),
        reason,
    };
    let library = library.canonicalize().map_err(|e| Error::io(library, e))?;
    let resolved = resolve_path(target)?;
    if resolved == library {
        return Err(refuse(
            "it is the library itself; give a separate directory for the workspace".into(),
        ));
    }
    if library.starts_with(&resolved) {
        return Err(refuse(format!(
            "it contains the library {}; give a directory outside the library",
            library.display()
        )));
    }
    if resolved.starts_with(&library) {
        return Err(refuse(format!(
            "it lies inside the library {}; give a directory outside the library",
            library.display()
        )));
    }
    classify_target(target)
}

/// What `target` holds, refusing anything gos did not create.
fn classify_target(target: &Path) -> Result<BuildTarget> {
    let refuse = |reason: &str| Error::UnsafeTarget {
        path: target.to_path_buf(),
        reason: reason.into(),
    };
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BuildTarget::Absent),
        Err(e) => return Err(Error::io(target, e)),
    };
    if meta.file_type().is_symlink() {
        return Err(refuse(
            "it is a symbolic link; give the directory it points to, or a new path",
        ));
    }
    if !meta.is_dir() {
        return Err(refuse(
            "it is a file, not a gos workspace; give a new or empty directory",
        ));
    }
    let mut entries = std::fs::read_dir(target).map_err(|e| Error::io(target, e))?;
    if entries.next().is_none() {
        return Ok(BuildTarget::Empty);
    }
    let info_path = target.join("workspace.json");
    let info: Option<serde_json::Value> = std::fs::read_to_string(&info_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    match info {
        Some(v) if v.get("format").and_then(|f| f.as_str()) == Some("gos-workspace") => {
            let skills = v.get("skills").and_then(|n| n.as_u64()).unwrap_or(0) as usize;
            Ok(BuildTarget::Workspace { skills })
        }
        _ => Err(refuse(
            "the directory is not empty and is not a gos workspace (no workspace.json written by gos); \
             gos never replaces a folder it did not create: give a new or empty directory",
        )),
    }
}

/// `path` made absolute with symbolic links resolved: the longest prefix that exists is
/// canonicalized, and the rest is appended lexically (`.` dropped, `..` popping one component).
fn resolve_path(path: &Path) -> Result<PathBuf> {
    use std::path::Component;
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io(path, e))?
            .join(path)
    };
    let parts: Vec<Component<'_>> = absolute.components().collect();
    for split in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..split].iter().collect();
        let Ok(mut out) = prefix.canonicalize() else {
            continue;
        };
        for part in &parts[split..] {
            match part {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other),
            }
        }
        return Ok(out);
    }
    Ok(absolute)
}

/// A temporary directory next to `target` (same file system, so [`commit_dir`] can rename it),
/// marked as gos's own by a `.gos-staging` file. Staging directories left by killed builds of
/// the same target are removed first, but only those that carry the marker: a folder gos did
/// not create is never removed.
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
    // Leftovers of builds that were killed: remove those gos marked as its own.
    let prefix = format!(".{name}.building-");
    if let Ok(entries) = std::fs::read_dir(parent) {
        for entry in entries.flatten() {
            let ours = entry.file_name().to_string_lossy().starts_with(&prefix)
                && entry.file_type().is_ok_and(|t| t.is_dir())
                && entry.path().join(STAGING_MARKER).is_file();
            if ours {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let staging = parent.join(format!("{prefix}{}", std::process::id()));
    std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
    let marker = staging.join(STAGING_MARKER);
    std::fs::write(
        &marker,
        b"a gos build writes here; removed when the build ends\n",
    )
    .map_err(|e| Error::io(&marker, e))?;
    Ok(staging)
}

/// Move the finished `staging` directory to `target`, replacing a previous workspace or an
/// empty directory.
///
/// `target` is checked again first (it may have changed during the build): anything but a
/// missing path, an empty directory or a gos workspace is refused and left alone. The old
/// workspace is renamed aside (`.NAME.old-PID`), the new one renamed into place, then the old
/// one removed. Each rename is atomic, so at any moment either the old or the new workspace is
/// complete on disk; if the process dies between the two renames, the previous workspace is
/// still whole under its `.old` name.
///
/// # Errors
/// [`Error::UnsafeTarget`] as in [`check_build_target`]; I/O errors of the renames, naming the
/// path.
pub fn commit_dir(staging: &Path, target: &Path) -> Result<()> {
    // The marker goes last (after the renames), so that a staging directory left by a build
    // killed during the swap still carries it and the next build removes it.
    match classify_target(target)? {
        BuildTarget::Absent => {
            std::fs::rename(staging, target).map_err(|e| Error::io(target, e))?;
        }
        BuildTarget::Empty | BuildTarget::Workspace { .. } => {
            let parent = target.parent().unwrap_or(Path::new("."));
            let name = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let old = parent.join(format!(".{name}.old-{}", std::process::id()));
            std::fs::rename(target, &old).map_err(|e| Error::io(target, e))?;
            debug_pause_between_renames();
            std::fs::rename(staging, target).map_err(|e| Error::io(target, e))?;
            std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
        }
    }
    let marker = target.join(STAGING_MARKER);
    std::fs::remove_file(&marker).map_err(|e| Error::io(&marker, e))
}

/// Test hook, compiled into debug builds only: when `GOS_DEBUG_PAUSE_BETWEEN_RENAMES` names
/// a file, [`commit_dir`] writes that file between its two renames and sleeps 60 s, so a test
/// can kill the build at the one moment the workspace path is missing. Release builds ignore
/// the variable.
fn debug_pause_between_renames() {
    #[cfg(debug_assertions)]
    if let Some(marker) = std::env::var_os("GOS_DEBUG_PAUSE_BETWEEN_RENAMES") {
        let _ = std::fs::write(&marker, std::process::id().to_string());
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// Whole previous workspaces that builds of `target` left aside (`.NAME.old-PID` beside it,
/// holding a gos `workspace.json`), newest first.
fn interrupted_swaps(target: &Path) -> Vec<PathBuf> {
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!(".{name}.old-");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .filter(|p| matches!(classify_target(p), Ok(BuildTarget::Workspace { .. })))
        .map(|p| {
            let t = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (t, p)
        })
        .collect();
    found.sort_by(|a, b| b.cmp(a));
    found.into_iter().map(|(_, p)| p).collect()
}

/// Finish what a build killed during [`commit_dir`] left behind. Call it holding the build
/// lock ([`crate::workspace::lock::BuildLock`]), before building into `target`.
///
/// When `target` is missing and a previous workspace waits under `.NAME.old-PID`, the newest
/// one is renamed back to `target` and its path returned; older ones, and all of them when
/// `target` exists (a build killed after its second rename), are removed. Only directories
/// holding a gos `workspace.json` are ever touched.
///
/// # Errors
/// I/O errors of the rename or removals, naming the path.
pub fn recover_interrupted_swap(target: &Path) -> Result<Option<PathBuf>> {
    let mut leftovers = interrupted_swaps(target).into_iter();
    let mut restored = None;
    if dir_identity(target).is_none()
        && std::fs::symlink_metadata(target).is_err()
        && let Some(newest) = leftovers.next()
    {
        std::fs::rename(&newest, target).map_err(|e| Error::io(&newest, e))?;
        restored = Some(newest);
    }
    for old in leftovers {
        std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
    }
    Ok(restored)
}

#[cfg(test)]
mod tests;
