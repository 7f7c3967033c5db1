//! The table of knobs ([`KNOBS`]), in `--help` order within each category.

use super::{Access, Category, Knob, Range, Status, Unit, Value};

/// The text of a [`Range::Form`] value.
fn text<'v>(v: Value<'v>) -> &'v str {
    match v {
        Value::Text(t) => t,
        _ => unreachable!("a form range parses text"),
    }
}

/// Every knob of retrieval.
pub static KNOBS: &[Knob] = &[
    Knob {
        name: "mode",
        aliases: &[],
        doc: "Graph operation: reverse-aware PPR (the GoS default), forward PPR, one hop of prerequisites, or no graph.",
        unit: Unit::Choice,
        range: Range::Choice(&["reverse", "forward", "one-hop", "no-graph"]),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.mode = v.text().parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.mode.to_string(),
        },
    },
    Knob {
        name: "ppr",
        aliases: &[],
        doc: "PPR solver: push (local forward push, error stated per query) or exact (power iteration to an L1 change of 1e-6).",
        unit: Unit::Choice,
        range: Range::Choice(&["exact", "push"]),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.ppr.method = v.text().parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.ppr.method.to_string(),
        },
    },
    Knob {
        name: "restart_prob",
        aliases: &[],
        doc: "PPR restart probability: the chance of jumping back to the seeds at each step.",
        unit: Unit::Share,
        range: Range::Real {
            min: 0.0,
            max: 1.0,
            open_min: true,
            open_max: true,
            auto: false,
        },
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.ppr.restart_prob = v.real();
                Ok(())
            },
            get: |o| o.ppr.restart_prob.to_string(),
        },
    },
    Knob {
        name: "push_epsilon",
        aliases: &[],
        doc: "Push solver threshold: a node is pushed while its residual is at least this times its out-degree (smaller is more exact and slower; PprParams::push_epsilon).",
        unit: Unit::Score,
        range: Range::Real {
            min: 0.0,
            max: 1.0,
            open_min: true,
            open_max: true,
            auto: false,
        },
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.ppr.push_epsilon = v.real();
                Ok(())
            },
            get: |o| o.ppr.push_epsilon.to_string(),
        },
    },
    Knob {
        name: "edge_io",
        aliases: &[],
        doc: "Typed diffusion: forward factor of dependency edges found by the input/output rule (1 = as stored, 0 = out of the walk; TypeWeights).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.io = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.io.to_string(),
        },
    },
    Knob {
        name: "edge_mention",
        aliases: &[],
        doc: "Typed diffusion: forward factor of dependency edges from an explicit mention of the producer (TypeWeights).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.mention = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.mention.to_string(),
        },
    },
    Knob {
        name: "edge_declared",
        aliases: &[],
        doc: "Typed diffusion: forward factor of dependency edges declared in frontmatter or accepted from an LLM (TypeWeights).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.declared = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.declared.to_string(),
        },
    },
    Knob {
        name: "edge_workflow",
        aliases: &[],
        doc: "Typed diffusion: forward factor of workflow edges (TypeWeights).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.workflow = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.workflow.to_string(),
        },
    },
    Knob {
        name: "reverse_dependency",
        aliases: &[],
        doc: "Typed diffusion: reverse factor of dependency edges, consumer back to prerequisite (reference 1.0).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.reverse_dependency = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.reverse_dependency.to_string(),
        },
    },
    Knob {
        name: "reverse_workflow",
        aliases: &[],
        doc: "Typed diffusion: reverse factor of workflow edges (reference 0.5).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.reverse_workflow = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.reverse_workflow.to_string(),
        },
    },
    Knob {
        name: "edge_semantic",
        aliases: &[],
        doc: "Typed diffusion: factor of semantic edges, both directions, with dense and hybrid seeds (0 = out of the walk; alternative edges never carry mass; lexical seeds read edge_semantic_lexical).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.semantic = v.real();
                Ok(())
            },
            get: |o| o.edge_weights.semantic.to_string(),
        },
    },
    Knob {
        name: "edge_semantic_lexical",
        aliases: &[],
        doc: "Typed diffusion: factor of semantic edges when the seeds are lexical only (BM25); edge_semantic applies with dense and hybrid seeds.",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_semantic_lexical = v.real();
                Ok(())
            },
            get: |o| o.edge_semantic_lexical.to_string(),
        },
    },
    Knob {
        name: "substochastic",
        aliases: &[],
        doc: "Typed diffusion: a node whose weighted edges (weight x factor) sum below 1 follows them with that probability and restarts the rest at the seeds, so a factor reads as a confidence (0 = rows normalized to 1, the reference).",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Graph,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.edge_weights.substochastic = v.switch();
                Ok(())
            },
            get: |o| o.edge_weights.substochastic.to_string(),
        },
    },
    Knob {
        name: "seeds",
        aliases: &[],
        doc: "First-stage seeds (auto: hybrid when the workspace has vectors and an encoder, else lexical).",
        unit: Unit::Choice,
        range: Range::Choice(&["auto", "lexical", "dense", "hybrid"]),
        category: Category::Seeds,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.seeds.source = v.text().parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.seeds.source.to_string(),
        },
    },
    Knob {
        name: "seed_k",
        aliases: &[],
        doc: "Seeds fed to the diffusion (reference SEED_TOP_K = 5).",
        unit: Unit::Count,
        range: Range::Whole { min: 1 },
        category: Category::Seeds,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.seeds.seed_k = v.whole();
                Ok(())
            },
            get: |o| o.seeds.seed_k.to_string(),
        },
    },
    Knob {
        name: "pool_k",
        aliases: &[],
        doc: "Size of each first-stage list before the graph (at least seed_k is used).",
        unit: Unit::Count,
        range: Range::Whole { min: 1 },
        category: Category::Seeds,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.seeds.pool_k = v.whole();
                Ok(())
            },
            get: |o| o.seeds.pool_k.to_string(),
        },
    },
    Knob {
        name: "fusion",
        aliases: &[],
        doc: "Fusion of hybrid seeds: weighted:W (W = weight of the min-max normalized BM25 list), rrf (reciprocal rank fusion, k = 60) or rrf:K.",
        unit: Unit::Form,
        range: Range::Form("weighted:W (W in [0, 1]), rrf or rrf:K (K > 0)"),
        category: Category::Seeds,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.seeds.fusion = text(v).parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.seeds.fusion.to_string(),
        },
    },
    Knob {
        name: "query_chunks",
        aliases: &[],
        doc: "Also embed each passage of the task and score a skill by its best cosine over them.",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Seeds,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.seeds.query_chunks = v.switch();
                Ok(())
            },
            get: |o| o.seeds.query_chunks.to_string(),
        },
    },
    Knob {
        name: "graph_weight",
        aliases: &[],
        doc: "Weight of the normalized graph score in the final score.",
        unit: Unit::Weight,
        range: Range::ANY,
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.rerank.graph = v.real();
                Ok(())
            },
            get: |o| o.rerank.graph.to_string(),
        },
    },
    Knob {
        name: "lexical_weight",
        aliases: &[],
        doc: "Weight of the normalized BM25 field evidence in the final score.",
        unit: Unit::Weight,
        range: Range::ANY,
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.rerank.lexical = v.real();
                Ok(())
            },
            get: |o| o.rerank.lexical.to_string(),
        },
    },
    Knob {
        name: "dense_weight",
        aliases: &[],
        doc: "Weight of the dense (cosine) evidence in the final score (dense and hybrid seeds).",
        unit: Unit::Weight,
        range: Range::ANY,
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.rerank.dense = v.real();
                Ok(())
            },
            get: |o| o.rerank.dense.to_string(),
        },
    },
    Knob {
        name: "name_weight",
        aliases: &[],
        doc: "Weight of the query's coverage of the skill name in the final score.",
        unit: Unit::Weight,
        range: Range::ANY,
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.rerank.name = v.real();
                Ok(())
            },
            get: |o| o.rerank.name.to_string(),
        },
    },
    Knob {
        name: "rerank_top",
        aliases: &[],
        doc: "Candidates scored by the cross-encoder (the top R after field-evidence reranking).",
        unit: Unit::Count,
        range: Range::Whole { min: 1 },
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Stage {
            set: |o, v| {
                o.top = v.whole();
                Ok(())
            },
            get: |o| o.top.to_string(),
        },
    },
    Knob {
        name: "rerank_max_chars",
        aliases: &[],
        doc: "Characters of each candidate's text given to the cross-encoder.",
        unit: Unit::Chars,
        range: Range::Whole { min: 1 },
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Stage {
            set: |o, v| {
                o.max_chars = v.whole();
                Ok(())
            },
            get: |o| o.max_chars.to_string(),
        },
    },
    Knob {
        name: "rerank_weight",
        aliases: &["ce_weight"],
        doc: "Weight of the cross-encoder probability in the final score; the rest is the normalized graph and field-evidence score.",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Stage {
            set: |o, v| {
                o.weight = v.real();
                Ok(())
            },
            get: |o| o.weight.to_string(),
        },
    },
    Knob {
        name: "rerank_reserved_share",
        aliases: &["ce_reserved_share"],
        doc: "Share of the bundle's positions kept for graph-added prerequisites that were in the bundle before the cross-encoder.",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Stage {
            set: |o, v| {
                o.reserved_share = v.real();
                Ok(())
            },
            get: |o| o.reserved_share.to_string(),
        },
    },
    Knob {
        name: "code_boost",
        aliases: &[],
        doc: "Query-term weight of code-like tokens (inline code, file names, identifiers, flags); 1 = no boost, auto = 1.5 with hybrid seeds, 1 with lexical.",
        unit: Unit::Weight,
        range: Range::Real {
            min: 0.0,
            max: f64::INFINITY,
            open_min: true,
            open_max: false,
            auto: true,
        },
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.code_boost = match v {
                    Value::Auto => None,
                    v => Some(v.real() as f32),
                };
                Ok(())
            },
            get: |o| {
                o.query
                    .code_boost
                    .map_or_else(|| "auto".to_string(), |b| b.to_string())
            },
        },
    },
    Knob {
        name: "field_boosts",
        aliases: &[],
        doc: "BM25 field boosts; fields not named keep their default.",
        unit: Unit::Form,
        range: Range::Form(
            "NAME=BOOST,... over name, description, meta, headings, body (boosts >= 0)",
        ),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts = text(v).parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.query.field_boosts.to_string(),
        },
    },
    Knob {
        name: "name_boost",
        aliases: &[],
        doc: "BM25 boost of the name field (one part of field_boosts).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts.name = v.real() as f32;
                Ok(())
            },
            get: |o| o.query.field_boosts.name.to_string(),
        },
    },
    Knob {
        name: "description_boost",
        aliases: &[],
        doc: "BM25 boost of the description field (one part of field_boosts).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts.description = v.real() as f32;
                Ok(())
            },
            get: |o| o.query.field_boosts.description.to_string(),
        },
    },
    Knob {
        name: "meta_boost",
        aliases: &[],
        doc: "BM25 boost of the meta field (one part of field_boosts).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts.meta = v.real() as f32;
                Ok(())
            },
            get: |o| o.query.field_boosts.meta.to_string(),
        },
    },
    Knob {
        name: "headings_boost",
        aliases: &[],
        doc: "BM25 boost of the headings field (one part of field_boosts).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts.headings = v.real() as f32;
                Ok(())
            },
            get: |o| o.query.field_boosts.headings.to_string(),
        },
    },
    Knob {
        name: "body_boost",
        aliases: &[],
        doc: "BM25 boost of the body field (one part of field_boosts).",
        unit: Unit::Weight,
        range: Range::real(0.0, f64::INFINITY),
        category: Category::Query,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.query.field_boosts.body = v.real() as f32;
                Ok(())
            },
            get: |o| o.query.field_boosts.body.to_string(),
        },
    },
    Knob {
        name: "min_seed_score",
        aliases: &["min_score"],
        doc: "Lexical relevance floor (lexical seeds): NO_SKILL_HIT when the best BM25 score divided by the query's idf mass is below it.",
        unit: Unit::Score,
        range: Range::ANY,
        category: Category::Relevance,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.min_seed_score = v.real() as f32;
                Ok(())
            },
            get: |o| o.min_seed_score.to_string(),
        },
    },
    Knob {
        name: "min_dense_score",
        aliases: &[],
        doc: "Dense relevance floor (dense and hybrid seeds): NO_SKILL_HIT when the best cosine is below it; auto grows with the library, 0.15 + 0.05 sqrt(2 ln N).",
        unit: Unit::Score,
        range: Range::Form("auto or a cosine (a finite number)"),
        category: Category::Relevance,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.min_dense_score = text(v).parse()?;
                Ok(())
            },
            get: |o| o.min_dense_score.to_string(),
        },
    },
    Knob {
        name: "min_skill_cosine",
        aliases: &[],
        doc: "Per-skill floor of the bundle: a candidate with no BM25 hit whose cosine with the query is below this gets no bundle slot; the ranked list keeps it (-1 = off).",
        unit: Unit::Score,
        range: Range::ANY,
        category: Category::Relevance,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.min_skill_cosine = v.real() as f32;
                Ok(())
            },
            get: |o| o.min_skill_cosine.to_string(),
        },
    },
    Knob {
        name: "min_relative_score",
        aliases: &[],
        doc: "Relative floor: candidates whose final score is below this share of the best are not eligible.",
        unit: Unit::Share,
        range: Range::ANY,
        category: Category::Relevance,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.min_relative_score = v.real();
                Ok(())
            },
            get: |o| o.min_relative_score.to_string(),
        },
    },
    Knob {
        name: "top_n",
        aliases: &["max_skills"],
        doc: "Most skills in the bundle.",
        unit: Unit::Count,
        range: Range::Whole { min: 1 },
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.budgets.top_n = v.whole();
                Ok(())
            },
            get: |o| o.budgets.top_n.to_string(),
        },
    },
    Knob {
        name: "max_chars_per_skill",
        aliases: &[],
        doc: "Most characters per skill block (header lines included).",
        unit: Unit::Chars,
        range: Range::Whole { min: 0 },
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.budgets.max_chars_per_skill = v.whole();
                Ok(())
            },
            get: |o| o.budgets.max_chars_per_skill.to_string(),
        },
    },
    Knob {
        name: "max_context_chars",
        aliases: &[],
        doc: "Most characters of the whole rendered context.",
        unit: Unit::Chars,
        range: Range::Whole { min: 0 },
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.budgets.max_context_chars = v.whole();
                Ok(())
            },
            get: |o| o.budgets.max_context_chars.to_string(),
        },
    },
    Knob {
        name: "bundle_floor",
        aliases: &[],
        doc: "Adaptive bundle size: end the bundle at the first skill whose final score is below this share of the best one (0 = off).",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.bundle_cut.min_top_ratio = v.real();
                Ok(())
            },
            get: |o| o.bundle_cut.min_top_ratio.to_string(),
        },
    },
    Knob {
        name: "bundle_gap",
        aliases: &[],
        doc: "Adaptive bundle size: end the bundle at the first skill whose final score is below this share of the score just above it (0 = off).",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.bundle_cut.min_step_ratio = v.real();
                Ok(())
            },
            get: |o| o.bundle_cut.min_step_ratio.to_string(),
        },
    },
    Knob {
        name: "cut_without_semantic",
        aliases: &[],
        doc: "With semantic edges in the walk, the adaptive cut reads the ranking of the walk without them: semantic mass orders the bundle but never opens or closes it.",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.cut_without_semantic = v.switch();
                Ok(())
            },
            get: |o| o.cut_without_semantic.to_string(),
        },
    },
    Knob {
        name: "keep_prerequisites",
        aliases: &[],
        doc: "After the adaptive cut, bring back the candidates past it that feed a kept skill by a dependency or workflow edge (graph modes).",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.keep_prerequisites = v.switch();
                Ok(())
            },
            get: |o| o.keep_prerequisites.to_string(),
        },
    },
    Knob {
        name: "collapse_duplicates",
        aliases: &[],
        doc: "Keep one member per near-duplicate group (at the group's best rank, the member the query matches best) and list the others as its alternates.",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.collapse_duplicates = v.switch();
                Ok(())
            },
            get: |o| o.collapse_duplicates.to_string(),
        },
    },
    Knob {
        name: "collapse_alternatives",
        aliases: &[],
        doc: "Keep one member per alternative group (alternatives.json merged with the near-duplicate groups): at the group's best rank, the member the query matches best (first-stage score); list the others as its alternates.",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.collapse_alternatives = v.switch();
                Ok(())
            },
            get: |o| o.collapse_alternatives.to_string(),
        },
    },
    Knob {
        name: "exclude_flagged",
        aliases: &[],
        doc: "Leave out skills the build flagged with content warnings (docs/security.md).",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.exclude_flagged = v.switch();
                Ok(())
            },
            get: |o| o.exclude_flagged.to_string(),
        },
    },
    Knob {
        name: "absolute_paths",
        aliases: &[],
        doc: "Write Source paths as absolute paths under the workspace's library root.",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.absolute_paths = v.switch();
                Ok(())
            },
            get: |o| o.absolute_paths.to_string(),
        },
    },
    Knob {
        name: "rerank",
        aliases: &[],
        doc: "Reranking after diffusion: field evidence only, or the cross-encoder stage after it (needs reranker_dir).",
        unit: Unit::Choice,
        range: Range::Choice(&["fields", "cross-encoder"]),
        category: Category::Rerank,
        status: Status::Stable,
        access: Access::Loader { default: "fields" },
    },
    Knob {
        name: "model_dir",
        aliases: &[],
        doc: "Sentence encoder for the query (default: the model the workspace was built with; env GOS_MODEL_DIR).",
        unit: Unit::Path,
        range: Range::Path,
        category: Category::Models,
        status: Status::Stable,
        access: Access::Loader {
            default: "the workspace's model",
        },
    },
    Knob {
        name: "reranker_dir",
        aliases: &[],
        doc: "Cross-encoder model directory in Hugging Face layout (env GOS_RERANKER_DIR).",
        unit: Unit::Path,
        range: Range::Path,
        category: Category::Models,
        status: Status::Stable,
        access: Access::Loader { default: "none" },
    },
    Knob {
        name: "device",
        aliases: &[],
        doc: "Device of the neural models (query encoder and cross-encoder); cuda needs a build with --features cuda.",
        unit: Unit::Form,
        range: Range::Form("cpu, cuda or cuda:N"),
        category: Category::Models,
        status: Status::Stable,
        access: Access::Loader { default: "cpu" },
    },
    Knob {
        name: "query_precision",
        aliases: &[],
        doc: "Precision of the query encoder: f32, or int8 (quantized linear layers, query vectors at cosine >= 0.999 to f32; env GOS_QUERY_PRECISION).",
        unit: Unit::Choice,
        range: Range::Choice(&["f32", "int8"]),
        category: Category::Models,
        status: Status::Stable,
        access: Access::Loader { default: "f32" },
    },
    Knob {
        name: "coverage",
        aliases: &[],
        doc: "Split the task into facets, seed per facet and choose the bundle by facet coverage (every CV fold turned it off; docs/graph-quality.md).",
        unit: Unit::Switch,
        range: Range::Switch,
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.coverage.enabled = v.switch();
                Ok(())
            },
            get: |o| o.coverage.enabled.to_string(),
        },
    },
    Knob {
        name: "coverage_relevance",
        aliases: &[],
        doc: "Coverage selection: weight of a candidate's own final score against its facet gain.",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.coverage.relevance = v.real();
                Ok(())
            },
            get: |o| o.coverage.relevance.to_string(),
        },
    },
    Knob {
        name: "facet_seeds",
        aliases: &[],
        doc: "Coverage selection: best hits of each facet added to the seeds.",
        unit: Unit::Count,
        range: Range::Whole { min: 0 },
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.coverage.facet_seeds = v.whole();
                Ok(())
            },
            get: |o| o.coverage.facet_seeds.to_string(),
        },
    },
    Knob {
        name: "prereq_slots",
        aliases: &[],
        doc: "Bundle slots reserved for prerequisites of the top-ranked skills in graph modes (0: off; every CV fold chose 0, docs/graph-quality.md).",
        unit: Unit::Count,
        range: Range::Whole { min: 0 },
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.prerequisites.slots = v.whole();
                Ok(())
            },
            get: |o| o.prerequisites.slots.to_string(),
        },
    },
    Knob {
        name: "prereq_anchors",
        aliases: &[],
        doc: "Prerequisite slots: how many of the best-ranked candidates are anchors whose prerequisites qualify.",
        unit: Unit::Count,
        range: Range::Whole { min: 1 },
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.prerequisites.anchors = v.whole();
                Ok(())
            },
            get: |o| o.prerequisites.anchors.to_string(),
        },
    },
    Knob {
        name: "prereq_min_ratio",
        aliases: &[],
        doc: "Prerequisite slots: least final score of a prerequisite, as a share of the last bundle skill's.",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.prerequisites.min_ratio = v.real();
                Ok(())
            },
            get: |o| o.prerequisites.min_ratio.to_string(),
        },
    },
    Knob {
        name: "markup",
        aliases: &[],
        doc: "Markdown in the task text before BM25 analysis: keep it, strip it, or strip code blocks too (stripping lost recall out of fold, docs/evaluation.md).",
        unit: Unit::Choice,
        range: Range::Choice(&["keep", "strip", "strip-code"]),
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.query.markup = v.text().parse().map_err(|e: crate::Error| e.to_string())?;
                Ok(())
            },
            get: |o| o.query.markup.to_string(),
        },
    },
    Knob {
        name: "max_term_df",
        aliases: &[],
        doc: "Common-term cutoff of lexical seeds: query terms in more than this share of the skills are left out (1 keeps every term).",
        unit: Unit::Share,
        range: Range::Real {
            min: 0.0,
            max: 1.0,
            open_min: true,
            open_max: false,
            auto: false,
        },
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.seeds.max_term_df = v.real();
                Ok(())
            },
            get: |o| o.seeds.max_term_df.to_string(),
        },
    },
    Knob {
        name: "min_coverage",
        aliases: &[],
        doc: "Coverage floor (lexical seeds): NO_SKILL_HIT when no top-5 BM25 hit's name and description overlap the query this much (0 = off).",
        unit: Unit::Share,
        range: Range::real(0.0, 1.0),
        category: Category::Experimental,
        status: Status::Experimental,
        access: Access::Options {
            set: |o, v| {
                o.min_coverage = v.real() as f32;
                Ok(())
            },
            get: |o| o.min_coverage.to_string(),
        },
    },
];
