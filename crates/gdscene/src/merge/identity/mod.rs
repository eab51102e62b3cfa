//! Stage 1, identity: which ext_resource, sub_resource and node of base, ours and
//! theirs are the same thing (ext_resources by uid and path, sub_resources by id, use
//! and content, nodes by unique_id or path, renames and moves followed, re-saves and
//! re-imports seen through), and the keys connections and editables are matched by.
//! Hands on the identity tables inside [`crate::merge::shared::context::Ctx`], and the
//! identity choices `--explain` shows as decisions. Nothing here merges a value.

mod ext_resources;
mod keystore;
mod kinds;
mod lockstep;
mod moves;
mod multimap;
mod nodes;
mod shared_ids;
mod sub_resources;

use crate::merge::shared::idents::{Idents, B, O, T};
use crate::merge::shared::subs_named::SubsNamed;
use crate::model::Scene;
use ext_resources::match_exts;
use nodes::match_nodes;
use std::collections::BTreeMap;
use sub_resources::{SubMatcher, REIMPORT};

/// Match everything (tests: the merge keeps what it searches, [`match_all_sharing`]).
#[cfg(test)]
pub fn match_all<'a>(sc: [&'a Scene; 3]) -> Idents<'a> {
    match_all_sharing(sc, &SubsNamed::default())
}

/// [`match_all`], the sub_resource references it searches the sides for kept in `named`
/// for later stages.
pub(in crate::merge) fn match_all_sharing<'a>(sc: [&'a Scene; 3], named: &SubsNamed) -> Idents<'a> {
    let ext = match_exts(sc);
    let (node, paths, parent_at, shared_changes, same_place) = match_nodes(sc);
    let mut m = SubMatcher::new(sc, (&ext, &node), named);
    for x in [O, T] {
        m.match_side(x);
    }
    let SubMatcher {
        sub, sub_matches, ..
    } = m;
    Idents {
        paths,
        parent_at,
        ext,
        sub,
        node,
        sub_matches,
        shared_changes,
        same_place,
    }
}

/// The automatic identity choices matching made that `--explain` shows: nodes both sides
/// re-identified alike, sub_resource contents followed past a reused id.
pub(in crate::merge) fn record_identity_decisions(ctx: &mut crate::merge::shared::context::Ctx) {
    let sc = ctx.sc;
    for c in &ctx.id.shared_changes {
        let Some(o) = ctx.id.node.at[c.ident][O] else {
            continue;
        };
        ctx.decisions
            .push(crate::merge::decisions::Decision::NodeIdentityShared {
                path: sc[O].nodes[o].path.to_string(),
                by_unique_id: c.by_unique_id,
            });
    }
    for m in ctx.id.sub_matches.iter().filter(|m| m.how == REIMPORT) {
        let Some(b) = ctx.id.sub.at[m.ident][B] else {
            continue;
        };
        let r = &sc[m.side].sub_resources[m.index];
        ctx.decisions
            .push(crate::merge::decisions::Decision::ResourceContentFollowed {
                side: if m.side == O { "ours" } else { "theirs" },
                type_name: r.type_name.clone(),
                base_id: sc[B].sub_resources[b].id.clone(),
                id: r.id.clone(),
            });
    }
}

/// Identities for parts keyed by a value (connections, editables): for each identity,
/// the index on each side, and each side's order of identities. The first of equal
/// keys on a side wins.
#[allow(clippy::type_complexity)]
pub(in crate::merge) fn key_table<K: Ord>(
    counts: [usize; 3],
    mut key: impl FnMut(usize, usize) -> K,
) -> (Vec<[Option<usize>; 3]>, [Vec<usize>; 3]) {
    let mut table: BTreeMap<K, usize> = BTreeMap::new();
    let mut at: Vec<[Option<usize>; 3]> = Vec::new();
    let mut seqs: [Vec<usize>; 3] = Default::default();
    for (side, &count) in counts.iter().enumerate() {
        for k in 0..count {
            let id = *table.entry(key(side, k)).or_insert_with(|| {
                at.push([None; 3]);
                at.len() - 1
            });
            if at[id][side].is_none() {
                at[id][side] = Some(k);
                seqs[side].push(id);
            }
        }
    }
    (at, seqs)
}
