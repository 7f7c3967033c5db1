//! Live rebuilds: [`watch`] rebuilds a workspace after each burst of changes under its roots,
//! keeping the parsed form of unchanged packages between builds in a [`ParseCache`].
//!
//! A rebuild parses only packages the cache does not hold (new ones, and those under a changed
//! path, which [`ParseCache::invalidate`] drops); the embedding stage reuses the vectors of
//! every unchanged text from the previous workspace, and the LLM response cache is carried
//! over, so only changed packages cost encoder or LLM time. Each rebuild writes a complete
//! workspace and swaps it in with one rename, so readers see the old or the new one, never a
//! mix.
//!
//! A rebuild after an edit writes its BM25 index as several unmerged segments
//! ([`ParseCache::set_live_index`]), which saves the merge of the whole index (about 0.4 s of
//! a 1.4 s rebuild of the real library) but scores within the last bit of a full build and
//! answers lexical queries more slowly. Once no change has come for [`COMPACT_AFTER`], the
//! loop rebuilds once more from the caches with one segment (a *compaction*), so the
//! workspace a session leaves is the one a full build writes.

use crate::build::{BuildOptions, build_library_cached};
use crate::error::BuildError;
use crate::llm::LlmOptions;
use crate::progress::BuildProgress;
use crate::report::BuildReport;
use crate::roots::LibrarySpec;
use notify_debouncer_mini::new_debouncer;
use notify_debouncer_mini::notify::RecursiveMode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// Least quiet time after a live rebuild ends before [`watch`] compacts the workspace's index
/// to one segment (at least twice the debounce interval, too): long enough that edits a second
/// or two apart are not each followed by a compaction, short enough that an idle session soon
/// answers at full speed.
pub const COMPACT_AFTER: Duration = Duration::from_secs(2);

pub use crate::parse_cache::{CacheStats, ParseCache};

/// One rebuild of [`watch`]: its result and the changed paths that caused it (empty for the
/// first build).
pub struct Rebuild {
    /// The build's report, or why it failed (the previous workspace then stays in place).
    pub result: Result<BuildReport, BuildError>,
    /// Parse cache use of this build.
    pub cache: CacheStats,
    /// Paths reported changed since the previous build, sorted.
    pub changed: Vec<PathBuf>,
    /// Whether this build was a compaction: no change, the index merged into one segment
    /// after a live rebuild (see the module docs).
    pub compaction: bool,
}

/// Build the workspace, then rebuild it after each burst of changes under the roots (events
/// closer than `debounce` are merged) and compact it once the changes stop (see the module
/// docs), calling `on_build` after every build, until `stop` is set (checked every 100 ms)
/// or `on_build` returns `false`.
///
/// # Errors
/// [`BuildError::Library`] when a root cannot be watched. Failed builds do not end the loop;
/// they are passed to `on_build`.
pub fn watch(
    opts: &BuildOptions,
    library: &LibrarySpec,
    llm: Option<&LlmOptions>,
    progress: &dyn BuildProgress,
    debounce: Duration,
    stop: &AtomicBool,
    mut on_build: impl FnMut(&Rebuild) -> bool,
) -> Result<(), BuildError> {
    let cache = ParseCache::default();
    let (tx, rx) = mpsc::channel();
    let mut debouncer = new_debouncer(debounce, tx).map_err(|e| BuildError::Library {
        path: opts.workspace.clone(),
        reason: format!("cannot start the file watcher: {e}"),
    })?;
    for root in &library.roots {
        // Watch the canonical path, so event paths compare with the cache's keys even for a
        // deleted file (which cannot be canonicalized any more).
        let path = root
            .path
            .canonicalize()
            .unwrap_or_else(|_| root.path.clone());
        debouncer
            .watcher()
            .watch(&path, RecursiveMode::Recursive)
            .map_err(|e| BuildError::Library {
                path: root.path.clone(),
                reason: format!("cannot watch: {e}"),
            })?;
    }
    let roots: Vec<PathBuf> = library
        .roots
        .iter()
        .map(|r| r.path.canonicalize().unwrap_or_else(|_| r.path.clone()))
        .collect();
    let mut changed: Vec<PathBuf> = Vec::new();
    // Whether the next build follows an edit (a live one), and whether the workspace in
    // place has a live index to compact.
    let mut after_edit = false;
    let mut live_in_place = false;
    loop {
        cache.set_live_index(after_edit);
        let compaction = !after_edit && live_in_place;
        // Taken before the build: a change made while it runs differs from it and triggers
        // the next build.
        let before = snapshot(&roots);
        let result =
            build_library_cached(opts, library, llm, progress, Some(&cache), true, &|_| {});
        // A failed compaction is not retried until the next edit: the live workspace stays.
        if result.is_ok() || compaction {
            live_in_place = after_edit && result.is_ok() && cache.wrote_live_index();
        }
        let rebuild = Rebuild {
            result,
            cache: cache.take_stats(),
            compaction,
            changed: std::mem::take(&mut changed),
        };
        if !on_build(&rebuild) {
            return Ok(());
        }
        // Wait for the next burst, or compact once it is quiet.
        let quiet_since = Instant::now();
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if live_in_place && quiet_since.elapsed() >= COMPACT_AFTER.max(2 * debounce) {
                after_edit = false;
                break;
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(events)) => {
                    let mut events = events;
                    // Gather whatever else arrived in the same burst.
                    while let Ok(more) = rx.try_recv() {
                        events.extend(more.into_iter().flatten());
                    }
                    for e in events {
                        // Canonical form, as the cache keys are; a deleted path is taken as is.
                        let p = e.path.canonicalize().unwrap_or(e.path);
                        // The watcher also reports files being opened (the build reads them):
                        // only a path whose modification time, length or existence differs
                        // from the snapshot counts as a change.
                        if before.get(&p) != stamp(&p).as_ref() {
                            cache.invalidate(&p);
                            changed.push(p);
                        }
                    }
                    if changed.is_empty() {
                        continue;
                    }
                    changed.sort();
                    changed.dedup();
                    after_edit = true;
                    break;
                }
                Ok(Err(e)) => tracing::warn!("file watcher: {e}"),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
    }
}

/// Modification time and length of a file or folder, `None` when it does not exist.
type Stamp = (Option<SystemTime>, u64);

fn stamp(p: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(p)
        .ok()
        .map(|m| (m.modified().ok(), m.len()))
}

/// The [`Stamp`] of every file and folder under `roots` (hidden ones included, symlinks not
/// followed).
fn snapshot(roots: &[PathBuf]) -> HashMap<PathBuf, Stamp> {
    let mut out = HashMap::new();
    for root in roots {
        let walk = ignore::WalkBuilder::new(root)
            .standard_filters(false)
            .follow_links(false)
            .build();
        for entry in walk.flatten() {
            if let Some(s) = stamp(entry.path()) {
                out.insert(entry.path().to_path_buf(), s);
            }
        }
    }
    out
}
