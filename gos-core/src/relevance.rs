//! The relevance decision: whether a retrieval returns skills at all, and which candidates are
//! worth hydrating.
//!
//! Every floor lives here:
//!
//! | floor | evidence | default | source |
//! | --- | --- | --- | --- |
//! | lexical ([`RelevanceFloors::min_seed_score`]) | best BM25 score / the query's idf mass ([`crate::lexical::LexicalIndex::idf_mass`]) | 0.5 | DEV and unrelated-query measurements, docs/evaluation.md |
//! | dense ([`RelevanceFloors::min_dense_score`]) | best query-skill cosine | [`DenseFloor::Auto`]: 0.15 + 0.05·√(2 ln N) for N skills (0.358 at 5,584) | 4-fold CV on DEV + unrelated questions, docs/evaluation.md |
//! | relative ([`RelevanceFloors::min_relative_score`]) | final score / best final score | 0.05 | keeps faint graph-reached tails out |
//!
//! The lexical floor applies with lexical seeds, the dense floor with dense and hybrid seeds
//! (the ones that compute a cosine). A retrieval with no candidate, below its floor, or whose
//! budgets fit no skill is NO_SKILL_HIT, with the reason in [`Decision`].

use crate::candidate::RankedSkill;

/// Default [`RelevanceFloors::min_seed_score`].
pub const DEFAULT_MIN_SEED_SCORE: f32 = 0.5;

/// Standard deviation of one query's cosines over a library's skills when no skill answers
/// the query (all-MiniLM-L6-v2): 0.055 on the real library (5,584 skills) and 0.052 on
/// fixtures/library (36 skills), each the mean over the 60 questions of
/// fixtures/unrelated-questions.txt (docs/evaluation.md, "Relevance floors").
pub const DENSE_NOISE_SD: f32 = 0.05;

/// Margin of [`DenseFloor::Auto`] over the chance best cosine `DENSE_NOISE_SD·√(2 ln N)`:
/// chosen by 4-fold CV over the 48 DEV tasks and the 60 unrelated questions on the real
/// library (folds chose a floor of 0.34 to 0.36 there, 0.36 three times: 0.36 − 0.05·√(2 ln
/// 5584) ≈ 0.15).
pub const DENSE_FLOOR_MARGIN: f32 = 0.15;

/// The dense relevance floor: a fixed cosine, or one that grows with the library.
///
/// Why it grows: the best of N cosines of a question no skill answers is about
/// `μ + σ·√(2 ln N)` (the expected maximum of N Gaussian draws), so a fixed floor that keeps
/// unrelated questions out of 5,584 skills (0.36) also keeps real tasks out of a small library
/// (a fixture task whose best cosine is 0.353 among 36 skills), and one right for a small
/// library lets a quarter of unrelated questions through in a large one (15 of 60 at 0.30).
/// Measured on both libraries, `DENSE_FLOOR_MARGIN + DENSE_NOISE_SD·√(2 ln N)` separates
/// tasks from unrelated questions as well as the best fixed floor of each (docs/evaluation.md).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum DenseFloor {
    /// `DENSE_FLOOR_MARGIN + DENSE_NOISE_SD·√(2 ln N)` for a library of N skills (N ≥ 2):
    /// 0.284 for 36 skills, 0.336 for 1,000, 0.358 for 5,584, 0.390 for 100,000, 0.413 for
    /// 1,000,000.
    #[default]
    Auto,
    /// A fixed cosine.
    Cosine(f32),
}

impl DenseFloor {
    /// The floor as a cosine for a library of `skills` skills.
    pub fn cosine(self, skills: usize) -> f32 {
        match self {
            DenseFloor::Cosine(c) => c,
            DenseFloor::Auto => {
                let n = skills.max(2) as f32;
                DENSE_FLOOR_MARGIN + DENSE_NOISE_SD * (2.0 * n.ln()).sqrt()
            }
        }
    }
}

impl std::fmt::Display for DenseFloor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DenseFloor::Auto => f.write_str("auto"),
            DenseFloor::Cosine(c) => write!(f, "{c}"),
        }
    }
}

impl std::str::FromStr for DenseFloor {
    type Err = String;

    /// `auto` or a finite number (a cosine, negative values allowed).
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(DenseFloor::Auto);
        }
        match s.parse::<f32>() {
            Ok(c) if c.is_finite() => Ok(DenseFloor::Cosine(c)),
            _ => Err(format!(
                "`{s}` is not a dense floor: give `auto` (grows with the library) or a cosine \
                 such as 0.36"
            )),
        }
    }
}

/// Default [`RelevanceFloors::min_relative_score`].
pub const DEFAULT_MIN_RELATIVE_SCORE: f64 = 0.05;

/// The floors of one retrieval (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevanceFloors {
    /// Lexical floor on the best BM25 score divided by the query's idf mass.
    pub min_seed_score: f32,
    /// Dense floor on the best query-skill cosine (already resolved for the library,
    /// [`DenseFloor::cosine`]).
    pub min_dense_score: f32,
    /// Candidates whose final score is below this share of the best final score are not
    /// hydrated (0 keeps all reached candidates).
    pub min_relative_score: f64,
}

impl RelevanceFloors {
    /// The default floors for a library of `skills` skills.
    pub fn for_library(skills: usize) -> Self {
        RelevanceFloors {
            min_seed_score: DEFAULT_MIN_SEED_SCORE,
            min_dense_score: DenseFloor::Auto.cosine(skills),
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
        let floors = RelevanceFloors {
            min_dense_score: 0.30,
            ..RelevanceFloors::for_library(36)
        };
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
    fn the_automatic_dense_floor_grows_with_the_library() {
        let auto = |n| DenseFloor::Auto.cosine(n);
        assert!((auto(36) - 0.2838).abs() < 1e-4, "{}", auto(36));
        assert!((auto(5584) - 0.3577).abs() < 1e-4, "{}", auto(5584));
        assert!(
            (auto(1_000_000) - 0.4128).abs() < 1e-4,
            "{}",
            auto(1_000_000)
        );
        // Tiny libraries do not take the log of 0 or 1.
        assert_eq!(auto(0), auto(2));
        assert_eq!(DenseFloor::Cosine(0.3).cosine(5584), 0.3);
        assert_eq!("auto".parse::<DenseFloor>(), Ok(DenseFloor::Auto));
        assert_eq!("0.36".parse::<DenseFloor>(), Ok(DenseFloor::Cosine(0.36)));
        assert_eq!("-1".parse::<DenseFloor>(), Ok(DenseFloor::Cosine(-1.0)));
        let err = "NaN".parse::<DenseFloor>().unwrap_err();
        assert!(err.contains("`NaN` is not a dense floor"), "{err}");
        assert_eq!(DenseFloor::Auto.to_string(), "auto");
        assert_eq!(
            RelevanceFloors::for_library(5584).min_dense_score,
            auto(5584)
        );
    }

    #[test]
    fn top_seed_score_divides_by_the_idf_mass() {
        assert_eq!(top_seed_score(&[(3, 6.0), (1, 2.0)], 4.0), 1.5);
        assert_eq!(top_seed_score(&[], 4.0), 0.0);
        assert_eq!(top_seed_score(&[(3, 6.0)], 0.0), 0.0);
    }
}
