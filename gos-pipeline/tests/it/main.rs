//! The integration tests of gos-pipeline, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod doc_vectors;
