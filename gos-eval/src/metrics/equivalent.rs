//! The equivalent forms of the bundle and ranked-list metrics (issue 22 item 0): a returned
//! skill counts as an oracle when it is the oracle or one of its near-copies
//! ([`crate::equiv`]), and each oracle counts once.

/// What the equivalent metrics read about one retrieval of one task (the fields of
/// [`super::TaskInput`] they need).
pub(super) struct Retrieved<'a> {
    /// `A_t`: available oracle nodes.
    pub available: &'a [usize],
    /// Per node of `available`, the nodes that count as it ([`super::TaskInput::matches`]).
    pub matches: &'a [Vec<usize>],
    /// `|O_t|`.
    pub oracle_total: usize,
    /// `B_t`.
    pub bundle: &'a [usize],
    /// The ranked list, best first.
    pub ranked: &'a [usize],
    /// Dependency edges `(producer, consumer)`.
    pub dependency_edges: &'a [(usize, usize)],
}

fn distinct(a: &[usize]) -> Vec<usize> {
    let mut v = a.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Equivalent matching (\[SR\]'s false-negative rule, [`crate::equiv`]): `matches[i]` holds the
/// nodes that count as available oracle `i` (the oracle itself and its near-copies). The size
/// of a maximum matching between the distinct nodes of `list` and the oracles, each node
/// crediting at most one oracle and each oracle credited at most once: two copies of one
/// oracle in a bundle score it once. With singleton `matches` it is `|list ∩ A|`.
pub fn matched_oracles(list: &[usize], matches: &[Vec<usize>]) -> usize {
    let nodes = distinct(list);
    // owner[j]: the oracle node j credits, if any (Kuhn's augmenting paths; |A| and |list|
    // are a few dozen at most).
    let mut owner: Vec<Option<usize>> = vec![None; nodes.len()];
    fn augment(
        o: usize,
        nodes: &[usize],
        matches: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for (j, n) in nodes.iter().enumerate() {
            if seen[j] || !matches[o].contains(n) {
                continue;
            }
            seen[j] = true;
            if owner[j].is_none_or(|p| augment(p, nodes, matches, owner, seen)) {
                owner[j] = Some(o);
                return true;
            }
        }
        false
    }
    (0..matches.len())
        .filter(|&o| {
            let mut seen = vec![false; nodes.len()];
            augment(o, &nodes, matches, &mut owner, &mut seen)
        })
        .count()
}

/// 1-based rank of the first node of `ranked` that counts as some available oracle.
pub fn first_matching_rank(ranked: &[usize], matches: &[Vec<usize>]) -> Option<usize> {
    ranked
        .iter()
        .position(|n| matches.iter().any(|m| m.contains(n)))
        .map(|p| p + 1)
}

/// The equivalent bundle and ranked-list metrics of one task, `None` outside `T₊` (no
/// available oracle): recall over `|A|` and over `|O|` (`oracle_total`), completeness,
/// precision `matched / |B|` (0 for an empty bundle), Hit@1, MRR@10, Recall@10/20/50, FC@10.
pub(super) fn equivalent_scores(t: &Retrieved<'_>) -> [Option<f64>; 10] {
    let a = t.matches.len();
    if a == 0 {
        let full = (t.oracle_total > 0).then_some(0.0);
        return [None, full, None, None, None, None, None, None, None, None];
    }
    let matched = matched_oracles(t.bundle, t.matches) as f64;
    let b = distinct(t.bundle).len();
    let top = |k: usize| &t.ranked[..k.min(t.ranked.len())];
    let first = first_matching_rank(t.ranked, t.matches);
    let recall_at = |k: usize| Some(matched_oracles(top(k), t.matches) as f64 / a as f64);
    [
        Some(matched / a as f64),
        Some(matched / t.oracle_total.max(a) as f64),
        Some(f64::from(u8::from(matched as usize == a))),
        Some(if b == 0 { 0.0 } else { matched / b as f64 }),
        Some(f64::from(u8::from(first == Some(1)))),
        Some(first.filter(|&r| r <= 10).map_or(0.0, |r| 1.0 / r as f64)),
        recall_at(10),
        recall_at(20),
        recall_at(50),
        Some(f64::from(u8::from(
            matched_oracles(top(10), t.matches) == a,
        ))),
    ]
}

/// Equivalent dependency pairs `(recovered, total)`: the pairs of
/// [`super::dependency_pairs`], recovered when the bundle holds two distinct skills counting as
/// the two ends.
pub(super) fn equivalent_pairs(t: &Retrieved<'_>) -> (usize, usize) {
    let position = |n: usize| t.available.iter().position(|&x| x == n);
    let mut pairs: Vec<(usize, usize)> = t
        .dependency_edges
        .iter()
        .filter_map(|&(u, v)| Some((position(u)?, position(v)?)))
        .filter(|(u, v)| u != v)
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let recovered = pairs
        .iter()
        .filter(|&&(u, v)| {
            matched_oracles(t.bundle, &[t.matches[u].clone(), t.matches[v].clone()]) == 2
        })
        .count();
    (recovered, pairs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_skill_credits_one_oracle_even_when_it_copies_two() {
        let m = [vec![1, 9], vec![2, 9]];
        assert_eq!(matched_oracles(&[9], &m), 1);
        assert_eq!(matched_oracles(&[9, 9], &m), 1);
        // 9 must go to oracle 2 so that 1 keeps its own package: an augmenting path.
        assert_eq!(matched_oracles(&[9, 1], &m), 2);
        assert_eq!(matched_oracles(&[1, 2, 9], &m), 2);
        assert_eq!(first_matching_rank(&[4, 9], &m), Some(2));
        assert_eq!(first_matching_rank(&[4], &m), None);
    }
}
