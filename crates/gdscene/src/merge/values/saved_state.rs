//! Saved editor state: values a scene holds because the editor, or an animation it was
//! previewing, happened to show them when the scene was saved, not because a person set
//! them. A Skeleton3D writes every bone's current pose (`bones/N/position`, `rotation`,
//! `scale`; Godot 3's Skeleton `bones/N/pose`), an AnimatedSprite2D/3D its current
//! `frame` and `frame_progress`, an AnimationTree its blend state (`parameters/...`), a
//! MeshInstance3D its blend shape weights (`blend_shapes/...`), and a node whatever
//! value a track of the scene's AnimationPlayer drives in it at the time the editor last
//! showed (read from the player's `root_node`, as the mixer does). Godot's "Reset on
//! Save" exists because of it.
//!
//! Decides which keys of a node are such state and, for one both sides changed
//! differently, which value the result takes: the scene's RESET animation value at time
//! 0 (what Reset on Save writes; the sides' RESET values merged three-way), else ours'.
//! A key one side changed is that side's, as any property. The property merge acts on
//! it (`properties.rs`); [`crate::merge::MergeOptions::saved_state_conflicts`] turns it
//! off.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{pick3, Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::values::track_paths::{player_of, Player};
use crate::merge::values::unique_paths::{read_steps, unique_names, Names};
use crate::value::{parse, sem_eq_top, Value};
use std::collections::HashMap;

/// What kind of saved state a key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::merge) enum State {
    /// A Skeleton3D bone's pose.
    Pose,
    /// An animated sprite's current frame.
    Frame,
    /// An AnimationTree's blend state.
    Parameter,
    /// A MeshInstance3D's blend shape weight.
    BlendShape,
    /// A value an AnimationPlayer's track drives.
    Animated,
}

impl State {
    /// The words `--explain` uses.
    pub(in crate::merge) fn what(self) -> &'static str {
        match self {
            State::Pose => "a Skeleton3D bone pose",
            State::Frame => "an animated sprite's current frame",
            State::Parameter => "AnimationTree blend state",
            State::BlendShape => "a blend shape weight",
            State::Animated => "a value an AnimationPlayer track drives",
        }
    }
}

/// Node classes whose `frame`/`frame_progress` is the playing animation's (Godot 4, 3).
const ANIMATED_SPRITES: &[&str] = &["AnimatedSprite2D", "AnimatedSprite3D", "AnimatedSprite"];

/// Keys only an animated sprite writes: a node of unknown class (an instance, an
/// override entry) holding one on any side is one.
const SPRITE_KEYS: &[&str] = &["frame_progress", "sprite_frames", "frames", "animation"];

/// Node3D properties stored in its one `transform` (the inspector's position, rotation
/// and scale are views of it).
const TRANSFORM_VIEWS: &[&str] = &[
    "position",
    "rotation",
    "rotation_degrees",
    "quaternion",
    "basis",
    "scale",
    "transform",
];

/// Whether `key` is a bone pose: `bones/N/position|rotation|scale` (Godot 4) or
/// `bones/N/pose` (Godot 3).
fn bone_pose(key: &str) -> bool {
    let Some((n, field)) = key.strip_prefix("bones/").and_then(|r| r.split_once('/')) else {
        return false;
    };
    !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && matches!(field, "position" | "rotation" | "scale" | "pose")
}

impl Ctx<'_> {
    /// Whether `key` of the node whose section on `side` is `sec` is saved state.
    pub(in crate::merge) fn saved_state(
        &self,
        side: usize,
        sec: usize,
        key: &str,
    ) -> Option<State> {
        if !self.state_policy {
            return None;
        }
        let sc = self.sc[side];
        let n = sc.nodes.binary_search_by_key(&sec, |n| n.section).ok()?;
        let ident = *self.id.node.of[side].get(n)?;
        self.state_by_class(ident, key).or_else(|| {
            self.driven
                .contains_key(&(ident, key.to_string()))
                .then_some(State::Animated)
        })
    }

    /// The RESET animation's value at time 0 for `key` of the node whose section on
    /// `side` is `sec`, when the scene's RESET animations agree on one.
    fn reset_value(&self, side: usize, sec: usize, key: &str) -> Option<&str> {
        let n = self.sc[side]
            .nodes
            .binary_search_by_key(&sec, |n| n.section)
            .ok()?;
        let ident = *self.id.node.of[side].get(n)?;
        self.driven.get(&(ident, key.to_string()))?.as_deref()
    }

    /// A key that is state by its node's class alone (`None` class: an instance or an
    /// override entry, whose class the scene does not say).
    fn state_by_class(&self, ident: usize, key: &str) -> Option<State> {
        let class = self.node_class(ident);
        let of = |names: &[&str]| class.is_none_or(|c| names.contains(&c));
        if bone_pose(key) && of(&["Skeleton3D", "Skeleton"]) {
            return Some(State::Pose);
        }
        let sprite = match class {
            Some(c) => ANIMATED_SPRITES.contains(&c),
            None => SPRITE_KEYS.iter().any(|k| self.node_has_key(ident, k)),
        };
        if (key == "frame_progress" && of(ANIMATED_SPRITES)) || (key == "frame" && sprite) {
            return Some(State::Frame);
        }
        if key.starts_with("parameters/") && of(&["AnimationTree"]) {
            return Some(State::Parameter);
        }
        let meshes = ["MeshInstance3D", "MeshInstance", "SoftBody3D", "SoftBody"];
        (key.starts_with("blend_shapes/") && of(&meshes)).then_some(State::BlendShape)
    }

    /// The node's `type=` on any side (`None`: an instance or an override entry).
    fn node_class(&self, ident: usize) -> Option<&str> {
        let at = self.id.node.at.get(ident)?;
        [O, T, B].into_iter().find_map(|s| {
            let i = at[s]?;
            self.sc[s].nodes[i].type_name.as_deref()
        })
    }

    /// Whether any side's section of the node writes `key`.
    fn node_has_key(&self, ident: usize, key: &str) -> bool {
        let Some(at) = self.id.node.at.get(ident) else {
            return false;
        };
        [B, O, T].into_iter().any(|s| {
            at[s].is_some_and(|i| self.sec(s, self.sc[s].nodes[i].section).prop(key).is_some())
        })
    }

    /// The lines of a state key both sides changed differently: the RESET value, else
    /// ours' (`ours`), recorded for `--explain`. `None`: not saved state.
    pub(in crate::merge) fn state_lines(
        &mut self,
        sec: Option<usize>,
        key: &str,
        ours: Option<Vec<crate::merge::shared::sections::Line>>,
        location: &dyn Fn() -> String,
    ) -> Option<Option<Vec<crate::merge::shared::sections::Line>>> {
        let sec = sec?;
        let state = self.saved_state(O, sec, key)?;
        let (from, lines) = match self.reset_value(O, sec, key) {
            Some(v) => {
                let line = format!("{} = {v}\n", crate::write::encode_key(key));
                (
                    "RESET",
                    Some(vec![crate::merge::shared::sections::Line::Lit(line)]),
                )
            }
            None => ("ours", ours),
        };
        self.note_state(location(), key, state, from);
        Some(lines)
    }

    /// Record a state key kept: joined to the last decision when it is about the same
    /// node, kind and source (a skeleton re-saved on both sides is one line).
    fn note_state(&mut self, node: String, key: &str, state: State, from: &'static str) {
        if let Some(Decision::SavedStateKept {
            node: n,
            keys,
            what,
            from: f,
        }) = self.decisions.last_mut()
        {
            if *n == node && *what == state.what() && *f == from {
                keys.push(key.to_string());
                return;
            }
        }
        self.decisions.push(Decision::SavedStateKept {
            node,
            keys: vec![key.to_string()],
            what: state.what(),
            from,
        });
    }
}

/// Per side, what one track of an Animation drives: (node identity, stored key, value
/// at time 0 when the Animation is RESET and the track sets the whole key).
type Drives = Vec<((usize, String), Option<String>)>;

/// Fill [`Ctx::driven`]: every (node, key) a track of an Animation some AnimationPlayer
/// of the scene plays drives on any side, with the RESET value the sides agree on.
pub(in crate::merge) fn collect_driven(ctx: &mut Ctx) {
    if !ctx.state_policy {
        return;
    }
    let mut found: HashMap<(usize, String), [Option<String>; 3]> = HashMap::new();
    for s in [B, O, T] {
        // Only an Animation sub_resource drives anything ([`played`]): a side without
        // one needs neither its unique names nor a walk over its nodes.
        if !ctx.sc[s]
            .sub_resources
            .iter()
            .any(|r| r.type_name == "Animation")
        {
            continue;
        }
        let names = unique_names(ctx, s);
        for (player, anim, reset) in played(ctx, s) {
            for (k, value) in drives(ctx, s, &names, &player, anim, reset) {
                let slot = found.entry(k).or_default();
                if value.is_some() {
                    slot[s] = value;
                }
            }
        }
    }
    ctx.driven = found
        .into_iter()
        .map(|(k, [b, o, t])| {
            let same = |x: &Option<String>, y: &Option<String>| match (x, y) {
                (Some(x), Some(y)) => {
                    x == y || matches!((parse(x), parse(y)), (Ok(p), Ok(q)) if sem_eq_top(&p, &q))
                }
                (x, y) => x.is_none() && y.is_none(),
            };
            let v = match pick3(&b, &o, &t, same) {
                Pick::Ours => o,
                Pick::Theirs => t,
                Pick::Conflict => None,
            };
            (k, v)
        })
        .collect();
}

/// Every (player, Animation sub_resource index, whether it is the RESET animation) of a
/// side: Godot 3 `anims/NAME`, Godot 4 `libraries` -> AnimationLibrary `_data`.
fn played(ctx: &Ctx, s: usize) -> Vec<(Player, usize, bool)> {
    let sc = ctx.sc[s];
    let mut out = Vec::new();
    for (n, node) in sc.nodes.iter().enumerate() {
        let sec = ctx.sec(s, node.section);
        for p in &sec.props {
            let text = sc.doc.slice(&p.value);
            let entries: Vec<(String, usize)> = if let Some(name) = p.key.strip_prefix("anims/") {
                sub_index(ctx, s, &parse(text).ok())
                    .map(|i| (name.to_string(), i))
                    .into_iter()
                    .collect()
            } else if p.key == "libraries" {
                library_animations(ctx, s, text)
            } else {
                continue;
            };
            let Some(player) = entries.first().and_then(|_| player_of(ctx, s, n)) else {
                continue;
            };
            for (name, i) in entries {
                if sc.sub_resources[i].type_name == "Animation" {
                    out.push((player.clone(), i, name == "RESET"));
                }
            }
        }
    }
    out
}

/// The sub_resource index a value names on side `s`.
fn sub_index(ctx: &Ctx, s: usize, v: &Option<Value>) -> Option<usize> {
    match v {
        Some(Value::SubResource(id)) => ctx.idx[s].sub.get(id.key().as_ref()).copied(),
        _ => None,
    }
}

/// The entries of a dictionary value whose keys are names: (name, value).
fn named_entries(text: &str) -> Vec<(String, Value)> {
    let entries = match parse(text) {
        Ok(Value::Dict(e)) => e,
        Ok(Value::TypedDict { entries, .. }) => entries,
        _ => return Vec::new(),
    };
    entries
        .into_iter()
        .filter_map(|(k, v)| match k {
            Value::String(n) | Value::StringName(n) => Some((n, v)),
            _ => None,
        })
        .collect()
}

/// The Animations of a player's `libraries` value: each library's `_data` entries, named
/// as the mixer names them (`lib/name`; the default library's without prefix).
fn library_animations(ctx: &Ctx, s: usize, text: &str) -> Vec<(String, usize)> {
    let sc = ctx.sc[s];
    let mut out = Vec::new();
    for (lib, v) in named_entries(text) {
        let Some(li) = sub_index(ctx, s, &Some(v)) else {
            continue;
        };
        let sec = ctx.sec(s, sc.sub_resources[li].section);
        for p in sec.props.iter().filter(|p| p.key == "_data") {
            for (name, v) in named_entries(sc.doc.slice(&p.value)) {
                if let Some(i) = sub_index(ctx, s, &Some(v)) {
                    let full = if lib.is_empty() {
                        name
                    } else {
                        format!("{lib}/{name}")
                    };
                    out.push((full, i));
                }
            }
        }
    }
    out
}

/// What the tracks of Animation `anim` (side `s`) drive when `player` plays it.
fn drives(ctx: &Ctx, s: usize, names: &Names, player: &Player, anim: usize, reset: bool) -> Drives {
    let sc = ctx.sc[s];
    let sec = ctx.sec(s, sc.sub_resources[anim].section);
    let mut tracks: HashMap<&str, [Option<&str>; 3]> = HashMap::new();
    for p in &sec.props {
        let Some((n, field)) = p
            .key
            .strip_prefix("tracks/")
            .and_then(|r| r.split_once('/'))
        else {
            continue;
        };
        let slot = match field {
            "type" => 0,
            "path" => 1,
            "keys" => 2,
            _ => continue,
        };
        tracks.entry(n).or_default()[slot] = Some(sc.doc.slice(&p.value));
    }
    let mut out = Vec::new();
    for [ty, path, keys] in tracks.into_values() {
        let ty = match ty.map(parse) {
            Some(Ok(Value::String(t) | Value::StringName(t))) => t,
            _ => "value".to_string(),
        };
        let Some(Ok(Value::NodePath(path))) = path.map(parse) else {
            continue;
        };
        let mut parts = path.split(':');
        let node_part = parts.next().unwrap_or_default();
        let subs: Vec<&str> = parts.collect();
        let target = read_steps(ctx, s, names, &player.root, node_part).target;
        let Some(n) = target.and_then(|t| ctx.paths[s].get(t.as_str()).copied()) else {
            continue;
        };
        let Some((key, whole)) = driven_key(ctx, s, n, &ty, &subs) else {
            continue;
        };
        let value = keys
            .filter(|_| reset && whole)
            .and_then(crate::grain::value_at_start);
        out.push(((ctx.id.node.of[s][n], key), value));
    }
    out
}

/// The stored key a track of type `ty` with subnames `subs` drives in node `n` of side
/// `s`, and whether it sets that key whole (a RESET value can stand for it).
fn driven_key(ctx: &Ctx, s: usize, n: usize, ty: &str, subs: &[&str]) -> Option<(String, bool)> {
    let sec = ctx.sec(s, ctx.sc[s].nodes[n].section);
    let stores_transform = sec.prop("transform").is_some();
    match ty {
        "value" | "bezier" => {
            let first = *subs.first()?;
            if stores_transform && TRANSFORM_VIEWS.contains(&first) {
                return Some((
                    "transform".to_string(),
                    first == "transform" && subs.len() == 1,
                ));
            }
            Some((first.to_string(), ty == "value" && subs.len() == 1))
        }
        "position_3d" | "rotation_3d" | "scale_3d" | "transform" if subs.is_empty() => {
            Some(("transform".to_string(), false))
        }
        "blend_shape" => Some((format!("blend_shapes/{}", subs.first()?), false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::bone_pose;

    #[test]
    fn bone_poses_are_the_pose_fields_of_numbered_bones() {
        assert!(bone_pose("bones/0/rotation"));
        assert!(bone_pose("bones/12/position"));
        assert!(bone_pose("bones/3/scale"));
        assert!(bone_pose("bones/3/pose"));
        assert!(!bone_pose("bones/3/rest"));
        assert!(!bone_pose("bones/3/name"));
        assert!(!bone_pose("bones/x/rotation"));
        assert!(!bone_pose("bones//rotation"));
    }
}
