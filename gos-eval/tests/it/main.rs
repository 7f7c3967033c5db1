//! The integration tests of gos-eval, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod harness;
