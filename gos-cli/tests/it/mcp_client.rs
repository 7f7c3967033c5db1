//! `gos mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI), installed
//! into `target/mcp-venv/` by `scripts/setup-mcp-venv.sh`. Skips with a message when the venv cannot be
//! made (no network to PyPI); `GOS_REQUIRE_MCP=1` turns the skip into a failure (CI).

use crate::serve_support::{
    cli_bundle, connected_skill, fixture_queries, fixture_workspace, repo, without_timings,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The venv of the Python MCP SDK: `GOS_MCP_VENV`, else `mcp-venv` in cargo's target
/// directory (never inside the source tree).
fn venv() -> PathBuf {
    std::env::var_os("GOS_MCP_VENV").map_or_else(
        || {
            Path::new(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .expect("CARGO_TARGET_TMPDIR lies in the target directory")
                .join("mcp-venv")
        },
        PathBuf::from,
    )
}

/// The venv's python, after running the setup script into [`venv`]; `None` after a visible
/// skip when it fails (a failure with `GOS_REQUIRE_MCP=1`).
fn python() -> Option<PathBuf> {
    let venv = venv();
    let out = Command::new(repo().join("scripts/setup-mcp-venv.sh"))
        .env("GOS_MCP_VENV", &venv)
        .output();
    let ok = matches!(&out, Ok(o) if o.status.success());
    if !ok {
        let why = match &out {
            Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
            Err(e) => e.to_string(),
        };
        gos_testkit::skip(
            gos_testkit::Resource::Mcp,
            &format!(
                "needs the Python MCP SDK in {} (scripts/setup-mcp-venv.sh failed; is PyPI reachable?): {why}",
                venv.display()
            ),
        );
        return None;
    }
    Some(venv.join("bin/python"))
}

fn tool_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_python_sdk_sees_every_tool_and_the_bundles_of_gos_retrieve() {
    let Some(python) = python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(tmp.path());
    let queries = fixture_queries(3);
    let skill = connected_skill(&ws);
    let out = Command::new(&python)
        .arg(repo().join("gos-cli/tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_gos"))
        .arg(&ws)
        .arg(serde_json::to_string(&queries).unwrap())
        .arg(&skill)
        .arg("geo/shapefile-readr")
        .env_remove("GOS_MODEL_DIR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the MCP client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();

    // Tools: the five, each read-only with an input schema.
    let tools = seen["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "get_skill",
            "retrieve_skill_bundle",
            "search_skills",
            "skill_neighbors",
            "workspace_status"
        ]
    );
    for t in tools {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    let retrieve = tools
        .iter()
        .find(|t| t["name"] == "retrieve_skill_bundle")
        .unwrap();
    assert_eq!(
        retrieve["inputSchema"]["required"],
        serde_json::json!(["query"])
    );
    let get = tools.iter().find(|t| t["name"] == "get_skill").unwrap();
    assert!(
        get["outputSchema"]["properties"]["skill_md"].is_object(),
        "{get}"
    );

    // Resources: every file of every skill (the Skills extension's `skill://<id>/<file>`),
    // one SKILL.md per skill, and reading one gives the file's text.
    let resources = seen["resources"].as_array().unwrap();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("manifest.json")).unwrap()).unwrap();
    let skill_mds = resources
        .iter()
        .filter(|r| r["uri"].as_str().unwrap().ends_with("/SKILL.md"))
        .count();
    // SEP-2640 wants a skill path's last segment to be its frontmatter name; the fixture's two
    // skills whose folder is named otherwise (speech-to-text is `whisper-transcribe`) are
    // published under their folder's prefix with their name last (gos-server skill_paths.rs).
    let nodes = manifest["nodes"].as_array().unwrap();
    assert_eq!(skill_mds, nodes.len());
    for uri in [
        "skill://media/whisper-transcribe/SKILL.md",
        "skill://docs/xlsx-writer/SKILL.md",
    ] {
        assert!(
            resources.iter().any(|r| r["uri"] == uri),
            "{uri} is not listed"
        );
    }
    assert!(
        !resources.iter().any(|r| r["uri"]
            .as_str()
            .unwrap()
            .starts_with("skill://media/speech-to-text/")),
        "the folder name is not a skill path"
    );
    assert!(
        resources.len() > skill_mds,
        "supporting files are resources too"
    );
    assert!(
        resources
            .iter()
            .all(|r| r["uri"].as_str().unwrap().starts_with("skill://") && r["size"].is_u64()),
        "{resources:?}"
    );
    assert!(
        seen["initialize"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]
            .is_object(),
        "{}",
        seen["initialize"]
    );
    let uri = seen["resource_read"]["uri"].as_str().unwrap();
    let id = uri
        .strip_prefix("skill://")
        .unwrap()
        .strip_suffix("/SKILL.md")
        .unwrap();
    let on_disk =
        std::fs::read_to_string(repo().join("fixtures/library").join(id).join("SKILL.md")).unwrap();
    assert_eq!(
        seen["resource_read"]["result"]["contents"][0]["text"],
        on_disk.as_str()
    );

    // By default the bundle is text only (harnesses hand structuredContent to the model
    // instead of the text), and that text is the rendered context of `gos retrieve --json`;
    // with format "json" the structured content is exactly that document.
    assert!(retrieve.get("outputSchema").is_none(), "{retrieve}");
    let texts = seen["bundles"].as_array().unwrap();
    let docs = seen["bundles_json"].as_array().unwrap();
    for ((q, b), j) in queries.iter().zip(texts).zip(docs) {
        let cli = cli_bundle(&ws, q);
        assert_eq!(b["isError"], false, "{b}");
        assert!(b.get("structuredContent").is_none(), "{b}");
        assert_eq!(b["content"].as_array().unwrap().len(), 1, "{b}");
        let text = tool_text(b);
        assert_eq!(text, cli["rendered_context"].as_str().unwrap());
        assert!(text.starts_with("# Skill bundle"), "{text}");
        assert_eq!(j["isError"], false, "{j}");
        let structured = without_timings(j["structuredContent"].clone());
        assert_eq!(structured, cli, "bundle differs for {q}");
        let from_text: Value = serde_json::from_str(&tool_text(j)).unwrap();
        assert_eq!(without_timings(from_text), cli);
    }

    let calls = &seen["calls"];
    let hits = calls["search_skills"]["structuredContent"]["hits"]
        .as_array()
        .unwrap();
    assert!(!hits.is_empty() && hits.len() <= 5, "{hits:?}");
    assert!(
        hits.iter()
            .all(|h| h["id"].is_string() && h["description"].is_string())
    );
    let doc = &calls["get_skill"]["structuredContent"];
    assert_eq!(doc["id"], skill.as_str());
    assert!(
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "SKILL.md"),
        "{doc}"
    );
    assert_eq!(
        doc["skill_md"],
        std::fs::read_to_string(
            repo()
                .join("fixtures/library")
                .join(&skill)
                .join("SKILL.md")
        )
        .unwrap()
        .as_str()
    );
    let n = &calls["skill_neighbors"]["structuredContent"];
    for side in ["prerequisites", "dependents"] {
        let list = n[side].as_array().unwrap();
        assert!(!list.is_empty(), "{side} of {skill}: {n}");
        for e in list {
            assert!(
                ["dependency", "workflow"].contains(&e["type"].as_str().unwrap()),
                "{e}"
            );
            assert!(
                ["io", "mention", "llm"].contains(&e["provenance"].as_str().unwrap()),
                "{e}"
            );
            assert!(e["evidence"].is_string(), "{e}");
        }
    }
    let status = &calls["workspace_status"]["structuredContent"];
    assert_eq!(
        status["skills"],
        manifest["nodes"].as_array().unwrap().len()
    );
    assert_eq!(status["format_version"], 1);
    assert_eq!(status["seed_source"], "lexical");

    // Unknown ids and bad budgets are tool errors with a message, not protocol errors.
    for key in ["get_skill_unknown", "neighbors_unknown"] {
        let r = &calls[key];
        assert_eq!(r["isError"], true, "{r}");
        let text = tool_text(r);
        assert!(
            text.contains("unknown_skill") && text.contains("geo/shapefile-reader"),
            "{text}"
        );
    }
    for (key, code) in [
        ("empty_query", "empty_query"),
        ("max_skills_zero", "out_of_range"),
        ("max_skills_huge", "out_of_range"),
        ("unknown_format", "unknown_format"),
    ] {
        let r = &calls[key];
        assert_eq!(r["isError"], true, "{r}");
        assert!(tool_text(r).starts_with(code), "{r}");
    }
    assert_eq!(seen["after_errors"]["isError"], false);
}
