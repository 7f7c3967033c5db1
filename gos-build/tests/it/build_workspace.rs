//! End-to-end builds of small libraries: golden manifest, reproducibility, the prerequisite
//! chain (reverse mode brings the prerequisite, forward mode does not), and workspace safety.

use gos_build::build::NoProgress;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::{RetrievalMode, RetrieveOptions, Retriever, Workspace};
use gos_testkit::repo;
use std::path::Path;
use std::sync::Arc;

fn build(library: &Path, workspace: &Path) -> gos_build::BuildReport {
    let opts = BuildOptions {
        force: false,
        library: library.to_path_buf(),
        workspace: workspace.to_path_buf(),
        relate: RelateOptions::default(),
        embed: None,
    };
    build_workspace(&opts, &NoProgress).expect("build succeeds")
}

fn write_skill(root: &Path, id: &str, text: &str) {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// The manifest of `fixtures/library` equals the committed golden file. Regenerate it on
/// purpose with `GOS_UPDATE_GOLDEN=1 cargo test -p gos-build --test build_workspace`.
#[test]
fn fixtures_manifest_matches_golden_file() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let report = build(&repo().join("fixtures/library"), &ws);
    assert_eq!(report.nodes, 36);
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    let manifest = std::fs::read_to_string(ws.join("manifest.json")).unwrap();
    let golden_path = repo().join("manifests/golden/fixtures-manifest.json");
    if std::env::var_os("GOS_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_path.parent().unwrap()).unwrap();
        std::fs::write(&golden_path, &manifest).unwrap();
    }
    let golden = std::fs::read_to_string(&golden_path).expect("golden manifest is committed");
    assert!(
        manifest == golden,
        "manifest of fixtures/library differs from {}; if the change is intended, rerun with GOS_UPDATE_GOLDEN=1",
        golden_path.display()
    );
}

#[test]
fn building_twice_gives_byte_identical_manifest_and_graph() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = repo().join("fixtures/library");
    build(&lib, &tmp.path().join("a"));
    build(&lib, &tmp.path().join("b"));
    for f in ["manifest.json", "graph.json"] {
        let a = std::fs::read(tmp.path().join("a").join(f)).unwrap();
        let b = std::fs::read(tmp.path().join("b").join(f)).unwrap();
        assert!(a == b, "{f} differs between two builds");
    }
}

#[test]
fn fixture_chains_become_dependency_edges() {
    let tmp = tempfile::tempdir().unwrap();
    let ws_dir = tmp.path().join("ws");
    let report = build(&repo().join("fixtures/library"), &ws_dir);
    let ws = Workspace::open(&ws_dir).unwrap();
    let has = |s: &str, t: &str| {
        ws.graph().edges().any(|e| {
            e.source == s && e.target == t && e.edge_type == gos_core::EdgeType::Dependency
        })
    };
    assert!(has("geo/shapefile-reader", "geo/choropleth-map"));
    assert!(has("media/ffmpeg-extract-audio", "media/speech-to-text"));
    assert!(has("media/speech-to-text", "media/subtitle-translation"));
    assert!(has(
        "science/light-curve-preprocessing",
        "science/transit-search"
    ));
    let mention = ws
        .graph()
        .edges()
        .find(|e| e.source == "docs/pdf-text-extraction" && e.target == "docs/invoice-field-parser")
        .expect("mention edge");
    assert_eq!(mention.provenance, gos_core::EdgeProvenance::Mention);
    // Two image tools each take in what the other makes: neither is the other's
    // prerequisite, and both io edges go. The io edge from `sequence-alignment` back to
    // `fasta-reader` runs against the mention the text states and goes too.
    let io = |s: &str, t: &str| {
        ws.graph()
            .edges()
            .any(|e| e.source == s && e.target == t && e.provenance == gos_core::EdgeProvenance::Io)
    };
    let dropped = [
        ("media/image-ocr", "media/image-resize"),
        ("media/image-resize", "media/image-ocr"),
        ("science/sequence-alignment", "science/fasta-reader"),
    ];
    for (s, t) in dropped {
        assert!(!io(s, t), "{s} -> {t}");
    }
    assert!(ws.graph().edges().any(|e| {
        e.source == "science/fasta-reader"
            && e.target == "science/sequence-alignment"
            && e.provenance == gos_core::EdgeProvenance::Mention
    }));
    assert_eq!(report.relate.io_both_ways, 2);
    assert_eq!(report.relate.io_against_stated, 1);
    // Without the rule the io rule makes all three.
    let kept_dir = tmp.path().join("kept");
    let opts = BuildOptions {
        force: false,
        library: repo().join("fixtures/library"),
        workspace: kept_dir.clone(),
        relate: RelateOptions {
            io_drop_both_ways: false,
            ..RelateOptions::default()
        },
        embed: None,
    };
    let kept = build_workspace(&opts, &NoProgress).expect("build succeeds");
    assert_eq!(kept.relate.io_both_ways, 0);
    let kept = Workspace::open(&kept_dir).unwrap();
    for (s, t) in dropped {
        assert!(
            kept.graph().edges().any(|e| e.source == s
                && e.target == t
                && e.provenance == gos_core::EdgeProvenance::Io),
            "{s} -> {t} without the rule"
        );
    }
}

/// A prerequisite that shares no word with the query: only reverse-aware diffusion reaches it.
#[test]
fn reverse_mode_brings_the_prerequisite_and_forward_mode_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write_skill(
        &lib,
        "lab/zeta-reader",
        "---\nname: zeta-reader\ndescription: Decodes zeta instrument dumps.\ninputs: [zeta dump]\noutputs: [quux table]\n---\n# Zeta reader\nDecodes the binary dumps of the instrument.\n",
    );
    write_skill(
        &lib,
        "lab/quux-visualizer",
        "---\nname: quux-visualizer\ndescription: Draws heatmaps.\ninputs: [quux table]\noutputs: [svg]\n---\n# Heatmap drawing\nDraws a heatmap from the table.\n",
    );
    write_skill(
        &lib,
        "lab/unrelated",
        "---\nname: kettle\ndescription: Boils water.\n---\n# Kettle\nBoils water for tea.\n",
    );
    let ws_dir = tmp.path().join("ws");
    build(&lib, &ws_dir);
    let ws = Arc::new(Workspace::open(&ws_dir).unwrap());
    let r = Retriever::new(ws.clone());
    let query = "Draw a heatmap";
    let ids = |mode| -> Vec<String> {
        let opts = RetrieveOptions {
            mode,
            ..RetrieveOptions::default()
        };
        r.retrieve(query, &opts)
            .unwrap()
            .bundle
            .skills
            .into_iter()
            .map(|s| s.id)
            .collect()
    };
    let reverse = ids(RetrievalMode::Reverse);
    assert_eq!(reverse, vec!["lab/quux-visualizer", "lab/zeta-reader"]);
    let forward = ids(RetrievalMode::Forward);
    assert_eq!(forward, vec!["lab/quux-visualizer"]);
    let one_hop = ids(RetrievalMode::OneHop);
    assert_eq!(one_hop, vec!["lab/quux-visualizer", "lab/zeta-reader"]);
    assert_eq!(ids(RetrievalMode::NoGraph), vec!["lab/quux-visualizer"]);
    let full = r.retrieve(query, &RetrieveOptions::default()).unwrap();
    let why = &full.bundle.skills[1].reason;
    assert!(
        why.starts_with("prerequisite of quux-visualizer via dependency edge"),
        "{why}"
    );
}

#[test]
fn a_failed_build_leaves_the_previous_workspace_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build(&repo().join("fixtures/library"), &ws);
    let before = std::fs::read(ws.join("manifest.json")).unwrap();
    let opts = BuildOptions {
        force: false,
        library: tmp.path().join("does-not-exist"),
        workspace: ws.clone(),
        relate: RelateOptions::default(),
        embed: None,
    };
    let err = build_workspace(&opts, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("does-not-exist"), "{err}");
    assert_eq!(std::fs::read(ws.join("manifest.json")).unwrap(), before);
    Workspace::open(&ws).expect("previous workspace still opens");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".building-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn another_format_version_asks_for_a_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build(&repo().join("fixtures/library"), &ws);
    let info = std::fs::read_to_string(ws.join("workspace.json")).unwrap();
    let changed = info.replace("\"format_version\": 1", "\"format_version\": 99");
    assert_ne!(info, changed);
    std::fs::write(ws.join("workspace.json"), changed).unwrap();
    let err = Workspace::open(&ws).err().expect("must fail").to_string();
    assert!(
        err.contains("version 99") && err.contains("rebuild"),
        "{err}"
    );
}

#[test]
fn broken_packages_are_skipped_or_repaired_never_fatal() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let report = build(&repo().join("fixtures/odd"), &ws);
    assert!(report.nodes >= 10, "{report:?}");
    let skipped: Vec<&str> = report.skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, vec!["empty"], "{:?}", report.skipped);
    assert!(report.skipped[0].reason.contains("empty SKILL.md"));
    let repaired: Vec<&str> = report.recovered.iter().map(|r| r.path.as_str()).collect();
    for case in [
        "bom/SKILL.md",
        "crlf/SKILL.md",
        "colon-in-description/SKILL.md",
        "not-utf8/SKILL.md",
    ] {
        assert!(
            repaired.contains(&case),
            "{case} not reported as recovered: {repaired:?}"
        );
    }
    let w = Workspace::open(&ws).unwrap();
    let colon = w
        .manifest()
        .nodes
        .iter()
        .find(|n| n.id == "colon-in-description")
        .unwrap();
    assert!(
        colon.description.value.contains(": "),
        "{}",
        colon.description.value
    );
}

/// Every key the JSON Schema requires is present in every golden node, and no node has a key
/// the schema does not list (the schema says `additionalProperties: false`).
#[test]
fn golden_manifest_follows_the_json_schema_keys() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("manifests/manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("manifests/golden/fixtures-manifest.json")).unwrap(),
    )
    .unwrap();
    let node_schema = &schema["$defs"]["node"];
    let required: Vec<&str> = node_schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let allowed = node_schema["properties"].as_object().unwrap();
    assert_eq!(
        golden["schema_version"],
        schema["properties"]["schema_version"]["const"]
    );
    for node in golden["nodes"].as_array().unwrap() {
        let obj = node.as_object().unwrap();
        for k in &required {
            assert!(obj.contains_key(*k), "node {} lacks {k}", node["id"]);
        }
        for k in obj.keys() {
            assert!(
                allowed.contains_key(k),
                "node {} has unknown key {k}",
                node["id"]
            );
        }
    }
}
