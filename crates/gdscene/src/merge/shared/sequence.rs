//! Three-way merge of orderings (sibling order, section order). Order never produces a
//! conflict marker: when both sides reordered, ours wins; items inserted by either side
//! are placed after their nearest preceding neighbour on the side that added them.

/// Membership of identities (small dense integers as a rule): a bitmap, or a sorted list
/// when the values are too sparse for one.
enum Members {
    Bits(Vec<bool>),
    Sorted(Vec<usize>),
}

impl Members {
    fn of(items: &[usize]) -> Members {
        let max = items.iter().copied().max().unwrap_or(0);
        if max <= 16 * items.len() + 1024 {
            let mut bits = vec![false; max + 1];
            for &x in items {
                bits[x] = true;
            }
            Members::Bits(bits)
        } else {
            let mut v = items.to_vec();
            v.sort_unstable();
            Members::Sorted(v)
        }
    }
    fn contains(&self, x: usize) -> bool {
        match self {
            Members::Bits(b) => b.get(x).copied().unwrap_or(false),
            Members::Sorted(v) => v.binary_search(&x).is_ok(),
        }
    }
}

/// Whether `side` keeps the relative order `base` had for the items they share.
pub(crate) fn keeps_order(base: &[usize], side: &[usize]) -> bool {
    let in_side = Members::of(side);
    let in_base = Members::of(base);
    let b = base.iter().copied().filter(|&x| in_side.contains(x));
    let s = side.iter().copied().filter(|&x| in_base.contains(x));
    b.eq(s)
}

/// Merge three orderings of identities into one containing exactly the identities `x`
/// with `keep[x]` (in any order of preference: skeleton from the side that reordered,
/// else ours).
///
/// Kept items that appear in no ordering are appended in ascending order.
pub fn merge_order(base: &[usize], ours: &[usize], theirs: &[usize], keep: &[bool]) -> Vec<usize> {
    let kept = |x: usize| keep.get(x).copied().unwrap_or(false);
    let (skeleton, other) = if keeps_order(base, ours) && !keeps_order(base, theirs) {
        (theirs, ours)
    } else {
        (ours, theirs)
    };
    let mut out: Vec<usize> = Vec::with_capacity(keep.iter().filter(|&&k| k).count());
    // Only kept items are placed, and those are below keep.len().
    let mut placed: Vec<bool> = vec![false; keep.len()];
    for &x in skeleton {
        if kept(x) && !placed[x] {
            placed[x] = true;
            out.push(x);
        }
    }
    // Insert the other side's (and then base's) remaining items after their predecessor.
    for list in [other, base] {
        let missing: Vec<(usize, usize)> = list
            .iter()
            .enumerate()
            .filter(|&(_, &x)| kept(x) && !placed[x])
            .map(|(i, &x)| (i, x))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let base_set = Members::of(base);
        // Position of each placed item in `out` (usize::MAX: not placed).
        let mut pos: Vec<usize> = vec![usize::MAX; keep.len()];
        for (i, x) in missing {
            // Items are only ever added: every set entry is rewritten here.
            for (p, &v) in out.iter().enumerate() {
                pos[v] = p;
            }
            let pos_of = |n: &usize| pos.get(*n).copied().filter(|&p| p != usize::MAX);
            let before = list[i + 1..].iter().find_map(pos_of);
            let after = list[..i].iter().rev().find_map(pos_of);
            let at = match (after, before) {
                // Last on its side: last in the result too.
                (_, None) => out.len(),
                (Some(p), Some(_)) => {
                    // After the predecessor and after what the skeleton side inserted there.
                    let mut at = p + 1;
                    while at < out.len() && !base_set.contains(out[at]) {
                        at += 1;
                    }
                    at
                }
                (None, Some(n)) => n,
            };
            out.insert(at, x);
            placed[x] = true;
        }
    }
    for x in 0..keep.len() {
        if keep[x] && !placed[x] {
            placed[x] = true;
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(v: &[usize]) -> Vec<bool> {
        let mut k = vec![false; v.iter().copied().max().map_or(0, |m| m + 1)];
        for &x in v {
            k[x] = true;
        }
        k
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
