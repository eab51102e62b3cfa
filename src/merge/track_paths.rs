//! Animation track paths that must follow a renamed or moved node.
//!
//! A track's `tracks/N/path = NodePath("Sprite:position")` is relative to the root node of
//! the AnimationPlayer that plays it: the player's `root_node` (default `..`, its parent).
//! The player reaches its Animations through Godot 3 `anims/NAME = SubResource(..)` or
//! Godot 4 `libraries` -> an AnimationLibrary whose `_data` names them. When one side
//! renames or moves the animated node and the other side's line is the one kept, the path
//! is rewritten to reach the same node in the result, as node properties' NodePaths are
//! ([`super::nodepaths`]; a written `root_node` follows its node that way). Left as
//! written: paths that cannot be resolved (absolute, `%Unique`, a root above the scene, an
//! Animation no player of this scene uses), an Animation two players play (their roots
//! may differ), and the paths of a player that changed parents on a side (that side kept
//! them in its own tree, as node properties' paths are read).
//!
//! It decides only the path text; where nodes end up is [`super::paths`]'s and how the
//! tracks merge is [`crate::grain`]'s.

use super::context::Ctx;
use super::matching::{B, O, T};
use super::nodepaths::{resolve, resolves, rewrite};
use super::paths::MergedPaths;
use super::sections::{Line, OutSec};
use super::Decision;
use crate::value::{parse, rewrite_refs_in_text, RefKind, Value};
use std::collections::BTreeMap;

/// Per side: sub_resource index of an Animation -> its player (`None`: played by more
/// than one player, whose roots may differ, so its paths are left as written).
type Roots = [BTreeMap<usize, Option<Player>>; 3];

/// An AnimationPlayer as its Animations see it.
#[derive(Clone, PartialEq)]
struct Player {
    /// Its scene path.
    path: String,
    /// Whether it writes `root_node` (else the root is its parent, wherever it goes).
    explicit_root: bool,
    /// The node its track paths are relative to.
    root: String,
}

/// Rewrite the `tracks/N/path` lines of merged Animations whose target node the merge
/// gave another place than the side the line came from had.
pub(super) fn follow_track_paths(
    ctx: &mut Ctx,
    subs: &mut BTreeMap<usize, OutSec>,
    paths: &MergedPaths,
) {
    let merged_path = paths.all();
    let moved = (0..ctx.id.node.at.len()).any(|ident| {
        let Some(mp) = merged_path.get(ident).and_then(Option::as_deref) else {
            return false;
        };
        let at = ctx.id.node.at[ident];
        [B, O, T].iter().any(|&s| {
            at[s].is_some_and(|i| {
                ctx.sc[s]
                    .nodes
                    .get(i)
                    .is_some_and(|n| n.path.as_str() != mp)
            })
        })
    });
    if !moved {
        return;
    }
    let roots: Roots = [B, O, T].map(|s| animation_roots(ctx, s));
    for (&ident, out) in subs.iter_mut() {
        let at = ctx.id.sub.at[ident];
        for line in out.lines.iter_mut() {
            if let Some((new, player)) = follow_line(ctx, &roots, at, merged_path, line) {
                ctx.decisions.push(Decision::NodePathFollowed {
                    node: player,
                    from: line_text(ctx, line).trim_end().to_string(),
                    to: new.trim_end().to_string(),
                });
                *line = Line::Lit(new);
            }
        }
    }
}

/// A result line's text (a conflict has none to follow).
fn line_text(ctx: &Ctx, line: &Line) -> String {
    match line {
        Line::Src((side, r)) => ctx.sc[*side].doc.slice(r).to_string(),
        Line::Lit(s) => s.clone(),
        Line::Conflict(_) | Line::Idents(_) | Line::Texts(_) => String::new(),
    }
}

/// The rewritten line and the player's path in the result, when a track path of this
/// line names a node that the result has elsewhere.
fn follow_line(
    ctx: &Ctx,
    roots: &Roots,
    at: [Option<usize>; 3],
    merged_path: &[Option<crate::smallstr::SmallStr>],
    line: &Line,
) -> Option<(String, String)> {
    let text = line_text(ctx, line);
    let text = text.as_str();
    let (key, value) = text.split_once('=')?;
    let key = key.trim();
    let is_path = key
        .strip_prefix("tracks/")
        .and_then(|r| r.strip_suffix("/path"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !is_path || !value.contains("NodePath(") {
        return None;
    }
    let own = match line {
        Line::Src((side, _)) => Some(*side),
        _ => None,
    };
    // Read the line against the tree it was written in: base first (unchanged), then its
    // own side, then any side whose Animation has the same path.
    for s in [Some(B), own, Some(O), Some(T)].into_iter().flatten() {
        let Some(si) = at[s] else { continue };
        if !has_track_path(ctx, s, si, value.trim()) {
            continue;
        }
        let Some(Some(player)) = roots[s].get(&si) else {
            continue;
        };
        let (paths, of) = (&ctx.paths[s], &ctx.id.node.of[s]);
        let locate = |p: &str| -> Option<String> {
            let &i = paths.get(p)?;
            merged_path
                .get(*of.get(i)?)?
                .as_ref()
                .map(|p| p.to_string())
        };
        if !resolves(text, &player.root, &locate) {
            continue;
        }
        // A written `root_node` follows its node (`follow_node_paths`); the default one is
        // the player's parent, wherever the player went.
        let player_out = locate(&player.path)?;
        let root_out = if player.explicit_root {
            locate(&player.root)?
        } else {
            resolve(&player_out, "..")?
        };
        // A player that changed parents on one side kept (or wrote) its paths in that
        // side's tree: its meaning there is not base's, so the text stays as written.
        if locate(&player.root).as_deref() != Some(root_out.as_str()) {
            return None;
        }
        let mut new = rewrite(text, &player.root, &root_out, &locate)?;
        if !new.ends_with('\n') {
            new.push('\n');
        }
        return Some((new, player_out));
    }
    None
}

/// Whether sub_resource `si` of side `s` has a track path with this very value.
fn has_track_path(ctx: &Ctx, s: usize, si: usize, value: &str) -> bool {
    let Some(sub) = ctx.sc[s].sub_resources.get(si) else {
        return false;
    };
    let sec = ctx.sec(s, sub.section);
    sec.props.iter().any(|p| {
        p.key.starts_with("tracks/")
            && p.key.ends_with("/path")
            && ctx.sc[s].doc.slice(&p.value).trim() == value
    })
}

/// Every Animation a player of side `s` reaches, with that player (`None` when several
/// players reach it).
fn animation_roots(ctx: &Ctx, s: usize) -> BTreeMap<usize, Option<Player>> {
    let sc = ctx.sc[s];
    let mut out = BTreeMap::new();
    for node in &sc.nodes {
        let sec = ctx.sec(s, node.section);
        let prop = |k: &str| sec.props.iter().rev().find(|p| p.key == k);
        let written = prop("root_node");
        let root_node = written
            .and_then(|p| match parse(sc.doc.slice(&p.value)).ok()? {
                Value::NodePath(p) => Some(p),
                _ => None,
            })
            .unwrap_or_else(|| "..".to_string());
        let Some(root) = resolve(&node.path, &root_node) else {
            continue;
        };
        let holds = sec
            .props
            .iter()
            .filter(|p| p.key.starts_with("anims/") || p.key.starts_with("libraries"));
        for p in holds {
            let player = Player {
                path: node.path.to_string(),
                explicit_root: written.is_some(),
                root: root.clone(),
            };
            for si in animations_in(ctx, s, sc.doc.slice(&p.value), 0) {
                let entry = out.entry(si).or_insert_with(|| Some(player.clone()));
                if entry.as_ref() != Some(&player) {
                    *entry = None;
                }
            }
        }
    }
    out
}

/// The Animations a value names on side `s`, directly or through an AnimationLibrary's
/// `_data` (`depth` stops a library that names itself).
fn animations_in(ctx: &Ctx, s: usize, text: &str, depth: u8) -> Vec<usize> {
    let sc = ctx.sc[s];
    let mut found = Vec::new();
    for id in sub_ids(text) {
        let Some(&si) = ctx.idx[s].sub.get(id.as_str()) else {
            continue;
        };
        let Some(sub) = sc.sub_resources.get(si) else {
            continue;
        };
        match sub.type_name.as_str() {
            "Animation" => found.push(si),
            "AnimationLibrary" if depth == 0 => {
                let sec = ctx.sec(s, sub.section);
                for p in sec.props.iter().filter(|p| p.key == "_data") {
                    found.extend(animations_in(ctx, s, sc.doc.slice(&p.value), 1));
                }
            }
            _ => {}
        }
    }
    found
}

/// The SubResource ids a value names.
fn sub_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    if text.contains("SubResource") {
        rewrite_refs_in_text(text, &mut |k, id| {
            if k == RefKind::Sub {
                ids.push(id.to_string());
            }
            None
        });
    }
    ids
}
