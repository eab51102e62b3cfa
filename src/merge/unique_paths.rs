//! `%UniqueName` NodePaths that follow a rename of their node (Godot 4).
//!
//! A node marked `unique_name_in_owner = true` is reached from any node of the same owner
//! scene as `%Name` (`NodePath("%Name")`, `"%Name/Child"`, `"%Name:text"`). When one side
//! renames such a node and the other side writes a path to it by its old name, the path
//! would name nothing in the merged scene. Here such a path is read in the tree of the
//! side that wrote it: the unique node its first step names there is found in the result,
//! and `%Old` becomes `%New` when the result names it so and keeps it unique.
//!
//! It decides only the leading `%Name` of a path held by a node of this scene (not one
//! inside an instanced scene, whose owner is another scene); relative paths are
//! [`super::nodepaths`]' and every other spelling stays as written.

use super::context::Ctx;
use super::matching::{O, T};
use super::nodepaths::node_paths;
use super::nodes::MergedNode;
use super::paths::MergedPaths;
use super::sections::Line;
use super::Decision;
use std::collections::BTreeMap;

/// Whether node `n` of a side belongs to the scene itself: no node above it (the root
/// apart) is an instance, so a `%Name` it holds or carries is this scene's.
fn owned_here(ctx: &Ctx, side: usize, n: usize) -> bool {
    let nodes = &ctx.sc[side].nodes;
    let Some(path) = nodes.get(n).map(|x| x.path.as_str()) else {
        return false;
    };
    path.match_indices('/').all(|(k, _)| {
        let up = ctx.paths[side].get(&path[..k]);
        up.is_some_and(|&i| nodes.get(i).is_some_and(|x| x.instance().is_none()))
    })
}

/// Whether node `n` of a side is marked `unique_name_in_owner = true`.
fn is_unique(ctx: &Ctx, side: usize, n: usize) -> bool {
    let Some(node) = ctx.sc[side].nodes.get(n) else {
        return false;
    };
    let sec = ctx.sec(side, node.section);
    sec.prop("unique_name_in_owner")
        .is_some_and(|p| ctx.text(&(side, p.value.range())).trim() == "true")
}

/// A side's unique names: name -> the identity of the one node of this scene marked
/// unique under it (`None`: several carry it, which the editor refuses).
fn unique_names<'a>(ctx: &Ctx<'a>, side: usize) -> BTreeMap<&'a str, Option<usize>> {
    let mut names: BTreeMap<&'a str, Option<usize>> = BTreeMap::new();
    let sc: &'a crate::model::Scene = ctx.sc[side];
    for (i, n) in sc.nodes.iter().enumerate() {
        if is_unique(ctx, side, i) && owned_here(ctx, side, i) {
            let ident = ctx.id.node.of[side].get(i).copied();
            names
                .entry(n.name.as_str())
                .and_modify(|x| *x = None)
                .or_insert(ident);
        }
    }
    names
}

/// The name node `ident` has in the result, when a side that names it so keeps it
/// unique there (else `%` of any name would not reach it).
fn result_name<'p>(ctx: &Ctx, ident: usize, paths: &'p MergedPaths) -> Option<&'p str> {
    let path = paths.get(ident).filter(|p| *p != ".")?;
    let name = path.rsplit('/').next()?;
    let at = ctx.id.node.at.get(ident)?;
    [O, T]
        .into_iter()
        .any(|s| {
            at[s].is_some_and(|i| ctx.sc[s].nodes[i].name.as_str() == name && is_unique(ctx, s, i))
        })
        .then_some(name)
}

/// `text` (a line of `side`) with each leading `%Old` that names a unique node the result
/// renamed written `%New`; `None` when nothing changes.
fn rewrite(
    ctx: &Ctx,
    text: &str,
    names: &BTreeMap<&str, Option<usize>>,
    paths: &MergedPaths,
) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for (start, end) in node_paths(text) {
        let Some(body) = text.get(start..end).and_then(|b| b.strip_prefix('%')) else {
            continue;
        };
        let old = body.split(['/', ':']).next().unwrap_or_default();
        let Some(&Some(ident)) = names.get(old) else {
            continue;
        };
        let Some(new) = result_name(ctx, ident, paths).filter(|n| *n != old) else {
            continue;
        };
        out.push_str(&text[copied..start + 1]);
        out.push_str(new);
        copied = start + 1 + old.len();
    }
    (copied > 0).then(|| out + &text[copied..])
}

/// Rewrite the `%Name` paths of node properties whose unique node the result renamed.
pub(super) fn follow_unique_names<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode>],
    paths: &MergedPaths,
) {
    let mut names: [Option<BTreeMap<&'a str, Option<usize>>>; 3] = [None, None, None];
    let mut followed = Vec::new();
    for (ident, m) in merged.iter_mut().enumerate() {
        let Some(out) = m.as_mut().map(|m| &mut m.out).filter(|o| o.whole.is_none()) else {
            continue;
        };
        for line in out.lines.iter_mut() {
            let Line::Src((side, r)) = line else { continue };
            let side = *side;
            let text = ctx.sc[side].doc.slice(r);
            if !text.contains("NodePath(\"%") || (side != O && text.contains("Resource(")) {
                continue;
            }
            let holder = ctx.id.node.at[ident][side];
            if !holder.is_some_and(|h| owned_here(ctx, side, h)) {
                continue;
            }
            let names = names[side].get_or_insert_with(|| unique_names(ctx, side));
            if let Some(new) = rewrite(ctx, text, names, paths) {
                let node = paths.get(ident).unwrap_or_default().to_string();
                followed.push((
                    node,
                    text.trim_end().to_string(),
                    new.trim_end().to_string(),
                ));
                *line = Line::Lit(new);
            }
        }
    }
    for (node, from, to) in followed {
        ctx.decisions
            .push(Decision::NodePathFollowed { node, from, to });
    }
}
