//! The integration tests of gos-llm, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod client_faults;
mod rewrite;
