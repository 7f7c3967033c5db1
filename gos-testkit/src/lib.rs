//! Test helpers shared by the integration tests of every gos crate (dev-only, `publish = false`;
//! no release build links it).
//!
//! - [`paths`]: the repository root, `fixtures/`, the real data in `../shared/data`.
//! - [`mod@skip`]: a missing resource (the sentence encoder, the MCP SDK, chromium, the real data)
//!   is reported as a visible `SKIPPED: <test>: <reason>` line on the terminal, or a failure
//!   where the matching `GOS_REQUIRE_*` variable is `1` (as `.ci/run` sets them).
//! - [`launcher`]: the `gos` binary as a [`std::process::Command`] with no `GOS_*` variable
//!   inherited from the shell ([`gos!`] in gos-cli's tests).
//! - [`workspace`]: the lexical workspace of `fixtures/library`, built once per test binary.
//! - [`models`]: the sentence-encoder directory, and gos-models' random-weight test models.
//!
//! Tests run as threads of one process per crate (`tests/it/main.rs`), so nothing here
//! changes process-global state (environment, current directory): settings go to the spawned
//! command instead.

pub mod launcher;
pub mod models;
pub mod paths;
pub mod skip;
pub mod workspace;

pub use launcher::gos_command;
pub use models::model_dir;
pub use paths::{fixtures, repo, shared_data};
pub use skip::{Resource, skip};
pub use workspace::fixtures_workspace;
