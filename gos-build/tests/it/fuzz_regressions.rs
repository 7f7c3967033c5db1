//! The inputs of `fuzz/regressions/` (hostile shapes for the SKILL.md parser, and what the fuzz
//! target of `fuzz/` finds) go through the same path as the fuzz target: `parse_bytes`, then
//! `normalize`. Each must parse without a panic into a skill that keeps its name, with the
//! caps noted where they applied.

use gos_build::normalize::normalize;
use gos_build::package::parse_bytes;

#[test]
fn every_regression_input_parses_into_a_named_skill() {
    let dir = gos_testkit::repo().join("fuzz/regressions");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let mut pkg = parse_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        pkg.id = format!("regressions/{}", name.trim_end_matches(".md"));
        let node = normalize(&pkg).node;
        assert!(!node.name.is_empty(), "{name}");
        seen.push((name, pkg.frontmatter.get_str("name"), pkg.recoveries));
    }
    seen.sort();
    assert!(seen.len() >= 9, "{} inputs", seen.len());
    let get = |n: &str| {
        seen.iter()
            .find(|s| s.0 == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    for deep in ["nested-brackets-40k.md", "nested-braces-40k.md"] {
        let (_, name, notes) = get(deep);
        assert_eq!(name.as_deref(), Some("deep"));
        assert!(
            notes.iter().any(|n| n.contains("nested deeper than 32")),
            "{notes:?}"
        );
    }
    let (_, name, notes) = get("oversized-frontmatter.md");
    assert_eq!(name.as_deref(), Some("big"));
    assert!(
        notes.iter().any(|n| n.contains("65536-byte cap")),
        "{notes:?}"
    );
    assert_eq!(get("alias-bomb.md").1.as_deref(), Some("x"));
    assert_eq!(get("cr-only.md").1.as_deref(), Some("cr"));
}
