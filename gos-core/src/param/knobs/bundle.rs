//! Relevance floors, the bundle and its budgets, the stage models.

use super::super::{Access, Category, Knob, Range, Status, Unit};
use super::text;
use crate::retrieve::KeepPrerequisites;

/// The knobs of this group, in `--help` order.
pub(super) const KNOBS: &[Knob] = &[
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
        name: "bundle_min_cosine",
        aliases: &[],
        doc: "Adaptive bundle size: end the bundle at the first first-stage skill whose cosine with the query is below this, whatever its lexical match (hybrid seeds; with dense seeds min_skill_cosine already drops such skills at the defaults; lexical seeds have no cosine; -1 = off).",
        unit: Unit::Score,
        range: Range::real(-1.0, 1.0),
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.bundle_cut.min_cosine = v.real() as f32;
                Ok(())
            },
            get: |o| o.bundle_cut.min_cosine.to_string(),
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
        doc: "After the adaptive cut, bring back the candidates past it that feed a kept skill: off, stated (by a declared, mention or workflow edge: what the skills' text says) or all (io edges too) (graph modes).",
        unit: Unit::Choice,
        range: Range::Choice(&KeepPrerequisites::NAMES),
        category: Category::Bundle,
        status: Status::Stable,
        access: Access::Options {
            set: |o, v| {
                o.keep_prerequisites = v.text().parse()?;
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
];
