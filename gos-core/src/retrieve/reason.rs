//! The one-line reason each bundle entry gives for being there.

use crate::diffuse::RetrievalMode;
use crate::graph::prerequisite::link_to;
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;

/// Why `r` is a candidate, given the better-ranked candidates `above`: its seed rank, else the
/// graph edge linking it to a better-ranked skill (graph modes only), else its first-stage
/// rank, else "reached by graph diffusion".
pub fn reason(
    ws: &Workspace,
    above: &[RankedSkill],
    r: &RankedSkill,
    mode: RetrievalMode,
) -> String {
    let evidence = || {
        let mut parts = Vec::new();
        if let Some(b) = r.bm25_score {
            parts.push(format!("BM25 {b:.1}"));
        }
        if let Some(c) = r.dense_score {
            parts.push(format!("cosine {c:.2}"));
        }
        parts.join(", ")
    };
    if let Some(s) = r.seed_rank {
        return format!("seed match (rank {s}: {})", evidence());
    }
    if mode != RetrievalMode::NoGraph
        && r.graph_score > 0.0
        && let Some((other, link, e)) = link_to(ws.graph(), r.node, above.iter().map(|a| a.node))
    {
        // Evidence that already opens with its provenance ("bm25 0.43; shared: ...") is not
        // prefixed with it again.
        let provenance = e.provenance.as_str();
        let evidence = if e.evidence.starts_with(provenance) {
            e.evidence.clone()
        } else {
            format!("{provenance}: {}", e.evidence)
        };
        return format!(
            "{} {} via {} edge ({evidence})",
            link.as_str(),
            ws.manifest().nodes[other].name,
            e.edge_type.as_str(),
        );
    }
    match r.pool_rank {
        Some(l) => format!("first-stage match (rank {l}: {})", evidence()),
        None => "reached by graph diffusion".to_string(),
    }
}
