//! Stage caches of live rebuilds: what the build's later stages computed per package or per
//! part in the previous build of one [`crate::watch`] session, kept beside the parsed packages
//! ([`crate::parse_cache::ParseCache`]) so that a rebuild after one edited package redoes
//! little more than that package's share.
//!
//! Every entry sits under a key of everything it was computed from, so a rebuild that takes
//! it gives the result a full build computes (tests
//! `a_watch_rebuild_from_the_stage_caches_equals_a_full_build` in `tests/it`):
//!
//! - near-duplicate detection: each body's shingle set and MinHash signature, by package
//!   content ([`crate::dedup`]);
//! - the workflow pass: each body's claims, by node position and package content, while the
//!   names, copy groups and options are the ones they were read with
//!   ([`crate::workflow::WorkflowCache`]);
//! - the BM25 index: its parts of [`gos_core::index::lexical::PART_DOCS`] documents, by the
//!   digest of what they index, and its segments by their parts
//!   ([`gos_core::index::lexical::PartCache`]); a rebuild between the edits of a session may
//!   write the segments unmerged ([`SegmentLayout::Live`], set by
//!   [`crate::parse_cache::ParseCache::set_live_index`]), whose scores can differ from a full
//!   build's in the last bit, so the equality above holds for rebuilds with one segment;
//! - the BM25 neighbour rows of the semantic stage, while every indexed name and description
//!   and every neighbour query is unchanged, and the semantic edges made from them while the
//!   headings are too ([`NeighbourCache`], [`bm25_semantic`]): the rows read only those
//!   fields' statistics, so most body edits leave both as they were;
//! - with skill vectors, the vector neighbour rows while the vectors are bit for bit the ones
//!   they were computed from, and the semantic edges made from them while the ids, names,
//!   descriptions and headings are too ([`vector_semantic`]): a body edit that leaves the
//!   card view (name, description, capability, types, tags, tools) and the headings as they
//!   were leaves both, and one that changes only headings leaves the rows.
//!
//! A package's content is the SHA-256 of its SKILL.md ([`gos_core::SkillNode::content_hash`]),
//! of which the parsed body is a function; the body's length is checked beside it.

use crate::dedup::DedupCache;
use crate::error::BuildError;
use crate::report::ReuseStats;
use crate::semantic::{
    SemanticOptions, SemanticStats, bm25_neighbours, semantic_edges, vector_neighbours,
};
use crate::workflow::WorkflowCache;
use gos_core::index::dense::Vectors;
use gos_core::index::lexical::{LexicalIndex, PartCache, SegmentLayout};
use gos_core::{EdgeProvenance, SkillEdge, SkillNode};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The caches of one live session (see the module docs).
#[derive(Default)]
pub(crate) struct StageCache {
    pub(crate) dedup: Mutex<DedupCache>,
    pub(crate) workflow: Mutex<WorkflowCache>,
    pub(crate) index: Mutex<PartCache>,
    pub(crate) neighbours: Mutex<NeighbourCache>,
    /// Whether the next builds may write the BM25 index with [`SegmentLayout::Live`].
    pub(crate) live_index: AtomicBool,
    /// Whether this build reads BM25 neighbour rows again (set before its index stage by
    /// [`StageCache::plan_index`]): then it writes one segment, since the rows read a live
    /// index 2.5x more slowly (real library: 2.4 s against 0.95 s).
    rows_stale: AtomicBool,
    /// Whether the last build wrote a live index (the watch compacts it once edits stop).
    pub(crate) wrote_live: AtomicBool,
}

impl StageCache {
    /// The layout the current build writes its BM25 index with: [`SegmentLayout::Live`] when
    /// live rebuilds are on and the BM25 neighbour rows are reused (see `rows_stale`).
    pub(crate) fn layout(&self) -> SegmentLayout {
        if self.live_index.load(Ordering::Relaxed) && !self.rows_stale.load(Ordering::Relaxed) {
            SegmentLayout::Live
        } else {
            SegmentLayout::One
        }
    }

    /// Before a build's index stage: whether it will read the BM25 neighbour rows again, which
    /// is when a lexical workspace (`bm25_pass`) has other neighbour queries or other indexed
    /// name and description fields ([`queries_digest`]) than the cached rows were read with.
    pub(crate) fn plan_index(&self, nodes: &[SkillNode], k: usize, bm25_pass: bool) {
        let stale = bm25_pass && lock(&self.neighbours).queries != Some(queries_digest(nodes, k));
        self.rows_stale.store(stale, Ordering::Relaxed);
    }
}

/// Digest of what the BM25 neighbour rows read besides the index's statistics: `k`, then
/// each node's name, folder, description and capability (the queries are name and
/// description; the indexed `name` field also holds the folder, the `description` field the
/// capability, `gos_build::normalize::lexical_doc_with_body`). It changes whenever the rows'
/// own key (`rows_key` in [`bm25_semantic`]) does.
fn queries_digest(nodes: &[SkillNode], k: usize) -> [u8; 32] {
    let k = (k as u64).to_le_bytes();
    let fields = nodes.iter().flat_map(|n| {
        [
            n.name.as_bytes(),
            n.folder().as_bytes(),
            n.description.value.as_bytes(),
            n.capability.value.as_bytes(),
        ]
    });
    digest([&k[..]].into_iter().chain(fields))
}

/// Neighbour rows: per node, `(neighbour, relative score)` best first.
type Rows = Vec<Vec<(usize, f32)>>;

/// The neighbour rows of the previous build (BM25 rows of a lexical workspace, vector rows of
/// one with skill vectors) and the semantic edges made from them, each
/// with the digest of what it read.
#[derive(Default)]
pub(crate) struct NeighbourCache {
    rows: Option<([u8; 32], Rows)>,
    edges: Option<([u8; 32], Vec<SkillEdge>, SemanticStats)>,
    /// Whether the rows were read from a live index ([`SegmentLayout::Live`]).
    from_live: bool,
    /// [`queries_digest`] of the rows' queries.
    queries: Option<[u8; 32]>,
    /// Vector neighbour rows with the digest of `k` and the vectors they were computed from
    /// ([`vectors_digest`]).
    vector_rows: Option<([u8; 32], Rows)>,
    /// Semantic edges from those rows, with the digest of what else they read.
    vector_edges: Option<([u8; 32], Vec<SkillEdge>, SemanticStats)>,
}

/// `m` locked; a cache poisoned by a panicked build is still consistent (its entries are
/// replaced whole), so its contents are taken as they are.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// SHA-256 of `parts`, each length-prefixed.
fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// The BM25 semantic edges of a lexical workspace ([`bm25_neighbours`], [`semantic_edges`])
/// over the index at `index`, taken from `cache` when what they read is unchanged:
///
/// - the neighbour rows read the indexed names and descriptions (`fields`, their digest in
///   node order), each node's query (its name and description) and `sem.k`; the node count
///   decides pruning and is in both;
/// - the edges read the rows, the ids, names, descriptions and headings of the nodes (the
///   shared specific terms) and the options.
///
/// `stats` gets the counters of the pass either way.
///
/// # Errors
/// [`BuildError::Index`] when the index cannot be opened or searched.
pub(crate) fn bm25_semantic(
    nodes: &[SkillNode],
    index: &Path,
    fields: &[u8; 32],
    sem: &SemanticOptions,
    stats: &mut SemanticStats,
    cache: Option<&StageCache>,
    reused: &mut ReuseStats,
) -> Result<Vec<SkillEdge>, BuildError> {
    let k = (sem.k as u64).to_le_bytes();
    // Rows read from a live index may differ in the last bit (and in the order of exact
    // ties; from 10,000 skills, in which candidates each segment's two-phase search keeps),
    // so a build with one segment takes only rows read from one segment.
    let live = cache.is_some_and(|c| c.wrote_live.load(Ordering::Relaxed));
    let queries = nodes
        .iter()
        .flat_map(|n| [n.name.as_bytes(), n.description.value.as_bytes()]);
    let rows_key = digest([&fields[..], &k[..]].into_iter().chain(queries));
    let options = format!("{sem:?}");
    let headings = nodes.iter().flat_map(|n| {
        [n.id.as_bytes()]
            .into_iter()
            .chain(n.headings.iter().map(|h| h.as_bytes()))
            .chain([&b"\n"[..]])
    });
    let edges_key = digest(
        [&rows_key[..], options.as_bytes()]
            .into_iter()
            .chain(headings),
    );
    let mut memo = cache.map(|c| lock(&c.neighbours));
    let usable = memo.as_ref().is_some_and(|m| live || !m.from_live);
    if usable
        && let Some((key, edges, known)) = memo.as_ref().and_then(|m| m.edges.as_ref())
        && *key == edges_key
    {
        reused.neighbour_rows = true;
        *stats = SemanticStats {
            ms: stats.ms,
            ..known.clone()
        };
        return Ok(edges.clone());
    }
    let rows = match memo
        .as_ref()
        .filter(|_| usable)
        .and_then(|m| m.rows.as_ref())
    {
        Some((key, rows)) if *key == rows_key => {
            reused.neighbour_rows = true;
            rows.clone()
        }
        _ => {
            let lexical = LexicalIndex::open(index, nodes.len())?;
            bm25_neighbours(nodes, &lexical, sem.k)?
        }
    };
    let edges = semantic_edges(
        nodes,
        &rows,
        sem.bm25_floor,
        EdgeProvenance::Bm25,
        sem,
        stats,
    );
    if let Some(m) = memo.as_mut() {
        if !reused.neighbour_rows {
            m.from_live = live;
        }
        m.queries = Some(queries_digest(nodes, sem.k));
        m.rows = Some((rows_key, rows));
        m.edges = Some((edges_key, edges.clone(), stats.clone()));
    }
    Ok(edges)
}

/// SHA-256 of `k`, the dimension and the vectors' bits (little-endian), which is all the
/// vector neighbour rows read.
fn vectors_digest(k: usize, vectors: &Vectors) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((k as u64).to_le_bytes());
    h.update((vectors.header.dim as u64).to_le_bytes());
    let mut bytes = Vec::with_capacity(4 * 4096);
    for chunk in vectors.data.chunks(4096) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
        h.update(&bytes);
    }
    h.finalize().into()
}

/// Digest of what [`semantic_edges`] reads of the nodes besides the rows: each node's id, name,
/// description and headings (the shared specific terms, [`crate::semantic::SpecificTerms`]),
/// after the rows' digest and the options.
fn edges_digest(nodes: &[SkillNode], sem: &SemanticOptions, rows: &[u8]) -> [u8; 32] {
    let options = format!("{sem:?}");
    let fields = nodes.iter().flat_map(|n| {
        [
            n.id.as_bytes(),
            n.name.as_bytes(),
            n.description.value.as_bytes(),
        ]
        .into_iter()
        .chain(n.headings.iter().map(|h| h.as_bytes()))
        .chain([&b"\n"[..]])
    });
    digest([rows, options.as_bytes()].into_iter().chain(fields))
}

/// The semantic edges of a workspace with skill vectors ([`vector_neighbours`],
/// [`semantic_edges`] with the cosine floor), taken from `cache` when what they read is
/// unchanged: the rows read `sem.k` and the vectors ([`vectors_digest`]: 8.6 MB on the real
/// library, a few milliseconds), the edges read the rows and what [`edges_digest`] covers. On
/// the real library the stage takes about 0.3 s (Intel Xeon, 2 vCPUs): 0.1 s for the rows,
/// 0.2 s for the edges; a watch rebuild after a body edit that leaves the card view and the
/// headings as they were takes both from the cache. Without a cache nothing is hashed.
///
/// `stats` gets the counters of the pass either way.
pub(crate) fn vector_semantic(
    nodes: &[SkillNode],
    vectors: &Vectors,
    sem: &SemanticOptions,
    stats: &mut SemanticStats,
    cache: Option<&StageCache>,
    reused: &mut ReuseStats,
) -> Vec<SkillEdge> {
    let Some(cache) = cache else {
        return semantic_edges(
            nodes,
            &vector_neighbours(vectors, sem.k),
            sem.cosine_floor,
            EdgeProvenance::Vector,
            sem,
            stats,
        );
    };
    let mut memo = lock(&cache.neighbours);
    let rows_key = vectors_digest(sem.k, vectors);
    let cached_rows = memo
        .vector_rows
        .as_ref()
        .is_some_and(|(key, _)| *key == rows_key);
    let edges_key = edges_digest(nodes, sem, &rows_key);
    if cached_rows
        && let Some((key, edges, known)) = memo.vector_edges.as_ref()
        && *key == edges_key
    {
        reused.neighbour_rows = true;
        *stats = SemanticStats {
            ms: stats.ms,
            ..known.clone()
        };
        return edges.clone();
    }
    let rows = match memo.vector_rows.take() {
        Some((_, rows)) if cached_rows => {
            reused.neighbour_rows = true;
            rows
        }
        _ => vector_neighbours(vectors, sem.k),
    };
    let edges = semantic_edges(
        nodes,
        &rows,
        sem.cosine_floor,
        EdgeProvenance::Vector,
        sem,
        stats,
    );
    memo.vector_edges = Some((edges_key, edges.clone(), stats.clone()));
    memo.vector_rows = Some((rows_key, rows));
    edges
}
