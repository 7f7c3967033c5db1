//! Specific evidence for inferred edges: what, beyond one shared artifact type, says two skills
//! belong to one chain.
//!
//! On the real library (5,584 packages) most I/O edges rested on one generic artifact type
//! (`image`, `video`, `pdf`, `log`, `sql`, `transcript`): a reader accepted 6 of 50 sampled edges
//! (docs/graph-quality.md). An I/O edge is kept only with *specific* evidence, one of:
//!
//! - a shared type that few skills name (document frequency at most
//!   [`crate::relate::RelateOptions::specific_type_df`], e.g. `seismic-waveform`, `netcdf`);
//! - at least [`crate::relate::RelateOptions::min_shared_terms`] shared *specific terms*:
//!   words of both skills' name and description that at most `term_max_df` skills use and that
//!   are not artifact-type words (a tool, library or format such as `samtools`, `ffmpeg`,
//!   `bcftools`).
//!
//! Copies of one skill (identical descriptions) share everything and are not a chain: no I/O
//! edge joins them.

use gos_core::SkillNode;
use regex::Regex;
use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

/// Words denying a need, a requirement or a use: "you don't need the `x` skill first", "`x`
/// is not required", "do not use the `x` skill". "Don't forget to run `x` first" denies
/// nothing.
static DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:don['’]t|do\s+not|doesn['’]t|does\s+not|didn['’]t|did\s+not|no)\s+(?:need|require)|needn['’]t|need\s+not|not\s+(?:needed|required|necessary|relevant)|unnecessary|irrelevant|(?:don['’]t|do\s+not|never)\s+use)\b",
    )
    .expect("valid denial pattern")
});

/// Words preferring something else over what follows them: "instead of the `x` skill" denies
/// `x`, but "defer to the `x` skill rather than re-deriving" does not (the name comes first).
static PREFER_OTHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:instead\s+of|rather\s+than)\b").expect("valid preference pattern")
});

/// Whether `sentence` denies needing or using the skill it names at byte `name_at`: words
/// denying a need, a requirement or a use anywhere ("you don't need", "is not required", "do
/// not use"), or words preferring something else before the name ("instead of the `x` skill";
/// "the `x` skill rather than re-deriving" denies nothing). The mention and workflow rules make
/// no edge from such a sentence. (A new user's "You don't need the `csv-cleanup` skill first
/// here" made both.)
pub fn denies_need(sentence: &str, name_at: usize) -> bool {
    DENIAL.is_match(sentence) || PREFER_OTHER.find_iter(sentence).any(|m| m.end() <= name_at)
}

/// The specific terms of every node of a library and their document frequencies. Built once
/// per relation pass: O(total description length).
#[derive(Debug, Clone)]
pub struct TermEvidence {
    /// Per node: its terms that at most `max_df` nodes use, excluding artifact-type words.
    specific: Vec<BTreeSet<String>>,
    /// Document frequency of every term.
    df: HashMap<String, usize>,
    /// Per node: its description, lower-cased with whitespace collapsed.
    descriptions: Vec<String>,
}

/// The words of `text` a term can be: lower-cased runs of letters, digits and `+ # . -`,
/// trimmed of `.` and `-` at both ends, at least 3 characters with a letter among them.
pub fn terms(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '+' | '#' | '.' | '-')))
        .map(|w| w.trim_matches(|c| c == '.' || c == '-'))
        .filter(|w| w.chars().count() >= 3 && w.chars().any(char::is_alphabetic))
        .map(str::to_string)
        .collect()
}

/// A node's term text: its name with `-` and `_` as spaces, then its description.
fn node_text(node: &SkillNode) -> String {
    format!(
        "{} {}",
        node.name.replace(['-', '_'], " "),
        node.description.value
    )
}

impl TermEvidence {
    /// Index `nodes`: a term is specific when at most `max_df` nodes use it and it is not a
    /// word of an artifact type any node names (`sequence-alignment` excludes `sequence`,
    /// `alignment` and the whole name).
    pub fn new(nodes: &[SkillNode], max_df: usize) -> Self {
        let mut type_words: BTreeSet<String> = BTreeSet::new();
        for n in nodes {
            for t in n.inputs.value.iter().chain(&n.outputs.value) {
                let t = t.to_lowercase();
                type_words.extend(t.split(['-', '_']).map(str::to_string));
                type_words.insert(t);
            }
        }
        let all: Vec<BTreeSet<String>> = nodes.iter().map(|n| terms(&node_text(n))).collect();
        let mut df: HashMap<String, usize> = HashMap::new();
        for set in &all {
            for t in set {
                *df.entry(t.clone()).or_insert(0) += 1;
            }
        }
        let specific = all
            .into_iter()
            .map(|set| {
                set.into_iter()
                    .filter(|t| df[t] <= max_df && !type_words.contains(t))
                    .collect()
            })
            .collect();
        let descriptions = nodes
            .iter()
            .map(|n| {
                n.description
                    .value
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase()
            })
            .collect();
        TermEvidence {
            specific,
            df,
            descriptions,
        }
    }

    /// The specific terms nodes `a` and `b` share, rarest first (ties alphabetical).
    pub fn shared(&self, a: usize, b: usize) -> Vec<&str> {
        let mut out: Vec<&str> = self.specific[a]
            .intersection(&self.specific[b])
            .map(String::as_str)
            .collect();
        out.sort_by_key(|t| (self.df[*t], *t));
        out
    }

    /// Whether `a` and `b` are copies of one skill: the same non-empty description.
    pub fn same_description(&self, a: usize, b: usize) -> bool {
        !self.descriptions[a].is_empty() && self.descriptions[a] == self.descriptions[b]
    }
}

/// Words never linked as skill names.
const COMMON_WORDS: &[&str] = &[
    "skill", "skills", "this", "that", "the", "a", "an", "it", "same", "other", "new", "any",
    "each", "these", "those", "every", "main", "base", "default", "example", "name", "my",
];

/// Whether `word` is on the list of words never linked as skill names (`skill`, `this`,
/// `default`, ...): the mention and workflow rules share it.
#[cfg(test)]
#[test]
fn denials_are_needs_requirements_and_uses_denied() {
    let at = |s: &str| s.find("skill").unwrap();
    for s in [
        "You don't need the `csv-cleanup` skill first here.",
        "The csv-cleanup skill is not required.",
        "Use this instead of the `pdf` skill.",
        "Do not use the `x` skill for invoices.",
        "**sales-report** skill output is not relevant",
    ] {
        assert!(denies_need(s, at(s)), "{s}");
    }
    for s in [
        "Don't forget to run the `csv-cleanup` skill first.",
        "First use the `gcode-parser` skill.",
        "You need the `x` skill before this one; nothing else is required.",
        "Defer those calls to its `spark-memory-thermal-ops` skill rather than re-deriving them.",
    ] {
        assert!(!denies_need(s, at(s)), "{s}");
    }
}

pub(crate) fn is_common_word(word: &str) -> bool {
    COMMON_WORDS.contains(&word)
}

/// Whether the description calls the skill deprecated ("deprecated, use X"): such a skill is
/// nobody's prerequisite or workflow step.
pub(crate) fn is_deprecated(node: &SkillNode) -> bool {
    node.description.value.to_lowercase().contains("deprecated")
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;

    fn node(name: &str, description: &str, inputs: &[&str]) -> SkillNode {
        SkillNode {
            id: format!("c/{name}"),
            name: name.into(),
            description: Field::parsed(description.into()),
            capability: Field::default(),
            inputs: Field::parsed(inputs.iter().map(|s| s.to_string()).collect()),
            outputs: Field::default(),
            domain_tags: Field::default(),
            tooling: Field::default(),
            example_tasks: Field::default(),
            entrypoints: Field::default(),
            headings: vec![],
            source_path: format!("c/{name}/SKILL.md"),
            content_hash: String::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn terms_keep_tool_names_and_drop_short_or_numeric_words() {
        let t = terms("Sort BAM files with samtools/pysam (v1.2), e.g. `c++` and 42.");
        let got: Vec<&str> = t.iter().map(String::as_str).collect();
        assert_eq!(
            got,
            [
                "and", "bam", "c++", "e.g", "files", "pysam", "samtools", "sort", "v1.2", "with"
            ]
        );
    }

    #[test]
    fn shared_terms_skip_common_words_and_type_words() {
        let nodes = vec![
            node(
                "bam-sort",
                "Sort sequence-alignment files with samtools.",
                &["sequence-alignment"],
            ),
            node("bam-index", "Index alignment files with samtools.", &[]),
            node("notes", "Write files and notes.", &[]),
            node("copy", "Index alignment files with samtools.", &[]),
        ];
        // "files" is in all 4 nodes (above max_df 2); "alignment" is a type word.
        let ev = TermEvidence::new(&nodes, 2);
        assert_eq!(ev.shared(0, 1), vec!["bam"]);
        assert!(ev.shared(0, 2).is_empty());
        // "samtools" is used by 3 nodes: above max_df.
        assert_eq!(ev.shared(1, 3), vec!["index"]);
        assert!(ev.same_description(1, 3));
        assert!(!ev.same_description(0, 1));
    }
}
