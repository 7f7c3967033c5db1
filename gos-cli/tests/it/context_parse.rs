//! The rendered context of real bundles parses back into exactly the skills of the JSON: every
//! SkillsBench DEV task and every Terminal-Bench task, over a workspace of the real library
//! (`../shared/data/library`), at the default budgets and at small ones that clip most skills.
//! Each bundle must frame one block per skill, in the JSON's order, with the JSON's names and
//! sources, no control character, every code fence closed at the end of each block, a clip
//! note exactly on clipped skills, the budget kept, and a CommonMark parser must see the same
//! skill headings.
//!
//! The workspace is built with the `gos` binary under test (a lexical build: a few minutes in
//! a debug build), or taken from `GOS_TEST_LIBRARY_WS` when set (a workspace of that library).
//! Skips with a message when the data is absent.

use crate::util::gos;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tasks(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["instruction"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn workspace(library: &Path, tmp: &Path) -> PathBuf {
    if let Some(ws) = std::env::var_os("GOS_TEST_LIBRARY_WS") {
        return PathBuf::from(ws);
    }
    let ws = tmp.join("ws");
    let out = gos()
        .args(["build", "--quiet", "--no-embed", "-w"])
        .arg(&ws)
        .arg(library)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ws
}

#[test]
fn real_bundles_parse_back_into_their_skills() {
    let (Some(library), Some(dev), Some(tbench)) = (
        gos_testkit::shared_data("library"),
        gos_testkit::shared_data("skillsbench/dev/tasks.jsonl"),
        gos_testkit::shared_data("terminal-bench/tasks.jsonl"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&library, tmp.path());
    let mut all = tasks(&dev);
    all.extend(tasks(&tbench));
    assert!(all.len() >= 130, "{} tasks", all.len());

    let budgets: [(&[&str], usize); 2] = [
        (&[], 12_000),
        (
            &[
                "--max-context-chars",
                "5000",
                "--max-chars-per-skill",
                "900",
            ],
            5_000,
        ),
    ];
    let (mut bundles, mut blocks, mut clipped, mut fenced_clips) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (extra, max) in budgets {
        for (id, text) in &all {
            let out = gos()
                .args(["retrieve", "--seeds", "lexical", "--json", "-w"])
                .arg(&ws)
                .args(extra)
                .arg("--")
                .arg(text)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{id}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let r: Value = serde_json::from_slice(&out.stdout).unwrap();
            match crate::context_parser::check_bundle(&r, max) {
                Ok(parsed) => {
                    bundles += usize::from(!parsed.is_empty());
                    blocks += parsed.len();
                    for (b, s) in parsed.iter().zip(r["skills"].as_array().unwrap()) {
                        if s["clipped"] == true {
                            clipped += 1;
                            // Clipped inside a code block: without its last two lines (the
                            // closing fence gos added and the note) the block is in a fence.
                            let text: Vec<String> = b
                                .body
                                .iter()
                                .rev()
                                .skip_while(|l| l.is_empty())
                                .skip(2)
                                .cloned()
                                .collect::<Vec<_>>()
                                .into_iter()
                                .rev()
                                .collect();
                            if crate::context_parser::open_fence(&text).is_some() {
                                fenced_clips += 1;
                            }
                        }
                    }
                }
                Err(e) => failures.push(format!("{id} (budget {max}): {e}")),
            }
        }
    }
    eprintln!(
        "{} queries x 2 budgets: {bundles} SKILL_HIT bundles, {blocks} skill blocks, \
         {clipped} clipped ({fenced_clips} inside a code block)",
        all.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The checks ran on real, clipped, fenced content.
    assert!(bundles > all.len(), "{bundles} bundles");
    assert!(
        clipped > 100 && fenced_clips > 10,
        "{clipped} {fenced_clips}"
    );
}
