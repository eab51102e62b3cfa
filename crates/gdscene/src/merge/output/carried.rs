//! The sub_resources a delete-against-modify hunk takes with its subtree: those that only
//! the carried node sections use on the side that keeps them (and the sub_resources only
//! those use), and that the deleting side no longer has. Each is written as a hunk of its
//! own in the sub_resource area (sub_resources come before nodes in the file): the kept
//! side's section against nothing, so that resolving every hunk to either side gives a
//! scene without an unused or a dangling sub_resource; one whose id the result renamed
//! (theirs' id collided with ours') is printed with the result's id. Which nodes a hunk
//! carries is decided in [`crate::merge::tree::nodes`]; printing is left to [`crate::merge::output::print`].

use crate::merge::decisions::Decision;
use crate::merge::ids::assign::is_int_id;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{OutSec, TagFields};
use crate::merge::values::resources::sub_refs_in;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Put inside a hunk each sub_resource that only a carried subtree uses.
pub(in crate::merge) fn carry_subs(
    ctx: &mut Ctx,
    merged: &[Option<MergedNode>],
    subs: &mut BTreeMap<usize, OutSec>,
    sub_ids: &HashMap<usize, String>,
    fields: &mut TagFields,
) {
    for kept in [O, T] {
        let carried: BTreeSet<usize> = merged
            .iter()
            .flatten()
            .filter_map(|m| m.out.whole.as_deref())
            .filter(|w| w[3 - kept].is_empty())
            .flat_map(|w| w[kept].iter().copied())
            .collect();
        if carried.is_empty() {
            continue;
        }
        for ident in only_used_by(ctx, kept, &carried) {
            let Some(out) = subs.get_mut(&ident) else {
                continue;
            };
            let at = ctx.id.sub.at[ident];
            let Some(k) = at[kept] else { continue };
            let r = &ctx.sc[kept].sub_resources[k];
            let Some(id) = sub_ids.get(&ident) else {
                continue;
            };
            if id.as_str() != r.id.as_str() {
                let tag = ctx.sc[kept].doc.sections[r.section].tag.span.start();
                fields.insert((kept, tag), vec![("id", id_text(ctx, id))]);
            }
            let base = at[B].map(|b| ctx.sc[B].sub_resources[b].section);
            let mut whole: [Vec<usize>; 3] = [base.into_iter().collect(), Vec::new(), Vec::new()];
            whole[kept] = vec![r.section];
            out.whole = Some(Box::new(whole));
            ctx.decisions
                .push(Decision::ConflictCarriesSubResource { id: id.clone() });
        }
    }
}

/// A sub_resource id as the result's `id=` field spells it.
fn id_text(ctx: &Ctx, id: &str) -> String {
    if ctx.sc[O].is_godot3() && is_int_id(id) {
        id.to_string()
    } else {
        format!("\"{id}\"")
    }
}

/// The sub_resources (by identity) that sections `carried` of side `kept` use, directly
/// or through each other, that no other section of that side uses and that the other
/// side does not have.
fn only_used_by(ctx: &Ctx, kept: usize, carried: &BTreeSet<usize>) -> Vec<usize> {
    let sc = ctx.sc[kept];
    let other = 3 - kept;
    let sub_section = |s: usize| ctx.id.sub.at[s][kept].map(|k| sc.sub_resources[k].section);
    let mut inside: BTreeSet<usize> = BTreeSet::new();
    let mut frontier: Vec<usize> = carried.iter().copied().collect();
    while let Some(si) = frontier.pop() {
        for s in sub_refs_in(ctx, kept, si) {
            if ctx.id.sub.at[s][other].is_none() && inside.insert(s) {
                frontier.extend(sub_section(s));
            }
        }
    }
    let own: BTreeSet<usize> = inside.iter().filter_map(|&s| sub_section(s)).collect();
    let mut outside: Vec<usize> = Vec::new();
    for si in 0..sc.doc.sections.len() {
        if !carried.contains(&si) && !own.contains(&si) {
            outside.extend(sub_refs_in(ctx, kept, si));
        }
    }
    // A sub_resource a carried one uses, but also used from outside, stays outside, and
    // so does every one it uses, however deep: the hunk holds a resource only with every
    // use of it (else resolving the hunk away leaves a use naming nothing).
    while let Some(s) = outside.pop() {
        if inside.remove(&s) {
            outside.extend(sub_section(s).map_or_else(Vec::new, |si| sub_refs_in(ctx, kept, si)));
        }
    }
    inside.into_iter().collect()
}
