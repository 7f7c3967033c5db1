//! Adaptive bundle size: how many of the eligible candidates the bundle offers, up to
//! [`crate::hydrate::Budgets::top_n`].
//!
//! A fixed top-N fills every bundle to N skills, so a task that needs two skills gets six it
//! does not need. The cut stops adding skills once the marginal evidence falls below a floor,
//! read off the final scores of the ranked list (field evidence by default, whose scores are
//! non-negative):
//!
//! - **floor** ([`BundleCut::min_top_ratio`]): a candidate whose score is below this share of
//!   the best score ends the bundle;
//! - **gap** ([`BundleCut::min_step_ratio`]): a candidate whose score is below this share of
//!   the score just above it ends the bundle (a cliff in the scores).
//!
//! Both default to 0 (off: the bundle is the first `top_n` eligible candidates, as before);
//! the values to use are chosen by cross-validation on DEV (docs/evaluation.md). The first
//! candidate is always kept: whether anything is relevant at all is the relevance floors'
//! decision ([`crate::relevance`]), not the cut's.

use crate::rerank::RankedSkill;

/// The adaptive cut's floors, each a share in [0, 1]; 0 turns a rule off.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BundleCut {
    /// Least final score, as a share of the best final score, of a bundle skill.
    pub min_top_ratio: f64,
    /// Least final score, as a share of the score of the candidate ranked just above, of a
    /// bundle skill.
    pub min_step_ratio: f64,
}

impl BundleCut {
    /// Whether both rules are off.
    pub fn is_off(&self) -> bool {
        self.min_top_ratio <= 0.0 && self.min_step_ratio <= 0.0
    }

    /// How many of the first `eligible` candidates of `ranked` (in final order) stay: at least
    /// one when `eligible > 0`, `eligible` when the cut is off or the best score is not
    /// positive (then shares of it mean nothing, e.g. cross-encoder logits).
    pub fn keep(&self, ranked: &[RankedSkill], eligible: usize) -> usize {
        let eligible = eligible.min(ranked.len());
        let Some(top) = ranked.first().map(|r| r.score) else {
            return 0;
        };
        if self.is_off() || top.is_nan() || top <= 0.0 {
            return eligible;
        }
        (1..eligible)
            .find(|&i| {
                let s = ranked[i].score;
                s < self.min_top_ratio * top || s < self.min_step_ratio * ranked[i - 1].score
            })
            .unwrap_or(eligible)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(scores: &[f64]) -> Vec<RankedSkill> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &s)| RankedSkill::scored(i, s))
            .collect()
    }

    #[test]
    fn the_floor_and_the_gap_end_the_bundle() {
        let r = ranked(&[2.0, 1.8, 1.1, 1.0, 0.3, 0.29]);
        assert_eq!(BundleCut::default().keep(&r, 6), 6);
        assert_eq!(BundleCut::default().keep(&r, 4), 4);
        let floor = BundleCut {
            min_top_ratio: 0.5,
            min_step_ratio: 0.0,
        };
        // 1.0 is exactly half of 2.0 and stays; 0.3 ends the bundle.
        assert_eq!(floor.keep(&r, 6), 4);
        assert_eq!(floor.keep(&r, 3), 3);
        let gap = BundleCut {
            min_top_ratio: 0.0,
            min_step_ratio: 0.7,
        };
        // 1.1 / 1.8 = 0.61 < 0.7: the cliff after the second skill.
        assert_eq!(gap.keep(&r, 6), 2);
        let both = BundleCut {
            min_top_ratio: 0.1,
            min_step_ratio: 0.5,
        };
        // 0.3 / 1.0 = 0.3 < 0.5.
        assert_eq!(both.keep(&r, 6), 4);
    }

    #[test]
    fn the_first_candidate_always_stays() {
        let strict = BundleCut {
            min_top_ratio: 1.0,
            min_step_ratio: 1.0,
        };
        assert_eq!(strict.keep(&ranked(&[2.0, 1.9]), 2), 1);
        assert_eq!(strict.keep(&ranked(&[2.0, 2.0, 2.0]), 3), 3);
        assert_eq!(strict.keep(&ranked(&[]), 0), 0);
        // Non-positive best scores: no shares, nothing cut.
        assert_eq!(strict.keep(&ranked(&[-1.0, -3.0]), 2), 2);
        assert_eq!(strict.keep(&ranked(&[0.0, 0.0]), 2), 2);
    }
}
