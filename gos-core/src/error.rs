//! Typed errors of the retrieval core.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading or querying a workspace.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of the workspace could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// A JSON document of the workspace is malformed.
    #[error(
        "{path}: the workspace is damaged (this file is not valid JSON: {source}); rebuild it with `gos build LIBRARY -w WORKSPACE`"
    )]
    Json {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: serde_json::Error,
    },
    /// The directory is not a gos workspace.
    #[error(
        "{path}: not a gos workspace (no workspace.json); build one with `gos build LIBRARY -w {path}`"
    )]
    NotAWorkspace {
        /// Directory given.
        path: PathBuf,
    },
    /// The workspace was written by a different format version.
    #[error(
        "{path}: workspace format version {found} is not supported (this gos reads version {expected}); rebuild it with `gos build LIBRARY -w {path}`"
    )]
    FormatVersion {
        /// Workspace directory.
        path: PathBuf,
        /// Version found on disk.
        found: u32,
        /// Version this build of gos reads.
        expected: u32,
    },
    /// The workspace's files disagree with each other (e.g. the graph names an unknown node).
    #[error(
        "{path}: the workspace is damaged or incomplete ({reason}); rebuild it with `gos build LIBRARY -w WORKSPACE`"
    )]
    Inconsistent {
        /// Workspace file concerned.
        path: PathBuf,
        /// What disagrees.
        reason: String,
    },
    /// The BM25 index failed.
    #[error(
        "{path}: the lexical index cannot be used, so the workspace is damaged ({source}); rebuild it with `gos build LIBRARY -w WORKSPACE`"
    )]
    Index {
        /// Index directory.
        path: PathBuf,
        /// Underlying tantivy error.
        source: tantivy::TantivyError,
    },
    /// A neural model (sentence encoder, cross-encoder) could not be loaded or run.
    #[error("model at {path}: {reason}")]
    Model {
        /// Model directory or file concerned.
        path: PathBuf,
        /// What went wrong (missing file, unsupported architecture, tensor error).
        reason: String,
    },
    /// A build was asked to write where gos must not: a file, a symbolic link, a folder that is
    /// not a gos workspace, or a path that is, contains or lies inside the library. Nothing was
    /// written or removed.
    #[error("{path}: refusing to write a workspace here: {reason}")]
    UnsafeTarget {
        /// The workspace path given.
        path: PathBuf,
        /// Why it is refused, and what to do instead.
        reason: String,
    },
    /// Another build holds the workspace's build lock (see [`crate::workspace::lock`]).
    #[error("{path}: another build is writing this workspace: {holder}; wait for it or try again")]
    Locked {
        /// The workspace path.
        path: PathBuf,
        /// Who holds the lock, in words (process id and lock file).
        holder: String,
    },
    /// An option has a value outside its documented range.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// The library option, as `Type::field` (e.g. `StageParams::weight`) or the parameter
        /// name; front ends map it to their own flag names.
        name: &'static str,
        /// Why the value is rejected.
        reason: String,
    },
}

impl Error {
    /// An error reading a workspace file: a missing file means an incomplete workspace and
    /// bytes that are not text a damaged one (both [`Error::Inconsistent`], whose message says
    /// rebuild); other failures stay I/O errors.
    pub(crate) fn read(path: &std::path::Path, source: std::io::Error) -> Self {
        let reason = match source.kind() {
            std::io::ErrorKind::NotFound => Some("the file is missing"),
            std::io::ErrorKind::InvalidData => Some("the file is not valid UTF-8 text"),
            _ => None,
        };
        if let Some(reason) = reason {
            Error::Inconsistent {
                path: path.to_path_buf(),
                reason: reason.into(),
            }
        } else {
            Error::io(path, source)
        }
    }

    /// Wrap an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
