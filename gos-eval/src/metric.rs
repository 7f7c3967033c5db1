//! The one list of evaluation metrics: every name a report, a table, a JSON document, a
//! bootstrap interval or a cross-validation selection uses comes from [`Metric`].
//!
//! A metric has a [`key`](Metric::key) (the `report.json` / `cv.json` key, the row label of
//! `report.md` and `cv.md`, and the name `gos eval --cv-metric` accepts), a human
//! [`label`](Metric::label), a [`direction`](Metric::direction), the decimals its unit
//! deserves ([`decimals`](Metric::decimals)) and a one-line [`doc`](Metric::doc). The
//! definitions themselves are the functions of [`crate::metrics`].

use serde::{Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Whether a larger value of a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A quality score: recall, precision, completeness, MRR.
    HigherIsBetter,
    /// A cost: bundle size, context characters, latency.
    LowerIsBetter,
}

/// How a metric's value comes from the per-task values of one arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// Mean of the per-task values over the metric's task population (`T₊` or all tasks);
    /// the paired bootstrap and cross-validation apply.
    Mean,
    /// `Σ recovered / Σ total` over tasks (dependency-pair co-recovery).
    Pooled,
    /// A percentile of the per-task latencies.
    Percentile(u8),
}

/// One metric of an evaluation report. The declaration order is report order (the rows of
/// `report.md`); maps keyed by `Metric` order by [`key`](Metric::key), so that a
/// `BTreeMap<Metric, _>` can be indexed by the key string and serializes as the key-sorted
/// JSON object it always was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Bundle recall over the available oracles, `R_avail`.
    RecallAvailable,
    /// [`Metric::RecallAvailable`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    RecallAvailableEquiv,
    /// Bundle recall over all oracles, missing ones as misses, `R_full`.
    RecallFull,
    /// [`Metric::RecallFull`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    RecallFullEquiv,
    /// Share of tasks whose bundle holds every available oracle.
    Completeness,
    /// [`Metric::Completeness`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    CompletenessEquiv,
    /// Bundle precision.
    Precision,
    /// [`Metric::Precision`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    PrecisionEquiv,
    /// F1 of bundle recall and precision.
    F1,
    /// [`Metric::F1`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    F1Equiv,
    /// F2 of bundle recall and precision.
    F2,
    /// [`Metric::F2`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    F2Equiv,
    /// Pooled dependency-pair co-recovery.
    CoRecovery,
    /// [`Metric::CoRecovery`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    CoRecoveryEquiv,
    /// Hit@1 of the ranked list.
    HitAt1,
    /// [`Metric::HitAt1`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    HitAt1Equiv,
    /// MRR@10 of the ranked list.
    MrrAt10,
    /// [`Metric::MrrAt10`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    MrrAt10Equiv,
    /// Recall@10 of the ranked list.
    RecallAt10,
    /// [`Metric::RecallAt10`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    RecallAt10Equiv,
    /// Recall@20 of the ranked list.
    RecallAt20,
    /// [`Metric::RecallAt20`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    RecallAt20Equiv,
    /// Recall@50 of the ranked list.
    RecallAt50,
    /// [`Metric::RecallAt50`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    RecallAt50Equiv,
    /// Full coverage FC@10 of the ranked list.
    FcAt10,
    /// [`Metric::FcAt10`] with near-copies of an oracle counted as the oracle
    /// ([`crate::equiv`]).
    FcAt10Equiv,
    /// Skills in the bundle.
    BundleSize,
    /// Characters of the rendered context.
    ContextChars,
    /// Median retrieval latency.
    LatencyP50Ms,
    /// 95th-percentile retrieval latency.
    LatencyP95Ms,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 30] = [
        Metric::RecallAvailable,
        Metric::RecallAvailableEquiv,
        Metric::RecallFull,
        Metric::RecallFullEquiv,
        Metric::Completeness,
        Metric::CompletenessEquiv,
        Metric::Precision,
        Metric::PrecisionEquiv,
        Metric::F1,
        Metric::F1Equiv,
        Metric::F2,
        Metric::F2Equiv,
        Metric::CoRecovery,
        Metric::CoRecoveryEquiv,
        Metric::HitAt1,
        Metric::HitAt1Equiv,
        Metric::MrrAt10,
        Metric::MrrAt10Equiv,
        Metric::RecallAt10,
        Metric::RecallAt10Equiv,
        Metric::RecallAt20,
        Metric::RecallAt20Equiv,
        Metric::RecallAt50,
        Metric::RecallAt50Equiv,
        Metric::FcAt10,
        Metric::FcAt10Equiv,
        Metric::BundleSize,
        Metric::ContextChars,
        Metric::LatencyP50Ms,
        Metric::LatencyP95Ms,
    ];

    /// The metrics that are means of per-task values ([`Aggregate::Mean`]), in report order:
    /// the ones a paired task-level bootstrap and cross-validation apply to.
    pub const PER_TASK: [Metric; 26] = [
        Metric::RecallAvailable,
        Metric::RecallAvailableEquiv,
        Metric::RecallFull,
        Metric::RecallFullEquiv,
        Metric::Completeness,
        Metric::CompletenessEquiv,
        Metric::Precision,
        Metric::PrecisionEquiv,
        Metric::F1,
        Metric::F1Equiv,
        Metric::F2,
        Metric::F2Equiv,
        Metric::HitAt1,
        Metric::HitAt1Equiv,
        Metric::MrrAt10,
        Metric::MrrAt10Equiv,
        Metric::RecallAt10,
        Metric::RecallAt10Equiv,
        Metric::RecallAt20,
        Metric::RecallAt20Equiv,
        Metric::RecallAt50,
        Metric::RecallAt50Equiv,
        Metric::FcAt10,
        Metric::FcAt10Equiv,
        Metric::BundleSize,
        Metric::ContextChars,
    ];

    /// The key of the metric in `report.json` and `cv.json`, its row in `report.md`, and the
    /// name `--cv-metric` takes, e.g. `recall_available`.
    pub const fn key(self) -> &'static str {
        match self {
            Metric::RecallAvailable => "recall_available",
            Metric::RecallAvailableEquiv => "recall_available_equiv",
            Metric::RecallFull => "recall_full",
            Metric::RecallFullEquiv => "recall_full_equiv",
            Metric::Completeness => "completeness",
            Metric::CompletenessEquiv => "completeness_equiv",
            Metric::Precision => "precision",
            Metric::PrecisionEquiv => "precision_equiv",
            Metric::F1 => "f1",
            Metric::F1Equiv => "f1_equiv",
            Metric::F2 => "f2",
            Metric::F2Equiv => "f2_equiv",
            Metric::CoRecovery => "co_recovery",
            Metric::CoRecoveryEquiv => "co_recovery_equiv",
            Metric::HitAt1 => "hit_at_1",
            Metric::HitAt1Equiv => "hit_at_1_equiv",
            Metric::MrrAt10 => "mrr_at_10",
            Metric::MrrAt10Equiv => "mrr_at_10_equiv",
            Metric::RecallAt10 => "recall_at_10",
            Metric::RecallAt10Equiv => "recall_at_10_equiv",
            Metric::RecallAt20 => "recall_at_20",
            Metric::RecallAt20Equiv => "recall_at_20_equiv",
            Metric::RecallAt50 => "recall_at_50",
            Metric::RecallAt50Equiv => "recall_at_50_equiv",
            Metric::FcAt10 => "fc_at_10",
            Metric::FcAt10Equiv => "fc_at_10_equiv",
            Metric::BundleSize => "bundle_size",
            Metric::ContextChars => "context_chars",
            Metric::LatencyP50Ms => "latency_p50_ms",
            Metric::LatencyP95Ms => "latency_p95_ms",
        }
    }

    /// The name a person reads, in the field's terms, e.g. `Recall@10`.
    pub const fn label(self) -> &'static str {
        match self {
            Metric::RecallAvailable => "bundle recall (available oracles)",
            Metric::RecallAvailableEquiv => "bundle recall (available oracles), equivalent",
            Metric::RecallFull => "bundle recall (all oracles)",
            Metric::RecallFullEquiv => "bundle recall (all oracles), equivalent",
            Metric::Completeness => "completeness",
            Metric::CompletenessEquiv => "completeness, equivalent",
            Metric::Precision => "bundle precision",
            Metric::PrecisionEquiv => "bundle precision, equivalent",
            Metric::F1 => "bundle F1",
            Metric::F1Equiv => "bundle F1, equivalent",
            Metric::F2 => "bundle F2",
            Metric::F2Equiv => "bundle F2, equivalent",
            Metric::CoRecovery => "dependency-pair co-recovery",
            Metric::CoRecoveryEquiv => "dependency-pair co-recovery, equivalent",
            Metric::HitAt1 => "Hit@1",
            Metric::HitAt1Equiv => "Hit@1, equivalent",
            Metric::MrrAt10 => "MRR@10",
            Metric::MrrAt10Equiv => "MRR@10, equivalent",
            Metric::RecallAt10 => "Recall@10",
            Metric::RecallAt10Equiv => "Recall@10, equivalent",
            Metric::RecallAt20 => "Recall@20",
            Metric::RecallAt20Equiv => "Recall@20, equivalent",
            Metric::RecallAt50 => "Recall@50",
            Metric::RecallAt50Equiv => "Recall@50, equivalent",
            Metric::FcAt10 => "FC@10",
            Metric::FcAt10Equiv => "FC@10, equivalent",
            Metric::BundleSize => "bundle size",
            Metric::ContextChars => "context characters",
            Metric::LatencyP50Ms => "latency p50 (ms)",
            Metric::LatencyP95Ms => "latency p95 (ms)",
        }
    }

    /// What the metric measures and where its definition comes from (reference notes §4).
    pub const fn doc(self) -> &'static str {
        if self.is_equivalent() {
            return "as its strict form, with a returned skill matching an oracle when it is the \
                    oracle or a near-copy of it (same normalized name, SKILL.md word-trigram \
                    Jaccard > 0.6); each oracle counts once";
        }
        match self {
            Metric::RecallAvailable => {
                "|B ∩ A| / |A| over tasks with an available oracle ([P] App. E, R_avail)"
            }
            Metric::RecallFull => {
                "|B ∩ O| / |O|, oracles missing from the library count as misses ([P] App. E, R_full)"
            }
            Metric::Completeness => "1 when A ⊆ B, else 0 ([P] App. E, C)",
            Metric::Precision => "|B ∩ A| / |B|, 0 for an empty bundle ([P] App. E)",
            Metric::F1 => "harmonic mean of bundle recall and precision",
            Metric::F2 => "F-measure with β = 2: recall weighs four times precision",
            Metric::CoRecovery => {
                "dependency pairs inside A with both ends in B, pooled over tasks ([P] App. E, D)"
            }
            Metric::HitAt1 => "1 when the first ranked skill is an available oracle ([SR])",
            Metric::MrrAt10 => "1 / rank of the first available oracle within the top 10 ([SR])",
            Metric::RecallAt10 => "|A ∩ top-10| / |A| of the ranked list ([SR])",
            Metric::RecallAt20 => "|A ∩ top-20| / |A| of the ranked list ([SR])",
            Metric::RecallAt50 => "|A ∩ top-50| / |A| of the ranked list ([SR])",
            Metric::FcAt10 => "1 when A ⊆ top-10 of the ranked list, else 0 ([SR] FC@10)",
            Metric::BundleSize => "skills hydrated into the bundle, over all tasks",
            Metric::ContextChars => "characters of the rendered context, over all tasks",
            Metric::LatencyP50Ms => "median retrieval wall-clock time in milliseconds",
            Metric::LatencyP95Ms => "95th-percentile retrieval wall-clock time in milliseconds",
            _ => "",
        }
    }

    /// Whether the metric counts near-copies of an oracle as the oracle (a `*_equiv` key).
    pub const fn is_equivalent(self) -> bool {
        self.strict() as u8 != self as u8
    }

    /// The strict form of an equivalent metric (the labelled package only); the metric itself
    /// when it is strict or has no equivalent form.
    pub const fn strict(self) -> Metric {
        match self {
            Metric::RecallAvailableEquiv => Metric::RecallAvailable,
            Metric::RecallFullEquiv => Metric::RecallFull,
            Metric::CompletenessEquiv => Metric::Completeness,
            Metric::PrecisionEquiv => Metric::Precision,
            Metric::F1Equiv => Metric::F1,
            Metric::F2Equiv => Metric::F2,
            Metric::CoRecoveryEquiv => Metric::CoRecovery,
            Metric::HitAt1Equiv => Metric::HitAt1,
            Metric::MrrAt10Equiv => Metric::MrrAt10,
            Metric::RecallAt10Equiv => Metric::RecallAt10,
            Metric::RecallAt20Equiv => Metric::RecallAt20,
            Metric::RecallAt50Equiv => Metric::RecallAt50,
            Metric::FcAt10Equiv => Metric::FcAt10,
            m => m,
        }
    }

    /// The equivalent form of a strict bundle or ranked-list metric; `None` for the costs
    /// (bundle size, context characters, latency) and for an equivalent metric.
    pub const fn equivalent(self) -> Option<Metric> {
        match self {
            Metric::RecallAvailable => Some(Metric::RecallAvailableEquiv),
            Metric::RecallFull => Some(Metric::RecallFullEquiv),
            Metric::Completeness => Some(Metric::CompletenessEquiv),
            Metric::Precision => Some(Metric::PrecisionEquiv),
            Metric::F1 => Some(Metric::F1Equiv),
            Metric::F2 => Some(Metric::F2Equiv),
            Metric::CoRecovery => Some(Metric::CoRecoveryEquiv),
            Metric::HitAt1 => Some(Metric::HitAt1Equiv),
            Metric::MrrAt10 => Some(Metric::MrrAt10Equiv),
            Metric::RecallAt10 => Some(Metric::RecallAt10Equiv),
            Metric::RecallAt20 => Some(Metric::RecallAt20Equiv),
            Metric::RecallAt50 => Some(Metric::RecallAt50Equiv),
            Metric::FcAt10 => Some(Metric::FcAt10Equiv),
            _ => None,
        }
    }

    /// Whether more is better.
    pub const fn direction(self) -> Direction {
        match self {
            Metric::BundleSize
            | Metric::ContextChars
            | Metric::LatencyP50Ms
            | Metric::LatencyP95Ms => Direction::LowerIsBetter,
            _ => Direction::HigherIsBetter,
        }
    }

    /// How the report value comes from the per-task values.
    pub const fn aggregate(self) -> Aggregate {
        match self {
            Metric::CoRecovery | Metric::CoRecoveryEquiv => Aggregate::Pooled,
            Metric::LatencyP50Ms => Aggregate::Percentile(50),
            Metric::LatencyP95Ms => Aggregate::Percentile(95),
            _ => Aggregate::Mean,
        }
    }

    /// Whether the metric is a mean of per-task values (one of [`Metric::PER_TASK`]).
    pub const fn is_per_task(self) -> bool {
        matches!(self.aggregate(), Aggregate::Mean)
    }

    /// Decimals shown in the report tables: 0 for characters, 2 for sizes and latencies, 3
    /// for the scores in [0, 1].
    pub const fn decimals(self) -> usize {
        match self {
            Metric::ContextChars => 0,
            Metric::BundleSize | Metric::LatencyP50Ms | Metric::LatencyP95Ms => 2,
            _ => 3,
        }
    }

    /// `value` with [`decimals`](Metric::decimals) decimals; `n/a` when undefined.
    pub fn format(self, value: Option<f64>) -> String {
        match value {
            None => "n/a".into(),
            Some(v) => format!("{v:.*}", self.decimals()),
        }
    }

    /// Whether `a` is a better value of this metric than `b` (strictly).
    pub fn better(self, a: f64, b: f64) -> bool {
        match self.direction() {
            Direction::HigherIsBetter => a > b,
            Direction::LowerIsBetter => a < b,
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// Why a metric name was refused; its message lists the names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMetric(pub String);

impl fmt::Display for UnknownMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
        write!(
            f,
            "unknown metric `{}` (one of {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownMetric {}

impl FromStr for Metric {
    type Err = UnknownMetric;

    /// The metric of a [`key`](Metric::key), e.g. `recall_available`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Metric::ALL
            .into_iter()
            .find(|m| m.key() == s.trim())
            .ok_or_else(|| UnknownMetric(s.to_string()))
    }
}

impl Ord for Metric {
    /// By [`key`](Metric::key), consistent with [`Borrow<str>`].
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(other.key())
    }
}

impl PartialOrd for Metric {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for Metric {
    /// As its [`key`](Metric::key), consistent with [`Borrow<str>`].
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl Borrow<str> for Metric {
    fn borrow(&self) -> &str {
        self.key()
    }
}

impl PartialEq<str> for Metric {
    fn eq(&self, other: &str) -> bool {
        self.key() == other
    }
}

impl PartialEq<&str> for Metric {
    fn eq(&self, other: &&str) -> bool {
        self.key() == *other
    }
}

impl Serialize for Metric {
    /// As its [`key`](Metric::key).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn keys_are_unique_and_parse_back() {
        for m in Metric::ALL {
            assert_eq!(m.key().parse::<Metric>(), Ok(m));
        }
        let mut keys: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), Metric::ALL.len());
        let e = "recall".parse::<Metric>().unwrap_err().to_string();
        assert!(e.contains("unknown metric `recall`") && e.contains("recall_available"));
    }

    #[test]
    fn per_task_metrics_are_the_means_in_report_order() {
        let means: Vec<Metric> = Metric::ALL
            .into_iter()
            .filter(|m| m.is_per_task())
            .collect();
        assert_eq!(means, Metric::PER_TASK);
        assert_eq!(Metric::CoRecovery.aggregate(), Aggregate::Pooled);
        assert_eq!(Metric::LatencyP95Ms.aggregate(), Aggregate::Percentile(95));
    }

    #[test]
    fn every_bundle_and_ranking_metric_has_an_equivalent_form_after_it() {
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            match m.equivalent() {
                Some(e) => {
                    assert_eq!(Metric::ALL[i + 1], e);
                    assert!(e.is_equivalent() && !m.is_equivalent());
                    assert_eq!(e.strict(), m);
                    assert_eq!(e.key(), format!("{}_equiv", m.key()));
                    assert_eq!(
                        (e.aggregate(), e.direction()),
                        (m.aggregate(), m.direction())
                    );
                }
                None => assert!(m.is_equivalent() || m.direction() == Direction::LowerIsBetter),
            }
        }
        assert_eq!(Metric::BundleSize.equivalent(), None);
        assert_eq!("f2_equiv".parse::<Metric>(), Ok(Metric::F2Equiv));
    }

    #[test]
    fn formatting_and_direction_follow_the_unit() {
        assert_eq!(Metric::ContextChars.format(Some(1234.56)), "1235");
        assert_eq!(Metric::BundleSize.format(Some(7.5)), "7.50");
        assert_eq!(Metric::F2.format(Some(0.46351)), "0.464");
        assert_eq!(Metric::F2.format(None), "n/a");
        assert!(Metric::RecallAvailable.better(0.8, 0.7));
        assert!(Metric::ContextChars.better(100.0, 200.0));
        assert!(!Metric::HitAt1.better(0.5, 0.5));
    }

    #[test]
    fn maps_order_and_index_by_key() {
        let m: BTreeMap<Metric, u8> = [(Metric::RecallAvailable, 1), (Metric::BundleSize, 2)]
            .into_iter()
            .collect();
        assert_eq!(m["recall_available"], 1);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"bundle_size":2,"recall_available":1}"#);
    }
}
