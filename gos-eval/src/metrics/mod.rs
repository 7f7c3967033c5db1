//! Retrieval evaluation metrics: pure functions over node indices.
//!
//! Notation (reference notes §4.1, from \[P\] App. E): for a task `t`, `O_t` is its oracle skill
//! set, `A_t = O_t ∩ V` the oracle skills available in the library `V`, `B_t` the returned
//! bundle (the skills actually hydrated after budget fitting) and `T₊ = {t : |A_t| > 0}`. The
//! ranked-list metrics (§4.2, \[SR\]) read the candidate list *before* hydration.
//!
//! Every argument that names a set is a slice of node indices and is read as a set: repeated
//! entries count once. A per-task function returns `None` when the task is outside the metric's
//! task population (for the `T₊` metrics: `A_t` is empty), so that [`mean`] averages over the
//! right denominator. Per-task values of one task are gathered in [`TaskScores`], and
//! [`summarize`] turns the per-task values of one arm into the [`Metric`]s of a report.

use crate::metric::{Aggregate, Metric};

mod equivalent;

pub use equivalent::{first_matching_rank, matched_oracles};
use serde::Serialize;

/// Distinct elements of `a` that also occur in `b`.
fn overlap(a: &[usize], b: &[usize]) -> usize {
    distinct(a).into_iter().filter(|x| b.contains(x)).count()
}

fn distinct(a: &[usize]) -> Vec<usize> {
    let mut v = a.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Available-oracle recall of one task: `|B_t ∩ A_t| / |A_t|` (\[P\] App. E, `R_avail`).
/// `None` when `A_t` is empty (the task is outside `T₊`).
pub fn available_recall(bundle: &[usize], available: &[usize]) -> Option<f64> {
    let a = distinct(available).len();
    (a > 0).then(|| overlap(available, bundle) as f64 / a as f64)
}

/// Full-oracle recall of one task: `|B_t ∩ O_t| / |O_t|`, where `oracle_total = |O_t|` counts
/// the oracle skills missing from the library too, so they count as misses (\[P\] App. E,
/// `R_full`). The bundle holds library skills only, hence `B_t ∩ O_t = B_t ∩ A_t`. `None` when
/// the task has no oracle skill at all.
pub fn full_recall(bundle: &[usize], available: &[usize], oracle_total: usize) -> Option<f64> {
    (oracle_total > 0).then(|| overlap(available, bundle) as f64 / oracle_total as f64)
}

/// Exact completeness of one task: 1 when `A_t ⊆ B_t`, else 0 (\[P\] App. E, `C`). `None`
/// outside `T₊`.
pub fn completeness(bundle: &[usize], available: &[usize]) -> Option<f64> {
    let a = distinct(available).len();
    (a > 0).then(|| f64::from(u8::from(overlap(available, bundle) == a)))
}

/// Bundle precision of one task: `|B_t ∩ A_t| / |B_t|` (\[P\] App. E), 0 for an empty bundle.
/// `None` outside `T₊` (the paper macro-averages over `T₊`).
pub fn bundle_precision(bundle: &[usize], available: &[usize]) -> Option<f64> {
    if distinct(available).is_empty() {
        return None;
    }
    let b = distinct(bundle).len();
    Some(if b == 0 {
        0.0
    } else {
        overlap(bundle, available) as f64 / b as f64
    })
}

/// Numerator and denominator of dependency-pair co-recovery for one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PairCount {
    /// Dependency pairs inside `A_t` with both ends in `B_t`.
    pub recovered: usize,
    /// Dependency pairs inside `A_t`.
    pub total: usize,
}

/// Dependency pairs of one task: among the ordered pairs `(u, v)` joined by at least one
/// dependency edge `u -> v` of the evaluated graph with `u, v ∈ A_t`, how many have both `u`
/// and `v` in `B_t` (\[P\] App. E, `D`). Each ordered pair counts once however many edges
/// (e.g. an I/O edge and a mention edge) join it; self loops are ignored.
pub fn dependency_pairs(
    dependency_edges: &[(usize, usize)],
    available: &[usize],
    bundle: &[usize],
) -> PairCount {
    let mut pairs: Vec<(usize, usize)> = dependency_edges
        .iter()
        .copied()
        .filter(|&(u, v)| u != v && available.contains(&u) && available.contains(&v))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    PairCount {
        recovered: pairs
            .iter()
            .filter(|(u, v)| bundle.contains(u) && bundle.contains(v))
            .count(),
        total: pairs.len(),
    }
}

/// Pooled (micro) co-recovery: `Σ_t recovered_t / Σ_t total_t` (reference notes §4.1 \[I\]; the
/// paper does not say micro or macro). `None` when no task has a dependency pair inside its
/// available oracle set.
pub fn pooled_ratio(counts: &[PairCount]) -> Option<f64> {
    let total: usize = counts.iter().map(|c| c.total).sum();
    let recovered: usize = counts.iter().map(|c| c.recovered).sum();
    (total > 0).then(|| recovered as f64 / total as f64)
}

/// 1-based rank of the best-ranked available oracle skill in `ranked`, if any.
pub fn first_relevant_rank(ranked: &[usize], available: &[usize]) -> Option<usize> {
    ranked
        .iter()
        .position(|n| available.contains(n))
        .map(|p| p + 1)
}

/// Hit@k: 1 when an available oracle skill is among the first `k` of `ranked`, else 0
/// (\[SR\] Hit@1, \[SF\] Hit@k). `None` outside `T₊`.
pub fn hit_at_k(ranked: &[usize], available: &[usize], k: usize) -> Option<f64> {
    if available.is_empty() {
        return None;
    }
    let hit = first_relevant_rank(ranked, available).is_some_and(|r| r <= k);
    Some(f64::from(u8::from(hit)))
}

/// MRR@k: `1 / r` for the rank `r` of the best-ranked available oracle skill when `r ≤ k`,
/// else 0 (\[SR\] MRR@10). `None` outside `T₊`.
pub fn mrr_at_k(ranked: &[usize], available: &[usize], k: usize) -> Option<f64> {
    if available.is_empty() {
        return None;
    }
    Some(match first_relevant_rank(ranked, available) {
        Some(r) if r <= k => 1.0 / r as f64,
        _ => 0.0,
    })
}

/// Recall@k: `|A_t ∩ top-k| / |A_t|` over the ranked list (\[SR\] Recall@K). `None` outside
/// `T₊`.
pub fn recall_at_k(ranked: &[usize], available: &[usize], k: usize) -> Option<f64> {
    let top = &ranked[..k.min(ranked.len())];
    available_recall(top, available)
}

/// Full coverage FC@k: 1 when `A_t ⊆ top-k`, else 0 (\[SR\] FC@10). `None` outside `T₊`.
pub fn full_coverage_at_k(ranked: &[usize], available: &[usize], k: usize) -> Option<f64> {
    let top = &ranked[..k.min(ranked.len())];
    completeness(top, available)
}

/// Mean of the defined values (`None`s are outside the metric's task population); `None` when
/// no value is defined.
pub fn mean(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .flatten()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// The `p`-th percentile (`p` in [0, 100]) by linear interpolation between the two nearest
/// order statistics, position `p/100 · (n − 1)` in the sorted values (Hyndman–Fan type 7, the
/// numpy default). `None` for no values.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = (p.clamp(0.0, 100.0) / 100.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (pos - lo as f64))
}

/// Everything the metrics read about one retrieval of one task.
#[derive(Debug, Clone, Copy)]
pub struct TaskInput<'a> {
    /// `A_t`: available oracle nodes.
    pub available: &'a [usize],
    /// `|O_t|`: oracle skills including those missing from the library.
    pub oracle_total: usize,
    /// Per node of `available`, in its order, the nodes that count as that oracle for the
    /// equivalent metrics: the oracle first, then its near-copies ([`crate::equiv`]).
    /// `[[o] for o in available]` makes the equivalent metrics equal the strict ones.
    pub matches: &'a [Vec<usize>],
    /// `B_t`: hydrated nodes.
    pub bundle: &'a [usize],
    /// The ranked candidate list before hydration, best first.
    pub ranked: &'a [usize],
    /// Dependency edges `(producer, consumer)` of the evaluated graph.
    pub dependency_edges: &'a [(usize, usize)],
    /// Characters of the rendered context.
    pub context_chars: usize,
    /// Retrieval wall-clock time in milliseconds.
    pub latency_ms: f64,
}

/// Per-task values of one arm. `None` marks a task outside the metric's population.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskScores {
    /// [`available_recall`].
    pub recall_available: Option<f64>,
    /// `recall_available` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub recall_available_equiv: Option<f64>,
    /// [`full_recall`].
    pub recall_full: Option<f64>,
    /// `recall_full` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub recall_full_equiv: Option<f64>,
    /// [`completeness`].
    pub completeness: Option<f64>,
    /// `completeness` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub completeness_equiv: Option<f64>,
    /// [`bundle_precision`].
    pub precision: Option<f64>,
    /// `precision` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub precision_equiv: Option<f64>,
    /// [`f_beta`] with β = 1 of `recall_available` and `precision`.
    pub f1: Option<f64>,
    /// `f1` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub f1_equiv: Option<f64>,
    /// [`f_beta`] with β = 2 (recall weighted four times precision): the selection metric of
    /// bundle-size sweeps, where recall alone always prefers the largest bundle and F1 gives up
    /// oracle skills for precision.
    pub f2: Option<f64>,
    /// `f2` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub f2_equiv: Option<f64>,
    /// [`dependency_pairs`].
    pub dependency_pairs: PairCount,
    /// `dependency_pairs` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub dependency_pairs_equiv: PairCount,
    /// [`hit_at_k`] with k = 1.
    pub hit_at_1: Option<f64>,
    /// `hit_at_1` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub hit_at_1_equiv: Option<f64>,
    /// [`mrr_at_k`] with k = 10.
    pub mrr_at_10: Option<f64>,
    /// `mrr_at_10` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub mrr_at_10_equiv: Option<f64>,
    /// [`recall_at_k`] with k = 10.
    pub recall_at_10: Option<f64>,
    /// `recall_at_10` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub recall_at_10_equiv: Option<f64>,
    /// [`recall_at_k`] with k = 20.
    pub recall_at_20: Option<f64>,
    /// `recall_at_20` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub recall_at_20_equiv: Option<f64>,
    /// [`recall_at_k`] with k = 50.
    pub recall_at_50: Option<f64>,
    /// `recall_at_50` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub recall_at_50_equiv: Option<f64>,
    /// [`full_coverage_at_k`] with k = 10.
    pub fc_at_10: Option<f64>,
    /// `fc_at_10` with near-copies of an oracle counted as the oracle, each oracle once
    /// ([`matched_oracles`]).
    pub fc_at_10_equiv: Option<f64>,
    /// Skills in the bundle.
    pub bundle_size: f64,
    /// Characters of the rendered context.
    pub context_chars: f64,
    /// Retrieval time in milliseconds.
    pub latency_ms: f64,
}

/// Van Rijsbergen's F-measure of a recall and a precision,
/// `(1 + β²)·P·R / (β²·P + R)`: β = 1 is their harmonic mean, β = 2 weighs recall four times
/// as much as precision; 0 when both are 0.
pub fn f_beta(recall: f64, precision: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    let denominator = b2 * precision + recall;
    if denominator > 0.0 {
        (1.0 + b2) * precision * recall / denominator
    } else {
        0.0
    }
}

impl TaskScores {
    /// Compute every per-task metric of one retrieval.
    pub fn compute(t: &TaskInput<'_>) -> Self {
        let recall = available_recall(t.bundle, t.available);
        let precision = bundle_precision(t.bundle, t.available);
        let retrieved = equivalent::Retrieved {
            available: t.available,
            matches: t.matches,
            oracle_total: t.oracle_total,
            bundle: t.bundle,
            ranked: t.ranked,
            dependency_edges: t.dependency_edges,
        };
        let pairs_equiv = equivalent::equivalent_pairs(&retrieved);
        let [
            recall_available_equiv,
            recall_full_equiv,
            completeness_equiv,
            precision_equiv,
            hit_at_1_equiv,
            mrr_at_10_equiv,
            recall_at_10_equiv,
            recall_at_20_equiv,
            recall_at_50_equiv,
            fc_at_10_equiv,
        ] = equivalent::equivalent_scores(&retrieved);
        let f_equiv = |beta| {
            recall_available_equiv
                .zip(precision_equiv)
                .map(|(r, p)| f_beta(r, p, beta))
        };
        TaskScores {
            recall_available_equiv,
            recall_full_equiv,
            completeness_equiv,
            precision_equiv,
            f1_equiv: f_equiv(1.0),
            f2_equiv: f_equiv(2.0),
            dependency_pairs_equiv: PairCount {
                recovered: pairs_equiv.0,
                total: pairs_equiv.1,
            },
            hit_at_1_equiv,
            mrr_at_10_equiv,
            recall_at_10_equiv,
            recall_at_20_equiv,
            recall_at_50_equiv,
            fc_at_10_equiv,
            recall_available: recall,
            recall_full: full_recall(t.bundle, t.available, t.oracle_total),
            completeness: completeness(t.bundle, t.available),
            precision,
            f1: recall.zip(precision).map(|(r, p)| f_beta(r, p, 1.0)),
            f2: recall.zip(precision).map(|(r, p)| f_beta(r, p, 2.0)),
            dependency_pairs: dependency_pairs(t.dependency_edges, t.available, t.bundle),
            hit_at_1: hit_at_k(t.ranked, t.available, 1),
            mrr_at_10: mrr_at_k(t.ranked, t.available, 10),
            recall_at_10: recall_at_k(t.ranked, t.available, 10),
            recall_at_20: recall_at_k(t.ranked, t.available, 20),
            recall_at_50: recall_at_k(t.ranked, t.available, 50),
            fc_at_10: full_coverage_at_k(t.ranked, t.available, 10),
            bundle_size: distinct(t.bundle).len() as f64,
            context_chars: t.context_chars as f64,
            latency_ms: t.latency_ms,
        }
    }

    /// The per-task value of `metric`; `None` outside its population or for a metric that
    /// has no per-task value (pooled co-recovery, latency percentiles).
    pub fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::RecallAvailable => self.recall_available,
            Metric::RecallAvailableEquiv => self.recall_available_equiv,
            Metric::RecallFull => self.recall_full,
            Metric::RecallFullEquiv => self.recall_full_equiv,
            Metric::Completeness => self.completeness,
            Metric::CompletenessEquiv => self.completeness_equiv,
            Metric::Precision => self.precision,
            Metric::PrecisionEquiv => self.precision_equiv,
            Metric::F1 => self.f1,
            Metric::F1Equiv => self.f1_equiv,
            Metric::F2 => self.f2,
            Metric::F2Equiv => self.f2_equiv,
            Metric::HitAt1 => self.hit_at_1,
            Metric::HitAt1Equiv => self.hit_at_1_equiv,
            Metric::MrrAt10 => self.mrr_at_10,
            Metric::MrrAt10Equiv => self.mrr_at_10_equiv,
            Metric::RecallAt10 => self.recall_at_10,
            Metric::RecallAt10Equiv => self.recall_at_10_equiv,
            Metric::RecallAt20 => self.recall_at_20,
            Metric::RecallAt20Equiv => self.recall_at_20_equiv,
            Metric::RecallAt50 => self.recall_at_50,
            Metric::RecallAt50Equiv => self.recall_at_50_equiv,
            Metric::FcAt10 => self.fc_at_10,
            Metric::FcAt10Equiv => self.fc_at_10_equiv,
            Metric::BundleSize => Some(self.bundle_size),
            Metric::ContextChars => Some(self.context_chars),
            Metric::CoRecovery
            | Metric::CoRecoveryEquiv
            | Metric::LatencyP50Ms
            | Metric::LatencyP95Ms => None,
        }
    }
}

/// Every [`Metric`] of one arm from its per-task values, as `(metric, value)` in report order
/// ([`Metric::ALL`]). Means run over each metric's population (`T₊` or all tasks), co-recovery
/// is pooled, the latencies are percentiles over all tasks; `None` where the population is
/// empty.
pub fn summarize(tasks: &[TaskScores]) -> Vec<(Metric, Option<f64>)> {
    let latencies: Vec<f64> = tasks.iter().map(|t| t.latency_ms).collect();
    let pairs: Vec<PairCount> = tasks.iter().map(|t| t.dependency_pairs).collect();
    let pairs_equiv: Vec<PairCount> = tasks.iter().map(|t| t.dependency_pairs_equiv).collect();
    Metric::ALL
        .iter()
        .map(|&metric| {
            let value = match metric.aggregate() {
                Aggregate::Pooled if metric.is_equivalent() => pooled_ratio(&pairs_equiv),
                Aggregate::Pooled => pooled_ratio(&pairs),
                Aggregate::Percentile(p) => percentile(&latencies, f64::from(p)),
                Aggregate::Mean => mean(tasks.iter().map(|t| t.get(metric))),
            };
            (metric, value)
        })
        .collect()
}

#[cfg(test)]
mod tests;
