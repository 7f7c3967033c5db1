//! The relevance decision: whether a retrieval returns skills at all, and which candidates are
//! worth hydrating.
//!
//! Every floor lives here:
//!
//! | floor | evidence | default | source |
//! | --- | --- | --- | --- |
//! | lexical ([`RelevanceFloors::min_seed_score`]) | best BM25 score / the query's idf mass ([`crate::lexical::LexicalIndex::idf_mass`]) | 0.5 | DEV and unrelated-query measurements, docs/evaluation.md |
//! | dense ([`RelevanceFloors::min_dense_score`]) | best query-skill cosine | 0.30 | same, docs/dense.md |
//! | relative ([`RelevanceFloors::min_relative_score`]) | final score / best final score | 0.05 | keeps faint graph-reached tails out |
//!
//! The lexical floor applies with lexical seeds, the dense floor with dense and hybrid seeds
//! (the ones that compute a cosine). A retrieval with no candidate, below its floor, or whose
//! budgets fit no skill is NO_SKILL_HIT, with the reason in [`Decision`].

use crate::candidate::RankedSkill;

/// Default [`RelevanceFloors::min_seed_score`].
pub const DEFAULT_MIN_SEED_SCORE: f32 = 0.5;

/// Default [`RelevanceFloors::min_dense_score`] (all-MiniLM-L6-v2 cosine; docs/evaluation.md).
pub const DEFAULT_MIN_DENSE_SCORE: f32 = 0.30;

/// Default [`RelevanceFloors::min_relative_score`].
pub const DEFAULT_MIN_RELATIVE_SCORE: f64 = 0.05;

/// The floors of one retrieval (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevanceFloors {
    /// Lexical floor on the best BM25 score divided by the query's idf mass.
    pub min_seed_score: f32,
    /// Dense floor on the best query-skill cosine.
    pub min_dense_score: f32,
    /// Candidates whose final score is below this share of the best final score are not
    /// hydrated (0 keeps all reached candidates).
    pub min_relative_score: f64,
}

impl Default for RelevanceFloors {
    fn default() -> Self {
        RelevanceFloors {
            min_seed_score: DEFAULT_MIN_SEED_SCORE,
            min_dense_score: DEFAULT_MIN_DENSE_SCORE,
            min_relative_score: DEFAULT_MIN_RELATIVE_SCORE,
        }
    }
}

/// The first-stage evidence the floors read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevanceEvidence {
    /// Best BM25 score divided by the query's idf mass, 0 without hits ([`top_seed_score`]).
    pub top_seed_score: f32,
    /// Best cosine between the query and a skill, when the seed source computed cosines.
    pub top_dense_score: Option<f32>,
}

/// Why a retrieval returns no skill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoHitReason {
    /// Neither the first stage nor the graph reached any skill.
    NoCandidates,
    /// The best lexical evidence is under the lexical floor.
    BelowLexicalFloor {
        /// Best BM25 score / idf mass.
        score: f32,
        /// The floor.
        floor: f32,
    },
    /// The best cosine is under the dense floor.
    BelowDenseFloor {
        /// Best cosine.
        cosine: f32,
        /// The floor.
        floor: f32,
    },
    /// Relevant skills exist but the budgets cannot hold one with enough content.
    NothingFits {
        /// Characters the first-ranked skill needs (header lines, the least content, the
        /// blank line before it; [`crate::hydrate::NoFit::needed`]).
        needed: usize,
        /// Characters the budgets leave it after the preamble.
        available: usize,
        /// The whole-context budget ([`crate::hydrate::Budgets::max_context_chars`]).
        max_context_chars: usize,
        /// The per-skill budget ([`crate::hydrate::Budgets::max_chars_per_skill`]).
        max_chars_per_skill: usize,
    },
    /// Relevant skills exist, but every one of them carries content warnings and flagged
    /// skills were excluded ([`crate::RetrieveOptions::exclude_flagged`]).
    AllFlagged {
        /// Relevant skills left out for their warnings.
        flagged: usize,
    },
}

impl std::fmt::Display for NoHitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoHitReason::NoCandidates => f.write_str("no skill matched the query"),
            NoHitReason::BelowLexicalFloor { score, floor } => write!(
                f,
                "best lexical evidence {score:.2} is under the floor {floor:.2}"
            ),
            NoHitReason::BelowDenseFloor { cosine, floor } => {
                write!(f, "best cosine {cosine:.2} is under the floor {floor:.2}")
            }
            NoHitReason::NothingFits {
                needed,
                available,
                max_context_chars,
                max_chars_per_skill,
            } => write!(
                f,
                "the character budgets are too small for any skill: the best skill needs at \
                 least {needed} characters, but max_context_chars {max_context_chars} and \
                 max_chars_per_skill {max_chars_per_skill} leave it {available}"
            ),
            NoHitReason::AllFlagged { flagged } => write!(
                f,
                "all {flagged} relevant skills carry content warnings and flagged skills are \
                 excluded"
            ),
        }
    }
}

/// The outcome of the relevance decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Hydrate the first `eligible` candidates (at most the bundle size).
    Hit {
        /// Candidates at the front of the ranked list above the relative floor.
        eligible: usize,
    },
    /// Return an empty NO_SKILL_HIT bundle.
    NoHit(NoHitReason),
}

/// The lexical evidence: the best BM25 score of `bm25` (sorted by descending score) divided by
/// the query's idf mass `idf_mass`; 0 without hits or with no mass.
pub fn top_seed_score(bm25: &[(usize, f32)], idf_mass: f32) -> f32 {
    match bm25.first() {
        Some(h) if idf_mass > 0.0 => h.1 / idf_mass,
        _ => 0.0,
    }
}

/// How many candidates at the front of `ranked` (sorted by descending final score) reach
/// `min_relative_score` times the best score.
pub fn eligible(ranked: &[RankedSkill], min_relative_score: f64) -> usize {
    ranked.first().map_or(0, |best| {
        let floor = min_relative_score * best.score;
        ranked.iter().take_while(|r| r.score >= floor).count()
    })
}

/// The decision given the first-stage `evidence` and the number of `eligible` candidates
/// ([`eligible`], counted after field-evidence reranking): NO_SKILL_HIT when no candidate is
/// eligible or the floor of the seed source is not met (the dense floor when a cosine was
/// computed, else the lexical one); otherwise hydrate the eligible candidates.
pub fn decide(floors: &RelevanceFloors, evidence: &RelevanceEvidence, eligible: usize) -> Decision {
    if eligible == 0 {
        return Decision::NoHit(NoHitReason::NoCandidates);
    }
    match evidence.top_dense_score {
        Some(cosine) if cosine < floors.min_dense_score => {
            return Decision::NoHit(NoHitReason::BelowDenseFloor {
                cosine,
                floor: floors.min_dense_score,
            });
        }
        None if evidence.top_seed_score < floors.min_seed_score => {
            return Decision::NoHit(NoHitReason::BelowLexicalFloor {
                score: evidence.top_seed_score,
                floor: floors.min_seed_score,
            });
        }
        _ => {}
    }
    Decision::Hit { eligible }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(scores: &[f64]) -> Vec<RankedSkill> {
        scores
            .iter()
            .enumerate()
            .map(|(node, &score)| RankedSkill::scored(node, score))
            .collect()
    }

    #[test]
    fn the_floor_of_the_seed_source_decides() {
        let floors = RelevanceFloors::default();
        let r = eligible(&ranked(&[2.0, 1.0, 0.09, 0.05]), floors.min_relative_score);
        assert_eq!(r, 2);
        let lexical = |s| RelevanceEvidence {
            top_seed_score: s,
            top_dense_score: None,
        };
        assert_eq!(
            decide(&floors, &lexical(0.8), r),
            Decision::Hit { eligible: 2 }
        );
        assert!(matches!(
            decide(&floors, &lexical(0.4), r),
            Decision::NoHit(NoHitReason::BelowLexicalFloor { .. })
        ));
        // With a cosine, only the dense floor applies.
        let dense = RelevanceEvidence {
            top_seed_score: 0.0,
            top_dense_score: Some(0.31),
        };
        assert_eq!(decide(&floors, &dense, r), Decision::Hit { eligible: 2 });
        let dense = RelevanceEvidence {
            top_dense_score: Some(0.29),
            ..dense
        };
        assert!(matches!(
            decide(&floors, &dense, r),
            Decision::NoHit(NoHitReason::BelowDenseFloor { .. })
        ));
        assert_eq!(
            decide(&floors, &lexical(9.0), 0),
            Decision::NoHit(NoHitReason::NoCandidates)
        );
    }

    #[test]
    fn top_seed_score_divides_by_the_idf_mass() {
        assert_eq!(top_seed_score(&[(3, 6.0), (1, 2.0)], 4.0), 1.5);
        assert_eq!(top_seed_score(&[], 4.0), 0.0);
        assert_eq!(top_seed_score(&[(3, 6.0)], 0.0), 0.0);
    }
}
