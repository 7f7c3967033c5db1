//! `gos mcp` driven by a real MCP client: the official Python SDK (`mcp` on PyPI), installed
//! into `.venv/` by `scripts/setup-mcp-venv.sh`. Skips with a message when the venv cannot be
//! made (no network to PyPI); `GOS_REQUIRE_MCP=1` turns the skip into a failure (CI).

mod serve_support;

use serde_json::Value;
use serve_support::{
    cli_bundle, connected_skill, fixture_queries, fixture_workspace, repo, without_timings,
};
use std::process::Command;

/// The venv's python, after running the setup script; `None` (with a SKIP line) when it fails.
fn python() -> Option<std::path::PathBuf> {
    let out = Command::new(repo().join("scripts/setup-mcp-venv.sh")).output();
    let ok = matches!(&out, Ok(o) if o.status.success());
    if !ok {
        let why = match &out {
            Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
            Err(e) => e.to_string(),
        };
        let msg = format!("the Python MCP SDK could not be installed (is PyPI reachable?): {why}");
        assert!(
            std::env::var("GOS_REQUIRE_MCP").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("SKIP: {msg}");
        return None;
    }
    Some(repo().join(".venv/bin/python"))
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

    // Resources: one per skill, and reading one gives its SKILL.md.
    let resources = seen["resources"].as_array().unwrap();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(resources.len(), manifest["nodes"].as_array().unwrap().len());
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

    // The bundle is exactly what `gos retrieve --json` prints, and the text is its context.
    for (q, b) in queries.iter().zip(seen["bundles"].as_array().unwrap()) {
        assert_eq!(b["isError"], false, "{b}");
        let structured = without_timings(b["structuredContent"].clone());
        assert_eq!(structured, cli_bundle(&ws, q), "bundle differs for {q}");
        assert_eq!(
            tool_text(b),
            structured["rendered_context"].as_str().unwrap()
        );
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
    ] {
        let r = &calls[key];
        assert_eq!(r["isError"], true, "{r}");
        assert!(tool_text(r).starts_with(code), "{r}");
    }
    assert_eq!(seen["after_errors"]["isError"], false);
}
