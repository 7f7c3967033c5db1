//! The stage caches of live rebuilds (`gos_build::watch`): after each kind of edit, a rebuild
//! that takes what it can from the previous build's caches writes the workspace a full build
//! of the same library writes (manifest, graph, duplicate and alternative groups, report
//! counts, and BM25 scores bit for bit), and takes from the caches what the edit left alone.

use gos_build::BuildOptions;
use gos_build::build::{NoProgress, build_library, build_library_cached};
use gos_build::report::{BuildReport, ReuseStats};
use gos_build::roots::LibrarySpec;
use gos_build::watch::ParseCache;
use gos_core::index::lexical::{LexicalIndex, PART_DOCS};
use std::path::Path;

/// Skills in the generated library: three index parts.
const SKILLS: usize = 2 * PART_DOCS + 100;

const TOPICS: [&str; 12] = [
    "pdf", "csv", "mesh", "audio", "video", "geojson", "invoice", "genome", "chart", "email",
    "sql", "image",
];

/// A deterministic word stream (an LCG), so bodies differ and do not look like copies.
fn words(seed: usize, n: usize) -> String {
    let mut x = seed as u64 * 2_654_435_761 + 1;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            format!("w{}", (x >> 33) % 5_000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}\n")
}

fn name(i: usize) -> String {
    format!("{}-tool-{i}", TOPICS[i % TOPICS.len()])
}

/// `SKILLS` skills in two collections; every 40th has a light copy in a third one (a
/// near-duplicate group), and every 25th body names another skill to run first (a workflow
/// edge).
fn write_library(root: &Path) {
    for i in 0..SKILLS {
        let t = TOPICS[i % TOPICS.len()];
        let u = TOPICS[(i / TOPICS.len()) % TOPICS.len()];
        let description =
            format!("Converts {t} files into {u} tables. Use when {t} data must be read.");
        let mut body = words(i, 120);
        if i.is_multiple_of(25) {
            body.push_str(&format!("\n\nRun `{}` first.", name((i + 7) % SKILLS)));
        }
        let collection = if i.is_multiple_of(2) { "alpha" } else { "beta" };
        let dir = root.join(collection).join(name(i));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            skill_md(&name(i), &description, &body),
        )
        .unwrap();
        if i.is_multiple_of(40) {
            let dir = root.join("gamma").join(name(i));
            std::fs::create_dir_all(&dir).unwrap();
            let copy = format!("{body}\n\nCopied with one more line.");
            std::fs::write(
                dir.join("SKILL.md"),
                skill_md(&name(i), &description, &copy),
            )
            .unwrap();
        }
    }
}

fn skill_path(root: &Path, i: usize) -> std::path::PathBuf {
    let collection = if i.is_multiple_of(2) { "alpha" } else { "beta" };
    root.join(collection).join(name(i)).join("SKILL.md")
}

/// Everything the two workspaces must share: the files byte for byte, the report without its
/// timings and paths, and BM25 scores bit for bit.
fn assert_same_workspace(live: &Path, fresh: &Path, nodes: usize) {
    for file in [
        "manifest.json",
        "graph.json",
        "duplicates.json",
        "alternatives.json",
    ] {
        let (a, b) = (
            std::fs::read_to_string(live.join(file)),
            std::fs::read_to_string(fresh.join(file)),
        );
        assert_eq!(a.is_ok(), b.is_ok(), "{file}");
        assert!(
            a.ok() == b.ok(),
            "{file} differs between the live and the full build"
        );
    }
    let report = |ws: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(ws.join("build-report.json")).unwrap())
                .unwrap();
        let o = v.as_object_mut().unwrap();
        for key in ["stage_ms", "wall_ms", "workspace", "reused"] {
            o.remove(key);
        }
        o["semantic"].as_object_mut().unwrap().remove("ms");
        v
    };
    assert_eq!(report(live), report(fresh));
    let (a, b) = (
        LexicalIndex::open(&live.join("tantivy"), nodes).unwrap(),
        LexicalIndex::open(&fresh.join("tantivy"), nodes).unwrap(),
    );
    let bits = |h: Vec<(usize, f32)>| {
        h.into_iter()
            .map(|(n, s)| (n, s.to_bits()))
            .collect::<Vec<_>>()
    };
    for q in [
        "pdf tables",
        "w17 w230 w4000",
        "convert geojson files",
        "run first copied",
    ] {
        let terms = LexicalIndex::query_terms(q);
        let (x, y) = (a.search(&terms, 40).unwrap(), b.search(&terms, 40).unwrap());
        assert!(!x.is_empty(), "{q}");
        assert_eq!(bits(x), bits(y), "{q}");
    }
}

/// Default build options of `lib` into `workspace`.
fn options(lib: &Path, workspace: &Path) -> BuildOptions {
    BuildOptions {
        force: false,
        library: lib.to_path_buf(),
        workspace: workspace.to_path_buf(),
        relate: Default::default(),
        embed: None,
    }
}

#[test]
fn a_watch_rebuild_from_the_stage_caches_equals_a_full_build() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_library(&lib);
    let spec = LibrarySpec::single(&lib);
    let opts = |ws: &str| options(&lib, &t.path().join(ws));
    let cache = ParseCache::default();
    let live = opts("live");
    let first =
        build_library_cached(&live, &spec, None, &NoProgress, Some(&cache), true, &|_| {}).unwrap();
    assert_eq!(first.nodes, SKILLS + SKILLS.div_ceil(40));
    assert!(
        first.alternative.groups > 0 && first.workflow.edges > 0,
        "{first:?}"
    );
    let parts = first.nodes.div_ceil(PART_DOCS);
    assert_eq!(
        first.reused,
        Some(ReuseStats {
            index_parts_indexed: parts,
            ..ReuseStats::default()
        })
    );
    let rebuild = |changed: &Path| -> BuildReport {
        cache.invalidate(changed.parent().unwrap());
        let report =
            build_library_cached(&live, &spec, None, &NoProgress, Some(&cache), true, &|_| {})
                .unwrap();
        let fresh = build_library(&opts("fresh"), &spec, None, &NoProgress).unwrap();
        assert_eq!(fresh.reused, None);
        assert_same_workspace(&live.workspace, &t.path().join("fresh"), report.nodes);
        report
    };

    // 1. A body edit: only its own part, shingles and claims are computed again, and the
    // neighbour rows (names and descriptions only) are reused.
    let edited = skill_path(&lib, PART_DOCS + 3);
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(
        &edited,
        format!("{text}\nRun `{}` first. More words here.\n", name(5)),
    )
    .unwrap();
    let r = rebuild(&edited).reused.unwrap();
    let n = first.nodes;
    assert_eq!(
        r,
        ReuseStats {
            dedup_bodies: n - 1,
            workflow_bodies: n - 1,
            index_parts: parts - 1,
            index_parts_indexed: 1,
            // Three parts, one segment each: nothing to merge.
            index_segments_merged: 0,
            neighbour_rows: true,
        }
    );

    // 2. A description edit: the neighbour rows are computed again.
    let edited = skill_path(&lib, 11);
    let text = std::fs::read_to_string(&edited).unwrap();
    std::fs::write(&edited, text.replace("Converts", "Reads and converts")).unwrap();
    let r = rebuild(&edited).reused.unwrap();
    assert!(!r.neighbour_rows);
    assert_eq!((r.index_parts, r.dedup_bodies), (parts - 1, n - 1));

    // 3. One skill made a copy of another: the copy groups change, so every body's workflow
    // claims are read again.
    let (from, to) = (skill_path(&lib, 80), skill_path(&lib, 81));
    std::fs::copy(&from, &to).unwrap();
    let r = rebuild(&to).reused.unwrap();
    assert_eq!(r.workflow_bodies, 0);
    // The copy's content is the original's, whose shingles are known.
    assert_eq!(r.dedup_bodies, n);

    // 4. A removed skill: the positions after it move, so later parts are indexed again.
    let gone = skill_path(&lib, 2);
    std::fs::remove_dir_all(gone.parent().unwrap()).unwrap();
    let report = rebuild(&gone);
    assert_eq!(report.nodes, n - 1);
    let r = report.reused.unwrap();
    assert!(r.index_parts_indexed >= 1, "{r:?}");
    assert_eq!(
        r.index_parts + r.index_parts_indexed,
        (n - 1).div_ceil(PART_DOCS)
    );
    assert_eq!(r.dedup_bodies, n - 1);
}

/// A live rebuild (unmerged index segments) after a body edit differs from a full build
/// only in the last bits of BM25 scores, and the compaction that follows (a rebuild with one
/// segment and no change) writes the full build's workspace again; a description edit, whose
/// rebuild reads the BM25 neighbour rows again, writes one segment at once.
#[test]
fn a_compaction_after_live_rebuilds_equals_a_full_build() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_library(&lib);
    let spec = LibrarySpec::single(&lib);
    let opts = |ws: &str| options(&lib, &t.path().join(ws));
    let cache = ParseCache::default();
    let live = opts("live");
    let build = |changed: Option<&Path>, live_index: bool| -> ReuseStats {
        if let Some(p) = changed {
            cache.invalidate(p.parent().unwrap());
        }
        cache.set_live_index(live_index);
        let r = build_library_cached(&live, &spec, None, &NoProgress, Some(&cache), true, &|_| {})
            .unwrap();
        r.reused.unwrap()
    };
    let segments = |ws: &Path| {
        let n = gos_core::Workspace::open(ws)
            .unwrap()
            .manifest()
            .nodes
            .len();
        let index = LexicalIndex::open(&ws.join("tantivy"), n).unwrap();
        (index.segments(), n)
    };
    let first = build(None, false);
    let parts = first.index_parts_indexed;
    assert_eq!(parts, 3);

    for (what, i, edit) in [
        (
            "body",
            PART_DOCS + 3,
            "\nMore words about pdf tables here.\n",
        ),
        ("description", 11, ""),
    ] {
        let edited = skill_path(&lib, i);
        let text = std::fs::read_to_string(&edited).unwrap();
        let text = if edit.is_empty() {
            text.replace("Converts", "Reads and converts")
        } else {
            format!("{text}{edit}")
        };
        std::fs::write(&edited, text).unwrap();
        let r = build(Some(&edited), true);
        assert_eq!(
            (r.index_parts, r.index_parts_indexed),
            (parts - 1, 1),
            "{what}"
        );
        // Names and descriptions are unchanged by a body edit, so the rows read from the
        // one-segment index are taken and the index is written live (unmerged); a
        // description edit reads the rows again, from an index of one segment.
        let body = what == "body";
        assert_eq!(r.neighbour_rows, body, "{what}");
        assert_eq!(cache.wrote_live_index(), body, "{what}");
        let (n_segments, nodes) = segments(&live.workspace);
        assert_eq!(n_segments, if body { parts } else { 1 }, "{what}");
        build_library(&opts("fresh"), &spec, None, &NoProgress).unwrap();
        for file in ["manifest.json", "duplicates.json", "alternatives.json"] {
            let read = |ws: &str| std::fs::read_to_string(t.path().join(ws).join(file)).ok();
            assert!(read("live") == read("fresh"), "{what}: {file} differs");
        }
        let (a, b) = (
            LexicalIndex::open(&live.workspace.join("tantivy"), nodes).unwrap(),
            LexicalIndex::open(&t.path().join("fresh").join("tantivy"), nodes).unwrap(),
        );
        let terms = LexicalIndex::query_terms("pdf tables w17 w230 convert geojson");
        let fresh: std::collections::HashMap<usize, f32> =
            b.search(&terms, nodes).unwrap().into_iter().collect();
        let hits = a.search(&terms, nodes).unwrap();
        assert_eq!(hits.len(), fresh.len(), "{what}");
        for (node, score) in hits {
            let ulps = (score.to_bits() as i64 - fresh[&node].to_bits() as i64).abs();
            assert!(
                ulps <= 4,
                "{what}: node {node}: {score} vs {}",
                fresh[&node]
            );
        }

        if !body {
            // Written with one segment: already the full build's workspace.
            assert_same_workspace(&live.workspace, &t.path().join("fresh"), nodes);
        }
        let r = build(None, false);
        assert_eq!((r.index_parts, r.index_parts_indexed), (parts, 0), "{what}");
        // Every row now comes from one segment: the rows are taken either way.
        assert!(r.neighbour_rows, "{what}");
        assert_eq!(segments(&live.workspace).0, 1, "{what}");
        assert_same_workspace(&live.workspace, &t.path().join("fresh"), nodes);
    }
}
