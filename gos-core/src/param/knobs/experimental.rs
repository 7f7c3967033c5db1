//! Options measured not to help: reachable by `--set` and eval sweeps only.

use super::super::{Access, Category, Knob, Range, Status, Unit};

/// The knobs of this group, in `--help` order.
pub(super) const KNOBS: &[Knob] = &[
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
