//! Helpers shared by the `gos` binary's integration tests.

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `gos` binary under test, without a `GOS_MODEL_DIR` inherited from the environment.
pub fn gos() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gos"));
    c.env_remove("GOS_MODEL_DIR");
    c
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The all-MiniLM-L6-v2 directory (`GOS_MODEL_DIR`, else `models/` from
/// `scripts/setup-model.sh`); `None` with a SKIP message when absent, and a failure instead when
/// `GOS_REQUIRE_MODEL=1` (set by `.ci/run`).
pub fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOS_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("models/all-MiniLM-L6-v2"));
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "no sentence encoder at {} (run scripts/setup-model.sh)",
        dir.display()
    );
    assert!(
        std::env::var("GOS_REQUIRE_MODEL").as_deref() != Ok("1"),
        "{msg}"
    );
    eprintln!("SKIP: {msg}");
    None
}

/// The `gos` binary isolated from every environment setting the pipeline and model tests
/// choose by argument (`GOS_LLM_*`, `GOS_WORKSPACE`, `GOS_MODEL_DIR`, `GOS_RERANKER_DIR`).
pub fn isolated_gos() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gos"));
    for v in [
        "GOS_LLM_BASE_URL",
        "GOS_LLM_MODEL",
        "GOS_LLM_API_KEY",
        "GOS_WORKSPACE",
        "GOS_MODEL_DIR",
        "GOS_RERANKER_DIR",
    ] {
        c.env_remove(v);
    }
    c
}

/// Write a tiny random-weight BERT classifier (`seed`, 512 positions) to `dir`: the embedding
/// model and the cross-encoder of the pipeline tests.
pub fn write_tiny_bert(dir: &Path, seed: u64) {
    use gos_models::cross_encoder::Architecture;
    use gos_models::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::Bert, vocab, seed);
    spec.max_positions = 512;
    write_random_classifier(dir, &spec, &tok).unwrap();
}

/// The `pipeline.stages` trace of a `gos retrieve --pipeline --json` document.
pub fn pipeline_stages(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["pipeline"]["stages"].as_array().unwrap().clone()
}
