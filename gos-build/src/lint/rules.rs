//! The rules of `gos lint` on one parsed package, and the near-duplicate check across roots.

use super::{Diagnostic, Severity};
use crate::declared::DECLARATION_KEYS;
use crate::package::SkillPackage;
use crate::skill_names::{Resolved, SkillNames};
use gos_core::SkillNode;
use pulldown_cmark::{Event, Parser, Tag};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Top-level fields of the Agent Skills specification.
const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];
/// Most unmarked mentions reported per package (a body listing many is a catalogue).
const MAX_UNMARKED_PER_PACKAGE: usize = 5;
/// Most characters of a name (specification).
const MAX_NAME: usize = 64;
/// Most characters of a description (specification).
const MAX_DESCRIPTION: usize = 1024;
/// Most characters of `compatibility` (specification).
const MAX_COMPATIBILITY: usize = 500;
/// Words by which a description says when to use the skill.
const WHEN_WORDS: [&str; 9] = [
    "when", "whenever", "use", "used", "using", "if", "trigger", "triggers", "before",
];
/// Least word-set Jaccard similarity of two descriptions for a near-duplicate.
const NEAR_DUPLICATE_JACCARD: f64 = 0.8;

/// Where the package lies.
pub(super) struct Context<'a> {
    /// Id-style SKILL.md path.
    pub path: &'a str,
    /// Absolute SKILL.md path.
    pub file: &'a str,
    /// Absolute package directory.
    pub dir: &'a Path,
    /// Folder name of the package.
    pub folder: &'a str,
}

/// 1-based line of the top-level frontmatter key `key` in `raw` (the normalized SKILL.md text).
pub(super) fn key_line(raw: &str, key: &str) -> Option<usize> {
    let mut lines = raw.lines().enumerate();
    lines.find(|(_, l)| l.trim_end() == "---")?;
    for (i, l) in lines {
        if l.trim_end() == "---" {
            return None;
        }
        if let Some(rest) = l.strip_prefix(key)
            && rest.trim_start().starts_with(':')
        {
            return Some(i + 1);
        }
    }
    None
}

fn line_of(raw: &str, needle: &str) -> Option<usize> {
    raw.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// Every per-package rule (see the module docs of [`super`]).
pub(super) fn check_package(ctx: &Context<'_>, pkg: &SkillPackage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut add = |line: Option<usize>, rule: &'static str, severity, message: String| {
        out.push(Diagnostic {
            path: ctx.path.to_owned(),
            file: ctx.file.to_owned(),
            line,
            rule,
            severity,
            message,
        })
    };
    use Severity::{Error, Warning};
    for what in &pkg.recoveries {
        add(
            None,
            "repaired",
            Warning,
            format!("build repairs this: {what}"),
        );
    }
    let fields = &pkg.frontmatter.fields;
    if fields.is_empty() {
        add(
            Some(1),
            "frontmatter-missing",
            Error,
            "no YAML frontmatter (`---` block with `name` and `description`)".into(),
        );
    }
    let line = |key: &str| key_line(&pkg.raw, key);
    match fields.get("name") {
        None | Some(Value::Null) if !fields.is_empty() => {
            add(Some(1), "name-missing", Error, "no `name` field".into())
        }
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            for (rule, msg) in name_problems(name, ctx.folder) {
                add(line("name"), rule, Error, msg);
            }
        }
        Some(other) => add(
            line("name"),
            "name-type",
            Error,
            format!("`name` must be a string, not {}", kind(other)),
        ),
    }
    match fields.get("description") {
        None | Some(Value::Null) if !fields.is_empty() => add(
            Some(1),
            "description-missing",
            Error,
            "no `description` field".into(),
        ),
        None | Some(Value::Null) => {}
        Some(Value::String(d)) => {
            let n = d.trim().chars().count();
            if n == 0 || n > MAX_DESCRIPTION {
                add(
                    line("description"),
                    "description-length",
                    Error,
                    format!("description has {n} characters; 1 to {MAX_DESCRIPTION} allowed"),
                );
            }
            if n > 0 && !says_when(d) {
                add(
                    line("description"),
                    "description-when",
                    Warning,
                    "the description does not say when to use the skill (e.g. \"Use when ...\")"
                        .into(),
                );
            }
        }
        Some(other) => add(
            line("description"),
            "description-type",
            Error,
            format!("`description` must be a string, not {}", kind(other)),
        ),
    }
    if let Some(c) = fields.get("compatibility") {
        let n = match c {
            Value::String(s) => s.chars().count(),
            other => other.to_string().chars().count(),
        };
        if n > MAX_COMPATIBILITY {
            add(
                line("compatibility"),
                "compatibility-length",
                Error,
                format!("compatibility has {n} characters; at most {MAX_COMPATIBILITY} allowed"),
            );
        }
    }
    match fields.get("metadata") {
        None | Some(Value::Object(_)) | Some(Value::Null) => {}
        Some(other) => add(
            line("metadata"),
            "metadata-type",
            Error,
            format!(
                "`metadata` must be a mapping of strings, not {}",
                kind(other)
            ),
        ),
    }
    if let Some(Value::Object(m)) = fields.get("metadata") {
        for (k, v) in m {
            if !v.is_string() {
                let (rule, sev) = if v.is_object() || v.is_array() {
                    ("metadata-type", Error)
                } else {
                    ("metadata-value", Warning)
                };
                add(
                    line("metadata"),
                    rule,
                    sev,
                    format!("metadata `{k}` is {}, not a string", kind(v)),
                );
            }
        }
    }
    for key in fields.keys() {
        if !SPEC_FIELDS.contains(&key.as_str()) && !DECLARATION_KEYS.contains(&key.as_str()) {
            add(
                line(key),
                "unknown-field",
                Warning,
                format!("`{key}` is not a field of the Agent Skills specification"),
            );
        }
    }
    for target in relative_links(&pkg.body) {
        let path = target
            .split(['#', '?'])
            .next()
            .unwrap_or("")
            .replace("%20", " ");
        if path.is_empty() || ctx.dir.join(&path).exists() {
            continue;
        }
        add(
            line_of(&pkg.raw, &format!("]({target}")).or_else(|| line_of(&pkg.raw, &target)),
            "broken-link",
            Warning,
            format!("link to `{target}`: no such file in the package"),
        );
    }
    out
}

/// `mention-unmarked`: the compound names a body calls a skill without backticks
/// ([`crate::normalize::unmarked_skill_mentions`]) that name exactly one other skill of the
/// library, as the mention rule resolves names ([`SkillNames::resolve`]), that the
/// body does not also mark, and that no `linked`
/// edge joins to the package: `linked` holds the library's workflow edges (which read unmarked
/// names in sequencing sentences) and declared dependency edges. At most
/// [`MAX_UNMARKED_PER_PACKAGE`] per package, in body order, each at its line of the file.
pub(super) fn unmarked_mentions(
    packages: &[(usize, String, SkillPackage)],
    normalized: &[crate::normalize::Normalized],
    nodes: &[SkillNode],
    linked: &[gos_core::SkillEdge],
) -> Vec<Diagnostic> {
    let linked: BTreeSet<(&str, &str)> = linked
        .iter()
        .flat_map(|e| {
            [
                (e.source.as_str(), e.target.as_str()),
                (e.target.as_str(), e.source.as_str()),
            ]
        })
        .collect();
    let names = SkillNames::new(nodes);
    let mut out = Vec::new();
    for (i, (_, file, pkg)) in packages.iter().enumerate() {
        let node = &normalized[i].node;
        // The body is the file's tail with surrounding blank lines trimmed
        // (`frontmatter::tidy_body`): its line `no` is the file's line `offset + no + 1`.
        let offset = pkg
            .raw
            .trim_end()
            .lines()
            .count()
            .saturating_sub(pkg.body.lines().count());
        let unmarked = crate::normalize::unmarked_skill_mentions(&pkg.body);
        let found = unmarked.iter().filter(|(name, _)| {
            !normalized[i].mentions.contains(name)
                && !crate::edge_evidence::is_common_word(name)
                && !node.name.eq_ignore_ascii_case(name)
                && !node.folder().eq_ignore_ascii_case(name)
                && match names.resolve(name, i) {
                    Resolved::One(j) => !linked.contains(&(node.id.as_str(), nodes[j].id.as_str())),
                    Resolved::Ambiguous | Resolved::Unknown => false,
                }
        });
        for (name, no) in found.take(MAX_UNMARKED_PER_PACKAGE) {
            let line = Some(offset + no + 1).filter(|&l| {
                pkg.raw
                    .lines()
                    .nth(l - 1)
                    .is_some_and(|text| text.to_lowercase().contains(name.as_str()))
            });
            out.push(Diagnostic {
                path: pkg.source_path.clone(),
                file: file.clone(),
                line,
                rule: "mention-unmarked",
                severity: Severity::Warning,
                message: format!(
                    "calls `{name}` a skill without backticks, which links nothing; write \
                     `{name}` in backticks (\"use the `{name}` skill\") or declare it \
                     (`requires: [{name}]`) to make it a prerequisite"
                ),
            });
        }
    }
    out
}

/// Why `name` breaks the specification's name rules, given the package's folder name.
fn name_problems(name: &str, folder: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME {
        out.push((
            "name-length",
            format!("name has {n} characters; 1 to {MAX_NAME} allowed"),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        out.push((
            "name-chars",
            format!("name `{name}` holds `{c}`; only a-z, 0-9 and `-` are allowed"),
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        out.push((
            "name-hyphens",
            format!("name `{name}` starts or ends with `-` or holds `--`"),
        ));
    }
    if name != folder {
        out.push((
            "name-folder",
            format!("name `{name}` differs from its folder name `{folder}`"),
        ));
    }
    out
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn says_when(description: &str) -> bool {
    let w = words(description);
    WHEN_WORDS.iter().any(|k| w.contains(*k))
}

/// Link and image targets of `body` that point at a relative path (no scheme, no anchor-only,
/// no absolute path, no template).
fn relative_links(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for ev in Parser::new(body) {
        let dest = match ev {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => dest_url.to_string(),
            _ => continue,
        };
        let d = dest.trim();
        if d.is_empty()
            || d.starts_with('#')
            || d.starts_with('/')
            || d.starts_with('~')
            || d.contains(':')
            || d.contains("{{")
            || d.contains('<')
        {
            continue;
        }
        if !out.contains(&d.to_owned()) {
            out.push(d.to_owned());
        }
    }
    out
}

/// Packages of different roots with the same name (ASCII case ignored) and the same SKILL.md
/// bytes or descriptions whose word sets overlap by [`NEAR_DUPLICATE_JACCARD`]: each later one
/// (in root order) is reported against the first.
pub(super) fn near_duplicates(
    packages: &[(usize, String, SkillPackage)],
    nodes: &[SkillNode],
) -> Vec<Diagnostic> {
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        by_name
            .entry(n.name.to_ascii_lowercase())
            .or_default()
            .push(i);
    }
    let mut out = Vec::new();
    let mut groups: Vec<&Vec<usize>> = by_name.values().filter(|v| v.len() > 1).collect();
    groups.sort();
    for group in groups {
        for (k, &b) in group.iter().enumerate() {
            let first = group[..k].iter().copied().find(|&a| {
                packages[a].0 != packages[b].0 && {
                    let same = packages[a].2.content_hash == packages[b].2.content_hash;
                    same || jaccard(
                        &words(&nodes[a].description.value),
                        &words(&nodes[b].description.value),
                    ) >= NEAR_DUPLICATE_JACCARD
                }
            });
            let Some(a) = first else { continue };
            let how = if packages[a].2.content_hash == packages[b].2.content_hash {
                "the same SKILL.md as"
            } else {
                "nearly the same description as"
            };
            out.push(Diagnostic {
                path: packages[b].2.source_path.clone(),
                file: packages[b].1.clone(),
                line: key_line(&packages[b].2.raw, "name"),
                rule: "near-duplicate",
                severity: Severity::Warning,
                message: format!(
                    "same name and {how} `{}` (another root): retrieval will show both",
                    nodes[a].id
                ),
            });
        }
    }
    out
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rules_follow_the_specification() {
        assert!(name_problems("pdf-tools", "pdf-tools").is_empty());
        let rules = |n: &str, f: &str| -> Vec<&str> {
            name_problems(n, f).into_iter().map(|p| p.0).collect()
        };
        assert_eq!(rules("PDF_tools", "PDF_tools"), ["name-chars"]);
        assert_eq!(rules("-a--b-", "-a--b-"), ["name-hyphens"]);
        assert_eq!(rules("ok", "other"), ["name-folder"]);
        let long = "a".repeat(65);
        assert_eq!(rules(&long, &long), ["name-length"]);
    }

    #[test]
    fn key_lines_and_relative_links() {
        let raw = "---\nname: x\ndescription: y\nmetadata:\n  requires: z\n---\n# T\n";
        assert_eq!(key_line(raw, "description"), Some(3));
        assert_eq!(key_line(raw, "requires"), None);
        let links = relative_links(
            "[a](references/a.md) [b](https://x.y) [c](#top) ![i](img/p.png) [d](/etc/x)",
        );
        assert_eq!(links, ["references/a.md", "img/p.png"]);
        assert!(says_when("Extracts tables. Use when a PDF holds tables."));
        assert!(!says_when("Extracts tables from PDF files."));
    }
}
