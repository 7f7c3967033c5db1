//! Dense and hybrid seeding options of `gos retrieve` and `gos eval` mapped to library options.

pub use crate::args::DenseArgs;
use anyhow::Result;
use gos_core::RetrieveOptions;

impl DenseArgs {
    /// Set the fusion, dense weight and query passages of `opts`.
    ///
    /// # Errors
    /// None today; kept fallible for options checked against the workspace.
    pub fn apply(&self, opts: &mut RetrieveOptions) -> Result<()> {
        opts.seeds.fusion = self.fusion;
        opts.seeds.query_chunks = self.query_chunks;
        opts.rerank.dense = self.dense_weight;
        Ok(())
    }
}
