//! Readable descriptions of a change inside a value, at the same grain as the merge: tile
//! cells painted / erased / changed (with their bounding box and, when the changed area is
//! small, a picture of it), Animation tracks by path and keys by time, dictionary entries
//! by key, SpriteFrames animations by name and frames by position. Plain data for the diff
//! and the renderers; how it is laid out on screen is theirs.
//!
//! This file picks the grain of a value and hands the describing to it; the change types
//! are `change.rs`'s, the cells' boxes and pictures `cells.rs`'s.

use super::change::{describe_sequence, fold, ValueChange, ValueDiff};
use super::{cells, dict, frames, keys, kind_of, tracks, Kind, PropertyContext};

/// Describe how `old` became `new` at the value's grain; `None` when this module does not
/// know the value (or it does not parse). Nothing changed: an empty [`ValueDiff`].
pub fn describe_change(ctx: &PropertyContext, old: &str, new: &str) -> Option<ValueDiff> {
    match kind_of(ctx)? {
        k @ (Kind::TileMap3 | Kind::TileMapLayers4 | Kind::TileMapLayer | Kind::GridMap) => {
            cells::describe(k, ctx, old, new)
        }
        Kind::TrackKeys => Some(plain(keys::describe(ctx, old, new)?)),
        Kind::SpriteFrames => Some(plain(frames::describe(old, new)?)),
        Kind::Dict if !old.trim_start().starts_with('{') => None,
        Kind::Dict => Some(plain(dict::describe(old, new)?)),
    }
}

/// Describe how an Animation's `tracks/*` properties (key, value text) changed: tracks
/// added or removed by path, fields and keys of the tracks both have; `None` when a list
/// holds anything else.
pub fn describe_tracks(
    ctx: &PropertyContext,
    old: &[(String, String)],
    new: &[(String, String)],
) -> Option<Vec<ValueChange>> {
    tracks::describe(ctx, old, new)
}

fn plain(changes: Vec<ValueChange>) -> ValueDiff {
    ValueDiff {
        changes,
        picture: Vec::new(),
    }
}

/// smallest part that changed: `element 0 "arrays" element 3: 0 -> 2.5`. `None` when
/// either is not such a container or more than `max` parts changed (the value is then
/// better shown whole).
pub fn describe_elements(old: &str, new: &str, max: usize) -> Option<Vec<ValueChange>> {
    let mut out = Vec::new();
    parts_of(String::new(), old, new, 0, max, &mut out)?;
    Some(out)
}

/// How deep [`describe_elements`] goes into nested containers.
const DEPTH: usize = 6;

/// Add the parts of `old` -> `new` at `at` to `out`; `None` when over `max` or not a
/// container at the top.
fn parts_of(
    at: String,
    old: &str,
    new: &str,
    depth: usize,
    max: usize,
    out: &mut Vec<ValueChange>,
) -> Option<()> {
    use super::text::{shape, Shape};
    let place = |inner: String| {
        if at.is_empty() {
            inner
        } else {
            format!("{at} {inner}")
        }
    };
    let pairs: Vec<ValueChange> = match (shape(old), shape(new)) {
        (Some(Shape::Dict(a)), Some(Shape::Dict(b))) if depth < DEPTH => {
            let own = |e: &[(&str, &str)]| -> Vec<(String, String)> {
                e.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            };
            super::dict::describe_entries_by(&own(&a), &own(&b), cheap_same)
        }
        (Some(Shape::Array(a)), Some(Shape::Array(b))) if depth < DEPTH => sequence(&a, &b),
        (Some(Shape::Call(x, a)), Some(Shape::Call(y, b))) if x == y && depth < DEPTH => {
            sequence(&a, &b)
        }
        _ if depth == 0 => return None,
        _ => {
            out.push(ValueChange::of(
                "element",
                at,
                Some(&fold(old)),
                Some(&fold(new)),
            ));
            return (out.len() <= max).then_some(());
        }
    };
    for c in pairs {
        match (c.change, &c.old, &c.new) {
            ("changed", Some(o), Some(n)) => {
                parts_of(place(c.at.clone()), o, n, depth + 1, max, out)?
            }
            _ => out.push(ValueChange {
                at: place(c.at),
                old: c.old.map(|v| fold(&v)),
                new: c.new.map(|v| fold(&v)),
                ..c
            }),
        }
        if out.len() > max {
            return None;
        }
    }
    Some(())
}

/// The items of two sequences that differ, `element N`; identical text is the same item.
fn sequence(a: &[&str], b: &[&str]) -> Vec<ValueChange> {
    describe_sequence("element", 0, a, b, cheap_same)
}

/// Equal text, or small items the engine reads alike (a big item that differs in text is
/// looked into rather than parsed whole).
fn cheap_same(x: &str, y: &str) -> bool {
    x == y || (x.len() < 256 && y.len() < 256 && super::text::same_value(x, y))
}

/// The lines of a multi-line string that differ, by line number from 1.
pub fn describe_lines(old: &str, new: &str) -> Vec<ValueChange> {
    let lines = |s: &str| -> Vec<String> { s.lines().map(str::to_string).collect() };
    describe_sequence("line", 1, &lines(old), &lines(new), |a, b| a == b)
}
