//! Model directories and the random-weight test models.

use crate::paths::repo;
use crate::skip::{Resource, skip};
use std::path::{Path, PathBuf};

pub use gos_models::random::*;

/// The all-MiniLM-L6-v2 directory (`GOS_MODEL_DIR`, else `models/all-MiniLM-L6-v2` from
/// `scripts/setup-model.sh`), or `None` after a visible skip when it holds no
/// `model.safetensors` (a failure with `GOS_REQUIRE_MODEL=1`, as `.ci/run` sets).
pub fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GOS_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("models/all-MiniLM-L6-v2"));
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    skip(
        Resource::Model,
        &format!(
            "needs the sentence encoder at {} (scripts/setup-model.sh)",
            dir.display()
        ),
    );
    None
}

/// Write a tiny random-weight BERT classifier (seed `seed`, 512 positions, the tiny BERT
/// tokenizer) to `dir`: the embedding model and the cross-encoder of the pipeline tests.
///
/// # Panics
/// When `dir` cannot be written.
pub fn write_tiny_bert(dir: &Path, seed: u64) {
    use gos_models::cross_encoder::Architecture;
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::Bert, vocab, seed);
    spec.max_positions = 512;
    write_random_classifier(dir, &spec, &tok)
        .unwrap_or_else(|e| panic!("writing a tiny BERT to {}: {e}", dir.display()));
}
