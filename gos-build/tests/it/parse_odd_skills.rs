//! Every odd real-world SKILL.md of `shared/data/odd-skills` parses, or fails naming the file,
//! as its category in `index.jsonl` says. Also runs over `fixtures/odd` when present.

use std::collections::BTreeMap;
use std::path::Path;

use gos_build::package::{SkillPackage, discover, parse_package};

fn categories(root: &Path) -> BTreeMap<String, String> {
    let index = std::fs::read_to_string(root.join("index.jsonl")).expect("read index.jsonl");
    index
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("index line is JSON");
            (
                v["n"].as_str().unwrap().to_owned(),
                v["category"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn name(p: &SkillPackage) -> Option<String> {
    p.frontmatter.get_str("name")
}

fn desc(p: &SkillPackage) -> Option<String> {
    p.frontmatter.get_str("description")
}

#[test]
fn odd_skills_parse_per_category() {
    let Some(root) = gos_testkit::shared_data("odd-skills") else {
        return;
    };
    let cats = categories(&root);
    let found = discover(&root).expect("discover odd-skills");
    let listed: Vec<String> = found
        .packages
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut dirs: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert_eq!(listed, dirs, "discovery lists every folder, sorted");
    assert!(found.refused.is_empty(), "{:?}", found.refused);

    for n in &dirs {
        let cat = cats.get(n).map(String::as_str).unwrap_or("unknown");
        let res = parse_package(&root, Path::new(n));
        let ctx = format!("case {n} ({cat})");
        if cat == "empty-file" {
            let err = res.expect_err(&ctx).to_string();
            assert!(
                err.contains(&format!("{n}/SKILL.md")) && err.contains("empty"),
                "{ctx}: {err}"
            );
            continue;
        }
        let p = res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
        println!(
            "{ctx}: name={:?} description={:?} recoveries={:?}",
            name(&p),
            desc(&p).map(|d| d.chars().take(50).collect::<String>()),
            p.recoveries
        );
        assert_eq!(p.id, *n, "{ctx}");
        assert!(!p.body.trim().is_empty(), "{ctx}: body");
        assert!(!p.sections.is_empty(), "{ctx}: sections");
        let noted = |needle: &str| p.recoveries.iter().any(|r| r.contains(needle));
        match cat {
            "bom"
            | "crlf"
            | "bad-yaml"
            | "frontmatter-not-at-start"
            | "unterminated-frontmatter" => {
                assert!(
                    name(&p).is_some() || desc(&p).is_some(),
                    "{ctx}: name/description"
                );
                assert!(!p.recoveries.is_empty(), "{ctx}: recovery note");
                assert!(
                    !p.raw.contains('\r') && !p.raw.starts_with('\u{feff}'),
                    "{ctx}"
                );
                if cat == "bom" {
                    assert!(noted("BOM"), "{ctx}");
                }
                if cat == "crlf" {
                    assert!(noted("CRLF"), "{ctx}");
                }
                if cat != "bom" && cat != "crlf" {
                    // Every damaged-frontmatter case of this set still yields both fields.
                    assert!(
                        name(&p).is_some() && desc(&p).is_some(),
                        "{ctx}: both fields"
                    );
                }
            }
            "not-utf8" => assert!(noted("invalid UTF-8"), "{ctx}"),
            "nul-bytes" => {
                assert!(noted("NUL"), "{ctx}");
                assert!(!p.raw.contains('\0'), "{ctx}");
            }
            "no-frontmatter" => assert!(p.frontmatter.fields.is_empty(), "{ctx}"),
            "frontmatter-not-mapping" => {
                assert!(p.frontmatter.fields.is_empty(), "{ctx}");
                assert!(noted("not a mapping"), "{ctx}");
            }
            // 13 has a description, 14 only a `summary`.
            "missing-name" => assert!(name(&p).is_none(), "{ctx}"),
            "missing-description" => assert!(name(&p).is_some() && desc(&p).is_none(), "{ctx}"),
            // The description is an empty folded scalar: normalization falls back to the body.
            "empty-description" => assert!(desc(&p).is_none() && name(&p).is_some(), "{ctx}"),
            "non-string-name" => assert!(name(&p).is_some(), "{ctx}"),
            "non-string-description" => assert!(desc(&p).is_some(), "{ctx}"),
            _ => {
                // Valid files (huge, non-English, long description) parse cleanly.
                assert!(
                    name(&p).is_some() && desc(&p).is_some(),
                    "{ctx}: name and description"
                );
                assert!(p.recoveries.is_empty(), "{ctx}: {:?}", p.recoveries);
            }
        }
    }
}

/// The concrete values recovered from the broken-YAML cases.
#[test]
fn odd_skills_bad_yaml_values() {
    let Some(root) = gos_testkit::shared_data("odd-skills") else {
        return;
    };
    let get = |n: &str| parse_package(&root, Path::new(n)).unwrap();
    // 04: `: ` inside an unquoted description.
    let p = get("04");
    assert!(
        desc(&p)
            .unwrap()
            .contains("(isoform classification: FSM/ISM/NIC/NNC")
    );
    assert_eq!(
        p.frontmatter.get_str("primary_tool").as_deref(),
        Some("FLAIR")
    );
    // 05: `argument-hint: [date] [duration] ...` is not a valid flow list.
    let p = get("05");
    assert!(desc(&p).unwrap().starts_with("Submit a leave request"));
    assert_eq!(
        p.frontmatter.get_str("argument-hint").as_deref(),
        Some("[date] [duration] [type] [reason]")
    );
    // 06: git conflict markers inside the frontmatter; the keys around them survive.
    let p = get("06");
    assert!(desc(&p).unwrap().starts_with("Manage Obsidian Daily Notes"));
    assert!(
        p.frontmatter
            .get_list("metadata")
            .contains(&"version: 2.0".to_owned())
    );
    // 07: the value starts with `,` (the original description is itself a scraping artifact).
    assert_eq!(
        desc(&get("07")).as_deref(),
        Some(", it might predict the next word as")
    );
    // 08: C1 control characters from mojibake are stripped.
    let d = desc(&get("08")).unwrap();
    assert!(d.starts_with("formula:") && d.contains("[image type]"));
    assert!(!d.chars().any(char::is_control));
    // 09: closing `---` indented with the whole body; the block scalar is kept whole.
    let p = get("09");
    assert_eq!(name(&p).as_deref(), Some("communication"));
    assert!(desc(&p).unwrap().contains("TRIGGERS:"));
    assert_eq!(p.sections[0].title, "Communication Skill");
    // 10: an HTML comment before the frontmatter.
    assert_eq!(name(&get("10")).as_deref(), Some("moltwallet"));
}

/// Odd fixtures of the repository: each package parses or fails naming its file.
#[test]
fn fixtures_odd_parse_or_name_the_file() {
    let root = gos_testkit::fixtures().join("odd");
    assert!(root.is_dir(), "{} is part of the checkout", root.display());
    let found = discover(&root).expect("discover fixtures/odd");
    for rel in &found.packages {
        match parse_package(&root, rel) {
            Ok(p) => assert!(
                !p.frontmatter.fields.is_empty() || !p.body.trim().is_empty(),
                "{}",
                rel.display()
            ),
            Err(e) => assert!(e.to_string().contains("SKILL.md"), "{}: {e}", rel.display()),
        }
    }
}
