//! BM25 top-k in two phases, for short queries over large libraries: the rare terms find the
//! candidates, and every clause scores them.
//!
//! Block-max WAND ([`LexicalIndex::search_pruned`]) keeps one posting cursor per term and
//! field and re-orders them after each candidate document. A skill's name and description
//! share words such as "use", "when" or "data" with a large share of a library, so at 100,000
//! skills most of the build's neighbour-pass time went into the cursors of those few common
//! terms, whose BM25 weight is small (idf `ln(1 + (N - df + 0.5) / (df + 0.5))`, about 3 for a
//! term in 5% of the documents against 9 to 11 for a term in a handful).
//!
//! [`LexicalIndex::search_rare_first`] therefore
//!
//! 1. splits the query into *common* terms (description-field document frequency above
//!    `max_df_share` of the documents) and the rest;
//! 2. runs block-max WAND over the rare terms' clauses alone, keeping the best `candidates`
//!    documents of each segment;
//! 3. adds to each candidate the exact BM25 score of the common terms' clauses (one term
//!    scorer per clause, each sought to the candidates in document order along its skip
//!    list), and keeps the `k` best by the sum.
//!
//! With several segments (a live index, [`super::SegmentLayout::Live`]) each segment keeps its
//! own candidates, so the result can differ from a one-segment index's in which documents it
//! misses.
//!
//! A candidate's score is its full BM25 score (the sum of every clause; the two partial sums
//! are added in another order than tantivy's union adds clauses, so the last bit can differ).
//! The result is the exact top `k` whenever each of those documents is among the rare terms'
//! best `candidates`; a document matching the query through common words alone, or ranked
//! far lower on the rare ones, can be missed. `gos build` uses it from
//! `gos_build::semantic::PRUNE_FROM` skills up, with the agreement measured against the exact
//! pass in docs/performance.md.

use super::collect::{Worse, by_score};
use super::{FieldBoosts, LexicalIndex, index_err};
use crate::error::Result;
use std::collections::{BTreeMap, BinaryHeap};
use tantivy::query::{BooleanQuery, EnableScoring, Query, Weight};
use tantivy::{DocId, DocSet, Score, TERMINATED, Term};

impl LexicalIndex {
    /// The `k` best `(node, score)` of `terms` against the fields of positive boost in
    /// `fields`, best first (ties by node), found in two phases (see the module docs): the
    /// terms whose description-field document frequency is at most `max_df_share` of the
    /// documents pick the best `max(candidates, k)` documents per segment with block-max WAND, and
    /// the others' clauses are added to those candidates' scores. With no common term, or
    /// only common terms, this is [`LexicalIndex::search_pruned`].
    ///
    /// # Errors
    /// [`crate::Error::Index`] when tantivy fails.
    pub fn search_rare_first(
        &self,
        terms: &BTreeMap<String, u32>,
        fields: &FieldBoosts,
        k: usize,
        candidates: usize,
        max_df_share: f64,
    ) -> Result<Vec<(usize, f32)>> {
        let none = BTreeMap::new();
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let limit = max_df_share * searcher.num_docs() as f64;
        let description = self.fields.text[1];
        let (mut rare, mut common) = (BTreeMap::new(), BTreeMap::new());
        for (term, &tf) in terms {
            let df = searcher
                .doc_freq(&Term::from_field_text(description, term))
                .map_err(index_err(&self.dir))?;
            if df as f64 > limit {
                common.insert(term.clone(), tf);
            } else {
                rare.insert(term.clone(), tf);
            }
        }
        if rare.is_empty() || common.is_empty() {
            return self.search_pruned(terms, &none, fields, k);
        }
        let scoring = EnableScoring::enabled_from_searcher(&searcher);
        let rare = BooleanQuery::new(self.clauses(&rare, &none, fields))
            .weight(scoring)
            .map_err(index_err(&self.dir))?;
        // One weight per common clause: a union's seek refills a window of 4,096 documents
        // from every clause, while a term scorer's seek follows its skip list.
        let common: Vec<Box<dyn Weight>> = self
            .clauses(&common, &none, fields)
            .into_iter()
            .map(|(_, q)| q.weight(scoring))
            .collect::<tantivy::Result<_>>()
            .map_err(index_err(&self.dir))?;
        let keep = candidates.max(k);
        let mut out: Vec<(usize, f32)> = Vec::new();
        for reader in searcher.segment_readers() {
            let alive = reader.alive_bitset();
            let mut heap: BinaryHeap<Worse<DocId>> = BinaryHeap::with_capacity(keep + 1);
            rare.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    let hit = Worse(doc, score);
                    if heap.len() < keep {
                        heap.push(hit);
                    } else if let Some(mut worst) = heap.peek_mut()
                        && hit < *worst
                    {
                        *worst = hit;
                    }
                }
                match heap.peek() {
                    Some(worst) if heap.len() >= keep => worst.1,
                    _ => Score::MIN,
                }
            })
            .map_err(index_err(&self.dir))?;
            let mut found: Vec<(DocId, Score)> = heap.into_iter().map(|w| (w.0, w.1)).collect();
            found.sort_unstable_by_key(|h| h.0);
            let mut scorers = common
                .iter()
                .map(|w| w.scorer(reader, 1.0))
                .collect::<tantivy::Result<Vec<_>>>()
                .map_err(index_err(&self.dir))?;
            let ord = reader
                .fast_fields()
                .u64("ord")
                .map_err(index_err(&self.dir))?;
            for (doc, score) in found {
                let mut total = score;
                for scorer in &mut scorers {
                    let mut at = scorer.doc();
                    if at < doc && at != TERMINATED {
                        at = scorer.seek(doc);
                    }
                    if at == doc {
                        total += scorer.score();
                    }
                }
                if let Some(node) = ord.first(doc) {
                    out.push((node as usize, total));
                }
            }
        }
        out.sort_by(by_score);
        out.truncate(k);
        Ok(out)
    }
}
