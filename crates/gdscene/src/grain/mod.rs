//! Merging *inside* values: tile map cells, GridMap cells, Animation keys and tracks,
//! SpriteFrames animations, AnimationLibrary entries and dictionaries, key by key; and
//! transforms by origin, rotation and scale (`transform.rs`).
//!
//! The property merge decides *which* property to merge; this module decides how one value
//! (or, for Animation tracks, one group of `tracks/*` properties) merges at a finer grain
//! than the whole property, and spells the result exactly as the editor would save it.
//! It leaves to others: finding the property and its context, id rewriting between the
//! sides (values must reach this module with theirs' ids already rewritten), raising the
//! file's `format`, and conflict markers. Everything here is pure and never panics: a value
//! it cannot read gives [`Grain::NotMine`], so the caller does its usual thing.

mod cells;
mod change;
mod describe;
mod dict;
mod frames;
mod keys;
mod object;
mod text;
mod three;
mod tracks;
mod transform;

#[cfg(test)]
mod tests;

pub use cells::PICTURE_MAX;
pub(crate) use cells::{cells_from_bytes, cells_from_ints, Cell, Layout};
pub use change::{describe_sequence, ValueChange, ValueDiff};
pub use describe::{describe_change, describe_elements, describe_lines, describe_tracks};
pub use keys::value_at_start;
pub use tracks::{conflicts_of_track, merge_tracks, renumber_like_ours};
pub use transform::{describe_transform, merge_transform, TransformMerge};

use std::fmt;

/// Where a property lives, so the right grain is chosen: the owner's type and key, plus the
/// sibling facts some encodings depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropertyContext<'a> {
    /// Node type (`TileMap`, `TileMapLayer`, `GridMap`, `AnimationPlayer`) or resource type
    /// (`Animation`, `SpriteFrames`, `AnimationLibrary`).
    pub owner_type: &'a str,
    /// The property key as decoded (`tile_data`, `layer_0/tile_data`, `tracks/0/keys`).
    pub key: &'a str,
    /// The file header's `format` (2 = Godot 3, 3 or 4 = Godot 4): decides the spelling.
    pub file_format: u8,
    /// A Godot 3 TileMap's own `format` property (`1` = three ints per cell, absent = two).
    pub tile_format: Option<i64>,
    /// For `tracks/N/keys`: the track's `tracks/N/type` (`"value"`, `"transform"`, ...).
    pub track_type: Option<&'a str>,
}

impl PropertyContext<'_> {
    fn godot3(&self) -> bool {
        self.file_format <= 2
    }
}

/// What a grain merge gives: not a value this module knows, a merged value, or conflicts
/// at the grain (cells, keys, entries) so the report can name them.
#[derive(Debug, Clone, PartialEq)]
pub enum Grain<T> {
    /// Not a value this module knows (or it does not parse): the caller merges as usual.
    NotMine,
    /// The merged value, in the editor's spelling.
    Merged(T),
    /// Both sides changed the same cell/key/entry differently.
    Conflict(Vec<GrainConflict>),
}

/// The outcome of [`merge_property`]: the merged value text.
pub type GrainOutcome = Grain<String>;

/// One clash inside a value, with the three versions as readable text (`None`: absent).
#[derive(Debug, Clone, PartialEq)]
pub struct GrainConflict {
    /// What clashed.
    pub at: ConflictAt,
    /// Base version (`None`: not there).
    pub base: Option<String>,
    /// Ours (`None`: erased / deleted).
    pub ours: Option<String>,
    /// Theirs (`None`: erased / deleted).
    pub theirs: Option<String>,
}

/// The place of a [`GrainConflict`], in the words of the value it sits in.
#[derive(Debug, Clone, PartialEq)]
pub enum ConflictAt {
    /// A tile map or GridMap cell: `x, y` (and `z` for GridMap).
    Cell(Vec<i32>),
    /// An Animation key at a time (as written), in the track named (`"value" Sprite:frame`).
    Key {
        /// The track, when known.
        track: Option<String>,
        /// The key's time as written.
        time: String,
    },
    /// A dictionary entry (its key as written) or a field of a track.
    Entry(String),
    /// A whole Animation track (deleted on one side, changed on the other).
    Track(String),
    /// A SpriteFrames animation, by name.
    Animation(String),
}

impl fmt::Display for ConflictAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConflictAt::Cell(c) => {
                let parts: Vec<String> = c.iter().map(|v| v.to_string()).collect();
                write!(f, "cell ({})", parts.join(", "))
            }
            ConflictAt::Key {
                track: Some(t),
                time,
            } => write!(f, "track {t}, key at time {time}"),
            ConflictAt::Key { track: None, time } => write!(f, "key at time {time}"),
            ConflictAt::Entry(k) => write!(f, "entry {k}"),
            ConflictAt::Track(t) => write!(f, "track {t}"),
            ConflictAt::Animation(n) => write!(f, "animation \"{n}\""),
        }
    }
}

impl fmt::Display for GrainConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".to_string());
        write!(
            f,
            "{}: base {}, ours {}, theirs {}",
            self.at,
            side(&self.base),
            side(&self.ours),
            side(&self.theirs)
        )
    }
}

/// Merge one property's value at a finer grain than the whole value. `base` is `None` when
/// both sides added the property. Returns [`Grain::NotMine`] for values this module does not
/// know and for anything that does not parse.
pub fn merge_property(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    let out = match kind_of(ctx) {
        Some(kind) => merge_kind(kind, ctx, base, ours, theirs),
        None => Grain::NotMine,
    };
    match out {
        Grain::Merged(text) if crate::value::parse(&text).is_err() => Grain::NotMine,
        other => other,
    }
}

/// The value kinds this module merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Godot 3 `TileMap` `tile_data`.
    TileMap3,
    /// Godot 4.0-4.2 `TileMap` `layer_N/tile_data`.
    TileMapLayers4,
    /// Godot 4.3+ `TileMapLayer` `tile_map_data`.
    TileMapLayer,
    /// `GridMap` `data`.
    GridMap,
    /// `Animation` `tracks/N/keys`.
    TrackKeys,
    /// `SpriteFrames` `animations`.
    SpriteFrames,
    /// Any dictionary-valued property (`__meta__`, `AnimationLibrary` `_data`, ...).
    Dict,
}

pub(crate) fn kind_of(ctx: &PropertyContext) -> Option<Kind> {
    let layer_data = ctx
        .key
        .strip_prefix("layer_")
        .and_then(|r| r.strip_suffix("/tile_data"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    Some(match (ctx.owner_type, ctx.key) {
        ("TileMap", "tile_data") => Kind::TileMap3,
        ("TileMap", _) if layer_data => Kind::TileMapLayers4,
        ("TileMapLayer", "tile_map_data") => Kind::TileMapLayer,
        ("GridMap", "data") => Kind::GridMap,
        ("Animation", k) if tracks::split_track_key(k).is_some_and(|(_, f)| f == "keys") => {
            Kind::TrackKeys
        }
        ("SpriteFrames", "animations") => Kind::SpriteFrames,
        _ => Kind::Dict,
    })
}

fn merge_kind(
    kind: Kind,
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    match kind {
        Kind::TileMap3 | Kind::TileMapLayers4 => {
            cells::merge_tile_ints(kind, ctx, base, ours, theirs)
        }
        Kind::TileMapLayer => cells::merge_bytes(ctx, base, ours, theirs),
        Kind::GridMap => cells::merge_grid(ctx, base, ours, theirs),
        Kind::TrackKeys => keys::merge(ctx, None, base, ours, theirs),
        Kind::SpriteFrames => frames::merge(ctx, base, ours, theirs),
        Kind::Dict if ours.trim_start().starts_with("Object(") => object::merge(base, ours, theirs),
        Kind::Dict => dict::merge_top(ctx, base, ours, theirs),
    }
}
