//! Animation track paths that must follow a renamed or moved node.
//!
//! A track's `tracks/N/path = NodePath("Sprite:position")` is read from the root node of
//! each AnimationPlayer that plays it: the player's `root_node` (default `..`, its
//! parent), as `AnimationMixer` does (`get_node(root_node)->get_node(path)`). `%Name`
//! steps are read as Godot reads them ([`crate::merge::values::unique_paths`]). The player reaches its
//! Animations through Godot 3 `anims/NAME = SubResource(..)` or Godot 4 `libraries` -> an
//! AnimationLibrary whose `_data` names them.
//!
//! A path is read in the tree of each side that holds it, from that side's players: the
//! node it names there is its meaning on that side (a side that kept base's text and its
//! players' roots but moved or renamed the node itself still means base's node). The
//! meanings merge three-way as node properties' do ([`crate::merge::values::nodepaths`]), never away
//! from base's meaning for a text base holds. The path is then written to reach that node
//! from every player that plays the Animation in the result: as written when it already
//! does, else with its `%Name` steps renamed, else relative to its last `%Name` step or
//! to the players' root. Left as written: paths no reader resolves (absolute, into an
//! instanced scene, a root above the scene, an Animation no player plays), and paths
//! whose players disagree on a side or in the result (recorded as
//! [`Decision::NodePathKept`]).
//!
//! It decides only the path text; where nodes end up is [`crate::merge::shared::merged::MergedPaths`]'s and how the
//! tracks merge is [`crate::grain`]'s.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::{Line, OutSec};
use crate::merge::values::nodepaths::{merge_meaning, node_paths, path_part, relative, resolve};
use crate::merge::values::unique_paths::{
    read_steps, renamed_steps, resolve_out, result_uniques, unique_names, Names, OutNames,
};
use crate::value::{parse, rewrite_refs_in_text, RefKind, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Per side: sub_resource index of an Animation -> the players that play it.
type Plays = [BTreeMap<usize, Vec<Player>>; 3];

/// An AnimationPlayer of one side as its Animations see it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::merge) struct Player {
    /// Its node identity.
    ident: usize,
    /// The scene path, on its side, of the node its track paths are read from.
    pub(in crate::merge) root: String,
    /// That node's identity.
    root_ident: Option<usize>,
    /// Whether it writes `root_node` (else the root is its parent, wherever it goes).
    explicit_root: bool,
}

/// What the players of an Animation on one side reach by one track path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Every player reaches this node (an identity).
    Node(usize),
    /// No player reaches a node of the scene.
    Nothing,
    /// The players reach different nodes; `moved`: one of them has another place in the
    /// result, so a follow was wanted.
    Disagree { moved: bool },
}

/// What becomes of one line.
enum Outcome {
    /// Rewritten; the player (its path in the result) the decision names.
    Followed { new: String, player: String },
    /// Left as written although its node moved: the readers and why.
    Kept {
        readers: String,
        reason: &'static str,
    },
}

/// Everything a track line is read against.
struct Reader<'c, 'a> {
    ctx: &'c Ctx<'a>,
    plays: Plays,
    names: [Names<'a>; 3],
    out_names: OutNames,
    paths: &'c MergedPaths,
}

/// Rewrite the `tracks/N/path` lines of merged Animations whose target node the merge
/// gave another place than the side the line came from had.
pub(in crate::merge) fn follow_track_paths(
    ctx: &mut Ctx,
    subs: &mut BTreeMap<usize, OutSec>,
    paths: &MergedPaths,
) {
    // The few sub_resource lines first: without a track path, no node's place matters.
    if !any_track_path(ctx, subs) || !any_moved(ctx, paths) {
        return;
    }
    let found = find_follows(ctx, subs, paths);
    for (ident, k, outcome) in found {
        let Some(line) = subs.get_mut(&ident).and_then(|o| o.lines.get_mut(k)) else {
            continue;
        };
        let from = line_text(ctx, line).trim_end().to_string();
        match outcome {
            Outcome::Followed { new, player } => {
                ctx.decisions.push(Decision::NodePathFollowed {
                    node: player,
                    from,
                    to: new.trim_end().to_string(),
                });
                *line = Line::Lit(new);
            }
            Outcome::Kept { readers, reason } => {
                ctx.decisions.push(Decision::NodePathKept {
                    readers,
                    line: from,
                    reason,
                });
            }
        }
    }
}

/// Whether any node has another place in the result than on some side.
fn any_moved(ctx: &Ctx, paths: &MergedPaths) -> bool {
    let merged_path = paths.all();
    (0..ctx.id.node.at.len()).any(|ident| {
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
    })
}

/// Whether a merged sub_resource has a track path line: only such a line is followed
/// ([`Reader::follow_line`]); without one, the players and unique names of three sides
/// (and every node's place) are not worth reading.
fn any_track_path(ctx: &Ctx, subs: &BTreeMap<usize, OutSec>) -> bool {
    // The line's text borrowed, not copied: a mesh's line is megabytes long.
    subs.values()
        .flat_map(|out| &out.lines)
        .any(|line| match line {
            Line::Src((side, r)) => track_path_value(ctx.sc[*side].doc.slice(r)).is_some(),
            Line::Lit(t) => track_path_value(t).is_some(),
            Line::Conflict(_) | Line::Idents(_) | Line::Texts(_) => false,
        })
}

/// Each (sub_resource identity, line index, outcome) of the merged Animations' lines
/// (called once [`any_track_path`] says there is a line to follow).
fn find_follows(
    ctx: &Ctx,
    subs: &BTreeMap<usize, OutSec>,
    paths: &MergedPaths,
) -> Vec<(usize, usize, Outcome)> {
    let reader = Reader {
        ctx,
        plays: [B, O, T].map(|s| animation_players(ctx, s)),
        names: [B, O, T].map(|s| unique_names(ctx, s)),
        out_names: result_uniques(ctx, paths),
        paths,
    };
    let mut found = Vec::new();
    for (&ident, out) in subs {
        let Some(&at) = ctx.id.sub.at.get(ident) else {
            continue;
        };
        for (k, line) in out.lines.iter().enumerate() {
            if let Some(outcome) = reader.follow_line(at, line) {
                found.push((ident, k, outcome));
            }
        }
    }
    found
}

/// A result line's text (a conflict has none to follow).
fn line_text(ctx: &Ctx, line: &Line) -> String {
    match line {
        Line::Src((side, r)) => ctx.sc[*side].doc.slice(r).to_string(),
        Line::Lit(s) => s.clone(),
        Line::Conflict(_) | Line::Idents(_) | Line::Texts(_) => String::new(),
    }
}

/// The value of a `tracks/N/path = NodePath(..)` line.
fn track_path_value(text: &str) -> Option<&str> {
    let (key, value) = text.split_once('=')?;
    let is_path = key
        .trim()
        .strip_prefix("tracks/")
        .and_then(|r| r.strip_suffix("/path"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (is_path && value.contains("NodePath(")).then_some(value.trim())
}

/// How a path is to be written in the result.
enum Spell {
    /// As written: it reaches its node from every player.
    AsWritten,
    /// This path does.
    New(String),
    /// No spelling tried does.
    NoneFits,
}

/// The result's players of an Animation: (root, player) scene paths in the result.
type Roots = BTreeSet<(String, String)>;

impl Reader<'_, '_> {
    /// What becomes of one line of a merged Animation (`at`: its index per side).
    fn follow_line(&self, at: [Option<usize>; 3], line: &Line) -> Option<Outcome> {
        let text = line_text(self.ctx, line);
        let value = track_path_value(&text)?;
        let &(start, end) = node_paths(&text).first()?;
        let (path, subnames) = path_part(text.get(start..end)?);
        let own = match line {
            Line::Src((s, _)) => Some(*s),
            _ => None,
        };
        let (target, side, root_side) = match self.target(at, own, value, path) {
            Ok(found) => found,
            Err(wanted) => {
                return wanted.then(|| self.kept(at, "its players reach different nodes by it"))
            }
        };
        let target_out = self.paths.get(target)?;
        let roots = self.merged_roots(at)?;
        match self.spell(path, (side, root_side), target_out, &roots) {
            Spell::AsWritten => None,
            Spell::NoneFits => {
                Some(self.kept(at, "no one path reaches its node from every player"))
            }
            Spell::New(p) => {
                let mut new = format!("{}{p}{subnames}{}", &text[..start], &text[end..]);
                if !new.ends_with('\n') {
                    new.push('\n');
                }
                let player = roots.first().map(|r| r.1.clone()).unwrap_or_default();
                Some(Outcome::Followed { new, player })
            }
        }
    }

    /// The node (identity) a track path names in the result, with a side that reads it
    /// so and that side's first root; `Err(true)`: none because players disagree about a
    /// node that moved, `Err(false)`: none to follow.
    fn target(
        &self,
        at: [Option<usize>; 3],
        own: Option<usize>,
        value: &str,
        path: &str,
    ) -> Result<(usize, usize, &str), bool> {
        let held = [B, O, T]
            .map(|s| at[s].filter(|&si| own == Some(s) || has_track_path(self.ctx, s, si, value)));
        let readings = [B, O, T].map(|s| held[s].and_then(|si| self.reading(s, si, path)));
        let Some(target) = self.meaning(&held, &readings) else {
            return Err(readings
                .iter()
                .any(|r| matches!(r, Some(Reading::Disagree { moved: true }))));
        };
        let side = [B, O, T]
            .into_iter()
            .find(|&s| readings[s] == Some(Reading::Node(target)))
            .ok_or(false)?;
        let player = held[side]
            .and_then(|si| self.plays[side].get(&si)?.first())
            .ok_or(false)?;
        Ok((target, side, player.root.as_str()))
    }

    /// A line left as written, naming the players that play it in the result.
    fn kept(&self, at: [Option<usize>; 3], reason: &'static str) -> Outcome {
        let players: BTreeSet<String> = self
            .merged_roots(at)
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.1)
            .collect();
        let readers = players.into_iter().collect::<Vec<_>>().join(", ");
        Outcome::Kept { readers, reason }
    }

    /// What the players of Animation `si` on side `s` reach by `path` (`None`: no player
    /// plays it there).
    fn reading(&self, s: usize, si: usize, path: &str) -> Option<Reading> {
        let players = self.plays[s].get(&si).filter(|p| !p.is_empty())?;
        let found: BTreeSet<Option<usize>> = players
            .iter()
            .map(|p| self.read(s, &p.root, path))
            .collect();
        let mut each = found.iter();
        Some(match (each.next(), each.next()) {
            (Some(&Some(i)), None) => Reading::Node(i),
            (Some(None), None) | (None, _) => Reading::Nothing,
            (Some(_), Some(_)) => Reading::Disagree {
                moved: found.iter().flatten().any(|&i| self.moved(s, i)),
            },
        })
    }

    /// The identity of the node `path` reaches from `root` on side `s`.
    fn read(&self, s: usize, root: &str, path: &str) -> Option<usize> {
        let target = read_steps(self.ctx, s, &self.names[s], root, path).target?;
        let &i = self.ctx.paths[s].get(target.as_str())?;
        self.ctx.id.node.of[s].get(i).copied()
    }

    /// Whether node `ident` has another place in the result than on side `s`.
    fn moved(&self, s: usize, ident: usize) -> bool {
        let at = self.ctx.id.node.at.get(ident).and_then(|a| a[s]);
        let there = at.and_then(|i| self.ctx.sc[s].nodes.get(i));
        there.map(|n| n.path.as_str()) != self.paths.get(ident)
    }

    /// The node the line names in the result: the sides' meanings merged three-way (a
    /// side that kept base's text and roots but reaches nothing means base's node), and
    /// never other than base's when base holds the text. `None`: keep it as written.
    fn meaning(&self, held: &[Option<usize>; 3], readings: &[Option<Reading>; 3]) -> Option<usize> {
        let node = |r: Reading| match r {
            Reading::Node(i) => Some(i),
            _ => None,
        };
        let base = readings[B].and_then(node);
        let m = [B, O, T].map(|s| {
            let r = readings[s]?;
            Some(if self.stale(s, held, r) {
                base
            } else {
                node(r)
            })
        });
        let merged = merge_meaning(m)?;
        (held[B].is_none() || base == Some(merged)).then_some(merged)
    }

    /// Whether side `s` holds base's text with base's roots but reaches nothing by it:
    /// it moved or renamed the node and left the text, which still means base's node.
    fn stale(&self, s: usize, held: &[Option<usize>; 3], r: Reading) -> bool {
        let (Some(sb), Some(si)) = (held[B], held[s]) else {
            return false;
        };
        s != B && r == Reading::Nothing && self.root_set(B, sb) == self.root_set(s, si)
    }

    /// The (player, root) identities that play Animation `si` of side `s`.
    fn root_set(&self, s: usize, si: usize) -> BTreeSet<(usize, Option<usize>)> {
        let players = self.plays[s]
            .get(&si)
            .map(Vec::as_slice)
            .unwrap_or_default();
        players.iter().map(|p| (p.ident, p.root_ident)).collect()
    }

    /// The roots and players that play the Animation in the result (`None`: one whose
    /// root cannot be placed there).
    fn merged_roots(&self, at: [Option<usize>; 3]) -> Option<Roots> {
        let mut out = Roots::new();
        for s in [O, T] {
            let Some(players) = at[s].and_then(|si| self.plays[s].get(&si)) else {
                continue;
            };
            for p in players {
                let Some(player_out) = self.paths.get(p.ident) else {
                    continue;
                };
                let root_out = if p.explicit_root {
                    self.paths.get(p.root_ident?)?.to_string()
                } else {
                    resolve(player_out, "..")?
                };
                out.insert((root_out, player_out.to_string()));
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// How `path` (read on `side` from `root_side`) is written to reach `target_out` from
    /// every root of the result.
    fn spell(&self, path: &str, side: (usize, &str), target_out: &str, roots: &Roots) -> Spell {
        let reaches = |p: &str| {
            roots.iter().all(|(r, _)| {
                resolve_out(&self.out_names, self.paths, r, p).as_deref() == Some(target_out)
            })
        };
        if reaches(path) {
            return Spell::AsWritten;
        }
        self.candidates(path, side, target_out, roots)
            .into_iter()
            .find(|c| reaches(c))
            .map_or(Spell::NoneFits, Spell::New)
    }

    /// Spellings to try: a plain path relative to the first root; a `%` path with its
    /// unique steps renamed, then relative to its last unique step.
    fn candidates(
        &self,
        path: &str,
        (s, root_side): (usize, &str),
        target_out: &str,
        roots: &Roots,
    ) -> Vec<String> {
        let Some((root_out, _)) = roots.first() else {
            return Vec::new();
        };
        if !path.contains('%') {
            return vec![relative(root_out, target_out)];
        }
        let steps = read_steps(self.ctx, s, &self.names[s], root_side, path);
        let renamed =
            renamed_steps(self.ctx, path, &steps, self.paths).unwrap_or_else(|| path.to_string());
        let mut out = vec![renamed.clone()];
        let head = &renamed[..last_unique_end(&renamed)];
        if let Some(u) = resolve_out(&self.out_names, self.paths, root_out, head) {
            match relative(&u, target_out).as_str() {
                "." => out.push(head.to_string()),
                rel => out.push(format!("{head}/{rel}")),
            }
        }
        out
    }
}

/// Where a path's last `%Name` step ends (0: it has none).
fn last_unique_end(path: &str) -> usize {
    let mut at = 0;
    let mut end = 0;
    for step in path.split('/') {
        if step.starts_with('%') {
            end = at + step.len();
        }
        at += step.len() + 1;
    }
    end
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

/// Every Animation a player of side `s` reaches, with the players that reach it.
fn animation_players(ctx: &Ctx, s: usize) -> BTreeMap<usize, Vec<Player>> {
    let sc = ctx.sc[s];
    let mut out: BTreeMap<usize, Vec<Player>> = BTreeMap::new();
    for (n, node) in sc.nodes.iter().enumerate() {
        let sec = ctx.sec(s, node.section);
        let holds: Vec<_> = sec
            .props
            .iter()
            .filter(|p| p.key.starts_with("anims/") || p.key.starts_with("libraries"))
            .collect();
        if holds.is_empty() {
            continue;
        }
        let Some(player) = player_of(ctx, s, n) else {
            continue;
        };
        for p in holds {
            for si in animations_in(ctx, s, sc.doc.slice(&p.value), 0) {
                let list = out.entry(si).or_default();
                if !list.contains(&player) {
                    list.push(player.clone());
                }
            }
        }
    }
    for list in out.values_mut() {
        list.sort();
    }
    out
}

/// Node `n` of side `s` as a player: its identity and the root its tracks are read from
/// (`None`: no identity, or a root above the scene).
pub(in crate::merge) fn player_of(ctx: &Ctx, s: usize, n: usize) -> Option<Player> {
    let sc = ctx.sc[s];
    let node = sc.nodes.get(n)?;
    let sec = ctx.sec(s, node.section);
    let written = sec.props.iter().rev().find(|p| p.key == "root_node");
    let root_node = written
        .and_then(|p| match parse(sc.doc.slice(&p.value)).ok()? {
            Value::NodePath(p) => Some(p),
            _ => None,
        })
        .unwrap_or_else(|| "..".to_string());
    let root = resolve(&node.path, &root_node)?;
    let root_ident = ctx.paths[s]
        .get(root.as_str())
        .and_then(|&i| ctx.id.node.of[s].get(i).copied());
    Some(Player {
        ident: *ctx.id.node.of[s].get(n)?,
        root,
        root_ident,
        explicit_root: written.is_some(),
    })
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
