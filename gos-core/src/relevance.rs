//! The relevance decision: whether a retrieval returns skills at all, and which candidates are
//! worth hydrating.
//!
//! Every floor lives here:
//!
//! | floor | evidence | default | source |
//! | --- | --- | --- | --- |
//! | lexical ([`RelevanceFloors::min_seed_score`]) | best BM25 score / the query's idf mass ([`crate::index::lexical::LexicalIndex::idf_mass`]) | 0.5 | DEV and unrelated-query measurements, docs/evaluation.md |
//! | dense ([`RelevanceFloors::min_dense_score`]) | best query-skill cosine | [`DenseFloor::Auto`]: 0.15 + 0.05·√(2 ln N) for N skills (0.358 at 5,584) | 4-fold CV on DEV + unrelated questions, docs/evaluation.md |
//! | coverage ([`RelevanceFloors::min_coverage`]) | overlap of the query with the best hits' names and descriptions ([`LexicalCoverage::overlap`]) | 0 (off) | 0.17 separates best on the real library but not on the fixture library, docs/evaluation.md |
//! | relative ([`RelevanceFloors::min_relative_score`]) | final score / best final score | 0.05 | keeps faint graph-reached tails out |
//!
//! The lexical and coverage floors apply with lexical seeds, the dense floor with dense and
//! hybrid seeds (the ones that compute a cosine). A retrieval with no candidate, below its floor, or whose
//! budgets fit no skill is NO_SKILL_HIT, with the reason in [`Decision`].

use crate::error::Result;
use crate::rerank::RankedSkill;
use std::collections::{BTreeMap, BTreeSet};

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

/// Default [`RelevanceFloors::min_coverage`]: 0, off. On the real library a 4-fold CV over
/// the DEV tasks and the unrelated questions chose 0.17 (half the unrelated questions turned
/// away, no DEV task), but on the fixture library a task lies below the unrelated question,
/// so the floor does not carry across libraries (docs/evaluation.md, "Relevance floors").
pub const DEFAULT_MIN_COVERAGE: f32 = 0.0;

/// How many of the best BM25 hits the coverage evidence reads ([`lexical_coverage`]).
pub const COVERAGE_HITS: usize = 5;

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
    /// Coverage floor on [`LexicalCoverage::overlap`], applied with the lexical floor (lexical
    /// seeds); 0 turns it off.
    pub min_coverage: f32,
}

impl RelevanceFloors {
    /// The default floors for a library of `skills` skills.
    pub fn for_library(skills: usize) -> Self {
        RelevanceFloors {
            min_seed_score: DEFAULT_MIN_SEED_SCORE,
            min_dense_score: DenseFloor::Auto.cosine(skills),
            min_relative_score: DEFAULT_MIN_RELATIVE_SCORE,
            min_coverage: DEFAULT_MIN_COVERAGE,
        }
    }
}

/// How well the best lexical hits cover the query by their name and description
/// ([`lexical_coverage`]); [`LexicalCoverage::overlap`] is what the coverage floor reads.
///
/// Every share is idf-weighted over distinct analyzed terms: a term counts with its BM25 idf
/// ([`crate::index::lexical::LexicalIndex::idf`]), so a shared rare term weighs more than a shared
/// common one. Each field is the best over the hits, taken separately.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LexicalCoverage {
    /// Share (0..=1) of the query's term mass that a hit's name and description hold.
    pub query_share: f32,
    /// Share (0..=1) of a hit's name and description term mass that the query holds.
    pub skill_share: f32,
    /// `sqrt(query share * skill share)` of one hit (measured against `overlap`, not used by
    /// a floor; docs/evaluation.md).
    pub geometric: f32,
    /// The overlap coefficient: shared mass over the smaller of the query's and the hit's
    /// masses, in 0..=1. It is the query share for short queries (a keyword query is covered
    /// by the right skill's description) and the skill share for long task texts (the right
    /// skill's description is mostly found in the task), so one floor serves both lengths.
    pub overlap: f32,
}

/// The coverage of analyzed `query_terms` by the analyzed name and description terms of the
/// best hits `skills` (the first [`COVERAGE_HITS`] are read), each distinct term weighted by
/// `idf` (> 0). All 0 without hits or terms. "Name and description" here is the display
/// name, the folder name, the description and the capability of each hit. Cost: one `idf`
/// call per distinct term of the query and of each hit.
///
/// # Errors
/// The first error of `idf`.
pub fn lexical_coverage(
    query_terms: &BTreeMap<String, u32>,
    skills: &[BTreeSet<String>],
    mut idf: impl FnMut(&str) -> Result<f32>,
) -> Result<LexicalCoverage> {
    let mut weights: BTreeMap<&str, f32> = BTreeMap::new();
    for t in query_terms.keys() {
        weights.insert(t, idf(t)?);
    }
    let query_mass: f32 = weights.values().sum();
    let mut best = LexicalCoverage::default();
    for terms in skills.iter().take(COVERAGE_HITS) {
        let (mut shared, mut skill_mass) = (0.0, 0.0);
        for t in terms {
            let w = match weights.get(t.as_str()) {
                Some(&w) => {
                    shared += w;
                    w
                }
                None => idf(t)?,
            };
            skill_mass += w;
        }
        let share = |mass: f32| if mass > 0.0 { shared / mass } else { 0.0 };
        let (q, sk) = (share(query_mass), share(skill_mass));
        best.query_share = best.query_share.max(q);
        best.skill_share = best.skill_share.max(sk);
        best.geometric = best.geometric.max((q * sk).sqrt());
        best.overlap = best.overlap.max(share(query_mass.min(skill_mass)));
    }
    Ok(best)
}

/// [`lexical_coverage`] of analyzed `query_terms` against the first [`COVERAGE_HITS`] hits of
/// `bm25` in workspace `ws`: each hit's name, folder name, description and capability, analyzed
/// like the index ([`crate::index::lexical::analyzer::analyzer`]), with the index's idf.
///
/// # Errors
/// [`crate::Error::Index`] when document frequencies cannot be read.
pub fn coverage_of_hits(
    ws: &crate::Workspace,
    query_terms: &BTreeMap<String, u32>,
    bm25: &[(usize, f32)],
) -> Result<LexicalCoverage> {
    let mut a = crate::index::lexical::analyzer::analyzer();
    let skills: Vec<BTreeSet<String>> = bm25
        .iter()
        .take(COVERAGE_HITS)
        .map(|&(node, _)| {
            let n = &ws.manifest().nodes[node];
            let text = format!(
                "{} {}\n{}\n{}",
                n.name,
                n.folder(),
                n.description.value,
                n.capability.value
            );
            crate::index::lexical::analyzer::tokens(&mut a, &text)
                .into_iter()
                .collect()
        })
        .collect();
    let lexical = ws.lexical();
    lexical_coverage(query_terms, &skills, |t| lexical.idf(t))
}

/// The first-stage evidence the floors read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelevanceEvidence {
    /// Best BM25 score divided by the query's idf mass, 0 without hits ([`top_seed_score`]).
    pub top_seed_score: f32,
    /// Best cosine between the query and a skill, when the seed source computed cosines.
    pub top_dense_score: Option<f32>,
    /// Coverage of the query by the best BM25 hits ([`LexicalCoverage::overlap`]); 0 without
    /// hits.
    pub coverage: f32,
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
    /// The best coverage evidence is under the coverage floor.
    BelowCoverageFloor {
        /// Best coverage ([`LexicalCoverage::overlap`]).
        coverage: f32,
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
            NoHitReason::BelowCoverageFloor { coverage, floor } => write!(
                f,
                "best coverage of the query by a skill's name and description {coverage:.3} is \
                 under the floor {floor:.3}"
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
/// computed, else the lexical and coverage ones); otherwise hydrate the eligible candidates.
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
        None if evidence.coverage < floors.min_coverage => {
            return Decision::NoHit(NoHitReason::BelowCoverageFloor {
                coverage: evidence.coverage,
                floor: floors.min_coverage,
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
            coverage: 0.0,
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
            coverage: 0.0,
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

    #[test]
    fn coverage_reads_both_directions_and_the_floor_applies_to_lexical_seeds() {
        let idf: BTreeMap<&str, f32> = [
            ("bread", 5.0),
            ("sourdough", 8.0),
            ("recip", 6.0),
            ("good", 1.0),
            ("test", 2.0),
            ("driven", 3.0),
            ("develop", 2.0),
            ("bake", 4.0),
        ]
        .into();
        let idf = |t: &str| Ok(idf[t]);
        let set = |ts: &[&str]| ts.iter().map(|t| t.to_string()).collect::<BTreeSet<_>>();
        let query: BTreeMap<String, u32> = ["bread", "sourdough", "recip", "good"]
            .iter()
            .map(|t| (t.to_string(), 1))
            .collect();
        let tdd = set(&["test", "driven", "develop", "good"]);
        let baking = set(&["bread", "bake", "sourdough"]);
        // TDD shares `good` (idf 1) of the query's 20 and of its own 8.
        let c = lexical_coverage(&query, std::slice::from_ref(&tdd), idf).unwrap();
        assert!((c.query_share - 0.05).abs() < 1e-6, "{c:?}");
        assert!((c.skill_share - 0.125).abs() < 1e-6, "{c:?}");
        assert!((c.geometric - 0.079_057).abs() < 1e-5, "{c:?}");
        // Overlap: 1 over the smaller mass, TDD's 8.
        assert!((c.overlap - 0.125).abs() < 1e-6, "{c:?}");
        // The baking skill shares 13 of 20 and 13 of 17; the best hit wins.
        let c = lexical_coverage(&query, &[tdd, baking], idf).unwrap();
        assert!((c.query_share - 0.65).abs() < 1e-6, "{c:?}");
        assert!((c.geometric - 0.705_02).abs() < 1e-4, "{c:?}");
        // 13 over the baking skill's 17 (smaller than the query's 20).
        assert!((c.overlap - 13.0 / 17.0).abs() < 1e-6, "{c:?}");
        assert_eq!(
            lexical_coverage(&query, &[], idf).unwrap(),
            LexicalCoverage::default()
        );

        let floors = RelevanceFloors {
            min_coverage: 0.1,
            ..RelevanceFloors::for_library(36)
        };
        let evidence = |coverage, dense| RelevanceEvidence {
            top_seed_score: 2.0,
            top_dense_score: dense,
            coverage,
        };
        assert_eq!(
            decide(&floors, &evidence(0.079, None), 3),
            Decision::NoHit(NoHitReason::BelowCoverageFloor {
                coverage: 0.079,
                floor: 0.1
            })
        );
        assert_eq!(
            decide(&floors, &evidence(0.7, None), 3),
            Decision::Hit { eligible: 3 }
        );
        // With a cosine the dense floor decides alone.
        assert_eq!(
            decide(&floors, &evidence(0.0, Some(0.5)), 3),
            Decision::Hit { eligible: 3 }
        );
    }
}
