//! Several roots in one workspace, declared dependencies, and skipped packages reported with
//! their reasons (issue 13), on real builds of small libraries.

use gos_build::build::NoProgress;
use gos_build::relate::RelateOptions;
use gos_build::roots::{LibrarySpec, Root};
use gos_build::{BuildOptions, BuildReport, build_library};
use gos_core::{EdgeProvenance, Workspace};
use gos_testkit::repo;
use std::path::{Path, PathBuf};

fn opts(workspace: &Path) -> BuildOptions {
    BuildOptions {
        force: false,
        library: PathBuf::new(),
        workspace: workspace.to_path_buf(),
        relate: RelateOptions::default(),
        embed: None,
    }
}

fn build(spec: &LibrarySpec, workspace: &Path) -> BuildReport {
    build_library(&opts(workspace), spec, None, &NoProgress).expect("build succeeds")
}

fn write_skill(root: &Path, rel: &str, text: &str) {
    let dir = root.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn skill(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Does {name} things. Use when {name} is needed.\n{extra}---\n# {name}\n\nBody of {name}.\n"
    )
}

fn ids(ws: &Path) -> Vec<String> {
    let w = Workspace::open(ws).unwrap();
    w.manifest().nodes.iter().map(|n| n.id.clone()).collect()
}

#[test]
fn two_roots_with_the_same_folder_names_land_with_distinct_ids() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("team"), t.path().join("mine"));
    write_skill(&a, "pdf", &skill("pdf", ""));
    write_skill(&a, "tools/csv", &skill("csv", ""));
    write_skill(&b, "pdf", &skill("pdf", ""));
    let spec = LibrarySpec::new(
        vec![Root::unlabelled(&a), Root::unlabelled(&b)],
        vec![],
        vec![],
    );
    let ws = t.path().join("ws");
    let report = build(&spec, &ws);
    assert_eq!(report.nodes, 3);
    assert_eq!(ids(&ws), ["mine/pdf", "team/pdf", "team/tools/csv"]);
    let labels: Vec<_> = report.roots.iter().map(|r| r.label.clone()).collect();
    assert_eq!(labels, [Some("team".into()), Some("mine".into())]);
    let w = Workspace::open(&ws).unwrap();
    let roots: Vec<(&str, &str)> = w
        .info()
        .roots
        .iter()
        .map(|r| (r.label.as_str(), r.path.as_str()))
        .collect();
    let (ca, cb) = (a.canonicalize().unwrap(), b.canonicalize().unwrap());
    assert_eq!(
        roots,
        [
            ("team", ca.to_str().unwrap()),
            ("mine", cb.to_str().unwrap())
        ]
    );
    assert_eq!(w.info().library_root, ca.display().to_string());
    let node = &w.manifest().nodes[w.index_of("mine/pdf").unwrap()];
    assert_eq!(node.source_path, "mine/pdf/SKILL.md");
}

#[test]
fn one_plain_root_keeps_ids_and_workspace_json_as_before() {
    let t = tempfile::tempdir().unwrap();
    let ws = t.path().join("ws");
    build(&LibrarySpec::single(repo().join("fixtures/library")), &ws);
    let w = Workspace::open(&ws).unwrap();
    assert!(w.index_of("geo/shapefile-reader").is_some());
    assert!(w.info().roots.is_empty());
    let text = std::fs::read_to_string(ws.join("workspace.json")).unwrap();
    assert!(!text.contains("\"roots\""), "{text}");
    // An explicit label prefixes ids even for one root.
    let ws2 = t.path().join("ws2");
    let spec = LibrarySpec::new(
        vec![Root::labelled("fx", repo().join("fixtures/library"))],
        vec![],
        vec![],
    );
    build(&spec, &ws2);
    assert!(
        Workspace::open(&ws2)
            .unwrap()
            .index_of("fx/geo/shapefile-reader")
            .is_some()
    );
}

#[test]
fn a_workspace_inside_any_root_is_refused_before_any_work() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    write_skill(&a, "x", &skill("x", ""));
    write_skill(&b, "y", &skill("y", ""));
    let spec = LibrarySpec::new(
        vec![Root::unlabelled(&a), Root::unlabelled(&b)],
        vec![],
        vec![],
    );
    let inside = b.join("ws");
    let err = build_library(&opts(&inside), &spec, None, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("inside the library"), "{err}");
    assert!(!inside.exists());
}

#[test]
fn declared_dependencies_by_name_by_id_unresolved_and_ambiguous() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_skill(&lib, "docs/pdf-extract", &skill("pdf-extract", ""));
    write_skill(&lib, "a/csv", &skill("csv", ""));
    write_skill(&lib, "b/csv", &skill("csv", ""));
    write_skill(
        &lib,
        "docs/report",
        &skill(
            "report",
            "requires: [PDF-Extract, b/csv]\nmetadata:\n  requires: nowhere-skill\n",
        ),
    );
    write_skill(&lib, "c/table", &skill("table", "depends: csv\n"));
    let ws = t.path().join("ws");
    let report = build(&LibrarySpec::single(&lib), &ws);
    let d = &report.declared;
    assert_eq!((d.declarations, d.edges), (4, 2));
    // A bare name that names no skill under a generic key is a package requirement, not an
    // unresolved skill reference (issue 22 item 8).
    assert!(d.unresolved.is_empty());
    assert_eq!(d.packages.len(), 1);
    assert_eq!(d.packages[0].id, "docs/report");
    assert_eq!(d.packages[0].declaration.name, "nowhere-skill");
    assert_eq!(d.packages[0].declaration.key, "metadata.requires");
    assert_eq!(d.ambiguous.len(), 1);
    assert_eq!(d.ambiguous[0].id, "c/table");
    assert_eq!(d.ambiguous[0].candidates, ["a/csv", "b/csv"]);
    assert_eq!(report.edges_by_provenance.get("declared"), Some(&2));
    let w = Workspace::open(&ws).unwrap();
    let mut declared: Vec<(String, String, String)> = w
        .graph()
        .edges()
        .filter(|e| e.provenance == EdgeProvenance::Declared)
        .map(|e| (e.source.clone(), e.target.clone(), e.evidence.clone()))
        .collect();
    declared.sort();
    assert_eq!(
        declared,
        [
            (
                "b/csv".into(),
                "docs/report".into(),
                "requires: b/csv".into()
            ),
            (
                "docs/pdf-extract".into(),
                "docs/report".into(),
                "requires: PDF-Extract".into()
            ),
        ]
    );
}

#[test]
fn every_package_left_out_is_reported_with_path_and_reason() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_skill(&lib, "keep", &skill("keep", ""));
    write_skill(&lib, "drafts/wip", &skill("wip", ""));
    write_skill(&lib, "vendor/thing", &skill("thing", ""));
    write_skill(&lib, "broken", "");
    std::fs::write(lib.join(".gosignore"), "drafts/\n").unwrap();
    let spec = LibrarySpec::new(
        vec![Root::unlabelled(&lib)],
        vec![],
        vec!["vendor/*".into()],
    );
    let report = build(&spec, &t.path().join("ws"));
    assert_eq!(report.nodes, 1);
    assert_eq!(report.discovered, 4);
    let got: Vec<(&str, bool)> = report
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), !s.reason.is_empty()))
        .collect();
    assert_eq!(
        got,
        [
            ("broken", true),
            ("drafts/wip", true),
            ("vendor/thing", true)
        ]
    );
    assert!(report.skipped[0].reason.contains("empty SKILL.md"));
    assert!(report.skipped[1].reason.contains(".gosignore"));
    assert!(report.skipped[2].reason.contains("--exclude `vendor/*`"));
}
