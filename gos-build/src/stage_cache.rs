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
//!   they were computed from (brought up to date, exactly, when a few changed), and the
//!   semantic edges made from them while the ids, names, descriptions and headings are
//!   unchanged too ([`vector_semantic`]): a body edit that leaves the
//!   card view (name, description, capability, types, tags, tools) and the headings as they
//!   were leaves both, and one that changes only headings leaves the rows.
//!
//! A package's content is the SHA-256 of its SKILL.md ([`gos_core::SkillNode::content_hash`]),
//! of which the parsed body is a function; the body's length is checked beside it.

use crate::dedup::DedupCache;
use crate::error::BuildError;
use crate::report::ReuseStats;
use crate::semantic::{
    EXACT_LIMIT, SemanticOptions, SemanticStats, bm25_neighbours, semantic_edges, vector_neighbours,
};
use crate::workflow::WorkflowCache;
use gos_core::index::dense::Vectors;
use gos_core::index::dense::knn::update_exact_top_k;
use gos_core::index::lexical::{LexicalIndex, PartCache, SegmentLayout};
use gos_core::{EdgeProvenance, SkillEdge, SkillNode};
use rayon::prelude::*;
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

/// Vector neighbour rows and what they were computed from.
struct VectorRows {
    k: usize,
    dim: usize,
    /// [`row_digests`] of the vectors.
    digests: Vec<[u8; 32]>,
    rows: Rows,
}

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
    /// Vector neighbour rows with `k`, the dimension and the digest of each vector they were
    /// computed from ([`row_digests`]).
    vector_rows: Option<VectorRows>,
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
/// [`BuildError::Workspace`] (the index's [`gos_core::Error`]) when the index cannot be opened or
/// searched.
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

/// SHA-256 of each vector's bits (little-endian), in row order.
fn row_digests(vectors: &Vectors) -> Vec<[u8; 32]> {
    let dim = vectors.header.dim.max(1);
    vectors
        .data
        .par_chunks(dim)
        .map(|row| {
            let bytes: Vec<u8> = row.iter().flat_map(|v| v.to_le_bytes()).collect();
            Sha256::digest(&bytes).into()
        })
        .collect()
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
/// [`semantic_edges`] with the cosine floor), from what `cache` kept of the previous build:
///
/// - the rows read `sem.k` and the vectors ([`row_digests`]). When no vector changed they are
///   taken as they are; when some did (a description edit), the exact rows are brought up to
///   date by [`update_exact_top_k`], which recomputes only the changed rows and those that
///   listed them, bit for bit what the full pass writes; more than
///   [`gos_core::index::dense::knn::MAX_UPDATED_ROWS`] such rows, another shape, or HNSW rows
///   (above [`EXACT_LIMIT`]) run the full pass;
/// - the edges read the rows and what [`edges_digest`] covers, and are taken as they are when
///   neither changed.
///
/// On the real library (Intel Xeon, 2 vCPUs) the stage takes about 0.3 s from scratch (0.1 s
/// for the rows, 0.2 s for the edges), 0.02 s after a body edit that leaves the card view and
/// the headings as they were, 0.21-0.23 s after a description edit. Without a cache nothing
/// is hashed.
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
    let edges_of = |rows: &Rows, stats: &mut SemanticStats| {
        semantic_edges(
            nodes,
            rows,
            sem.cosine_floor,
            EdgeProvenance::Vector,
            sem,
            stats,
        )
    };
    let Some(cache) = cache else {
        return edges_of(&vector_neighbours(vectors, sem.k), stats);
    };
    let mut memo = lock(&cache.neighbours);
    let digests = row_digests(vectors);
    let (k, dim) = (sem.k.to_le_bytes(), vectors.header.dim.to_le_bytes());
    let rows_key = digest(
        [&k[..], &dim[..]]
            .into_iter()
            .chain(digests.iter().map(|d| &d[..])),
    );
    // Rows of the same shape: which vectors changed (none: the rows stand as they are).
    let changed: Option<Vec<usize>> = memo
        .vector_rows
        .as_ref()
        .filter(|c| c.k == sem.k && c.dim == vectors.header.dim && c.digests.len() == digests.len())
        .map(|c| {
            (0..digests.len())
                .filter(|&i| c.digests[i] != digests[i])
                .collect()
        });
    let edges_key = edges_digest(nodes, sem, &rows_key);
    if changed.as_ref().is_some_and(Vec::is_empty)
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
    let old = memo.vector_rows.take();
    let rows = match (old, changed) {
        (Some(c), Some(changed)) if changed.is_empty() => {
            reused.neighbour_rows = true;
            c.rows
        }
        // A few vectors changed: the rows that can move are computed again, exactly.
        (Some(c), Some(changed)) if vectors.len() <= EXACT_LIMIT => {
            update_exact_top_k(vectors, &c.rows, &changed, sem.k)
                .unwrap_or_else(|| vector_neighbours(vectors, sem.k))
        }
        _ => vector_neighbours(vectors, sem.k),
    };
    let edges = edges_of(&rows, stats);
    memo.vector_edges = Some((edges_key, edges.clone(), stats.clone()));
    memo.vector_rows = Some(VectorRows {
        k: sem.k,
        dim: vectors.header.dim,
        digests,
        rows,
    });
    edges
}
