//! Alternative edges: two skills that do the same job (\[P\] §3.2, the `alternative`
//! relation), so a bundle needs only one of them.
//!
//! Two sources, both from content only:
//!
//! - **near-duplicate groups** ([`crate::dedup`], `duplicates.json`): every pair of one group
//!   gets an edge, provenance [`EdgeProvenance::Duplicate`], weight 1, evidence
//!   `near-duplicate: one of N copies`;
//! - **the same job**: the same non-empty set of input types *and* the same non-empty set of
//!   output types, and descriptions whose content words (lower-case, at least 3 characters,
//!   stop words out) overlap by at least [`AlternativeOptions::min_overlap`] of the shorter
//!   one's (the overlap coefficient); provenance [`EdgeProvenance::SameJob`], weight = the
//!   overlap, evidence `same job: IN -> OUT; description overlap 0.67`. Candidates are the
//!   members of one (inputs, outputs) bucket, so the cost is the sum of squared bucket sizes,
//!   never all N² pairs.
//!
//! Alternative edges carry no prerequisite mass: they are never dependency edges, and their
//! transition factor is 0 by default ([`gos_core::graph::ppr::ReverseWeights`]).
//!
//! **Groups** ([`alternative_groups`]): the connected components of the alternative edges,
//! written to the workspace as `alternatives.json` so a bundle can spend one slot per group.

use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// File name of the alternative groups inside a workspace.
pub const ALTERNATIVES_FILE: &str = "alternatives.json";

/// Parameters of the same-job rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlternativeOptions {
    /// Least overlap coefficient of the two descriptions' content words, in [0, 1]; default
    /// 0.5 (the near-duplicate rule's description test, [`crate::dedup::DedupParams`]).
    pub min_overlap: f64,
    /// Buckets of more skills than this with one (inputs, outputs) signature are left out (a
    /// signature that common is a genre, not a job); default 50.
    pub max_bucket: usize,
}

impl Default for AlternativeOptions {
    fn default() -> Self {
        AlternativeOptions {
            min_overlap: 0.5,
            max_bucket: 50,
        }
    }
}

/// The stored groups (`alternatives.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlternativeGroups {
    /// How the groups were found, for people.
    pub method: String,
    /// The groups: each at least two skill ids, sorted; groups sorted by their first id.
    pub groups: Vec<Vec<String>>,
}

const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "this", "that", "into", "use", "using", "when", "what",
    "which", "how", "you", "your", "can", "are", "its", "via", "any", "all", "skill",
];

fn content_words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// Alternative edges of near-duplicate `groups` (skill ids, each group sorted, as stored in
/// `duplicates.json`): every pair of a group, in the group's order.
pub fn duplicate_edges(groups: &[Vec<String>]) -> Vec<SkillEdge> {
    let mut edges = Vec::new();
    for g in groups {
        for (x, a) in g.iter().enumerate() {
            for b in &g[x + 1..] {
                edges.push(SkillEdge {
                    source: a.clone(),
                    target: b.clone(),
                    edge_type: EdgeType::Alternative,
                    weight: 1.0,
                    provenance: EdgeProvenance::Duplicate,
                    evidence: format!("near-duplicate: one of {} copies", g.len()),
                });
            }
        }
    }
    edges
}

fn sorted_set(v: &[String]) -> Vec<&str> {
    let s: BTreeSet<&str> = v.iter().map(String::as_str).collect();
    s.into_iter().collect()
}

/// Alternative edges of skills doing the same job (module docs), smaller index first.
pub fn same_job_edges(nodes: &[SkillNode], opts: &AlternativeOptions) -> Vec<SkillEdge> {
    let mut buckets: BTreeMap<(Vec<&str>, Vec<&str>), Vec<usize>> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let (ins, outs) = (sorted_set(&n.inputs.value), sorted_set(&n.outputs.value));
        if !ins.is_empty() && !outs.is_empty() {
            buckets.entry((ins, outs)).or_default().push(i);
        }
    }
    let mut words: HashMap<usize, BTreeSet<String>> = HashMap::new();
    let mut edges = Vec::new();
    for ((ins, outs), members) in &buckets {
        if members.len() < 2 || members.len() > opts.max_bucket {
            continue;
        }
        for &m in members {
            words
                .entry(m)
                .or_insert_with(|| content_words(&nodes[m].description.value));
        }
        for (x, &a) in members.iter().enumerate() {
            for &b in &members[x + 1..] {
                let (wa, wb) = (&words[&a], &words[&b]);
                let shorter = wa.len().min(wb.len());
                if shorter == 0 {
                    continue;
                }
                let overlap = wa.intersection(wb).count() as f64 / shorter as f64;
                if overlap + 1e-12 < opts.min_overlap {
                    continue;
                }
                edges.push(SkillEdge {
                    source: nodes[a].id.clone(),
                    target: nodes[b].id.clone(),
                    edge_type: EdgeType::Alternative,
                    weight: (overlap * 1e6).round() / 1e6,
                    provenance: EdgeProvenance::SameJob,
                    evidence: format!(
                        "same job: {} -> {}; description overlap {overlap:.2}",
                        ins.join(", "),
                        outs.join(", ")
                    ),
                });
            }
        }
    }
    edges
}

/// The connected components (of at least two nodes) of `edges`' alternative edges over
/// `ids`, as stored in [`ALTERNATIVES_FILE`]; `None` when there is none.
pub fn alternative_groups<'a>(
    ids: &[&str],
    edges: impl IntoIterator<Item = &'a SkillEdge>,
) -> Option<AlternativeGroups> {
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for e in edges {
        if e.edge_type != EdgeType::Alternative {
            continue;
        }
        if let (Some(&a), Some(&b)) = (index.get(e.source.as_str()), index.get(e.target.as_str())) {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut by_root: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (i, id) in ids.iter().enumerate() {
        let r = find(&mut parent, i);
        by_root.entry(r).or_default().push(id.to_string());
    }
    let mut groups: Vec<Vec<String>> = by_root.into_values().filter(|g| g.len() > 1).collect();
    if groups.is_empty() {
        return None;
    }
    for g in &mut groups {
        g.sort();
    }
    groups.sort();
    Some(AlternativeGroups {
        method: "connected components of the alternative edges (near-duplicate groups, and \
                 skills with the same input and output types and close descriptions)"
            .into(),
        groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;

    fn node(name: &str, description: &str, inputs: &[&str], outputs: &[&str]) -> SkillNode {
        SkillNode {
            id: format!("c/{name}"),
            name: name.into(),
            description: Field::parsed(description.into()),
            capability: Field::default(),
            inputs: Field::parsed(inputs.iter().map(|s| s.to_string()).collect()),
            outputs: Field::parsed(outputs.iter().map(|s| s.to_string()).collect()),
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
    fn same_inputs_outputs_and_close_descriptions_link_and_a_chain_does_not() {
        let nodes = vec![
            node(
                "tts-a",
                "Convert text to speech audio with voices.",
                &["text"],
                &["audio"],
            ),
            node(
                "tts-b",
                "Turn text into speech audio.",
                &["text"],
                &["audio"],
            ),
            node(
                "podcast",
                "Mix podcast episodes from interviews.",
                &["text"],
                &["audio"],
            ),
            node(
                "transcribe",
                "Convert speech audio to text.",
                &["audio"],
                &["text"],
            ),
        ];
        let edges = same_job_edges(&nodes, &AlternativeOptions::default());
        // tts-b's words {turn, text, speech, audio} share text, speech, audio with tts-a: 3/4.
        let got: Vec<(&str, &str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
            .collect();
        assert_eq!(
            got,
            [(
                "c/tts-a",
                "c/tts-b",
                "same job: text -> audio; description overlap 0.75"
            )]
        );
        assert_eq!(edges[0].weight, 0.75);
        assert_eq!(edges[0].edge_type, EdgeType::Alternative);
    }

    #[test]
    fn duplicate_groups_give_every_pair_and_groups_are_components() {
        let nodes: Vec<SkillNode> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|n| node(n, "", &[], &[]))
            .collect();
        let edges = duplicate_edges(&[vec!["c/a".into(), "c/b".into(), "c/c".into()]]);
        assert_eq!(edges.len(), 3);
        assert_eq!(edges[0].evidence, "near-duplicate: one of 3 copies");
        let mut all = edges.clone();
        all.push(SkillEdge {
            source: "c/d".into(),
            target: "c/e".into(),
            edge_type: EdgeType::Alternative,
            weight: 0.6,
            provenance: EdgeProvenance::SameJob,
            evidence: String::new(),
        });
        // A semantic edge joins no group.
        all.push(SkillEdge {
            edge_type: EdgeType::Semantic,
            ..all[0].clone()
        });
        all[4].target = "c/d".into();
        let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        let g = alternative_groups(&ids, &all).unwrap();
        assert_eq!(
            g.groups,
            vec![vec!["c/a", "c/b", "c/c"], vec!["c/d", "c/e"]]
        );
        assert!(alternative_groups(&ids, &[]).is_none());
    }
}
