//! Three-way merge of orderings (sibling order, section order). Order never produces a
//! conflict marker: when both sides reordered, ours wins; items inserted by either side
//! are placed after their nearest preceding neighbour on the side that added them.

use std::collections::{BTreeMap, BTreeSet};

/// Whether `side` keeps the relative order `base` had for the items they share.
fn keeps_order(base: &[usize], side: &[usize]) -> bool {
    let in_side: BTreeSet<usize> = side.iter().copied().collect();
    let in_base: BTreeSet<usize> = base.iter().copied().collect();
    let b: Vec<usize> = base
        .iter()
        .copied()
        .filter(|x| in_side.contains(x))
        .collect();
    let s: Vec<usize> = side
        .iter()
        .copied()
        .filter(|x| in_base.contains(x))
        .collect();
    b == s
}

/// Merge three orderings of identities into one containing exactly `keep` (in any
/// order of preference: skeleton from the side that reordered, else ours).
///
/// `keep` is the set of identities that survive the merge; items of `keep` that appear
/// in no ordering are appended in ascending order.
pub fn merge_order(
    base: &[usize],
    ours: &[usize],
    theirs: &[usize],
    keep: &BTreeSet<usize>,
) -> Vec<usize> {
    let (skeleton, other) = if keeps_order(base, ours) && !keeps_order(base, theirs) {
        (theirs, ours)
    } else {
        (ours, theirs)
    };
    let mut out: Vec<usize> = Vec::with_capacity(keep.len());
    let mut placed: BTreeSet<usize> = BTreeSet::new();
    for &x in skeleton {
        if keep.contains(&x) && placed.insert(x) {
            out.push(x);
        }
    }
    // Insert the other side's (and then base's) remaining items after their predecessor.
    for list in [other, base] {
        let missing: Vec<(usize, usize)> = list
            .iter()
            .enumerate()
            .filter(|(_, x)| keep.contains(x) && !placed.contains(x))
            .map(|(i, &x)| (i, x))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let base_set: BTreeSet<usize> = base.iter().copied().collect();
        for (i, x) in missing {
            let pos: BTreeMap<usize, usize> =
                out.iter().enumerate().map(|(p, &v)| (v, p)).collect();
            let before = list[i + 1..].iter().find_map(|n| pos.get(n).copied());
            let after = list[..i].iter().rev().find_map(|p| pos.get(p).copied());
            let at = match (after, before) {
                // Last on its side: last in the result too.
                (_, None) => out.len(),
                (Some(p), Some(_)) => {
                    // After the predecessor and after what the skeleton side inserted there.
                    let mut at = p + 1;
                    while at < out.len() && !base_set.contains(&out[at]) {
                        at += 1;
                    }
                    at
                }
                (None, Some(n)) => n,
            };
            out.insert(at, x);
            placed.insert(x);
        }
    }
    for &x in keep {
        if placed.insert(x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(v: &[usize]) -> BTreeSet<usize> {
        v.iter().copied().collect()
    }

    #[test]
    fn both_insert_at_different_places() {
        let r = merge_order(
            &[1, 2, 3],
            &[1, 10, 2, 3],
            &[1, 2, 3, 20],
            &keep(&[1, 2, 3, 10, 20]),
        );
        assert_eq!(r, [1, 10, 2, 3, 20]);
    }

    #[test]
    fn one_reorders_the_other_inserts() {
        let r = merge_order(&[1, 2, 3], &[1, 2, 3, 4], &[3, 1, 2], &keep(&[1, 2, 3, 4]));
        assert_eq!(r, [3, 1, 2, 4]);
        let r = merge_order(&[1, 2, 3], &[3, 2, 1], &[1, 5, 2, 3], &keep(&[1, 2, 3, 5]));
        assert_eq!(r, [3, 2, 1, 5]);
    }

    #[test]
    fn same_spot_inserts_keep_ours_first() {
        let r = merge_order(&[1, 2], &[1, 7, 2], &[1, 8, 2], &keep(&[1, 2, 7, 8]));
        assert_eq!(r, [1, 7, 8, 2]);
    }

    #[test]
    fn deletions_follow_keep() {
        let r = merge_order(&[1, 2, 3], &[1, 3], &[1, 2, 3, 4], &keep(&[1, 3, 4]));
        assert_eq!(r, [1, 3, 4]);
    }
}
