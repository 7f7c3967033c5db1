//! Semantic completion: the LLM fills retrieval-critical fields that the parse left empty
//! (capability, inputs, outputs, domain tags, tooling, example tasks), one request per node
//! that has any of them empty.
//!
//! Merging rules: only an empty field is filled (a parsed value is never overwritten); the
//! filled field gets provenance `inferred` with the model id and the prompt hash; input and
//! output items are normalized to artifact types like explicit frontmatter items
//! ([`crate::artifacts::explicit_item_types`]); list items are trimmed, deduplicated and
//! capped (12 items of at most 120 characters). Completion never creates edges: it runs after
//! the deterministic relation pass, and its values reach the graph only through the
//! validator's prompts and gates.

use crate::artifacts::explicit_item_types;
use crate::normalize::Normalized;
use gos_core::{Field, Provenance};
use gos_llm::prompts::completion_prompt;
use gos_llm::service::{Failure, LlmService};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Most items kept per inferred list.
const MAX_ITEMS: usize = 12;
/// Most characters per inferred item.
const MAX_ITEM_CHARS: usize = 120;

/// Counters of the completion pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompletionStats {
    /// Nodes with at least one empty completable field.
    pub eligible: usize,
    /// Nodes that got at least one field filled.
    pub completed_nodes: usize,
    /// Fields filled, by field name.
    pub fields_filled: BTreeMap<String, usize>,
    /// Nodes whose request failed (they keep their parsed fields).
    pub failed: usize,
}

/// Names of the empty completable fields of a node, in reply-key form.
pub fn missing_fields(n: &gos_core::SkillNode) -> Vec<&'static str> {
    let mut out = Vec::new();
    if n.capability.value.trim().is_empty() {
        out.push("capability");
    }
    for (name, v) in [
        ("inputs", &n.inputs.value),
        ("outputs", &n.outputs.value),
        ("domain_tags", &n.domain_tags.value),
        ("tooling", &n.tooling.value),
        ("example_tasks", &n.example_tasks.value),
    ] {
        if v.is_empty() {
            out.push(name);
        }
    }
    out
}

fn list(v: Option<&serde_json::Value>) -> Vec<String> {
    let items: Vec<String> = match v {
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(serde_json::Value::String(s)) => {
            s.split([',', ';', '\n']).map(str::to_string).collect()
        }
        _ => Vec::new(),
    };
    let mut seen = BTreeSet::new();
    items
        .into_iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty() && s.chars().count() <= MAX_ITEM_CHARS)
        .filter(|s| seen.insert(s.to_lowercase()))
        .take(MAX_ITEMS)
        .collect()
}

/// Merge a completion reply into `n` (only its empty fields among `missing`); returns the
/// names of the fields filled.
pub fn merge_completion(
    n: &mut Normalized,
    missing: &[&str],
    reply: &serde_json::Value,
    model: &str,
    prompt_hash: &str,
) -> Vec<&'static str> {
    let prov = || Provenance::Inferred {
        model: model.to_string(),
        prompt_hash: prompt_hash.to_string(),
    };
    let node = &mut n.node;
    let mut filled = Vec::new();
    if missing.contains(&"capability")
        && node.capability.value.trim().is_empty()
        && let Some(c) = reply.get("capability").and_then(|c| c.as_str())
    {
        let c: String = c.split_whitespace().collect::<Vec<_>>().join(" ");
        if !c.is_empty() {
            node.capability = Field {
                value: c.chars().take(300).collect(),
                provenance: prov(),
            };
            filled.push("capability");
        }
    }
    let types = |items: Vec<String>| -> Vec<String> {
        let set: BTreeSet<String> = items.iter().flat_map(|i| explicit_item_types(i)).collect();
        set.into_iter().take(MAX_ITEMS).collect()
    };
    let slots: [(&'static str, &mut Field<Vec<String>>, bool); 5] = [
        ("inputs", &mut node.inputs, true),
        ("outputs", &mut node.outputs, true),
        ("domain_tags", &mut node.domain_tags, false),
        ("tooling", &mut node.tooling, false),
        ("example_tasks", &mut node.example_tasks, false),
    ];
    for (name, field, artifact) in slots {
        if !missing.contains(&name) || !field.value.is_empty() {
            continue;
        }
        let mut items = list(reply.get(name));
        if artifact {
            items = types(items);
        }
        if !items.is_empty() {
            *field = Field {
                value: items,
                provenance: prov(),
            };
            filled.push(name);
        }
    }
    filled
}

/// Complete every eligible node of `normalized` through `service`. Failed nodes keep their
/// parsed fields and are listed in `skipped` as `(id, reason)`.
pub fn complete_nodes(
    normalized: &mut [Normalized],
    service: &LlmService,
    skipped: &mut Vec<(String, String)>,
    on_done: &(dyn Fn() + Sync),
) -> CompletionStats {
    let mut stats = CompletionStats::default();
    let jobs: Vec<(usize, Vec<&'static str>)> = normalized
        .iter()
        .enumerate()
        .map(|(i, n)| (i, missing_fields(&n.node)))
        .filter(|(_, m)| !m.is_empty())
        .collect();
    stats.eligible = jobs.len();
    let prompts: Vec<_> = jobs
        .iter()
        .map(|(i, m)| completion_prompt(&normalized[*i].node, &normalized[*i].body, m))
        .collect();
    let answers = service.run_batch(&prompts, on_done);
    for ((i, missing), answer) in jobs.into_iter().zip(answers) {
        match answer {
            Ok(a) => {
                let filled = merge_completion(
                    &mut normalized[i],
                    &missing,
                    &a.json,
                    service.model(),
                    &a.prompt_hash,
                );
                if !filled.is_empty() {
                    stats.completed_nodes += 1;
                }
                for f in filled {
                    *stats.fields_filled.entry(f.to_string()).or_insert(0) += 1;
                }
            }
            Err(f) => {
                stats.failed += 1;
                skipped.push((normalized[i].node.id.clone(), format!("completion: {f}")));
                let _: &Failure = &f;
            }
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::SkillNode;

    #[test]
    fn completion_fills_only_empty_fields_with_inferred_provenance() {
        let node = SkillNode {
            id: "a/b".into(),
            name: "b".into(),
            description: Field::parsed("Reads things".into()),
            capability: Field::parsed("Reads things".into()),
            inputs: Field::parsed(vec!["pdf".into()]),
            outputs: Field::default(),
            domain_tags: Field::default(),
            tooling: Field::parsed(vec!["python".into()]),
            example_tasks: Field::default(),
            entrypoints: Field::default(),
            headings: vec![],
            source_path: "a/b/SKILL.md".into(),
            content_hash: String::new(),
            warnings: Vec::new(),
        };
        let missing = missing_fields(&node);
        assert_eq!(missing, vec!["outputs", "domain_tags", "example_tasks"]);
        let mut n = Normalized {
            node,
            body: String::new(),
            mentions: vec![],
        };
        let reply = serde_json::json!({
            "inputs": ["docx"], "outputs": ["CSV table", "csv"], "domain_tags": "documents, tables",
            "tooling": ["java"], "example_tasks": []
        });
        let filled = merge_completion(&mut n, &missing, &reply, "m1", "h1");
        assert_eq!(filled, vec!["outputs", "domain_tags"]);
        assert_eq!(n.node.inputs.value, vec!["pdf"]);
        assert_eq!(n.node.inputs.provenance, Provenance::Parsed);
        assert_eq!(n.node.tooling.value, vec!["python"]);
        assert_eq!(n.node.outputs.value, vec!["csv"]);
        assert_eq!(n.node.domain_tags.value, vec!["documents", "tables"]);
        assert_eq!(
            n.node.outputs.provenance,
            Provenance::Inferred {
                model: "m1".into(),
                prompt_hash: "h1".into()
            }
        );
    }
}
