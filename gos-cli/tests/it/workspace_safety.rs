//! `gos build` never deletes or moves what it did not create: every unsafe `-w` is refused with
//! a message, and the user's files are byte-for-byte where they were. Real directories in a
//! temporary folder, the real binary.

use crate::util::{gos, repo};
use std::path::{Path, PathBuf};
use std::process::Output;

fn build(library: &Path, ws: &Path, extra: &[&str]) -> Output {
    gos()
        .args(["build", "--quiet", "--no-embed"])
        .args(extra)
        .arg("-w")
        .arg(ws)
        .arg(library)
        .output()
        .unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes, sorted: a snapshot to compare after a refused build.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                out.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn assert_refused(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "build was not refused: {stderr}");
    assert!(
        stderr.contains(needle),
        "message lacks {needle:?}: {stderr}"
    );
}

#[test]
fn unsafe_workspace_targets_are_refused_and_nothing_is_lost() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    copy_tree(&repo().join("fixtures/library"), &lib);
    let user = tmp.path().join("documents");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("thesis.tex"), "chapter one").unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "my notes").unwrap();
    let before = snapshot(tmp.path());

    assert_refused(&build(&lib, &user, &[]), "not a gos workspace");
    assert_refused(&build(&lib, &file, &[]), "is a file");
    assert_refused(&build(&lib, &lib, &[]), "library itself");
    assert_refused(&build(&lib, tmp.path(), &[]), "contains the library");
    assert_refused(&build(&lib, &lib.join("geo"), &[]), "inside the library");
    assert_refused(&build(&lib, &lib.join("ws"), &[]), "inside the library");
    // --force never overrides ownership.
    assert_refused(&build(&lib, &user, &["--force"]), "not a gos workspace");

    assert_eq!(
        snapshot(tmp.path()),
        before,
        "a refused build changed files"
    );
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with('.')),
        "a refused build left {names:?}"
    );
}

#[test]
fn an_empty_library_does_not_replace_a_full_workspace_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let out = build(&repo().join("fixtures/library"), &ws, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read(ws.join("manifest.json")).unwrap();

    let empty = tmp.path().join("empty-lib");
    std::fs::create_dir(&empty).unwrap();
    let out = build(&empty, &ws, &[]);
    assert_refused(&out, "holds a workspace of 36 skills");
    assert_refused(&out, "--force");
    assert_eq!(std::fs::read(ws.join("manifest.json")).unwrap(), manifest);

    // A library whose packages are all broken counts as empty too.
    let broken = tmp.path().join("broken-lib");
    for name in ["a", "b", "c"] {
        std::fs::create_dir_all(broken.join(name)).unwrap();
        std::fs::write(broken.join(name).join("SKILL.md"), "").unwrap();
    }
    assert_refused(&build(&broken, &ws, &[]), "0 usable packages of 3");
    assert_eq!(std::fs::read(ws.join("manifest.json")).unwrap(), manifest);

    let out = build(&empty, &ws, &["--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.join("workspace.json")).unwrap()).unwrap();
    assert_eq!(info["skills"], 0);
}

#[test]
fn an_empty_directory_and_an_existing_workspace_are_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let lib = repo().join("fixtures/library");
    for _ in 0..2 {
        let out = build(&lib, &ws, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(ws.join("workspace.json").is_file());
    }
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // The build lock file stays beside the workspace (docs/robustness.md); nothing else.
    assert_eq!(
        left,
        vec![".ws.lock".to_string(), "ws".to_string()],
        "staging or old folders left behind"
    );
}
