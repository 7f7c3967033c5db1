//! Unit tests of the lexical index: analysis, fields, scores, the index built in parts.
use super::*;
use std::collections::HashMap;

const WORDS: [&str; 9] = [
    "mesh", "csv", "parse", "render", "pdf", "table", "geo", "stl", "json",
];

/// `n` documents over [`WORDS`]: document `i` is named by one word and has `i % 13 + 1` body
/// words, so the BM25 statistics vary.
fn word_docs(n: u64) -> Vec<LexicalDoc> {
    (0..n)
        .map(|i| {
            let w = |k: u64| WORDS[((i * 7 + k * 3) % WORDS.len() as u64) as usize];
            LexicalDoc {
                ord: i,
                id: format!("s{i}"),
                name: w(1).to_string(),
                body: (0..(i % 13 + 1)).map(w).collect::<Vec<_>>().join(" "),
                ..LexicalDoc::default()
            }
        })
        .collect()
}

/// An index built in parts and merged gives exactly the scores of one writer: the same
/// node for every hit, the same f32 score bit for bit, in the same order.
#[test]
fn an_index_built_in_parts_scores_exactly_as_one_writer() {
    let docs = word_docs(2_500);
    let one = tempfile::tempdir().unwrap();
    let parts = tempfile::tempdir().unwrap();
    LexicalIndex::build_in_parts(one.path(), &docs, 1).unwrap();
    LexicalIndex::build_in_parts(parts.path(), &docs, 3).unwrap();
    let a = LexicalIndex::open(one.path(), docs.len()).unwrap();
    let b = LexicalIndex::open(parts.path(), docs.len()).unwrap();
    for q in ["mesh csv", "render the stl table", "geo json pdf parse"] {
        let terms = LexicalIndex::query_terms(q);
        let (x, y) = (a.search(&terms, 50).unwrap(), b.search(&terms, 50).unwrap());
        assert_eq!(x.len(), 50, "{q}");
        let bits =
            |h: &[(usize, f32)]| h.iter().map(|(n, s)| (*n, s.to_bits())).collect::<Vec<_>>();
        assert_eq!(bits(&x), bits(&y), "{q}");
    }
}

#[test]
fn common_terms_leave_the_query_and_a_query_of_only_common_terms_stays() {
    let dir = tempfile::tempdir().unwrap();
    let bodies = [
        "parse the mesh file",
        "parse the log file",
        "parse the csv file",
        "render stl meshes",
    ];
    let docs = bodies.iter().enumerate().map(|(i, b)| LexicalDoc {
        ord: i as u64,
        id: format!("s{i}"),
        body: b.to_string(),
        ..LexicalDoc::default()
    });
    LexicalIndex::build(dir.path(), docs).unwrap();
    let index = LexicalIndex::open(dir.path(), bodies.len()).unwrap();
    let terms = LexicalIndex::query_terms("Parse the STL file");
    let keys = |t: &BTreeMap<String, u32>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&terms), ["file", "pars", "stl"]);
    // `pars` and `file` are in 3 of 4 bodies: above a share of 0.5.
    let kept = index.without_common_terms(&terms, 0.5).unwrap();
    assert_eq!(keys(&kept), ["stl"]);
    assert_eq!(index.without_common_terms(&terms, 1.0).unwrap(), terms);
    assert_eq!(
        keys(&index.without_common_terms(&terms, 0.75).unwrap()),
        keys(&terms)
    );
    let common = LexicalIndex::query_terms("parse file");
    assert_eq!(index.without_common_terms(&common, 0.5).unwrap(), common);
    // The search finds the one skill with the rare term first.
    assert_eq!(index.search(&kept, 4).unwrap()[0].0, 3);
}

#[test]
fn field_boosts_and_term_weights_change_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let docs = [
        LexicalDoc {
            ord: 0,
            id: "a".into(),
            name: "mesh".into(),
            body: "report".into(),
            ..LexicalDoc::default()
        },
        LexicalDoc {
            ord: 1,
            id: "b".into(),
            body: "mesh csv".into(),
            ..LexicalDoc::default()
        },
    ];
    LexicalIndex::build(dir.path(), docs).unwrap();
    let index = LexicalIndex::open(dir.path(), 2).unwrap();
    let terms = LexicalIndex::query_terms("mesh");
    let none = BTreeMap::new();
    let order = |hits: Vec<(usize, f32)>| hits.iter().map(|h| h.0).collect::<Vec<_>>();
    // The name match (boost 3) beats the body match.
    let default = index.search(&terms, 5).unwrap();
    assert_eq!(order(default.clone()), [0, 1]);
    assert_eq!(
        index
            .search_with(&terms, &none, &FieldBoosts::default(), 5)
            .unwrap(),
        default
    );
    // Without the name field only the body matches count.
    let no_name: FieldBoosts = "name=0".parse().unwrap();
    assert_eq!(
        order(index.search_with(&terms, &none, &no_name, 5).unwrap()),
        [1]
    );
    // A weight on `csv` lets the document that also holds csv win the two-term query.
    let both = LexicalIndex::query_terms("mesh csv");
    assert_eq!(order(index.search(&both, 5).unwrap()), [0, 1]);
    let weights: BTreeMap<String, f32> = [("csv".to_string(), 10.0)].into();
    assert_eq!(
        order(
            index
                .search_with(&both, &weights, &FieldBoosts::default(), 5)
                .unwrap()
        ),
        [1, 0]
    );
}

/// Block-max WAND keeps the same top k as scoring every match: the same nodes in the same
/// order, scores equal up to float summation order, over a Zipf-shaped vocabulary where most
/// documents share a common word with every query (what WAND skips).
#[test]
fn pruned_search_keeps_the_full_top_k() {
    let mut rng = crate::rng::SplitMix64::new(7);
    let vocab: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    let word = |rng: &mut crate::rng::SplitMix64| {
        // index = 400 * u^3: a few words in most documents, most words rare.
        let u = rng.unit_f64();
        vocab[(400.0 * u * u * u) as usize].clone()
    };
    let docs: Vec<LexicalDoc> = (0..3_000u64)
        .map(|i| {
            let len = 5 + rng.below(60);
            LexicalDoc {
                ord: i,
                id: format!("s{i}"),
                name: word(&mut rng),
                description: (0..4).map(|_| word(&mut rng)).collect::<Vec<_>>().join(" "),
                body: (0..len)
                    .map(|_| word(&mut rng))
                    .collect::<Vec<_>>()
                    .join(" "),
                ..LexicalDoc::default()
            }
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    LexicalIndex::build_in_parts(dir.path(), &docs, 1).unwrap();
    let index = LexicalIndex::open(dir.path(), docs.len()).unwrap();
    let none = BTreeMap::new();
    let fields: FieldBoosts = "meta=0,headings=0,body=0".parse().unwrap();
    for q in 0..60 {
        let text = (0..12)
            .map(|_| word(&mut rng))
            .collect::<Vec<_>>()
            .join(" ");
        let terms = LexicalIndex::query_terms(&text);
        for (f, k) in [(&fields, 16), (&FieldBoosts::default(), 5)] {
            let full = index.search_with(&terms, &none, f, k).unwrap();
            let pruned = index.search_pruned(&terms, &none, f, k).unwrap();
            assert_eq!(full.len(), k, "query {q}");
            // Rank by rank the same score up to summation order; above the k-th score (where
            // a tie at the cut cannot pick differently) the same nodes.
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs();
            for (a, b) in full.iter().zip(&pruned) {
                assert!(close(a.1, b.1), "query {q}: {full:?} {pruned:?}");
            }
            let cut = full[k - 1].1;
            let above = |h: &[(usize, f32)]| {
                let mut v: Vec<usize> = h
                    .iter()
                    .filter(|x| !close(x.1, cut) && x.1 > cut)
                    .map(|x| x.0)
                    .collect();
                v.sort_unstable();
                v
            };
            assert_eq!(above(&full), above(&pruned), "query {q}: {text}");
            assert!(
                above(&full).len() >= k / 2,
                "query {q}: too many ties to test"
            );
        }
    }
}

/// 17 parts of documents over [`WORDS`] (5 segments of 3 parts and one of 2), and the same
/// documents after one body in the second part changed.
fn edited_docs() -> (Vec<LexicalDoc>, Vec<LexicalDoc>) {
    let mut docs = word_docs(2 * MAX_SEGMENTS as u64 * PART_DOCS as u64 + 40);
    for d in &mut docs {
        d.description = WORDS[((d.ord * 7 + 6) % WORDS.len() as u64) as usize].to_string();
    }
    let before = docs.clone();
    docs[PART_DOCS + 5].body = "zebrafish pdf pdf table mesh".into();
    (before, docs)
}

const QUERIES: [&str; 3] = [
    "pdf table",
    "render the stl table",
    "geo json pdf parse mesh",
];

fn stat(reused: usize, indexed: usize, merged: usize) -> PartStats {
    PartStats {
        reused,
        indexed,
        merged,
    }
}

fn bits(h: &[(usize, f32)]) -> Vec<(usize, u32)> {
    h.iter().map(|(n, s)| (*n, s.to_bits())).collect()
}

/// An index built from cached parts and segments, after one document changed, scores
/// exactly as a fresh one-segment build of the changed documents; only the changed part is
/// indexed again and only its segment merged again, and a live rebuild in between leaves
/// the caches the one-segment rebuild then uses.
#[test]
fn a_reused_part_index_scores_exactly_as_a_fresh_build() {
    let (before, docs) = edited_docs();
    let mut cache = PartCache::default();
    let first = tempfile::tempdir().unwrap();
    let stats =
        LexicalIndex::build_reusing(first.path(), &before, &mut cache, SegmentLayout::One).unwrap();
    assert_eq!(stats, stat(0, 17, 6));
    let live = tempfile::tempdir().unwrap();
    let stats =
        LexicalIndex::build_reusing(live.path(), &docs, &mut cache, SegmentLayout::Live).unwrap();
    assert_eq!(stats, stat(16, 1, 1));
    let again = tempfile::tempdir().unwrap();
    let stats =
        LexicalIndex::build_reusing(again.path(), &docs, &mut cache, SegmentLayout::One).unwrap();
    assert_eq!(stats, stat(17, 0, 0));
    assert_eq!(cache.len(), 17);
    let fresh = tempfile::tempdir().unwrap();
    LexicalIndex::build_in_parts(fresh.path(), &docs, 1).unwrap();
    let a = LexicalIndex::open(again.path(), docs.len()).unwrap();
    let b = LexicalIndex::open(fresh.path(), docs.len()).unwrap();
    assert_eq!((a.segments(), b.segments()), (1, 1));
    let none = BTreeMap::new();
    for q in QUERIES {
        let terms = LexicalIndex::query_terms(q);
        let (x, y) = (a.search(&terms, 60).unwrap(), b.search(&terms, 60).unwrap());
        assert_eq!(x.len(), 60, "{q}");
        assert_eq!(bits(&x), bits(&y), "{q}");
        let f = FieldBoosts::default();
        let (x, y) = (
            a.search_pruned(&terms, &none, &f, 60).unwrap(),
            b.search_pruned(&terms, &none, &f, 60).unwrap(),
        );
        assert_eq!(bits(&x), bits(&y), "{q}");
        assert_eq!(a.idf_mass(&terms).unwrap(), b.idf_mass(&terms).unwrap());
    }
    // The edited document is the only one with its new word; the index before the edit has
    // none, and its scores for the shared words differ.
    let terms = LexicalIndex::query_terms("zebrafish");
    let hits: Vec<usize> = a.search(&terms, 5).unwrap().iter().map(|h| h.0).collect();
    assert_eq!(hits, vec![PART_DOCS + 5]);
    let c = LexicalIndex::open(first.path(), docs.len()).unwrap();
    assert!(c.search(&terms, 5).unwrap().is_empty());
    let terms = LexicalIndex::query_terms("pdf table");
    assert_ne!(
        bits(&a.search(&terms, 60).unwrap()),
        bits(&c.search(&terms, 60).unwrap())
    );
}

/// A live index (several segments, not merged) finds the documents a fresh one-segment
/// build finds, with every score within a few units in the last place of the one-segment
/// score (the order in which tantivy adds a document's clause scores depends on the
/// segmentation), and reads every stored body.
#[test]
fn a_live_layout_scores_within_a_few_ulps_of_a_fresh_build() {
    let (before, docs) = edited_docs();
    let mut cache = PartCache::default();
    let first = tempfile::tempdir().unwrap();
    LexicalIndex::build_reusing(first.path(), &before, &mut cache, SegmentLayout::One).unwrap();
    let live = tempfile::tempdir().unwrap();
    LexicalIndex::build_reusing(live.path(), &docs, &mut cache, SegmentLayout::Live).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    LexicalIndex::build_in_parts(fresh.path(), &docs, 1).unwrap();
    let a = LexicalIndex::open(live.path(), docs.len()).unwrap();
    let b = LexicalIndex::open(fresh.path(), docs.len()).unwrap();
    assert_eq!((a.segments(), b.segments()), (6, 1));
    let none = BTreeMap::new();
    let f = FieldBoosts::default();
    let close = |x: f32, y: f32| (x.to_bits() as i64 - y.to_bits() as i64).abs() <= 4;
    for q in QUERIES {
        let terms = LexicalIndex::query_terms(q);
        let all = docs.len();
        let (x, y) = (
            a.search(&terms, all).unwrap(),
            b.search(&terms, all).unwrap(),
        );
        assert!(x.len() > 1_000, "{q}: {} hits", x.len());
        let fresh: HashMap<usize, f32> = y.iter().copied().collect();
        assert_eq!(x.len(), fresh.len(), "{q}");
        for (node, score) in &x {
            assert!(
                close(*score, fresh[node]),
                "{q}: {node} {score} {}",
                fresh[node]
            );
        }
        // The pruned search keeps the top scores (ties may be other documents).
        let (x, y) = (
            a.search_pruned(&terms, &none, &f, 60).unwrap(),
            b.search_pruned(&terms, &none, &f, 60).unwrap(),
        );
        assert_eq!(x.len(), y.len(), "{q}");
        for ((_, s), (_, t)) in x.iter().zip(&y) {
            assert!(close(*s, *t), "{q}: {s} {t}");
        }
        assert_eq!(a.idf_mass(&terms).unwrap(), b.idf_mass(&terms).unwrap());
    }
    for ord in [0, PART_DOCS + 5, docs.len() - 1] {
        assert_eq!(a.body(ord).unwrap(), Some(docs[ord].body.clone()));
    }
}

/// The two-phase search ([`LexicalIndex::search_rare_first`]) finds the exact top k, each
/// score within summation order of the full query's, when the rarer terms' candidates hold
/// it; a document that matches on common words alone is never a candidate, and one whose
/// rare-term score is low is missed with a short candidate list (the documented limits).
#[test]
fn rare_first_search_finds_the_top_k_among_its_candidates() {
    let common = ["data", "file", "use"];
    let mut docs: Vec<LexicalDoc> = (0..600u64)
        .map(|i| LexicalDoc {
            ord: i,
            id: format!("s{i}"),
            name: format!("r{}", i % 97),
            // Every document holds one or two common words and two rare ones (r0-r96).
            description: format!(
                "{} {} r{} r{}",
                common[(i % 3) as usize],
                if i % 3 == 0 { "file" } else { "" },
                (i * 7) % 97,
                (i * 13) % 97
            ),
            ..LexicalDoc::default()
        })
        .collect();
    // Common words only, repeated: the full query ranks it first.
    docs[599].name = "data".into();
    docs[599].description = "data file use data file use data file".into();
    // One rare word and many common ones: high by the full query, low by the rare word.
    docs[598].name = "use".into();
    docs[598].description = "r5 data file use data file use".into();
    let dir = tempfile::tempdir().unwrap();
    LexicalIndex::build_in_parts(dir.path(), &docs, 1).unwrap();
    let index = LexicalIndex::open(dir.path(), docs.len()).unwrap();
    let none = BTreeMap::new();
    let fields: FieldBoosts = "meta=0,headings=0,body=0".parse().unwrap();
    let terms = LexicalIndex::query_terms("r5 r12 r40 data file use");
    let full = index.search_with(&terms, &none, &fields, 11).unwrap();
    let mut top2 = [full[0].0, full[1].0];
    top2.sort_unstable();
    assert_eq!(top2, [598, 599], "{full:?}");
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs();
    // Common: the words of more than 10% of the descriptions (data, file, use). Every
    // document with a rare word is a candidate: the full top 10 less the common-words one.
    let all = index
        .search_rare_first(&terms, &fields, 10, 600, 0.1)
        .unwrap();
    assert_eq!(all.len(), 10);
    let without: Vec<&(usize, f32)> = full.iter().filter(|h| h.0 != 599).collect();
    for (a, b) in without.iter().zip(&all) {
        assert_eq!(a.0, b.0, "{full:?} {all:?}");
        assert!(close(a.1, b.1), "{full:?} {all:?}");
    }
    // Top 2 from two candidates: the documents best on the rare words alone, scored in full.
    let few = index.search_rare_first(&terms, &fields, 2, 2, 0.1).unwrap();
    assert_eq!(few.len(), 2);
    assert!(few.iter().all(|h| h.0 != 598 && h.0 != 599), "{few:?}");
    for h in &few {
        let f = full.iter().find(|f| f.0 == h.0).expect("a full-query hit");
        assert!(close(f.1, h.1), "{h:?} {f:?}");
    }
    // No common term at this share: the plain pruned search.
    assert_eq!(
        index
            .search_rare_first(&terms, &fields, 10, 10, 1.0)
            .unwrap(),
        index.search_pruned(&terms, &none, &fields, 10).unwrap()
    );
}
