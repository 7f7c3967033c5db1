//! gos as a long-lived service: one open workspace, its query encoder and a ready retriever,
//! served to agents over the Model Context Protocol ([`mcp`], on stdio or streamable HTTP)
//! and to programs over an HTTP JSON API ([`http`]).
//!
//! The served state ([`state::ServerState`]) is immutable and swapped whole: a request takes
//! the current [`state::Loaded`] and finishes on it, while [`reload`] re-opens the workspace
//! after a rebuild (a file watch on its parent folder, or SIGHUP) and swaps the new one in. A
//! workspace that fails to open leaves the old one serving. Since nothing is written while
//! serving, N replicas over copies of one workspace serve N times the load (docs/deploy.md).
//!
//! What each interface returns is built once, here: the bundle document of
//! [`bundle::bundle_json`] is also what `gos retrieve --json` prints.

#![warn(missing_docs)]

pub mod bundle;
pub mod error;
pub mod guard;
pub mod http;
pub mod mcp;
pub mod page;
pub mod reload;
pub mod request;
pub mod skill_paths;
pub mod skills;
pub mod skills_ext;
pub mod staged;
pub mod state;

pub use error::{RequestError, ServerError};
pub use request::Limits;
pub use state::{Loaded, ServeConfig, ServerState};
