//! First-stage seeds, final-score mixing and the BM25 query.

use super::super::{Access, Category, Knob, Range, Status, Unit, Value};
use super::text;

/// The knobs of this group, in `--help` order.
pub(super) const KNOBS: &[Knob] = &[
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
];
