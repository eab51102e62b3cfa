//! Node `unique_id`s in the result: a node only theirs added whose `unique_id` another
//! node of the result already holds (two different new nodes given one id by hand or by
//! a duplicated file, which identity kept apart) gets a fresh id in Godot 4.6's shape,
//! explained as a decision; a node both sides kept to which theirs gave a new id (a
//! re-save) that a different node of ours holds keeps ours' id, explained too. Ours'
//! nodes keep theirs; which nodes are in the result, and where, is the tree stage's.

use crate::merge::decisions::Decision;
use crate::merge::ids::assign::new_node_uid;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::{node_at_section, MergedNode};
use crate::merge::shared::sections::{Chunk, TagOut};
use crate::model::{NodeKey, Scene};
use std::collections::BTreeSet;

/// A node's own `unique_id` (not an override entry's inside an instance).
fn own_uid(s: &Scene, i: usize) -> Option<i64> {
    match &s.nodes[i].key {
        NodeKey::UniqueId { scope, id } if scope.is_empty() => Some(*id),
        _ => None,
    }
}

/// Give every node only theirs added whose `unique_id` ours' nodes hold a fresh one.
pub(in crate::merge) fn renumber_theirs(ctx: &mut Ctx, merged: &mut [Option<MergedNode>]) {
    let sc = ctx.sc;
    let ours: BTreeSet<i64> = (0..sc[O].nodes.len())
        .filter_map(|i| own_uid(sc[O], i))
        .collect();
    if ours.is_empty() {
        return;
    }
    keep_ours_on_reidentified(ctx, merged, &ours);
    let mut used = ours.clone();
    for s in [B, T] {
        used.extend((0..sc[s].nodes.len()).filter_map(|i| own_uid(sc[s], i)));
    }
    renumber_theirs_in_hunks(ctx, merged, &ours, &mut used);
    for (ident, m) in merged.iter_mut().enumerate() {
        let [None, None, Some(i)] = ctx.id.node.at[ident] else {
            continue;
        };
        let Some(m) = m.as_mut().filter(|m| m.out.whole.is_none()) else {
            continue;
        };
        let Some(old) = own_uid(sc[T], i).filter(|u| ours.contains(u)) else {
            continue;
        };
        let node = sc[T].nodes[i].path.to_string();
        let new = new_node_uid(&format!("{node} {old}"), &used);
        used.insert(new);
        if !with_uid(ctx, m, i, new) {
            continue;
        }
        ctx.decisions.push(Decision::NodeUniqueIdRenamed {
            node,
            from: old,
            to: new,
        });
    }
}

/// The nodes theirs added that theirs' part of a whole-section hunk prints (the hunk's
/// node or a descendant it carries) with a `unique_id` ours' nodes hold: that part
/// writes a fresh one (resolving the hunk to theirs keeps the ids apart).
fn renumber_theirs_in_hunks(
    ctx: &mut Ctx,
    merged: &[Option<MergedNode>],
    ours: &BTreeSet<i64>,
    used: &mut BTreeSet<i64>,
) {
    let sc = ctx.sc;
    for w in merged.iter().flatten().filter_map(|m| m.out.whole.as_ref()) {
        for &si in &w[T] {
            let Some(k) = node_at_section(ctx, T, si) else {
                continue;
            };
            let ident = ctx.id.node.of[T][k];
            let added = matches!(ctx.id.node.at[ident], [None, None, Some(_)]);
            let Some(old) = own_uid(sc[T], k).filter(|u| added && ours.contains(u)) else {
                continue;
            };
            let node = sc[T].nodes[k].path.to_string();
            let new = new_node_uid(&format!("{node} {old}"), used);
            used.insert(new);
            let tag = sc[T].doc.sections[si].tag.span.start();
            let put = ("unique_id", new.to_string());
            ctx.hunk_fields.entry((T, tag)).or_default().push(put);
            ctx.decisions.push(Decision::NodeUniqueIdRenamed {
                node,
                from: old,
                to: new,
            });
        }
    }
}

/// A node both sides kept whose merged `unique_id` is theirs' new one, held in ours by
/// a different node: it keeps ours' own id.
fn keep_ours_on_reidentified(
    ctx: &mut Ctx,
    merged: &mut [Option<MergedNode>],
    ours: &BTreeSet<i64>,
) {
    let sc = ctx.sc;
    for (ident, m) in merged.iter_mut().enumerate() {
        let [_, Some(oi), Some(ti)] = ctx.id.node.at[ident] else {
            continue;
        };
        let Some(m) = m
            .as_mut()
            .filter(|m| m.out.whole.is_none() && !m.tag_conflict)
        else {
            continue;
        };
        let (Some(mine), Some(theirs)) = (own_uid(sc[O], oi), own_uid(sc[T], ti)) else {
            continue;
        };
        let from_theirs = matches!(&m.out.tag, TagOut::Fields(_, list)
            if list.iter().any(|(k, v)| k == "unique_id" && matches!(v, Chunk::Src((T, _)))));
        if mine == theirs || !from_theirs || !ours.contains(&theirs) {
            continue;
        }
        if with_uid(ctx, m, ti, mine) {
            let node = sc[O].nodes[oi].path.to_string();
            ctx.decisions.push(Decision::NodeUniqueIdKeptOurs {
                node,
                theirs,
                ours: mine,
            });
        }
    }
}

/// Write `uid` as the `unique_id` of theirs' node `i` in its merged tag; whether the tag
/// had one to replace.
fn with_uid(ctx: &Ctx, m: &mut MergedNode, i: usize, uid: i64) -> bool {
    let lit = Chunk::Lit(uid.to_string());
    if let TagOut::Src((side, _)) = m.out.tag {
        let sec = ctx.sc[side].nodes[i].section;
        let fields = ctx.sec(side, sec).tag.fields.iter();
        let list = fields
            .map(|f| (f.key.to_string(), Chunk::Src((side, f.value.range()))))
            .collect();
        m.out.tag = TagOut::Fields("node".into(), list);
    }
    let TagOut::Fields(_, list) = &mut m.out.tag else {
        return false;
    };
    let Some(field) = list.iter_mut().find(|(k, _)| k == "unique_id") else {
        return false;
    };
    field.1 = lit;
    m.out.verbatim = None;
    true
}
