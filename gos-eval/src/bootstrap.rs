//! Paired task-level bootstrap for comparing two retrieval arms.
//!
//! GoS reports "a paired task-level bootstrap over the tasks, 5,000 resamples" with 95%
//! intervals and no seed (\[P\] App. E, reference notes §4.1). Here: for each task `t` the
//! difference `d_t = x_t − y_t` of one per-task metric between an arm and the baseline; each
//! resample draws `n` tasks with replacement and takes the mean of their `d_t`; the interval is
//! the percentile interval of those resample means ([`crate::metrics::percentile`], type 7).
//! The random source is a fixed-seed [`SplitMix64`], so a report is reproducible bit for bit
//! from its recorded seed and resample count.

use crate::metrics::percentile;
use gos_core::rng::SplitMix64;
use serde::Serialize;

/// Resamples per interval in GoS (\[P\] App. E).
pub const DEFAULT_RESAMPLES: usize = 5_000;

/// Seed used unless another is asked for; the paper gives none, so we fix and record one.
pub const DEFAULT_SEED: u64 = 0;

/// Confidence level of the harness's intervals (95%, as in GoS).
pub const LEVEL: f64 = 0.95;

/// A bootstrap interval of a mean difference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// Observed mean of the per-task differences.
    pub mean_diff: f64,
    /// Lower percentile bound.
    pub lo: f64,
    /// Upper percentile bound.
    pub hi: f64,
}

/// Percentile bootstrap interval of the mean of `diffs` at confidence `level` (e.g. 0.95):
/// `resamples` means of `n` draws with replacement, then the `(1 − level)/2` and
/// `(1 + level)/2` percentiles of those means. `None` when `diffs` is empty or `resamples` is
/// 0. Cost: `O(resamples · n)` time, `O(resamples)` memory.
pub fn mean_interval(diffs: &[f64], resamples: usize, seed: u64, level: f64) -> Option<Interval> {
    let n = diffs.len();
    if n == 0 || resamples == 0 {
        return None;
    }
    let mean_diff = diffs.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix64::new(seed);
    let means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| diffs[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    let tail = (1.0 - level.clamp(0.0, 1.0)) / 2.0 * 100.0;
    Some(Interval {
        mean_diff,
        lo: percentile(&means, tail)?,
        hi: percentile(&means, 100.0 - tail)?,
    })
}

/// Paired bootstrap of `arm − baseline` over tasks: the pairs where both values are defined
/// (`Some`) form the per-task differences, then [`mean_interval`]. The two slices are indexed
/// by task and must have the same length.
///
/// # Panics
/// When the slices differ in length (a caller bug: both come from the same records).
pub fn paired_interval(
    arm: &[Option<f64>],
    baseline: &[Option<f64>],
    resamples: usize,
    seed: u64,
    level: f64,
) -> Option<Interval> {
    assert_eq!(arm.len(), baseline.len(), "paired values need one per task");
    let diffs: Vec<f64> = arm
        .iter()
        .zip(baseline)
        .filter_map(|(a, b)| Some((*a)? - (*b)?))
        .collect();
    mean_interval(&diffs, resamples, seed, level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_published_sequence() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(7);
        let mut seen = [0usize; 3];
        for _ in 0..3_000 {
            seen[rng.below(3)] += 1;
        }
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        assert_eq!(SplitMix64::new(1).below(1), 0);
    }

    #[test]
    fn constant_difference_gives_a_zero_width_interval() {
        let arm = [Some(0.7), Some(0.4), None, Some(0.9)];
        let base = [Some(0.6), Some(0.3), Some(0.2), Some(0.8)];
        let i = paired_interval(&arm, &base, DEFAULT_RESAMPLES, DEFAULT_SEED, 0.95).unwrap();
        assert!((i.mean_diff - 0.1).abs() < 1e-12);
        assert!((i.hi - i.lo).abs() < 1e-12, "{i:?}");
        assert!((i.lo - i.mean_diff).abs() < 1e-12, "{i:?}");
    }

    #[test]
    fn known_small_cases() {
        // d = (0, 1): resample means are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4, so the
        // 2.5% and 97.5% percentiles are the extremes.
        let i = mean_interval(&[0.0, 1.0], 5_000, 0, 0.95).unwrap();
        assert_eq!((i.mean_diff, i.lo, i.hi), (0.5, 0.0, 1.0));
        // d = (1, 2, 3): P(mean = 1) = P(mean = 3) = 1/27 > 2.5%.
        let i = mean_interval(&[1.0, 2.0, 3.0], 5_000, 0, 0.95).unwrap();
        assert_eq!((i.mean_diff, i.lo, i.hi), (2.0, 1.0, 3.0));
        // d = (0, 0, 0, 1) at level 0: both bounds are the median of the resample means; it
        // lies on the 1/4 grid and near the mean.
        let i = mean_interval(&[0.0, 0.0, 0.0, 1.0], 5_000, 0, 0.0).unwrap();
        assert_eq!(i.lo, i.hi);
        assert!([0.0, 0.25, 0.5].contains(&i.lo), "{i:?}");
    }

    #[test]
    fn same_seed_same_interval_and_empty_input() {
        let d = [0.3, -0.1, 0.0, 0.5, 0.2];
        let a = mean_interval(&d, 500, 3, 0.95);
        assert_eq!(a, mean_interval(&d, 500, 3, 0.95));
        let a = a.unwrap();
        assert!(a.lo <= a.mean_diff && a.mean_diff <= a.hi);
        assert_eq!(mean_interval(&[], 500, 0, 0.95), None);
        assert_eq!(paired_interval(&[None], &[Some(1.0)], 500, 0, 0.95), None);
    }
}
