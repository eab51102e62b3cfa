//! The order of the nodes in the result: both sides' orders merged, then parents before
//! children (the resources' order is [`crate::merge::ids::order`]'s). The order of property keys,
//! connections and editables uses the same [`crate::merge::shared::sequence::merge_order`] where they
//! are merged. What is in the result is left to the phases before.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::shared::merged::{printed_in, MergedNode};
use crate::merge::shared::sequence::{keeps_order, merge_order};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The order of the nodes in the result (identities), and the decisions it took.
pub(in crate::merge) fn nodes(ctx: &mut Ctx, merged: &[Option<MergedNode>]) -> Vec<usize> {
    let keep: Vec<bool> = merged.iter().map(Option::is_some).collect();
    let kept = |x: usize| keep.get(x).copied().unwrap_or(false);
    let [nb, no, nt] = &ctx.id.node.of;
    let order = merge_order(nb, no, nt, &keep);
    let filt = |v: &[usize]| v.iter().copied().filter(|&x| kept(x)).collect::<Vec<_>>();
    let (fb, fo, ft) = (filt(nb), filt(no), filt(nt));
    if fo != fb && ft != fb {
        ctx.decisions.push(Decision::SiblingOrderMerged);
        // Both reordered the nodes they share with base, and not the same way: order
        // has no conflict marker, so say that ours' order won.
        if !keeps_order(&fb, &fo) && !keeps_order(&fb, &ft) && !keeps_order(&fo, &ft) {
            ctx.decisions.push(Decision::OrderConflictOursKept);
        }
    }
    parents_first(order, merged, &printed_in(ctx, merged))
}

/// `order`, unless it is not depth-first (a node before its parent, or a subtree
/// interleaved with another): then depth-first from the nodes whose parent is not in the
/// order, children in `order`'s order, as the editor writes them. A node whose parent
/// is printed inside another node's hunk (`carried_by`) counts as that node's child.
fn parents_first(
    order: Vec<usize>,
    merged: &[Option<MergedNode>],
    carried_by: &HashMap<usize, usize>,
) -> Vec<usize> {
    // Position of each identity in the order (usize::MAX: not there).
    let mut pos_of: Vec<usize> = vec![usize::MAX; merged.len()];
    for (i, &x) in order.iter().enumerate() {
        if let Some(p) = pos_of.get_mut(x) {
            *p = i;
        }
    }
    let pos = |x: usize| pos_of.get(x).copied().filter(|&p| p != usize::MAX);
    let printer = |p: usize| carried_by.get(&p).copied().unwrap_or(p);
    let parent_of = |x: usize| merged.get(x)?.as_ref()?.parent.anchor().map(printer);
    // Nodes inside an instance are left where the sides put them.
    let listed_parent = |x: usize| match merged.get(x)?.as_ref()?.parent {
        ParentRef::Node(p) => Some(printer(p)).filter(|&p| pos(p).is_some()),
        _ => None,
    };
    if depth_first(&order, listed_parent) {
        return order;
    }
    let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut roots = Vec::new();
    for &x in &order {
        match parent_of(x).and_then(pos) {
            Some(pp) => children.entry(pp).or_default().push(x),
            None => roots.push(x),
        }
    }
    let mut out = Vec::with_capacity(order.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    let mut seen = BTreeSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        out.push(x);
        if let Some(c) = pos(x).and_then(|px| children.get(&px)) {
            stack.extend(c.iter().rev());
        }
    }
    for &x in &order {
        if seen.insert(x) {
            out.push(x);
        }
    }
    out
}

/// Whether every node comes right after its parent's subtree so far: its parent is on
/// the path of nodes leading to the node before it.
fn depth_first(order: &[usize], parent_of: impl Fn(usize) -> Option<usize>) -> bool {
    let mut path: Vec<usize> = Vec::new();
    for &x in order {
        if let Some(p) = parent_of(x) {
            while path.last().is_some_and(|&top| top != p) {
                path.pop();
            }
            if path.is_empty() {
                return false;
            }
        }
        // A node whose parent is not listed (the root, a node inside an instance) may
        // sit anywhere: it only joins the path.
        path.push(x);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::depth_first;

    /// A subtree interleaved with its sibling's is not depth-first; nested subtrees are.
    #[test]
    fn depth_first_sees_interleaved_subtrees() {
        // 0 root; 1, 2 under 0; 3 under 1; 4 under 2.
        let parent = |x: usize| [None, Some(0), Some(0), Some(1), Some(2)][x];
        assert!(depth_first(&[0, 1, 3, 2, 4], parent));
        assert!(!depth_first(&[0, 1, 2, 3, 4], parent));
        assert!(!depth_first(&[0, 3, 1, 2, 4], parent));
    }
}
