//! Build targets and the staged swap: where a build may write a workspace
//! ([`check_build_target`]), the staging directory beside it ([`staging_dir`]), the two-rename
//! commit ([`commit_dir`]) and the recovery of a swap a crash interrupted
//! ([`recover_interrupted_swap`]).

use super::dir_identity;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Name of the marker file every staging directory holds, so that only directories a gos build
/// created are ever cleaned up.
pub(super) const STAGING_MARKER: &str = ".gos-staging";

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
pub(super) fn classify_target(target: &Path) -> Result<BuildTarget> {
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
pub(super) fn interrupted_swaps(target: &Path) -> Vec<PathBuf> {
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
