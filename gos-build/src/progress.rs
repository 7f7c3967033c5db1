//! Progress reporting of a build, so a front end can draw bars while the library stays UI-free.

/// Progress callbacks, so the CLI can draw bars while the library stays UI-free.
pub trait BuildProgress: Sync {
    /// A stage starts; `total` is its number of steps when known.
    fn stage(&self, name: &str, total: Option<u64>);
    /// `n` steps of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is done.
    fn finish_stage(&self);
}

/// A [`BuildProgress`] that shows nothing.
pub struct NoProgress;

impl BuildProgress for NoProgress {
    fn stage(&self, _: &str, _: Option<u64>) {}
    fn advance(&self, _: u64) {}
    fn finish_stage(&self) {}
}
