//! The errors of the builder: [`BuildError`] aborts a build, [`ParseError`] leaves one package
//! out (a broken package never aborts the build: it is skipped and reported).

use std::path::PathBuf;

/// Errors that abort a build (a broken package never does: it is skipped and reported).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The library root cannot be read.
    #[error("library {path}: {reason}")]
    Library {
        /// Library root.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The library yielded no usable package, or skipped more than half of what it found, and
    /// the target holds a non-empty workspace: replacing it would lose that workspace for a
    /// likely mistake (wrong folder, unreadable files). [`crate::BuildOptions::force`] overrides.
    #[error(
        "{path} holds a workspace of {previous} skills, and this build found {usable} usable packages of {discovered} ({skipped} skipped); \
         keeping the workspace as it is (check the library path, or pass --force to replace it)"
    )]
    WouldEmpty {
        /// Workspace directory.
        path: PathBuf,
        /// Skills in the existing workspace.
        previous: usize,
        /// Packages this build could use.
        usable: usize,
        /// Packages this build found.
        discovered: usize,
        /// Packages this build skipped.
        skipped: usize,
    },
    /// Writing the workspace failed.
    #[error(transparent)]
    Workspace(#[from] gos_core::Error),
    /// Writing a workspace file failed.
    #[error("{path}: {source}")]
    Io {
        /// File concerned.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
}

/// Why a package could not be used. `Display` names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The SKILL.md could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The package cannot become a skill node (empty file, binary content, no usable name...).
    #[error("{path}: {reason}")]
    Unusable {
        /// File concerned.
        path: PathBuf,
        /// What is wrong, in words.
        reason: String,
    },
}
