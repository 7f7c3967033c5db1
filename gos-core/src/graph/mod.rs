//! The typed skill graph: a petgraph directed graph whose nodes are skill ids and whose edges
//! carry a relation type, weight, provenance and evidence.

pub mod ppr;
pub mod prerequisite;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Relation type of an edge (\[P\] §3.2; reference `prompts.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeType {
    /// `source` produces something `target` consumes: `source` is a prerequisite of `target`.
    Dependency,
    /// The two are usually chained in one multi-step procedure, `source` first.
    Workflow,
    /// Same narrow capability cluster (symmetric).
    Semantic,
    /// Same task, different implementation (symmetric).
    Alternative,
}

impl EdgeType {
    /// All types, in a fixed order.
    pub const ALL: [EdgeType; 4] = [
        EdgeType::Dependency,
        EdgeType::Workflow,
        EdgeType::Semantic,
        EdgeType::Alternative,
    ];

    /// Lower-case name as used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeType::Dependency => "dependency",
            EdgeType::Workflow => "workflow",
            EdgeType::Semantic => "semantic",
            EdgeType::Alternative => "alternative",
        }
    }
}

/// How an edge was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeProvenance {
    /// Deterministic overlap of the producer's output types with the consumer's input types.
    Io,
    /// The consumer's body names the producer explicitly ("use the `x` skill").
    Mention,
    /// Proposed by an LLM validator and accepted by the gates.
    Llm,
    /// The consumer's frontmatter declares the producer (`requires: x`, `dependencies: [x]`).
    Declared,
    /// Mutual nearest neighbours by the cosine of the two skills' stored vectors, with shared
    /// specific terms (semantic edges of a workspace with vectors; `gos_build::semantic`).
    Vector,
    /// Mutual nearest neighbours by BM25 similarity of name and description (semantic edges of
    /// a lexical workspace; `gos_build::semantic`).
    Bm25,
    /// Members of one near-duplicate group (`duplicates.json`; alternative edges).
    Duplicate,
    /// The same inputs and outputs and close descriptions (alternative edges;
    /// `gos_build::alternative`).
    SameJob,
    /// The text of one skill orders it against another explicitly ("run `x` first", "then
    /// use the `y` skill", numbered steps naming both): workflow edges,
    /// `gos_build::workflow`.
    Sequence,
}

impl EdgeProvenance {
    /// Lower-case name as used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeProvenance::Io => "io",
            EdgeProvenance::Mention => "mention",
            EdgeProvenance::Llm => "llm",
            EdgeProvenance::Declared => "declared",
            EdgeProvenance::Vector => "vector",
            EdgeProvenance::Bm25 => "bm25",
            EdgeProvenance::Duplicate => "duplicate",
            EdgeProvenance::SameJob => "same_job",
            EdgeProvenance::Sequence => "sequence",
        }
    }

    /// Whether the skills' own text states the edge: a declared dependency, a mention of the
    /// other skill as a prerequisite, or a workflow sequence. Read samples accept these far
    /// more often than io edges inferred from artifact types (docs/graph-quality.md), which is
    /// why a prerequisite past the bundle cut comes back by a stated edge only by default
    /// (`retrieve::cut::KeepPrerequisites::Stated`).
    pub fn is_stated(self) -> bool {
        matches!(
            self,
            EdgeProvenance::Declared | EdgeProvenance::Mention | EdgeProvenance::Sequence
        )
    }

    /// Whether the edge comes from a similarity rule (vector, BM25, duplicate group, same
    /// job): the semantic and alternative edges an LLM validator may confirm.
    pub fn is_similarity(self) -> bool {
        matches!(
            self,
            EdgeProvenance::Vector
                | EdgeProvenance::Bm25
                | EdgeProvenance::Duplicate
                | EdgeProvenance::SameJob
        )
    }

    /// Whether the edge is a deterministic rule's candidate that an LLM validator reviews
    /// (confirms, retypes or rejects; `gos_build::llm`): the similarity edges
    /// ([`Self::is_similarity`]) and the workflow edges found in sequencing sentences
    /// ([`EdgeProvenance::Sequence`]). Dependency evidence (io, mention, declared) is not
    /// reviewed: it settles a pair.
    pub fn is_candidate(self) -> bool {
        self.is_similarity() || self == EdgeProvenance::Sequence
    }
}

/// One stored edge. Endpoints are skill ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEdge {
    /// Source skill id (the producer / prerequisite for dependency edges).
    pub source: String,
    /// Target skill id (the consumer for dependency edges).
    pub target: String,
    /// Relation type.
    #[serde(rename = "type")]
    pub edge_type: EdgeType,
    /// Weight in (0, 1]: the match score (I/O overlap) or confidence.
    pub weight: f64,
    /// How the edge was found.
    pub provenance: EdgeProvenance,
    /// Why: the shared artifact tokens, or the mention text.
    pub evidence: String,
}

/// The skill graph: node `i` of the petgraph graph is skill `ids[i]`.
///
/// Built once per workspace and immutable afterwards; lookups by id go through a hash map.
#[derive(Debug, Clone, Default)]
pub struct SkillGraph {
    graph: DiGraph<String, SkillEdge>,
    index: HashMap<String, NodeIndex>,
}

/// On-disk form of [`SkillGraph`] (`graph.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphFile {
    /// Graph format version, equal to the workspace format version.
    pub format_version: u32,
    /// Skill ids in node-index order (the manifest's order).
    pub nodes: Vec<String>,
    /// Edges sorted by (source, target, type, provenance).
    pub edges: Vec<SkillEdge>,
}

impl SkillGraph {
    /// Graph over `ids` (in node-index order) with no edges.
    pub fn new(ids: impl IntoIterator<Item = String>) -> Self {
        let mut graph = DiGraph::new();
        let mut index = HashMap::new();
        for id in ids {
            let ix = graph.add_node(id.clone());
            index.insert(id, ix);
        }
        SkillGraph { graph, index }
    }

    /// Add an edge; returns `false` (and adds nothing) when an endpoint is unknown, the edge
    /// is a self loop, or the same (source, target, type) edge exists already (the one with
    /// the larger weight is kept).
    pub fn add_edge(&mut self, edge: SkillEdge) -> bool {
        let (Some(&s), Some(&t)) = (self.index.get(&edge.source), self.index.get(&edge.target))
        else {
            return false;
        };
        if s == t {
            return false;
        }
        if let Some(existing) = self
            .graph
            .edges_connecting(s, t)
            .find(|e| e.weight().edge_type == edge.edge_type)
            .map(|e| petgraph::visit::EdgeRef::id(&e))
        {
            if self.graph[existing].weight < edge.weight {
                self.graph[existing] = edge;
            }
            return false;
        }
        self.graph.add_edge(s, t, edge);
        true
    }

    /// Put `edge` in place of the existing edge of its type between its endpoints (in either
    /// direction when `either_direction`), keeping the existing edge's direction; returns the
    /// replaced edge, or `None` (and changes nothing) when there is none. Used when an LLM
    /// validator confirms an edge a deterministic rule made (`gos_build::llm`).
    pub fn replace_edge(
        &mut self,
        mut edge: SkillEdge,
        either_direction: bool,
    ) -> Option<SkillEdge> {
        let (&s, &t) = (self.index.get(&edge.source)?, self.index.get(&edge.target)?);
        let find = |g: &DiGraph<String, SkillEdge>, a: NodeIndex, b: NodeIndex| {
            g.edges_connecting(a, b)
                .find(|e| e.weight().edge_type == edge.edge_type)
                .map(|e| petgraph::visit::EdgeRef::id(&e))
        };
        let (existing, reversed) = match find(&self.graph, s, t) {
            Some(e) => (e, false),
            None if either_direction => (find(&self.graph, t, s)?, true),
            None => return None,
        };
        if reversed {
            std::mem::swap(&mut edge.source, &mut edge.target);
        }
        Some(std::mem::replace(&mut self.graph[existing], edge))
    }

    /// Keep only the edges for which `keep(source index, target index, edge)` is true; returns
    /// how many were removed. Node indices are unchanged. Used when an LLM validator rejects
    /// or retypes a candidate edge (`gos_build::llm`).
    pub fn retain_edges(
        &mut self,
        mut keep: impl FnMut(usize, usize, &SkillEdge) -> bool,
    ) -> usize {
        let before = self.graph.edge_count();
        self.graph.retain_edges(|g, e| {
            let (s, t) = g.edge_endpoints(e).expect("a retained edge has endpoints");
            keep(s.index(), t.index(), &g[e])
        });
        before - self.graph.edge_count()
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Node index of a skill id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).map(|ix| ix.index())
    }

    /// Skill id of node index `i`.
    ///
    /// # Panics
    /// When `i` is out of range.
    pub fn id_of(&self, i: usize) -> &str {
        &self.graph[NodeIndex::new(i)]
    }

    /// All edges, in insertion order.
    pub fn edges(&self) -> impl Iterator<Item = &SkillEdge> {
        self.graph.edge_weights()
    }

    /// Edges `(source index, target index, edge)`.
    pub fn indexed_edges(&self) -> impl Iterator<Item = (usize, usize, &SkillEdge)> {
        self.graph.edge_indices().map(|e| {
            let (s, t) = self.graph.edge_endpoints(e).expect("edge exists");
            (s.index(), t.index(), &self.graph[e])
        })
    }

    /// Edges ending at node `i` (its predecessors' edges).
    pub fn incoming(&self, i: usize) -> impl Iterator<Item = (usize, &SkillEdge)> {
        self.graph
            .edges_directed(NodeIndex::new(i), petgraph::Direction::Incoming)
            .map(|e| (petgraph::visit::EdgeRef::source(&e).index(), e.weight()))
    }

    /// Edges leaving node `i`.
    pub fn outgoing(&self, i: usize) -> impl Iterator<Item = (usize, &SkillEdge)> {
        self.graph
            .edges_directed(NodeIndex::new(i), petgraph::Direction::Outgoing)
            .map(|e| (petgraph::visit::EdgeRef::target(&e).index(), e.weight()))
    }

    /// Degree (in + out) of node `i` counting only edges of type `t`.
    pub fn degree_of_type(&self, i: usize, t: EdgeType) -> usize {
        self.incoming(i).filter(|(_, e)| e.edge_type == t).count()
            + self.outgoing(i).filter(|(_, e)| e.edge_type == t).count()
    }

    /// Total degree (in + out) of node `i`.
    pub fn degree(&self, i: usize) -> usize {
        self.incoming(i).count() + self.outgoing(i).count()
    }

    /// Number of nodes with no edge at all.
    pub fn isolated_count(&self) -> usize {
        (0..self.node_count())
            .filter(|&i| self.degree(i) == 0)
            .count()
    }

    /// Number of nodes with no edge of type `t` (nodes isolated in the subgraph of that type).
    pub fn isolated_count_of_type(&self, t: EdgeType) -> usize {
        (0..self.node_count())
            .filter(|&i| self.degree_of_type(i, t) == 0)
            .count()
    }

    /// On-disk form with edges in a canonical order, so equal graphs serialize identically.
    pub fn to_file(&self, format_version: u32) -> GraphFile {
        let mut edges: Vec<SkillEdge> = self.edges().cloned().collect();
        edges.sort_by(|a, b| {
            (&a.source, &a.target, a.edge_type, a.provenance).cmp(&(
                &b.source,
                &b.target,
                b.edge_type,
                b.provenance,
            ))
        });
        GraphFile {
            format_version,
            nodes: self.graph.node_weights().cloned().collect(),
            edges,
        }
    }

    /// Rebuild from the on-disk form. Edges naming unknown nodes are returned as errors.
    ///
    /// # Errors
    /// The first edge whose endpoint is not in `file.nodes`, as a message.
    pub fn from_file(file: GraphFile) -> Result<Self, String> {
        let mut graph = SkillGraph::new(file.nodes);
        for edge in file.edges {
            if graph.index_of(&edge.source).is_none() || graph.index_of(&edge.target).is_none() {
                return Err(format!(
                    "edge {} -> {} names an unknown skill",
                    edge.source, edge.target
                ));
            }
            graph.add_edge(edge);
        }
        Ok(graph)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(s: &str, t: &str, ty: EdgeType, w: f64) -> SkillEdge {
        SkillEdge {
            source: s.into(),
            target: t.into(),
            edge_type: ty,
            weight: w,
            provenance: EdgeProvenance::Io,
            evidence: String::new(),
        }
    }

    #[test]
    fn dedups_and_rejects_self_loops_and_unknown_nodes() {
        let mut g = SkillGraph::new(["a".to_string(), "b".to_string()]);
        assert!(g.add_edge(edge("a", "b", EdgeType::Dependency, 0.7)));
        assert!(!g.add_edge(edge("a", "b", EdgeType::Dependency, 0.9)));
        assert!(g.add_edge(edge("a", "b", EdgeType::Workflow, 0.5)));
        assert!(!g.add_edge(edge("a", "a", EdgeType::Workflow, 0.5)));
        assert!(!g.add_edge(edge("a", "zz", EdgeType::Workflow, 0.5)));
        assert_eq!(g.edge_count(), 2);
        let dep = g
            .edges()
            .find(|e| e.edge_type == EdgeType::Dependency)
            .unwrap();
        assert_eq!(dep.weight, 0.9);
        let round = SkillGraph::from_file(g.to_file(1)).unwrap();
        assert_eq!(round.to_file(1), g.to_file(1));
        assert_eq!(round.isolated_count(), 0);
        assert_eq!(round.isolated_count_of_type(EdgeType::Dependency), 0);
        assert_eq!(round.isolated_count_of_type(EdgeType::Semantic), 2);
        assert_eq!(round.degree_of_type(0, EdgeType::Workflow), 1);
    }

    #[test]
    fn new_provenances_use_their_lowercase_json_names() {
        for (p, name) in [
            (EdgeProvenance::Vector, "vector"),
            (EdgeProvenance::Bm25, "bm25"),
            (EdgeProvenance::Duplicate, "duplicate"),
            (EdgeProvenance::SameJob, "same_job"),
            (EdgeProvenance::Sequence, "sequence"),
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{name}\""));
            assert_eq!(p.as_str(), name);
        }
    }
}
