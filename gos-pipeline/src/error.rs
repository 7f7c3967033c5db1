//! Errors of building and running a pipeline.

use std::path::PathBuf;

/// Why a pipeline could not be read, loaded or run. LLM failures are never errors: the LLM
/// stages fall back and report it in their trace.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The name is neither a preset nor a readable file.
    #[error(
        "unknown pipeline `{0}`: use gos, skillflow, skillrouter or the path of a TOML pipeline file"
    )]
    Unknown(String),
    /// The pipeline file could not be read.
    #[error("cannot read pipeline file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The pipeline file is not a valid pipeline.
    #[error("pipeline file {path} is not a valid pipeline: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The TOML or schema error.
        reason: String,
    },
    /// The stages do not form a pipeline (order, names, values).
    #[error("pipeline `{pipeline}`: {reason}")]
    Invalid {
        /// Pipeline name.
        pipeline: String,
        /// What is wrong.
        reason: String,
    },
    /// A stage needs a model and none was given.
    #[error(
        "stage `{stage}` ({kind}) of pipeline `{pipeline}` needs {what}: pass --stage-model {stage}=DIR \
         or set `model` in the pipeline file (docs/pipelines.md lists checkpoints)"
    )]
    MissingModel {
        /// Pipeline name.
        pipeline: String,
        /// Stage name.
        stage: String,
        /// Stage kind.
        kind: &'static str,
        /// The kind of model, e.g. `an embedding model such as BAAI/bge-base-en-v1.5`.
        what: &'static str,
    },
    /// A model could not be loaded, or a stage's retrieval failed.
    #[error("stage `{stage}`: {source}")]
    Core {
        /// Stage name (or `load` / `hydrate`).
        stage: String,
        /// The retrieval library's error.
        source: gos_core::Error,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
