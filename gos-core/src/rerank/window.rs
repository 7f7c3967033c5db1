//! The window of the cross-encoder reranker ([`super::CrossEncoderReranker`]): its parameters
//! and the reordering rule, which need no model.
//!
//! After diffusion and field-evidence reranking, the top R candidates are scored by a
//! cross-encoder against the query and reordered.
//!
//! Contract, for a ranked list sorted by descending field-evidence score `s`:
//!
//! 1. **Window.** The first `K = min(R, eligible)` candidates, where `eligible` is the number
//!    of candidates above the relative-score floor. Only they are scored; the set of
//!    candidates above the floor therefore does not change, and neither does any candidate
//!    after the window.
//! 2. **Text view.** Each candidate's text (name, description, body:
//!    [`crate::Workspace::cross_encoder_text`]) cut to `max_chars` characters (default 2,048;
//!    SkillFlow's deep reranker read 4,096), then tokenized with the query by the model
//!    ([`super::PairScorer`]).
//! 3. **Score.** `mixed = w * sigmoid(ce) + (1 - w) * s / s_max`
//!    ([`super::mix::cross_encoder_mix`]), `w` = [`StageParams::weight`]
//!    in [0, 1], `ce` the cross-encoder score ([`super::PairScorer::score_pairs_batched`]) and `s_max` the best
//!    field-evidence score. `w = 1` is the cross-encoder alone; `w = 0` keeps the old order.
//!    The sigmoid maps the logit of a one-label ms-marco or bge model to a probability, so
//!    both terms lie in [0, 1].
//! 4. **Reserved share for prerequisites.** Of the first `top_n` (bundle size) positions,
//!    `round(reserved_share * top_n)` are kept for *graph-added* candidates ([`graph_added`]:
//!    non-seeds that the graph ranked above their first-stage rank) that were inside the first `top_n` before the stage, in their old order. So a
//!    prerequisite that the graph put into the bundle is not pushed out merely because its
//!    text matches the query less; other candidates fill the remaining positions by `mixed`.
//! 5. **Order and scores.** The first `min(top_n, K)` positions (sorted by `mixed`) are
//!    followed by the rest of the window (by `mixed`), then by the candidates after the window
//!    in their old order. Scores become `mixed`, clamped to be non-increasing down the list;
//!    candidates after the window are scaled into `[0, min mixed]` in their old proportions.

use super::RankedSkill;
use super::mix::cross_encoder_mix;
use crate::diffuse::RetrievalMode;
use crate::error::{Error, Result};

/// Default pairs per cross-encoder forward pass: 16 pairs of ~512 tokens keep peak memory
/// under ~200 MiB for a 6-layer 384-wide BERT on the CPU (gos-models' cross-encoders batch by
/// this value too).
pub const DEFAULT_BATCH_SIZE: usize = 16;

/// Default window R: candidates scored per query (the SkillRouter and SkillFlow rerankers read
/// their top 20-50; 32 fits one or two CPU batches).
pub const DEFAULT_TOP: usize = 32;

/// Default characters of a candidate's text view (SkillFlow's deep reranker used 4,096; half
/// of that keeps a 512-token pair mostly document with a long task description).
pub const DEFAULT_MAX_CHARS: usize = 2048;

/// Default weight of the cross-encoder in the mixed score. No public cross-encoder could be
/// installed offline here to calibrate it (docs/cross-encoder.md), so the default is an even
/// mix that keeps the graph's evidence.
pub const DEFAULT_WEIGHT: f64 = 0.5;

/// Default share of the bundle reserved for graph-added prerequisites: 0.25 of 8 slots = 2.
pub const DEFAULT_RESERVED_SHARE: f64 = 0.25;

/// Parameters of the stage (see the module docs for what each does).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageParams {
    /// Window R: most candidates scored, >= 1.
    pub top: usize,
    /// Characters of each candidate's text view, >= 1.
    pub max_chars: usize,
    /// Weight `w` of the cross-encoder probability in [0, 1].
    pub weight: f64,
    /// Share of the bundle's `top_n` positions kept for graph-added candidates, in [0, 1].
    pub reserved_share: f64,
    /// Pairs per forward pass, >= 1.
    pub batch_size: usize,
}

impl Default for StageParams {
    fn default() -> Self {
        StageParams {
            top: DEFAULT_TOP,
            max_chars: DEFAULT_MAX_CHARS,
            weight: DEFAULT_WEIGHT,
            reserved_share: DEFAULT_RESERVED_SHARE,
            batch_size: DEFAULT_BATCH_SIZE,
        }
    }
}

impl StageParams {
    /// Check every field's range.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let bad = |name: &'static str, reason: &str| {
            Err(Error::InvalidOption {
                name,
                reason: reason.to_string(),
            })
        };
        if self.top == 0 {
            return bad("StageParams::top", "must be at least 1");
        }
        if self.max_chars == 0 {
            return bad("StageParams::max_chars", "must be at least 1");
        }
        if !(0.0..=1.0).contains(&self.weight) {
            return bad("StageParams::weight", "must lie in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.reserved_share) {
            return bad("StageParams::reserved_share", "must lie in [0, 1]");
        }
        if self.batch_size == 0 {
            return bad("StageParams::batch_size", "must be at least 1");
        }
        Ok(())
    }
}

/// One window candidate as [`order_window`] sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowItem {
    /// Score before the stage (field evidence), >= 0.
    pub prior: f64,
    /// Cross-encoder score (logit scale).
    pub ce: f32,
    /// Graph-added candidate eligible for a reserved position.
    pub protected: bool,
}

/// New order of a window, given in its old order (descending prior): `(old index, mixed
/// score)` pairs, steps 3-5 of the module docs (scores not yet clamped).
pub fn order_window(items: &[WindowItem], top_n: usize, params: &StageParams) -> Vec<(usize, f64)> {
    let prior_max = items.iter().map(|i| i.prior).fold(0.0, f64::max);
    let w = params.weight;
    let mixed: Vec<f64> = items
        .iter()
        .map(|i| cross_encoder_mix(w, i.ce, i.prior, prior_max))
        .collect();
    let by_mixed = |a: &usize, b: &usize| mixed[*b].total_cmp(&mixed[*a]).then(a.cmp(b));
    let block = top_n.min(items.len());
    let reserved = (params.reserved_share * top_n as f64).round() as usize;
    let kept: Vec<usize> = (0..block)
        .filter(|&i| items[i].protected)
        .take(reserved)
        .collect();
    let mut others: Vec<usize> = (0..items.len()).filter(|i| !kept.contains(i)).collect();
    others.sort_by(by_mixed);
    let fill = block - kept.len();
    let mut head: Vec<usize> = kept
        .iter()
        .copied()
        .chain(others[..fill].iter().copied())
        .collect();
    head.sort_by(by_mixed);
    head.into_iter()
        .chain(others[fill..].iter().copied())
        .map(|i| (i, mixed[i]))
        .collect()
}

/// Whether candidate `r`, at 1-based position `pre_rank` before a reranker, was added by the
/// graph: in a mode that uses the graph, a non-seed with graph mass that the graph ranked above
/// its first-stage rank (or that the first stage never found).
pub fn graph_added(mode: RetrievalMode, pre_rank: usize, r: &RankedSkill) -> bool {
    mode != RetrievalMode::NoGraph
        && r.seed_rank.is_none()
        && r.graph_score > 0.0
        && r.pool_rank.is_none_or(|l| l > pre_rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(prior: f64, ce: f32, protected: bool) -> WindowItem {
        WindowItem {
            prior,
            ce,
            protected,
        }
    }

    #[test]
    fn cross_encoder_weight_one_orders_by_model_and_zero_keeps_order() {
        let items = [
            item(3.0, -2.0, false),
            item(2.0, 5.0, false),
            item(1.0, 0.0, false),
        ];
        let p = |weight| StageParams {
            weight,
            reserved_share: 0.0,
            ..StageParams::default()
        };
        let order: Vec<usize> = order_window(&items, 8, &p(1.0))
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(order, [1, 2, 0]);
        let order: Vec<usize> = order_window(&items, 8, &p(0.0))
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(order, [0, 1, 2]);
        let mixed = order_window(&items, 8, &p(0.5));
        // 0.5 * sigmoid(5) + 0.5 * 2/3 for the second candidate.
        let want = 0.5 / (1.0 + (-5.0f64).exp()) + 0.5 * 2.0 / 3.0;
        assert_eq!(mixed[0].0, 1);
        assert!((mixed[0].1 - want).abs() < 1e-12);
    }

    #[test]
    fn cross_encoder_reserved_share_keeps_graph_added_prerequisites_in_the_bundle() {
        // Bundle of 2; the protected candidate at old position 1 has a poor model score.
        let items = [
            item(3.0, 1.0, false),
            item(2.9, -9.0, true),
            item(1.0, 4.0, false),
            item(0.5, 6.0, false),
        ];
        let p = |reserved_share| StageParams {
            weight: 1.0,
            reserved_share,
            ..StageParams::default()
        };
        let order: Vec<usize> = order_window(&items, 2, &p(0.0))
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(order, [3, 2, 0, 1]);
        let order: Vec<usize> = order_window(&items, 2, &p(0.5))
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(order, [3, 1, 2, 0]);
        // A protected candidate outside the old bundle gets no reserved slot.
        let items = [
            item(3.0, 1.0, false),
            item(2.0, 2.0, false),
            item(1.0, -9.0, true),
        ];
        let order: Vec<usize> = order_window(&items, 2, &p(0.5))
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(order, [1, 0, 2]);
    }

    #[test]
    fn cross_encoder_stage_params_are_validated() {
        assert!(StageParams::default().validate().is_ok());
        let bad = StageParams {
            weight: 1.5,
            ..StageParams::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("StageParams::weight")
        );
        let bad = StageParams {
            top: 0,
            ..StageParams::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("StageParams::top")
        );
    }
}
