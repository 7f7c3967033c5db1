//! The online pipeline: seeds -> diffusion -> rerank -> hydration.

use crate::error::{Error, Result};
use crate::graph::EdgeType;
use crate::hydrate::{Budgets, Bundle, HydrationInput, hydrate, no_hit};
use crate::lexical::LexicalIndex;
use crate::ppr::{PprMethod, PprParams, TransitionMatrix, personalized_pagerank, push_pagerank};
use crate::rerank::{RerankWeights, combine, name_coverage};
use crate::seed::{Seed, SeedParams, lexical_seeds};
use crate::text::{analyzer, tokens};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::Instant;

/// Graph operation applied to the seeds (the ablation arms of [P] Table 2, reference notes §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RetrievalMode {
    /// Reverse-aware PPR: prerequisites of seeded skills receive mass (the GoS default).
    #[default]
    Reverse,
    /// PPR with every reverse factor zero: mass only flows producer -> consumer.
    Forward,
    /// Seeds plus the direct dependency predecessors of each seed, no diffusion.
    OneHop,
    /// Seeds and the lexical pool only, no graph.
    NoGraph,
}

impl RetrievalMode {
    /// All modes, the default first.
    pub const ALL: [RetrievalMode; 4] = [
        RetrievalMode::Reverse,
        RetrievalMode::Forward,
        RetrievalMode::OneHop,
        RetrievalMode::NoGraph,
    ];

    /// Command-line name (`reverse`, `forward`, `one-hop`, `no-graph`).
    pub fn as_str(self) -> &'static str {
        match self {
            RetrievalMode::Reverse => "reverse",
            RetrievalMode::Forward => "forward",
            RetrievalMode::OneHop => "one-hop",
            RetrievalMode::NoGraph => "no-graph",
        }
    }
}

impl FromStr for RetrievalMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        RetrievalMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::InvalidOption {
                name: "mode",
                reason: format!("`{s}` is not one of reverse, forward, one-hop, no-graph"),
            })
    }
}

impl std::fmt::Display for RetrievalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that shapes one retrieval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrieveOptions {
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seeding.
    pub seeds: SeedParams,
    /// Diffusion.
    pub ppr: PprParams,
    /// Final-score mixing.
    pub rerank: RerankWeights,
    /// Bundle budgets.
    pub budgets: Budgets,
    /// Relevance floor: NO_SKILL_HIT when the best BM25 score divided by the query's idf mass
    /// ([`LexicalIndex::idf_mass`]) is below it. Default from the DEV and unrelated-query
    /// measurements in docs/evaluation.md.
    pub min_seed_score: f32,
    /// Candidates whose final score is below this share of the best final score are not
    /// hydrated (0 keeps all reached candidates).
    pub min_relative_score: f64,
}

impl Default for RetrieveOptions {
    fn default() -> Self {
        RetrieveOptions {
            mode: RetrievalMode::Reverse,
            seeds: SeedParams::default(),
            ppr: PprParams::default(),
            rerank: RerankWeights::default(),
            budgets: Budgets::default(),
            min_seed_score: 0.5,
            min_relative_score: 0.05,
        }
    }
}

/// One entry of the ranked list before hydration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedSkill {
    /// Node index.
    pub node: usize,
    /// Skill id.
    pub id: String,
    /// Final score.
    pub score: f64,
    /// Graph score (PPR mass, one-hop mass or seed weight), unnormalized.
    pub graph_score: f64,
    /// BM25 score, 0 outside the lexical pool.
    pub lexical_score: f32,
    /// 1-based rank in the lexical pool.
    pub lexical_rank: Option<usize>,
    /// 1-based seed rank.
    pub seed_rank: Option<usize>,
}

/// Milliseconds per stage.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Timings {
    /// Query analysis and BM25.
    pub seed: f64,
    /// Graph operation.
    pub diffuse: f64,
    /// Final scoring and sort.
    pub rerank: f64,
    /// Bundle rendering.
    pub hydrate: f64,
    /// Whole retrieval.
    pub total: f64,
}

/// Result of one retrieval.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    /// Mode used.
    pub mode: RetrievalMode,
    /// Seeds of the diffusion.
    pub seeds: Vec<Seed>,
    /// Best BM25 score divided by the query's idf mass (the relevance-floor evidence), 0
    /// without hits.
    pub top_seed_score: f32,
    /// All candidates in final order (the ranked list that hit@k and recall@k read).
    pub ranked: Vec<RankedSkill>,
    /// The hydrated bundle.
    pub bundle: Bundle,
    /// Stage timings.
    pub timings: Timings,
}

/// Retrieval over an open workspace. Cheap to create; shares the workspace.
pub struct Retriever<'w> {
    ws: &'w Workspace,
    name_tokens: Vec<Vec<String>>,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

impl<'w> Retriever<'w> {
    /// A retriever over `ws`. Cost: analyzes every skill name once.
    pub fn new(ws: &'w Workspace) -> Self {
        let mut a = analyzer();
        let name_tokens = ws
            .manifest
            .nodes
            .iter()
            .map(|n| tokens(&mut a, &n.name))
            .collect();
        Retriever { ws, name_tokens }
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        self.ws
    }

    /// Retrieve a bundle for `query`.
    ///
    /// # Errors
    /// Index errors while searching or reading stored content.
    pub fn retrieve(&self, query: &str, opts: &RetrieveOptions) -> Result<Retrieval> {
        let start = Instant::now();
        let terms = LexicalIndex::query_terms(query);
        let seeding = lexical_seeds(&self.ws.lexical, &terms, &opts.seeds)?;
        let t_seed = ms(start);

        let t = Instant::now();
        let n = self.ws.len();
        let mut p = vec![0.0; n];
        for s in &seeding.seeds {
            p[s.node] += s.weight;
        }
        let graph_scores = match opts.mode {
            RetrievalMode::Reverse => diffuse(&self.ws.reverse_matrix, &p, &opts.ppr),
            RetrievalMode::Forward => diffuse(&self.ws.forward_matrix, &p, &opts.ppr),
            RetrievalMode::OneHop => self.one_hop(&p, &opts.ppr),
            RetrievalMode::NoGraph => p.clone(),
        };
        let t_diffuse = ms(t);

        let t = Instant::now();
        let ranked = self.rank(&terms, &seeding.pool, &seeding.seeds, &graph_scores, opts);
        let t_rerank = ms(t);

        let t = Instant::now();
        let mass = self.ws.lexical.idf_mass(&terms)?;
        let top_seed_score = match seeding.pool.first() {
            Some(h) if mass > 0.0 => h.1 / mass,
            _ => 0.0,
        };
        let bundle = if ranked.is_empty() || top_seed_score < opts.min_seed_score {
            no_hit(query)
        } else {
            // `ranked` is sorted by descending score, so the candidates above the relative
            // floor are a prefix; reasons are only worked out for the skills hydrated.
            let best = ranked[0].score;
            let mut inputs = Vec::new();
            for (i, r) in ranked
                .iter()
                .take_while(|r| r.score >= opts.min_relative_score * best)
                .take(opts.budgets.top_n)
                .enumerate()
            {
                let reason = self.reason(&ranked[..i], r, opts.mode);
                inputs.push(self.hydration_input(r, reason)?);
            }
            hydrate(query, &inputs, &opts.budgets)
        };
        let t_hydrate = ms(t);
        Ok(Retrieval {
            mode: opts.mode,
            seeds: seeding.seeds,
            top_seed_score,
            ranked,
            bundle,
            timings: Timings {
                seed: t_seed,
                diffuse: t_diffuse,
                rerank: t_rerank,
                hydrate: t_hydrate,
                total: ms(start),
            },
        })
    }

    /// One-hop expansion: the personalization vector plus, for each seed `s` and each
    /// dependency edge `x -> s`, mass `(1 - restart) * p(s) * w(x -> s) / W(s)` on `x`, where
    /// `W(s)` is the total weight of dependency edges into `s`.
    fn one_hop(&self, p: &[f64], params: &PprParams) -> Vec<f64> {
        let mut g = p.to_vec();
        for (s, &ps) in p.iter().enumerate().filter(|(_, w)| **w > 0.0) {
            let preds: Vec<(usize, f64)> = self
                .ws
                .graph
                .incoming(s)
                .filter(|(_, e)| e.edge_type == EdgeType::Dependency)
                .map(|(x, e)| (x, e.weight))
                .collect();
            let total: f64 = preds.iter().map(|(_, w)| w).sum();
            for (x, w) in preds {
                if total > 0.0 {
                    g[x] += (1.0 - params.restart_prob) * ps * w / total;
                }
            }
        }
        g
    }

    fn rank(
        &self,
        terms: &BTreeMap<String, u32>,
        pool: &[(usize, f32)],
        seeds: &[Seed],
        graph_scores: &[f64],
        opts: &RetrieveOptions,
    ) -> Vec<RankedSkill> {
        let mut lex_rank: BTreeMap<usize, (usize, f32)> = BTreeMap::new();
        for (i, &(node, score)) in pool.iter().enumerate() {
            lex_rank.insert(node, (i + 1, score));
        }
        let seed_rank: BTreeMap<usize, usize> = seeds.iter().map(|s| (s.node, s.rank)).collect();
        let max_graph = graph_scores.iter().cloned().fold(0.0, f64::max);
        let max_lex = pool.first().map(|h| h.1 as f64).unwrap_or(0.0);
        let mut candidates: Vec<usize> = lex_rank.keys().copied().collect();
        candidates.extend(
            graph_scores
                .iter()
                .enumerate()
                .filter(|(i, g)| **g > 0.0 && !lex_rank.contains_key(i))
                .map(|(i, _)| i),
        );
        let mut ranked: Vec<RankedSkill> = candidates
            .into_iter()
            .map(|node| {
                let (lrank, lscore) = lex_rank
                    .get(&node)
                    .map(|&(r, s)| (Some(r), s))
                    .unwrap_or((None, 0.0));
                let cov = name_coverage(&self.name_tokens[node], terms);
                RankedSkill {
                    node,
                    id: self.ws.manifest.nodes[node].id.clone(),
                    score: combine(
                        &opts.rerank,
                        graph_scores[node],
                        max_graph,
                        lscore as f64,
                        max_lex,
                        cov,
                    ),
                    graph_score: graph_scores[node],
                    lexical_score: lscore,
                    lexical_rank: lrank,
                    seed_rank: seed_rank.get(&node).copied(),
                }
            })
            .collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.node.cmp(&b.node)));
        ranked
    }

    /// Why `r` is a candidate: its seed or lexical rank, or the graph edge linking it to a
    /// better-ranked candidate.
    fn reason(&self, above: &[RankedSkill], r: &RankedSkill, mode: RetrievalMode) -> String {
        if let Some(s) = r.seed_rank {
            return format!("seed match (BM25 rank {s})");
        }
        let nodes = &self.ws.manifest.nodes;
        if matches!(
            mode,
            RetrievalMode::Reverse | RetrievalMode::Forward | RetrievalMode::OneHop
        ) && r.graph_score > 0.0
        {
            let describe = |relation: &str, other: usize, e: &crate::graph::SkillEdge| {
                format!(
                    "{relation} {} via {} edge ({}: {})",
                    nodes[other].name,
                    e.edge_type.as_str(),
                    e.provenance.as_str(),
                    e.evidence
                )
            };
            for a in above {
                if let Some((_, e)) = self.ws.graph.outgoing(r.node).find(|(t, _)| *t == a.node) {
                    return describe("prerequisite of", a.node, e);
                }
                if let Some((_, e)) = self.ws.graph.incoming(r.node).find(|(s, _)| *s == a.node) {
                    return describe("follows", a.node, e);
                }
            }
        }
        match r.lexical_rank {
            Some(l) => format!("lexical match (BM25 rank {l})"),
            None => "reached by graph diffusion".to_string(),
        }
    }

    fn hydration_input(&self, r: &RankedSkill, reason: String) -> Result<HydrationInput> {
        let node = &self.ws.manifest.nodes[r.node];
        let body = self.ws.lexical.body(r.node)?.unwrap_or_default();
        let description = node.description.value.trim();
        let content = if description.is_empty() {
            body
        } else {
            format!("{description}\n\n{}", body.trim())
        };
        Ok(HydrationInput {
            node: r.node,
            id: node.id.clone(),
            name: node.name.clone(),
            source: node.source_path.clone(),
            score: r.score,
            reason,
            content,
        })
    }
}

/// PPR scores over `m` with the solver `params.method` selects.
fn diffuse(m: &TransitionMatrix, p: &[f64], params: &PprParams) -> Vec<f64> {
    match params.method {
        PprMethod::Exact => personalized_pagerank(m, p, params).scores,
        PprMethod::Push => push_pagerank(m, p, params).scores,
    }
}

/// Convenience for tests and tools: the rank (1-based) of `node` in `ranked`.
pub fn rank_of(ranked: &[RankedSkill], node: usize) -> Option<usize> {
    ranked.iter().position(|r| r.node == node).map(|p| p + 1)
}
