//! The order of the resources in the result: ext_resources (both sides' orders merged,
//! then by id when ours keeps them sorted) and sub_resources (merged, then dependencies
//! first). Which resources stay is left to [`crate::merge::values::resources`].

use crate::merge::ids::assign::natural_cmp;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::O;
use crate::merge::shared::sequence::merge_order;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Deeper dependency chains than this are cut (hostile input).
const MAX_DEPTH: usize = 4096;

/// The ext_resources kept, in merged order (ids are not known yet).
pub(in crate::merge) fn exts(ctx: &Ctx, keep: &BTreeSet<usize>) -> Vec<usize> {
    let keep_v: Vec<bool> = (0..ctx.id.ext.at.len())
        .map(|i| keep.contains(&i))
        .collect();
    let [eb, eo, et] = &ctx.id.ext.of;
    merge_order(eb, eo, et, &keep_v)
}

/// Sort the ext_resources by their ids when ours has them sorted.
pub(in crate::merge) fn exts_by_id(ctx: &Ctx, order: &mut [usize], ids: &HashMap<usize, String>) {
    let sorted = ctx.sc[O]
        .ext_resources
        .windows(2)
        .all(|w| natural_cmp(&w[0].id, &w[1].id) != std::cmp::Ordering::Greater);
    if sorted {
        order.sort_by(|a, b| natural_cmp(&ids[a], &ids[b]));
    }
}

/// The sub_resources kept, in merged order with each one's dependencies (the
/// sub_resources it references, `deps`) before it.
pub(in crate::merge) fn subs(
    ctx: &Ctx,
    keep: &BTreeSet<usize>,
    refs: &BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)>,
) -> Vec<usize> {
    let keep_v: Vec<bool> = (0..ctx.id.sub.at.len())
        .map(|i| keep.contains(&i))
        .collect();
    let [sb, so, st] = &ctx.id.sub.of;
    let merged = merge_order(sb, so, st, &keep_v);
    let mut deps: HashMap<usize, Vec<usize>> = HashMap::new();
    for &i in &merged {
        let w = refs.get(&i).map(|(_, w)| w.clone()).unwrap_or_default();
        deps.insert(i, w);
    }
    let mut order: Vec<usize> = Vec::with_capacity(merged.len());
    let mut state: HashMap<usize, u8> = HashMap::new();
    for &i in &merged {
        visit(i, &deps, keep, &mut state, &mut order, 0);
    }
    order
}

/// Depth-first: dependencies, then `x`.
fn visit(
    x: usize,
    deps: &HashMap<usize, Vec<usize>>,
    keep: &BTreeSet<usize>,
    state: &mut HashMap<usize, u8>,
    out: &mut Vec<usize>,
    depth: usize,
) {
    if state.get(&x).copied().unwrap_or(0) != 0 || !keep.contains(&x) || depth > MAX_DEPTH {
        return;
    }
    state.insert(x, 1);
    if let Some(d) = deps.get(&x) {
        for &y in d {
            visit(y, deps, keep, state, out, depth + 1);
        }
    }
    state.insert(x, 2);
    out.push(x);
}
