//! Specific terms: the words two skills must share, beside their similarity, for a semantic
//! edge (see the parent module's docs); also the evidence an edge shows.

use gos_core::SkillNode;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// Stop words left out of [`SpecificTerms`] (short function words and the words every
/// SKILL.md uses about itself).
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "this", "that", "these", "those", "into", "use", "using",
    "used", "when", "what", "which", "who", "how", "you", "your", "can", "will", "should", "not",
    "any", "all", "via", "are", "its", "was", "were", "has", "have", "but", "skill", "skills",
];

/// The specific terms of every node: lower-case words (letters, digits, `+ # . -`; at least 3
/// characters with a letter; hyphenated words also give their parts) of the name, description
/// and headings, stop words out, used by at most `max_df` nodes. Built once: O(total text).
#[derive(Debug, Clone)]
pub struct SpecificTerms {
    terms: Vec<BTreeSet<String>>,
    df: HashMap<String, usize>,
}

fn words(text: &str, out: &mut BTreeSet<String>) {
    let keep = |w: &str| {
        w.chars().count() >= 3 && w.chars().any(char::is_alphabetic) && !STOP_WORDS.contains(&w)
    };
    for w in text
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '+' | '#' | '.' | '-')))
    {
        let w = w.trim_matches(|c| c == '.' || c == '-');
        if keep(w) {
            out.insert(w.to_string());
        }
        if w.contains('-') {
            out.extend(w.split('-').filter(|p| keep(p)).map(str::to_string));
        }
    }
}

impl SpecificTerms {
    /// Index `nodes` with document-frequency cap `max_df`.
    pub fn new(nodes: &[SkillNode], max_df: usize) -> Self {
        let all: Vec<BTreeSet<String>> = nodes
            .par_iter()
            .map(|n| {
                let mut set = BTreeSet::new();
                words(&n.name.replace(['-', '_'], " "), &mut set);
                words(&n.description.value, &mut set);
                for h in &n.headings {
                    words(h, &mut set);
                }
                set
            })
            .collect();
        let mut df: HashMap<String, usize> = HashMap::new();
        for t in all.iter().flatten() {
            // A term is cloned once, when first seen.
            match df.get_mut(t.as_str()) {
                Some(count) => *count += 1,
                None => {
                    df.insert(t.clone(), 1);
                }
            }
        }
        let terms = all
            .into_iter()
            .map(|s| s.into_iter().filter(|t| df[t] <= max_df).collect())
            .collect();
        SpecificTerms { terms, df }
    }

    /// The specific terms `a` and `b` share, rarest first (ties alphabetical).
    pub fn shared(&self, a: usize, b: usize) -> Vec<&str> {
        let mut out: Vec<&str> = self.terms[a]
            .intersection(&self.terms[b])
            .map(String::as_str)
            .collect();
        out.sort_by_key(|t| (self.df[*t], *t));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::tests::node;

    #[test]
    fn specific_terms_drop_stop_words_common_words_and_split_hyphens() {
        let nodes = vec![
            node("bam-sort", "Sort BAM files with samtools."),
            node("bam-index", "Index BAM files with samtools."),
            node("notes", "Write files."),
        ];
        let t = SpecificTerms::new(&nodes, 2);
        // `files` is in 3 nodes; `with` is a stop word; `bam` and `samtools` are in 2.
        assert_eq!(t.shared(0, 1), vec!["bam", "samtools"]);
        assert!(t.shared(0, 2).is_empty());
    }
}
