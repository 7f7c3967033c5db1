//! The integration tests of gos-models, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod dense_encoder;
