//! The one-line reason each bundle entry gives for being there.

use crate::diffuse::RetrievalMode;
use crate::graph::prerequisite::{Link, link_to};
use crate::graph::{EdgeProvenance, SkillEdge};
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;

/// Why `r` is a candidate, given the better-ranked candidates `above`: its seed rank (and, in
/// graph modes, the stated edge that makes it a prerequisite of a better-ranked skill, when
/// there is one), else the graph edge linking it to a better-ranked skill (graph modes only),
/// else its first-stage rank, else "reached by graph diffusion".
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
    let linked = || {
        if mode == RetrievalMode::NoGraph {
            return None;
        }
        link_to(ws.graph(), r.node, above.iter().map(|a| a.node))
    };
    let phrase = |other: usize, link: Link, e: &SkillEdge| {
        // A semantic edge's evidence opens with the measure that made it ("cosine 0.71;
        // shared: ..." or "bm25 0.52; ...", gos_build::semantic), which names its provenance.
        let evidence = match e.provenance {
            EdgeProvenance::Vector | EdgeProvenance::Bm25 => e.evidence.clone(),
            p => format!("{}: {}", p.as_str(), e.evidence),
        };
        format!(
            "{} {} via {} edge ({evidence})",
            link.as_str(),
            ws.manifest().nodes[other].name,
            e.edge_type.as_str(),
        )
    };
    if let Some(s) = r.seed_rank {
        let seed = format!("seed match (rank {s}: {})", evidence());
        // A seed that the text of a better-ranked skill states as its prerequisite says so too:
        // that is why it stays past a cliff in the scores (cut::KeepPrerequisites::Stated).
        return match linked() {
            Some((other, Link::PrerequisiteOf, e)) if e.provenance.is_stated() => {
                format!("{seed}; {}", phrase(other, Link::PrerequisiteOf, e))
            }
            _ => seed,
        };
    }
    if r.graph_score > 0.0
        && let Some((other, link, e)) = linked()
    {
        return phrase(other, link, e);
    }
    match r.pool_rank {
        Some(l) => format!("first-stage match (rank {l}: {})", evidence()),
        None => "reached by graph diffusion".to_string(),
    }
}
