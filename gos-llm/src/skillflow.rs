//! SkillFlow's two LLM stages (reference notes §6.1): multi-query generation before the dense
//! retriever, and the selector after the deep reranker. Both go through an [`LlmService`], so
//! replies are cached (the cache key holds the rendered prompt, hence the task text) and
//! counted; neither ever fails its caller.
//!
//! **Multi-query generation** ([`generate_queries`]) asks for `M` short search queries, one per
//! aspect of the task (application domain, language or framework, libraries, supporting tools,
//! then file formats). Rules, from the method:
//!
//! 1. one request for all `M` queries as `{"queries": [...]}`;
//! 2. when the reply is not usable JSON (not an object, no non-empty `queries` list), two
//!    retries, each at a temperature 0.3 above the one before ([`RETRY_TEMPERATURE_STEP`]),
//!    with a firmer instruction (its own template, so its own cache key);
//! 3. then `M` single-query requests (`{"query": "..."}`), one per aspect, at temperature
//!    0.3 each;
//! 4. when nothing usable came back, the task text itself is the only query.
//!
//! A transport failure (timeout, unreachable endpoint, HTTP error, offline cache miss, spent
//! budget) goes straight to step 4: the client has already retried it, and asking again would
//! multiply the wait without changing the answer.
//!
//! **Selector** ([`select_skills`]) shows the task and a numbered list of candidate skills
//! (name, id, text under a character cap) and asks for `{"selected": [numbers]}`, at most
//! `max` skills, most useful first. Numbers out of range or repeated are dropped and reported.
//! An optional second pass, the specificity filter, shows the selected skills again and asks
//! which ones are specific to the task (rejecting generic ones). On any failure, or an empty
//! or unusable selection, the selector keeps its input order and says why.

use crate::service::{Failure, LlmService, Prompt};
use serde::Serialize;

/// Template id of the multi-query prompt.
pub const QUERIES_TEMPLATE: &str = "skillflow-queries/v1";
/// Template ids of the two retries of the multi-query prompt.
pub const QUERIES_RETRY_TEMPLATES: [&str; 2] =
    ["skillflow-queries-retry1/v1", "skillflow-queries-retry2/v1"];
/// Temperature added at each retry of query generation, and the temperature of the
/// single-query requests (reference notes §6.1: "retry ×2 with temperature +0.3, then fall back
/// to M single-query calls with temperature +0.3 each").
pub const RETRY_TEMPERATURE_STEP: f64 = 0.3;
/// Template id of a single-query prompt (the last resort of query generation).
pub const QUERY_SINGLE_TEMPLATE: &str = "skillflow-query-single/v1";
/// Template id of the selector prompt.
pub const SELECT_TEMPLATE: &str = "skillflow-select/v1";
/// Template id of the specificity filter prompt.
pub const SPECIFICITY_TEMPLATE: &str = "skillflow-specificity/v1";

/// First line of the user message of a query-generation prompt.
pub const QUERIES_HEADER: &str = "Task to find skills for:";
/// First line of the user message of a selector or specificity prompt.
pub const SELECT_HEADER: &str = "Task to choose skills for:";

/// Queries generated for the retriever: `M₁ = 5` in SkillFlow (reference notes §6.1).
pub const DEFAULT_QUERY_COUNT: usize = 5;
/// Most skills the selector returns: 5 in SkillFlow (reference notes §6.1).
pub const DEFAULT_MAX_SELECTED: usize = 5;
/// Longest query kept, in characters (a model that writes an essay gets cut).
const MAX_QUERY_CHARS: usize = 300;

/// The aspects the queries cover, in order (SkillFlow's four, then file formats).
pub const ASPECTS: [&str; 5] = [
    "the application domain of the task",
    "the programming language or framework it needs",
    "the libraries it would use",
    "the supporting tools and services it relies on",
    "the input and output file formats or data it handles",
];

const QUERIES_SYSTEM: &str = "\
You help a search engine find agent skills (packages of instructions and scripts) for a task.
Write short search queries, each a few words to one sentence, each looking at the task from one \
angle. Use the concrete technical words of the task; do not invent requirements.
Reply with one JSON object and nothing else: {\"queries\": [\"...\", \"...\"]}";

const RETRY_NOTE: &str = "\
Your previous reply could not be read. Reply with exactly one JSON object of the form \
{\"queries\": [\"query one\", \"query two\"]}, with no other text, no comments and no code fence.";

const SINGLE_SYSTEM: &str = "\
You help a search engine find agent skills for a task. Write one short search query about the \
angle you are given, using the concrete technical words of the task.
Reply with one JSON object and nothing else: {\"query\": \"...\"}";

const SELECT_SYSTEM: &str = "\
You choose which agent skills an assistant should load to do a task. Each skill is numbered. \
Keep only skills that would really help with this task; prefer fewer, more relevant skills.
Reply with one JSON object and nothing else: {\"selected\": [numbers of the chosen skills, most useful first]}";

const SPECIFICITY_SYSTEM: &str = "\
You check a short list of agent skills chosen for a task. Keep a skill only when it is specific \
to what the task needs; reject skills that are generic or only loosely related.
Reply with one JSON object and nothing else: {\"selected\": [numbers of the skills to keep]}";

/// How an LLM stage got its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LlmOutcome {
    /// The model answered (every answer that was used came from the cache when `cached`).
    Llm {
        /// All used answers were cache hits.
        cached: bool,
    },
    /// The stage fell back to its deterministic result.
    Fallback {
        /// Why.
        reason: String,
    },
}

impl LlmOutcome {
    /// Whether the stage fell back.
    pub fn is_fallback(&self) -> bool {
        matches!(self, LlmOutcome::Fallback { .. })
    }
}

/// Result of [`generate_queries`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryGeneration {
    /// The queries to retrieve with (the task text alone on fallback); never empty.
    pub queries: Vec<String>,
    /// Where they came from.
    pub outcome: LlmOutcome,
    /// Each failed or partial attempt, in order (e.g. `skillflow-queries/v1: malformed JSON ...`).
    pub notes: Vec<String>,
}

/// One candidate shown to the selector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectCandidate<'a> {
    /// Skill id.
    pub id: &'a str,
    /// Skill name.
    pub name: &'a str,
    /// Skill text (already capped by the caller).
    pub text: &'a str,
}

/// Result of [`select_skills`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selection {
    /// Indices into the candidates, in the chosen order (the input order on fallback).
    pub chosen: Vec<usize>,
    /// Where the choice came from.
    pub outcome: LlmOutcome,
    /// Dropped numbers, specificity-filter results and failures, in order.
    pub notes: Vec<String>,
}

fn clip(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((b, _)) => &s[..b],
        None => s,
    }
}

fn one_line(s: &str) -> String {
    clip(
        &s.split_whitespace().collect::<Vec<_>>().join(" "),
        MAX_QUERY_CHARS,
    )
    .to_string()
}

/// The multi-query prompt of `task` for `m` queries; `retry` 0 is the first request, 1 and 2
/// the retries.
pub fn queries_prompt(task: &str, m: usize, retry: usize) -> Prompt {
    let aspects: Vec<String> = (0..m)
        .map(|i| format!("{}. {}", i + 1, ASPECTS[i % ASPECTS.len()]))
        .collect();
    let mut user = format!(
        "{QUERIES_HEADER}\n{}\n\nWrite {m} search queries, one for each of:\n{}",
        task.trim(),
        aspects.join("\n")
    );
    let template = match retry {
        0 => QUERIES_TEMPLATE,
        r => {
            user.push_str("\n\n");
            user.push_str(RETRY_NOTE);
            QUERIES_RETRY_TEMPLATES[(r - 1).min(1)]
        }
    };
    Prompt::new(template, QUERIES_SYSTEM, user)
        .with_temperature(RETRY_TEMPERATURE_STEP * retry.min(2) as f64)
}

/// The single-query prompt of `task` for aspect `i` (of [`ASPECTS`], cyclically).
pub fn single_query_prompt(task: &str, i: usize) -> Prompt {
    Prompt::new(
        QUERY_SINGLE_TEMPLATE,
        SINGLE_SYSTEM,
        format!(
            "{QUERIES_HEADER}\n{}\n\nWrite one search query about {}.",
            task.trim(),
            ASPECTS[i % ASPECTS.len()]
        ),
    )
    .with_temperature(RETRY_TEMPERATURE_STEP)
}

/// Up to `m` non-empty queries of a `{"queries": [...]}` reply.
fn parse_queries(v: &serde_json::Value, m: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for q in v
        .get("queries")
        .and_then(|q| q.as_array())
        .into_iter()
        .flatten()
    {
        let q = q.as_str().map(one_line).unwrap_or_default();
        if !q.is_empty() && !out.contains(&q) && out.len() < m {
            out.push(q);
        }
    }
    out
}

/// Whether a failure is worth asking again for (the model's answer, not the transport).
fn answer_failure(f: &Failure) -> bool {
    matches!(f, Failure::Malformed(_))
}

/// Generate up to `m` (at least 1) queries for `task` (module docs for the rules). Never fails:
/// without a service or when every attempt fails, the task text is the one query.
pub fn generate_queries(service: Option<&LlmService>, task: &str, m: usize) -> QueryGeneration {
    let m = m.max(1);
    let fallback = |reason: String, notes: Vec<String>| QueryGeneration {
        queries: vec![task.trim().to_string()],
        outcome: LlmOutcome::Fallback { reason },
        notes,
    };
    let Some(service) = service else {
        return fallback("no LLM endpoint configured".into(), Vec::new());
    };
    let mut notes = Vec::new();
    for retry in 0..=2 {
        let prompt = queries_prompt(task, m, retry);
        let template = prompt.template;
        match service.run_batch(&[prompt], &|| {}).pop() {
            Some(Ok(a)) => {
                let queries = parse_queries(&a.json, m);
                if !queries.is_empty() {
                    return QueryGeneration {
                        queries,
                        outcome: LlmOutcome::Llm { cached: a.cached },
                        notes,
                    };
                }
                notes.push(format!("{template}: no usable `queries` list in the reply"));
            }
            Some(Err(f)) if answer_failure(&f) => notes.push(format!("{template}: {f}")),
            Some(Err(f)) => {
                notes.push(format!("{template}: {f}"));
                return fallback(format!("query generation failed: {f}"), notes);
            }
            None => return fallback("the service returned no answer".into(), notes),
        }
    }
    let prompts: Vec<Prompt> = (0..m).map(|i| single_query_prompt(task, i)).collect();
    let mut queries: Vec<String> = Vec::new();
    let mut cached = true;
    for (i, answer) in service.run_batch(&prompts, &|| {}).into_iter().enumerate() {
        match answer {
            Ok(a) => {
                let q = a.json.get("query").and_then(|q| q.as_str()).map(one_line);
                match q.filter(|q| !q.is_empty()) {
                    Some(q) if !queries.contains(&q) => {
                        cached &= a.cached;
                        queries.push(q);
                    }
                    Some(_) => {}
                    None => notes.push(format!(
                        "{QUERY_SINGLE_TEMPLATE} #{}: no `query` string in the reply",
                        i + 1
                    )),
                }
            }
            Err(f) => notes.push(format!("{QUERY_SINGLE_TEMPLATE} #{}: {f}", i + 1)),
        }
    }
    if queries.is_empty() {
        return fallback(
            "no usable reply to the query prompts, their two retries or the single-query prompts"
                .into(),
            notes,
        );
    }
    notes.push(format!(
        "{} of {m} queries from single-query prompts after two failed retries",
        queries.len()
    ));
    QueryGeneration {
        queries,
        outcome: LlmOutcome::Llm { cached },
        notes,
    }
}

fn numbered(task: &str, candidates: &[SelectCandidate<'_>], ask: &str) -> String {
    let mut user = format!("{SELECT_HEADER}\n{}\n\nSkills:\n", task.trim());
    for (i, c) in candidates.iter().enumerate() {
        user.push_str(&format!(
            "\n[{}] {} (id {})\n{}\n",
            i + 1,
            c.name,
            c.id,
            c.text.trim()
        ));
    }
    user.push('\n');
    user.push_str(ask);
    user
}

/// The selector prompt: `task` and the numbered `candidates`, at most `max` to choose.
pub fn select_prompt(task: &str, candidates: &[SelectCandidate<'_>], max: usize) -> Prompt {
    let ask = format!(
        "Choose at most {max} skills by number (1 to {}), most useful first.",
        candidates.len()
    );
    Prompt::new(
        SELECT_TEMPLATE,
        SELECT_SYSTEM,
        numbered(task, candidates, &ask),
    )
}

/// The specificity-filter prompt over the selected `candidates`.
pub fn specificity_prompt(task: &str, candidates: &[SelectCandidate<'_>]) -> Prompt {
    let ask = format!(
        "Give the numbers (1 to {}) of the skills that are specific to this task.",
        candidates.len()
    );
    Prompt::new(
        SPECIFICITY_TEMPLATE,
        SPECIFICITY_SYSTEM,
        numbered(task, candidates, &ask),
    )
}

/// 0-based indices of a `{"selected": [1-based numbers]}` reply over `n` candidates, at most
/// `max`, and a note per dropped number; `None` when `selected` is not a list.
fn parse_selection(
    v: &serde_json::Value,
    n: usize,
    max: usize,
) -> Option<(Vec<usize>, Vec<String>)> {
    let list = v.get("selected")?.as_array()?;
    let mut chosen = Vec::new();
    let mut notes = Vec::new();
    for x in list {
        let number = x
            .as_u64()
            .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()));
        match number {
            Some(k) if k >= 1 && (k as usize) <= n => {
                let i = k as usize - 1;
                if chosen.contains(&i) {
                    notes.push(format!("number {k} repeated"));
                } else if chosen.len() == max {
                    notes.push(format!("number {k} past the limit of {max}"));
                } else {
                    chosen.push(i);
                }
            }
            _ => notes.push(format!("`{x}` is not a skill number from 1 to {n}")),
        }
    }
    Some((chosen, notes))
}

/// Choose at most `max` (at least 1) of `candidates` for `task`, then, with `specificity`,
/// keep only the specific ones (module docs). Never fails: on fallback the input order is kept.
pub fn select_skills(
    service: Option<&LlmService>,
    task: &str,
    candidates: &[SelectCandidate<'_>],
    max: usize,
    specificity: bool,
) -> Selection {
    let max = max.max(1);
    let fallback = |reason: String, notes: Vec<String>| Selection {
        chosen: (0..candidates.len()).collect(),
        outcome: LlmOutcome::Fallback { reason },
        notes,
    };
    if candidates.is_empty() {
        return fallback("no candidates to choose from".into(), Vec::new());
    }
    let Some(service) = service else {
        return fallback("no LLM endpoint configured".into(), Vec::new());
    };
    let prompt = select_prompt(task, candidates, max);
    let (mut chosen, mut notes, mut cached) = match service.run_batch(&[prompt], &|| {}).pop() {
        Some(Ok(a)) => match parse_selection(&a.json, candidates.len(), max) {
            Some((chosen, notes)) if !chosen.is_empty() => (chosen, notes, a.cached),
            Some((_, notes)) => {
                return fallback("the selector chose no valid skill".into(), notes);
            }
            None => return fallback("no `selected` list in the reply".into(), Vec::new()),
        },
        Some(Err(f)) => return fallback(format!("selector request failed: {f}"), Vec::new()),
        None => return fallback("the service returned no answer".into(), Vec::new()),
    };
    if specificity {
        let picked: Vec<SelectCandidate<'_>> = chosen.iter().map(|&i| candidates[i]).collect();
        let prompt = specificity_prompt(task, &picked);
        match service.run_batch(&[prompt], &|| {}).pop() {
            Some(Ok(a)) => match parse_selection(&a.json, picked.len(), picked.len()) {
                Some((keep, dropped)) if !keep.is_empty() => {
                    notes.extend(dropped.into_iter().map(|d| format!("specificity: {d}")));
                    notes.push(format!(
                        "specificity filter kept {} of {}",
                        keep.len(),
                        chosen.len()
                    ));
                    let mut keep_sorted = keep;
                    keep_sorted.sort_unstable();
                    chosen = keep_sorted.into_iter().map(|k| chosen[k]).collect();
                    cached &= a.cached;
                }
                _ => notes
                    .push("specificity filter reply unusable or empty; kept the selection".into()),
            },
            Some(Err(f)) => notes.push(format!(
                "specificity filter failed ({f}); kept the selection"
            )),
            None => notes.push("specificity filter got no answer; kept the selection".into()),
        }
    }
    Selection {
        chosen,
        outcome: LlmOutcome::Llm { cached },
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn queries_are_trimmed_deduplicated_and_capped_at_m() {
        let v = json!({"queries": ["  pdf   tables ", "pdf tables", "", 7, "camelot", "x", "y"]});
        assert_eq!(parse_queries(&v, 3), ["pdf tables", "camelot", "x"]);
        assert!(parse_queries(&json!({"query": "a"}), 5).is_empty());
        let g = generate_queries(None, " parse a pdf ", 5);
        assert_eq!(g.queries, ["parse a pdf"]);
        assert!(g.outcome.is_fallback());
    }

    #[test]
    fn selections_drop_bad_numbers_and_respect_the_limit() {
        let v = json!({"selected": [3, "1", 3, 0, 9, "x", 2]});
        let (chosen, notes) = parse_selection(&v, 4, 2).unwrap();
        assert_eq!(chosen, [2, 0]);
        assert_eq!(notes.len(), 5, "{notes:?}");
        assert!(parse_selection(&json!({"chosen": [1]}), 4, 2).is_none());
        let c = [SelectCandidate {
            id: "a",
            name: "A",
            text: "t",
        }; 3];
        let s = select_skills(None, "task", &c, 5, false);
        assert_eq!(s.chosen, [0, 1, 2]);
        assert!(s.outcome.is_fallback());
    }

    #[test]
    fn prompts_differ_per_retry_and_number_the_candidates() {
        let p: Vec<Prompt> = (0..3).map(|r| queries_prompt("t", 5, r)).collect();
        assert_ne!(p[0].template, p[1].template);
        assert_ne!(p[1].template, p[2].template);
        assert!(p[2].messages[1].content.contains("could not be read"));
        assert!(p[0].messages[1].content.starts_with(QUERIES_HEADER));
        let temps: Vec<f64> = p.iter().map(|p| p.temperature).collect();
        assert_eq!(temps, [0.0, 0.3, 0.6]);
        assert_eq!(single_query_prompt("t", 0).temperature, 0.3);
        let c = [
            SelectCandidate {
                id: "x/a",
                name: "A",
                text: "alpha",
            },
            SelectCandidate {
                id: "x/b",
                name: "B",
                text: "beta",
            },
        ];
        let s = select_prompt("task", &c, 5).messages[1].content.clone();
        assert!(s.contains("[1] A (id x/a)\nalpha") && s.contains("[2] B (id x/b)\nbeta"));
    }
}
