//! Arms: the retrieval configurations under test, named `MODE/SEEDS[/RERANKER]`.
//!
//! Every arm runs with the same [`RetrieveOptions`] except the graph operation
//! ([`RetrieveOptions::mode`]) and the seed source ([`SeedParams::source`]) that its name
//! gives ([`arm_options`]), so differences between arms come from those alone. An arm may
//! also set sweepable parameters after `@`, e.g. `reverse/lexical@collapse_duplicates=0` or
//! `reverse/lexical@bundle_floor=0.4@bundle_gap=0.6` ([`crate::param::Param`]), so a variant
//! gets paired intervals against the baseline arm in the same run.

use crate::error::{Error, Result};
use crate::param::{Param, parse_sweep};
use gos_core::RetrievalMode;
use gos_core::RetrieveOptions;
use gos_core::seed::{SeedParams, SeedSource};

/// Default arm list: the four graph operations with lexical seeds, the reverse arm first.
pub const DEFAULT_ARMS: &str = "reverse/lexical,forward/lexical,one-hop/lexical,no-graph/lexical";

/// Rerankers an arm can name after its seeds.
const RERANKERS: [&str; 1] = ["cross-encoder"];

/// One retrieval configuration under test, named `MODE/SEEDS[/RERANKER]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Arm {
    /// Canonical name, e.g. `reverse/lexical`.
    pub name: String,
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seed source.
    pub source: SeedSource,
    /// Whether the cross-encoder stage runs after field-evidence reranking.
    pub cross_encoder: bool,
    /// Parameters the arm sets after `@`, in the order given (each checked by
    /// [`Param::apply`] when the arm is parsed).
    pub overrides: Vec<(Param, f64)>,
}

/// Parse one arm name `MODE/SEEDS[/RERANKER]`. A bare `MODE` means lexical seeds.
///
/// # Errors
/// [`Error::Arm`]: an unknown mode or seed source, or a reranker other than `cross-encoder`
/// (the built-in field-evidence scoring is part of every arm).
pub fn parse_arm(spec: &str) -> Result<Arm> {
    let refuse = |reason: String| Error::Arm {
        spec: spec.to_string(),
        reason,
    };
    if let Some(pipeline) = spec.trim().strip_prefix(PIPELINE_PREFIX) {
        return pipeline_arm(spec, pipeline.trim());
    }
    let mut pieces = spec.split('@');
    let base = pieces.next().unwrap_or_default();
    let mut overrides = Vec::new();
    let mut suffix = String::new();
    for o in pieces {
        let sweep = parse_sweep(o.trim()).map_err(|e| refuse(e.to_string()))?;
        let [v] = sweep.values[..] else {
            return Err(refuse(format!("`{o}` sets more than one value")));
        };
        sweep
            .param
            .apply(&mut RetrieveOptions::default(), v)
            .map_err(|e| refuse(e.to_string()))?;
        suffix.push_str(&format!("@{}={v}", sweep.param.as_str()));
        overrides.push((sweep.param, v));
    }
    let spec = base;
    let parts: Vec<&str> = spec.trim().split('/').map(str::trim).collect();
    if !((1..=3).contains(&parts.len()) && parts.iter().all(|p| !p.is_empty())) {
        return Err(refuse(
            "expected MODE/SEEDS[/RERANKER], e.g. reverse/lexical".into(),
        ));
    }
    let mode: RetrievalMode = parts[0].parse().map_err(|e| refuse(format!("{e}")))?;
    let seeds = parts.get(1).copied().unwrap_or("lexical");
    // An arm is one fixed configuration, so `auto` (which depends on the models loaded) is
    // not an arm's seed source.
    let source = match seeds.parse::<SeedSource>() {
        Ok(s) if s != SeedSource::Auto => s,
        _ => {
            return Err(refuse(format!(
                "seeds `{seeds}` is not one of lexical, dense, hybrid"
            )));
        }
    };
    let reranker = parts.get(2).copied();
    if let Some(r) = reranker.filter(|r| !RERANKERS.contains(r)) {
        return Err(refuse(format!(
            "reranker `{r}` is not available (the only reranker is `cross-encoder`; leave it \
             out for field-evidence scoring, e.g. `{}/{seeds}`)",
            mode.as_str()
        )));
    }
    Ok(Arm {
        name: match reranker {
            Some(r) => format!("{}/{seeds}/{r}{suffix}", mode.as_str()),
            None => format!("{}/{seeds}{suffix}", mode.as_str()),
        },
        mode,
        source,
        cross_encoder: reranker.is_some(),
        overrides,
    })
}

/// Prefix of an arm that runs a retrieval pipeline: `pipeline:NAME`, NAME a preset (`gos`,
/// `skillflow`, `skillrouter`) or a TOML pipeline file (gos-pipeline, docs/pipelines.md).
pub const PIPELINE_PREFIX: &str = "pipeline:";

impl Arm {
    /// The pipeline of a `pipeline:NAME` arm (preset name or TOML path); `None` for other arms.
    pub fn pipeline(&self) -> Option<&str> {
        self.name.strip_prefix(PIPELINE_PREFIX)
    }
}

/// A `pipeline:NAME` arm. The pipeline runs with the base options unchanged (its stages say
/// what they do), so `mode` and `source` are placeholders that nothing reads for this arm, and
/// it is never the baseline unless no arm is a reverse arm.
fn pipeline_arm(spec: &str, pipeline: &str) -> Result<Arm> {
    if pipeline.is_empty() || pipeline.contains(',') {
        return Err(Error::Arm {
            spec: spec.to_string(),
            reason: "expected pipeline:NAME, NAME gos, skillflow, skillrouter or a TOML file"
                .into(),
        });
    }
    Ok(Arm {
        name: format!("{PIPELINE_PREFIX}{pipeline}"),
        mode: RetrievalMode::NoGraph,
        source: SeedSource::Lexical,
        cross_encoder: false,
        overrides: Vec::new(),
    })
}

/// Parse a comma-separated arm list, in order; empty items are skipped.
///
/// # Errors
/// See [`parse_arm`]; [`Error::DuplicateArm`] when two items name the same arm;
/// [`Error::NoArms`] for an empty list.
pub fn parse_arms(list: &str) -> Result<Vec<Arm>> {
    let mut arms: Vec<Arm> = Vec::new();
    for spec in list.split(',').filter(|s| !s.trim().is_empty()) {
        let arm = parse_arm(spec)?;
        if arms.iter().any(|a| a.name == arm.name) {
            return Err(Error::DuplicateArm(arm.name));
        }
        arms.push(arm);
    }
    if arms.is_empty() {
        return Err(Error::NoArms);
    }
    Ok(arms)
}

/// The options of one arm: `base` with the arm's mode, seed source and overrides, nothing
/// else changed.
pub fn arm_options(base: &RetrieveOptions, arm: &Arm) -> RetrieveOptions {
    let mut opts = RetrieveOptions {
        mode: arm.mode,
        seeds: SeedParams {
            source: arm.source,
            ..base.seeds
        },
        ..*base
    };
    for &(param, v) in &arm.overrides {
        // Checked when the arm was parsed, so this cannot fail.
        let _ = param.apply(&mut opts, v);
    }
    opts
}

/// Index of the arm the intervals and the failure analysis compare against: the first reverse
/// arm, or the first arm when none is reverse. 0 for an empty slice.
pub fn baseline_index(arms: &[Arm]) -> usize {
    arms.iter()
        .position(|a| a.mode == RetrievalMode::Reverse)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_names_parse() {
        let arms = parse_arms(DEFAULT_ARMS).unwrap();
        let modes: Vec<RetrievalMode> = arms.iter().map(|a| a.mode).collect();
        assert_eq!(modes, RetrievalMode::ALL);
        assert_eq!(parse_arm(" one-hop ").unwrap().name, "one-hop/lexical");
        assert_eq!(baseline_index(&arms), 0);
        assert_eq!(baseline_index(&parse_arms("no-graph,reverse").unwrap()), 1);
    }

    #[test]
    fn unavailable_arms_are_rejected_with_a_reason() {
        let err = |s: &str| parse_arm(s).unwrap_err().to_string();
        let hybrid = parse_arm("reverse/hybrid").unwrap();
        assert_eq!(
            (hybrid.name.as_str(), hybrid.source),
            ("reverse/hybrid", SeedSource::Hybrid)
        );
        assert_eq!(
            parse_arm("no-graph/dense").unwrap().source,
            SeedSource::Dense
        );
        assert!(err("reverse/lexical/colbert").contains("reranker `colbert`"));
        let ce = parse_arm("one-hop/lexical/cross-encoder").unwrap();
        assert_eq!(ce.name, "one-hop/lexical/cross-encoder");
        assert!(ce.cross_encoder && !parse_arm("one-hop").unwrap().cross_encoder);
        assert!(err("sideways/lexical").contains("sideways"));
        assert!(err("reverse/bm42").contains("not one of lexical, dense, hybrid"));
        assert!(err("reverse/auto").contains("`auto` is not one of lexical, dense, hybrid"));
        assert!(err("reverse//").contains("MODE/SEEDS"));
        assert!(
            parse_arms("reverse,reverse/lexical")
                .unwrap_err()
                .to_string()
                .contains("twice")
        );
        assert!(parse_arms(" , ").is_err());
    }

    #[test]
    fn pipeline_arms_name_their_pipeline_and_are_not_the_baseline() {
        let arms = parse_arms("pipeline:skillflow,reverse/lexical,pipeline: x.toml").unwrap();
        assert_eq!(arms[0].pipeline(), Some("skillflow"));
        assert_eq!(arms[2].name, "pipeline:x.toml");
        assert_eq!(arms[1].pipeline(), None);
        assert_eq!(baseline_index(&arms), 1);
        assert!(parse_arm("pipeline:").is_err());
        assert!(parse_arms("pipeline:gos,pipeline:gos").is_err());
    }

    #[test]
    fn overrides_set_sweepable_parameters() {
        let arm = parse_arm("reverse/lexical@collapse_duplicates=0 @ bundle_floor=0.4").unwrap();
        assert_eq!(
            arm.name,
            "reverse/lexical@collapse_duplicates=0@bundle_floor=0.4"
        );
        let opts = arm_options(&RetrieveOptions::default(), &arm);
        assert!(!opts.collapse_duplicates);
        assert_eq!(opts.bundle_cut.min_top_ratio, 0.4);
        assert_eq!(opts.mode, RetrievalMode::Reverse);
        let err = |s: &str| parse_arm(s).unwrap_err().to_string();
        assert!(err("reverse@collapse_duplicates=2").contains("true or false"));
        assert!(err("reverse@bundle_floor=0.2,0.3").contains("more than one value"));
        assert!(err("reverse@colour=1").contains("unknown parameter"));
        let two = parse_arms("reverse/lexical,reverse/lexical@collapse_duplicates=0").unwrap();
        assert_eq!(baseline_index(&two), 0);
        assert_eq!(
            two[1].overrides,
            vec![(Param::named("collapse_duplicates").unwrap(), 0.0)]
        );
    }

    #[test]
    fn arms_differ_only_in_mode() {
        let base = RetrieveOptions {
            min_seed_score: 3.5,
            ..RetrieveOptions::default()
        };
        for arm in parse_arms(DEFAULT_ARMS).unwrap() {
            let opts = arm_options(&base, &arm);
            assert_eq!(opts.mode, arm.mode);
            assert_eq!(opts.seeds.source, arm.source);
            assert_eq!(
                RetrieveOptions {
                    mode: base.mode,
                    seeds: SeedParams {
                        source: base.seeds.source,
                        ..opts.seeds
                    },
                    ..opts
                },
                base
            );
        }
        let hybrid = arm_options(&base, &parse_arm("forward/hybrid").unwrap());
        assert_eq!(hybrid.seeds.source, SeedSource::Hybrid);
        assert_eq!(hybrid.min_seed_score, 3.5);
    }
}
