//! `[connection]` sections: matched by signal, from, to and method (nodes by identity,
//! so a renamed node's connections match), merged as a set; flags and binds three-way,
//! a disagreement a conflict on the tag; `from`/`to` rewritten to the nodes' paths in the
//! result. Node paths are [`super::paths`]'s; order is [`super::sequence`]'s.

use super::context::{eq_opt, pick3, Ctx, Pick};
use super::matching::{key_table, B, O, T};
use super::paths::MergedPaths;
use super::sections::{Chunk, OutSec, Src, TagOut};
use super::sequence::merge_order;
use crate::model::SectionKind;
use std::collections::BTreeMap;

/// A connection's identity key on a side: signal, from, to, method.
pub(super) fn conn_key(ctx: &Ctx, side: usize, k: usize) -> (String, String, String, String) {
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
/// side deleted: the node comes back as a delete/modify conflict ([`super::held`]), and
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

/// Merge the connections as a set keyed by signal, from, to and method (nodes by
/// identity): the other fields three-way, from/to following renamed and moved nodes.
pub(super) fn merge(ctx: &mut Ctx, paths: &MergedPaths) -> (BTreeMap<usize, OutSec>, Vec<usize>) {
    let sc = ctx.sc;
    let counts = [0, 1, 2].map(|s| sc[s].connections.len());
    let (at, seqs) = key_table(counts, |side, k| conn_key(ctx, side, k));
    let mut out = BTreeMap::new();
    let tag_src = |side: usize, k: usize| -> Src {
        (
            side,
            sc[side].doc.sections[sc[side].connections[k].section]
                .tag
                .span
                .clone(),
        )
    };
    let norm_tag = |ctx: &Ctx, side: usize, k: usize| -> String {
        let s = &sc[side].doc.sections[sc[side].connections[k].section];
        let mut v: Vec<String> = s
            .tag
            .fields
            .iter()
            .filter(|f| f.key != "from" && f.key != "to")
            .map(|f| format!("{}={}", f.key, ctx.norm(&(side, f.value.clone()))))
            .collect();
        v.sort();
        v.join(" ")
    };
    for (id, a) in at.iter().enumerate() {
        let n = |s: usize| a[s].map(|k| norm_tag(ctx, s, k));
        let (nb, no, nt) = (n(B), n(O), n(T));
        let pick = pick3(&nb, &no, &nt, eq_opt);
        let chosen = match pick {
            Pick::Ours => a[O].map(|k| (O, k)),
            Pick::Theirs => a[T].map(|k| (T, k)),
            Pick::Conflict => {
                let loc = a[O].or(a[T]).map(|_| {
                    let (s, k) = if let Some(k) = a[O] {
                        (O, k)
                    } else {
                        (T, a[T].unwrap_or_default())
                    };
                    let c = &sc[s].connections[k].key;
                    format!(
                        "connection {} from \"{}\" to \"{}\" ({})",
                        c.signal, c.from, c.to, c.method
                    )
                });
                let tags = [B, O, T].map(|s| a[s].map(|k| tag_src(s, k)));
                ctx.value_conflict(
                    loc.unwrap_or_default(),
                    None,
                    [&tags[0], &tags[1], &tags[2]],
                );
                out.insert(
                    id,
                    OutSec {
                        kind: SectionKind::Connection,
                        verbatim: None,
                        tag: TagOut::Conflict(Box::new([
                            a[B].map(|k| tag_src(B, k)),
                            a[O].map(|k| tag_src(O, k)),
                            a[T].map(|k| tag_src(T, k)),
                        ])),
                        lines: Vec::new(),
                        whole: None,
                        origin: [None; 3],
                    },
                );
                continue;
            }
        };
        let Some((side, k)) = chosen else { continue };
        if a[other(side)].is_none() && names_node_deleted_by_other(ctx, side, k) {
            let tags = [B, O, T].map(|s| a[s].map(|k| tag_src(s, k)));
            let c = &sc[side].connections[k].key;
            let loc = format!(
                "connection {} from \"{}\" to \"{}\" ({})",
                c.signal, c.from, c.to, c.method
            );
            let why = Some("(names a node the other side deleted)".to_string());
            ctx.value_conflict(loc, why, [&tags[0], &tags[1], &tags[2]]);
            let tag = TagOut::Conflict(Box::new(tags));
            out.insert(id, OutSec::tag_only(SectionKind::Connection, None, tag));
            continue;
        }
        // from/to follow renamed and moved nodes.
        let c = &sc[side].connections[k].key;
        let sec = &sc[side].doc.sections[sc[side].connections[k].section];
        let new_path = |p: &str| -> Option<String> {
            let (ident, rest) = anchor(ctx, side, p)?;
            let np = match (paths.get(ident)?, rest) {
                (np, "") => np.to_string(),
                (np, rest) => crate::model::join_path(np, rest),
            };
            (np != p).then_some(np)
        };
        let (nf, nt2) = (new_path(&c.from), new_path(&c.to));
        let tag = if nf.is_none() && nt2.is_none() {
            TagOut::Src(tag_src(side, k))
        } else {
            let fields = sec
                .tag
                .fields
                .iter()
                .map(|f| {
                    let lit = match f.key.as_str() {
                        "from" => nf.clone(),
                        "to" => nt2.clone(),
                        _ => None,
                    };
                    (
                        f.key.to_string(),
                        lit.map_or(Chunk::Src((side, f.value.clone())), |p| {
                            Chunk::Lit(format!("\"{}\"", crate::write::c_escape(&p)))
                        }),
                    )
                })
                .collect();
            TagOut::Fields("connection".into(), fields)
        };
        let verbatim =
            (side == O && matches!(tag, TagOut::Src(_))).then(|| sc[O].connections[k].section);
        out.insert(id, OutSec::tag_only(SectionKind::Connection, verbatim, tag));
    }
    let keep: Vec<bool> = (0..at.len()).map(|i| out.contains_key(&i)).collect();
    let order = merge_order(&seqs[B], &seqs[O], &seqs[T], &keep);
    (out, order)
}
