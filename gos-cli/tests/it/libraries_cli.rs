//! The `gos` binary on libraries as people keep them (issue 13): several roots, the standard
//! agent folders, lint exit statuses, show and export on the fixtures, completions, progress
//! lines, the config file.

use crate::util::{gos, repo};
use std::path::Path;
use std::process::Output;

fn write_skill(root: &Path, rel: &str, text: &str) {
    let dir = root.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn skill(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Does {name} work. Use when {name} is asked for.\n---\n# {name}\n\nBody.\n"
    )
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}\nstdout {}\nstderr {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn manifest_ids(ws: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("manifest.json")).unwrap()).unwrap();
    m["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn two_roots_build_with_labelled_ids_and_progress_lines() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("alpha"), t.path().join("beta"));
    write_skill(&a, "pdf", &skill("pdf"));
    write_skill(&b, "pdf", &skill("pdf"));
    write_skill(&b, "empty", "");
    let ws = t.path().join("ws");
    let o = gos()
        .arg("build")
        .arg(&a)
        .arg(&b)
        .arg("-w")
        .arg(&ws)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(manifest_ids(&ws), ["alpha/pdf", "beta/pdf"]);
    let err = String::from_utf8_lossy(&o.stderr);
    // stderr is a pipe here: one line per stage, with a rate.
    assert!(
        err.lines()
            .any(|l| l.trim_start().starts_with("parse: 3/3 in") && l.ends_with("/s)")),
        "{err}"
    );
    assert!(err.contains("skipped beta/empty"), "{err}");
    assert!(
        err.contains("note: 1 skipped (1 unusable), 0 repaired, 0 declared dependencies not linked; details: gos lint --root alpha="),
        "{err}"
    );
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("workspace.json")).unwrap()).unwrap();
    let labels: Vec<&str> = info["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["alpha", "beta"]);
}

#[test]
fn agent_roots_finds_exactly_the_standard_folders_that_exist() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let cwd = t.path().join("project");
    write_skill(&home.join(".claude/skills"), "alpha", &skill("alpha"));
    write_skill(&home.join(".codex/skills"), "beta", &skill("beta"));
    std::fs::create_dir_all(home.join(".agents")).unwrap(); // no skills/ inside: not a root
    std::fs::create_dir_all(&cwd).unwrap();
    let ws = t.path().join("ws");
    let o = gos()
        .args(["build", "--agent-roots", "--json", "-w"])
        .arg(&ws)
        .env("HOME", &home)
        .current_dir(&cwd)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let roots: Vec<(&str, &str)> = report["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["label"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect();
    let claude = home.join(".claude/skills").canonicalize().unwrap();
    let codex = home.join(".codex/skills").canonicalize().unwrap();
    assert_eq!(
        roots,
        [
            ("claude-user", claude.to_str().unwrap()),
            ("codex-user", codex.to_str().unwrap())
        ]
    );
    assert_eq!(manifest_ids(&ws), ["claude-user/alpha", "codex-user/beta"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("agent root claude-user:"), "{err}");
    assert!(err.contains("agent root codex-user:"), "{err}");
}

#[test]
fn lint_exit_statuses_json_and_strict() {
    let t = tempfile::tempdir().unwrap();
    let clean = t.path().join("clean");
    write_skill(&clean, "alpha", &skill("alpha"));
    let o = gos().arg("lint").arg(&clean).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("1 package, 0 with findings: 0 errors, 0 warnings")
    );
    let warn = t.path().join("warn");
    write_skill(
        &warn,
        "beta",
        "---\nname: beta\ndescription: Converts files.\n---\nx\n",
    );
    let o = gos().arg("lint").arg(&warn).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("beta/SKILL.md\n     3: warning[description-when]"),
        "{out}"
    );
    let o = gos()
        .args(["lint", "--strict"])
        .arg(&warn)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let bad = t.path().join("bad");
    write_skill(
        &bad,
        "gamma",
        "---\nname: Gamma\ndescription: Use when needed.\n---\nx\n",
    );
    let o = gos().args(["lint", "--json"]).arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["errors"], 2);
    assert_eq!(v["by_rule"]["name-chars"], 1);
    assert_eq!(v["by_rule"]["name-folder"], 1);
    assert_eq!(v["diagnostics"][0]["line"], 2);
    let o = gos()
        .arg("lint")
        .arg(t.path().join("missing"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// `gos show` and `gos export` on the fixtures library. Hand-checked: geojson-reproject reads
/// geojson (also json and shapefile) and writes geojson; geojson-validate reads only geojson,
/// so reproject -> validate is an `io` edge of score 1; choropleth-map reads geojson and its
/// body also says to use the `geojson-reproject` skill first, but the `io` edge of the same pair
/// and weight 1 is kept (graph dedup). Nothing produces all of reproject's inputs: no edge in.
#[test]
fn show_and_export_on_the_fixtures() {
    let t = tempfile::tempdir().unwrap();
    let ws = t.path().join("ws");
    ok(&gos()
        .arg("build")
        .arg(repo().join("fixtures/library"))
        .arg("-w")
        .arg(&ws)
        .arg("-q")
        .output()
        .unwrap());
    let id = "geo/geojson-reproject";
    let o = gos()
        .args(["show", id, "--json", "-w"])
        .arg(&ws)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(v["node"]["id"], id);
    assert_eq!(v["edges_in"], serde_json::json!([]));
    let mut out: Vec<(String, String, String, f64)> = v["edges_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["target"].as_str().unwrap().to_owned(),
                e["provenance"].as_str().unwrap().to_owned(),
                e["evidence"].as_str().unwrap().to_owned(),
                e["weight"].as_f64().unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        out,
        [
            // The choropleth's body says "use the geojson-reproject skill first": a workflow
            // edge beside the io one (gos-build workflow).
            (
                "geo/choropleth-map".into(),
                "sequence".into(),
                "…is in geographic degrees and the map should be in an equal-area projection, \
                 use the geojson-reproject skill first; this skill does not transform \
                 coordinates."
                    .into(),
                1.0
            ),
            // The same body names the skill, so the dependency is the mention's: mention
            // edges are added before the io rule's, which would otherwise hide it (the io
            // edge of the pair, on `geojson`, was here until session 15).
            (
                "geo/choropleth-map".into(),
                "mention".into(),
                "`geojson-reproject` skill".into(),
                1.0
            ),
            (
                "geo/geojson-validate".into(),
                "io".into(),
                // The shared type, then the shared specific terms (gos-build edge_evidence).
                "geojson; coordinates".into(),
                1.0
            ),
        ]
    );
    let text = ok(&gos().args(["show", id, "-w"]).arg(&ws).output().unwrap());
    assert!(text.contains("description   [parsed] "), "{text}");
    assert!(
        text.contains("geo/geojson-reproject -> geo/geojson-validate  dependency io 1.00  geojson"),
        "{text}"
    );
    assert!(text.contains("edges in (0)"), "{text}");
    // Two `pdf` skills: each is the other's near-duplicate by name.
    let text = ok(&gos()
        .args(["show", "docs/pdf", "-w"])
        .arg(&ws)
        .output()
        .unwrap());
    assert!(text.contains("science/pdf (same name)"), "{text}");
    let o = gos()
        .args(["show", "nope", "-w"])
        .arg(&ws)
        .output()
        .unwrap();
    assert!(!o.status.success());

    // Whole graph: counts equal graph.json's.
    let graph: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("graph.json")).unwrap()).unwrap();
    let (n, m) = (
        graph["nodes"].as_array().unwrap().len(),
        graph["edges"].as_array().unwrap().len(),
    );
    assert_eq!(n, 36);
    let gml = t.path().join("g.graphml");
    ok(&gos()
        .args(["export", "--format", "graphml", "-o"])
        .arg(&gml)
        .arg("-w")
        .arg(&ws)
        .output()
        .unwrap());
    let text = std::fs::read_to_string(&gml).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("GraphML is XML");
    let count = |tag: &str| doc.descendants().filter(|x| x.has_tag_name(tag)).count();
    assert_eq!((count("node"), count("edge")), (n, m));
    // Neighbourhood at depth 1: the node, its neighbours, and the edges among them.
    let json = ok(&gos()
        .args([
            "export", "--format", "json", "--ids", id, "--depth", "1", "-w",
        ])
        .arg(&ws)
        .output()
        .unwrap());
    let sub: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut expect: Vec<String> = vec![id.to_owned()];
    for e in graph["edges"].as_array().unwrap() {
        let (s, d) = (e["source"].as_str().unwrap(), e["target"].as_str().unwrap());
        if s == id {
            expect.push(d.to_owned());
        }
        if d == id {
            expect.push(s.to_owned());
        }
    }
    expect.sort();
    expect.dedup();
    let mut got: Vec<String> = sub["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_owned())
        .collect();
    got.sort();
    assert_eq!(got, expect);
    assert!(got.len() >= 2);
    let dot = t.path().join("g.dot");
    ok(&gos()
        .args(["export", "--format", "dot", "-o"])
        .arg(&dot)
        .arg("-w")
        .arg(&ws)
        .output()
        .unwrap());
    let text = std::fs::read_to_string(&dot).unwrap();
    assert_eq!(text.matches(" -> ").count(), m);
    assert!(text.contains("\"geo/geojson-reproject\" [label=\"geojson-reproject\"];"));
    match std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(&dot)
        .output()
    {
        Ok(o) => {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let svg = String::from_utf8_lossy(&o.stdout);
            assert!(svg.contains("<svg"));
            assert_eq!(svg.matches("class=\"node\"").count(), n);
            assert_eq!(svg.matches("class=\"edge\"").count(), m);
        }
        Err(_) => gos_testkit::skip(
            gos_testkit::Resource::Graphviz,
            "graphviz `dot` is not installed; the DOT output is not rendered",
        ),
    }
}

#[test]
fn completions_for_three_shells() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef gos"),
        ("fish", "complete -c gos"),
    ] {
        let out = ok(&gos().args(["completions", shell]).output().unwrap());
        assert!(
            out.contains(marker),
            "{shell}: {}",
            &out[..out.len().min(300)]
        );
        assert!(out.contains("lint"), "{shell}");
        assert!(out.contains("agent-roots"), "{shell}");
    }
}

#[test]
fn config_file_next_to_the_workspace_gives_roots_and_refuses_keys() {
    let t = tempfile::tempdir().unwrap();
    write_skill(&t.path().join("skills"), "alpha", &skill("alpha"));
    write_skill(&t.path().join("skills"), "drafts/beta", &skill("beta"));
    std::fs::write(
        t.path().join("gos.toml"),
        "roots = [\"skills\"]\nexclude = [\"drafts/*\"]\n",
    )
    .unwrap();
    let ws = t.path().join("ws");
    let o = gos().args(["build", "-q", "-w"]).arg(&ws).output().unwrap();
    ok(&o);
    assert_eq!(manifest_ids(&ws), ["alpha"]);
    std::fs::write(
        t.path().join("gos.toml"),
        "roots = [\"skills\"]\n[llm]\napi_key = \"sk-123\"\n",
    )
    .unwrap();
    let o = gos().args(["build", "-q", "-w"]).arg(&ws).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("API keys are read only from the environment"),
        "{err}"
    );
    assert!(!err.contains("sk-123"), "{err}");
}

/// A misspelt id gets the close ids, as the MCP `get_skill` tool gives them.
#[test]
fn show_with_a_misspelt_id_names_close_matches() {
    let t = tempfile::tempdir().unwrap();
    let ws = t.path().join("ws");
    ok(&gos()
        .arg("build")
        .arg(repo().join("fixtures/library"))
        .arg("-w")
        .arg(&ws)
        .arg("-q")
        .output()
        .unwrap());
    let o = gos()
        .args(["show", "geo/geojson-reprojet", "-w"])
        .arg(&ws)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no skill `geo/geojson-reprojet`; did you mean: geo/geojson-reproject"),
        "{err}"
    );
    assert!(err.trim_end().ends_with('?'), "{err}");
    let o = gos()
        .args(["show", "zzqqxx", "-w"])
        .arg(&ws)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no id close to it"), "{err}");
}

/// `gos stats` keeps a space between each count and its label, `via declared` included.
#[test]
fn stats_separates_every_provenance_from_its_count() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_skill(&lib, "a/unzip", &skill("unzip"));
    write_skill(
        &lib,
        "a/report",
        "---\nname: report\ndescription: Writes a report. Use when a report is asked for.\n\
         requires: unzip\n---\n# report\n\nBody.\n",
    );
    let ws = t.path().join("ws");
    ok(&gos()
        .arg("build")
        .arg(&lib)
        .arg("-w")
        .arg(&ws)
        .arg("-q")
        .output()
        .unwrap());
    let text = ok(&gos().args(["stats", "-w"]).arg(&ws).output().unwrap());
    assert!(text.contains("\n  via declared 1\n"), "{text}");
    for line in text.lines().filter(|l| l.starts_with("  ")) {
        let (label, count) = line.trim().rsplit_once(' ').unwrap();
        assert!(count.parse::<usize>().is_ok(), "{line}");
        assert!(!label.ends_with(|c: char| c.is_ascii_digit()), "{line}");
    }
}
