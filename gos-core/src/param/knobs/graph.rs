//! Graph operation and diffusion: `mode`, the PPR solver and its parameters, the per-type edge
//! factors.

use super::super::{Access, Category, Knob, Range, Status, Unit};

/// The knobs of this group, in `--help` order.
pub(super) const KNOBS: &[Knob] = &[
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
];
