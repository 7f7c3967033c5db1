//! Index parts kept between the builds of one live session, so that a rebuild after one
//! edited skill re-indexes one part, and re-merges one segment, instead of every document.
//!
//! [`LexicalIndex::build_reusing`] cuts the documents into contiguous parts of
//! [`PART_DOCS`] documents in input order and indexes each part by itself into memory (one
//! single-threaded writer, as [`LexicalIndex::build`] does for its per-core parts). A part is
//! identified by the SHA-256 of everything indexed from its documents (node index, id and the
//! five text fields, each length-prefixed), so an unchanged part is taken from the
//! [`PartCache`] and only changed parts are indexed.
//!
//! Runs of consecutive parts are then merged into at most [`MAX_SEGMENTS`] segments, each
//! cached by the digests of its parts, so that an edit re-merges the few parts of one
//! segment. What the workspace gets depends on the [`SegmentLayout`]:
//!
//! - [`SegmentLayout::One`] merges those segments into one, the index [`LexicalIndex::build`]
//!   writes: document ids are the input order and every BM25 score is the same bit for bit
//!   (test `a_reused_part_index_scores_exactly_as_a_fresh_build`). The merge reads every
//!   document: about 0.5 s for the real library (5,584 skills, 47 MB of text) on one AMD
//!   EPYC core.
//! - [`SegmentLayout::Live`] copies the segments themselves under one `meta.json`, which
//!   skips that merge. tantivy sums document counts, token counts and document frequencies
//!   over segments, so BM25 statistics are the one-segment totals, but a document's clause
//!   scores are added in an order that depends on where each segment's posting lists end,
//!   so a score can differ from the one-segment score in its last bit, and exact ties can
//!   order differently (test `a_live_layout_scores_within_a_few_ulps_of_a_fresh_build`). Each
//!   query also looks every term up in every segment: on the real library, lexical retrieve
//!   takes 2.4-2.7x as long with 8 segments. [`crate::index::lexical`]'s callers therefore
//!   use it only between the edits of a live session, and compact to one segment when the
//!   edits stop.

use super::{LexicalDoc, LexicalIndex, index_err, schema, write_part};
use crate::error::Result;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;
use tantivy::directory::{Directory, MmapDirectory, RamDirectory};
use tantivy::{Index, IndexMeta};

/// Documents per cached part: small enough that re-indexing the part of one edited skill is
/// cheap (about 0.1 s for 256 real-length bodies), large enough that a merge reads few parts.
pub const PART_DOCS: usize = 256;

/// Most segments [`LexicalIndex::build_reusing`] merges the parts into, and writes with
/// [`SegmentLayout::Live`]: an edit re-merges only the parts of one segment (for the real
/// library, 3 parts of 22), and a query reads each segment's term dictionary.
pub const MAX_SEGMENTS: usize = 8;

/// How [`LexicalIndex::build_reusing`] lays out the index it writes (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SegmentLayout {
    /// One segment, scored bit for bit as [`LexicalIndex::build`]'s index.
    #[default]
    One,
    /// Up to [`MAX_SEGMENTS`] segments, written without merging them: for a rebuild that
    /// must be fast, whose scores may differ in the last bit.
    Live,
}

/// In-memory index parts and merged segments by content digest, kept between builds (see
/// the module docs).
#[derive(Default)]
pub struct PartCache {
    parts: HashMap<[u8; 32], Index>,
    /// Merged segments by the SHA-256 of their parts' digests, in order.
    segments: HashMap<[u8; 32], Index>,
}

/// How [`LexicalIndex::build_reusing`] went: parts taken from the cache, parts indexed, and
/// segments merged again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PartStats {
    /// Parts taken from the cache unchanged.
    pub reused: usize,
    /// Parts indexed in this build.
    pub indexed: usize,
    /// Segments merged from their parts in this build (the others came from the cache or
    /// hold one part).
    pub merged: usize,
}

impl PartCache {
    /// Parts held.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Whether no part is held.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

/// SHA-256 over everything a part indexes, each text length-prefixed so that moving bytes
/// from one field to the next changes the digest.
fn digest(docs: &[LexicalDoc]) -> [u8; 32] {
    let mut h = Sha256::new();
    for d in docs {
        h.update(d.ord.to_le_bytes());
        for text in [
            &d.id,
            &d.name,
            &d.description,
            &d.meta,
            &d.headings,
            &d.body,
        ] {
            h.update((text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        }
    }
    h.finalize().into()
}

impl LexicalIndex {
    /// Create the index in `dir` (which must exist and be empty) from `docs`, taking every
    /// part of [`PART_DOCS`] documents that is unchanged since the previous call from `cache`
    /// and indexing only the others (in parallel); afterwards `cache` holds exactly this
    /// build's parts and segments.
    ///
    /// Consecutive parts are merged into at most [`MAX_SEGMENTS`] segments, each cached by
    /// the digests of its parts, so that an edit re-merges one segment's parts. With
    /// [`SegmentLayout::One`], `dir` gets those segments merged into one, which scores as
    /// [`LexicalIndex::build`]'s index bit for bit; with [`SegmentLayout::Live`] it gets the
    /// segments themselves under one `meta.json` written here (see the module docs for what
    /// that changes).
    ///
    /// # Errors
    /// [`crate::Error::Index`] when tantivy fails, or an index file cannot be written;
    /// `cache` then keeps its previous parts.
    pub fn build_reusing(
        dir: &Path,
        docs: &[LexicalDoc],
        cache: &mut PartCache,
        layout: SegmentLayout,
    ) -> Result<PartStats> {
        if docs.is_empty() {
            let index = Index::create_in_dir(dir, schema().0).map_err(index_err(dir))?;
            write_part(&index, &[]).map_err(index_err(dir))?;
            *cache = PartCache::default();
            return Ok(PartStats::default());
        }
        let chunks: Vec<&[LexicalDoc]> = docs.chunks(PART_DOCS).collect();
        let keys: Vec<[u8; 32]> = chunks.par_iter().map(|c| digest(c)).collect();
        let built: Vec<tantivy::Result<Option<Index>>> = chunks
            .par_iter()
            .zip(&keys)
            .map(|(part, key)| {
                if cache.parts.contains_key(key) {
                    return Ok(None);
                }
                let index = Index::create_in_ram(schema().0);
                write_part(&index, part)?;
                Ok(Some(index))
            })
            .collect();
        let mut stats = PartStats::default();
        let mut parts = HashMap::with_capacity(keys.len());
        let mut indices = Vec::with_capacity(keys.len());
        for (key, fresh) in keys.iter().zip(built) {
            let index = match fresh.map_err(index_err(dir))? {
                Some(index) => {
                    stats.indexed += 1;
                    index
                }
                None => {
                    stats.reused += 1;
                    cache.parts[key].clone()
                }
            };
            indices.push(index.clone());
            parts.insert(*key, index);
        }
        let per_segment = keys.len().div_ceil(MAX_SEGMENTS);
        let segment_keys: Vec<[u8; 32]> = keys
            .chunks(per_segment)
            .map(|group| {
                let mut h = Sha256::new();
                for key in group {
                    h.update(key);
                }
                h.finalize().into()
            })
            .collect();
        stats.merged = indices
            .chunks(per_segment)
            .zip(&segment_keys)
            .filter(|(group, key)| group.len() > 1 && !cache.segments.contains_key(*key))
            .count();
        let merged: Vec<tantivy::Result<Index>> = indices
            .par_chunks(per_segment)
            .zip(&segment_keys)
            .map(|(group, key)| match cache.segments.get(key) {
                Some(index) => Ok(index.clone()),
                None if group.len() == 1 => Ok(group[0].clone()),
                None => tantivy::indexer::merge_indices(group, RamDirectory::create()),
            })
            .collect();
        let segments = merged
            .into_iter()
            .collect::<tantivy::Result<Vec<Index>>>()
            .map_err(index_err(dir))?;
        match layout {
            SegmentLayout::Live => write_segments(dir, &segments)?,
            SegmentLayout::One => {
                let out = MmapDirectory::open(dir).map_err(|e| index_err(dir)(e.into()))?;
                tantivy::indexer::merge_indices(&segments, out).map_err(index_err(dir))?;
            }
        }
        cache.parts = parts;
        cache.segments = segment_keys.into_iter().zip(segments).collect();
        Ok(stats)
    }
}

/// Copy the segment files of `segments` (in-memory indices) into `dir` and write the
/// `meta.json` that lists all their segments in order.
fn write_segments(dir: &Path, segments: &[Index]) -> Result<()> {
    let io = |file: &Path, e: std::io::Error| {
        let e = std::io::Error::new(e.kind(), format!("{}: {e}", dir.join(file).display()));
        index_err(dir)(tantivy::TantivyError::from(e))
    };
    let mut metas = Vec::new();
    for index in segments {
        let meta = index.load_metas().map_err(index_err(dir))?;
        let files = meta.list_segment_files();
        let directory = index.directory();
        for file in files {
            if !directory
                .exists(&file)
                .map_err(|e| index_err(dir)(e.into()))?
            {
                continue;
            }
            // Whole files, footer included (`open_read` would strip tantivy's footer).
            let bytes = directory
                .atomic_read(&file)
                .map_err(|e| index_err(dir)(e.into()))?;
            std::fs::write(dir.join(&file), bytes).map_err(|e| io(&file, e))?;
        }
        metas.extend(meta.segments);
    }
    let meta = IndexMeta {
        index_settings: segments[0].settings().clone(),
        persisted_custom_extensions: Vec::new(),
        segments: metas,
        schema: schema().0,
        opstamp: 0,
        payload: None,
    };
    let mut json = serde_json::to_vec_pretty(&meta).expect("an index meta serializes");
    json.push(b'\n');
    std::fs::write(dir.join("meta.json"), json).map_err(|e| io(Path::new("meta.json"), e))?;
    Ok(())
}
