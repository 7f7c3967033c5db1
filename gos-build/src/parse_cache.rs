//! The parse cache of live rebuilds: the parsed form of each package, by package directory,
//! kept between the builds of one session ([`crate::watch`]) so that a rebuild parses only
//! what changed.
//!
//! It sits apart from the build pipeline and from the watch loop: [`crate::build`] reads and
//! fills it, [`crate::watch`] owns one and drops the entries under changed paths.

use crate::declared::Declaration;
use crate::normalize::Normalized;
use crate::stage_cache::StageCache;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What parsing one package gave: the node, its repairs and declarations, or the reason it was
/// skipped.
pub(crate) type ParseResult = Result<(Normalized, Vec<String>, Vec<Declaration>), String>;

/// Parsed packages by absolute package directory, kept between builds of one session.
///
/// It also holds the caches of the later stages (the private `stage_cache` module), which key
/// their entries by content rather than by path, so [`ParseCache::invalidate`] leaves them
/// alone.
#[derive(Default)]
pub struct ParseCache {
    entries: Mutex<HashMap<PathBuf, ParseResult>>,
    pub(crate) stages: StageCache,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

/// How much of a build came from the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Packages taken from the cache.
    pub reused: usize,
    /// Packages parsed.
    pub parsed: usize,
}

impl ParseCache {
    /// The cached result for the package at `dir`.
    pub(crate) fn get(&self, dir: &Path) -> Option<ParseResult> {
        let hit = self.entries.lock().ok()?.get(dir).cloned();
        match &hit {
            Some(_) => self.hits.fetch_add(1, Ordering::Relaxed),
            None => self.misses.fetch_add(1, Ordering::Relaxed),
        };
        hit
    }

    /// Remember the result for the package at `dir`.
    pub(crate) fn put(&self, dir: PathBuf, r: ParseResult) {
        if let Ok(mut m) = self.entries.lock() {
            m.insert(dir, r);
        }
    }

    /// Drop every package whose directory holds `path` or lies under it (a changed file, or a
    /// removed or renamed folder). Returns how many were dropped.
    pub fn invalidate(&self, path: &Path) -> usize {
        let Ok(mut m) = self.entries.lock() else {
            return 0;
        };
        let before = m.len();
        m.retain(|dir, _| !(path.starts_with(dir) || dir.starts_with(path)));
        before - m.len()
    }

    /// Whether the following builds with this cache write their BM25 index as several
    /// unmerged segments ([`gos_core::index::lexical::SegmentLayout::Live`]): a faster
    /// rebuild (about 0.4 s less on the real library) whose scores may differ from a full
    /// build's in the last bit. [`crate::watch::watch`] uses it for the rebuilds after an
    /// edit and rebuilds with one segment once the edits stop. Off by default.
    pub fn set_live_index(&self, live: bool) {
        self.stages
            .live_index
            .store(live, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the last build with this cache wrote its BM25 index as unmerged segments (see
    /// [`ParseCache::set_live_index`]; a build that reads the BM25 neighbour rows again
    /// writes one segment even then).
    pub fn wrote_live_index(&self) -> bool {
        self.stages
            .wrote_live
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Counters since the last call (then reset).
    pub fn take_stats(&self) -> CacheStats {
        CacheStats {
            reused: self.hits.swap(0, Ordering::Relaxed),
            parsed: self.misses.swap(0, Ordering::Relaxed),
        }
    }
}
