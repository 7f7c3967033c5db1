//! Retrieval parameters set by name ([`Param`]): the values after `@` in an arm name
//! ([`crate::arm`]), the `--set NAME=V` of `gos eval`, and the sweeps of cross-validation
//! ([`crate::cv`]), with their parsing (`NAME=V1,V2,...`) and the grid of a sweep.
//!
//! Both arms and cross-validation read this module, so it depends on neither.

use crate::error::{Error, Result};
use gos_core::RetrieveOptions;

/// A retrieval parameter a sweep can set. Integer parameters take whole values of at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// [`gos_core::seed::SeedParams::seed_k`].
    SeedK,
    /// [`gos_core::seed::SeedParams::pool_k`].
    PoolK,
    /// [`gos_core::graph::ppr::PprParams::restart_prob`] (0 < v < 1).
    RestartProb,
    /// [`gos_core::rerank::RerankWeights::graph`].
    GraphWeight,
    /// [`gos_core::rerank::RerankWeights::lexical`].
    LexicalWeight,
    /// [`gos_core::rerank::RerankWeights::dense`].
    DenseWeight,
    /// [`gos_core::rerank::RerankWeights::name`].
    NameWeight,
    /// [`gos_core::hydrate::Budgets::top_n`].
    TopN,
    /// [`RetrieveOptions::min_seed_score`].
    MinSeedScore,
    /// [`RetrieveOptions::min_dense_score`].
    MinDenseScore,
    /// [`RetrieveOptions::min_relative_score`].
    MinRelativeScore,
    /// [`gos_core::prerequisite::PrerequisiteShare::slots`] (whole, 0 turns it off).
    PrereqSlots,
    /// [`gos_core::prerequisite::PrerequisiteShare::anchors`].
    PrereqAnchors,
    /// [`gos_core::prerequisite::PrerequisiteShare::min_ratio`] (in [0, 1]).
    PrereqMinRatio,
    /// [`gos_core::retrieve::coverage::CoverageParams::enabled`] (0 off, 1 on).
    Coverage,
    /// [`gos_core::retrieve::coverage::CoverageParams::relevance`] (in [0, 1]).
    CoverageRelevance,
    /// [`gos_core::retrieve::coverage::CoverageParams::facet_seeds`] (whole, 0 allowed).
    FacetSeeds,
    /// [`gos_core::seed::SeedParams::max_term_df`] (0 < v <= 1).
    MaxTermDf,
    /// [`RetrieveOptions::collapse_duplicates`] (0 off, 1 on).
    CollapseDuplicates,
    /// [`gos_core::retrieve::BundleCut::min_top_ratio`] (in [0, 1]).
    BundleFloor,
    /// [`gos_core::retrieve::BundleCut::min_step_ratio`] (in [0, 1]).
    BundleGap,
    /// [`gos_core::query::QueryParams::markup`] by index in
    /// [`gos_core::query::Markup::ALL`]: 0 keep, 1 strip, 2 strip code blocks too.
    Markup,
    /// [`gos_core::query::QueryParams::code_boost`] (> 0).
    CodeBoost,
    /// [`gos_core::index::lexical::FieldBoosts::name`] (>= 0).
    NameBoost,
    /// [`gos_core::index::lexical::FieldBoosts::description`] (>= 0).
    DescriptionBoost,
    /// [`gos_core::index::lexical::FieldBoosts::meta`] (>= 0).
    MetaBoost,
    /// [`gos_core::index::lexical::FieldBoosts::headings`] (>= 0).
    HeadingsBoost,
    /// [`gos_core::index::lexical::FieldBoosts::body`] (>= 0).
    BodyBoost,
    /// [`RetrieveOptions::min_coverage`] (in [0, 1]).
    MinCoverage,
}

impl Param {
    /// Every parameter, in `--help` order.
    pub const ALL: [Param; 29] = [
        Param::SeedK,
        Param::PoolK,
        Param::RestartProb,
        Param::GraphWeight,
        Param::LexicalWeight,
        Param::DenseWeight,
        Param::NameWeight,
        Param::TopN,
        Param::MinSeedScore,
        Param::MinDenseScore,
        Param::MinRelativeScore,
        Param::PrereqSlots,
        Param::PrereqAnchors,
        Param::PrereqMinRatio,
        Param::Coverage,
        Param::CoverageRelevance,
        Param::FacetSeeds,
        Param::MaxTermDf,
        Param::CollapseDuplicates,
        Param::BundleFloor,
        Param::BundleGap,
        Param::Markup,
        Param::CodeBoost,
        Param::NameBoost,
        Param::DescriptionBoost,
        Param::MetaBoost,
        Param::HeadingsBoost,
        Param::BodyBoost,
        Param::MinCoverage,
    ];

    /// The name a sweep uses, e.g. `min_seed_score`.
    pub fn as_str(self) -> &'static str {
        match self {
            Param::SeedK => "seed_k",
            Param::PoolK => "pool_k",
            Param::RestartProb => "restart_prob",
            Param::GraphWeight => "graph_weight",
            Param::LexicalWeight => "lexical_weight",
            Param::DenseWeight => "dense_weight",
            Param::NameWeight => "name_weight",
            Param::TopN => "top_n",
            Param::MinSeedScore => "min_seed_score",
            Param::MinDenseScore => "min_dense_score",
            Param::MinRelativeScore => "min_relative_score",
            Param::PrereqSlots => "prereq_slots",
            Param::PrereqAnchors => "prereq_anchors",
            Param::PrereqMinRatio => "prereq_min_ratio",
            Param::Coverage => "coverage",
            Param::CoverageRelevance => "coverage_relevance",
            Param::FacetSeeds => "facet_seeds",
            Param::MaxTermDf => "max_term_df",
            Param::CollapseDuplicates => "collapse_duplicates",
            Param::BundleFloor => "bundle_floor",
            Param::BundleGap => "bundle_gap",
            Param::Markup => "markup",
            Param::CodeBoost => "code_boost",
            Param::NameBoost => "name_boost",
            Param::DescriptionBoost => "description_boost",
            Param::MetaBoost => "meta_boost",
            Param::HeadingsBoost => "headings_boost",
            Param::BodyBoost => "body_boost",
            Param::MinCoverage => "min_coverage",
        }
    }

    /// Set this parameter of `opts` to `v`.
    ///
    /// # Errors
    /// [`Error::Sweep`] for a non-finite value, a fractional or non-positive integer, or a
    /// restart probability outside (0, 1), a switch other than 0 or 1, a bundle cut or
    /// coverage floor outside [0, 1], a markup index other than 0, 1 or 2, a code boost
    /// <= 0 or a negative field boost.
    pub fn apply(self, opts: &mut RetrieveOptions, v: f64) -> Result<()> {
        let name = self.as_str();
        if !v.is_finite() {
            return Err(Error::Sweep(format!("{name}: {v} is not a finite number")));
        }
        let whole = || -> Result<usize> {
            if v >= 1.0 && v.fract() == 0.0 {
                Ok(v as usize)
            } else {
                Err(Error::Sweep(format!(
                    "{name}: {v} is not a whole number >= 1"
                )))
            }
        };
        match self {
            Param::SeedK => opts.seeds.seed_k = whole()?,
            Param::PoolK => opts.seeds.pool_k = whole()?,
            Param::TopN => opts.budgets.top_n = whole()?,
            Param::RestartProb => {
                if !(v > 0.0 && v < 1.0) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in (0, 1)")));
                }
                opts.ppr.restart_prob = v;
            }
            Param::GraphWeight => opts.rerank.graph = v,
            Param::LexicalWeight => opts.rerank.lexical = v,
            Param::DenseWeight => opts.rerank.dense = v,
            Param::NameWeight => opts.rerank.name = v,
            Param::MinSeedScore => opts.min_seed_score = v as f32,
            Param::MinDenseScore => {
                opts.min_dense_score = gos_core::relevance::DenseFloor::Cosine(v as f32)
            }
            Param::MinRelativeScore => opts.min_relative_score = v,
            Param::PrereqSlots => opts.prerequisites.slots = if v == 0.0 { 0 } else { whole()? },
            Param::PrereqAnchors => opts.prerequisites.anchors = whole()?,
            Param::PrereqMinRatio => {
                if !(0.0..=1.0).contains(&v) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in [0, 1]")));
                }
                opts.prerequisites.min_ratio = v;
            }
            Param::Coverage => {
                if v != 0.0 && v != 1.0 {
                    return Err(Error::Sweep(format!("{name}: {v} is not 0 or 1")));
                }
                opts.coverage.enabled = v == 1.0;
            }
            Param::CoverageRelevance => {
                if !(0.0..=1.0).contains(&v) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in [0, 1]")));
                }
                opts.coverage.relevance = v;
            }
            Param::FacetSeeds => opts.coverage.facet_seeds = if v == 0.0 { 0 } else { whole()? },
            Param::MaxTermDf => {
                if !(v > 0.0 && v <= 1.0) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in (0, 1]")));
                }
                opts.seeds.max_term_df = v;
            }
            Param::CollapseDuplicates => {
                if v != 0.0 && v != 1.0 {
                    return Err(Error::Sweep(format!("{name}: {v} is not 0 or 1")));
                }
                opts.collapse_duplicates = v == 1.0;
            }
            Param::BundleFloor | Param::BundleGap => {
                if !(0.0..=1.0).contains(&v) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in [0, 1]")));
                }
                match self {
                    Param::BundleFloor => opts.bundle_cut.min_top_ratio = v,
                    _ => opts.bundle_cut.min_step_ratio = v,
                }
            }
            Param::Markup => {
                let markup = gos_core::query::Markup::ALL
                    .into_iter()
                    .enumerate()
                    .find(|&(i, _)| i as f64 == v)
                    .ok_or_else(|| Error::Sweep(format!("{name}: {v} is not 0, 1 or 2")))?;
                opts.query.markup = markup.1;
            }
            Param::CodeBoost => {
                if v <= 0.0 {
                    return Err(Error::Sweep(format!("{name}: {v} is not > 0")));
                }
                opts.query.code_boost = Some(v as f32);
            }
            Param::NameBoost
            | Param::DescriptionBoost
            | Param::MetaBoost
            | Param::HeadingsBoost
            | Param::BodyBoost => {
                if v < 0.0 {
                    return Err(Error::Sweep(format!("{name}: {v} is not >= 0")));
                }
                let b = &mut opts.query.field_boosts;
                *match self {
                    Param::NameBoost => &mut b.name,
                    Param::DescriptionBoost => &mut b.description,
                    Param::MetaBoost => &mut b.meta,
                    Param::HeadingsBoost => &mut b.headings,
                    _ => &mut b.body,
                } = v as f32;
            }
            Param::MinCoverage => {
                if !(0.0..=1.0).contains(&v) {
                    return Err(Error::Sweep(format!("{name}: {v} is not in [0, 1]")));
                }
                opts.min_coverage = v as f32;
            }
        }
        Ok(())
    }
}

/// One swept parameter and its values, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The parameter.
    pub param: Param,
    /// Its values.
    pub values: Vec<f64>,
}

/// Parse `NAME=V1,V2,...` (see [`Param::as_str`] for the names).
///
/// # Errors
/// [`Error::Sweep`] naming the allowed parameters for an unknown name, or the value that does
/// not parse; an empty value list; a value [`Param::apply`] refuses.
pub fn parse_sweep(spec: &str) -> Result<Sweep> {
    let (name, list) = spec
        .split_once('=')
        .ok_or_else(|| Error::Sweep(format!("sweep `{spec}`: expected NAME=V1,V2,...")))?;
    let allowed = || {
        Param::ALL
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let param = Param::ALL
        .into_iter()
        .find(|p| p.as_str() == name.trim())
        .ok_or_else(|| {
            Error::Sweep(format!(
                "sweep `{spec}`: unknown parameter `{}` (one of {})",
                name.trim(),
                allowed()
            ))
        })?;
    let values = list
        .split(',')
        .filter(|v| !v.trim().is_empty())
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| Error::Sweep(format!("sweep `{spec}`: `{v}` is not a number")))
        })
        .collect::<Result<Vec<f64>>>()?;
    if values.is_empty() {
        return Err(Error::Sweep(format!("sweep `{spec}`: no values")));
    }
    let mut probe = RetrieveOptions::default();
    for &v in &values {
        param.apply(&mut probe, v)?;
    }
    Ok(Sweep { param, values })
}

/// The grid of `sweeps`: their Cartesian product, the first sweep varying slowest. One empty
/// point (the base options) for no sweep.
pub fn grid(sweeps: &[Sweep]) -> Vec<Vec<(Param, f64)>> {
    sweeps.iter().fold(vec![Vec::new()], |points, sweep| {
        points
            .iter()
            .flat_map(|p| {
                sweep.values.iter().map(move |&v| {
                    let mut q = p.clone();
                    q.push((sweep.param, v));
                    q
                })
            })
            .collect()
    })
}
