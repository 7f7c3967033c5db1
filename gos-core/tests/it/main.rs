//! The integration tests of gos-core, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod dense_index;
mod query_handling;
