//! Workspaces built for tests.

use crate::paths::fixtures;
use gos_build::build::NoProgress;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Build the lexical workspace (no vectors, default relations) of `library` into `workspace`.
///
/// # Panics
/// When the build fails, with the build error.
pub fn build_lexical(library: &Path, workspace: &Path) {
    build_workspace(
        &BuildOptions {
            force: false,
            library: library.to_path_buf(),
            workspace: workspace.to_path_buf(),
            relate: RelateOptions::default(),
            embed: None,
        },
        &NoProgress,
    )
    .unwrap_or_else(|e| {
        panic!(
            "building {} into {}: {e}",
            library.display(),
            workspace.display()
        )
    });
}

/// The lexical workspace of `fixtures/library` (36 skills, no vectors), built once per test
/// process into a temporary directory and shared by every test of the binary: read it, never
/// write it (a test that changes a workspace builds its own with [`build_lexical`]).
///
/// The directory is removed when the test process exits normally (an `atexit` hook); a killed
/// process leaves it in the system's temporary directory.
pub fn fixtures_workspace() -> &'static Path {
    static WS: OnceLock<PathBuf> = OnceLock::new();
    WS.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("gos-testkit-fixtures-")
            .tempdir()
            .expect("a temporary directory for the fixture workspace")
            .keep();
        let ws = dir.join("ws");
        build_lexical(&fixtures().join("library"), &ws);
        let _ = CLEANUP.set(dir);
        remove_at_exit();
        ws
    })
}

static CLEANUP: OnceLock<PathBuf> = OnceLock::new();

extern "C" fn remove_cleanup_dir() {
    if let Some(dir) = CLEANUP.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn remove_at_exit() {
    unsafe extern "C" {
        fn atexit(cb: extern "C" fn()) -> std::ffi::c_int;
    }
    // SAFETY: `atexit` is the C library's; the callback touches only a `OnceLock` that is
    // set before registration and never freed (a static).
    unsafe {
        atexit(remove_cleanup_dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_workspace_is_built_once_and_shared() {
        let first = fixtures_workspace();
        let second = std::thread::spawn(fixtures_workspace).join().unwrap();
        assert!(std::ptr::eq(first, second), "built twice");
        let ws: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(first.join("manifest.json")).unwrap())
                .unwrap();
        let skills = ws["nodes"].as_array().map(Vec::len);
        assert_eq!(skills, Some(36), "{}", first.display());
    }
}
