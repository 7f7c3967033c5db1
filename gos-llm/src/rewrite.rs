//! Query rewrite (off by default, `gos retrieve --rewrite`): the task text becomes a retrieval
//! schema (goal, operations, artifacts, constraints, keywords) through the LLM service and its
//! cache; the retrieval core then receives the schema's query text. Without an endpoint, or
//! when the request fails, the deterministic query view (the task text itself) is used and
//! [`Rewrite::source`] says why.
//!
//! Query text of a schema: the goal, then one line per operation, artifact, constraint and
//! keyword, then the original task text, so no term of the task is lost (the reference merges
//! the task's own tokens into the keywords for the same reason, reference notes §2.1).

use crate::prompts::rewrite_prompt;
use crate::service::LlmService;
use serde::Serialize;

/// The retrieval schema of a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QuerySchema {
    /// One-sentence goal.
    pub goal: String,
    /// Operations the task needs.
    pub operations: Vec<String>,
    /// Artifacts (formats, files) involved.
    pub artifacts: Vec<String>,
    /// Constraints stated.
    pub constraints: Vec<String>,
    /// Search keywords.
    pub keywords: Vec<String>,
}

/// Where the query text came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RewriteSource {
    /// The LLM rewrote the task.
    Llm {
        /// Served from the cache.
        cached: bool,
    },
    /// The deterministic query view was used.
    Fallback {
        /// Why (no endpoint configured, request failed, reply unusable).
        reason: String,
    },
}

/// Result of a rewrite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rewrite {
    /// The schema (goal = the task text, lists empty, on fallback).
    pub schema: QuerySchema,
    /// Text to retrieve with.
    pub text: String,
    /// Where it came from.
    pub source: RewriteSource,
}

fn strings(v: Option<&serde_json::Value>) -> Vec<String> {
    match v {
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .take(16)
            .collect(),
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

impl QuerySchema {
    /// Schema of a reply object; `None` when it has neither a goal nor keywords.
    pub fn from_reply(v: &serde_json::Value) -> Option<Self> {
        let s = QuerySchema {
            goal: v
                .get("goal")
                .and_then(|g| g.as_str())
                .map(|g| g.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default(),
            operations: strings(v.get("operations")),
            artifacts: strings(v.get("artifacts")),
            constraints: strings(v.get("constraints")),
            keywords: strings(v.get("keywords")),
        };
        (!s.goal.is_empty() || !s.keywords.is_empty()).then_some(s)
    }

    /// Query text of the schema followed by the task (module docs).
    pub fn query_text(&self, task: &str) -> String {
        let mut lines = vec![self.goal.clone()];
        for list in [
            &self.operations,
            &self.artifacts,
            &self.constraints,
            &self.keywords,
        ] {
            lines.extend(list.iter().cloned());
        }
        lines.push(task.trim().to_string());
        lines.retain(|l| !l.is_empty());
        lines.join("\n")
    }
}

fn fallback(task: &str, reason: String) -> Rewrite {
    Rewrite {
        schema: QuerySchema {
            goal: task.split_whitespace().collect::<Vec<_>>().join(" "),
            ..QuerySchema::default()
        },
        text: task.to_string(),
        source: RewriteSource::Fallback { reason },
    }
}

/// Rewrite `task` through `service`, or fall back (module docs).
pub fn rewrite_query(service: Option<&LlmService>, task: &str) -> Rewrite {
    let Some(service) = service else {
        return fallback(task, "no LLM endpoint configured".into());
    };
    let Some(answer) = service.run_batch(&[rewrite_prompt(task)], &|| {}).pop() else {
        return fallback(task, "the service returned no answer".into());
    };
    match answer {
        Ok(a) => match QuerySchema::from_reply(&a.json) {
            Some(schema) => Rewrite {
                text: schema.query_text(task),
                schema,
                source: RewriteSource::Llm { cached: a.cached },
            },
            None => fallback(task, "the reply has no goal or keywords".into()),
        },
        Err(e) => fallback(task, format!("rewrite request failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_text_keeps_the_task_and_fallback_says_why() {
        let v = serde_json::json!({"goal": "Map  density", "operations": ["reproject"], "artifacts": "shapefile", "keywords": ["choropleth"]});
        let s = QuerySchema::from_reply(&v).unwrap();
        assert_eq!(
            s.query_text("make a map"),
            "Map density\nreproject\nshapefile\nchoropleth\nmake a map"
        );
        assert!(QuerySchema::from_reply(&serde_json::json!({"constraints": ["x"]})).is_none());
        let r = rewrite_query(None, "make a map");
        assert_eq!(r.text, "make a map");
        assert!(matches!(r.source, RewriteSource::Fallback { .. }));
    }
}
