//! Relation validation: one validator request per focus skill with its candidate pool, the
//! reply's proposals through the acceptance gates ([`super::gates`]), accepted ones added to
//! the graph as `llm` edges, deduplicated against every edge already there.
//!
//! Replies are processed in focus order (node index), whatever order the requests finished
//! in, so the graph does not depend on thread timing.

use super::gates::{GateContext, empty_rejections, parse_relations, relation_weight};
use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph, SkillNode};
use gos_llm::prompts::validation_prompt;
use gos_llm::service::LlmService;
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// Of the accepted: semantic or alternative edges the similarity rules had already made,
    /// now carrying the model's evidence and weight.
    pub confirmed: usize,
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
            validation_prompt(&nodes[i], &cands)
        })
        .collect();
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
            let existing_similarity = has_edge(graph, acc.source, acc.target, acc.edge_type)
                && edge_provenance(graph, acc.source, acc.target, acc.edge_type)
                    .is_some_and(|p| p.is_similarity());
            if has_edge(graph, acc.source, acc.target, acc.edge_type) && !existing_similarity {
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
            // A semantic or alternative edge the similarity rules made and the model confirms
            // becomes the model's edge (its evidence and weight): GoS's relation validation.
            let added = if existing_similarity {
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
    stats
}
