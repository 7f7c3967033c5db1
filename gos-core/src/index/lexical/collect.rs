//! The BM25 hit collector: the `k` best `(node index, score)` of a query, kept in a bounded
//! heap while tantivy scores every matching document.
//!
//! Why not tantivy's `TopDocs`: for a top-k over a disjunction of term queries, tantivy runs
//! block-max WAND, which re-sorts all of its posting-list cursors after every candidate
//! document. A task text gives hundreds of terms, times 5 fields, so on the real library
//! (5,584 skills) that sorting was a fifth of a lexical retrieve and WAND pruned little; the
//! plain union scores the same documents with the same BM25 in a fraction of the time.
//!
//! With `prune` set the collector asks tantivy for block-max WAND after all, by handing it the
//! current `k`-th score as the threshold: right for short queries over many documents (the
//! build's BM25 neighbour pass), where most matches share only a common word or two.
//!
//! Why bounded: an earlier collector kept every matching document and truncated afterwards,
//! and a truncated `Vec` keeps its capacity. The build's BM25 neighbour pass runs one query per
//! skill, so each of its N short result rows held an N-entry buffer: 16·N² bytes, 6.4 GB on a
//! 20,000-skill library with real-length bodies, and an out-of-memory kill at 100,000. Memory is
//! now O(k) per query, and the order is the same: score descending, ties by node index.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::Weight;
use tantivy::{DocId, Score, SegmentReader};

/// `(id, score)` ordered so that the greater is the worse hit: lower score, then higher id
/// (a node index here, a document id in [`super::rare_first`]). A max-heap of these has the
/// worst kept hit on top.
#[derive(Debug, Clone, Copy)]
pub(super) struct Worse<I>(pub(super) I, pub(super) f32);

impl<I: Ord> Ord for Worse<I> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.1.total_cmp(&self.1).then(self.0.cmp(&other.0))
    }
}

impl<I: Ord> PartialOrd for Worse<I> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<I: Ord> PartialEq for Worse<I> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<I: Ord> Eq for Worse<I> {}

/// Best first: score descending, ties by node index ascending.
pub(super) fn by_score(a: &(usize, f32), b: &(usize, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The `k` best hits of each segment, merged into the `k` best overall, best first.
pub(super) struct BestScores {
    /// Hits kept (at least 1).
    pub k: usize,
    /// Skip what cannot beat the `k`-th hit (block-max WAND where the query allows it).
    pub prune: bool,
}

/// Per-segment part of [`BestScores`]: the segment's `ord` column maps documents to nodes.
pub(super) struct BestScoresSegment {
    ord: tantivy::columnar::Column<u64>,
    k: usize,
    heap: BinaryHeap<Worse<usize>>,
}

impl Collector for BestScores {
    type Fruit = Vec<(usize, f32)>;
    type Child = BestScoresSegment;

    fn for_segment(
        &self,
        _segment_local_id: u32,
        segment: &SegmentReader,
    ) -> tantivy::Result<BestScoresSegment> {
        Ok(BestScoresSegment {
            ord: segment.fast_fields().u64("ord")?,
            k: self.k.max(1),
            heap: BinaryHeap::with_capacity(self.k.clamp(1, 1024)),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment_ord: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Vec<(usize, f32)>> {
        let mut child = self.for_segment(segment_ord, reader)?;
        let alive = reader.alive_bitset();
        let live = |doc: DocId| alive.is_none_or(|a| a.is_alive(doc));
        if self.prune {
            // tantivy calls back only for scores above the threshold, so a document tying the
            // k-th hit is skipped: right when documents come in node order (one segment built
            // in input order), as a tie keeps the lower node.
            weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                if live(doc) {
                    child.collect(doc, score);
                }
                child.threshold()
            })?;
        } else {
            weight.for_each(reader, &mut |doc, score| {
                if live(doc) {
                    child.collect(doc, score);
                }
            })?;
        }
        Ok(child.harvest())
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(usize, f32)>>) -> tantivy::Result<Self::Fruit> {
        let mut all: Vec<(usize, f32)> = fruits.into_iter().flatten().collect();
        all.sort_by(by_score);
        all.truncate(self.k.max(1));
        Ok(all)
    }
}

impl BestScoresSegment {
    /// The score a new hit must beat: the worst kept one once `k` are kept.
    fn threshold(&self) -> Score {
        match self.heap.peek() {
            Some(worst) if self.heap.len() >= self.k => worst.1,
            _ => Score::MIN,
        }
    }
}

impl SegmentCollector for BestScoresSegment {
    type Fruit = Vec<(usize, f32)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(ord) = self.ord.first(doc) else {
            return;
        };
        let hit = Worse(ord as usize, score);
        if self.heap.len() < self.k {
            self.heap.push(hit);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && hit < *worst
        {
            *worst = hit;
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.heap.into_iter().map(|Worse(i, s)| (i, s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded heap keeps exactly what sorting everything and truncating keeps, ties
    /// included.
    #[test]
    fn the_heap_keeps_what_a_full_sort_keeps() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for k in [1, 3, 10, 50] {
            // Scores on a coarse grid, so many ties.
            let hits: Vec<(usize, f32)> = (0..400).map(|i| (i, rng.below(20) as f32)).collect();
            let mut heap = BinaryHeap::new();
            for &(i, s) in &hits {
                let hit = Worse(i, s);
                if heap.len() < k {
                    heap.push(hit);
                } else if let Some(mut worst) = heap.peek_mut()
                    && hit < *worst
                {
                    *worst = hit;
                }
            }
            let mut kept: Vec<(usize, f32)> = heap.into_iter().map(|Worse(i, s)| (i, s)).collect();
            kept.sort_by(by_score);
            let mut full = hits.clone();
            full.sort_by(by_score);
            full.truncate(k);
            assert_eq!(kept, full, "k = {k}");
        }
    }
}
