//! Relation validation: one validator request per focus skill with its candidate pool, the
//! reply's proposals through the acceptance gates ([`super::gates`]), accepted ones added to
//! the graph as `llm` edges, deduplicated against every edge already there.
//!
//! **Candidate edges** (semantic, alternative and workflow edges the deterministic rules made;
//! [`EdgeProvenance::is_candidate`]) are put to the model with the pool: the prompt shows each
//! under its candidate ("Proposed by the build: ..."), and the verdicts are GoS's relation
//! validation (\[P\] §3.2):
//!
//! | the replies (of either endpoint's request) | the candidate edge |
//! | --- | --- |
//! | an accepted relation of the same type (and direction, for workflow) | **confirmed**: it becomes the model's `llm` edge, with its evidence and weight |
//! | an accepted relation of another type or direction only | **retyped**: removed; the model's edge stands |
//! | nothing accepted for the pair | **rejected**: removed |
//!
//! A pair is judged only when a request whose pool held it succeeded; an edge whose requests
//! all failed (or were cut by the budget) keeps its deterministic form, as the build report
//! says. Replies are processed in focus order (node index), whatever order the requests
//! finished in, and the verdicts are applied after the last reply, so the graph does not
//! depend on thread timing nor on which endpoint's request came first.

use super::gates::{GateContext, empty_rejections, parse_relations, relation_weight};
use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph, SkillNode};
use gos_llm::prompts::validation_prompt_with;
use gos_llm::service::LlmService;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Counters of the validation pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ValidationStats {
    /// Pool size k.
    pub pool_k: usize,
    /// Pool providers in order.
    pub providers: Vec<String>,
    /// Focus skills (all nodes).
    pub focus_total: usize,
    /// Focus skills with a non-empty pool (one prompt each).
    pub prompts: usize,
    /// Focus/candidate pairs submitted (sum of pool sizes).
    pub pairs_submitted: usize,
    /// Focus skills whose request failed (they keep deterministic edges only).
    pub focus_failed: usize,
    /// Replies without a `relations` array.
    pub replies_malformed: usize,
    /// Proposals read from replies.
    pub proposals: usize,
    /// Proposals accepted as new edges.
    pub accepted: usize,
    /// Of the accepted: candidate edges (semantic, alternative, workflow) the deterministic
    /// rules had already made, now carrying the model's evidence and weight.
    pub confirmed: usize,
    /// Candidate edges put to the model (in a pool whose request succeeded), confirmed or not.
    pub candidates_reviewed: usize,
    /// Candidate edges removed because the model accepted only another type or direction for
    /// their pair.
    pub retyped: usize,
    /// Candidate edges removed because the model accepted no relation for their pair, by type.
    pub candidates_rejected: BTreeMap<String, usize>,
    /// Accepted edges by type.
    pub accepted_by_type: BTreeMap<String, usize>,
    /// Rejected proposals by gate (every gate listed).
    pub rejected: BTreeMap<String, u64>,
    /// Incremental plan.
    pub incremental: super::incremental::IncrementalStats,
}

/// Provenance of the `ty` edge between `s` and `t` (either direction for symmetric types).
fn edge_provenance(graph: &SkillGraph, s: usize, t: usize, ty: EdgeType) -> Option<EdgeProvenance> {
    let one = |a: usize, b: usize| {
        graph
            .outgoing(a)
            .find(|(x, e)| *x == b && e.edge_type == ty)
            .map(|(_, e)| e.provenance)
    };
    one(s, t).or_else(|| {
        matches!(ty, EdgeType::Semantic | EdgeType::Alternative)
            .then(|| one(t, s))
            .flatten()
    })
}

fn has_edge(graph: &SkillGraph, s: usize, t: usize, ty: EdgeType) -> bool {
    let one = |a: usize, b: usize| graph.outgoing(a).any(|(x, e)| x == b && e.edge_type == ty);
    one(s, t) || (matches!(ty, EdgeType::Semantic | EdgeType::Alternative) && one(t, s))
}

/// Validate every focus skill with a non-empty pool; `pools[i]` is node `i`'s pool.
/// Failures are pushed to `skipped` as `(focus id, reason)`. The returned counters leave
/// `pool_k`, `providers` and `incremental` for the caller to fill.
pub fn validate_relations(
    nodes: &[SkillNode],
    pools: &[Vec<usize>],
    graph: &mut SkillGraph,
    service: &LlmService,
    ctx: &GateContext<'_>,
    skipped: &mut Vec<(String, String)>,
    on_done: &(dyn Fn() + Sync),
) -> ValidationStats {
    let mut stats = ValidationStats {
        focus_total: nodes.len(),
        rejected: empty_rejections(),
        ..ValidationStats::default()
    };
    let focus: Vec<usize> = (0..nodes.len()).filter(|&i| !pools[i].is_empty()).collect();
    stats.prompts = focus.len();
    stats.pairs_submitted = focus.iter().map(|&i| pools[i].len()).sum();
    let prompts: Vec<_> = focus
        .iter()
        .map(|&i| {
            let cands: Vec<&SkillNode> = pools[i].iter().map(|&c| &nodes[c]).collect();
            let proposed: Vec<Option<String>> = pools[i]
                .iter()
                .map(|&c| proposed_line(graph, nodes, i, c))
                .collect();
            validation_prompt_with(&nodes[i], &cands, &proposed)
        })
        .collect();
    // Pairs (smaller index first) whose request succeeded: their candidate edges are judged.
    let mut reviewed: HashSet<(usize, usize)> = HashSet::new();
    let answers = service.run_batch(&prompts, on_done);
    for (&f, answer) in focus.iter().zip(answers) {
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                stats.focus_failed += 1;
                skipped.push((nodes[f].id.clone(), format!("validation: {e}")));
                continue;
            }
        };
        let items = match parse_relations(&answer.json) {
            Ok(items) => items,
            Err(e) => {
                stats.replies_malformed += 1;
                stats.focus_failed += 1;
                skipped.push((nodes[f].id.clone(), format!("validation: {e}")));
                continue;
            }
        };
        reviewed.extend(pools[f].iter().map(|&c| (f.min(c), f.max(c))));
        for item in items {
            stats.proposals += 1;
            let Some(p) = item else {
                *stats.rejected.entry("malformed".into()).or_insert(0) += 1;
                continue;
            };
            let acc = match ctx.check(&p, f, &pools[f]) {
                Ok(a) => a,
                Err(gate) => {
                    *stats.rejected.entry(gate.into()).or_insert(0) += 1;
                    continue;
                }
            };
            let symmetric = matches!(acc.edge_type, EdgeType::Semantic | EdgeType::Alternative);
            let existing_candidate = has_edge(graph, acc.source, acc.target, acc.edge_type)
                && edge_provenance(graph, acc.source, acc.target, acc.edge_type)
                    .is_some_and(|p| p.is_candidate());
            if has_edge(graph, acc.source, acc.target, acc.edge_type) && !existing_candidate {
                *stats.rejected.entry("duplicate".into()).or_insert(0) += 1;
                continue;
            }
            let description: String = acc.description.chars().take(300).collect();
            let artifacts = if acc.artifacts.is_empty() {
                String::new()
            } else {
                format!("artifacts {}; ", acc.artifacts.join(", "))
            };
            let edge = SkillEdge {
                source: nodes[acc.source].id.clone(),
                target: nodes[acc.target].id.clone(),
                edge_type: acc.edge_type,
                weight: relation_weight(acc.edge_type, acc.confidence),
                provenance: EdgeProvenance::Llm,
                evidence: format!(
                    "model {}; focus {}; confidence {:.2}; {artifacts}{description}",
                    service.model(),
                    nodes[f].id,
                    acc.confidence
                ),
            };
            // A candidate edge the rules made and the model confirms becomes the model's edge
            // (its evidence and weight): GoS's relation validation.
            let added = if existing_candidate {
                stats.confirmed += 1;
                graph.replace_edge(edge, symmetric).is_some()
            } else {
                graph.add_edge(edge)
            };
            if added {
                stats.accepted += 1;
                *stats
                    .accepted_by_type
                    .entry(acc.edge_type.as_str().to_string())
                    .or_insert(0) += 1;
            } else {
                *stats.rejected.entry("duplicate".into()).or_insert(0) += 1;
            }
        }
    }
    judge_candidates(graph, &reviewed, &mut stats);
    stats
}

/// Apply the verdicts on the candidate edges of the `reviewed` pairs (module docs): a
/// candidate edge still there was not confirmed; it is removed, as retyped when its pair now
/// has an `llm` edge, as rejected otherwise.
fn judge_candidates(
    graph: &mut SkillGraph,
    reviewed: &HashSet<(usize, usize)>,
    stats: &mut ValidationStats,
) {
    let key = |s: usize, t: usize| (s.min(t), s.max(t));
    let mut model_pairs: HashSet<(usize, usize)> = HashSet::new();
    for (s, t, e) in graph.indexed_edges() {
        let k = key(s, t);
        if !reviewed.contains(&k) {
            continue;
        }
        if e.provenance == EdgeProvenance::Llm {
            model_pairs.insert(k);
        }
    }
    let confirmed = stats.confirmed;
    let mut retyped = 0;
    let mut rejected: BTreeMap<String, usize> = BTreeMap::new();
    graph.retain_edges(|s, t, e| {
        if !e.provenance.is_candidate() || !reviewed.contains(&key(s, t)) {
            return true;
        }
        if model_pairs.contains(&key(s, t)) {
            retyped += 1;
        } else {
            *rejected
                .entry(e.edge_type.as_str().to_string())
                .or_insert(0) += 1;
        }
        false
    });
    stats.candidates_reviewed = confirmed + retyped + rejected.values().sum::<usize>();
    stats.retyped = retyped;
    stats.candidates_rejected = rejected;
}

/// The `Proposed by the build` line of candidate `c` in the prompt of `focus`: each candidate
/// edge between them (`type`, direction for workflow, provenance and evidence), `None` when
/// there is none.
fn proposed_line(
    graph: &SkillGraph,
    nodes: &[SkillNode],
    focus: usize,
    c: usize,
) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for (a, b) in [(focus, c), (c, focus)] {
        for (x, e) in graph.outgoing(a) {
            if x != b || !e.provenance.is_candidate() {
                continue;
            }
            let direction = if e.edge_type == EdgeType::Workflow {
                format!(", [{}] first", nodes[a].id)
            } else {
                String::new()
            };
            parts.push(format!(
                "{}{direction} ({}: {})",
                e.edge_type.as_str(),
                e.provenance.as_str(),
                e.evidence
            ));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
