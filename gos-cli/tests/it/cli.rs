//! The `gos` binary as a user runs it: the JSON contracts of `build` and `retrieve`, budgets,
//! stdin queries, errors, and a build killed mid-way.

use crate::util::{gos, repo};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Run `cmd`, assert it succeeded (showing its stderr otherwise), and return its stdout.
fn run_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn build_fixtures(ws: &Path) -> Value {
    let stdout = run_ok(
        gos()
            .args(["build", "--json", "-w"])
            .arg(ws)
            .arg(repo().join("fixtures/library")),
    );
    serde_json::from_slice(&stdout).expect("build --json prints one JSON object")
}

#[test]
fn build_json_report_has_the_documented_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let r = build_fixtures(&tmp.path().join("ws"));
    assert_eq!(r["nodes"], 36);
    assert!(r["edges"]["dependency"].as_u64().unwrap() > 10);
    assert!(r["edges_by_provenance"]["io"].as_u64().unwrap() > 0);
    assert!(r["edges_by_provenance"]["mention"].as_u64().unwrap() > 0);
    assert!(r["isolated"].is_u64());
    assert!(r["skipped"].as_array().unwrap().is_empty());
    assert!(r["recovered"].is_array());
    assert!(r["wall_ms"].is_u64());
}

#[test]
fn retrieve_json_contract_and_budgets() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build_fixtures(&ws);
    let query =
        "Make a choropleth PNG of population density per county from /root/data/counties.shp";
    let stdout = run_ok(
        gos()
            .args([
                "retrieve",
                "--json",
                "--max-context-chars",
                "3000",
                "--max-chars-per-skill",
                "1200",
                "-w",
            ])
            .arg(&ws)
            .arg(query),
    );
    let text = String::from_utf8(stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "exactly one JSON object");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["status"], "SKILL_HIT");
    assert_eq!(r["query"], query);
    assert_eq!(r["mode"], "reverse");
    let context = r["rendered_context"].as_str().unwrap();
    assert!(context.chars().count() <= 3000);
    let skills = r["skills"].as_array().unwrap();
    assert!(!skills.is_empty() && skills.len() <= 8);
    assert_eq!(skills[0]["id"], "geo/choropleth-map");
    for s in skills {
        for key in ["name", "source", "score", "reason", "chars"] {
            assert!(!s[key].is_null(), "skill lacks {key}: {s}");
        }
        assert!(s["chars"].as_u64().unwrap() <= 1200);
        let source = s["source"].as_str().unwrap();
        assert!(
            context.contains(&format!("Source: {source}")),
            "{source} listed without content"
        );
    }
    for stage in ["seed", "diffuse", "rerank", "hydrate", "total"] {
        assert!(r["timings_ms"][stage].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn retrieve_reads_the_query_from_stdin_and_renders_text() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build_fixtures(&ws);
    let mut child = gos()
        .args(["retrieve", "-w"])
        .arg(&ws)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Build a phylogenetic tree from COX1 sequences in a FASTA file")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# Skill bundle"), "{text}");
    assert!(text.contains("Retrieval status: SKILL_HIT"));
    assert!(text.contains("Source: science/phylogenetic-tree/SKILL.md"));
}

#[test]
fn unknown_mode_and_missing_workspace_fail_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let out = gos()
        .args(["retrieve", "--mode", "sideways", "-w"])
        .arg(tmp.path())
        .arg("q")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sideways") && err.contains("one-hop"), "{err}");
    let nope = tmp.path().join("nope");
    let out = gos()
        .args(["retrieve", "-w"])
        .arg(&nope)
        .arg("q")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "workspace {0} does not exist; build one with `gos build LIBRARY -w {0}`",
            nope.display()
        )),
        "{err}"
    );
}

/// Every subcommand that takes `-w` says how to give it when it is missing.
#[test]
fn a_missing_workspace_flag_names_gos_workspace_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = repo().join("fixtures/library");
    let lib = lib.to_str().unwrap();
    let out_dir = tmp.path().join("out");
    let out_dir = out_dir.to_str().unwrap();
    for args in [
        vec!["build", lib],
        vec!["retrieve", "q"],
        vec!["stats"],
        vec!["eval", "--tasks", "t.jsonl", "--out", out_dir],
        vec!["mcp"],
        vec!["serve"],
        vec!["show", "geo/choropleth-map"],
        vec!["export"],
    ] {
        let out = gos()
            .env_remove("GOS_WORKSPACE")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--workspace <WORKSPACE>")
                && err.contains("tip: pass -w WORKSPACE or set GOS_WORKSPACE"),
            "{args:?}: {err}"
        );
    }
}

/// A `-w` that names a library, a repository or another folder `gos build` would refuse gets
/// a build command into a separate directory, never into the folder itself.
#[test]
fn a_workspace_flag_on_a_library_or_a_repository_suggests_a_separate_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("skills");
    std::fs::create_dir_all(lib.join("pdf/fill-form")).unwrap();
    std::fs::write(
        lib.join("pdf/fill-form/SKILL.md"),
        "---\nname: fill-form\ndescription: Fill PDF forms.\n---\n",
    )
    .unwrap();
    let repo_dir = tmp.path().join("project");
    std::fs::create_dir_all(repo_dir.join(".git")).unwrap();
    std::fs::write(repo_dir.join("README.md"), "x").unwrap();
    for (dir, says, command) in [
        (
            &lib,
            "is a skill library (it holds SKILL.md files), not a gos workspace",
            format!("`gos build {} -w {}-ws`", lib.display(), lib.display()),
        ),
        (
            &repo_dir,
            "is a source repository, not a gos workspace",
            format!("`gos build LIBRARY -w {}-ws`", repo_dir.display()),
        ),
    ] {
        for cmd in [vec!["retrieve", "q"], vec!["stats"], vec!["mcp"]] {
            let out = gos().args(&cmd).arg("-w").arg(dir).output().unwrap();
            assert!(!out.status.success());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(says) && err.contains(&command),
                "{cmd:?}: {err}"
            );
            assert!(
                !err.contains(&format!("-w {}`", dir.display())),
                "suggests a build into the folder itself: {err}"
            );
        }
    }
}

/// `echo TASK | gos retrieve -`: the final newline is not part of the query, and the bundle
/// is the one of the same task given as an argument.
#[test]
fn a_stdin_query_drops_its_final_newlines_and_retrieves_as_the_argument_does() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build_fixtures(&ws);
    let task = "Build a phylogenetic tree\nfrom COX1 sequences in a FASTA file";
    let mut child = gos()
        .args(["retrieve", "--json", "-w"])
        .arg(&ws)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{task}\r\n\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let piped: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(piped["query"], task);
    let given: Value = serde_json::from_slice(&run_ok(
        gos().args(["retrieve", "--json", "-w"]).arg(&ws).arg(task),
    ))
    .unwrap();
    assert_eq!(piped["skills"], given["skills"]);
    assert_eq!(piped["rendered_context"], given["rendered_context"]);
}

/// Kill a build of a large generated library part-way: the previous workspace is untouched
/// and still opens, and the next build cleans the leftover staging directory.
#[test]
fn a_killed_build_leaves_the_previous_workspace_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build_fixtures(&ws);
    let manifest_before = std::fs::read(ws.join("manifest.json")).unwrap();
    let graph_before = std::fs::read(ws.join("graph.json")).unwrap();

    let lib = tmp.path().join("big");
    let filler = "Reads CSV tables and writes cleaned CSV files. ".repeat(40);
    for i in 0..4000 {
        let dir = lib.join(format!("c{}/skill-{i:05}", i % 7));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{i}\ndescription: Synthetic skill {i}.\n---\n# Skill {i}\n{filler}\n"),
        )
        .unwrap();
    }
    let mut child = gos()
        .args(["build", "-q", "-w"])
        .arg(&ws)
        .arg(&lib)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "build finished before it could be killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    assert_eq!(
        std::fs::read(ws.join("manifest.json")).unwrap(),
        manifest_before
    );
    assert_eq!(std::fs::read(ws.join("graph.json")).unwrap(), graph_before);
    let stdout = run_ok(gos().args(["stats", "--json", "-w"]).arg(&ws));
    let stats: Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(stats["nodes"], 36);

    build_fixtures(&ws);
    let leftovers = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".building-")
        })
        .count();
    assert_eq!(leftovers, 0);
}
