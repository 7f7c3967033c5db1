//! Batching by token length: texts of similar length share a padded forward pass.

/// Share of a group's longest length that its shortest member must reach in
/// [`length_groups`]: padding stays under 10% of a batch's tokens.
pub(crate) const MIN_FILL: f64 = 0.9;

/// Row order that batches texts of similar token length: indices sorted by length, longest
/// first, cut into groups of at most `batch` whose every member has at least
/// [`MIN_FILL`] of the group's first (longest) length.
pub(crate) fn length_groups(lens: &[usize], batch: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lens[i]));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in order {
        match groups.last_mut() {
            Some(g) if g.len() < batch.max(1) && lens[i] as f64 >= MIN_FILL * lens[g[0]] as f64 => {
                g.push(i)
            }
            _ => groups.push(vec![i]),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_groups_put_similar_lengths_together_longest_first() {
        assert_eq!(
            length_groups(&[3, 9, 1, 9, 5], 2),
            vec![vec![1, 3], vec![4], vec![0], vec![2]]
        );
        // 90 and 100 share a batch, 89 starts the next one.
        assert_eq!(
            length_groups(&[100, 89, 90, 95], 8),
            vec![vec![0, 3, 2], vec![1]]
        );
        assert_eq!(length_groups(&[4, 2], 0), vec![vec![0], vec![1]]);
        assert!(length_groups(&[], 4).is_empty());
    }
}
