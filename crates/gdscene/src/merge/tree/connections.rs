//! `[connection]` sections: matched by signal, from, to and method (nodes by identity,
//! so a renamed node's connections match), merged as a set; flags, binds and unbinds
//! three-way field by field, a field changed differently on both sides a conflict on
//! the tag; `from`/`to` rewritten to the nodes' paths in the
//! result. Node paths are [`crate::merge::shared::merged::MergedPaths`]'s; order is [`crate::merge::shared::sequence`]'s.

use crate::merge::identity::key_table;
use crate::merge::shared::context::{eq_opt, pick3, Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::{Chunk, OutSec, Src, TagOut};
use crate::merge::shared::sequence::merge_order;
use crate::model::SectionKind;
use std::collections::BTreeMap;

/// A connection's identity key on a side: signal, from, to, method.
pub(in crate::merge) fn conn_key(
    ctx: &Ctx,
    side: usize,
    k: usize,
) -> (String, String, String, String) {
    let c = &ctx.sc[side].connections[k].key;
    let node = |p: &str| match anchor(ctx, side, p) {
        Some((ident, "")) => format!("#{ident}"),
        Some((ident, rest)) => format!("#{ident}/{rest}"),
        None if p == "." => format!("#{}", ctx.root_ident(side)),
        None => p.to_string(),
    };
    (
        c.signal.clone(),
        node(&c.from),
        node(&c.to),
        c.method.clone(),
    )
}

/// The node a connection's `from`/`to` path hangs on, on `side`: the node itself (rest
/// `""`), else its deepest ancestor that is a `[node]` of the file and the rest of the
/// path below it (a node inside an instanced scene, `Main/StartVR`). So a move of an
/// ancestor is followed whatever lies below it.
fn anchor<'p>(ctx: &Ctx, side: usize, p: &'p str) -> Option<(usize, &'p str)> {
    let ident = |q: &str| {
        let &i = ctx.paths[side].get(q)?;
        ctx.id.node.of[side].get(i).copied()
    };
    if let Some(id) = ident(p) {
        return Some((id, ""));
    }
    let mut end = p.len();
    while let Some(k) = p.get(..end)?.rfind('/') {
        if let Some(id) = ident(&p[..k]) {
            return Some((id, &p[k + 1..]));
        }
        end = k;
    }
    None
}

fn other(side: usize) -> usize {
    if side == O {
        T
    } else {
        O
    }
}

/// Whether connection `k` of `side` comes from or goes to a node base had and the other
/// side deleted: the node comes back as a delete/modify conflict ([`crate::merge::tree::held`]), and
/// so must the connection, so that either choice is a valid scene.
fn names_node_deleted_by_other(ctx: &Ctx, side: usize, k: usize) -> bool {
    let c = &ctx.sc[side].connections[k].key;
    [&c.from, &c.to].into_iter().any(|end| {
        anchor(ctx, side, end).is_some_and(|(ident, _)| {
            let at = ctx.id.node.at[ident];
            at[B].is_some() && at[other(side)].is_none()
        })
    })
}

/// One connection's three sides: its index in each side's `connections`, if present.
type Sides = [Option<usize>; 3];

/// Merge the connections as a set keyed by signal, from, to and method (nodes by
/// identity): the other fields three-way, from/to following renamed and moved nodes.
pub(in crate::merge) fn merge(
    ctx: &mut Ctx,
    paths: &MergedPaths,
) -> (BTreeMap<usize, OutSec>, Vec<usize>) {
    let counts = [0, 1, 2].map(|s| ctx.sc[s].connections.len());
    let (at, seqs) = key_table(counts, |side, k| conn_key(ctx, side, k));
    let mut out = BTreeMap::new();
    for (id, &a) in at.iter().enumerate() {
        if let Some(sec) = merge_connection(ctx, paths, a) {
            out.insert(id, sec);
        }
    }
    let keep: Vec<bool> = (0..at.len()).map(|i| out.contains_key(&i)).collect();
    let order = merge_order(&seqs[B], &seqs[O], &seqs[T], &keep);
    (out, order)
}

/// One connection in the result, or `None` when the merge drops it: its fields (from/to
/// apart) three-way; a disagreement, or a connection that names a node the other side
/// deleted, is a conflict on the tag.
fn merge_connection(ctx: &mut Ctx, paths: &MergedPaths, a: Sides) -> Option<OutSec> {
    let n = |s: usize| a[s].map(|k| norm_tag(ctx, s, k));
    let (nb, no, nt) = (n(B), n(O), n(T));
    let (side, k) = match pick3(&nb, &no, &nt, eq_opt) {
        Pick::Ours => (O, a[O]?),
        Pick::Theirs => (T, a[T]?),
        Pick::Conflict => {
            return Some(merge_fields(ctx, paths, a).unwrap_or_else(|| fields_conflict(ctx, a)))
        }
    };
    if a[other(side)].is_none() && names_node_deleted_by_other(ctx, side, k) {
        return Some(deleted_node_conflict(ctx, a, side, k));
    }
    let tag = follow_nodes(ctx, paths, side, k);
    // Ours' own section when its tag is kept as written (`k` indexes `side`'s list).
    let ours_verbatim = side == O && matches!(tag, TagOut::Src(_));
    let verbatim = ours_verbatim.then(|| ctx.sc[O].connections[k].section);
    Some(OutSec::tag_only(SectionKind::Connection, verbatim, tag))
}

/// A connection both sides changed, its fields (`flags`, `binds`, `unbinds`) merged one
/// by one: one side's `flags` and the other's `binds` are both kept. `None` when a field
/// itself changed differently on both sides (a conflict on the tag).
fn merge_fields(ctx: &Ctx, paths: &MergedPaths, a: Sides) -> Option<OutSec> {
    let ks = [a[B]?, a[O]?, a[T]?];
    let sec = |s: usize| &ctx.sc[s].doc.sections[ctx.sc[s].connections[ks[s]].section];
    let field = |s: usize, key: &str| sec(s).tag.field(key).map(|r| (s, r));
    let mut keys: Vec<&str> = sec(O).tag.fields.iter().map(|f| f.key.as_str()).collect();
    for f in &sec(T).tag.fields {
        if !keys.contains(&f.key.as_str()) {
            keys.push(f.key.as_str());
        }
    }
    let c = &ctx.sc[O].connections[ks[O]].key;
    let mut fields = Vec::new();
    for key in keys {
        let moved = match key {
            "from" => merged_path(ctx, paths, O, &c.from),
            "to" => merged_path(ctx, paths, O, &c.to),
            _ => None,
        };
        if let Some(p) = moved {
            fields.push((
                key.to_string(),
                Chunk::Lit(format!("\"{}\"", crate::write::c_escape(&p))),
            ));
            continue;
        }
        let (fb, fo, ft) = (field(B, key), field(O, key), field(T, key));
        let chosen = match ctx.pick_same(&fb, &fo, &ft) {
            _ if key == "from" || key == "to" => fo,
            Pick::Ours => fo,
            Pick::Theirs => ft,
            Pick::Conflict => return None,
        };
        if let Some(src) = chosen {
            fields.push((key.to_string(), Chunk::Src(src)));
        }
    }
    let tag = TagOut::Fields("connection".into(), fields);
    Some(OutSec::tag_only(SectionKind::Connection, None, tag))
}

/// The `[connection]` tag of connection `k` on `side`.
fn tag_src(ctx: &Ctx, side: usize, k: usize) -> Src {
    let sc = ctx.sc[side];
    (
        side,
        sc.doc.sections[sc.connections[k].section].tag.span.range(),
    )
}

/// Each side's tag of a connection.
fn tags(ctx: &Ctx, a: Sides) -> [Option<Src>; 3] {
    [B, O, T].map(|s| a[s].map(|k| tag_src(ctx, s, k)))
}

/// The fields of connection `k` on `side` other than `from`/`to`, normalized and
/// sorted, so that sides compare by what they say and not how they write it.
fn norm_tag(ctx: &Ctx, side: usize, k: usize) -> String {
    let sc = ctx.sc[side];
    let s = &sc.doc.sections[sc.connections[k].section];
    let mut v: Vec<String> = s
        .tag
        .fields
        .iter()
        .filter(|f| f.key != "from" && f.key != "to")
        .map(|f| format!("{}={}", f.key, ctx.norm(&(side, f.value.range()))))
        .collect();
    v.sort();
    v.join(" ")
}

/// A connection as the conflict report names it.
fn location(ctx: &Ctx, side: usize, k: usize) -> String {
    let c = &ctx.sc[side].connections[k].key;
    format!(
        "connection {} from \"{}\" to \"{}\" ({})",
        c.signal, c.from, c.to, c.method
    )
}

/// Both sides changed a connection's flags or binds differently: a conflict on its tag.
fn fields_conflict(ctx: &mut Ctx, a: Sides) -> OutSec {
    let named = a[O].map(|k| (O, k)).or(a[T].map(|k| (T, k)));
    let loc = named.map(|(s, k)| location(ctx, s, k));
    let tags = tags(ctx, a);
    ctx.value_conflict(
        loc.unwrap_or_default(),
        None,
        [&tags[0], &tags[1], &tags[2]],
    );
    OutSec::tag_only(
        SectionKind::Connection,
        None,
        TagOut::Conflict(Box::new(tags)),
    )
}

/// Connection `k` of `side` names a node the other side deleted: a conflict on its tag,
/// as the node is a delete/modify conflict.
fn deleted_node_conflict(ctx: &mut Ctx, a: Sides, side: usize, k: usize) -> OutSec {
    let tags = tags(ctx, a);
    let why = Some("(names a node the other side deleted)".to_string());
    ctx.value_conflict(location(ctx, side, k), why, [&tags[0], &tags[1], &tags[2]]);
    let tag = TagOut::Conflict(Box::new(tags));
    OutSec::tag_only(SectionKind::Connection, None, tag)
}

/// The tag of connection `k` of `side` with `from`/`to` rewritten to the nodes' paths
/// in the result (renamed and moved nodes); the side's own tag when neither changed.
fn follow_nodes(ctx: &Ctx, paths: &MergedPaths, side: usize, k: usize) -> TagOut {
    let c = &ctx.sc[side].connections[k].key;
    let (from, to) = (
        merged_path(ctx, paths, side, &c.from),
        merged_path(ctx, paths, side, &c.to),
    );
    if from.is_none() && to.is_none() {
        return TagOut::Src(tag_src(ctx, side, k));
    }
    let sc = ctx.sc[side];
    let sec = &sc.doc.sections[sc.connections[k].section];
    let fields = sec
        .tag
        .fields
        .iter()
        .map(|f| {
            let lit = match f.key.as_str() {
                "from" => from.as_deref(),
                "to" => to.as_deref(),
                _ => None,
            };
            let chunk = lit.map_or(Chunk::Src((side, f.value.range())), |p| {
                Chunk::Lit(format!("\"{}\"", crate::write::c_escape(p)))
            });
            (f.key.to_string(), chunk)
        })
        .collect();
    TagOut::Fields("connection".into(), fields)
}

/// NodePath `p` of `side` as the result spells it, when that differs from `p`.
fn merged_path(ctx: &Ctx, paths: &MergedPaths, side: usize, p: &str) -> Option<String> {
    let (ident, rest) = anchor(ctx, side, p)?;
    let np = match (paths.get(ident)?, rest) {
        (np, "") => np.to_string(),
        (np, rest) => crate::model::join_path(np, rest),
    };
    (np != p).then_some(np)
}

#[cfg(test)]
mod tests {
    use crate::merge::{merge, MergeOptions};

    const BASE: &str = "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Button\" type=\"Button\" parent=\".\"]\n\n[connection signal=\"pressed\" from=\"Button\" to=\".\" method=\"_on_pressed\" flags=3 binds=[1]]\n";

    fn merged(ours: &str, theirs: &str) -> (bool, String) {
        let r = merge(
            BASE.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MergeOptions::default(),
        );
        (r.is_clean(), String::from_utf8_lossy(&r.text).into_owned())
    }

    /// Ours changed the flags, theirs the binds: both kept, one tag.
    #[test]
    fn flags_on_one_side_and_binds_on_the_other_merge_field_by_field() {
        let ours = BASE.replace("flags=3", "flags=7");
        let theirs = BASE.replace("binds=[1]", "binds=[1, 2]");
        let (clean, text) = merged(&ours, &theirs);
        assert!(clean, "{text}");
        assert!(
            text.ends_with("[connection signal=\"pressed\" from=\"Button\" to=\".\" method=\"_on_pressed\" flags=7 binds=[1, 2]]\n"),
            "{text}"
        );
    }

    /// Both changed the binds differently: a conflict on the tag.
    #[test]
    fn binds_changed_differently_on_both_sides_conflict() {
        let ours = BASE.replace("binds=[1]", "binds=[2]");
        let theirs = BASE.replace("binds=[1]", "binds=[3]");
        let (clean, text) = merged(&ours, &theirs);
        assert!(!clean, "{text}");
        assert!(text.contains("binds=[2]]\n||||||| base"), "{text}");
    }
}
