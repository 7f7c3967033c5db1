//! Discovery of package directories (directories holding a `SKILL.md`) under a library root.

use std::ffi::OsString;
use std::fs::{self, FileType};
use std::io;
use std::path::{Path, PathBuf};

use crate::error::ParseError;

/// A package directory found by [`discover`], or a SKILL.md that discovery refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovery {
    /// Package directories relative to the library root, sorted.
    pub packages: Vec<PathBuf>,
    /// `(path relative to root, reason)` for SKILL.md files refused (e.g. symlink out of root).
    pub refused: Vec<(String, String)>,
}

/// Deepest directory level walked below the root.
pub(crate) const MAX_DEPTH: usize = 48;

/// Directory names never walked (hidden names are skipped too).
const SKIP_DIRS: [&str; 2] = ["node_modules", "__pycache__"];

/// Walk `root` for directories holding a file named `SKILL.md` (also accepts `skill.md` in any
/// case), in sorted order, without following symlinked directories, and refusing SKILL.md
/// symlinks whose target resolves outside `root`. Skips `.git` and `node_modules`.
///
/// # Errors
/// Only when `root` itself cannot be read.
pub fn discover(root: &Path) -> Result<Discovery, ParseError> {
    let io_err = |source| ParseError::Io {
        path: root.to_path_buf(),
        source,
    };
    let canon = fs::canonicalize(root).map_err(io_err)?;
    let entries = read_sorted(root).map_err(io_err)?;
    let mut out = Discovery {
        packages: Vec::new(),
        refused: Vec::new(),
    };
    walk(root, &canon, PathBuf::new(), &entries, 0, &mut out);
    out.packages.sort();
    out.refused.sort();
    Ok(out)
}

fn walk(
    root: &Path,
    canon: &Path,
    rel: PathBuf,
    entries: &[(OsString, FileType)],
    depth: usize,
    out: &mut Discovery,
) {
    if let Some((name, ft)) = pick_skill(entries) {
        let rel_file = rel.join(name);
        let verdict = if ft.is_symlink() {
            check_symlink(&root.join(&rel_file), canon)
        } else if ft.is_file() {
            Ok(())
        } else {
            Err("not a regular file".to_owned())
        };
        match verdict {
            Ok(()) => out.packages.push(rel.clone()),
            Err(reason) => out.refused.push((slash_path(&rel_file), reason)),
        }
    }
    if depth >= MAX_DEPTH {
        return;
    }
    for (name, ft) in entries {
        if !ft.is_dir() || skip_dir(name) {
            continue;
        }
        let sub = rel.join(name);
        match read_sorted(&root.join(&sub)) {
            Ok(e) => walk(root, canon, sub, &e, depth + 1, out),
            Err(e) => out
                .refused
                .push((slash_path(&sub), format!("cannot read directory: {e}"))),
        }
    }
}

/// Whether a directory name is never walked: hidden names (`.git`, ...) and [`SKIP_DIRS`].
pub(crate) fn skip_dir(name: &OsString) -> bool {
    let n = name.to_string_lossy();
    n.starts_with('.') || SKIP_DIRS.contains(&n.as_ref())
}

/// Directory entries with their (not followed) file types, sorted by name.
pub(crate) fn read_sorted(dir: &Path) -> io::Result<Vec<(OsString, FileType)>> {
    let mut v = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        v.push((e.file_name(), e.file_type()?));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// The package file among `entries`: `SKILL.md` if present, else the first name equal to it
/// ignoring ASCII case. Directories never count.
pub(crate) fn pick_skill(entries: &[(OsString, FileType)]) -> Option<&(OsString, FileType)> {
    let candidates = || entries.iter().filter(|(_, ft)| !ft.is_dir());
    candidates().find(|(n, _)| n == "SKILL.md").or_else(|| {
        candidates().find(|(n, _)| {
            n.to_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("SKILL.md"))
        })
    })
}

/// The package file of `dir` (see [`pick_skill`]).
pub(crate) fn skill_file(dir: &Path) -> io::Result<Option<(OsString, FileType)>> {
    Ok(pick_skill(&read_sorted(dir)?).cloned())
}

/// `Ok` when the symlink at `path` resolves to a regular file inside `canon_root` (already
/// canonical); otherwise the reason in words.
pub(crate) fn check_symlink(path: &Path, canon_root: &Path) -> Result<(), String> {
    let target = fs::canonicalize(path).map_err(|e| format!("broken symlink: {e}"))?;
    if !target.starts_with(canon_root) {
        return Err(format!(
            "symlink points outside the library root (to {})",
            target.display()
        ));
    }
    if !target.is_file() {
        return Err("symlink target is not a regular file".to_owned());
    }
    Ok(())
}

/// `/`-separated form of a relative path.
pub(crate) fn slash_path(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, s: &str) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, s).unwrap();
    }

    #[test]
    fn finds_nested_packages_sorted_and_skips_hidden() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(&r.join("b/SKILL.md"), "x");
        write(&r.join("a/SKILL.md"), "x");
        write(&r.join("a/inner/skill.md"), "x");
        write(&r.join(".git/x/SKILL.md"), "x");
        write(&r.join("node_modules/p/SKILL.md"), "x");
        write(&r.join("c/README.md"), "x");
        let d = discover(r).unwrap();
        let got: Vec<_> = d.packages.iter().map(|p| slash_path(p)).collect();
        assert_eq!(got, ["a", "a/inner", "b"]);
        assert!(d.refused.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlink_escaping_root_is_refused() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        let lib = t.path().join("lib");
        write(&outside.join("SKILL.md"), "---\nname: evil\n---\n");
        write(&lib.join("ok/SKILL.md"), "x");
        write(&lib.join("shared/real.md"), "x");
        fs::create_dir_all(lib.join("evil")).unwrap();
        symlink(outside.join("SKILL.md"), lib.join("evil/SKILL.md")).unwrap();
        fs::create_dir_all(lib.join("inside")).unwrap();
        symlink(lib.join("shared/real.md"), lib.join("inside/SKILL.md")).unwrap();
        symlink(&outside, lib.join("linkdir")).unwrap();
        let d = discover(&lib).unwrap();
        let got: Vec<_> = d.packages.iter().map(|p| slash_path(p)).collect();
        assert_eq!(got, ["inside", "ok"]);
        assert_eq!(d.refused.len(), 1);
        assert_eq!(d.refused[0].0, "evil/SKILL.md");
        assert!(d.refused[0].1.contains("outside the library root"));
    }

    #[test]
    fn root_package_and_unreadable_root() {
        let t = tempfile::tempdir().unwrap();
        write(&t.path().join("SKILL.md"), "x");
        let d = discover(t.path()).unwrap();
        assert_eq!(d.packages, [PathBuf::new()]);
        assert!(discover(&t.path().join("missing")).is_err());
    }
}
