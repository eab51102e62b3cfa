//! What a side's own edits need from a node the other side deleted: a sub_resource the
//! node holds (its built-in script, shape, SpriteFrames, an Animation) that this side
//! edited, a NodePath this side wrote to it, a `[connection]` this side added from or to
//! it. Any of these turns the deletion into a delete-against-modify conflict (decided in
//! [`crate::merge::tree::nodes`]); git conflicts on each of them too. Edits to the node's own lines
//! are left to [`crate::merge::tree::nodes`], properties that hold an edited resource to
//! [`crate::merge::values::resources::keep_held_edits`].

use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::tree::connections::conn_key;
use crate::merge::values::nodepaths::named_nodes;
use crate::merge::values::resources::{edited_subs, sub_name, sub_refs_in};
use std::collections::{BTreeMap, BTreeSet};

/// Per side, what its edits need: edited sub_resources, and nodes (by identity) its new
/// NodePaths and connections name, with what names them.
pub(in crate::merge) struct Needs {
    edited: [BTreeSet<usize>; 3],
    named: [BTreeMap<usize, String>; 3],
    /// Nodes (by identity) a side's new NodePaths name: a line merge cannot see these.
    path_named: [BTreeSet<usize>; 3],
}

impl Needs {
    /// Gather both sides' needs.
    pub(in crate::merge) fn of(ctx: &Ctx) -> Needs {
        let mut named = [BTreeMap::new(), BTreeMap::new(), BTreeMap::new()];
        let mut path_named = [BTreeSet::new(), BTreeSet::new(), BTreeSet::new()];
        for side in [O, T] {
            node_paths_written(ctx, side, &mut named[side]);
            path_named[side] = named[side].keys().copied().collect();
            connections_added(ctx, side, &mut named[side]);
        }
        Needs {
            edited: [B, O, T].map(|s| edited_subs(ctx, s)),
            named,
            path_named,
        }
    }

    /// Whether a NodePath side `kept` wrote names node `ident`. Nothing but the
    /// structural merge sees that need: a clean line merge would leave a path to nothing.
    pub(in crate::merge) fn path_names(&self, ident: usize, kept: usize) -> bool {
        self.path_named[kept].contains(&ident)
    }

    /// Why side `kept` needs node `ident`, which `deleter` deleted: `None` when nothing
    /// it changed needs it.
    pub(in crate::merge) fn why(
        &self,
        ctx: &Ctx,
        ident: usize,
        kept: usize,
        deleter: usize,
    ) -> Option<String> {
        if let Some(what) = self.named[kept].get(&ident) {
            return Some(format!("(deleted, but the other side's {what} names it)"));
        }
        let i = ctx.id.node.at[ident][kept]?;
        let section = ctx.sc[kept].nodes[i].section;
        let sub = sub_refs_in(ctx, kept, section)
            .into_iter()
            .find(|&s| self.edited[kept].contains(&s) && ctx.id.sub.at[s][deleter].is_none())?;
        Some(format!(
            "(deleted, but the other side edited its {})",
            sub_name(ctx, sub, kept)
        ))
    }
}

/// NodePaths `side` wrote (new or changed since base) and the nodes they name.
fn node_paths_written(ctx: &Ctx, side: usize, named: &mut BTreeMap<usize, String>) {
    let sc = ctx.sc;
    for (i, n) in sc[side].nodes.iter().enumerate() {
        let ident = ctx.id.node.of[side][i];
        let base = ctx.id.node.at[ident][B].map(|k| ctx.sec(B, sc[B].nodes[k].section));
        for p in &ctx.sec(side, n.section).props {
            let text = sc[side].doc.slice(&p.value);
            if !text.contains("NodePath(") {
                continue;
            }
            let was = base
                .and_then(|s| s.prop(&p.key))
                .map(|q| (B, q.value.range()));
            if ctx.same(&was, &Some((side, p.value.range()))) {
                continue;
            }
            for target in named_nodes(text, &n.path) {
                if let Some(&t) = ctx.paths[side].get(target.as_str()) {
                    let what = format!("{} of node \"{}\"", p.key, n.path);
                    named.entry(ctx.id.node.of[side][t]).or_insert(what);
                }
            }
        }
    }
}

/// Connections `side` added (not in base) and the nodes they come from or go to.
fn connections_added(ctx: &Ctx, side: usize, named: &mut BTreeMap<usize, String>) {
    let sc = ctx.sc;
    let in_base: BTreeSet<_> = (0..sc[B].connections.len())
        .map(|k| conn_key(ctx, B, k))
        .collect();
    for (k, c) in sc[side].connections.iter().enumerate() {
        if in_base.contains(&conn_key(ctx, side, k)) {
            continue;
        }
        let c = &c.key;
        for end in [&c.from, &c.to] {
            let ident = match ctx.paths[side].get(end.as_str()) {
                Some(&i) => ctx.id.node.of[side][i],
                None if end.as_str() == "." => ctx.root_ident(side),
                None => continue,
            };
            let what = format!(
                "connection {} from \"{}\" to \"{}\" ({})",
                c.signal, c.from, c.to, c.method
            );
            named.entry(ident).or_insert(what);
        }
    }
}
