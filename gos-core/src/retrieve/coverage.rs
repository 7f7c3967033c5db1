//! Step coverage: seeding per facet and choosing the bundle by the facets it covers.
//!
//! With [`CoverageParams::enabled`], the task text is split into facets
//! ([`crate::facets::split`]) and each facet is a BM25 query of its own ([`facet_hits`]). The
//! best hits of each facet join the whole text's seeds ([`facet_seeds`]), so the diffusion and
//! the candidate list see every step, and the bundle is chosen greedily ([`select`]): each
//! slot goes to the candidate with the largest
//!
//! `relevance * score / best score + (1 - relevance) * sum_f max(0, c_f - covered_f) / F`
//!
//! where `c_f` is the candidate's BM25 score for facet `f` divided by the facet's best, and
//! `covered_f` the best `c_f` already in the bundle. Prerequisites the graph reached are
//! candidates like any other. The entry records the facet it gains most on (`covers`). Off by
//! default: it is an arm of `gos eval` (docs/graph-quality.md) until it wins out of fold.

use crate::error::Result;
use crate::facets::Facet;
use crate::index::lexical::LexicalIndex;
use crate::rerank::RankedSkill;
use std::collections::HashMap;

/// Options of step coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoverageParams {
    /// Split the query into facets, seed per facet and select by coverage (default off).
    pub enabled: bool,
    /// BM25 hits kept per facet (default 10).
    pub facet_k: usize,
    /// Best hits of each facet added to the seeds (default 1).
    pub facet_seeds: usize,
    /// Weight of the candidate's own final score against facet gain, in [0, 1] (default 0.5).
    pub relevance: f64,
}

impl Default for CoverageParams {
    fn default() -> Self {
        CoverageParams {
            enabled: false,
            facet_k: 10,
            facet_seeds: 1,
            relevance: 0.5,
        }
    }
}

/// The facets of one retrieval and which bundle entry covers which.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Coverage {
    /// The query's facets, in [`crate::facets::split`] order.
    pub facets: Vec<Facet>,
    /// `(node, facet index)` for every bundle candidate chosen for a facet.
    pub covers: Vec<(usize, usize)>,
}

impl Coverage {
    /// The facet node `node` was chosen for, if any.
    pub fn facet_of(&self, node: usize) -> Option<&Facet> {
        self.covers
            .iter()
            .find(|(n, _)| *n == node)
            .map(|(_, f)| &self.facets[*f])
    }
}

/// The facets of one query with their BM25 hits, between seeding and selection.
#[derive(Debug, Clone)]
pub struct Prepared {
    facets: Vec<Facet>,
    hits: Vec<Vec<(usize, f32)>>,
    params: CoverageParams,
}

impl Prepared {
    /// Split `text` into facets and search each one.
    ///
    /// # Errors
    /// Index errors while searching.
    pub fn new(index: &LexicalIndex, text: &str, params: &CoverageParams) -> Result<Self> {
        let facets = crate::facets::split(text);
        let hits = facet_hits(index, &facets, params.facet_k)?;
        Ok(Prepared {
            facets,
            hits,
            params: *params,
        })
    }

    /// Add the facet seeds ([`facet_seeds`], as much mass as the whole text's seeds) to the
    /// personalization vector `p` and scale it back to sum 1.
    pub fn seed(&self, p: &mut [f64]) {
        let before: f64 = p.iter().sum();
        let total = if before > 0.0 { before } else { 1.0 };
        for (node, w) in facet_seeds(&self.hits, self.params.facet_seeds, total) {
            p[node] += w;
        }
        let after: f64 = p.iter().sum();
        if after > 0.0 {
            p.iter_mut().for_each(|x| *x /= after);
        }
    }

    /// Reorder `ranked` by [`select`] and [`apply`].
    pub fn choose(self, ranked: &mut Vec<RankedSkill>, eligible: usize, top_n: usize) -> Coverage {
        let picks = select(ranked, eligible, top_n, &self.hits, self.params.relevance);
        apply(ranked, &picks, self.facets)
    }
}

/// Each facet's BM25 hits, at most `k` per facet, by descending score.
///
/// # Errors
/// Index errors while searching.
pub fn facet_hits(
    index: &LexicalIndex,
    facets: &[Facet],
    k: usize,
) -> Result<Vec<Vec<(usize, f32)>>> {
    facets
        .iter()
        .map(|f| index.search(&LexicalIndex::query_terms(&f.text), k))
        .collect()
}

/// Seed weights the facets add: the best `per_facet` hits of every facet, each facet sharing
/// `total` mass in proportion to its hits' scores. `(node, weight)`, nodes in first-seen order.
pub fn facet_seeds(hits: &[Vec<(usize, f32)>], per_facet: usize, total: f64) -> Vec<(usize, f64)> {
    let used: Vec<&[(usize, f32)]> = hits
        .iter()
        .map(|h| &h[..per_facet.min(h.len())])
        .filter(|h| !h.is_empty())
        .collect();
    let mut out: Vec<(usize, f64)> = Vec::new();
    for h in &used {
        let sum: f64 = h.iter().map(|x| x.1.max(0.0) as f64).sum();
        for &(node, s) in *h {
            let w = if sum > 0.0 {
                total / used.len() as f64 * s.max(0.0) as f64 / sum
            } else {
                0.0
            };
            match out.iter_mut().find(|(n, _)| *n == node) {
                Some(e) => e.1 += w,
                None => out.push((node, w)),
            }
        }
    }
    out
}

/// Greedy coverage selection over `ranked[..eligible]` (final order) for `top_n` slots (module
/// docs). Returns the chosen positions in `ranked`, in pick order, each with the facet it
/// gains most on (`None` when it gains on none). Ties go to the better-ranked candidate.
/// Cost: O(top_n x eligible x facets).
pub fn select(
    ranked: &[RankedSkill],
    eligible: usize,
    top_n: usize,
    hits: &[Vec<(usize, f32)>],
    relevance: f64,
) -> Vec<(usize, Option<usize>)> {
    let eligible = eligible.min(ranked.len());
    let best = ranked.first().map_or(0.0, |r| r.score);
    let f = hits.len().max(1) as f64;
    let mut cov: HashMap<usize, Vec<(usize, f64)>> = HashMap::new();
    for (fi, h) in hits.iter().enumerate() {
        let max = h.first().map_or(0.0, |x| x.1 as f64);
        if max <= 0.0 {
            continue;
        }
        for &(node, s) in h {
            cov.entry(node).or_default().push((fi, s as f64 / max));
        }
    }
    let mut covered = vec![0.0f64; hits.len()];
    let mut taken = vec![false; eligible];
    let mut out = Vec::new();
    while out.len() < top_n.min(eligible) {
        let mut pick: Option<(f64, usize, Option<usize>)> = None;
        for (i, r) in ranked[..eligible].iter().enumerate() {
            if taken[i] {
                continue;
            }
            let mut gain = 0.0;
            let mut facet: Option<(f64, usize)> = None;
            for &(fi, c) in cov.get(&r.node).map_or(&[][..], Vec::as_slice) {
                let g = (c - covered[fi]).max(0.0);
                gain += g;
                if g > 0.0 && facet.is_none_or(|(bg, _)| g > bg) {
                    facet = Some((g, fi));
                }
            }
            let own = if best > 0.0 { r.score / best } else { 0.0 };
            let value = relevance * own + (1.0 - relevance) * gain / f;
            if pick.is_none_or(|(v, _, _)| value > v) {
                pick = Some((value, i, facet.map(|x| x.1)));
            }
        }
        let Some((_, i, facet)) = pick else { break };
        taken[i] = true;
        for &(fi, c) in cov.get(&ranked[i].node).map_or(&[][..], Vec::as_slice) {
            covered[fi] = covered[fi].max(c);
        }
        out.push((i, facet));
    }
    out
}

/// Put the picks of [`select`] first, in pick order, the other candidates after them in their
/// order; the [`Coverage`] record of the picks with a facet.
pub fn apply(
    ranked: &mut Vec<RankedSkill>,
    picks: &[(usize, Option<usize>)],
    facets: Vec<Facet>,
) -> Coverage {
    let covers = picks
        .iter()
        .filter_map(|&(i, f)| f.map(|f| (ranked[i].node, f)))
        .collect();
    let mut chosen: Vec<Option<RankedSkill>> = ranked.drain(..).map(Some).collect();
    let mut out: Vec<RankedSkill> = picks
        .iter()
        .filter_map(|&(i, _)| chosen[i].take())
        .collect();
    out.extend(chosen.into_iter().flatten());
    *ranked = out;
    Coverage { facets, covers }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facets::FacetKind;

    #[test]
    fn greedy_selection_covers_each_facet_before_a_second_match_of_one() {
        // Scores: 0 and 1 both match facet 0 strongly, 2 matches facet 1, 3 matches nothing.
        let ranked: Vec<RankedSkill> = [(0, 1.0), (1, 0.95), (2, 0.6), (3, 0.9)]
            .map(|(n, s)| RankedSkill::scored(n, s))
            .to_vec();
        let hits = vec![vec![(0, 10.0), (1, 9.5)], vec![(2, 4.0), (0, 1.0)]];
        // Relevance only: the score order.
        let only = select(&ranked, 4, 3, &hits, 1.0);
        assert_eq!(only.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1, 3]);
        // Half and half: 0 covers facet 0 (gain 1.0 + 0.25 on facet 1), then 2 wins on facet 1
        // (0.5 * 0.6 + 0.5 * 0.75 / 2 = 0.4875) over 1 (0.475 + 0) and 3 (0.45).
        let picks = select(&ranked, 4, 3, &hits, 0.5);
        assert_eq!(picks, vec![(0, Some(0)), (2, Some(1)), (1, None)]);
        let facets = vec![
            Facet {
                kind: FacetKind::Step,
                text: "parse".into(),
            },
            Facet {
                kind: FacetKind::Step,
                text: "plot".into(),
            },
        ];
        let mut r = ranked.clone();
        let cov = apply(&mut r, &picks, facets);
        assert_eq!(
            r.iter().map(|x| x.node).collect::<Vec<_>>(),
            vec![0, 2, 1, 3]
        );
        assert_eq!(cov.facet_of(2).map(|f| f.text.as_str()), Some("plot"));
        assert_eq!(cov.facet_of(1), None);
        // Only eligible candidates are chosen.
        assert_eq!(select(&ranked, 2, 3, &hits, 0.5).len(), 2);
    }

    #[test]
    fn facet_seeds_split_the_mass_between_facets_by_score() {
        let hits = vec![vec![(4, 3.0), (5, 1.0)], vec![(5, 2.0)], vec![]];
        let seeds = facet_seeds(&hits, 2, 1.0);
        assert_eq!(seeds.len(), 2);
        assert_eq!(seeds[0].0, 4);
        assert!((seeds[0].1 - 0.375).abs() < 1e-12);
        assert!((seeds[1].1 - 0.625).abs() < 1e-12);
        assert!((seeds.iter().map(|s| s.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
