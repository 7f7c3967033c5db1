//! Normalization: a parsed [`SkillPackage`] becomes a [`SkillNode`] with per-field provenance,
//! plus the text views the lexical index needs.
//!
//! Field sources follow the reference parser (\[C\] `parse_skill_document`, reference notes
//! §1.3), with its defects fixed: the description falls back to the first body paragraph
//! (never the text "None"), list values are flattened item by item (a comma inside an item
//! does not split it), and artifact types come from [`crate::artifacts`].

use crate::artifacts::{
    explicit_item_types, is_input_heading, is_output_heading, known_types, prose_types,
};
use crate::package::SkillPackage;
use gos_core::index::lexical::LexicalDoc;
use gos_core::{Field, SkillNode};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

/// Most characters kept of a display name.
const MAX_NAME_CHARS: usize = 120;
/// Most characters kept of a description.
const MAX_DESCRIPTION_CHARS: usize = 1_500;
/// Most items kept per list field.
const MAX_ITEMS: usize = 24;

/// A normalized node and the body text indexed and hydrated with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    /// The node.
    pub node: SkillNode,
    /// Markdown body (frontmatter removed).
    pub body: String,
    /// Names the body mentions as skills (`use the \`x\` skill`), for [`crate::relate`].
    pub mentions: Vec<String>,
}

fn clip(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((b, _)) => s[..b].trim_end().to_string(),
        None => s.to_string(),
    }
}

fn compact(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_sentence(s: &str) -> String {
    let s = compact(s);
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && s[i + c.len_utf8()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(s.len());
    s[..end].to_string()
}

fn dedup(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for item in items {
        let item = compact(&item);
        if !item.is_empty() && seen.insert(item.to_lowercase()) && out.len() < MAX_ITEMS {
            out.push(item);
        }
    }
    out
}

fn sorted_set(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let set: BTreeSet<String> = items.into_iter().filter(|s| !s.is_empty()).collect();
    set.into_iter().take(MAX_ITEMS).collect()
}

/// List items of a frontmatter key, also looked up under `metadata.<key>`.
fn fm_list(pkg: &SkillPackage, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for k in keys {
        out.extend(pkg.frontmatter.get_list(k));
        if let Some(meta) = pkg.frontmatter.fields.get("metadata")
            && let Some(v) = meta.get(k)
        {
            out.extend(crate::frontmatter::value_to_list(v));
        }
    }
    out
}

/// Bullet-like lines of a section text (or its non-empty lines), at most `MAX_ITEMS`.
fn section_items(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.trim().trim_start_matches(['-', '*', '+']).trim())
        .filter(|l| !l.is_empty() && l.chars().count() <= 300)
        .map(str::to_string)
        .take(MAX_ITEMS)
        .collect()
}

/// Skill names the body points to as skills: a backticked name followed within two words by
/// "skill" or "skills" (`use the \`pdf-text-extraction\` skill`), lower-cased, in first-seen
/// order, except in a sentence that denies needing it ("you don't need the \`x\` skill",
/// [`crate::edge_evidence::denies_need`]). These become mention edges ([`crate::relate`]).
pub fn skill_mentions(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let name = &after[..close];
        let tail = &after[close + 1..];
        let valid_name = !name.is_empty()
            && name.len() <= 80
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ' | '(' | ')'));
        let at = body.len() - rest.len() + open;
        if valid_name
            && skill_word_follows(tail)
            && !{
                let (sentence, start) = sentence_around(body, at);
                crate::edge_evidence::denies_need(sentence, at - start)
            }
        {
            let lower = name.to_lowercase();
            if !out.contains(&lower) {
                out.push(lower);
            }
        }
        rest = &after[close + 1..];
    }
    out
}

/// Compound names (words joined by `-` or `_`, optionally in `**` bold) that the prose of
/// `body` calls a skill without backticks ("parse it with the gcode-parser skill first"),
/// lower-cased, in first-seen order, each with its 0-based line in `body`. "skill" or "skills"
/// must be one of the next two words, on the same line or at the start of the next one (hard
/// wrapped Markdown). Fenced code and backtick spans are skipped, and a token that is part of a
/// path, a URL or a file name (`/x-y`, `x-y.md`, `run_all(`) names nothing.
///
/// They make **no mention edge**: in the real library half of them name a skill as a
/// prerequisite and the rest are English compounds ("which problem-solving skill to use") or
/// "see also" lines, and linking them cost DEV precision (docs/graph-quality.md, "Session
/// 20"). A sequencing sentence may still link one through the workflow rule
/// ([`crate::workflow`]). `gos lint` reports the others that name a skill of the library, so
/// an author can mark them.
pub fn unmarked_skill_mentions(body: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let lines = prose_lines(body);
    for (k, (no, line)) in lines.iter().enumerate() {
        let next = lines
            .get(k + 1)
            .filter(|(n, _)| *n == no + 1)
            .map_or("", |(_, l)| l.as_str());
        for m in COMPOUND.find_iter(line) {
            let before = line[..m.start()].chars().next_back();
            let after = line[m.end()..].chars().next();
            let in_path = before.is_some_and(|c| matches!(c, '/' | '.' | '@' | '$' | '=' | ':'))
                || after.is_some_and(|c| matches!(c, '/' | '(' | '='))
                || (after == Some('.')
                    && line[m.end() + 1..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric));
            let tail = format!("{} {next}", &line[m.end()..]);
            if !in_path && m.len() <= 80 && skill_word_follows(&tail) {
                let lower = m.as_str().to_lowercase();
                if !out.iter().any(|(n, _)| *n == lower) {
                    out.push((lower, *no));
                }
            }
        }
    }
    out
}

/// The sentence of `text` around byte `at`, with its start: from the last line break or
/// sentence end (`. `, `? `, `! `, `; `) before it to the first one after it.
fn sentence_around(text: &str, at: usize) -> (&str, usize) {
    const ENDS: [&str; 5] = ["\n", ". ", "? ", "! ", "; "];
    let (before, after) = text.split_at(at);
    let start = ENDS
        .iter()
        .filter_map(|e| before.rfind(e).map(|i| i + e.len()))
        .max()
        .unwrap_or(0);
    let end = ENDS
        .iter()
        .filter_map(|e| after.find(e).map(|i| at + i + e.len()))
        .min()
        .unwrap_or(text.len());
    (&text[start..end], start)
}

/// A compound skill name: alphanumeric words joined by `-` or `_` (at least two words).
static COMPOUND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+\b").expect("valid compound-name pattern")
});

/// Whether "skill" or "skills" is one of the first two words of `tail`.
fn skill_word_follows(tail: &str) -> bool {
    tail.split_whitespace().take(2).any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        w == "skill" || w == "skills"
    })
}

/// The lines of `body` outside fenced code blocks with their 0-based numbers, backtick spans
/// blanked out and `*` (bold) as spaces.
fn prose_lines(body: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for (no, line) in body.lines().enumerate() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut prose = String::with_capacity(line.len());
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                prose.push(' ');
            } else if in_code {
                prose.push('\u{0}');
            } else if c == '*' {
                prose.push(' ');
            } else {
                prose.push(c);
            }
        }
        lines.push((no, prose));
    }
    lines
}

/// Normalize one package.
pub fn normalize(pkg: &SkillPackage) -> Normalized {
    let folder = pkg.id.rsplit('/').next().unwrap_or(&pkg.id).to_string();
    let name = pkg
        .frontmatter
        .get_str("name")
        .map(|n| clip(n.lines().next().unwrap_or(""), MAX_NAME_CHARS))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| folder.clone());
    let first_paragraph = pkg
        .sections
        .iter()
        .map(|s| s.text.trim())
        .find(|t| !t.is_empty())
        .map(|t| t.split("\n\n").next().unwrap_or(t).to_string())
        .unwrap_or_default();
    let description = pkg
        .frontmatter
        .get_str("description")
        .filter(|d| !d.trim().is_empty())
        .unwrap_or(first_paragraph);
    let description = clip(&compact(&description), MAX_DESCRIPTION_CHARS);
    let capability = fm_list(pkg, &["one_line_capability", "capability", "summary"])
        .into_iter()
        .next()
        .unwrap_or_else(|| first_sentence(&description));

    // Artifact types: explicit frontmatter, then I/O sections, then prose.
    let explicit_in: Vec<String> = fm_list(pkg, &["inputs", "input"]);
    let explicit_out: Vec<String> = fm_list(pkg, &["outputs", "output"]);
    let mut inputs: Vec<String> = explicit_in
        .iter()
        .flat_map(|i| explicit_item_types(i))
        .collect();
    let mut outputs: Vec<String> = explicit_out
        .iter()
        .flat_map(|i| explicit_item_types(i))
        .collect();
    if inputs.is_empty() {
        inputs = pkg
            .sections
            .iter()
            .filter(|s| is_input_heading(&s.title))
            .flat_map(|s| known_types(&s.text))
            .collect();
    }
    if outputs.is_empty() {
        outputs = pkg
            .sections
            .iter()
            .filter(|s| is_output_heading(&s.title))
            .flat_map(|s| known_types(&s.text))
            .collect();
    }
    if inputs.is_empty() || outputs.is_empty() {
        let prose: String = std::iter::once(description.as_str())
            .chain(pkg.sections.iter().map(|s| s.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n");
        let (pin, pout) = prose_types(&prose);
        if inputs.is_empty() {
            inputs = pin;
        }
        if outputs.is_empty() {
            outputs = pout;
        }
    }

    let domain_tags = dedup(fm_list(
        pkg,
        &[
            "tags",
            "tag",
            "category",
            "categories",
            "domain",
            "domains",
            "keywords",
        ],
    ));
    let mut tooling = fm_list(
        pkg,
        &[
            "tools",
            "tooling",
            "libraries",
            "dependencies",
            "allowed-tools",
            "allowed_tools",
        ],
    );
    tooling.extend(pkg.code_blocks.iter().filter_map(|c| c.lang.clone()));
    let tooling = dedup(tooling);
    let mut examples = fm_list(pkg, &["examples", "example_tasks"]);
    for s in &pkg.sections {
        let t = s.title.to_lowercase();
        if t.starts_with("when to use")
            || t.starts_with("use when")
            || t.starts_with("use cases")
            || t == "examples"
            || t == "example tasks"
        {
            examples.extend(section_items(&s.text));
        }
    }
    let example_tasks = dedup(examples);
    let headings: Vec<String> = pkg
        .sections
        .iter()
        .map(|s| compact(&s.title))
        .filter(|t| !t.is_empty())
        .take(64)
        .collect();

    let node = SkillNode {
        id: pkg.id.clone(),
        name,
        description: Field::parsed(description),
        capability: Field::parsed(capability),
        inputs: Field::parsed(sorted_set(inputs)),
        outputs: Field::parsed(sorted_set(outputs)),
        domain_tags: Field::parsed(domain_tags),
        tooling: Field::parsed(tooling),
        example_tasks: Field::parsed(example_tasks),
        entrypoints: Field::parsed(pkg.entrypoints.clone()),
        headings,
        source_path: pkg.source_path.clone(),
        content_hash: pkg.content_hash.clone(),
        warnings: crate::warnings::scan(&pkg.raw),
    };
    Normalized {
        mentions: skill_mentions(&pkg.body),
        body: pkg.body.clone(),
        node,
    }
}

/// The text views of a node for the BM25 index ([`gos_core::index::lexical`]).
pub fn lexical_doc(ord: usize, n: &Normalized) -> LexicalDoc {
    lexical_doc_with_body(ord, n, n.body.clone())
}

/// [`lexical_doc`] with the body given, so a caller done with `n.body` can move it in
/// instead of copying it (the build: 850 MB of SKILL.md text at 100,000 real-length skills).
pub fn lexical_doc_with_body(ord: usize, n: &Normalized, body: String) -> LexicalDoc {
    let node = &n.node;
    let folder = node.folder().replace(['-', '_'], " ");
    let mut meta: Vec<&str> = Vec::new();
    for list in [
        &node.domain_tags.value,
        &node.tooling.value,
        &node.inputs.value,
        &node.outputs.value,
        &node.example_tasks.value,
        &node.entrypoints.value,
    ] {
        meta.extend(list.iter().map(String::as_str));
    }
    LexicalDoc {
        ord: ord as u64,
        id: node.id.clone(),
        name: format!("{} {}", node.name, folder),
        description: format!("{}\n{}", node.description.value, node.capability.value),
        meta: meta.join("\n"),
        headings: node.headings.join("\n"),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_need_backticks_and_the_word_skill() {
        let body = "Use the `pdf-text-extraction` skill first. Run `ls -la` then. \
                    The `fasta-reader` and other skills. Plain pdf skill.";
        assert_eq!(skill_mentions(body), vec!["pdf-text-extraction"]);
        assert_eq!(skill_mentions("see `a-b`, skill"), vec!["a-b"]);
        // A sentence that denies the need names nothing; the next sentence still does.
        assert_eq!(
            skill_mentions(
                "You don't need the `csv-cleanup` skill first here. Use the `pdf-extract` skill."
            ),
            vec!["pdf-extract"]
        );
    }

    #[test]
    fn unmarked_mentions_are_compound_names_called_a_skill_outside_code() {
        let body = "First parse the file with the gcode-parser skill to get moves.json.\n\
                    Pairs with the **premium-frontend-ui** skill. Read docs/setup-guide skill \
                    notes and setup-guide.md skills, call run_all(x) skill.\n\
                    A search skill, the `pdf` tool, the Gcode_Parser skills.\n\
                    ```\nnpx add code-block skill\n```\n\
                    Run `npx add` then in-code skill `x`.\n\
                    Hard-wrapped: parse it with the wrapped-name\n\
                    skill first.";
        let found = unmarked_skill_mentions(body);
        let names: Vec<(&str, usize)> = found.iter().map(|(n, l)| (n.as_str(), *l)).collect();
        assert_eq!(
            names,
            vec![
                ("gcode-parser", 0),
                ("premium-frontend-ui", 1),
                ("gcode_parser", 2),
                ("in-code", 6),
                ("wrapped-name", 7)
            ]
        );
        assert!(skill_mentions(body).is_empty());
    }

    #[test]
    fn first_sentence_stops_at_terminal_punctuation() {
        assert_eq!(
            first_sentence("Parses v1.2 files. Then more."),
            "Parses v1.2 files."
        );
        assert_eq!(first_sentence("no stop"), "no stop");
    }
}
