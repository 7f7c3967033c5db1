//! The `-w WORKSPACE` of every command: what to say when it is missing, and when the path it
//! names is not a gos workspace.
//!
//! `gos build -w PATH` writes only into a new path, an empty directory or a workspace gos built,
//! outside the library (docs/workspace.md), so a hint that says "build one with `gos build
//! LIBRARY -w PATH`" is only right for the first two. For a skill library, a source repository
//! or any other folder, the hint names a separate directory instead.

use anyhow::{Result, anyhow};
use gos_core::Workspace;
use std::path::{Component, Path};

/// The tip added to clap's error when `-w` is missing.
pub const MISSING_TIP: &str = "pass -w WORKSPACE or set GOS_WORKSPACE";

/// Add [`MISSING_TIP`] to a clap error that reports a missing `--workspace`.
pub fn explain_missing(e: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::MissingRequiredArgument {
        return;
    }
    let missing_workspace = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::Strings(args)) => args.iter().any(|a| a.starts_with("--workspace")),
        _ => false,
    };
    if !missing_workspace {
        return;
    }
    let mut tips = match e.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips.clone(),
        _ => Vec::new(),
    };
    tips.push(MISSING_TIP.into());
    e.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
}

/// Open the workspace at `path`; when it is not a workspace, an error that says what the path
/// is and which build command would make one.
///
/// # Errors
/// [`not_a_workspace`]'s message when `path` holds no `workspace.json`; any other error of
/// [`Workspace::open`], after "opening workspace PATH".
pub fn open(path: &Path) -> Result<Workspace> {
    match Workspace::open(path) {
        Ok(ws) => Ok(ws),
        Err(gos_core::Error::NotAWorkspace { .. }) => Err(anyhow!(not_a_workspace(path))),
        Err(e) => {
            Err(anyhow::Error::new(e).context(format!("opening workspace {}", path.display())))
        }
    }
}

/// What `path`, which holds no `workspace.json`, is instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Missing,
    File,
    EmptyDir,
    /// A source repository (it holds `.git`).
    Repository,
    /// A skill library (SKILL.md files in it or a few levels down).
    Library,
    OtherDir,
}

/// Folders looked into when searching for a SKILL.md, and how deep.
const LIBRARY_SCAN_DIRS: usize = 2_000;
const LIBRARY_SCAN_DEPTH: usize = 4;

fn classify(path: &Path) -> Found {
    let Ok(meta) = std::fs::metadata(path) else {
        return Found::Missing;
    };
    if !meta.is_dir() {
        return Found::File;
    }
    if std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none()) {
        return Found::EmptyDir;
    }
    if path.join(".git").exists() {
        return Found::Repository;
    }
    if holds_skills(path) {
        return Found::Library;
    }
    Found::OtherDir
}

/// Whether a `SKILL.md` lies in `root` or in a folder at most [`LIBRARY_SCAN_DEPTH`] levels
/// below it (hidden folders and symbolic links skipped; at most [`LIBRARY_SCAN_DIRS`] folders
/// read, breadth first).
fn holds_skills(root: &Path) -> bool {
    let mut queue = std::collections::VecDeque::from([(root.to_path_buf(), 0)]);
    let mut read = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        if read == LIBRARY_SCAN_DIRS {
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_file() && name == "SKILL.md" {
                return true;
            }
            if kind.is_dir()
                && depth < LIBRARY_SCAN_DEPTH
                && !name.to_string_lossy().starts_with('.')
            {
                queue.push_back((entry.path(), depth + 1));
            }
        }
    }
    false
}

/// A directory next to `path`, named after it with `-ws`, where `gos build` may write (it does
/// not exist yet); `NEW_DIR` when that one is taken.
fn separate_dir(path: &Path) -> String {
    // `.` or `..` has no name of its own: take the directory's.
    let named = match path.components().next_back() {
        Some(Component::Normal(_)) => Some(path.to_path_buf()),
        _ => path.canonicalize().ok(),
    };
    let sibling = named.and_then(|p| {
        let name = p.file_name()?.to_string_lossy().into_owned();
        Some(p.with_file_name(format!("{name}-ws")))
    });
    match sibling {
        Some(s) if !s.exists() => s.display().to_string(),
        _ => "NEW_DIR".into(),
    }
}

/// The message for a `-w` path that holds no `workspace.json`: what it is, and a build
/// command that `gos build` would accept.
pub fn not_a_workspace(path: &Path) -> String {
    let p = path.display();
    match classify(path) {
        Found::Missing => {
            format!("workspace {p} does not exist; build one with `gos build LIBRARY -w {p}`")
        }
        Found::File => {
            format!("{p} is a file, not a gos workspace; pass the directory `gos build -w` wrote")
        }
        Found::EmptyDir => format!(
            "{p} is an empty directory, not a gos workspace; build one into it with \
             `gos build LIBRARY -w {p}`"
        ),
        Found::Repository => format!(
            "{p} is a source repository, not a gos workspace (no workspace.json); build the \
             workspace into a separate directory, e.g. `gos build LIBRARY -w {}`",
            separate_dir(path)
        ),
        Found::Library => format!(
            "{p} is a skill library (it holds SKILL.md files), not a gos workspace (no \
             workspace.json); build a workspace from it into a separate directory: \
             `gos build {p} -w {}`",
            separate_dir(path)
        ),
        Found::OtherDir => format!(
            "{p} is not a gos workspace (no workspace.json), and `gos build` writes only into a \
             new or empty directory or a workspace it built; build into a separate one, e.g. \
             `gos build LIBRARY -w {}`",
            separate_dir(path)
        ),
    }
}

/// [`not_a_workspace`] for the servers, whose error wraps gos-core's: `Some` when `e` says
/// the workspace directory holds no `workspace.json`.
pub fn explain_server_error(e: &gos_server::ServerError) -> Option<String> {
    match e {
        gos_server::ServerError::Open {
            path,
            source: gos_core::Error::NotAWorkspace { .. },
        } => Some(not_a_workspace(path)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_path_gets_a_build_command_that_would_be_accepted() {
        let t = tempfile::tempdir().unwrap();
        let gone = t.path().join("nope");
        assert_eq!(classify(&gone), Found::Missing);
        assert!(not_a_workspace(&gone).contains(&format!("-w {}`", gone.display())));

        let empty = t.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert_eq!(classify(&empty), Found::EmptyDir);

        let lib = t.path().join("lib");
        std::fs::create_dir_all(lib.join("a/b/c")).unwrap();
        std::fs::write(lib.join("a/b/c/SKILL.md"), "---\nname: c\n---\n").unwrap();
        assert_eq!(classify(&lib), Found::Library);
        let msg = not_a_workspace(&lib);
        let sibling = format!("{}-ws", lib.display());
        assert!(
            msg.contains(&format!("`gos build {} -w {sibling}`", lib.display())),
            "{msg}"
        );

        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("fixtures/x")).unwrap();
        std::fs::write(repo.join("fixtures/x/SKILL.md"), "").unwrap();
        assert_eq!(classify(&repo), Found::Repository);
        assert!(!not_a_workspace(&repo).contains(&format!("-w {}`", repo.display())));

        let other = t.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "x").unwrap();
        assert_eq!(classify(&other), Found::OtherDir);
        // The sibling is taken: a placeholder instead of a path gos build would refuse.
        std::fs::create_dir(t.path().join("other-ws")).unwrap();
        assert!(not_a_workspace(&other).contains("-w NEW_DIR`"));
    }
}
