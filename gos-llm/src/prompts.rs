//! Prompt templates. Each has an id with a version that is part of every cache key: change
//! the text of a template and bump its version, so old cached replies are not reused for a
//! prompt they did not answer.
//!
//! The contracts follow the reference implementation's relation types and output shape
//! (reference notes §1.12, §2.1); the wording is ours. Skills are named by their id in square
//! brackets (ids are unique, frontmatter names are not), and the reply must use those ids.

use crate::service::Prompt;
use gos_core::SkillNode;

/// Relation validation template id.
pub const VALIDATE_TEMPLATE: &str = "validate-relations/v1";
/// Semantic completion template id.
pub const COMPLETE_TEMPLATE: &str = "complete-fields/v1";
/// Query rewrite template id.
pub const REWRITE_TEMPLATE: &str = "rewrite-query/v1";

/// First line of the user message of a validation prompt (test responders key on it).
pub const VALIDATE_HEADER: &str = "Focus skill:";
/// First line of the user message of a completion prompt.
pub const COMPLETE_HEADER: &str = "Skill to complete:";
/// First line of the user message of a rewrite prompt.
pub const REWRITE_HEADER: &str = "Task:";

const VALIDATE_SYSTEM: &str = "\
You review proposed relations between agent skills for a retrieval graph.
Relation types:
- dependency: the source skill produces an artifact that the target skill consumes, so the source runs first.
- workflow: the two skills are usually run one after the other in a concrete multi-step procedure, source first.
- semantic: both skills serve the same narrow capability.
- alternative: both skills do the same task with a different implementation.
Keep the graph sparse and precise. Propose a relation only when the skill texts state it or strongly imply it. \
When an artifact passes from one skill to the other, prefer dependency over semantic. \
A shared programming language or tool alone is not a relation. When unsure, propose nothing.
Name skills by the id in square brackets, exactly as written.
Reply with one JSON object and nothing else:
{\"relations\": [{\"source\": \"<id>\", \"target\": \"<id>\", \"type\": \"dependency|workflow|semantic|alternative\", \
\"confidence\": <number from 0 to 1>, \"description\": \"<one sentence of evidence>\", \
\"artifacts\": [\"<artifact types passed from source to target, for dependency and workflow>\"]}]}";

const COMPLETE_SYSTEM: &str = "\
You fill in missing catalogue fields of an agent skill so that it can be retrieved for the right tasks.
Use only what the skill text states or clearly implies; leave a field empty rather than guess.
Fields: capability (one sentence: what the skill does), inputs (artifact or file types it reads, e.g. csv, pdf, geojson), \
outputs (artifact or file types it writes), domain_tags (short topic tags), tooling (libraries, languages, command-line tools), \
example_tasks (short task descriptions the skill fits).
Reply with one JSON object holding only the fields you are asked for: strings for capability, lists of short strings for the others.";

const REWRITE_SYSTEM: &str = "\
You turn a task description into a compact retrieval query for a library of agent skills.
Keep the user's intent and the technical words of the request; do not invent labels.
Prefer concrete formats, file types, libraries, protocols and operations. Leave a field empty when the task does not say.
Reply with one JSON object: {\"goal\": \"<one sentence>\", \"operations\": [\"...\"], \"artifacts\": [\"...\"], \
\"constraints\": [\"...\"], \"keywords\": [\"the few most useful search terms\"]}";

/// Most characters of a description in a skill line.
const MAX_DESCRIPTION: usize = 400;
/// Most characters of the body excerpt in a completion prompt.
const MAX_BODY: usize = 2_000;

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((b, _)) => format!("{}...", s[..b].trim_end()),
        None => s.to_string(),
    }
}

/// One line describing a skill: `[id] name: description; Capability: ...; Inputs: ...; ...`
/// (a field appears only when non-empty; capability only when it differs from the description).
pub fn skill_line(n: &SkillNode) -> String {
    let mut parts = vec![format!(
        "[{}] {}: {}",
        n.id,
        n.name,
        clip(&n.description.value, MAX_DESCRIPTION)
    )];
    let cap = &n.capability.value;
    if !cap.is_empty() && !n.description.value.starts_with(cap.as_str()) {
        parts.push(format!("Capability: {}", clip(cap, 200)));
    }
    for (label, list) in [
        ("Inputs", &n.inputs.value),
        ("Outputs", &n.outputs.value),
        ("Domain tags", &n.domain_tags.value),
        ("Tooling", &n.tooling.value),
        ("Example tasks", &n.example_tasks.value),
        ("Entrypoints", &n.entrypoints.value),
    ] {
        if !list.is_empty() {
            let items: Vec<String> = list.iter().take(8).map(|s| clip(s, 80)).collect();
            parts.push(format!("{label}: {}", items.join(", ")));
        }
    }
    parts.join("; ")
}

/// The validation prompt of `focus` with its candidate pool.
pub fn validation_prompt(focus: &SkillNode, candidates: &[&SkillNode]) -> Prompt {
    validation_prompt_with(focus, candidates, &[])
}

/// [`validation_prompt`] with, under candidate `i`, the line `Proposed by the build: ...`
/// when `proposed[i]` is `Some` (a candidate edge a deterministic rule made between the focus
/// skill and that candidate: its type, direction and evidence, already clipped and free of
/// markup). The reply then keeps such an edge by listing it (with the type the model judges
/// right) and drops it by leaving it out (`gos_build::llm::validate`). Without any proposed
/// line the prompt is exactly [`validation_prompt`]'s, so cached replies stay valid.
pub fn validation_prompt_with(
    focus: &SkillNode,
    candidates: &[&SkillNode],
    proposed: &[Option<String>],
) -> Prompt {
    let mut user = format!(
        "{VALIDATE_HEADER}\n- {}\n\nCandidate skills:\n",
        skill_line(focus)
    );
    let mut any_proposed = false;
    for (i, c) in candidates.iter().enumerate() {
        user.push_str(&format!("- {}\n", skill_line(c)));
        if let Some(Some(p)) = proposed.get(i) {
            user.push_str(&format!(
                "  Proposed by the build: {}\n",
                clip(p, MAX_DESCRIPTION)
            ));
            any_proposed = true;
        }
    }
    user.push_str(
        "\nList the well-supported relations between the focus skill and the candidates; each \
         relation joins the focus skill to one candidate. Return {\"relations\": []} when none \
         is well supported.",
    );
    if any_proposed {
        user.push_str(
            " A relation proposed by the build is kept only if you list it (with the type you \
             judge right); leave it out when the skill texts do not support it.",
        );
    }
    Prompt::new(VALIDATE_TEMPLATE, VALIDATE_SYSTEM, user)
}

/// The completion prompt of `node` asking for the `missing` fields (names as in the reply).
pub fn completion_prompt(node: &SkillNode, body: &str, missing: &[&str]) -> Prompt {
    let user = format!(
        "{COMPLETE_HEADER}\n- {}\n\nSkill text (excerpt):\n{}\n\nFill these fields: {}",
        skill_line(node),
        clip(body.trim(), MAX_BODY),
        missing.join(", ")
    );
    Prompt::new(COMPLETE_TEMPLATE, COMPLETE_SYSTEM, user)
}

/// The rewrite prompt of a task text.
pub fn rewrite_prompt(task: &str) -> Prompt {
    Prompt::new(
        REWRITE_TEMPLATE,
        REWRITE_SYSTEM,
        format!("{REWRITE_HEADER}\n{}", task.trim()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;

    fn node(id: &str, description: &str) -> SkillNode {
        SkillNode {
            id: id.into(),
            name: id.rsplit('/').next().unwrap().into(),
            description: Field::parsed(description.into()),
            capability: Field::default(),
            inputs: Field::default(),
            outputs: Field::default(),
            domain_tags: Field::default(),
            tooling: Field::default(),
            example_tasks: Field::default(),
            entrypoints: Field::default(),
            headings: vec![],
            source_path: format!("{id}/SKILL.md"),
            content_hash: String::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn proposed_lines_sit_under_their_candidate_and_their_absence_changes_nothing() {
        let (f, a, b) = (
            node("c/report", "Write the report."),
            node("c/cleaner", "Clean the answers."),
            node("c/mailer", "Mail a document."),
        );
        let plain = validation_prompt(&f, &[&a, &b]);
        assert_eq!(plain, validation_prompt_with(&f, &[&a, &b], &[None, None]));
        let with = validation_prompt_with(
            &f,
            &[&a, &b],
            &[
                None,
                Some("workflow, [c/report] first (sequence: then mail it)".into()),
            ],
        );
        let user = &with.messages[1].content;
        assert!(
            user.contains(
                "- [c/mailer] mailer: Mail a document.\n  Proposed by the build: workflow, [c/report] first (sequence: then mail it)\n"
            ),
            "{user}"
        );
        assert!(user.ends_with("leave it out when the skill texts do not support it."));
        assert_ne!(plain, with);
    }
}
