//! Helpers shared by the `gos` binary's tests; the crate-independent ones come from gos-testkit.

use std::ffi::OsStr;
use std::process::{Command, Output};

pub use gos_testkit::models::write_tiny_bert;
pub use gos_testkit::{fixtures, model_dir, repo};

/// The `gos` binary under test with no `GOS_*` variable inherited from the environment
/// (workspace, model and reranker dirs, LLM settings): tests choose them by argument or
/// [`Command::env`].
pub fn gos() -> Command {
    gos_testkit::gos!()
}

/// `gos ARGS...`, run to completion; its status is the caller's to check.
pub fn gos_out<S: AsRef<OsStr>>(args: &[S]) -> Output {
    gos().args(args).output().expect("the gos binary runs")
}

/// `gos ARGS...`, which must succeed (the panic shows the arguments and gos's stderr).
pub fn gos_ok<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let out = gos_out(args);
    assert!(
        out.status.success(),
        "gos {:?} failed: {}",
        args.iter().map(AsRef::as_ref).collect::<Vec<&OsStr>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The `pipeline.stages` trace of a `gos retrieve --pipeline --json` document.
pub fn pipeline_stages(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["pipeline"]["stages"].as_array().unwrap().clone()
}
