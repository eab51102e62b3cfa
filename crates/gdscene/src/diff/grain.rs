//! Changed values described at their own grain (`crate::grain`): which describer fits a
//! property (tile maps, GridMap, Animation tracks and keys, SpriteFrames, dictionaries,
//! long strings by line, long arrays by element), with references compared by the diff's
//! cross-side labels and shown as what they name. Which properties changed is
//! `properties.rs`'s; how the parts read on screen is `crate::render`'s.

use super::context::Differ;
use super::side::{props_of, Side};
use super::VALUE_LIMIT;
use crate::grain::{self, PropertyContext, ValueChange, ValueDiff};
use crate::syntax::Section;
use crate::value::{self, rewrite_refs_in_text, RefKind, Value};
use std::collections::BTreeMap;

/// More parts than this in a long string or array: the value is shown whole instead.
const MAX_PIECES: usize = 8;

/// A long array or dictionary bigger than this is shown whole: looking into it level by
/// level would cost more than the rest of the diff.
const MAX_SCAN: usize = 256 * 1024;

/// Longest old or new version of one part in a report line.
const PART_LIMIT: usize = 60;

/// The owner of a section's properties, as grain needs it.
pub(super) struct Owner {
    /// Node or resource type (`[resource]`: the file's `type=`).
    type_name: Option<String>,
    /// The file's `format` (2: Godot 3).
    file_format: u8,
    /// A Godot 3 TileMap's `format` property.
    tile_format: Option<i64>,
}

impl Owner {
    /// The owner of `s` on `side`.
    pub(super) fn of(side: &Side, s: &Section) -> Owner {
        let decoded = |t: &str| match value::parse(t) {
            Ok(Value::String(v)) | Ok(Value::StringName(v)) => Some(v),
            _ => None,
        };
        let type_name = match s.tag.field("type") {
            Some(r) => decoded(side.sc.doc.slice(&r)),
            None if s.tag.name == "resource" => side.sc.header.resource_type.clone(),
            None => None,
        };
        let tile_format = props_of(side.sc, s)
            .into_iter()
            .find(|(k, _)| *k == "format")
            .and_then(|(_, v)| v.trim().parse().ok());
        Owner {
            type_name,
            file_format: side.sc.header.format.unwrap_or(3).clamp(0, 255) as u8,
            tile_format,
        }
    }

    fn ctx<'k>(&'k self, key: &'k str, track_type: Option<&'k str>) -> PropertyContext<'k> {
        PropertyContext {
            owner_type: self.type_name.as_deref().unwrap_or(""),
            key,
            file_format: self.file_format,
            tile_format: self.tile_format,
            track_type,
        }
    }

    fn is_animation(&self) -> bool {
        self.type_name.as_deref() == Some("Animation")
    }
}

impl Differ<'_> {
    /// A changed property at its grain; `None`: no finer description than old -> new.
    pub(super) fn grain_delta(
        &self,
        owner: &Owner,
        key: &str,
        (ov, nv): (&str, &str),
        parsed: Option<&(Value, Value)>,
    ) -> Option<ValueDiff> {
        let (a, b) = (self.old.relabel(ov), self.new.relabel(nv));
        let found = grain::describe_change(&owner.ctx(key, None), &a, &b)
            .filter(|d| !d.changes.is_empty())
            .or_else(|| long_value_pieces(ov, nv, parsed, (&a, &b)))?;
        Some(ValueDiff {
            changes: self.named(found.changes),
            picture: found.picture,
        })
    }

    /// An Animation's `tracks/*` properties described as one change (tracks by type and
    /// path, keys by time); `None` when they are not readable tracks or nothing differs.
    pub(super) fn tracks_delta(
        &self,
        owner: &Owner,
        op: &[(&str, &str)],
        np: &[(&str, &str)],
    ) -> Option<(usize, usize, Vec<ValueChange>)> {
        if !owner.is_animation() {
            return None;
        }
        let tracks = |side: &Side, p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .filter(|(k, _)| k.starts_with("tracks/"))
                .map(|(k, v)| (k.to_string(), side.relabel(v).into_owned()))
                .collect()
        };
        let (mut a, b) = (tracks(&self.old, op), tracks(&self.new, np));
        if a == b || (a.is_empty() && b.is_empty()) {
            return None;
        }
        let followed = self.follow_track_paths(&mut a, &b);
        let mut changes = grain::describe_tracks(&owner.ctx("tracks", None), &a, &b)?;
        for (ty, old, new) in followed {
            let at = format!("track \"{ty}\" {new}");
            let change = ValueChange::of("entry", "path".into(), Some(&old), Some(&new));
            changes.push(change.within(&at));
        }
        let count = |t: &[(String, String)]| t.iter().filter(|(k, _)| k.ends_with("/type")).count();
        Some((count(&a), count(&b), self.named(changes)))
    }

    /// Old tracks whose node the diff paired with a renamed or moved node are read under
    /// the path that node has now, when the new tracks have a track of that type and path
    /// and none at the old path: the track followed the rename (the editor rewrote its
    /// path), so it is one changed track, not one removed and one added. Returns each
    /// followed track's type, old path and new path (the caller reports the path change).
    fn follow_track_paths(
        &self,
        old: &mut [(String, String)],
        new: &[(String, String)],
    ) -> Vec<(String, String, String)> {
        let typed_paths = |t: &[(String, String)]| -> Vec<(String, String, String)> {
            let mut types: BTreeMap<String, String> = BTreeMap::new();
            let mut paths: Vec<(String, String, String)> = Vec::new();
            for (k, v) in t {
                let Some((n, field)) = k.strip_prefix("tracks/").and_then(|r| r.split_once('/'))
                else {
                    continue;
                };
                match (field, value::parse(v)) {
                    ("type", Ok(Value::String(ty) | Value::StringName(ty))) => {
                        types.insert(n.to_string(), ty);
                    }
                    ("path", Ok(Value::NodePath(p) | Value::String(p))) => {
                        paths.push((n.to_string(), k.clone(), p))
                    }
                    _ => {}
                }
            }
            paths
                .into_iter()
                .filter_map(|(n, k, p)| Some((types.get(&n)?.clone(), k, p)))
                .collect()
        };
        let new_tracks: Vec<(String, String)> = typed_paths(new)
            .into_iter()
            .map(|(ty, _, p)| (ty, p))
            .collect();
        let has = |ty: &str, p: &str| new_tracks.iter().any(|(t, q)| t == ty && q == p);
        let mut followed = Vec::new();
        for (ty, key, path) in typed_paths(old) {
            if has(&ty, &path) {
                continue;
            }
            let Some(now) = self.track_path_now(&path).filter(|p| has(&ty, p)) else {
                continue;
            };
            if let Some(slot) = old.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = format!("NodePath(\"{}\")", crate::write::c_escape(&now));
                followed.push((ty, path, now));
            }
        }
        followed
    }

    /// A track path (`Player:position`, relative to the root its AnimationPlayer plays
    /// from: the player's parent, Godot's default `root_node`) as it reads after the
    /// diff's renames and moves, when some AnimationPlayer's root has the node it names
    /// and the node moved within that root.
    fn track_path_now(&self, path: &str) -> Option<String> {
        let (node, sub) = match path.find(':') {
            Some(c) => (&path[..c], &path[c..]),
            None => (path, ""),
        };
        if node.is_empty() || node.starts_with('/') || node.contains("..") || node.contains('%') {
            return None;
        }
        let sc = self.old.sc;
        let roots = sc
            .nodes
            .iter()
            .filter(|n| n.type_name.as_deref() == Some("AnimationPlayer"));
        for player in roots {
            let root = match player.parent.as_deref() {
                Some(p) if !p.is_empty() => p,
                Some(_) => ".",
                None => continue,
            };
            let full = if root == "." || node == "." {
                if node == "." {
                    root.to_string()
                } else {
                    node.to_string()
                }
            } else {
                format!("{root}/{node}")
            };
            if self.old.node_at(&full).is_none() {
                continue;
            }
            let (new_root, new_full) = (self.translate(root), self.translate(&full));
            let rel = if new_root == "." {
                new_full
            } else {
                new_full.strip_prefix(&format!("{new_root}/"))?.to_string()
            };
            return (rel != node).then(|| format!("{rel}{sub}"));
        }
        None
    }

    /// Each part's versions with references shown as what they name, shortened.
    fn named(&self, changes: Vec<ValueChange>) -> Vec<ValueChange> {
        let (old, new) = (names_by_label(&self.old), names_by_label(&self.new));
        let show = |names: &BTreeMap<String, String>, v: Option<String>| {
            v.map(|v| {
                let v = if v.contains("Resource") {
                    rewrite_refs_in_text(&v, &mut |_, l| names.get(l).cloned())
                } else {
                    v
                };
                super::show::shorten(&v, PART_LIMIT)
            })
        };
        changes
            .into_iter()
            .map(|mut c| {
                c.old = show(&old, c.old.take());
                c.new = show(&new, c.new.take());
                c
            })
            .collect()
    }
}

/// Label -> what the resource is (path, or `Type#id`), for one side.
fn names_by_label(side: &Side) -> BTreeMap<String, String> {
    let ext = side.sc.ext_resources.iter().enumerate();
    let ext = ext.filter_map(|(i, e)| Some((side.ext_label.get(i)?.clone(), e.path.clone())));
    let sub = side
        .sc
        .sub_resources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let label = side.sub_label.get(i)?.clone();
            Some((label, side.display(RefKind::Sub, &s.id)))
        });
    ext.chain(sub).collect()
}

/// A long string by line or a long array by element, when few parts changed.
fn long_value_pieces(
    ov: &str,
    nv: &str,
    parsed: Option<&(Value, Value)>,
    (a, b): (&str, &str),
) -> Option<ValueDiff> {
    if ov.len() <= VALUE_LIMIT && nv.len() <= VALUE_LIMIT {
        return None;
    }
    let huge = ov.len() > MAX_SCAN || nv.len() > MAX_SCAN;
    let changes = match parsed? {
        (Value::String(x), Value::String(y)) => grain::describe_lines(x, y),
        (
            Value::Array(_) | Value::Packed(_) | Value::Dict(_),
            Value::Array(_) | Value::Packed(_) | Value::Dict(_),
        ) if !huge => grain::describe_elements(a, b, MAX_PIECES)?,
        _ => return None,
    };
    (!changes.is_empty() && changes.len() <= MAX_PIECES).then(|| ValueDiff {
        changes,
        picture: Vec::new(),
    })
}
