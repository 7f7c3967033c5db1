//! Errors of the server library: opening a workspace, and bad requests.

use std::path::PathBuf;

/// Why a workspace could not be opened or served.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The workspace did not open (missing, wrong format version, inconsistent files).
    #[error("opening workspace {path}: {source}")]
    Open {
        /// The workspace directory.
        path: PathBuf,
        /// What gos-core reported.
        source: gos_core::Error,
    },
    /// The workspace has skill vectors but their sentence encoder did not load.
    #[error(
        "loading the query encoder of {path}: {source} (pass --model-dir or set GOS_MODEL_DIR, or serve with --lexical)"
    )]
    Encoder {
        /// The workspace directory.
        path: PathBuf,
        /// What gos-core reported.
        source: gos_core::Error,
    },
    /// An I/O error outside the workspace files (binding a socket, watching a folder).
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file watcher could not start.
    #[error("watching {path}: {source}")]
    Watch {
        /// The watched directory.
        path: PathBuf,
        /// The watcher's error.
        source: notify::Error,
    },
}

/// A request the server refuses or cannot answer: a stable machine-readable `code` and a
/// sentence for people. HTTP maps it to `{"error": {"code", "message"}}` with
/// [`RequestError::http_status`]; MCP to a tool result with `isError: true`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    /// `invalid_request`, `empty_query`, `query_too_long`, `out_of_range`, `unknown_skill`,
    /// `unknown_mode` or `internal`.
    pub code: &'static str,
    /// What was wrong and how to fix it.
    pub message: String,
    /// Close matches, for `unknown_skill` (empty otherwise).
    pub close_matches: Vec<String>,
}

impl RequestError {
    /// An error with `code` and `message` and no close matches.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        RequestError {
            code,
            message: message.into(),
            close_matches: Vec::new(),
        }
    }

    /// The HTTP status of the error: 404 for `unknown_skill`, 500 for `internal`, 400 for
    /// the rest.
    pub fn http_status(&self) -> u16 {
        match self.code {
            "unknown_skill" => 404,
            "outside_library" => 403,
            "internal" => 500,
            _ => 400,
        }
    }
}
