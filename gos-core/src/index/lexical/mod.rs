//! The lexical index: tantivy BM25 over the normalized fields of every skill, with field
//! boosts, stored in the workspace under `tantivy/`.
//!
//! Fields (default boost, [`FIELD_BOOSTS`]): `name` (3.0), `description` (2.0: description
//! and capability), `meta` (1.5: tags, tooling, artifact types, example tasks, entrypoints,
//! folder name), `headings` (1.5), `body` (1.0). Boosts apply at query time
//! ([`FieldBoosts`], [`LexicalIndex::search_with`]), so they are retrieval options. Indexing the body matters: the peer measured 0.36 -> 0.60 bundle recall
//! on our DEV set when SKILL.md bodies were indexed (peers-on-our-data.md). The body is also
//! stored, so hydration reads skill content from the index.
//!
//! Queries are bags of analyzed terms OR-ed together (never a parsed query string); each
//! term's clause is boosted by `1 + ln(tf)` of its count in the query, times the term's
//! weight when one is given ([`crate::query::Query::boosts`]).

pub mod analyzer;
mod boosts;
mod collect;
mod parts;
mod rare_first;

pub use boosts::FieldBoosts;
pub use parts::{MAX_SEGMENTS, PART_DOCS, PartCache, PartStats, SegmentLayout};

use crate::error::{Error, Result};
use analyzer::{ANALYZER_NAME, analyzer, term_counts};
use collect::{BestScores, by_score};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::{DocAddress, Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

/// Field boosts of the BM25 query, as `(field name, boost)`.
pub const FIELD_BOOSTS: [(&str, f32); 5] = [
    ("name", 3.0),
    ("description", 2.0),
    ("meta", 1.5),
    ("headings", 1.5),
    ("body", 1.0),
];

/// One document to index: the text views of one skill node.
#[derive(Debug, Clone, Default)]
pub struct LexicalDoc {
    /// Node index (position in the manifest).
    pub ord: u64,
    /// Skill id.
    pub id: String,
    /// Display name plus folder name.
    pub name: String,
    /// Description and capability.
    pub description: String,
    /// Tags, tooling, artifact types, example tasks, entrypoints.
    pub meta: String,
    /// Section headings.
    pub headings: String,
    /// Markdown body (also stored for hydration).
    pub body: String,
}

/// An open BM25 index.
pub struct LexicalIndex {
    dir: PathBuf,
    reader: IndexReader,
    fields: Fields,
    /// Node index -> document address.
    addresses: Vec<Option<DocAddress>>,
}

#[derive(Clone, Copy)]
struct Fields {
    ord: Field,
    id: Field,
    text: [Field; 5],
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let ord = b.add_u64_field("ord", INDEXED | FAST | STORED);
    let id = b.add_text_field("id", STRING | STORED);
    // Term frequencies, no positions: BM25 reads frequencies and field norms only, and no
    // query is a phrase. Positions were a fifth of the index on disk (141 of 698 MB at
    // 100,000 real-length skills) and time in indexing and merging, never read.
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(ANALYZER_NAME)
        .set_index_option(IndexRecordOption::WithFreqs);
    let text_opts = TextOptions::default().set_indexing_options(indexing);
    let mut text = [ord; 5];
    for (i, (name, _)) in FIELD_BOOSTS.iter().enumerate() {
        let opts = if *name == "body" {
            text_opts.clone().set_stored()
        } else {
            text_opts.clone()
        };
        text[i] = b.add_text_field(name, opts);
    }
    (b.build(), Fields { ord, id, text })
}

fn index_err(dir: &Path) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
    move |source| Error::Index {
        path: dir.to_path_buf(),
        source,
    }
}

/// A tantivy directory that only reads: every write fails with `PermissionDenied`, locks are
/// granted without a lock file, and no file watcher is started.
#[derive(Debug, Clone)]
struct ReadOnlyDirectory(MmapDirectory);

/// Bytes of the fixed part of tantivy's file footer (footer length and magic number, two
/// `u32`s), the least any index file holds.
const FOOTER_METADATA_BYTES: usize = 8;

fn read_only(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!(
            "{}: the workspace index is opened read-only",
            path.display()
        ),
    )
}

impl Directory for ReadOnlyDirectory {
    /// Files too short for tantivy's footer (8 bytes of length and magic number) are refused
    /// here: tantivy 0.27 checks for 4 bytes, then slices 8 and panics on a 4- to 7-byte file.
    fn get_file_handle(
        &self,
        path: &Path,
    ) -> std::result::Result<std::sync::Arc<dyn FileHandle>, OpenReadError> {
        let handle = self.0.get_file_handle(path)?;
        if handle.len() < FOOTER_METADATA_BYTES {
            return Err(OpenReadError::IoError {
                io_error: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "{}: {} bytes, too short for an index file; the file is damaged",
                        path.display(),
                        handle.len()
                    ),
                )
                .into(),
                filepath: path.to_path_buf(),
            });
        }
        Ok(handle)
    }

    fn delete(&self, path: &Path) -> std::result::Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: read_only(path).into(),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> std::result::Result<bool, OpenReadError> {
        self.0.exists(path)
    }

    fn open_write(&self, path: &Path) -> std::result::Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::IoError {
            io_error: read_only(path).into(),
            filepath: path.to_path_buf(),
        })
    }

    fn atomic_read(&self, path: &Path) -> std::result::Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, _data: &[u8]) -> std::io::Result<()> {
        Err(read_only(path))
    }

    fn sync_directory(&self) -> std::io::Result<()> {
        Ok(())
    }

    /// Readers lock the meta file so that a writer's garbage collection in the same directory
    /// cannot remove segments under them; a workspace index has no writer after its build.
    fn acquire_lock(&self, _lock: &Lock) -> std::result::Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, _watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

/// Fewest documents per part for [`LexicalIndex::build`] to index in parallel: below it, one
/// writer (a small library indexes in milliseconds, and the fixtures stay one writer).
pub const MIN_PART_DOCS: usize = 1_000;

/// Index `docs` into `index` with one writer thread (so their ids are their order), commit,
/// and wait for its merges.
fn write_part(index: &Index, docs: &[LexicalDoc]) -> tantivy::Result<()> {
    index.tokenizers().register(ANALYZER_NAME, analyzer());
    let f = schema().1;
    let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 100_000_000)?;
    for d in docs {
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.ord, d.ord);
        doc.add_text(f.id, &d.id);
        let texts = [&d.name, &d.description, &d.meta, &d.headings, &d.body];
        for (field, text) in f.text.iter().zip(texts) {
            doc.add_text(*field, text);
        }
        writer.add_document(doc)?;
    }
    writer.commit()?;
    writer.wait_merging_threads()
}

impl LexicalIndex {
    /// Create the index in `dir` (which must exist and be empty) from `docs`, and commit it.
    ///
    /// Tokenizing and inverting the text is the cost (about 40% of a lexical build's CPU on
    /// the real library), and one tantivy writer thread does it serially; tantivy's own
    /// multi-threaded writer hands documents to its threads as they come, so the document ids
    /// would depend on the timing. Instead, with at least [`MIN_PART_DOCS`] documents per
    /// core, the documents are cut into one contiguous part per core, each part is indexed by
    /// its own single-threaded writer into memory, and the parts are merged in order into one
    /// segment in `dir` (`tantivy::indexer::merge_indices`): document ids are the input order
    /// whatever the number of cores, as in a single writer, and BM25 statistics are the
    /// index's totals, so scores are the same.
    ///
    /// # Errors
    /// [`Error::Index`] when tantivy fails.
    pub fn build(dir: &Path, docs: impl IntoIterator<Item = LexicalDoc>) -> Result<()> {
        let docs: Vec<LexicalDoc> = docs.into_iter().collect();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parts = cores.min(docs.len() / MIN_PART_DOCS).max(1);
        Self::build_in_parts(dir, &docs, parts)
    }

    /// [`LexicalIndex::build`] with `parts` parts (1: one writer straight into `dir`).
    fn build_in_parts(dir: &Path, docs: &[LexicalDoc], parts: usize) -> Result<()> {
        if parts <= 1 {
            let index = Index::create_in_dir(dir, schema().0).map_err(index_err(dir))?;
            return write_part(&index, docs).map_err(index_err(dir));
        }
        let size = docs.len().div_ceil(parts);
        let indexed: Vec<tantivy::Result<Index>> = std::thread::scope(|scope| {
            let handles: Vec<_> = docs
                .chunks(size)
                .map(|part| {
                    scope.spawn(move || {
                        let index = Index::create_in_ram(schema().0);
                        write_part(&index, part)?;
                        Ok(index)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(tantivy::TantivyError::InternalError(
                            "an index part's thread panicked".into(),
                        ))
                    })
                })
                .collect()
        });
        let indices = indexed
            .into_iter()
            .collect::<tantivy::Result<Vec<Index>>>()
            .map_err(index_err(dir))?;
        let out = MmapDirectory::open(dir).map_err(|e| index_err(dir)(e.into()))?;
        tantivy::indexer::merge_indices(&indices, out).map_err(index_err(dir))?;
        Ok(())
    }

    /// Open the index in `dir` for `node_count` nodes, read-only: nothing in `dir` is created,
    /// written or locked (tantivy's reader lock and file watcher are not used, since a
    /// workspace never changes in place; builds replace it whole), so a workspace on a
    /// read-only mount or owned by another user opens as well.
    ///
    /// # Errors
    /// [`Error::Index`] when tantivy cannot open it; [`Error::Inconsistent`] when a document's
    /// node index is out of range.
    pub fn open(dir: &Path, node_count: usize) -> Result<Self> {
        let mmap = MmapDirectory::open(dir).map_err(|e| index_err(dir)(e.into()))?;
        let index = Index::open(ReadOnlyDirectory(mmap)).map_err(index_err(dir))?;
        index.tokenizers().register(ANALYZER_NAME, analyzer());
        let (_, fields) = schema();
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(index_err(dir))?;
        let searcher = reader.searcher();
        let mut addresses = vec![None; node_count];
        for (seg_ord, seg) in searcher.segment_readers().iter().enumerate() {
            let col = seg.fast_fields().u64("ord").map_err(index_err(dir))?;
            for doc in 0..seg.max_doc() {
                if let Some(ord) = col.first(doc) {
                    let slot =
                        addresses
                            .get_mut(ord as usize)
                            .ok_or_else(|| Error::Inconsistent {
                                path: dir.to_path_buf(),
                                reason: format!(
                                    "document for node {ord} but only {node_count} nodes"
                                ),
                            })?;
                    *slot = Some(DocAddress::new(seg_ord as u32, doc));
                }
            }
        }
        Ok(LexicalIndex {
            dir: dir.to_path_buf(),
            reader,
            fields,
            addresses,
        })
    }

    /// Segments of the index: 1 from a build, up to [`MAX_SEGMENTS`] from a live rebuild
    /// ([`SegmentLayout::Live`]).
    pub fn segments(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    /// Analyzed query terms with their counts (see [`mod@analyzer`]).
    pub fn query_terms(query: &str) -> BTreeMap<String, u32> {
        term_counts(&mut analyzer(), query)
    }

    /// BM25 top-`k` over all fields for analyzed `terms`: `(node index, score)` by descending
    /// score, ties by node index. An empty term map gives no hits.
    ///
    /// Cost: one boolean OR over |terms| x 5 term queries, every matching document scored
    /// (every matching document is scored: tantivy's block-max WAND re-sorted hundreds of
    /// posting cursors per candidate for task-length queries).
    ///
    /// # Errors
    /// [`Error::Index`] when the search fails.
    pub fn search(&self, terms: &BTreeMap<String, u32>, k: usize) -> Result<Vec<(usize, f32)>> {
        self.search_with(terms, &BTreeMap::new(), &FieldBoosts::default(), k)
    }

    /// [`LexicalIndex::search`] with query-term weights `weights` (a term not listed weighs 1;
    /// a term's clauses are boosted by `weight * (1 + ln tf)`) and field boosts `fields`
    /// instead of [`FIELD_BOOSTS`]. Fields whose boost is 0 are left out of the query.
    ///
    /// # Errors
    /// [`Error::Index`] when the search fails.
    pub fn search_with(
        &self,
        terms: &BTreeMap<String, u32>,
        weights: &BTreeMap<String, f32>,
        fields: &FieldBoosts,
        k: usize,
    ) -> Result<Vec<(usize, f32)>> {
        self.top_k(terms, weights, fields, k, false)
    }

    /// [`LexicalIndex::search_with`] through tantivy's block-max WAND: posting blocks whose
    /// best possible score cannot beat the current `k`-th hit are skipped. For short queries
    /// over a large index (the build's BM25 neighbour pass: a skill's name and description,
    /// one query per skill) that skips most documents that share only common words; for
    /// task-length queries WAND's cursor sorting costs more than it skips, so retrieval keeps
    /// [`LexicalIndex::search_with`].
    ///
    /// Same hits and order (score descending, ties by node index) as
    /// [`LexicalIndex::search_with`], up to the last bits of a score: WAND adds a document's
    /// term scores in its own order (`pruned_search_keeps_the_full_top_k`).
    ///
    /// # Errors
    /// [`Error::Index`] when the search fails.
    pub fn search_pruned(
        &self,
        terms: &BTreeMap<String, u32>,
        weights: &BTreeMap<String, f32>,
        fields: &FieldBoosts,
        k: usize,
    ) -> Result<Vec<(usize, f32)>> {
        self.top_k(terms, weights, fields, k, true)
    }

    /// The BM25 clauses of `terms`: one boosted term query per term and field of positive
    /// boost, the boost `field boost × (1 + ln tf) × weight`.
    fn clauses(
        &self,
        terms: &BTreeMap<String, u32>,
        weights: &BTreeMap<String, f32>,
        fields: &FieldBoosts,
    ) -> Vec<(Occur, Box<dyn Query>)> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (term, &tf) in terms {
            let qtf = (1.0 + (tf as f32).ln()) * weights.get(term).copied().unwrap_or(1.0);
            for (field, boost) in self.fields.text.iter().zip(fields.as_array()) {
                if boost <= 0.0 {
                    continue;
                }
                let tq = TermQuery::new(
                    Term::from_field_text(*field, term),
                    IndexRecordOption::WithFreqs,
                );
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(tq), boost * qtf)),
                ));
            }
        }
        clauses
    }

    fn top_k(
        &self,
        terms: &BTreeMap<String, u32>,
        weights: &BTreeMap<String, f32>,
        fields: &FieldBoosts,
        k: usize,
        prune: bool,
    ) -> Result<Vec<(usize, f32)>> {
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let clauses = self.clauses(terms, weights, fields);
        let query = BooleanQuery::new(clauses);
        let mut out = self
            .reader
            .searcher()
            .search(&query, &BestScores { k, prune })
            .map_err(index_err(&self.dir))?;
        // Merged fruits come sorted; one segment's come in heap order.
        out.sort_by(by_score);
        Ok(out)
    }

    /// Query-side normalizer of BM25 scores: `sum_t (1 + ln tf_t) * idf_t` over the analyzed
    /// query terms, with the BM25 idf `ln(1 + (N - df + 0.5) / (df + 0.5))` computed on the
    /// body field. A document's BM25 score divided by this mass is comparable across query
    /// lengths: it grows with the share of the query (weighted by rarity) that the document
    /// matches, which is what the relevance floor needs.
    ///
    /// # Errors
    /// [`Error::Index`] when document frequencies cannot be read.
    pub fn idf_mass(&self, terms: &BTreeMap<String, u32>) -> Result<f32> {
        let mut mass = 0.0;
        for (term, &tf) in terms {
            mass += (1.0 + (tf as f32).ln()) * self.idf(term)?;
        }
        Ok(mass)
    }

    /// BM25 idf of `term` (analyzed) on the body field: `ln(1 + (N - df + 0.5) / (df + 0.5))`
    /// for N documents, `df` of which hold the term; > 0 for every term, largest for terms
    /// no document holds.
    ///
    /// # Errors
    /// [`Error::Index`] when the document frequency cannot be read.
    pub fn idf(&self, term: &str) -> Result<f32> {
        let searcher = self.reader.searcher();
        let n = searcher.num_docs() as f32;
        let df = searcher
            .doc_freq(&Term::from_field_text(self.fields.text[4], term))
            .map_err(index_err(&self.dir))? as f32;
        Ok((1.0 + (n - df + 0.5) / (df + 0.5)).ln())
    }

    /// `terms` without the common ones: a term whose body-field document frequency is above
    /// `max_df_share` of the documents is dropped (an IDF floor for long task texts, whose
    /// hundreds of terms include many that match most skills). Returns `terms` unchanged when
    /// `max_df_share >= 1` or when every term would go. Cost: one document-frequency lookup
    /// per term.
    ///
    /// # Errors
    /// [`Error::Index`] when document frequencies cannot be read.
    pub fn without_common_terms(
        &self,
        terms: &BTreeMap<String, u32>,
        max_df_share: f64,
    ) -> Result<BTreeMap<String, u32>> {
        if max_df_share >= 1.0 {
            return Ok(terms.clone());
        }
        let searcher = self.reader.searcher();
        let limit = max_df_share * searcher.num_docs() as f64;
        let body = self.fields.text[4];
        let mut kept = BTreeMap::new();
        for (term, &tf) in terms {
            let df = searcher
                .doc_freq(&Term::from_field_text(body, term))
                .map_err(index_err(&self.dir))?;
            if df as f64 <= limit {
                kept.insert(term.clone(), tf);
            }
        }
        Ok(if kept.is_empty() { terms.clone() } else { kept })
    }

    /// Stored body of node `ord`, or `None` when the index has no document for it.
    ///
    /// # Errors
    /// [`Error::Index`] when the document store cannot be read.
    pub fn body(&self, ord: usize) -> Result<Option<String>> {
        let Some(Some(addr)) = self.addresses.get(ord) else {
            return Ok(None);
        };
        let doc: TantivyDocument = self
            .reader
            .searcher()
            .doc(*addr)
            .map_err(index_err(&self.dir))?;
        Ok(doc
            .get_first(self.fields.text[4])
            .and_then(|v| v.as_str())
            .map(str::to_string))
    }
}

#[cfg(test)]
mod tests;
