//! From a ranked list to a bundle: which candidates are offered for hydration, with what text
//! and reason, and why there is no bundle when none fits. `gos retrieve` and the pipelines
//! (gos-pipeline) both hydrate through here.

use super::{Alternate, Budgets, Bundle, HydrationInput, SourcePaths, hydrate};
use crate::error::Result;
use crate::relevance::NoHitReason;
use crate::rerank::RankedSkill;
use crate::workspace::Workspace;

/// The candidates offered for hydration: the first `top_n` of a ranked list, flagged skills
/// left out when asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The inputs, in rank order.
    pub inputs: Vec<HydrationInput>,
    /// Skills left out because the build flagged them (with `exclude_flagged`).
    pub flagged: usize,
}

/// The first `top_n` candidates of `ranked` (final order, already cut at the relevance floors)
/// as hydration inputs of `ws`, skipping skills with content warnings when `exclude_flagged`
/// (they do not count toward `top_n`). Each input's content is [`Workspace::content`], its
/// reason `reason(i, candidate)` for the candidate at position `i` of `ranked`, and its
/// alternates `alternates(node)`.
///
/// # Errors
/// [`crate::Error::Index`] when a stored body cannot be read.
pub fn select(
    ws: &Workspace,
    ranked: &[RankedSkill],
    top_n: usize,
    exclude_flagged: bool,
    mut reason: impl FnMut(usize, &RankedSkill) -> String,
    alternates: impl Fn(usize) -> Vec<Alternate>,
) -> Result<Selection> {
    let n = ranked.len().min(top_n);
    let mut inputs = Vec::with_capacity(n);
    let mut flagged = 0;
    for (i, r) in ranked.iter().enumerate() {
        if inputs.len() == n {
            break;
        }
        let node = &ws.manifest().nodes[r.node];
        if exclude_flagged && !node.warnings.is_empty() {
            flagged += 1;
            continue;
        }
        inputs.push(HydrationInput {
            node: r.node,
            id: node.id.clone(),
            name: node.name.clone(),
            source: node.source_path.clone(),
            score: r.score,
            reason: reason(i, r),
            content: ws.content(r.node)?,
            warnings: node.warnings.clone(),
            alternates: alternates(r.node),
        });
    }
    Ok(Selection { inputs, flagged })
}

impl Selection {
    /// The SKILL_HIT bundle of these inputs for `query` ([`hydrate`]), or why there is none:
    /// [`NoHitReason::AllFlagged`] when every candidate was flagged,
    /// [`NoHitReason::NothingFits`] when the first does not fit the budgets.
    ///
    /// # Errors
    /// The [`NoHitReason`] (the caller renders [`super::no_hit`] with it).
    pub fn hydrate(
        &self,
        query: &str,
        budgets: &Budgets,
        paths: &SourcePaths,
    ) -> std::result::Result<Bundle, NoHitReason> {
        if self.inputs.is_empty() {
            return Err(NoHitReason::AllFlagged {
                flagged: self.flagged,
            });
        }
        hydrate(query, &self.inputs, budgets, paths).map_err(|f| NoHitReason::NothingFits {
            needed: f.needed,
            available: f.available,
            max_context_chars: budgets.max_context_chars,
            max_chars_per_skill: budgets.max_chars_per_skill,
        })
    }
}
