//! Dense and hybrid seeding options of `gos retrieve` and `gos eval` mapped to library options.

pub use crate::args::DenseArgs;
use gos_core::RetrieveOptions;

impl DenseArgs {
    /// Set the fusion, dense weight and query passages of `opts` (the flags' parsers already
    /// checked their values).
    pub fn apply(&self, opts: &mut RetrieveOptions) {
        opts.seeds.fusion = self.fusion;
        opts.seeds.query_chunks = self.query_chunks;
        opts.rerank.dense = self.dense_weight;
    }
}
