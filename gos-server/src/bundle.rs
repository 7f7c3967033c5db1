//! The JSON document of one retrieval: what `gos retrieve --json` prints, what the MCP tool
//! `retrieve_skill_bundle` returns as structured content and what `POST /v1/retrieve` answers.
//! One function builds it for all three, so they cannot drift apart.

use gos_core::relevance::Decision;
use gos_core::retrieve::Retrieval;
use gos_core::{RetrievalMode, Workspace};
use serde_json::{Value, json};

/// Milliseconds spent around the retrieval itself, by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CallTimings {
    /// Opening the workspace and loading the query encoder (0 for a server, which holds
    /// them open).
    pub open: f64,
    /// Loading the cross-encoder reranker (0 without one).
    pub reranker_load: f64,
    /// The whole call, from reading the request to the finished retrieval.
    pub total: f64,
}

/// The bundle document of retrieval `r` over `ws` for `query` (the task text as given, before
/// any rewrite).
///
/// Keys: `status`, `query`, `mode`, `seed_source`, `rerank` (the reranker's name), `skills`
/// (`id`, `name`, `description` (the manifest's), `source`, `score`, `reason`, `chars`, `clipped`, `omitted_chars`,
/// `warnings`, `alternates`: near-duplicate copies left out in the skill's favour, each `id`
/// and `source`; `facet` with coverage selection on), `rendered_context`, `no_hit_reason` (why
/// there is no bundle, `null` with one),
/// `context_chars`, `limits_applied` (caps applied to the query, with what they cut), `seeds` (`id`, `rank`, `score`, `weight`), `top_seed_score`,
/// `top_dense_score`, `lexical_coverage` (the overlap coefficient the coverage floor reads,
/// 0..=1, [`gos_core::relevance::LexicalCoverage::overlap`]), `rewrite` (`rewrite` as given,
/// `null` without one) and `timings_ms`
/// (the stage timings of `r` plus `timings`).
pub fn bundle_json(
    ws: &Workspace,
    query: &str,
    mode: RetrievalMode,
    r: &Retrieval,
    rerank: &str,
    rewrite: Value,
    timings: CallTimings,
) -> Value {
    let skills: Vec<_> = r
        .bundle
        .skills
        .iter()
        .map(|s| {
            let mut skill = json!({
                "id": s.id,
                "name": s.name,
                "description": ws.manifest().nodes[s.node].description.value,
                "source": s.source,
                "score": s.score,
                "reason": s.reason,
                "chars": s.chars,
                "clipped": s.clipped,
                "omitted_chars": s.omitted_chars,
                "warnings": s.warnings,
                "alternates": s.alternates,
            });
            // With coverage selection on: the facet (`kind`, `text`) the entry was chosen for.
            if let Some(f) = r.coverage.as_ref().and_then(|c| c.facet_of(s.node)) {
                skill["facet"] = json!(f);
            }
            skill
        })
        .collect();
    json!({
        "status": r.bundle.status.as_str(),
        "query": query,
        "mode": mode.as_str(),
        "seed_source": r.source.as_str(),
        "rerank": rerank,
        "skills": skills,
        "rendered_context": r.bundle.rendered_context,
        "no_hit_reason": match r.decision {
            Decision::NoHit(why) => Some(why.to_string()),
            Decision::Hit { .. } => None,
        },
        "context_chars": r.bundle.rendered_context.chars().count(),
        "limits_applied": r.limits_applied,
        "seeds": r.seeds.iter().map(|s| json!({
            "id": ws.manifest().nodes[s.node].id,
            "rank": s.rank,
            "score": s.score,
            "weight": s.weight,
        })).collect::<Vec<_>>(),
        "top_seed_score": r.top_seed_score,
        "top_dense_score": r.top_dense_score,
        "lexical_coverage": r.lexical_coverage.overlap,
        "rewrite": rewrite,
        "timings_ms": {
            "open": timings.open,
            "encode": r.timings.encode,
            "seed": r.timings.seed,
            "diffuse": r.timings.diffuse,
            "rerank": r.timings.rerank,
            "reranker_load": timings.reranker_load,
            "cross_encoder": r.timings.cross_encoder,
            "hydrate": r.timings.hydrate,
            "retrieve": r.timings.total,
            "total": timings.total,
        },
    })
}
