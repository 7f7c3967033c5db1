//! Errors of the evaluation harness.

use std::path::PathBuf;

/// Result of a harness operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong while loading tasks, parsing arms, running them or writing the report.
/// Each variant's message names the file, line, task or arm involved; a wrapped error is the
/// [`std::error::Error::source`], not repeated in the message (print the chain, e.g. with
/// anyhow's `{:#}`, to see both).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An arm name that does not parse (`MODE/SEEDS[/RERANKER]`).
    #[error("arm `{spec}`: {reason}")]
    Arm {
        /// The arm as written.
        spec: String,
        /// Why it is refused.
        reason: String,
    },
    /// The same arm is listed twice (after normalization, e.g. `reverse` and `reverse/lexical`).
    #[error("arm `{0}` is listed twice")]
    DuplicateArm(String),
    /// The arm list is empty.
    #[error("the arm list names no arm")]
    NoArms,
    /// Reading or writing a file failed.
    #[error("{action} {}", path.display())]
    Io {
        /// What was being done, e.g. `reading task file`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line of a task file is not a valid task.
    #[error("{at}: {reason}")]
    TaskLine {
        /// `FILE:LINE` (1-based line).
        at: String,
        /// What is wrong with the line.
        reason: String,
    },
    /// A task file holds no task.
    #[error("{}: no tasks", .0.display())]
    NoTasks(PathBuf),
    /// An arm needs a model the run was not given.
    #[error("{0}")]
    MissingModel(String),
    /// Retrieval (or query embedding) of one task failed.
    #[error("{context}")]
    Retrieve {
        /// The task and arm, e.g. ``task `t1`, arm reverse/lexical``.
        context: String,
        /// The retrieval error.
        source: gos_core::Error,
    },
    /// Loading the query encoder failed.
    #[error("{context}")]
    Encoder {
        /// What was being loaded, and how to fix it.
        context: String,
        /// The model error.
        source: gos_core::Error,
    },
    /// Serializing the report failed.
    #[error("serializing the report")]
    Json(#[from] serde_json::Error),
    /// The peer program failed or printed something that is not a ranking
    /// ([`crate::peer`]).
    #[error("peer {}: {reason}", program.display())]
    Peer {
        /// The program.
        program: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A parameter sweep or cross-validation request that cannot run ([`crate::cv`]).
    #[error("{0}")]
    Sweep(String),
    /// Drawing a plot failed.
    #[error("drawing {}: {message}", path.display())]
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// The drawing backend's message.
        message: String,
    },
}
