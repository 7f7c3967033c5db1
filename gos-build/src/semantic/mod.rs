//! Semantic edges: two skills of one narrow capability cluster (\[P\] §3.2, the `semantic`
//! relation), found offline from the skills' content alone.
//!
//! **With skill vectors** (a build with `--model-dir`): each skill's `k` nearest neighbours by
//! the cosine of the stored, L2-normalized vectors (the first part of the text view, `card` by
//! default); a pair becomes a candidate when each is among the other's `k` nearest (*mutual*
//! kNN) and its cosine is at least `cosine_floor`. Provenance [`EdgeProvenance::Vector`].
//!
//! **Without vectors** (the lexical default): each skill's name and description, analyzed as a
//! query, searched by BM25 over the `name` and `description` fields of the workspace's tantivy
//! index; the score relative to the skill's own score (its query against itself) plays the
//! cosine's part, with floor `bm25_floor`. Mutual top-`k` as above. Provenance
//! [`EdgeProvenance::Bm25`].
//!
//! Both then need **specific evidence**: at least `min_shared_terms` shared *specific terms*
//! ([`SpecificTerms`]: lower-case words of name, description and headings, stop words out,
//! used by at most `max(3, N / 100)` skills). Without it, template siblings join: on the real
//! library the 786 composiohq `X-automation` skills ("Automate X tasks via Rube MCP
//! (Composio)...") reach in-degree 389 in plain 5NN and mutual pairs at cosine 0.80-0.86
//! with nothing in common but the template. Last, a **cap per node**: candidates are taken in
//! descending similarity while both ends have fewer than `max_per_node` semantic edges.
//!
//! Each edge is stored once, from the smaller node index to the larger (the relation is
//! symmetric); weight = the cosine (or relative BM25 score), rounded to 6 digits; evidence
//! `cosine 0.71; shared: ffmpeg, trim` (`bm25 0.52; ...` for lexical), at most 4 terms,
//! rarest first.
//!
//! Cost: the vector path is [`gos_core::index::dense::knn`]: exact blocked top-k (sgemm tiles,
//! query blocks in parallel) up to [`EXACT_LIMIT`] skills, O(N² · dim) multiply-adds (5,584 x
//! 384 on the real library: about 1.2 · 10¹⁰; 100,000 x 384: 3.8 · 10¹², timed in
//! docs/graph-quality.md), and an HNSW graph (instant-distance) with one search per skill above
//! it. The lexical path is one BM25 query per skill; from [`PRUNE_FROM`] skills up it runs in
//! two phases ([`LexicalIndex::search_rare_first`]): a skill's name and description share a
//! common word ("use", "file") with a large share of a big library, so block-max WAND over the
//! rarer terms picks the candidates, skipping the posting blocks that cannot reach them, and
//! the common terms are scored for those candidates alone. Ratios are compared on a 5-decimal
//! grid so that summation order cannot reorder copies of one skill; the two phases can miss a
//! neighbour that matches on common words alone (measured at [`RARE_FIRST_MAX_DF_SHARE`]).
//!
//! No collection, folder or path is read: edges come from content only.

use gos_core::index::dense::HnswParams;
use gos_core::index::dense::Vectors;
use gos_core::index::dense::knn::all_top_k;
use gos_core::index::lexical::{FieldBoosts, LexicalIndex};
use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

mod terms;
pub use terms::SpecificTerms;

/// Library size up to which the neighbour search is exact (beyond it, HNSW; see the module
/// docs): ../shared/docs/toolchain-notes.md measured exact search cheaper than HNSW up to
/// about 100,000 vectors, and the blocked exact pass fits the 3 minutes there.
pub const EXACT_LIMIT: usize = 100_000;

/// Parameters of the semantic pass. Defaults were read off the real library (5,584 skills,
/// all-MiniLM-L6-v2 card vectors; docs/graph-quality.md): k 15, cosine floor 0.4, one shared
/// specific term, 6 edges per node give 9,616 edges, 63 of the 149 DEV oracle pairs joined,
/// 18% of skills without a semantic edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticOptions {
    /// Neighbours per skill; a pair must be among each other's `k` (mutual kNN). 0 turns
    /// semantic edges off.
    pub k: usize,
    /// Least cosine of a vector pair, in [-1, 1].
    pub cosine_floor: f32,
    /// Least BM25 score of a lexical pair relative to the querying skill's own score, in
    /// [0, 1] (both directions must reach it).
    pub bm25_floor: f32,
    /// Least shared specific terms ([`SpecificTerms`]).
    pub min_shared_terms: usize,
    /// Most semantic edges per node.
    pub max_per_node: usize,
    /// A term used by more skills than this is not specific; 0 means `max(3, N / 100)`.
    pub term_max_df: usize,
}

impl Default for SemanticOptions {
    fn default() -> Self {
        SemanticOptions {
            k: 15,
            cosine_floor: 0.4,
            bm25_floor: 0.3,
            min_shared_terms: 1,
            max_per_node: 6,
            term_max_df: 0,
        }
    }
}

/// Counters of the semantic pass (the build report's `semantic` entry).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SemanticStats {
    /// `vector` or `bm25`.
    pub method: String,
    /// Mutual pairs above the floor.
    pub mutual_pairs: usize,
    /// Of those, dropped for lack of a shared specific term.
    pub without_terms: usize,
    /// Of the rest, dropped by the cap per node.
    pub capped: usize,
    /// Edges made.
    pub edges: usize,
    /// Milliseconds spent.
    pub ms: u64,
}

/// The `k` best `(node, similarity)` of each row, best first (ties by node index), self
/// excluded: exact and blocked up to [`EXACT_LIMIT`] rows, HNSW above
/// ([`gos_core::index::dense::knn::all_top_k`]). Cost O(N² · dim) exact.
pub fn vector_neighbours(vectors: &Vectors, k: usize) -> Vec<Vec<(usize, f32)>> {
    all_top_k(vectors, k, EXACT_LIMIT, &HnswParams::default())
}

fn top_k(row: &mut Vec<(usize, f32)>, k: usize) {
    let by = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if row.len() > k && k > 0 {
        row.select_nth_unstable_by(k - 1, by);
    }
    row.truncate(k);
    row.sort_by(by);
}

/// Skills from which the neighbour queries run in two phases
/// ([`LexicalIndex::search_rare_first`]: block-max WAND over the rarer terms, then the common
/// terms' scores added to the best [`RARE_FIRST_CANDIDATES`]); below it every match is scored.
/// Measured on one AMD EPYC (2 vCPUs, AVX-512), real-shaped `gos synth` libraries, the semantic
/// stage with plain block-max WAND: real library (5,584) 0.8 s scored vs 1.8 s pruned, 20,000
/// 5.4 vs 3.6 s, 100,000 109 vs 45 s (docs/performance.md); the two phases then took the
/// 100,000 stage from 68 to 34 s on an Intel Xeon (2 vCPUs).
pub const PRUNE_FROM: usize = 10_000;

/// Neighbour-query terms in more than this share of the descriptions are scored only for the
/// candidates the rarer terms find ([`LexicalIndex::search_rare_first`]). At 100,000
/// real-shaped skills, 0.05 with [`RARE_FIRST_CANDIDATES`] 256 kept 99.8% of the exact pass's
/// semantic edges (37 of 21,089 lost, 235 gained where a slot freed by a skill that matched
/// on common words alone went to another) at half its time; 0.1 kept every edge and saved
/// nothing (docs/performance.md).
pub const RARE_FIRST_MAX_DF_SHARE: f64 = 0.05;

/// Candidates per neighbour query that the rarer terms pick for exact scoring (see
/// [`RARE_FIRST_MAX_DF_SHARE`]); 64 lost 138 of the 21,089 edges at 100,000 skills.
pub const RARE_FIRST_CANDIDATES: usize = 256;

/// Hits fetched beyond a neighbour query's `k + 1`, so that skills tied on the ratio grid
/// (copies of one skill score alike) are all seen before ties are broken by node index.
const TIE_SLACK: usize = 8;

/// A BM25 ratio rounded to 5 decimals. Block-max WAND adds a document's term scores in an
/// order that depends on where its posting cursors stand, so two copies of one skill can
/// differ in the last bit of their score; on the grid they tie, and the lower node index wins,
/// as it did when every match was scored in one order.
fn on_grid(ratio: f32) -> f32 {
    (ratio * 1e5).round() / 1e5
}

/// The `k` best BM25 neighbours of each node by name and description, scores relative to the
/// node's own score (see the module docs); a node whose query matches nothing, itself
/// included, has none.
///
/// # Errors
/// [`gos_core::Error::Index`] when a search fails.
pub fn bm25_neighbours(
    nodes: &[SkillNode],
    index: &LexicalIndex,
    k: usize,
) -> gos_core::Result<Vec<Vec<(usize, f32)>>> {
    let share = (nodes.len() >= PRUNE_FROM).then_some(RARE_FIRST_MAX_DF_SHARE);
    bm25_rows(nodes, index, k, share)
}

/// [`bm25_neighbours`]: every match scored (`rare_first` `None`), or in two phases with
/// common terms above that share of the descriptions ([`LexicalIndex::search_rare_first`];
/// 1.0 leaves no common term: plain block-max WAND).
fn bm25_rows(
    nodes: &[SkillNode],
    index: &LexicalIndex,
    k: usize,
    rare_first: Option<f64>,
) -> gos_core::Result<Vec<Vec<(usize, f32)>>> {
    let fields = FieldBoosts {
        name: 1.0,
        description: 1.0,
        meta: 0.0,
        headings: 0.0,
        body: 0.0,
    };
    let none = std::collections::BTreeMap::new();
    nodes
        .par_iter()
        .enumerate()
        .map(|(i, n)| {
            let text = format!(
                "{} {}",
                n.name.replace(['-', '_'], " "),
                n.description.value
            );
            let terms = LexicalIndex::query_terms(&text);
            let hits = if let Some(share) = rare_first {
                index.search_rare_first(
                    &terms,
                    &fields,
                    k + 1 + TIE_SLACK,
                    RARE_FIRST_CANDIDATES,
                    share,
                )?
            } else {
                index.search_with(&terms, &none, &fields, k + 1 + TIE_SLACK)?
            };
            let own = hits.iter().find(|h| h.0 == i).map(|h| h.1);
            let Some(own) = own.filter(|s| *s > 0.0) else {
                return Ok(Vec::new());
            };
            // Ratios on the grid, best first, ties by node: the query's own top k + 1, which
            // must hold the query's own skill; the other k are the row.
            let mut ranked: Vec<(usize, f32)> = hits
                .into_iter()
                .map(|(j, s)| (j, on_grid((s / own).min(1.0))))
                .collect();
            top_k(&mut ranked, k + 1);
            let Some(me) = ranked.iter().position(|h| h.0 == i) else {
                return Ok(Vec::new());
            };
            ranked.remove(me);
            Ok(ranked)
        })
        .collect()
}

/// Semantic edges from per-node neighbour lists (`neighbours[i]`: `(j, similarity)`, best
/// first): mutual pairs at or above `floor`, with shared specific terms, capped per node (see
/// the module docs). `label` starts the evidence (`cosine`, `bm25`).
pub fn semantic_edges(
    nodes: &[SkillNode],
    neighbours: &[Vec<(usize, f32)>],
    floor: f32,
    provenance: EdgeProvenance,
    opts: &SemanticOptions,
    stats: &mut SemanticStats,
) -> Vec<SkillEdge> {
    let n = nodes.len();
    let max_df = match opts.term_max_df {
        0 => (n / 100).max(3),
        m => m,
    };
    let terms = SpecificTerms::new(nodes, max_df);
    let label = match provenance {
        EdgeProvenance::Bm25 => "bm25",
        _ => "cosine",
    };
    let sets: Vec<HashMap<usize, f32>> = neighbours
        .iter()
        .map(|row| {
            row.iter()
                .take(opts.k)
                .filter(|(_, s)| *s >= floor)
                .copied()
                .collect()
        })
        .collect();
    let mut candidates: Vec<(f32, usize, usize)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        for (&j, &s) in set {
            if i < j
                && let Some(&back) = sets[j].get(&i)
            {
                stats.mutual_pairs += 1;
                if terms.shared(i, j).len() < opts.min_shared_terms.max(1) {
                    stats.without_terms += 1;
                    continue;
                }
                // The smaller of the two directions (equal for cosine).
                candidates.push((s.min(back), i, j));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut degree = vec![0usize; n];
    let mut edges = Vec::new();
    for (s, i, j) in candidates {
        if degree[i] >= opts.max_per_node || degree[j] >= opts.max_per_node {
            stats.capped += 1;
            continue;
        }
        degree[i] += 1;
        degree[j] += 1;
        let shared: Vec<&str> = terms.shared(i, j).into_iter().take(4).collect();
        edges.push(SkillEdge {
            source: nodes[i].id.clone(),
            target: nodes[j].id.clone(),
            edge_type: EdgeType::Semantic,
            weight: (f64::from(s) * 1e6).round() / 1e6,
            provenance,
            evidence: format!("{label} {s:.2}; shared: {}", shared.join(", ")),
        });
    }
    stats.edges = edges.len();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;
    use std::collections::BTreeSet;

    pub(super) fn node(name: &str, description: &str) -> SkillNode {
        SkillNode {
            id: format!("c/{name}"),
            name: name.into(),
            description: Field::parsed(description.into()),
            capability: Field::default(),
            inputs: Field::default(),
            outputs: Field::default(),
            domain_tags: Field::default(),
            tooling: Field::default(),
            example_tasks: Field::default(),
            entrypoints: Field::default(),
            headings: vec![],
            source_path: format!("c/{name}/SKILL.md"),
            content_hash: String::new(),
            warnings: Vec::new(),
        }
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    fn vectors(rows: Vec<Vec<f32>>) -> Vectors {
        let hashes = (0..rows.len()).map(|i| i.to_string()).collect();
        let dim = rows[0].len();
        Vectors::from_rows("m".into(), "card".into(), dim, rows, hashes).unwrap()
    }

    fn opts(k: usize, cap: usize) -> SemanticOptions {
        SemanticOptions {
            k,
            max_per_node: cap,
            term_max_df: 2,
            ..SemanticOptions::default()
        }
    }

    /// Scored and pruned neighbour queries give the same rows, and copies of one skill tie on
    /// the grid with the lower node first.
    #[test]
    fn pruned_bm25_neighbours_equal_the_scored_ones_and_copies_tie_by_node() {
        let mut rng = gos_core::rng::SplitMix64::new(3);
        let vocab: Vec<String> = (0..2_000).map(|i| format!("w{i}")).collect();
        let mut nodes: Vec<SkillNode> = (0..400)
            .map(|i| {
                let len = 4 + rng.below(12);
                let words: Vec<&str> = (0..len)
                    .map(|_| vocab[(2_000.0 * rng.unit_f64().powi(3)) as usize].as_str())
                    .collect();
                node(&format!("s{i}"), &words.join(" "))
            })
            .collect();
        // Three copies of one skill (the name is the folder's, so it is shared too).
        for i in [40, 200, 390] {
            nodes[i].name = "copy".into();
            nodes[i].description = Field::parsed("w3 w7 w50 w90 merge tables".into());
        }
        let docs: Vec<gos_core::index::lexical::LexicalDoc> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| gos_core::index::lexical::LexicalDoc {
                ord: i as u64,
                id: n.id.clone(),
                name: n.name.clone(),
                description: n.description.value.clone(),
                ..Default::default()
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        LexicalIndex::build(dir.path(), docs).unwrap();
        let index = LexicalIndex::open(dir.path(), nodes.len()).unwrap();
        let scored = bm25_rows(&nodes, &index, 15, None).unwrap();
        // With no common term, the two phases are plain block-max WAND.
        let pruned = bm25_rows(&nodes, &index, 15, Some(1.0)).unwrap();
        // The same neighbours; a ratio within one grid step (a sum that lands on the other
        // side of a rounding boundary).
        let close_rows = |a: &[(usize, f32)], b: &[(usize, f32)], what: String| {
            let nodes = |r: &[(usize, f32)]| r.iter().map(|x| x.0).collect::<Vec<_>>();
            assert_eq!(nodes(a), nodes(b), "{what}");
            for (x, y) in a.iter().zip(b) {
                assert!((x.1 - y.1).abs() <= 1.5e-5, "{what}: {x:?} {y:?}");
            }
        };
        for (i, (a, b)) in scored.iter().zip(&pruned).enumerate() {
            close_rows(a, b, format!("row {i}"));
        }
        // Two phases with the common terms those of more than 5% of the descriptions: each
        // row is the scored row of the skills that share a rarer term with the query (a skill
        // that matches on common words alone is no candidate), counted here by hand.
        let words = |n: &SkillNode| -> BTreeSet<String> {
            let text = format!("{} {}", n.name, n.description.value);
            LexicalIndex::query_terms(&text).into_keys().collect()
        };
        let sets: Vec<BTreeSet<String>> = nodes.iter().map(words).collect();
        let mut df: HashMap<String, usize> = HashMap::new();
        for n in &nodes {
            for w in LexicalIndex::query_terms(&n.description.value).into_keys() {
                *df.entry(w).or_default() += 1;
            }
        }
        let rare = |w: &str| df.get(w).copied().unwrap_or(0) as f64 <= 0.05 * nodes.len() as f64;
        let every = bm25_rows(&nodes, &index, nodes.len(), None).unwrap();
        let two = bm25_rows(&nodes, &index, 15, Some(0.05)).unwrap();
        let mut missed = 0;
        for (i, row) in two.iter().enumerate() {
            let expected: Vec<(usize, f32)> = every[i]
                .iter()
                .filter(|(j, _)| sets[*j].iter().any(|w| rare(w) && sets[i].contains(w)))
                .take(15)
                .copied()
                .collect();
            missed += usize::from(expected[..] != scored[i][..]);
            close_rows(row, &expected, format!("two phases, row {i}"));
        }
        // The case exists here: some rows lose a neighbour that shared only common words.
        assert!(missed > 0);
        assert!(scored.iter().filter(|r| r.len() == 15).count() > 300);
        assert_eq!(&scored[40][..2], &[(200, 1.0), (390, 1.0)]);
        assert_eq!(&scored[390][..2], &[(40, 1.0), (200, 1.0)]);
    }

    #[test]
    fn a_close_pair_sharing_a_tool_links_and_a_close_pair_sharing_nothing_does_not() {
        let nodes = vec![
            node("ffmpeg-trim", "Trim video clips with ffmpeg."),
            node("ffmpeg-concat", "Join video clips with ffmpeg."),
            node("slides", "Build slide decks."),
            node("posters", "Print posters."),
        ];
        // trim/concat: cosine 0.98, share `ffmpeg` (`video`, `clips` too: df 2);
        // slides/posters: cosine 0.96, share no word; trim/slides: cosine 0.16.
        let v = vectors(vec![
            unit(&[1.0, 0.2, 0.0]),
            unit(&[1.0, 0.0, 0.0]),
            unit(&[0.0, 1.0, 0.75]),
            unit(&[0.0, 0.75, 1.0]),
        ]);
        let nb = vector_neighbours(&v, 1);
        assert_eq!(nb[0][0].0, 1);
        assert_eq!(nb[2][0].0, 3);
        let mut stats = SemanticStats::default();
        let edges = semantic_edges(
            &nodes,
            &nb,
            0.4,
            EdgeProvenance::Vector,
            &opts(1, 6),
            &mut stats,
        );
        assert_eq!(edges.len(), 1);
        let e = &edges[0];
        assert_eq!(
            (e.source.as_str(), e.target.as_str()),
            ("c/ffmpeg-trim", "c/ffmpeg-concat")
        );
        assert_eq!(e.edge_type, EdgeType::Semantic);
        assert_eq!(e.evidence, "cosine 0.98; shared: clips, ffmpeg, video");
        assert!((e.weight - 0.980581).abs() < 1e-6, "{}", e.weight);
        assert_eq!((stats.mutual_pairs, stats.without_terms), (2, 1));
    }

    #[test]
    fn a_hub_every_node_points_to_is_capped_and_one_way_neighbours_do_not_link() {
        // Node 0 is every other node's nearest neighbour (a template hub): spoke i is
        // (1, e_i), cosine 0.71 to the hub and 0.5 to every other spoke. Each spoke shares one
        // rare word with the hub and none with the other spokes.
        let mut nodes = vec![node("hub", "alpha beta gamma delta epsilon zeta")];
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
        let mut rows = vec![unit(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])];
        for (i, w) in words.iter().enumerate() {
            nodes.push(node(&format!("spoke{i}"), w));
            let mut r = vec![0.0; 7];
            r[0] = 1.0;
            r[i + 1] = 1.0;
            rows.push(unit(&r));
        }
        let v = vectors(rows);
        let nb = vector_neighbours(&v, 6);
        // Every spoke has the hub first.
        assert!(nb[1..].iter().all(|row| row[0].0 == 0));
        let mut stats = SemanticStats::default();
        let edges = semantic_edges(
            &nodes,
            &nb,
            0.4,
            EdgeProvenance::Vector,
            &opts(6, 3),
            &mut stats,
        );
        // 21 mutual pairs; the 15 spoke pairs share no word; the cap keeps 3 of the 6 hub
        // pairs (the first spokes: ties go to the smaller index).
        assert_eq!(edges.len(), 3);
        assert!(edges.iter().all(|e| e.source == "c/hub"));
        assert_eq!(edges[0].target, "c/spoke0");
        assert_eq!((stats.mutual_pairs, stats.without_terms), (21, 15));
        assert_eq!(stats.capped, 3);
        // With k = 1 only the hub's own nearest spoke is mutual.
        let mut stats = SemanticStats::default();
        let nb1 = vector_neighbours(&v, 1);
        let edges = semantic_edges(
            &nodes,
            &nb1,
            0.4,
            EdgeProvenance::Vector,
            &opts(1, 3),
            &mut stats,
        );
        assert_eq!(edges.len(), 1);
        assert_eq!(stats.mutual_pairs, 1);
    }
}
