//! `%UniqueName` NodePaths that follow a rename of their node (Godot 4).
//!
//! A node marked `unique_name_in_owner = true` is reached from any node of the same owner
//! scene as `%Name` (`NodePath("%Name")`, `"%Name/Child"`, `"%Name:text"`). When one side
//! renames such a node and the other side writes a path to it by its old name, the path
//! would name nothing in the merged scene. Here such a path is read in the tree of the
//! side that wrote it: the unique node its first step names there is found in the result,
//! and `%Old` becomes `%New` when the result names it so and keeps it unique.
//!
//! Godot reads a `%Name` step anywhere in a path (`"../%Hud/Label"`): from the node
//! reached so far, in the unique names of that node's owner (`Node::get_node`). For a
//! node of this scene that is this scene's; an instanced scene's root and the nodes
//! inside it look in the instanced scene's names, which the merge cannot see, so such a
//! step is left as written. Each `%Old` step a path reads in the tree of the side that
//! wrote it becomes `%New` when the result renames its node and keeps it unique.
//!
//! It decides only the `%Name` steps of paths held by nodes of this scene (not inside an
//! instanced scene, whose owner is another scene) and reads them for animation tracks
//! ([`crate::merge::values::track_paths`]); relative paths are [`crate::merge::values::nodepaths`]' and every other
//! spelling stays as written.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::Line;
use crate::merge::values::nodepaths::{
    has_node_path_call, has_resource_call, node_paths, NodePathSides,
};
use std::collections::BTreeMap;

/// A side's unique names: name -> the identity of the one node of this scene marked
/// unique under it (`None`: several carry it).
pub(in crate::merge) type Names<'a> = BTreeMap<&'a str, Option<usize>>;

/// The result's unique names: name -> identity (`None`: several nodes would carry it).
pub(in crate::merge) type OutNames = BTreeMap<String, Option<usize>>;

/// A path read step by step in one side's tree.
#[derive(Default)]
pub(in crate::merge) struct Steps {
    /// Each `%Name` step read: the byte range of the name (after `%`) in the path and
    /// the identity of the unique node it names.
    pub(in crate::merge) unique: Vec<(usize, usize, usize)>,
    /// The scene path, on that side, of the node the whole path reaches.
    pub(in crate::merge) target: Option<String>,
}

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
pub(in crate::merge) fn unique_names<'a>(ctx: &Ctx<'a>, side: usize) -> Names<'a> {
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

/// Whether node `n` of a side is this scene's and no instance: a `%Name` step read from
/// it looks in this scene's unique names.
fn reads_own_names(ctx: &Ctx, side: usize, n: usize) -> bool {
    owned_here(ctx, side, n)
        && ctx.sc[side]
            .nodes
            .get(n)
            .is_some_and(|x| x.instance().is_none())
}

/// Read `path` (no subnames) from `holder` (a scene path) in `side`'s tree, `%Name` steps
/// included: what each unique step names and where the path ends. A step that cannot be
/// read (above the root, into an instance, an unknown unique name) ends the reading with
/// no target.
pub(in crate::merge) fn read_steps(
    ctx: &Ctx,
    side: usize,
    names: &Names,
    holder: &str,
    path: &str,
) -> Steps {
    let mut steps = Steps::default();
    if path.is_empty() || path.starts_with('/') {
        return steps;
    }
    let mut parts: Vec<String> = split_path(holder);
    let mut at = 0;
    for step in path.split('/') {
        let start = at;
        at += step.len() + 1;
        match step {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return steps;
                }
            }
            _ if step.starts_with('%') => {
                let Some((ident, place)) = unique_step(ctx, side, names, &parts, &step[1..]) else {
                    return steps;
                };
                steps.unique.push((start + 1, start + step.len(), ident));
                parts = split_path(place);
            }
            name => parts.push(name.to_string()),
        }
    }
    steps.target = Some(join_path(&parts));
    steps
}

/// The unique node a `%name` step names from the node at `parts` on `side`: its
/// identity and its scene path there.
fn unique_step<'s>(
    ctx: &'s Ctx,
    side: usize,
    names: &Names,
    parts: &[String],
    name: &str,
) -> Option<(usize, &'s str)> {
    let &from = ctx.paths[side].get(join_path(parts).as_str())?;
    if !reads_own_names(ctx, side, from) {
        return None;
    }
    let &Some(ident) = names.get(name)? else {
        return None;
    };
    let i = ctx.id.node.at.get(ident)?[side]?;
    Some((ident, ctx.sc[side].nodes.get(i)?.path.as_str()))
}

/// A scene path's names (`.`: none).
fn split_path(p: &str) -> Vec<String> {
    if p == "." {
        Vec::new()
    } else {
        p.split('/').map(str::to_string).collect()
    }
}

/// A scene path from its names.
fn join_path(parts: &[String]) -> String {
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// `path` with each unique step read in `steps` written with its node's name in the
/// result; `None` when no name changes (or one is not unique there).
pub(in crate::merge) fn renamed_steps(
    ctx: &Ctx,
    path: &str,
    steps: &Steps,
    paths: &MergedPaths,
) -> Option<String> {
    let mut out = String::with_capacity(path.len() + 8);
    let mut copied = 0;
    for &(start, end, ident) in &steps.unique {
        let old = path.get(start..end)?;
        let Some(new) = result_name(ctx, ident, paths).filter(|n| *n != old) else {
            continue;
        };
        out.push_str(path.get(copied..start)?);
        out.push_str(new);
        copied = end;
    }
    (copied > 0).then(|| out + &path[copied..])
}

/// The result's unique names: each unique node of ours or theirs under the name the
/// result gives it, when it stays unique there.
pub(in crate::merge) fn result_uniques(ctx: &Ctx, paths: &MergedPaths) -> OutNames {
    let mut out = OutNames::new();
    for side in [O, T] {
        for ident in unique_names(ctx, side).into_values().flatten() {
            let Some(name) = result_name(ctx, ident, paths) else {
                continue;
            };
            out.entry(name.to_string())
                .and_modify(|x| {
                    if *x != Some(ident) {
                        *x = None
                    }
                })
                .or_insert(Some(ident));
        }
    }
    out
}

/// Resolve `path` (no subnames) from `holder` in the result, `%Name` steps read in the
/// result's unique names: the scene path it reaches there.
pub(in crate::merge) fn resolve_out(
    names: &OutNames,
    paths: &MergedPaths,
    holder: &str,
    path: &str,
) -> Option<String> {
    if path.is_empty() || path.starts_with('/') {
        return None;
    }
    let mut parts = split_path(holder);
    for step in path.split('/') {
        match step {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ if step.starts_with('%') => {
                let &Some(ident) = names.get(&step[1..])? else {
                    return None;
                };
                parts = split_path(paths.get(ident)?);
            }
            name => parts.push(name.to_string()),
        }
    }
    Some(join_path(&parts))
}

/// `text` (a line of `side`, held by the node at `holder` there) with each `%Old` step
/// that names a unique node the result renamed written `%New`; `None` when nothing
/// changes.
fn rewrite(
    ctx: &Ctx,
    side: usize,
    holder: &str,
    text: &str,
    names: &Names,
    paths: &MergedPaths,
) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut copied = 0;
    for (start, end) in node_paths(text) {
        let body = text.get(start..end)?;
        let path = body.split(':').next().unwrap_or_default();
        if !path.contains('%') {
            continue;
        }
        let steps = read_steps(ctx, side, names, holder, path);
        let Some(new) = renamed_steps(ctx, path, &steps, paths) else {
            continue;
        };
        out.push_str(&text[copied..start]);
        out.push_str(&new);
        copied = start + path.len();
    }
    (copied > 0).then(|| out + &text[copied..])
}

/// Rewrite the `%Name` paths of node properties whose unique node the result renamed.
/// `sides`: where the sides' node sections spell no `NodePath(` (lines there are passed
/// over unread).
pub(in crate::merge) fn follow_unique_names<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode>],
    paths: &MergedPaths,
    sides: &NodePathSides,
) {
    let mut names: [Option<Names<'a>>; 3] = [None, None, None];
    let mut followed = Vec::new();
    for (ident, m) in merged.iter_mut().enumerate() {
        let Some(out) = m.as_mut().map(|m| &mut m.out).filter(|o| o.whole.is_none()) else {
            continue;
        };
        for line in out.lines.iter_mut() {
            let Line::Src((side, r)) = line else { continue };
            let side = *side;
            if !sides.may_hold(side, r) {
                continue;
            }
            let text = ctx.sc[side].doc.slice(r);
            if !has_node_path_call(text) || !text.contains('%') {
                continue;
            }
            if side != O && has_resource_call(text) {
                continue;
            }
            let Some(h) = ctx.id.node.at[ident][side].filter(|&h| owned_here(ctx, side, h)) else {
                continue;
            };
            let holder = ctx.sc[side].nodes[h].path.as_str();
            let names = names[side].get_or_insert_with(|| unique_names(ctx, side));
            if let Some(new) = rewrite(ctx, side, holder, text, names, paths) {
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
