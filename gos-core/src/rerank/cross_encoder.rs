//! The cross-encoder reranker: the window of [`super::window`] scored by a [`PairScorer`].

use super::scorer::PairScorer;
use super::window::{StageParams, WindowItem, order_window};
use super::{RankedSkill, RerankContext, Reranker};
use crate::error::Result;
use crate::rerank::graph_added;
use crate::text::truncate_chars;

/// The cross-encoder as a [`Reranker`] (module docs for what it does).
pub struct CrossEncoderReranker<'a> {
    model: &'a dyn PairScorer,
    params: StageParams,
}

impl<'a> CrossEncoderReranker<'a> {
    /// A reranker scoring with `model` under `params`.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOption`] for parameters out of range ([`StageParams::validate`]).
    pub fn new(model: &'a dyn PairScorer, params: StageParams) -> Result<Self> {
        params.validate()?;
        Ok(CrossEncoderReranker { model, params })
    }
}

impl Reranker for CrossEncoderReranker<'_> {
    /// Scores the window `K = min(R, ctx.eligible)` and reorders it (module docs); each scored
    /// candidate gets its [`RankedSkill::cross_encoder_score`].
    fn rerank(&self, ranked: &mut Vec<RankedSkill>, ctx: &RerankContext<'_>) -> Result<()> {
        let params = &self.params;
        let k = params.top.min(ctx.eligible).min(ranked.len());
        if k == 0 {
            return Ok(());
        }
        let texts: Vec<String> = ranked[..k]
            .iter()
            .map(|r| (ctx.text)(r).map(|t| truncate_chars(&t, params.max_chars).to_string()))
            .collect::<Result<_>>()?;
        let docs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = self
            .model
            .score_pairs_batched(ctx.query.text, &docs, params.batch_size)?;
        if scores.len() != docs.len() {
            return Err(crate::Error::Model {
                path: self.model.model_name().into(),
                reason: format!(
                    "the pair scorer returned {} scores for {} documents",
                    scores.len(),
                    docs.len()
                ),
            });
        }
        let items: Vec<WindowItem> = ranked[..k]
            .iter()
            .zip(&scores)
            .enumerate()
            .map(|(i, (r, &s))| WindowItem {
                prior: r.score,
                ce: s,
                protected: graph_added(ctx.mode, i + 1, r),
            })
            .collect();
        let order = order_window(&items, ctx.top_n, params);
        let old: Vec<RankedSkill> = ranked.drain(..k).collect();
        let mut head: Vec<RankedSkill> = order
            .iter()
            .map(|&(i, m)| RankedSkill {
                score: m,
                cross_encoder_score: Some(scores[i]),
                ..old[i].clone()
            })
            .collect();
        for i in 1..head.len() {
            head[i].score = head[i].score.min(head[i - 1].score);
        }
        let floor = head.last().map(|r| r.score).unwrap_or(0.0);
        let tail_max = ranked.first().map(|r| r.score).unwrap_or(0.0);
        for r in ranked.iter_mut() {
            // `min(floor)`: `floor * s / s` can round one ulp above `floor`.
            r.score = if tail_max > 0.0 {
                (floor * r.score / tail_max).min(floor)
            } else {
                0.0
            };
        }
        head.append(ranked);
        *ranked = head;
        Ok(())
    }
}
