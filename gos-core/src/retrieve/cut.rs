//! Adaptive bundle size: how many of the eligible candidates the bundle offers, up to
//! [`crate::hydrate::Budgets::top_n`].
//!
//! A fixed top-N fills every bundle to N skills, so a task that needs two skills gets six it
//! does not need. The cut stops adding skills once the marginal evidence falls below a floor,
//! read off the final scores of the ranked list (field evidence by default, whose scores are
//! non-negative) and, with the query's embeddings, off each skill's cosine with the query:
//!
//! - **floor** ([`BundleCut::min_top_ratio`]): a candidate whose score is below this share of
//!   the best score ends the bundle;
//! - **gap** ([`BundleCut::min_step_ratio`]): a candidate whose score is below this share of
//!   the score just above it ends the bundle (a cliff in the scores);
//! - **cosine** ([`BundleCut::min_cosine`]): a candidate whose cosine with the query is below
//!   this ends the bundle, whatever its lexical evidence. The first two rules read shares of
//!   the query's own scores, so they never fire where the scores fall slowly, as they do for
//!   long task texts that match many skills on common words: on the 89 Terminal-Bench texts
//!   75 of 77 hybrid bundles filled all 8 slots, and a reader judged 482 of their 605 skills
//!   irrelevant. The cosine is an absolute scale (all-MiniLM-L6-v2: unrelated pairs 0.01-0.12,
//!   [`super::options::DEFAULT_MIN_SKILL_COSINE`]), computed exactly for every candidate
//!   ([`crate::index::dense::DenseSet::cosine`]); it needs the query's embeddings, so lexical
//!   seeds skip this rule. Like the other two it ends the bundle rather than skipping one
//!   skill, so the skills after the first weak one leave too (on Terminal-Bench 9 skills a
//!   reader judged partly useful, with cosines of at least 0.1, left that way); a first-stage
//!   prerequisite that the graph lifted above its own cosine's worth ends it as well, and only
//!   comes back through [`keep_prerequisites`] when a kept skill states it. Its default,
//!   [`DEFAULT_BUNDLE_MIN_COSINE`], is the encoder's noise level, not a cross-validated value.
//!
//! The floor and the gap, [`DEFAULT_BUNDLE_FLOOR`] 0.2 and [`DEFAULT_BUNDLE_GAP`] 0.5, one
//! setting for every seed source, were chosen by 4-fold cross-validation over the 48 DEV tasks on the real
//! library, lexical and hybrid seeds together: the best mean F2 (equivalent metrics) among the
//! settings that lose at most 0.01 of bundle recall with either seed source; every fold chose
//! gap 0.5 and the floors 0, 0.2, 0.2, 0.4. Out of fold, precision (equivalent) rose from
//! 0.227 to 0.410 (hybrid) and 0.237 to 0.351 (lexical) at recall 0.746 and 0.776
//! (docs/graph-quality.md, "Session 7: the default bundle"). The first
//! candidate is always kept: whether anything is relevant at all is the relevance floors'
//! decision ([`crate::relevance`]), not the cut's.

use crate::graph::{EdgeType, SkillEdge, SkillGraph};
use crate::rerank::RankedSkill;
use std::collections::HashSet;

/// Default [`BundleCut::min_step_ratio`]: 0.5 (module docs).
pub const DEFAULT_BUNDLE_GAP: f64 = 0.5;

/// Default [`BundleCut::min_top_ratio`]: 0.2 (module docs).
pub const DEFAULT_BUNDLE_FLOOR: f64 = 0.2;

/// Default [`BundleCut::min_cosine`]: 0.1, the upper end of the cosines all-MiniLM-L6-v2
/// gives unrelated sentence pairs (0.01-0.12), as for
/// [`super::options::DEFAULT_MIN_SKILL_COSINE`]: an absolute "no evidence" level of the
/// encoder, not a DEV-tuned value. Measured on the real library (docs/graph-quality.md,
/// "Session 21"): DEV hybrid bundles keep every oracle (equivalent recall 0.753) while
/// precision rises 0.420 -> 0.444; on the 89 Terminal-Bench texts the mean hybrid bundle falls
/// from 7.9 to 6.1 skills, with 130 of the 482 skills a reader judged irrelevant gone, 10 of
/// the 97 judged partly useful, and none of the 26 judged relevant. 4-fold CV by F2 over -1 / 0.1 / 0.15 / 0.2 / 0.25 chose 0.1,
/// 0.15, 0.15 and 0.2, unstable above 0.15 (0.2 costs DEV recall 0.031). Encoders whose
/// unrelated pairs score higher (BGE, Qwen3) rarely reach this floor; set it per model.
pub const DEFAULT_BUNDLE_MIN_COSINE: f32 = 0.1;

/// The cosine rule's "off" value: no cosine lies below -1.
pub const BUNDLE_MIN_COSINE_OFF: f32 = -1.0;

/// The adaptive cut's floors: two shares in [0, 1] (0 turns the rule off) and a cosine (-1
/// turns it off). Default: floor [`DEFAULT_BUNDLE_FLOOR`], gap [`DEFAULT_BUNDLE_GAP`], cosine
/// [`DEFAULT_BUNDLE_MIN_COSINE`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BundleCut {
    /// Least final score, as a share of the best final score, of a bundle skill.
    pub min_top_ratio: f64,
    /// Least final score, as a share of the score of the candidate ranked just above, of a
    /// bundle skill.
    pub min_step_ratio: f64,
    /// Least cosine with the query of a bundle skill, when the query has embeddings
    /// ([`BundleCut::keep_with_cosines`]); [`BUNDLE_MIN_COSINE_OFF`] turns it off.
    pub min_cosine: f32,
}

impl Default for BundleCut {
    fn default() -> Self {
        BundleCut {
            min_top_ratio: DEFAULT_BUNDLE_FLOOR,
            min_step_ratio: DEFAULT_BUNDLE_GAP,
            min_cosine: DEFAULT_BUNDLE_MIN_COSINE,
        }
    }
}

impl BundleCut {
    /// Every rule off: the bundle is the first `top_n` eligible candidates.
    pub const OFF: BundleCut = BundleCut {
        min_top_ratio: 0.0,
        min_step_ratio: 0.0,
        min_cosine: BUNDLE_MIN_COSINE_OFF,
    };

    /// Whether every rule is off.
    pub fn is_off(&self) -> bool {
        self.min_top_ratio <= 0.0
            && self.min_step_ratio <= 0.0
            && self.min_cosine <= BUNDLE_MIN_COSINE_OFF
    }

    /// [`BundleCut::keep_with_cosines`] without cosines (lexical seeds): the floor and the gap
    /// only.
    pub fn keep(&self, ranked: &[RankedSkill], eligible: usize) -> usize {
        self.keep_with_cosines(ranked, eligible, |_| None)
    }

    /// How many of the first `eligible` candidates of `ranked` (in final order) stay: at least
    /// one when `eligible > 0`; `eligible` when the cut is off. `cosine(node)` is the
    /// candidate's cosine with the query, `None` when unknown (then the cosine rule passes
    /// it). The floor and the gap are skipped when the best score is not positive (shares of
    /// it mean nothing; only negative mixing weights such as `--dense-weight -0.25` give
    /// such scores), the cosine rule is not.
    pub fn keep_with_cosines(
        &self,
        ranked: &[RankedSkill],
        eligible: usize,
        cosine: impl Fn(usize) -> Option<f32>,
    ) -> usize {
        let eligible = eligible.min(ranked.len());
        let Some(top) = ranked.first().map(|r| r.score) else {
            return 0;
        };
        if self.is_off() {
            return eligible;
        }
        let shares = !top.is_nan() && top > 0.0;
        // A candidate the graph brought in (outside the first-stage pool) is never the cut
        // point: its score is its consumer's relevance passed on, not its own, and a cliff
        // before it is the graph's doing (a prerequisite ranks below what needs it).
        (1..eligible)
            .find(|&i| {
                let s = ranked[i].score;
                ranked[i].pool_rank.is_some()
                    && ((shares
                        && (s < self.min_top_ratio * top
                            || s < self.min_step_ratio * ranked[i - 1].score))
                        || cosine(ranked[i].node).is_some_and(|c| c < self.min_cosine))
            })
            .unwrap_or(eligible)
    }
}

/// The adaptive cut read off another ranking of the same query
/// ([`crate::RetrieveOptions::cut_without_semantic`]: the walk without semantic edges).
/// `kept` holds the candidates that ranking's cut keeps. In `pool` (the final ranking), the
/// bundle ends at the first first-stage candidate outside `kept`, or just after the last
/// candidate inside it if that comes later; within that prefix the first-stage candidates
/// outside `kept` leave, and candidates outside the first-stage pool stay (as in
/// [`BundleCut::keep`], they are never the cut point: a prerequisite the task does not name
/// has no query evidence of its own). The kept candidates move to the front in rank order,
/// the others follow in rank order; returns how many are kept.
pub fn keep_cut_of(pool: &mut [RankedSkill], kept: &HashSet<usize>) -> usize {
    let first_stage = |r: &RankedSkill| r.pool_rank.is_some();
    let first_out = pool
        .iter()
        .position(|r| first_stage(r) && !kept.contains(&r.node))
        .unwrap_or(pool.len());
    let after_last_in = pool
        .iter()
        .rposition(|r| kept.contains(&r.node))
        .map_or(0, |i| i + 1);
    let end = first_out.max(after_last_in);
    let stays = |r: &RankedSkill| !first_stage(r) || kept.contains(&r.node);
    // Stable: both parts keep their rank order.
    pool[..end].sort_by_key(|r| !stays(r));
    pool[..end].iter().filter(|r| stays(r)).count()
}

/// Which candidates past the adaptive cut come back as prerequisites of a kept skill
/// ([`keep_prerequisites`]).
///
/// Default [`KeepPrerequisites::Stated`]: an edge the skills' own text states (a declared
/// dependency, a mention of the other skill as a prerequisite, a workflow sequence; provenance
/// declared / mention / sequence) is read as acceptable far more often than an io edge
/// inferred from overlapping artifact types (read samples: mention 48%, workflow 94%, io
/// 18-27%, docs/graph-quality.md), and on fixtures/library the chains the cut ends early are
/// stated ones. `All` also follows io and LLM-proposed edges; on DEV that added no recall and
/// cost precision (session 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepPrerequisites {
    /// The cut is final.
    Off,
    /// Bring back prerequisites joined to a kept skill by a stated edge (declared, mention,
    /// workflow sequence).
    #[default]
    Stated,
    /// Bring back prerequisites joined by any dependency or workflow edge.
    All,
}

impl KeepPrerequisites {
    /// The knob's names, in [`crate::param`] order.
    pub const NAMES: [&'static str; 3] = ["off", "stated", "all"];

    /// Whether `e` (a dependency or workflow edge) brings its source back.
    fn follows(self, e: &SkillEdge) -> bool {
        matches!(e.edge_type, EdgeType::Dependency | EdgeType::Workflow)
            && match self {
                KeepPrerequisites::Off => false,
                KeepPrerequisites::Stated => e.provenance.is_stated(),
                KeepPrerequisites::All => true,
            }
    }
}

impl std::fmt::Display for KeepPrerequisites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(Self::NAMES[*self as usize])
    }
}

impl std::str::FromStr for KeepPrerequisites {
    type Err = String;

    /// `off`, `stated` or `all`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "off" => Ok(KeepPrerequisites::Off),
            "stated" => Ok(KeepPrerequisites::Stated),
            "all" => Ok(KeepPrerequisites::All),
            _ => Err(format!("`{s}` is not one of off, stated, all")),
        }
    }
}

/// After the cut: the candidates of `pool[kept..]` that are prerequisites of a kept skill (an
/// edge from them to it that `which` follows, [`KeepPrerequisites`], followed through rescued
/// prerequisites too) move up to just after the kept ones, in rank order; returns the new
/// number kept.
///
/// Why: the first-stage pool also holds a task's unnamed prerequisites, ranked low because
/// the task does not name them (fixtures/library's chains: `geo/shapefile-reader` at rank 3
/// and `geo/geojson-reproject` at rank 8 of a choropleth task), and a cliff in the scores
/// before them would otherwise end the bundle before the graph's reason to keep them is read.
/// Cost: one pass over the out-edges of `pool[kept..]` per rescued layer.
pub fn keep_prerequisites(
    graph: &SkillGraph,
    pool: &mut [RankedSkill],
    kept: usize,
    which: KeepPrerequisites,
) -> usize {
    let kept = kept.min(pool.len());
    let mut inside: HashSet<usize> = pool[..kept].iter().map(|r| r.node).collect();
    let mut rescued = 0;
    loop {
        let before = rescued;
        for r in &pool[kept..] {
            let feeds_a_kept_skill = !inside.contains(&r.node)
                && graph
                    .outgoing(r.node)
                    .any(|(to, e)| which.follows(e) && inside.contains(&to));
            if feeds_a_kept_skill {
                inside.insert(r.node);
                rescued += 1;
            }
        }
        if rescued == before {
            break;
        }
    }
    // Stable: the rescued keep their rank order, and so do the others.
    pool[kept..].sort_by_key(|r| !inside.contains(&r.node));
    kept + rescued
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(scores: &[f64]) -> Vec<RankedSkill> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &s)| RankedSkill {
                pool_rank: Some(i + 1),
                ..RankedSkill::scored(i, s)
            })
            .collect()
    }

    /// Scores 2.0 (pool), 0.6 (brought by the graph), 0.5 (pool), 0.1 (pool): the
    /// prerequisite at 0.6 is past a cliff (0.3 of the score above) but stays; the next pool
    /// candidate (0.5 / 0.6 = 0.83) stays; 0.1 / 0.5 = 0.2 ends the bundle at three.
    #[test]
    fn a_skill_the_graph_brought_in_is_never_the_cut_point() {
        let mut r = ranked(&[2.0, 0.6, 0.5, 0.1]);
        r[1].pool_rank = None;
        let gap = BundleCut {
            min_top_ratio: 0.0,
            min_step_ratio: 0.5,
            ..BundleCut::OFF
        };
        assert_eq!(gap.keep(&r, 4), 3);
        r[1].pool_rank = Some(2);
        assert_eq!(gap.keep(&r, 4), 1);
    }

    #[test]
    fn the_floor_and_the_gap_end_the_bundle() {
        let r = ranked(&[2.0, 1.8, 1.1, 1.0, 0.3, 0.29]);
        assert_eq!(BundleCut::OFF.keep(&r, 6), 6);
        assert_eq!(BundleCut::OFF.keep(&r, 4), 4);
        assert_ne!(BundleCut::default(), BundleCut::OFF);
        let floor = BundleCut {
            min_top_ratio: 0.5,
            min_step_ratio: 0.0,
            ..BundleCut::OFF
        };
        // 1.0 is exactly half of 2.0 and stays; 0.3 ends the bundle.
        assert_eq!(floor.keep(&r, 6), 4);
        assert_eq!(floor.keep(&r, 3), 3);
        let gap = BundleCut {
            min_top_ratio: 0.0,
            min_step_ratio: 0.7,
            ..BundleCut::OFF
        };
        // 1.1 / 1.8 = 0.61 < 0.7: the cliff after the second skill.
        assert_eq!(gap.keep(&r, 6), 2);
        let both = BundleCut {
            min_top_ratio: 0.1,
            min_step_ratio: 0.5,
            ..BundleCut::OFF
        };
        // 0.3 / 1.0 = 0.3 < 0.5.
        assert_eq!(both.keep(&r, 6), 4);
    }

    /// Chain a -> b -> c (a feeds b by an io edge, b feeds c by a stated workflow sequence); c
    /// is kept, the cut fell before b and a, and x (unlinked) sits between them. `All`: b and a
    /// move up, x stays out. `Stated`: only b (a's edge is inferred from types). `Off`: nothing.
    #[test]
    fn prerequisites_of_kept_skills_come_back_after_the_cut() {
        use crate::graph::EdgeProvenance;
        let ids = ["c", "x", "a", "b", "y"];
        let mut g = SkillGraph::new(ids.iter().map(|s| s.to_string()));
        for (from, to, ty, provenance) in [
            ("a", "b", EdgeType::Dependency, EdgeProvenance::Io),
            ("b", "c", EdgeType::Workflow, EdgeProvenance::Sequence),
            ("y", "c", EdgeType::Semantic, EdgeProvenance::Vector),
        ] {
            assert!(g.add_edge(SkillEdge {
                source: from.into(),
                target: to.into(),
                edge_type: ty,
                weight: 1.0,
                provenance,
                evidence: String::new(),
            }));
        }
        let pool: Vec<RankedSkill> = ids
            .iter()
            .enumerate()
            .map(|(i, _)| RankedSkill::scored(i, 5.0 - i as f64))
            .collect();
        let order = |p: &[RankedSkill]| p.iter().map(|r| r.node).collect::<Vec<_>>();

        let mut all = pool.clone();
        assert_eq!(
            keep_prerequisites(&g, &mut all, 1, KeepPrerequisites::All),
            3
        );
        // c, then b (feeds c) and a (feeds b) in rank order, then x and y (semantic: no).
        assert_eq!(order(&all), [0, 2, 3, 1, 4]);
        assert_eq!(
            keep_prerequisites(&g, &mut all, 5, KeepPrerequisites::All),
            5
        );

        let mut stated = pool.clone();
        assert_eq!(
            keep_prerequisites(&g, &mut stated, 1, KeepPrerequisites::Stated),
            2
        );
        assert_eq!(order(&stated), [0, 3, 1, 2, 4]);

        let mut off = pool.clone();
        assert_eq!(
            keep_prerequisites(&g, &mut off, 1, KeepPrerequisites::Off),
            1
        );
        assert_eq!(order(&off), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn keep_prerequisites_reads_its_three_names() {
        for name in KeepPrerequisites::NAMES {
            let k: KeepPrerequisites = name.parse().unwrap();
            assert_eq!(k.to_string(), name);
        }
        assert_eq!(KeepPrerequisites::default(), KeepPrerequisites::Stated);
        assert!("1".parse::<KeepPrerequisites>().is_err());
    }

    /// Flat scores (a long task text matching everything a little): the floor and the gap
    /// keep all six; the cosine rule ends the bundle at the first first-stage candidate below
    /// 0.1 (node 3, cosine 0.05), even though node 4 after it has 0.4; a candidate the graph
    /// brought in is never the cut point; an unknown cosine passes; and without cosines
    /// (`keep`) the rule is silent.
    #[test]
    fn a_cosine_below_the_floor_ends_the_bundle_whatever_the_scores() {
        let mut r = ranked(&[2.0, 1.9, 1.8, 1.7, 1.6, 1.5]);
        let cos = [0.5, 0.3, 0.2, 0.05, 0.4, 0.3];
        let cut = BundleCut::default();
        assert_eq!(cut.min_cosine, DEFAULT_BUNDLE_MIN_COSINE);
        assert_eq!(cut.keep(&r, 6), 6);
        assert_eq!(cut.keep_with_cosines(&r, 6, |n| Some(cos[n])), 3);
        // Node 3 unknown: it passes, the bundle runs to the end.
        assert_eq!(
            cut.keep_with_cosines(&r, 6, |n| (n != 3).then(|| cos[n])),
            6
        );
        // Node 3 brought in by the graph: never the cut point.
        r[3].pool_rank = None;
        assert_eq!(cut.keep_with_cosines(&r, 6, |n| Some(cos[n])), 6);
        // The first candidate stays whatever its cosine; off (-1) keeps everything.
        assert_eq!(cut.keep_with_cosines(&r, 6, |_| Some(-0.5)), 1);
        let off = BundleCut {
            min_cosine: BUNDLE_MIN_COSINE_OFF,
            ..BundleCut::OFF
        };
        assert!(off.is_off());
        assert_eq!(off.keep_with_cosines(&r, 6, |_| Some(-0.5)), 6);
        let only_cosine = BundleCut {
            min_cosine: 0.15,
            ..BundleCut::OFF
        };
        assert!(!only_cosine.is_off());
        // Non-positive scores turn the shares off, not the cosine rule.
        let neg = ranked(&[-1.0, -2.0, -3.0]);
        assert_eq!(
            only_cosine.keep_with_cosines(&neg, 3, |n| Some([0.5, 0.3, 0.1][n])),
            2
        );
    }

    #[test]
    fn the_first_candidate_always_stays() {
        let strict = BundleCut {
            min_top_ratio: 1.0,
            min_step_ratio: 1.0,
            min_cosine: 1.0,
        };
        assert_eq!(strict.keep(&ranked(&[2.0, 1.9]), 2), 1);
        assert_eq!(strict.keep(&ranked(&[2.0, 2.0, 2.0]), 3), 3);
        assert_eq!(strict.keep(&ranked(&[]), 0), 0);
        // Non-positive best scores: no shares, nothing cut.
        assert_eq!(strict.keep(&ranked(&[-1.0, -3.0]), 2), 2);
        assert_eq!(strict.keep(&ranked(&[0.0, 0.0]), 2), 2);
        assert_eq!(
            strict.keep_with_cosines(&ranked(&[2.0, 2.0]), 2, |_| Some(0.0)),
            1
        );
    }

    /// Final order a(pool) g(reached) b(pool, cut in the other ranking) c(pool) h(reached)
    /// d(pool): with a and c kept by the other ranking's cut, b leaves, g stays (brought in before
    /// the end), the bundle ends after c (the last kept), and h and d are past it.
    #[test]
    fn another_rankings_cut_keeps_its_candidates_and_what_the_graph_brought_before_them() {
        let mut pool: Vec<RankedSkill> = [
            (0, true),
            (10, false),
            (1, true),
            (2, true),
            (11, false),
            (3, true),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(node, first))| RankedSkill {
            pool_rank: first.then_some(i + 1),
            ..RankedSkill::scored(node, 1.0 - i as f64 / 10.0)
        })
        .collect();
        let kept: HashSet<usize> = [0, 2].into();
        assert_eq!(keep_cut_of(&mut pool, &kept), 3);
        let order: Vec<usize> = pool.iter().map(|r| r.node).collect();
        assert_eq!(order, [0, 10, 2, 1, 11, 3]);
        // Nothing kept past a first-stage candidate the query cut ends on: a, then b is out.
        let mut pool2 = pool.clone();
        pool2.sort_by_key(|r| r.node != 0);
        let only_a: HashSet<usize> = [0].into();
        let n = keep_cut_of(&mut pool2, &only_a);
        assert_eq!(
            pool2[..n].iter().map(|r| r.node).collect::<Vec<_>>(),
            [0, 10]
        );
    }
}
