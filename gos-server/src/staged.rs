//! Retrieval in stages, so a long request can report progress and be stopped.
//!
//! A retrieval runs as at most two stages on the blocking pool: encoding the query with the
//! sentence encoder (only when the seeds need vectors; it is most of a hybrid retrieval's
//! time, about 40 to 60 ms on a 2-core AMD EPYC, docs/performance.md), then ranking and
//! hydration ([`gos_core::Retriever::retrieve_embedded`]). Before each stage the retrieval
//! asks its [`Control`] whether to go on, and tells it which stage starts:
//!
//! - **Cancellation.** [`Control::cancel`] (MCP's `notifications/cancelled`, an HTTP client
//!   that went away, the request timeout) makes the next check fail with the error code
//!   `cancelled`, so the stages not yet started never run. A stage already running finishes
//!   (gos-core offers no finer point to stop at), so a cancelled request costs at most one
//!   stage's CPU.
//! - **Progress.** A control made by [`Control::with_progress`] sends a [`Step`] at the start
//!   of each stage and one when the retrieval is done, in order, over a channel the async side
//!   forwards (MCP's `notifications/progress` when the request carried a `progressToken`).
//!
//! The result is the one [`gos_core::Retriever::retrieve`] gives: the stages call the same
//! encoder on the same capped text, and the measured encoding time is put back into
//! `timings.encode` and `timings.total`.

use crate::error::RequestError;
use crate::state::Loaded;
use gos_core::RetrieveOptions;
use gos_core::retrieve::Retrieval;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;

/// A stage of one retrieval, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The sentence encoder embeds the query (hybrid and dense seeds only).
    EncodeQuery,
    /// Seeds, graph operation, reranking and hydration.
    Rank,
    /// The retrieval has finished.
    Done,
}

impl Stage {
    /// What the stage does, in words (the `message` of a progress notification).
    pub fn message(self) -> &'static str {
        match self {
            Stage::EncodeQuery => "encoding the query",
            Stage::Rank => "ranking and hydrating the skills",
            Stage::Done => "done",
        }
    }
}

/// One progress report: `stage` starts after `done` of `total` stages finished
/// (`done == total` with [`Stage::Done`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The stage that starts (or [`Stage::Done`]).
    pub stage: Stage,
    /// Stages finished so far.
    pub done: u32,
    /// Stages of this retrieval: 2 when the query is encoded, else 1.
    pub total: u32,
}

/// How a staged retrieval is watched and stopped. Cheap to clone; clones share the flag and
/// the channel.
#[derive(Debug, Clone, Default)]
pub struct Control {
    cancelled: Arc<AtomicBool>,
    progress: Option<mpsc::UnboundedSender<Step>>,
}

impl Control {
    /// A control without progress reports.
    pub fn new() -> Self {
        Control::default()
    }

    /// A control that sends a [`Step`] at each stage, and the receiving end.
    pub fn with_progress() -> (Self, mpsc::UnboundedReceiver<Step>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let control = Control {
            cancelled: Arc::default(),
            progress: Some(tx),
        };
        (control, rx)
    }

    /// Stop the retrieval at its next stage.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether [`Control::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Called at the start of `step.stage`: report it, or fail when cancelled.
    ///
    /// # Errors
    /// `cancelled`, naming the stage that did not run.
    fn enter(&self, step: Step) -> Result<(), RequestError> {
        if self.is_cancelled() {
            return Err(RequestError::new(
                "cancelled",
                format!(
                    "the request was cancelled before {} (stage {} of {})",
                    step.stage.message(),
                    step.done + 1,
                    step.total
                ),
            ));
        }
        self.report(step);
        Ok(())
    }

    /// Send `step` to the progress channel, if there is one.
    fn report(&self, step: Step) {
        if let Some(tx) = &self.progress {
            // The receiver is gone once the async side stopped listening; nothing to report.
            let _ = tx.send(step);
        }
    }

    /// The guard of an async request: dropping it (the request future was dropped: the HTTP
    /// client went away, or a timeout fired) cancels the retrieval.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Cancels its [`Control`] when dropped, unless [`CancelOnDrop::disarm`] was called.
#[derive(Debug)]
pub struct CancelOnDrop(Control);

impl CancelOnDrop {
    /// The request finished: dropping the guard no longer cancels anything.
    pub fn disarm(self) {
        std::mem::forget(self);
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Retrieve `query` on `loaded` in stages under `control` (module docs).
///
/// # Errors
/// `cancelled` when the control was cancelled before a stage; `internal` when encoding or
/// retrieval fails.
pub fn retrieve(
    loaded: &Loaded,
    query: &str,
    opts: &RetrieveOptions,
    control: &Control,
) -> Result<Retrieval, RequestError> {
    let retriever = loaded.retriever();
    let encode = retriever.seed_source(opts.seeds.source).needs_vectors();
    let total = if encode { 2 } else { 1 };
    let internal =
        |e: gos_core::Error| RequestError::new("internal", format!("retrieval failed: {e}"));
    let mut encode_ms = 0.0;
    let vectors = if encode {
        control.enter(Step {
            stage: Stage::EncodeQuery,
            done: 0,
            total,
        })?;
        let t = Instant::now();
        let v = retriever
            .embed_query(query, opts.seeds.query_chunks)
            .map_err(internal)?;
        encode_ms = t.elapsed().as_secs_f64() * 1e3;
        Some(v)
    } else {
        None
    };
    control.enter(Step {
        stage: Stage::Rank,
        done: total - 1,
        total,
    })?;
    let mut r = retriever
        .retrieve_embedded(query, vectors.as_deref(), opts)
        .map_err(internal)?;
    r.timings.encode += encode_ms;
    r.timings.total += encode_ms;
    control.report(Step {
        stage: Stage::Done,
        done: total,
        total,
    });
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_control_refuses_the_next_stage_and_names_it() {
        let (control, mut rx) = Control::with_progress();
        let step = Step {
            stage: Stage::Rank,
            done: 1,
            total: 2,
        };
        control.enter(step).unwrap();
        assert_eq!(rx.try_recv().unwrap(), step);
        control.clone().cancel();
        let e = control.enter(step).unwrap_err();
        assert_eq!(e.code, "cancelled");
        assert_eq!(
            e.message,
            "the request was cancelled before ranking and hydrating the skills (stage 2 of 2)"
        );
        assert!(rx.try_recv().is_err(), "a refused stage is not reported");
    }

    #[test]
    fn the_drop_guard_cancels_unless_disarmed() {
        let control = Control::new();
        control.cancel_on_drop().disarm();
        assert!(!control.is_cancelled());
        drop(control.cancel_on_drop());
        assert!(control.is_cancelled());
    }
}
