//! Paths of the repository the tests read: its root, `fixtures/` and `../shared/data`.

use crate::skip::{Resource, skip};
use std::path::{Path, PathBuf};

/// The repository root (the directory of the workspace `Cargo.toml`).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("gos-testkit lies one level below the repository root")
        .to_path_buf()
}

/// `fixtures/`: the embedded fixture library (`fixtures/library`), its tasks
/// (`fixtures/tasks.jsonl`) and the golden manifest.
pub fn fixtures() -> PathBuf {
    repo().join("fixtures")
}

/// `../shared/data/<sub>` (the real library and the odd skills, next to the checkout), or
/// `None` after a visible skip when it is absent (a failure with `GOS_REQUIRE_DATA=1`).
pub fn shared_data(sub: &str) -> Option<PathBuf> {
    let dir = repo().join("../shared/data").join(sub);
    if dir.exists() {
        return Some(dir);
    }
    skip(
        Resource::SharedData,
        &format!("needs ../shared/data/{sub} (the real data next to the checkout)"),
    );
    None
}
