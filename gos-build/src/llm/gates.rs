//! Acceptance gates for relations proposed by the validator.
//!
//! The reference implementation accepts any proposal whose two names exist (reference notes
//! §1.13); the paper lists the failure kinds that its stricter "deterministic post-validation
//! gates" removed. Each gate here is a named predicate, applied in this order, and every
//! rejection is counted by gate name in the build report:
//!
//! | gate | rejects |
//! | --- | --- |
//! | `malformed` | an item that is not an object with string `source`/`target`/`type` and a numeric `confidence` |
//! | `unknown_skill` | an endpoint that is neither the focus skill nor a member of its pool |
//! | `self_loop` | source equal to target |
//! | `not_focus` | a relation between two candidates (the focus skill must be an endpoint) |
//! | `invalid_type` | a type outside dependency, workflow, semantic, alternative |
//! | `low_confidence` | confidence outside [0, 1] or under the floor (default 0.6) |
//! | `direction` | a dependency whose I/O evidence runs only the other way (target outputs what source reads, not the reverse) |
//! | `result_state` | a dependency/workflow whose named artifacts are all result-state words (`success`, `status`, `done`...) |
//! | `generic_container` | a dependency/workflow whose only shared artifacts are generic containers (`json`, `text`, `file`...) or types too common to carry evidence |
//! | `tooling_only` | a dependency/workflow with no specific shared artifact whose two skills only have tools in common |
//! | `cross_domain` | a proposal below the strong-confidence mark (0.85) between skills that share no domain tag, at most one content word, and no specific artifact |
//! | `duplicate` | an edge already present (any provenance; symmetric types in either direction) |
//!
//! Semantic and alternative relations are symmetric: they are stored with the smaller id as
//! source, so both orientations deduplicate to one edge.

use gos_core::{EdgeType, SkillNode};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Gate names in application order (the report's `rejected` keys).
pub const GATES: [&str; 12] = [
    "malformed",
    "unknown_skill",
    "self_loop",
    "not_focus",
    "invalid_type",
    "low_confidence",
    "direction",
    "result_state",
    "generic_container",
    "tooling_only",
    "cross_domain",
    "duplicate",
];

/// Artifact words that name a container, not a specific artifact.
pub const GENERIC_CONTAINERS: &[&str] = &[
    "file",
    "files",
    "data",
    "dataset",
    "json",
    "text",
    "txt",
    "string",
    "strings",
    "output",
    "outputs",
    "input",
    "inputs",
    "document",
    "documents",
    "content",
    "folder",
    "directory",
    "object",
    "objects",
    "list",
    "dict",
    "array",
    "record",
    "records",
    "value",
    "values",
];

/// Words that describe the state of a result rather than an artifact.
pub const RESULT_STATE_WORDS: &[&str] = &[
    "success",
    "successful",
    "failure",
    "failed",
    "done",
    "complete",
    "completed",
    "status",
    "result",
    "results",
    "ready",
    "valid",
    "validated",
    "passed",
    "pass",
    "ok",
    "finished",
    "error",
    "errors",
    "approved",
    "fixed",
    "clean",
    "updated",
    "verified",
    "confirmation",
];

/// Tool words counted as tooling even when a skill does not list them.
const TOOL_WORDS: &[&str] = &[
    "python",
    "bash",
    "shell",
    "node",
    "nodejs",
    "javascript",
    "typescript",
    "docker",
    "git",
    "pandas",
    "numpy",
    "cli",
    "api",
    "sql",
    "npm",
    "pip",
    "jupyter",
    "script",
    "scripts",
    "command",
    "commands",
    "library",
    "tool",
    "tools",
    "rust",
    "java",
    "golang",
    "ruby",
];

/// Words ignored when comparing skill texts.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "that", "this", "use", "uses", "using", "when",
    "your", "you", "are", "can", "will", "skill", "skills", "any", "all", "its", "not", "via",
    "such", "other", "more", "also", "which", "their", "about", "how", "what", "then", "than",
    "them", "they", "like", "based", "each", "work", "working", "user", "users", "task", "tasks",
    "help", "helps", "need", "needs", "make", "create", "used",
];

/// Thresholds of the gates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GateOptions {
    /// Least confidence accepted, in [0, 1] (default 0.6).
    pub min_confidence: f64,
    /// Confidence at or above which the `cross_domain` gate lets a proposal through
    /// (default 0.85).
    pub strong_confidence: f64,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            min_confidence: 0.6,
            strong_confidence: 0.85,
        }
    }
}

/// One relation as the validator proposed it, before the gates.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// Source id (or name) as written.
    pub source: String,
    /// Target id (or name) as written.
    pub target: String,
    /// Type as written, lower-cased.
    pub kind: String,
    /// Confidence as written.
    pub confidence: f64,
    /// Evidence sentence.
    pub description: String,
    /// Artifact types the validator says pass from source to target (may be empty).
    pub artifacts: Vec<String>,
}

/// A proposal that passed the gates (before deduplication), endpoints as node indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// Source node index.
    pub source: usize,
    /// Target node index.
    pub target: usize,
    /// Relation type.
    pub edge_type: EdgeType,
    /// Confidence in [min_confidence, 1].
    pub confidence: f64,
    /// Evidence sentence.
    pub description: String,
    /// Artifacts named.
    pub artifacts: Vec<String>,
}

/// The `relations` array of a validator reply: each item parsed or rejected as `malformed`.
///
/// # Errors
/// A message when the reply has no `relations` array (the whole reply is then malformed).
pub fn parse_relations(reply: &serde_json::Value) -> Result<Vec<Option<Proposal>>, String> {
    let items = reply
        .get("relations")
        .and_then(|r| r.as_array())
        .ok_or_else(|| "reply has no `relations` array".to_string())?;
    Ok(items.iter().map(parse_item).collect())
}

fn parse_item(v: &serde_json::Value) -> Option<Proposal> {
    let s = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .map(|x| x.trim().to_string())
    };
    let confidence = v.get("confidence").and_then(|c| {
        c.as_f64()
            .or_else(|| c.as_str().and_then(|t| t.trim().parse().ok()))
    })?;
    Some(Proposal {
        source: s("source")?,
        target: s("target")?,
        kind: s("type")?.to_lowercase(),
        confidence,
        description: s("description").unwrap_or_default(),
        artifacts: v
            .get("artifacts")
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(|x| x.trim().to_lowercase())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// Parse a relation type name.
pub fn edge_type(kind: &str) -> Option<EdgeType> {
    EdgeType::ALL.into_iter().find(|t| t.as_str() == kind)
}

/// Lower-case content words (alphanumeric runs of 3+ characters, stop words removed).
pub fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect()
}

/// What the gates know about the library.
pub struct GateContext<'a> {
    /// All nodes.
    pub nodes: &'a [SkillNode],
    /// Artifact types too common to count as evidence (the relate pass's generic types).
    pub common_types: &'a BTreeSet<String>,
    /// Collection names, ignored when comparing domain tags.
    pub collections: &'a BTreeSet<String>,
    /// Thresholds.
    pub opts: GateOptions,
}

impl GateContext<'_> {
    fn is_generic(&self, t: &str) -> bool {
        GENERIC_CONTAINERS.contains(&t) || self.common_types.contains(t)
    }

    fn specific_flow(&self, s: usize, t: usize) -> BTreeSet<String> {
        let ins: BTreeSet<&String> = self.nodes[t].inputs.value.iter().collect();
        self.nodes[s]
            .outputs
            .value
            .iter()
            .filter(|o| ins.contains(o) && !self.is_generic(o))
            .cloned()
            .collect()
    }

    fn text(&self, i: usize) -> String {
        let n = &self.nodes[i];
        format!(
            "{} {} {} {}",
            n.name,
            n.folder().replace(['-', '_'], " "),
            n.description.value,
            n.capability.value
        )
    }

    fn tools(&self, i: usize) -> BTreeSet<String> {
        self.nodes[i]
            .tooling
            .value
            .iter()
            .flat_map(|t| words(t))
            .collect()
    }

    fn domains(&self, i: usize) -> BTreeSet<String> {
        self.nodes[i]
            .domain_tags
            .value
            .iter()
            .map(|d| d.to_lowercase())
            .filter(|d| !self.collections.contains(d))
            .collect()
    }

    /// Resolve a written endpoint within `allowed` (focus + pool): exact id first, then a
    /// name or folder name that matches exactly one allowed node (case-insensitive).
    fn resolve(&self, written: &str, allowed: &[usize]) -> Option<usize> {
        let w = written.trim().trim_start_matches('[').trim_end_matches(']');
        if let Some(&i) = allowed.iter().find(|&&i| self.nodes[i].id == w) {
            return Some(i);
        }
        let by_name: Vec<usize> = allowed
            .iter()
            .copied()
            .filter(|&i| {
                self.nodes[i].name.eq_ignore_ascii_case(w)
                    || self.nodes[i].folder().eq_ignore_ascii_case(w)
            })
            .collect();
        (by_name.len() == 1).then(|| by_name[0])
    }

    /// Apply the gates (all but `duplicate`, which needs the graph) to one proposal of the
    /// validation of `focus` over `pool`. `Err` holds the name of the first gate that rejects.
    pub fn check(
        &self,
        p: &Proposal,
        focus: usize,
        pool: &[usize],
    ) -> Result<Accepted, &'static str> {
        let mut allowed = vec![focus];
        allowed.extend_from_slice(pool);
        let (Some(mut s), Some(mut t)) = (
            self.resolve(&p.source, &allowed),
            self.resolve(&p.target, &allowed),
        ) else {
            return Err("unknown_skill");
        };
        if s == t {
            return Err("self_loop");
        }
        if s != focus && t != focus {
            return Err("not_focus");
        }
        let Some(ty) = edge_type(&p.kind) else {
            return Err("invalid_type");
        };
        if !(0.0..=1.0).contains(&p.confidence) || p.confidence < self.opts.min_confidence {
            return Err("low_confidence");
        }
        let directed = matches!(ty, EdgeType::Dependency | EdgeType::Workflow);
        let forward = self.specific_flow(s, t);
        let backward = self.specific_flow(t, s);
        if ty == EdgeType::Dependency && forward.is_empty() && !backward.is_empty() {
            return Err("direction");
        }
        let named: Vec<&String> = p.artifacts.iter().collect();
        if directed
            && !named.is_empty()
            && named
                .iter()
                .all(|a| RESULT_STATE_WORDS.contains(&a.as_str()))
        {
            return Err("result_state");
        }
        let named_specific: BTreeSet<&String> = named
            .iter()
            .copied()
            .filter(|a| !self.is_generic(a) && !RESULT_STATE_WORDS.contains(&a.as_str()))
            .collect();
        if directed && forward.is_empty() && named_specific.is_empty() {
            let shared_io: Vec<&String> = self.nodes[s]
                .outputs
                .value
                .iter()
                .filter(|o| self.nodes[t].inputs.value.contains(o))
                .collect();
            if !named.is_empty() || !shared_io.is_empty() {
                return Err("generic_container");
            }
        }
        let artifact_link = !forward.is_empty() || !named_specific.is_empty();
        let shared_words: BTreeSet<String> = words(&self.text(s))
            .intersection(&words(&self.text(t)))
            .cloned()
            .collect();
        if directed && !artifact_link {
            let st = self.tools(s);
            let tt = self.tools(t);
            let shared_tools: BTreeSet<&String> = st.intersection(&tt).collect();
            let is_tool =
                |w: &String| st.contains(w) || tt.contains(w) || TOOL_WORDS.contains(&w.as_str());
            if !shared_tools.is_empty() && shared_words.iter().all(is_tool) {
                return Err("tooling_only");
            }
        }
        let shared_domain = !self.domains(s).is_disjoint(&self.domains(t));
        if p.confidence < self.opts.strong_confidence
            && !shared_domain
            && !artifact_link
            && shared_words.len() <= 1
        {
            return Err("cross_domain");
        }
        if matches!(ty, EdgeType::Semantic | EdgeType::Alternative)
            && self.nodes[s].id > self.nodes[t].id
        {
            std::mem::swap(&mut s, &mut t);
        }
        let mut artifacts: Vec<String> = if named.is_empty() {
            forward.into_iter().collect()
        } else {
            named.into_iter().cloned().collect()
        };
        artifacts.dedup();
        Ok(Accepted {
            source: s,
            target: t,
            edge_type: ty,
            confidence: p.confidence,
            description: p.description.clone(),
            artifacts,
        })
    }
}

/// Per-type weight of an accepted relation: `TYPE_W[type] * confidence`, with TYPE_W =
/// dependency 1.0, workflow 0.7, semantic 0.4, alternative 0.3 (reference notes §1.13),
/// rounded to 6 decimals.
pub fn relation_weight(ty: EdgeType, confidence: f64) -> f64 {
    let w = match ty {
        EdgeType::Dependency => 1.0,
        EdgeType::Workflow => 0.7,
        EdgeType::Semantic => 0.4,
        EdgeType::Alternative => 0.3,
    };
    (w * confidence * 1e6).round() / 1e6
}

/// Counters of rejected proposals by gate, every gate present (zero when unused).
pub fn empty_rejections() -> BTreeMap<String, u64> {
    GATES.iter().map(|g| (g.to_string(), 0)).collect()
}

/// Index of nodes by id.
pub fn id_index(nodes: &[SkillNode]) -> HashMap<&str, usize> {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect()
}

#[cfg(test)]
#[path = "gates_tests.rs"]
mod tests;
