//! Readable descriptions of a change inside a value, at the same grain as the merge: tile
//! cells painted / erased / changed (with their bounding box), Animation keys by time,
//! dictionary entries by key, SpriteFrames animations by name. For diff and render to use.

use super::{cells, dict, frames, keys, kind_of, Kind, PropertyContext};

/// Describe how `old` became `new`, one line per change; `None` when this module does not
/// know the value (or it does not parse), and an empty list when nothing changed.
pub fn describe_change(ctx: &PropertyContext, old: &str, new: &str) -> Option<Vec<String>> {
    match kind_of(ctx)? {
        k @ (Kind::TileMap3 | Kind::TileMapLayers4 | Kind::TileMapLayer | Kind::GridMap) => {
            cells::describe(k, ctx, old, new)
        }
        Kind::TrackKeys => keys::describe(ctx, old, new),
        Kind::SpriteFrames => frames::describe(old, new),
        Kind::Dict => dict::describe(old, new),
    }
}

/// `N cells painted in (x0, y0)-(x1, y1)`: a count and the box around the cells.
pub(crate) fn cell_summary(what: &str, cells: &[[i32; 3]], grid: bool) -> Option<String> {
    let first = cells.first()?;
    let (mut lo, mut hi) = (*first, *first);
    for c in cells {
        for i in 0..3 {
            lo[i] = lo[i].min(c[i]);
            hi[i] = hi[i].max(c[i]);
        }
    }
    let n = if grid { 3 } else { 2 };
    let show = |p: [i32; 3]| {
        let s: Vec<String> = p[..n].iter().map(|v| v.to_string()).collect();
        format!("({})", s.join(", "))
    };
    let noun = if cells.len() == 1 { "cell" } else { "cells" };
    Some(if lo == hi {
        format!("1 {noun} {what} at {}", show(lo))
    } else {
        format!("{} {noun} {what} in {}-{}", cells.len(), show(lo), show(hi))
    })
}
