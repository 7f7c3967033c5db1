//! The semantic stage of a workspace with skill vectors in live rebuilds
//! (`gos_build::stage_cache::vector_semantic`): a body edit that leaves every card view as it
//! was takes the vector neighbour rows and the semantic edges from the previous build, a new
//! heading (shared specific terms) only the rows, a description edit computes both again, and
//! each time the workspace is the one a full build writes, byte for byte. Needs the sentence
//! encoder at `models/all-MiniLM-L6-v2`; skips with a message without it.

use gos_build::BuildOptions;
use gos_build::build::{NoProgress, build_library, build_library_cached};
use gos_build::embed::EmbedOptions;
use gos_build::roots::LibrarySpec;
use gos_build::watch::ParseCache;
use gos_testkit::model_dir;
use std::path::{Path, PathBuf};

const TOPICS: [&str; 6] = ["pdf", "csv", "audio", "video", "geojson", "invoice"];

/// Skill `i`: pairs `(2m, 2m + 1)` share a tool name (`toolkit-m`), the specific term a
/// semantic edge needs beside its cosine.
fn write_skill(root: &Path, i: usize, description_prefix: &str, extra_body: &str) -> PathBuf {
    let t = TOPICS[i % TOPICS.len()];
    let dir = root.join(format!("{t}-helper-{i}"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("SKILL.md");
    std::fs::write(
        &path,
        format!(
            "---\nname: {t}-helper-{i}\ndescription: {description_prefix}Reads {t} files with \
             toolkit-{pair} and summarises them. Use when {t} data must be checked.\n---\n\
             # {t} helper {i}\n\nOpen the file, check it, write a short summary.\n{extra_body}",
            pair = i / 2
        ),
    )
    .unwrap();
    path
}

fn options(lib: &Path, workspace: PathBuf, model: &Path) -> BuildOptions {
    BuildOptions {
        force: false,
        library: lib.to_path_buf(),
        workspace,
        relate: Default::default(),
        embed: Some(EmbedOptions::new(
            model.to_path_buf(),
            gos_models::dense::load_workspace_encoder,
        )),
    }
}

fn assert_same_files(live: &Path, fresh: &Path) {
    for file in [
        "manifest.json",
        "graph.json",
        "duplicates.json",
        "alternatives.json",
        "vectors-card.bin",
    ] {
        let (a, b) = (
            std::fs::read(live.join(file)),
            std::fs::read(fresh.join(file)),
        );
        // duplicates.json and alternatives.json are not written without copy groups.
        if file.ends_with(".bin") || file.starts_with("manifest") || file.starts_with("graph") {
            assert!(a.is_ok(), "{file} missing from the live build");
        }
        assert!(
            a.ok() == b.ok(),
            "{file} differs between the live and the full build"
        );
    }
}

#[test]
fn vector_rows_and_semantic_edges_are_reused_after_a_body_edit_and_recomputed_after_a_description_edit()
 {
    let Some(model) = model_dir() else { return };
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    let paths: Vec<PathBuf> = (0..12).map(|i| write_skill(&lib, i, "", "")).collect();
    let spec = LibrarySpec::single(&lib);
    let live = options(&lib, t.path().join("live"), &model);
    let cache = ParseCache::default();
    let first =
        build_library_cached(&live, &spec, None, &NoProgress, Some(&cache), true, &|_| {}).unwrap();
    let semantic = first.semantic.as_ref().expect("a semantic stage");
    assert_eq!(semantic.method, "vector");
    assert!(semantic.edges > 0, "{semantic:?}");
    assert!(!first.reused.as_ref().unwrap().neighbour_rows);

    let rebuild = |changed: &Path, fresh: &str| {
        cache.invalidate(changed.parent().unwrap());
        let report =
            build_library_cached(&live, &spec, None, &NoProgress, Some(&cache), true, &|_| {})
                .unwrap();
        let full = build_library(
            &options(&lib, t.path().join(fresh), &model),
            &spec,
            None,
            &NoProgress,
        )
        .unwrap();
        assert_same_files(&live.workspace, &t.path().join(fresh));
        let counts = |r: &gos_build::report::BuildReport| {
            let mut s = r.semantic.clone().expect("a semantic stage");
            s.ms = 0;
            s
        };
        assert_eq!(counts(&report), counts(&full));
        report.reused.unwrap().neighbour_rows
    };

    // A body sentence that names no type, tool or tag: the card views, hence the vectors, stay.
    let p = write_skill(&lib, 3, "", "Keep the summary short.\n");
    assert_eq!(p, paths[3]);
    assert!(
        rebuild(&p, "fresh1"),
        "rows and edges reused after a body edit"
    );

    // A new heading naming pair 0's toolkit: the card views and vectors stay, the rows are
    // reused, but the shared specific terms (headings count) change the edges, which are
    // computed again.
    let graph = || std::fs::read_to_string(live.workspace.join("graph.json")).unwrap();
    let before = graph();
    write_skill(
        &lib,
        3,
        "",
        "Keep the summary short.\n\n## Toolkit-0 and toolkit-2 notes\n",
    );
    assert!(rebuild(&p, "fresh2"), "rows reused after a heading edit");
    assert_ne!(graph(), before, "the heading changed the semantic edges");

    // A description edit changes that skill's vector: the rows are computed again.
    write_skill(
        &lib,
        3,
        "Carefully. ",
        "Keep the summary short.\n\n## Toolkit-0 and toolkit-2 notes\n",
    );
    assert!(
        !rebuild(&p, "fresh3"),
        "rows computed again after a description edit"
    );
}
