//! Candidate pools for relation validation: for each focus skill, at most k (default 8) other
//! skills worth asking the validator about, found through indexes, never by scoring all pairs.
//!
//! A pool is merged from a list of [`PoolProvider`]s by reciprocal rank fusion
//! (`sum 1 / (60 + rank)`, ties by node index). Providers now:
//!
//! - [`LexicalNeighbours`]: BM25 (the workspace's tantivy index) with the focus skill's name,
//!   capability, description, tags and artifact types as the query;
//! - [`IoNeighbours`]: producers of the focus skill's input types and consumers of its output
//!   types, through an inverted index over specific types (generic containers and types
//!   named by more than `max_type_df` nodes are left out).
//!
//! A dense provider (nearest neighbours in the workspace's sentence vectors) plugs in by
//! implementing [`PoolProvider`] and being added to the list given to [`build_pools`].
//!
//! Skills already joined to the focus skill by a deterministic dependency edge (io, mention,
//! declared; either direction) are left out of its pool, as in the reference (reference notes
//! §1.11 step 6): that edge already says what there is to say about the pair. Pairs joined
//! only by a similarity edge (semantic, alternative) stay in, so the validator can confirm,
//! retype or leave them.

use super::gates::GENERIC_CONTAINERS;
use gos_core::SkillNode;
use gos_core::index::lexical::LexicalIndex;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Reciprocal rank fusion constant.
const RRF_K: f64 = 60.0;

/// A source of neighbours for candidate pools.
///
/// Contract: `neighbours(focus, limit)` returns at most `limit` node indices, best first,
/// deterministic for the same library, never `focus` itself. An implementation that fails
/// (e.g. an index read error) returns what it has, possibly nothing: a pool provider never
/// fails the build.
pub trait PoolProvider: Sync {
    /// Short name, recorded in the pools file and the report.
    fn name(&self) -> &'static str;
    /// Neighbours of `focus`, best first.
    fn neighbours(&self, focus: usize, limit: usize) -> Vec<usize>;
}

/// BM25 neighbours through the lexical index.
pub struct LexicalNeighbours<'a> {
    nodes: &'a [SkillNode],
    index: &'a LexicalIndex,
}

impl<'a> LexicalNeighbours<'a> {
    /// A provider over `index` (built from `nodes`, node `i` = document `i`).
    pub fn new(nodes: &'a [SkillNode], index: &'a LexicalIndex) -> Self {
        LexicalNeighbours { nodes, index }
    }
}

/// Query text of a node for neighbour search: name, folder, capability, description (clipped),
/// domain tags and artifact types.
pub fn node_query_text(n: &SkillNode) -> String {
    let desc: String = n.description.value.chars().take(300).collect();
    let mut parts = vec![
        n.name.clone(),
        n.folder().replace(['-', '_'], " "),
        n.capability.value.clone(),
        desc,
    ];
    parts.extend(n.domain_tags.value.iter().cloned());
    parts.extend(n.inputs.value.iter().cloned());
    parts.extend(n.outputs.value.iter().cloned());
    parts.join("\n")
}

impl PoolProvider for LexicalNeighbours<'_> {
    fn name(&self) -> &'static str {
        "lexical"
    }

    fn neighbours(&self, focus: usize, limit: usize) -> Vec<usize> {
        let terms = LexicalIndex::query_terms(&node_query_text(&self.nodes[focus]));
        match self.index.search(&terms, limit + 1) {
            Ok(hits) => hits
                .into_iter()
                .map(|(i, _)| i)
                .filter(|&i| i != focus)
                .take(limit)
                .collect(),
            Err(e) => {
                tracing::warn!("lexical pool of {}: {e}", self.nodes[focus].id);
                Vec::new()
            }
        }
    }
}

/// I/O neighbours through inverted indexes of specific artifact types.
pub struct IoNeighbours<'a> {
    nodes: &'a [SkillNode],
    producers: HashMap<&'a str, Vec<usize>>,
    consumers: HashMap<&'a str, Vec<usize>>,
}

impl<'a> IoNeighbours<'a> {
    /// Index `nodes`; types named (as input or output) by more than `max_type_df` nodes, and
    /// generic containers, are not indexed.
    pub fn new(nodes: &'a [SkillNode], max_type_df: usize) -> Self {
        let mut df: HashMap<&str, usize> = HashMap::new();
        for n in nodes {
            let types: BTreeSet<&str> = n
                .inputs
                .value
                .iter()
                .chain(&n.outputs.value)
                .map(String::as_str)
                .collect();
            for t in types {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        let keep = |t: &str| {
            df.get(t).is_some_and(|&d| d <= max_type_df) && !GENERIC_CONTAINERS.contains(&t)
        };
        let mut producers: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut consumers: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            for t in n.outputs.value.iter().filter(|t| keep(t)) {
                producers.entry(t.as_str()).or_default().push(i);
            }
            for t in n.inputs.value.iter().filter(|t| keep(t)) {
                consumers.entry(t.as_str()).or_default().push(i);
            }
        }
        IoNeighbours {
            nodes,
            producers,
            consumers,
        }
    }
}

impl PoolProvider for IoNeighbours<'_> {
    fn name(&self) -> &'static str {
        "io"
    }

    fn neighbours(&self, focus: usize, limit: usize) -> Vec<usize> {
        let n = &self.nodes[focus];
        let mut shared: BTreeMap<usize, usize> = BTreeMap::new();
        for t in &n.inputs.value {
            for &p in self.producers.get(t.as_str()).into_iter().flatten() {
                *shared.entry(p).or_insert(0) += 1;
            }
        }
        for t in &n.outputs.value {
            for &c in self.consumers.get(t.as_str()).into_iter().flatten() {
                *shared.entry(c).or_insert(0) += 1;
            }
        }
        shared.remove(&focus);
        // Ties go to the smaller node index, never to the focus's own collection (a collection
        // signal the graph must not carry; docs/graph-quality.md).
        let mut ranked: Vec<(usize, usize)> = shared.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.into_iter().take(limit).map(|(i, _)| i).collect()
    }
}

/// Pool of `focus`: providers' neighbour lists (each asked for `2k`) fused by reciprocal rank,
/// minus `exclude(focus, candidate)` pairs, cut to `k`.
pub fn pool_of(
    focus: usize,
    k: usize,
    providers: &[&dyn PoolProvider],
    exclude: &dyn Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let mut score: BTreeMap<usize, f64> = BTreeMap::new();
    for p in providers {
        for (r, c) in p.neighbours(focus, 2 * k).into_iter().enumerate() {
            if c != focus && !exclude(focus, c) {
                *score.entry(c).or_insert(0.0) += 1.0 / (RRF_K + (r + 1) as f64);
            }
        }
    }
    let mut ranked: Vec<(usize, f64)> = score.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(k).map(|(i, _)| i).collect()
}

/// Pools of `focus_nodes` (in parallel; the result is in input order).
pub fn build_pools(
    focus_nodes: &[usize],
    k: usize,
    providers: &[&dyn PoolProvider],
    exclude: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Vec<Vec<usize>> {
    use rayon::prelude::*;
    focus_nodes
        .par_iter()
        .map(|&f| pool_of(f, k, providers, exclude))
        .collect()
}
