//! `gos lint`'s library: every rule on crafted packages, every case of `fixtures/odd` and of
//! the real odd packages in `../shared/data/odd-skills`, and lint and build agreeing on what
//! is usable.

use gos_build::lint::{LintReport, Severity, lint};
use gos_build::roots::{LibrarySpec, Root};
use gos_testkit::repo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Rules found per package folder (first path component of the id-style path).
fn rules_by_package(r: &LintReport) -> BTreeMap<String, BTreeSet<&'static str>> {
    let mut m: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for d in &r.diagnostics {
        let pkg = d.path.split('/').next().unwrap_or("").to_owned();
        m.entry(pkg).or_default().insert(d.rule);
    }
    m
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn every_rule_fires_on_the_package_that_breaks_it_and_clean_ones_stay_clean() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    let b = t.path().join("b");
    let ok = "---\nname: clean\ndescription: Cleans CSV files. Use when a CSV has stray rows.\nlicense: MIT\nmetadata:\n  author: me\n---\n# Clean\n\nSee [the guide](references/guide.md).\n";
    write(&a, "clean/SKILL.md", ok);
    write(&a, "clean/references/guide.md", "guide");
    write(
        &a,
        "Bad_Name/SKILL.md",
        "---\nname: Bad_Name\ndescription: Use when testing.\n---\nx\n",
    );
    write(
        &a,
        "-dash--/SKILL.md",
        "---\nname: -dash--\ndescription: Use when testing.\n---\nx\n",
    );
    write(
        &a,
        "folder/SKILL.md",
        "---\nname: other\ndescription: Use when testing.\n---\nx\n",
    );
    let long_desc = "Use when ".to_owned() + &"x".repeat(1100);
    write(
        &a,
        "long/SKILL.md",
        &format!(
            "---\nname: long\ndescription: {long_desc}\ncompatibility: {}\n---\nx\n",
            "y".repeat(501)
        ),
    );
    write(
        &a,
        "meta/SKILL.md",
        "---\nname: meta\ndescription: Use when testing.\nmetadata:\n  n: 3\n  deep: {a: b}\nextra: 1\n---\nx\n",
    );
    write(
        &a,
        "meta2/SKILL.md",
        "---\nname: meta2\ndescription: Use when testing.\nmetadata: [a]\n---\nx\n",
    );
    write(
        &a,
        "links/SKILL.md",
        "---\nname: links\ndescription: Use when testing.\nrequires: [team/nowhere, csv]\n---\n# L\n\nRead [this](missing.md#top) and [web](https://example.com).\n",
    );
    write(
        &a,
        "x/csv/SKILL.md",
        "---\nname: csv\ndescription: Use when testing.\n---\nx\n",
    );
    write(
        &a,
        "y/csv/SKILL.md",
        "---\nname: csv\ndescription: Use when testing.\n---\nx\n",
    );
    write(
        &a,
        "nowhen/SKILL.md",
        "---\nname: nowhen\ndescription: Converts PDF files to text.\n---\nx\n",
    );
    write(&a, "empty/SKILL.md", "");
    // Natural wording names another skill but links nothing; marked, it links.
    write(
        &a,
        "gcode-parser/SKILL.md",
        "---\nname: gcode-parser\ndescription: Parses G-code. Use when reading a print file.\n---\nx\n",
    );
    write(
        &a,
        "estimator/SKILL.md",
        "---\nname: estimator\ndescription: Estimates print time, a helper skill for gcode-parser output. Use when planning a print.\n---\n# E\n\nFirst parse the file with the gcode-parser skill on `part.gcode` to get moves.json.\nThe **problem-solving** skill is not in this library.\n",
    );
    write(
        &a,
        "estimator2/SKILL.md",
        "---\nname: estimator2\ndescription: Estimates print time. Use when planning a print.\n---\nPairs with the gcode-parser skill, that is the `gcode-parser` skill.\n",
    );
    // A declared name a typo away from a skill's: a broken reference, with a suggestion.
    write(
        &a,
        "estimator5/SKILL.md",
        "---\nname: estimator5\ndescription: Estimates print time. Use when planning a print.\nrequires: [gcode-parsr]\n---\nx\n",
    );
    // A declaration links it too.
    write(
        &a,
        "estimator4/SKILL.md",
        "---\nname: estimator4\ndescription: Estimates print time. Use when planning a print.\nrequires: [gcode-parser]\n---\nPairs with the gcode-parser skill.\n",
    );
    // A sequencing sentence links the unmarked name (a workflow edge): nothing to report.
    write(
        &a,
        "estimator3/SKILL.md",
        "---\nname: estimator3\ndescription: Estimates print time. Use when planning a print.\n---\nFirst parse the file with the gcode-parser skill to get moves.json, then sum the moves.\n",
    );
    // The same package in a second root: a near-duplicate.
    write(&b, "clean/SKILL.md", ok);
    write(&b, "clean/references/guide.md", "guide");
    let spec = LibrarySpec::new(
        vec![Root::unlabelled(&a), Root::unlabelled(&b)],
        vec![],
        vec![],
    );
    let r = lint(&spec).unwrap();
    let got = rules_by_package(&r);
    let rules = |pkg: &str| -> Vec<&str> {
        got.get(pkg)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    };
    // Paths are labelled: "a/clean/SKILL.md"; group by the second component.
    let mut by: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for d in &r.diagnostics {
        let mut parts = d.path.split('/');
        let root = parts.next().unwrap();
        by.entry(format!("{root}/{}", parts.next().unwrap_or("")))
            .or_default()
            .insert(d.rule);
    }
    let at = |k: &str| -> Vec<&str> {
        by.get(k)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    };
    assert!(rules("a").len() > 1, "{got:?}");
    assert_eq!(at("a/clean"), Vec::<&str>::new());
    assert_eq!(at("a/Bad_Name"), ["name-chars"]);
    assert_eq!(at("a/-dash--"), ["name-hyphens"]);
    assert_eq!(at("a/folder"), ["name-folder"]);
    assert_eq!(at("a/long"), ["compatibility-length", "description-length"]);
    assert_eq!(
        at("a/meta"),
        ["metadata-type", "metadata-value", "unknown-field"]
    );
    assert_eq!(at("a/meta2"), ["metadata-type"]);
    assert_eq!(
        at("a/links"),
        [
            "broken-link",
            "dependency-ambiguous",
            "dependency-unresolved"
        ]
    );
    assert_eq!(at("a/nowhen"), ["description-when"]);
    assert_eq!(at("a/empty"), ["unusable"]);
    assert_eq!(at("a/estimator"), ["mention-unmarked"]);
    assert_eq!(at("a/estimator2"), Vec::<&str>::new());
    assert_eq!(at("a/estimator3"), Vec::<&str>::new());
    assert_eq!(at("a/estimator4"), Vec::<&str>::new());
    assert_eq!(at("a/estimator5"), ["dependency-unresolved"]);
    let typo = r
        .diagnostics
        .iter()
        .find(|d| d.path == "a/estimator5/SKILL.md")
        .unwrap();
    assert_eq!(
        (typo.line, typo.message.as_str()),
        (
            Some(4),
            "`requires: gcode-parsr` names no skill of the library; did you mean `gcode-parser`?"
        )
    );
    assert_eq!(at("a/gcode-parser"), Vec::<&str>::new());
    let unmarked: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule == "mention-unmarked")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(unmarked.len(), 1);
    assert!(
        unmarked[0].starts_with("calls `gcode-parser` a skill without backticks")
            && unmarked[0].contains("`requires: [gcode-parser]`"),
        "{unmarked:?}"
    );
    assert_eq!(at("b/clean"), ["near-duplicate"]);
    // Line numbers where known.
    let line = |path: &str, rule: &str| {
        r.diagnostics
            .iter()
            .find(|d| d.path == path && d.rule == rule)
            .and_then(|d| d.line)
    };
    assert_eq!(line("a/folder/SKILL.md", "name-folder"), Some(2));
    assert_eq!(line("a/links/SKILL.md", "broken-link"), Some(8));
    assert_eq!(line("a/links/SKILL.md", "dependency-unresolved"), Some(4));
    assert_eq!(line("a/meta/SKILL.md", "unknown-field"), Some(7));
    assert_eq!(line("a/estimator/SKILL.md", "mention-unmarked"), Some(7));
    // name-chars, name-hyphens, name-folder, 2 in long, 1 in meta, 1 in meta2, unusable.
    assert_eq!(r.count(Severity::Error), 8);
    // 18 packages in `a` (empty included), 1 in `b`.
    assert_eq!(r.packages, 18 + 1);
}

/// `fixtures/odd`: what lint says about each case, hand-checked against the files.
#[test]
fn lint_on_every_case_of_fixtures_odd() {
    let r = lint(&LibrarySpec::single(repo().join("fixtures/odd"))).unwrap();
    let got = rules_by_package(&r);
    let expect: &[(&str, &[&str])] = &[
        ("bom", &["description-when", "name-folder", "repaired"]),
        (
            "colon-in-description",
            &["description-when", "name-folder", "repaired"],
        ),
        (
            "crlf",
            &[
                "description-when",
                "name-folder",
                "repaired",
                "unknown-field",
            ],
        ),
        ("empty", &["unusable"]),
        ("huge", &["name-folder", "unknown-field"]),
        ("list-description", &["description-type", "unknown-field"]),
        (
            "missing-description",
            &["description-missing", "unknown-field"],
        ),
        ("no-frontmatter", &["frontmatter-missing"]),
        ("not-utf8", &["description-when", "repaired"]),
        (
            "tabs-in-yaml",
            &["description-when", "repaired", "unknown-field"],
        ),
        ("unknown-keys", &["description-when", "unknown-field"]),
        // "... before publishing.": `before` says when.
        ("unterminated", &["repaired", "unknown-field"]),
    ];
    for (pkg, rules) in expect {
        let have: Vec<&str> = got
            .get(*pkg)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        assert_eq!(&have, rules, "fixtures/odd/{pkg}");
    }
    assert_eq!(got.len(), expect.len(), "{got:?}");
    let unknown: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.path.starts_with("unknown-keys/") && d.rule == "unknown-field")
        .map(|d| d.message.split('`').nth(1).unwrap())
        .collect();
    assert_eq!(
        unknown,
        [
            "version", "date", "x-vendor", "enabled", "priority", "owners"
        ]
    );
    // Lint's `unusable` is exactly what build skips.
    let t = tempfile::tempdir().unwrap();
    let report = gos_build::build_workspace(
        &gos_build::BuildOptions {
            force: false,
            library: repo().join("fixtures/odd"),
            workspace: t.path().join("ws"),
            relate: Default::default(),
            embed: None,
        },
        &gos_build::build::NoProgress,
    )
    .unwrap();
    let skipped: Vec<&str> = report.skipped.iter().map(|s| s.path.as_str()).collect();
    let unusable: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule == "unusable")
        .map(|d| d.path.trim_end_matches("/SKILL.md"))
        .collect();
    assert_eq!(skipped, unusable);
}

/// `../shared/data/odd-skills` (34 real packages with odd files): lint runs on all of them,
/// agrees with build on what is unusable, and the per-case table is printed for the notes.
#[test]
fn lint_on_the_real_odd_skills() {
    let Some(dir) = gos_testkit::shared_data("odd-skills") else {
        return;
    };
    let r = lint(&LibrarySpec::single(&dir)).unwrap();
    assert_eq!(r.packages, 34);
    let got = rules_by_package(&r);
    for (pkg, rules) in &got {
        let rules: Vec<&str> = rules.iter().copied().collect();
        eprintln!("| {pkg} | {} |", rules.join(", "));
    }
    // Folders are numbers, so no name can equal its folder: every parsed package with a name
    // gets name-folder.
    let named = r
        .diagnostics
        .iter()
        .filter(|d| d.rule == "name-folder")
        .count();
    assert!(named > 20, "{named}");
    let t = tempfile::tempdir().unwrap();
    let report = gos_build::build_workspace(
        &gos_build::BuildOptions {
            force: false,
            library: dir.clone(),
            workspace: t.path().join("ws"),
            relate: Default::default(),
            embed: None,
        },
        &gos_build::build::NoProgress,
    )
    .unwrap();
    let skipped: BTreeSet<&str> = report.skipped.iter().map(|s| s.path.as_str()).collect();
    let unusable: BTreeSet<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule == "unusable" || d.rule == "refused")
        .map(|d| d.path.trim_end_matches("/SKILL.md"))
        .collect();
    assert_eq!(skipped, unusable);
}
