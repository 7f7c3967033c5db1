//! Failure analysis: why an oracle skill is missing from an arm's bundle.

use crate::run::TaskRecord;
use serde::Serialize;

/// Why an oracle skill is missing from an arm's bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// In the workspace but not in the BM25 pool (it could only arrive through the graph and
    /// did not make the bundle).
    SeedMiss,
    /// In the BM25 pool, hence ranked, but not hydrated (top-N, budgets, relevance floor).
    BudgetCut,
    /// Lost to a near-duplicate: the collapse dropped it in favour of a better-ranked copy
    /// of it, or it was cut although it would have made the bundle had the slots spent on
    /// second copies of other skills been free.
    DuplicateSlot,
    /// Not a workspace skill.
    NotInWorkspace,
}

impl FailureClass {
    /// Every class, in report order.
    pub const ALL: [FailureClass; 4] = [
        FailureClass::SeedMiss,
        FailureClass::BudgetCut,
        FailureClass::DuplicateSlot,
        FailureClass::NotInWorkspace,
    ];

    /// The name used in `report.json` and `report.md`, e.g. `seed_miss`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::SeedMiss => "seed_miss",
            FailureClass::BudgetCut => "budget_cut",
            FailureClass::DuplicateSlot => "duplicate_slot",
            FailureClass::NotInWorkspace => "not_in_workspace",
        }
    }
}

/// An oracle skill an arm left out of the bundle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// Package id.
    pub oracle: String,
    /// Skill name.
    pub name: String,
    /// Classification.
    pub class: FailureClass,
    /// Rank in the BM25 pool.
    pub lexical_rank: Option<usize>,
    /// Rank in the final ranked list.
    pub ranked_rank: Option<usize>,
}

/// The oracle skills of `task` that arm `arm` (an index into `task.arms`) left out of its
/// bundle, classified, in oracle order.
pub fn failures(task: &TaskRecord, arm: usize) -> Vec<Failure> {
    let a = &task.arms[arm];
    task.oracles
        .iter()
        .enumerate()
        .filter(|(_, o)| o.node.is_none_or(|n| !a.bundle_nodes.contains(&n)))
        .map(|(i, o)| {
            let (lexical_rank, ranked_rank) = (a.oracle_lexical_ranks[i], a.oracle_ranks[i]);
            let freed = ranked_rank
                .is_some_and(|k| k - a.oracle_duplicates_above[i] <= a.bundle_nodes.len());
            let class = match (o.node, lexical_rank) {
                (None, _) => FailureClass::NotInWorkspace,
                (Some(n), _) if a.collapsed.contains(&n) => FailureClass::DuplicateSlot,
                (Some(_), None) => FailureClass::SeedMiss,
                (Some(_), Some(_)) if freed => FailureClass::DuplicateSlot,
                (Some(_), Some(_)) => FailureClass::BudgetCut,
            };
            Failure {
                oracle: o.dir.clone(),
                name: o.name.clone(),
                class,
                lexical_rank,
                ranked_rank,
            }
        })
        .collect()
}
