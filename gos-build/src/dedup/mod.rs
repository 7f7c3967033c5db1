//! Near-duplicate groups: packages that are lightly edited copies of one skill.
//!
//! Real libraries hold the same skill in several collections (a `pdf` or `xlsx` skill copied
//! with small edits), and a bundle that holds two copies spends a slot on nothing new. The
//! builder groups such copies; retrieval keeps one member of a group per bundle and lists the
//! others as alternates (`gos_core::workspace::duplicates`).
//!
//! Method (Broder's MinHash with locality-sensitive hashing, "On the resemblance and
//! containment of documents", 1997; Leskovec, Rajaraman and Ullman, *Mining of Massive
//! Datasets*, ch. 3):
//!
//! 1. A package's text is its SKILL.md body, lower-cased and split into runs of ASCII letters
//!    and digits; its *shingles* are the runs of [`DedupParams::shingle_words`] consecutive
//!    words, each hashed with 64-bit FNV-1a. Shingles found in more than
//!    [`DedupParams::max_shingle_df`] bodies are template boilerplate, not a skill's own text,
//!    and are dropped (on the real library, 628 distinct `*-automation` skills generated from
//!    one template share most of their body and would otherwise form one group). Bodies left
//!    with fewer than [`DedupParams::min_shingles`] shingles are too short to judge and join
//!    no group.
//! 2. A MinHash signature of `bands × rows` values (the minimum over the shingles of
//!    SplitMix64-mixed hashes, one seed per value) estimates Jaccard similarity.
//! 3. Two packages whose signatures agree on all `rows` values of at least one band become a
//!    candidate pair; with 16 bands of 4 rows a pair at Jaccard 0.7 is a candidate with
//!    probability 1 − (1 − 0.7⁴)¹⁶ ≈ 0.99, one at 0.3 with probability ≈ 0.12.
//! 4. Each candidate pair is confirmed by the exact Jaccard similarity of the two shingle sets
//!    (at least [`DedupParams::threshold`]), so no pair below the threshold is ever grouped;
//!    groups are the connected components of confirmed pairs.
//! 5. A confirmed pair must also name one skill: one normalized name (frontmatter name or
//!    folder name, lower-cased words joined by `-`) holds the other's as whole words, or their
//!    descriptions share at least [`DedupParams::min_description_overlap`] of the shorter
//!    one's words (the overlap coefficient; a pair with an empty description passes). Copies
//!    keep a name or rewrite the description around the same words; skills generated from one
//!    template keep the body and change both. On the real library this splits the one
//!    template group that the body test let through (`senior-computer-vision`,
//!    `senior-data-engineer`, `senior-ml-engineer`, `senior-prompt-engineer`,
//!    `senior-data-scientist`: description overlaps 0.36 to 0.46), and every other confirmed
//!    pair of the 262 groups passes (renamed copies such as `remotion-video-creation` /
//!    `remotion-best-practices` through their descriptions, overlap 1.0).
//!
//! Text similarity, not vector cosine, because copies share their wording while distinct
//! skills on one topic share only their vocabulary: on the real library, two different skills
//! built from one template (`senior-frontend` and `senior-qa`) sit at Jaccard 0.51, and
//! `create-implementation-plan` / `update-implementation-plan` at 0.69; copies of one skill
//! across collections sit at 0.7 to 1.0. The default threshold 0.7 was read off those pairs.

use frequency::ShingleFrequencies;
use gos_core::rng::SplitMix64;
use gos_core::workspace::duplicates::DuplicateGroups;
use minhash::signature;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

mod frequency;
mod minhash;

/// Parameters of the grouping. Defaults: 5-word shingles, Jaccard ≥ 0.7, 16 bands of 4 rows,
/// at least 20 shingles, shingles of at most 16 bodies, description overlap ≥ 0.5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DedupParams {
    /// Words per shingle.
    pub shingle_words: usize,
    /// Least exact Jaccard similarity of two shingle sets for them to be one skill.
    pub threshold: f64,
    /// LSH bands.
    pub bands: usize,
    /// MinHash values per band.
    pub rows: usize,
    /// Least shingles a body needs to be grouped at all.
    pub min_shingles: usize,
    /// Most bodies a shingle may occur in and still count (more: boilerplate). On the real
    /// library the groups are the same for any value from 8 to 64 (262 groups of 2 to 5 before
    /// the identity test of step 5, 261 with it);
    /// without the cap, template-generated skills chain into one group of 628.
    pub max_shingle_df: usize,
    /// Least overlap coefficient of the description words of a confirmed pair whose names
    /// differ (module documentation, step 5); 0 turns the identity test off.
    pub min_description_overlap: f64,
}

/// What the grouping reads of one package.
#[derive(Debug, Clone, Copy, Default)]
pub struct DedupDoc<'a> {
    /// SKILL.md body (shingled).
    pub body: &'a str,
    /// Display name (frontmatter `name`, else the folder name).
    pub name: &'a str,
    /// Folder name of the package.
    pub folder: &'a str,
    /// Description.
    pub description: &'a str,
}

/// Lower-cased ASCII alphanumeric words of `text`.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

/// `name` as lower-cased words joined by `-` (`Senior ML_Engineer` -> `senior-ml-engineer`).
fn normalized_name(name: &str) -> String {
    words(name).collect::<Vec<_>>().join("-")
}

/// Whether two packages whose bodies are copies also name one skill (module documentation,
/// step 5).
fn same_skill(a: &DedupDoc, b: &DedupDoc, min_description_overlap: f64) -> bool {
    let names = |d: &DedupDoc| [normalized_name(d.name), normalized_name(d.folder)];
    let (na, nb) = (names(a), names(b));
    // Whole words: `xlsx` is inside `xlsx-official`, `ml` is not inside `html-tools`.
    let contains = |x: &String, y: &String| {
        !x.is_empty() && !y.is_empty() && format!("-{x}-").contains(&format!("-{y}-"))
    };
    if na
        .iter()
        .any(|x| nb.iter().any(|y| contains(x, y) || contains(y, x)))
    {
        return true;
    }
    let da: BTreeSet<String> = words(a.description).collect();
    let db: BTreeSet<String> = words(b.description).collect();
    let shorter = da.len().min(db.len());
    if shorter == 0 {
        return true;
    }
    da.intersection(&db).count() as f64 / shorter as f64 >= min_description_overlap
}

impl Default for DedupParams {
    fn default() -> Self {
        DedupParams {
            shingle_words: 5,
            threshold: 0.7,
            bands: 16,
            rows: 4,
            min_shingles: 20,
            max_shingle_df: 16,
            min_description_overlap: 0.5,
        }
    }
}

/// 64-bit FNV-1a (Fowler, Noll, Vo) of `bytes`.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The sorted, de-duplicated shingle hashes of `text` (see the module documentation).
pub fn shingles(text: &str, words_per_shingle: usize) -> Vec<u64> {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let k = words_per_shingle.max(1);
    let mut out: Vec<u64> = if words.len() < k {
        Vec::new()
    } else {
        words
            .windows(k)
            .map(|w| {
                let joined = w.iter().flat_map(|s| s.bytes().chain([b' ']));
                fnv1a(joined)
            })
            .collect()
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// Exact Jaccard similarity of two sorted, de-duplicated sets; 0 when both are empty.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Find in a union-find forest, with path halving.
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Groups of near-duplicate packages: each group holds at least two indices into `docs`,
/// sorted ascending; groups are sorted by their first index. Deterministic for a given input.
/// Shingles are computed in parallel (rayon); the cost is dominated by them and by the exact
/// Jaccard of candidate pairs (about a second for 5,584 real packages).
pub fn groups(docs: &[DedupDoc], params: &DedupParams) -> Vec<Vec<usize>> {
    groups_cached(docs, params, None)
}

/// Per-body work of [`groups`] kept between the builds of one live session
/// ([`crate::watch`]), by package content (`keys`: the SKILL.md's SHA-256, of which the body
/// is a function): each body's shingle set; the document frequencies of all shingles, updated
/// by the bodies that changed ([`frequency`]); and each body's set without the boilerplate
/// shingles and its MinHash signature, both valid while the boilerplate list and the
/// parameters are the ones they were computed with. A rebuild then shingles, filters and
/// signs only changed bodies; the grouping itself is redone over all of them, so the groups
/// are the ones [`groups`] finds.
#[derive(Default)]
pub(crate) struct DedupCache {
    shingles: HashMap<String, Arc<Vec<u64>>>,
    frequencies: Option<ShingleFrequencies>,
    filtered: HashMap<String, Arc<Vec<u64>>>,
    signatures: HashMap<String, Arc<Vec<u64>>>,
    signed_with: Option<(DedupParams, Vec<u64>)>,
    /// Bodies whose shingles the last build took from the cache.
    pub(crate) reused: usize,
}

/// The boilerplate shingles of `sets` (those of more than `max_df` bodies), sorted: every
/// body's (already de-duplicated) hashes sorted once and runs counted, which is cheaper than
/// a hash map over the ~5.6 M shingles of the real library.
fn boilerplate_of(sets: &[Vec<u64>], max_df: usize) -> Vec<u64> {
    let mut all: Vec<u64> = sets.iter().flatten().copied().collect();
    all.par_sort_unstable();
    all.chunk_by(|a, b| a == b)
        .filter(|run| run.len() > max_df)
        .map(|run| run[0])
        .collect()
}

/// `set` without the hashes of `boilerplate` (sorted).
fn without(set: &[u64], boilerplate: &[u64]) -> Vec<u64> {
    set.iter()
        .copied()
        .filter(|h| boilerplate.binary_search(h).is_err())
        .collect()
}

/// The filtered shingle sets of `docs` and the boilerplate list, from `cache` where it holds
/// them (see [`DedupCache`]), filling it with this build's entries only.
fn filtered_sets_cached(
    docs: &[DedupDoc],
    params: &DedupParams,
    keys: &[&str],
    c: &mut DedupCache,
) -> (Vec<Arc<Vec<u64>>>, Vec<u64>) {
    let raw: Vec<Arc<Vec<u64>>> = docs
        .par_iter()
        .enumerate()
        .map(|(i, d)| match c.shingles.get(keys[i]) {
            Some(set) => Arc::clone(set),
            None => Arc::new(shingles(d.body, params.shingle_words)),
        })
        .collect();
    c.reused = keys.iter().filter(|k| c.shingles.contains_key(**k)).count();
    let frequencies = match c.frequencies.as_mut() {
        Some(f) => {
            f.update(keys, &raw, &c.shingles, params.max_shingle_df);
            f
        }
        None => c
            .frequencies
            .insert(ShingleFrequencies::count(keys, &raw, params.max_shingle_df)),
    };
    let boilerplate = frequencies.boilerplate().to_vec();
    let signed_with = Some((*params, boilerplate.clone()));
    if c.signed_with != signed_with {
        c.filtered.clear();
        c.signatures.clear();
        c.signed_with = signed_with;
    }
    let sets: Vec<Arc<Vec<u64>>> = raw
        .par_iter()
        .enumerate()
        .map(|(i, set)| match c.filtered.get(keys[i]) {
            Some(f) => Arc::clone(f),
            None => Arc::new(without(set, &boilerplate)),
        })
        .collect();
    // Keep exactly this build's entries, so removed packages do not pile up.
    let own = |v: &[Arc<Vec<u64>>]| -> HashMap<String, Arc<Vec<u64>>> {
        keys.iter()
            .map(|k| k.to_string())
            .zip(v.iter().cloned())
            .collect()
    };
    c.shingles = own(&raw);
    c.filtered = own(&sets);
    (sets, boilerplate)
}

/// [`groups`], reading and filling `cache` (with `keys[i]` the content key of `docs[i]`).
pub(crate) fn groups_cached(
    docs: &[DedupDoc],
    params: &DedupParams,
    mut cache: Option<(&[&str], &mut DedupCache)>,
) -> Vec<Vec<usize>> {
    let sets: Vec<Arc<Vec<u64>>> = match cache.as_mut() {
        Some((keys, c)) => filtered_sets_cached(docs, params, keys, c).0,
        None => {
            let mut sets: Vec<Vec<u64>> = docs
                .par_iter()
                .map(|d| shingles(d.body, params.shingle_words))
                .collect();
            let boilerplate = boilerplate_of(&sets, params.max_shingle_df);
            if !boilerplate.is_empty() {
                sets.par_iter_mut()
                    .for_each(|set| *set = without(set, &boilerplate));
            }
            sets.into_iter().map(Arc::new).collect()
        }
    };
    let mut seed_gen = SplitMix64::new(0x6f73_5f64_6564_7570);
    let seeds: Vec<u64> = (0..params.bands * params.rows)
        .map(|_| seed_gen.next_u64())
        .collect();
    let judged: Vec<usize> = (0..docs.len())
        .filter(|&i| sets[i].len() >= params.min_shingles.max(1))
        .collect();
    // Signatures parallel to `judged`.
    let sigs: Vec<Arc<Vec<u64>>> = {
        let known = cache.as_ref().map(|(keys, c)| (*keys, &c.signatures));
        judged
            .par_iter()
            .map(|&i| match known.and_then(|(keys, m)| m.get(keys[i])) {
                Some(sig) => Arc::clone(sig),
                None => Arc::new(signature(&sets[i], &seeds)),
            })
            .collect()
    };
    if let Some((keys, c)) = cache {
        c.signatures = judged
            .iter()
            .map(|&i| keys[i].to_string())
            .zip(sigs.iter().cloned())
            .collect();
    }
    let mut candidates: BTreeSet<(usize, usize)> = BTreeSet::new();
    for band in 0..params.bands {
        let mut buckets: BTreeMap<&[u64], Vec<usize>> = BTreeMap::new();
        for (&i, sig) in judged.iter().zip(&sigs) {
            buckets
                .entry(&sig[band * params.rows..(band + 1) * params.rows])
                .or_default()
                .push(i);
        }
        for members in buckets.values().filter(|m| m.len() > 1) {
            for (x, &a) in members.iter().enumerate() {
                for &b in &members[x + 1..] {
                    candidates.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    let mut parent: Vec<usize> = (0..docs.len()).collect();
    for (a, b) in candidates {
        if jaccard(&sets[a], &sets[b]) >= params.threshold
            && same_skill(&docs[a], &docs[b], params.min_description_overlap)
        {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..docs.len() {
        let r = find(&mut parent, i);
        by_root.entry(r).or_default().push(i);
    }
    by_root.into_values().filter(|g| g.len() > 1).collect()
}

/// The groups of `docs` (parallel to `ids`, the workspace's node order) as stored in the
/// workspace ([`gos_core::workspace::duplicates::DUPLICATES_FILE`]); `None` when there is no group.
pub fn stored_groups(
    ids: &[&str],
    docs: &[DedupDoc],
    params: &DedupParams,
) -> Option<DuplicateGroups> {
    stored_groups_cached(ids, docs, params, None)
}

/// [`stored_groups`] through [`groups_cached`].
pub(crate) fn stored_groups_cached(
    ids: &[&str],
    docs: &[DedupDoc],
    params: &DedupParams,
    cache: Option<(&[&str], &mut DedupCache)>,
) -> Option<DuplicateGroups> {
    let found = groups_cached(docs, params, cache);
    if found.is_empty() {
        return None;
    }
    Some(DuplicateGroups {
        method: format!(
            "MinHash LSH over word {}-shingles of SKILL.md bodies ({} bands of {} rows), \
             confirmed by exact Jaccard; shingles of more than {} bodies dropped; bodies under \
             {} shingles are not grouped; a pair needs one name inside the other or \
             descriptions sharing {} of the shorter one's words",
            params.shingle_words,
            params.bands,
            params.rows,
            params.max_shingle_df,
            params.min_shingles,
            params.min_description_overlap
        ),
        threshold: params.threshold,
        groups: found
            .into_iter()
            .map(|g| g.into_iter().map(|i| ids[i].to_string()).collect())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body of `n` distinct words drawn from a fixed generator.
    fn words(seed: u64, n: usize) -> Vec<String> {
        let mut r = SplitMix64::new(seed);
        (0..n).map(|_| format!("w{}", r.below(5_000))).collect()
    }

    #[test]
    fn shingles_ignore_case_and_punctuation() {
        let a = shingles("Parse the STL, then weigh it: mass = volume * density.", 3);
        let b = shingles("parse the stl then weigh it mass volume density", 3);
        assert_eq!(a, b);
        assert_eq!(a.len(), 7);
        assert!(shingles("too short", 5).is_empty());
        // FNV-1a 64 test vector.
        assert_eq!(fnv1a(*b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn jaccard_counts_common_over_union() {
        assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5, 6]), 2.0 / 6.0);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
    }

    /// Packages of one name (so that only the bodies decide).
    fn docs<'a>(bodies: &[&'a str]) -> Vec<DedupDoc<'a>> {
        bodies
            .iter()
            .map(|b| DedupDoc {
                body: b,
                name: "pdf",
                folder: "pdf",
                description: "",
            })
            .collect()
    }

    #[test]
    fn copies_group_and_distinct_texts_do_not() {
        let base = words(1, 300);
        // A light edit: 5 of 300 words changed (Jaccard of 5-shingles about 0.84).
        let mut edited = base.clone();
        for i in (0..300).step_by(60) {
            edited[i] = format!("edit{i}");
        }
        // A heavy edit: every 6th word changed (about 0.09: one 5-word window in six survives).
        let mut heavy = base.clone();
        for i in (0..300).step_by(6) {
            heavy[i] = format!("heavy{i}");
        }
        let other = words(2, 300);
        let texts: Vec<String> = [&other, &base, &heavy, &edited, &base]
            .iter()
            .map(|w| w.join(" "))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let p = DedupParams::default();
        let sb = shingles(refs[1], 5);
        assert!(jaccard(&sb, &shingles(refs[3], 5)) > 0.7);
        assert!(jaccard(&sb, &shingles(refs[2], 5)) < 0.5);
        assert_eq!(groups(&docs(&refs), &p), vec![vec![1, 3, 4]]);
        // Too-short bodies never group, even when identical.
        assert!(groups(&docs(&["a b c", "a b c"]), &p).is_empty());
        // Shared boilerplate does not make distinct skills copies: 20 bodies of one template
        // (300 common words) around 40 words of their own are no group; with the
        // boilerplate counted they all are.
        let template = words(3, 300).join(" ");
        let templated: Vec<String> = (0..20)
            .map(|i| format!("{template} {}", words(100 + i, 40).join(" ")))
            .collect();
        let refs: Vec<&str> = templated.iter().map(String::as_str).collect();
        assert!(groups(&docs(&refs), &p).is_empty());
        let counted = DedupParams {
            max_shingle_df: usize::MAX,
            ..p
        };
        assert_eq!(
            groups(&docs(&refs), &counted),
            vec![(0..20).collect::<Vec<_>>()]
        );
    }

    #[test]
    fn a_copied_body_under_another_skill_name_and_description_is_no_copy() {
        let body = words(7, 300).join(" ");
        let doc = |name, folder, description| DedupDoc {
            body: &body,
            name,
            folder,
            description,
        };
        let vision = "Computer vision: image processing and object detection.";
        let data = "Data pipelines, ETL and data quality checks.";
        let ml = "Machine learning model training and deployment.";
        let pkgs = [
            // Template siblings: one body, their own names and descriptions.
            doc("senior-computer-vision", "senior-computer-vision", vision),
            doc("senior-data-engineer", "senior-data-engineer", data),
            doc("senior-ml-engineer", "senior-ml-engineer", ml),
            // A renamed copy whose description keeps the original's words (overlap 1.0).
            doc(
                "remotion-video-creation",
                "remotion-video-creation",
                "Best practices for Remotion: video creation in React, 29 rules.",
            ),
            doc(
                "remotion-best-practices",
                "remotion-best-practices",
                "Best practices for Remotion - video creation in React",
            ),
            // A copy whose folder name holds the other's name (`xlsx` in `xlsx-official`).
            doc("xlsx", "xlsx", "Spreadsheets."),
            doc(
                "Excel official",
                "xlsx-official",
                "Work with workbooks of every kind.",
            ),
        ];
        let p = DedupParams::default();
        assert!(!same_skill(&pkgs[0], &pkgs[1], 0.5));
        assert_eq!(groups(&pkgs, &p), vec![vec![3, 4], vec![5, 6]]);
        // The identity test off: the shared body makes all seven one group.
        let off = DedupParams {
            min_description_overlap: 0.0,
            ..p
        };
        assert_eq!(groups(&pkgs, &off), vec![(0..7).collect::<Vec<_>>()]);
        assert_eq!(normalized_name("Senior ML_Engineer"), "senior-ml-engineer");
        // Names match as whole words only.
        let named = |name| DedupDoc {
            body: "",
            name,
            folder: name,
            description: "Unrelated words here.",
        };
        let other = DedupDoc {
            description: "Nothing in common.",
            ..named("ml")
        };
        assert!(!same_skill(&named("html-tools"), &other, 0.5));
        assert!(same_skill(&named("ml-ops"), &other, 0.5));
    }
}
