//! Rival nodes: both sides added a node with the same name under the same parent, but
//! with different `unique_id`s (Godot 4.6), so matching made them two nodes. Two nodes
//! cannot share a path, and neither is a change of the other: they are a conflict of the
//! whole nodes. One hunk holds ours' node with the descendants only ours has, and
//! theirs' node with the descendants only theirs has, so that picking a side keeps that
//! side's subtree whole. Which nodes are added is decided by [`crate::merge::tree::nodes`]; the hunk
//! is printed by [`crate::merge::output::print`] like a delete-against-modify hunk.
//!
//! A replacement is the same competition with a base node on one side: one side
//! deleted node X and added Y under the same parent with the same name (a new
//! `unique_id`, often an instance instead of a plain node), while the other side changed
//! X, a delete-against-modify conflict. One hunk holds X (with what it carries) against
//! Y (with the nodes only Y's side added under it), so that either pick leaves one node
//! at that path.
//!
//! Arrivals are the same competition among nodes both sides kept: ours renamed X to Y
//! while theirs renamed Z to Y (identity kept them apart), or ours moved X onto the path
//! where theirs added a new Y. The kept node's `[node]` line is in conflict (each side's
//! name and parent, its children's `parent=` spelled per side), and a node one side
//! added there is in conflict as a whole against nothing, so that picking either side
//! gives one node at that path.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{OutSec, TagOut};
use crate::merge::tree::nodes::{hung_under, path_on};
use std::collections::BTreeMap;

/// Turn every pair of rival nodes into one whole-node conflict: ours' identity carries
/// both sides' subtrees, theirs' identity (and what its hunk carries) leaves the result.
pub(in crate::merge) fn pair_rivals<'a>(ctx: &mut Ctx<'a>, merged: &mut [Option<MergedNode<'a>>]) {
    for (o, t) in rivals(ctx, merged) {
        let carried = [O, T].map(|s| added_under(ctx, if s == O { o } else { t }, s));
        for &d in carried.iter().flatten() {
            merged[d] = None;
        }
        merged[t] = None;
        let Some(m) = merged[o].as_mut() else {
            continue;
        };
        let mut whole: [Vec<usize>; 3] = Default::default();
        for (s, top) in [(O, o), (T, t)] {
            let at = |d: usize| ctx.id.node.at[d][s].map(|i| ctx.sc[s].nodes[i].section);
            whole[s].extend(at(top));
            whole[s].extend(carried[s - 1].iter().filter_map(|&d| at(d)));
        }
        let mut out = OutSec::whole_conflict(O, [None; 3]);
        out.whole = Some(Box::new(whole));
        m.out = out;
        m.fields = None;
        report(ctx, o, t, carried.map(|c| c.len()));
    }
}

/// Turn every replacement (see the module header) into one hunk, held by Y's identity:
/// X's conflict (kept side, with what it carries) against Y and the nodes only Y's side
/// added under it, without a base part (like rivals'). Skipped when another node still
/// hangs under X.
pub(in crate::merge) fn pair_replacements<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
) {
    for (x, y, kept) in replacements(ctx, merged) {
        if merged.iter().enumerate().any(|(i, m)| {
            i != x
                && m.as_ref()
                    .is_some_and(|m| hung_under(ctx, i, m).contains(&x))
        }) {
            continue;
        }
        let Some(mut out) = merged[x].take().map(|m| m.out) else {
            continue;
        };
        let adder = 3 - kept;
        let folded = added_subtree(ctx, merged, y, adder);
        let mut theirs: Vec<usize> = Vec::with_capacity(folded.len() + 1);
        for &d in std::iter::once(&y).chain(&folded) {
            theirs.extend(ctx.id.node.at[d][adder].map(|i| ctx.sc[adder].nodes[i].section));
        }
        for &d in &folded {
            merged[d] = None;
        }
        let carried = out
            .whole
            .as_ref()
            .map_or(0, |w| w[kept].len().saturating_sub(1));
        // No base part: a line merge of the hunk against base could take one side's
        // `[node]` line with the other side's body.
        if let Some(w) = out.whole.as_mut() {
            w[adder] = theirs;
            w[B].clear();
        }
        let Some(m) = merged[y].as_mut() else {
            continue;
        };
        m.out = out;
        m.fields = None;
        ctx.decisions.push(Decision::ReplacedNodeConflict {
            node: path_on(ctx, y, adder),
            replaced_by: if adder == O { "ours" } else { "theirs" },
            old_nodes: carried,
            new_nodes: folded.len(),
        });
    }
}

/// The replacements (X, Y, the side that kept X): X, a base node one side deleted, is
/// in conflict as a whole; Y, added by the deleting side alone with X's parent and name,
/// is printed on its own.
fn replacements(ctx: &Ctx, merged: &[Option<MergedNode>]) -> Vec<(usize, usize, usize)> {
    let at = &ctx.id.node.at;
    let place = |m: &MergedNode| (m.parent.clone(), m.name.to_string());
    let mut added: BTreeMap<(usize, (ParentRef, String)), usize> = BTreeMap::new();
    for (y, m) in merged.iter().enumerate() {
        let Some(m) = m.as_ref().filter(|m| m.out.whole.is_none()) else {
            continue;
        };
        for s in [O, T] {
            if at[y][B].is_none() && at[y][s].is_some() && at[y][3 - s].is_none() {
                added.entry((s, place(m))).or_insert(y);
            }
        }
    }
    let mut out = Vec::new();
    for (x, m) in merged.iter().enumerate() {
        let Some(m) = m.as_ref().filter(|m| m.out.whole.is_some()) else {
            continue;
        };
        let a = at[x];
        if a[B].is_none() || a[O].is_some() == a[T].is_some() {
            continue;
        }
        let kept = if a[O].is_some() { O } else { T };
        if let Some(y) = added.remove(&(3 - kept, place(m))) {
            out.push((x, y, kept));
        }
    }
    out
}

/// The nodes side `s` alone added below `top`, each hanging under `top` or under another
/// of them and printed on its own, in `s`'s order.
fn added_subtree(ctx: &Ctx, merged: &[Option<MergedNode>], top: usize, s: usize) -> Vec<usize> {
    let mut inside = std::collections::BTreeSet::from([top]);
    let mut out = Vec::new();
    for d in added_under(ctx, top, s) {
        let plain = merged[d].as_ref().is_some_and(|m| m.out.whole.is_none());
        let hangs = ctx.id.node.at[d][s]
            .and_then(|i| ctx.parent_ref(s, i).anchor())
            .is_some_and(|p| inside.contains(&p));
        if plain && hangs {
            inside.insert(d);
            out.push(d);
        }
    }
    out
}

/// The pairs (ours' identity, theirs' identity) of nodes each side added alone under
/// one parent with one name.
fn rivals(ctx: &Ctx, merged: &[Option<MergedNode>]) -> Vec<(usize, usize)> {
    let added_by = |ident: usize, s: usize| {
        let at = ctx.id.node.at[ident];
        at[B].is_none() && at[s].is_some() && at[3 - s].is_none()
    };
    let key = place_key;
    let mut ours = BTreeMap::new();
    for (ident, m) in merged.iter().enumerate() {
        if let Some(k) = m.as_ref().filter(|_| added_by(ident, O)).and_then(key) {
            ours.entry(k).or_insert(ident);
        }
    }
    let mut pairs = Vec::new();
    for (ident, m) in merged.iter().enumerate() {
        let Some(k) = m.as_ref().filter(|_| added_by(ident, T)).and_then(key) else {
            continue;
        };
        if let Some(o) = ours.remove(&k) {
            pairs.push((o, ident));
        }
    }
    pairs
}

/// Theirs' identity -> ours' identity of every pair of rivals (nodes each side added
/// alone under one parent with one name), known before nodes are decided: a node both
/// sides kept and moved under their own rival hangs, by either side, at one path, so
/// its place is no conflict (the rivals' hunk decides which node that path names).
pub(in crate::merge) fn twins(ctx: &Ctx) -> BTreeMap<usize, usize> {
    let at = &ctx.id.node.at;
    let added_by = |ident: usize, s: usize| {
        at[ident][B].is_none() && at[ident][s].is_some() && at[ident][3 - s].is_none()
    };
    let mut ours = BTreeMap::new();
    for (ident, a) in at.iter().enumerate() {
        if let Some(i) = a[O].filter(|_| added_by(ident, O)) {
            let key = (ctx.parent_ref(O, i), ctx.sc[O].nodes[i].name.as_str());
            ours.entry(key).or_insert(ident);
        }
    }
    let mut pairs = BTreeMap::new();
    for (ident, a) in at.iter().enumerate() {
        let Some(i) = a[T].filter(|_| added_by(ident, T)) else {
            continue;
        };
        let parent = same_parent(ctx.parent_ref(T, i), &pairs);
        if let Some(o) = ours.remove(&(parent, ctx.sc[T].nodes[i].name.as_str())) {
            pairs.insert(ident, o);
        }
    }
    pairs
}

/// Theirs' parent, named by ours' identity when it is one of theirs' [`twins`].
pub(in crate::merge) fn same_parent(p: ParentRef, twins: &BTreeMap<usize, usize>) -> ParentRef {
    match p {
        ParentRef::Node(a) => ParentRef::Node(*twins.get(&a).unwrap_or(&a)),
        ParentRef::Inside { anchor, rest } => ParentRef::Inside {
            anchor: *twins.get(&anchor).unwrap_or(&anchor),
            rest,
        },
        other => other,
    }
}

/// The descendants of node `top` on side `s` that only `s` has, in `s`'s order.
fn added_under(ctx: &Ctx, top: usize, s: usize) -> Vec<usize> {
    let Some(i) = ctx.id.node.at[top][s] else {
        return Vec::new();
    };
    let sc = ctx.sc[s];
    let top_path = sc.nodes[i].path.as_str();
    let under = |p: &str| p.strip_prefix(top_path).is_some_and(|r| r.starts_with('/'));
    sc.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| top_path != "." && under(&n.path))
        .map(|(k, _)| ctx.id.node.of[s][k])
        .filter(|&d| {
            let at = ctx.id.node.at[d];
            at[B].is_none() && at[3 - s].is_none()
        })
        .collect()
}

/// The conflict report and the decision for one pair.
fn report(ctx: &mut Ctx, o: usize, t: usize, carried: [usize; 2]) {
    let path = path_on(ctx, o, O);
    let side = |s: usize, ident: usize, n: usize| {
        let uid = ctx.id.node.at[ident][s]
            .and_then(|i| {
                ctx.sc[s].doc.sections[ctx.sc[s].nodes[i].section]
                    .tag
                    .field("unique_id")
            })
            .map(|r| ctx.sc[s].doc.slice(&r).to_string())
            .unwrap_or_default();
        Some(format!("(node unique_id={uid}, {n} descendant(s))"))
    };
    let [no, nt] = carried;
    let (vo, vt) = (side(O, o, no), side(T, t, nt));
    ctx.part_conflict(
        format!("node \"{path}\""),
        Some("(both sides added a different node with this name)".into()),
        [None, vo, vt],
    );
    ctx.decisions.push(Decision::RivalNodesConflict {
        node: path,
        ours_nodes: no,
        theirs_nodes: nt,
    });
}

/// Where a merged node hangs and its name, comparable across identities (`None` for
/// the root).
fn place_key(m: &MergedNode<'_>) -> Option<(Option<usize>, String, String)> {
    let (anchor, rest) = match &m.parent {
        ParentRef::Root => return None,
        ParentRef::Node(p) => (Some(*p), ""),
        ParentRef::Inside { anchor, rest } => (Some(*anchor), rest.as_str()),
        ParentRef::Outside(p) => (None, p.as_str()),
    };
    Some((anchor, rest.to_string(), m.name.to_string()))
}

/// Whether side `s`'s node of `ident` sits at the merged node's place.
fn placed_by(ctx: &Ctx, ident: usize, m: &MergedNode, s: usize) -> bool {
    ctx.id.node.at[ident][s].is_some_and(|i| {
        ctx.sc[s].nodes[i].name.as_str() == m.name && ctx.parent_ref(s, i) == m.parent
    })
}

/// Make every meeting of two nodes at one path in the result (see the module header)
/// a conflict: the kept nodes' `[node]` lines per side, a node one side added there a
/// whole-node conflict against nothing.
pub(in crate::merge) fn pair_arrivals<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
) {
    let names: std::collections::BTreeSet<&str> = (0..merged.len())
        .filter(|&i| moved_kept(ctx, merged, i))
        .filter_map(|i| merged[i].as_ref().map(|m| m.name))
        .collect();
    if names.is_empty() {
        return;
    }
    let mut at_place: BTreeMap<(Option<usize>, String, String), Vec<usize>> = BTreeMap::new();
    for (ident, m) in merged.iter().enumerate() {
        let m = m.as_ref().filter(|m| names.contains(m.name));
        if let Some(k) = m.and_then(place_key) {
            at_place.entry(k).or_default().push(ident);
        }
    }
    for group in at_place.into_values().filter(|g| g.len() > 1) {
        let at = |i: usize| ctx.id.node.at[i];
        let moved = |i: usize| moved_kept(ctx, merged, i);
        let kept: Vec<usize> = group.iter().copied().filter(|&i| moved(i)).collect();
        if kept.is_empty() {
            continue;
        }
        let described = [O, T].map(|s| arrived(ctx, merged, &group, s));
        let node = path_on(
            ctx,
            kept[0],
            if placed_by_any(ctx, merged, kept[0], O) {
                O
            } else {
                T
            },
        );
        for &i in &kept {
            if let Some(m) = merged[i].as_mut() {
                lines_per_side(ctx, m);
            }
        }
        for &i in &group {
            let a = at(i);
            let adder = match (a[B], a[O], a[T]) {
                (None, Some(_), None) => O,
                (None, None, Some(_)) => T,
                _ => continue,
            };
            if merged[i].as_ref().is_some_and(|m| m.out.whole.is_none()) {
                whole_against_nothing(ctx, merged, i, adder);
            }
        }
        ctx.part_conflict(
            format!("node \"{node}\""),
            Some("(two nodes arrive at this path)".into()),
            [None, Some(described[0].clone()), Some(described[1].clone())],
        );
        let [ours, theirs] = described;
        ctx.decisions
            .push(Decision::NodesAtOnePathConflict { node, ours, theirs });
    }
}

/// Whether `ident` is a node both sides kept, not in conflict as a whole, that a side
/// renamed or moved: only where such a node went can two nodes meet. A node with one
/// name and one parent on all three sides ([`crate::merge::shared::idents::Idents::same_place`],
/// most nodes of a big scene) was placed there by both: its merged name and parent are
/// picked from the sides', all alike, so its nodes are not read (they are cold by now,
/// and reading them was most of this pass).
fn moved_kept(ctx: &Ctx, merged: &[Option<MergedNode>], ident: usize) -> bool {
    let at = ctx.id.node.at[ident];
    merged[ident].as_ref().is_some_and(|m| {
        m.out.whole.is_none()
            && at[O].is_some()
            && at[T].is_some()
            && !ctx.id.same_place(ident)
            && !(placed_by(ctx, ident, m, O) && placed_by(ctx, ident, m, T))
    })
}

/// Whether side `s` holds the merged node of `ident` at its merged place.
fn placed_by_any(ctx: &Ctx, merged: &[Option<MergedNode>], ident: usize, s: usize) -> bool {
    merged[ident]
        .as_ref()
        .is_some_and(|m| placed_by(ctx, ident, m, s))
}

/// What side `s` put at the group's path: a base node renamed or moved there (its base
/// path), a node kept there, or a new node.
fn arrived(ctx: &Ctx, merged: &[Option<MergedNode>], group: &[usize], s: usize) -> String {
    let here = group
        .iter()
        .copied()
        .find(|&i| placed_by_any(ctx, merged, i, s));
    match here {
        Some(i) if ctx.id.node.at[i][B].is_some() => {
            let (from, to) = (path_on(ctx, i, B), path_on(ctx, i, s));
            if from == to {
                format!("node \"{from}\" (kept there)")
            } else {
                format!("node \"{from}\" renamed or moved there")
            }
        }
        Some(_) => "a new node".into(),
        None => "another node".into(),
    }
}

/// A kept node's `[node]` line printed per side (each side's name and parent), the
/// nodes under it spelling `parent=` per side.
fn lines_per_side(ctx: &Ctx, m: &mut MergedNode) {
    let secs = m.out.origin.all();
    let tag_of = |s: usize| secs[s].map(|si| (s, ctx.sec(s, si).tag.span.range()));
    m.out.tag = TagOut::Conflict(Box::new([tag_of(B), tag_of(O), tag_of(T)]));
    m.out.verbatim = None;
    m.tag_conflict = true;
    m.place_conflict = true;
}

/// A node only `adder` added, with the nodes only `adder` added under it, in conflict as
/// a whole against nothing.
fn whole_against_nothing<'a>(
    ctx: &Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
    y: usize,
    adder: usize,
) {
    let folded = added_subtree(ctx, merged, y, adder);
    let mut whole: [Vec<usize>; 3] = Default::default();
    for &d in std::iter::once(&y).chain(&folded) {
        whole[adder].extend(ctx.id.node.at[d][adder].map(|i| ctx.sc[adder].nodes[i].section));
    }
    for &d in &folded {
        merged[d] = None;
    }
    if let Some(m) = merged[y].as_mut() {
        let mut out = OutSec::whole_conflict(adder, [None; 3]);
        out.whole = Some(Box::new(whole));
        m.out = out;
        m.fields = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::shared::merged::MergedNode;
    use crate::model::Scene;

    const BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"B\" type=\"Node2D\" parent=\"A\"]\nposition = Vector2(1, 2)\n\n[node name=\"C\" type=\"Node2D\" parent=\"A\"]\n\n[node name=\"D\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"E\" type=\"Node2D\" parent=\"D\"]\n";

    /// Every node of a merge: whether the fast [`moved_kept`] answers what reading
    /// both sides' nodes answers, and how many nodes it answered without reading them.
    fn agree(texts: [&str; 3]) -> usize {
        let s = texts.map(|t| Scene::parse(t.as_bytes()).expect("parses"));
        let sc = [&s[0], &s[1], &s[2]];
        let mut ctx = Ctx::new(sc, crate::merge::identity::match_all(sc));
        let nodes = crate::merge::tree::nodes::decide(&mut ctx);
        let merged: &[Option<MergedNode>] = &nodes.merged;
        let mut fast = 0;
        for ident in 0..merged.len() {
            let at = ctx.id.node.at[ident];
            let slow = merged[ident].as_ref().is_some_and(|m| {
                m.out.whole.is_none()
                    && at[O].is_some()
                    && at[T].is_some()
                    && !(placed_by(&ctx, ident, m, O) && placed_by(&ctx, ident, m, T))
            });
            assert_eq!(moved_kept(&ctx, merged, ident), slow, "identity {ident}");
            if ctx.id.same_place(ident) {
                fast += 1;
                let m = merged[ident].as_ref().expect("kept");
                assert!(placed_by(&ctx, ident, m, O) && placed_by(&ctx, ident, m, T));
            }
        }
        fast
    }

    /// Renames, moves, a rename of a parent, an added node, a deletion, a reorder, on
    /// one side and on both: the nodes marked as placed alike everywhere are placed
    /// by both sides, and the pass answers as it did reading every node.
    #[test]
    fn nodes_placed_alike_everywhere_are_placed_by_both_sides() {
        let renamed = BASE.replace("name=\"C\"", "name=\"C2\"");
        let moved = BASE.replace(
            "name=\"E\" type=\"Node2D\" parent=\"D\"",
            "name=\"E\" type=\"Node2D\" parent=\"A\"",
        );
        let parent_renamed = BASE
            .replace("name=\"A\"", "name=\"A2\"")
            .replace("parent=\"A\"", "parent=\"A2\"");
        let added = format!("{BASE}\n[node name=\"F\" type=\"Node2D\" parent=\"D\"]\n");
        let deleted = BASE.replace("\n[node name=\"E\" type=\"Node2D\" parent=\"D\"]\n", "");
        let edited = BASE.replace("Vector2(1, 2)", "Vector2(3, 4)");
        let sides = [
            BASE.to_string(),
            renamed,
            moved,
            parent_renamed,
            added,
            deleted,
            edited,
        ];
        let mut fast = 0;
        for o in &sides {
            for t in &sides {
                fast += agree([BASE, o, t]);
            }
        }
        // Unchanged scenes mark every node but the root.
        assert_eq!(agree([BASE, BASE, BASE]), 5);
        assert!(fast > 0);
    }
}
