//! When a node that vanished and a node that appeared are the same node under another
//! name or in another place, judged by what they hold: the one rule `diff` (which node of
//! the old file is which of the new) and the merge (which node a side renamed without a
//! `unique_id`) both apply, so that what `diff` shows as a rename the merge follows as
//! one. It decides the likeness and the pairing among candidates; which nodes are
//! candidates (same parent, same name, same kind) and how two values compare (engine
//! equality with references by label in `diff`, text with SubResource ids left out in
//! the merge, which matches nodes before resources) are each caller's.
//!
//! The pairing is bounded: every likeness computed spends one unit of a [`Budget`] sized
//! to the scenes, and once it is spent the nodes left are reported removed and added. A
//! scene whose N siblings were all replaced by N others would otherwise compare N x N
//! pairs (minutes at N = 10,000).

/// The least likeness (share of properties alike) at which two nodes of one kind are the
/// same node.
pub const SAME_NODE: f64 = 0.5;

/// How alike two nodes' property lists are, from 0 to 1: the share of `a`'s keys whose
/// value `b` holds alike (by `same`), of the longer list. Two nodes without properties
/// are fully alike. Values are whatever the caller reads them as (text, parsed values).
pub fn likeness<V>(a: &[(&str, V)], b: &[(&str, V)], mut same: impl FnMut(&V, &V) -> bool) -> f64 {
    let total = a.len().max(b.len());
    if total == 0 {
        return 1.0;
    }
    // Short lists (most nodes) are searched; long ones looked up.
    let map: Option<std::collections::BTreeMap<&str, &V>> =
        (b.len() > 8).then(|| b.iter().map(|(k, v)| (*k, v)).collect());
    let value_in_b = |k: &str| match &map {
        Some(m) => m.get(k).copied(),
        None => b.iter().find(|(l, _)| *l == k).map(|(_, w)| w),
    };
    let alike = a
        .iter()
        .filter(|(k, v)| value_in_b(k).is_some_and(|w| same(v, w)))
        .count();
    alike as f64 / total as f64
}

/// How many likenesses one pairing may compute: a fixed allowance plus a share per node,
/// so that ordinary scenes (a few renames among thousands of nodes) never reach it and a
/// scene whose siblings were all replaced costs time linear in its size.
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
    spent: usize,
}

/// The fixed part of a [`Budget`].
pub const BUDGET_BASE: usize = 200_000;

/// The part of a [`Budget`] per node of the two scenes compared.
pub const BUDGET_PER_NODE: usize = 32;

impl Budget {
    /// The budget for pairing between scenes of `nodes` nodes together.
    pub fn for_nodes(nodes: usize) -> Budget {
        Budget {
            left: BUDGET_BASE.saturating_add(nodes.saturating_mul(BUDGET_PER_NODE)),
            spent: 0,
        }
    }

    /// Spend one likeness; `false` once the budget is out.
    pub fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        self.spent += 1;
        true
    }

    /// How many likenesses were computed (for tests and measurements).
    pub fn spent(&self) -> usize {
        self.spent
    }

    /// Whether the budget is out (the pairing then stops).
    pub fn is_out(&self) -> bool {
        self.left == 0
    }
}

/// The pairs of a row and a column (a node gone and a node new) that are each the
/// other's one most alike (at least [`SAME_NODE`]): the row's best column has no equal
/// among the row's columns, nor the column's best row among the column's rows. A tie is
/// a guess (two alike nodes removed, one renamed: which one?) and pairs nothing; and
/// unlike taking each row's best in turn, the pairs do not depend on the rows' order.
/// Each likeness is paid from `budget`; `None` when it ran out first (nothing paired).
pub fn mutual_best(
    rows: usize,
    cols: usize,
    budget: &mut Budget,
    score: impl FnMut(usize, usize) -> f64,
) -> Option<Vec<(usize, usize)>> {
    mutual_best_among(rows, cols, |_| 0..cols, budget, score)
}

/// [`mutual_best`] where each row is compared only with the columns `cands` lists for
/// it (each at most once): the diff's candidates are a node's siblings and namesakes,
/// not every new node. The one rule for "the same node" that merge and diff share.
pub fn mutual_best_among<I: IntoIterator<Item = usize>>(
    rows: usize,
    cols: usize,
    mut cands: impl FnMut(usize) -> I,
    budget: &mut Budget,
    mut score: impl FnMut(usize, usize) -> f64,
) -> Option<Vec<(usize, usize)>> {
    // The best score of each row and column, and the one index reaching it (None: tied).
    let mut row: Vec<(f64, Option<usize>)> = vec![(f64::NEG_INFINITY, None); rows];
    let mut col: Vec<(f64, Option<usize>)> = vec![(f64::NEG_INFINITY, None); cols];
    let better = |best: &mut (f64, Option<usize>), s: f64, k: usize| {
        if s > best.0 {
            *best = (s, Some(k));
        } else if s == best.0 {
            best.1 = None;
        }
    };
    for (r, row_best) in row.iter_mut().enumerate() {
        for c in cands(r) {
            if !budget.take() {
                return None;
            }
            let s = score(r, c);
            if s >= SAME_NODE {
                better(row_best, s, c);
                better(&mut col[c], s, r);
            }
        }
    }
    Some(
        (0..rows)
            .filter_map(|r| {
                let c = row[r].1?;
                (col[c].1 == Some(r)).then_some((r, c))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half the properties alike is the same node; fewer is not; the longer list counts.
    #[test]
    fn likeness_is_the_share_of_the_longer_list() {
        let a = [("text", "\"a\""), ("offset_right", "40.0")];
        let b = [("text", "\"a\""), ("offset_right", "120.0")];
        let eq = |x: &&str, y: &&str| x == y;
        assert_eq!(likeness(&a, &b, eq), 0.5);
        let c = [
            ("text", "\"a\""),
            ("offset_right", "1"),
            ("offset_bottom", "2"),
        ];
        assert!(likeness(&a, &c, eq) < SAME_NODE);
        assert_eq!(likeness(&[], &[], eq), 1.0);
    }

    #[test]
    fn mutual_best_pairs_only_the_unambiguous() {
        let m = [[0.9, 0.6], [0.6, 0.8]];
        let mut budget = Budget::for_nodes(0);
        assert_eq!(
            mutual_best(2, 2, &mut budget, |r, c| m[r][c]),
            Some(vec![(0, 0), (1, 1)])
        );
        // Two rows alike one column (two identical nodes gone, one renamed): no pair.
        let tie = [[1.0], [1.0]];
        assert_eq!(
            mutual_best(2, 1, &mut budget, |r, c| tie[r][c]),
            Some(vec![])
        );
        // One row alike two columns equally: no pair either.
        assert_eq!(mutual_best(1, 2, &mut budget, |_, _| 0.75), Some(vec![]));
        // Row 0's best is column 0, but column 0's is row 1: only (1, 0).
        let m = [[0.7, 0.6], [0.9, 0.1]];
        let fwd = mutual_best(2, 2, &mut budget, |r, c| m[r][c]);
        let rev = mutual_best(2, 2, &mut budget, |r, c| m[1 - r][c]);
        assert_eq!(fwd, Some(vec![(1, 0)]));
        assert_eq!(rev, Some(vec![(0, 0)]));
        let mut small = Budget { left: 3, spent: 0 };
        assert_eq!(mutual_best(2, 2, &mut small, |r, c| m[r][c]), None);
    }

    /// Only the listed columns are compared and paid for: row 1 cannot see column 0, so
    /// row 0 has column 0 alone; the tie of rows 1 and 2 on column 1 pairs neither.
    #[test]
    fn mutual_best_among_compares_only_the_candidates() {
        let mut budget = Budget::for_nodes(0);
        let m = [[0.8, 0.0], [0.9, 0.6], [0.0, 0.6]];
        let cands = |r: usize| match r {
            0 => vec![0],
            1 => vec![1],
            _ => vec![1],
        };
        let found = mutual_best_among(3, 2, cands, &mut budget, |r, c| m[r][c]);
        assert_eq!(found, Some(vec![(0, 0)]));
        assert_eq!(budget.spent(), 3);
    }
}
