//! Cell-by-cell merge of tile maps and GridMaps: Godot 3 `TileMap` `tile_data`, Godot
//! 4.0-4.2 `layer_N/tile_data`, Godot 4.3+ `TileMapLayer` `tile_map_data` and `GridMap`
//! `data` (layouts in `docs/values.md`).
//!
//! A cell painted, erased or changed on one side applies; one cell changed differently on
//! both sides is a conflict naming its coordinates. Cells are written in the order the
//! editor saves them: Godot 3 keeps them in a sorted map (coordinate order), Godot 4 in an
//! insertion-ordered map (file order, new cells last).

use super::change::{ValueChange, ValueDiff};
use super::dict::entries;
use super::text::{same_value, string_of, write_call, write_dict, Spelling};
use super::three::merge_keyed;
use super::{ConflictAt, Grain, GrainConflict, GrainOutcome, Kind, PropertyContext};
use crate::value::{parse, PackedElems, Value};

/// A cell's coordinates: `[x, y, 0]` for tile maps, `[x, y, z]` for GridMap.
pub(crate) type Pos = [i32; 3];
/// One cell: coordinates and the numbers that say what is painted there.
pub(crate) type Cell = (Pos, Vec<i64>);

/// How one kind lays its cells out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    /// Ints per cell in a PackedInt32Array (1 coordinate int + the tile).
    pub stride: usize,
    /// GridMap: the second int is `z`.
    pub grid: bool,
    /// Godot 3 writes cells sorted by coordinates.
    pub sorted: bool,
}

/// The cell layout of an int-array kind, `None` for byte arrays and unknown kinds.
pub(crate) fn layout(kind: Kind, ctx: &PropertyContext) -> Option<Layout> {
    let godot3 = ctx.godot3();
    match kind {
        Kind::TileMap3 => Some(Layout {
            stride: if ctx.tile_format == Some(1) { 3 } else { 2 },
            grid: false,
            sorted: true,
        }),
        Kind::TileMapLayers4 => Some(Layout {
            stride: 3,
            grid: false,
            sorted: godot3,
        }),
        Kind::GridMap => Some(Layout {
            stride: 3,
            grid: true,
            sorted: godot3,
        }),
        _ => None,
    }
}

/// Merge a Godot 3 `tile_data` or Godot 4.0-4.2 `layer_N/tile_data` cell by cell.
pub(crate) fn merge_tile_ints(
    kind: Kind,
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    layout(kind, ctx)
        .and_then(|l| merge_int_array(l, ctx, base, ours, theirs))
        .unwrap_or(Grain::NotMine)
}

/// A packed array's name as written and its ints.
pub(crate) fn ints_of(text: &str) -> Option<(String, Vec<i64>)> {
    match parse(text).ok()? {
        Value::Packed(p) => match p.elements().ok()? {
            PackedElems::Ints(v) => Some((p.name, v)),
            _ => None,
        },
        _ => None,
    }
}

fn half(v: i64, shift: u32) -> i32 {
    ((v >> shift) & 0xffff) as u16 as i16 as i32
}

/// Cells of a PackedInt32Array; `None` when the length is not a whole number of cells.
pub(crate) fn cells_from_ints(ints: &[i64], l: Layout) -> Option<Vec<Cell>> {
    if l.stride < 2 || !ints.len().is_multiple_of(l.stride) {
        return None;
    }
    let skip = if l.grid { 2 } else { 1 };
    Some(
        ints.chunks(l.stride)
            .map(|c| {
                let z = if l.grid { half(c[1], 0) } else { 0 };
                ([half(c[0], 0), half(c[0], 16), z], c[skip..].to_vec())
            })
            .collect(),
    )
}

fn ints_from_cells(cells: &[Cell], l: Layout) -> Vec<i64> {
    let mut out = Vec::with_capacity(cells.len() * l.stride);
    for ([x, y, z], v) in cells {
        let packed = ((*y as u16 as u32) << 16) | (*x as u16 as u32);
        out.push(packed as i32 as i64);
        if l.grid {
            out.push(*z as u16 as i64);
        }
        out.extend(v.iter().copied());
    }
    out
}

/// Godot 3's map order: TileMap by (y, x); GridMap by its 64-bit key (z, y, x as unsigned).
fn sort_cells(cells: &mut [Cell], l: Layout) {
    if l.grid {
        cells.sort_by_key(|([x, y, z], _)| (*z as u16, *y as u16, *x as u16));
    } else {
        cells.sort_by_key(|([x, y, _], _)| (*y, *x));
    }
}

/// Merge three cell lists; conflicts name each clashing cell with `describe` of each side.
pub(crate) fn merge_cells(
    base: &[Cell],
    ours: &[Cell],
    theirs: &[Cell],
    describe: impl Fn(&[i64]) -> String,
) -> Result<Vec<Cell>, Vec<GrainConflict>> {
    merge_keyed(
        base,
        ours,
        theirs,
        |a, b| a == b,
        |pos, b, o, t| {
            let d =
                |v: Option<&Vec<i64>>| Some(v.map_or_else(|| "empty".to_string(), |v| describe(v)));
            let coords = if pos[2] == 0 {
                pos[..2].to_vec()
            } else {
                pos.to_vec()
            };
            Err(vec![GrainConflict {
                at: ConflictAt::Cell(coords),
                base: d(b),
                ours: d(o),
                theirs: d(t),
            }])
        },
    )
}

fn merge_int_array(
    l: Layout,
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Option<GrainOutcome> {
    let (name, o) = ints_of(ours)?;
    let (_, t) = ints_of(theirs)?;
    let b = match base {
        Some(b) => ints_of(b)?.1,
        None => Vec::new(),
    };
    let [b, o, t] = [b, o, t].map(|v| cells_from_ints(&v, l));
    let describe = |v: &[i64]| describe_tile(ctx, v);
    Some(match merge_cells(&b?, &o?, &t?, describe) {
        Ok(mut cells) => {
            if l.sorted {
                sort_cells(&mut cells, l);
            }
            let ints: Vec<String> = ints_from_cells(&cells, l)
                .iter()
                .map(|i| i.to_string())
                .collect();
            Grain::Merged(write_call(&name, &ints, &Spelling::of(ctx.godot3(), ours)))
        }
        Err(c) => Grain::Conflict(c),
    })
}

/// A tile's numbers in words: Godot 3 id, flips and autotile coordinate; Godot 4 source,
/// atlas coordinates and alternative; GridMap item and orientation.
pub(crate) fn describe_tile(ctx: &PropertyContext, v: &[i64]) -> String {
    let first = v.first().copied().unwrap_or(0);
    if ctx.owner_type == "GridMap" {
        return format!(
            "item {} orientation {}",
            half(first, 0),
            (first >> 16) & 0x1f
        );
    }
    if ctx.godot3() {
        let mut s = format!("tile {}", first & 0x1fff_ffff);
        for (bit, name) in [(29, "flip_h"), (30, "flip_v"), (31, "transpose")] {
            if first >> bit & 1 == 1 {
                s.push_str(&format!(" {name}"));
            }
        }
        if let Some(&a) = v.get(1) {
            s.push_str(&format!(" autotile ({}, {})", half(a, 0), half(a, 16)));
        }
        return s;
    }
    let (src, ax) = (first & 0xffff, half(first, 16));
    let second = v.get(1).copied().unwrap_or(0);
    format!(
        "source {src} atlas ({ax}, {}) alternative {}",
        half(second, 0),
        half(second, 16)
    )
}

// ---- TileMapLayer bytes ----

const CELL_BYTES: usize = 12;

/// Cells of a `tile_map_data` byte array: a 2-byte format header, then 12-byte records
/// (x, y, source, atlas x, atlas y, alternative; 16-bit little-endian).
pub(crate) fn cells_from_bytes(bytes: &[u8]) -> Option<(Option<[u8; 2]>, Vec<Cell>)> {
    let Some((head, rest)) = bytes.split_first_chunk::<2>() else {
        return bytes.is_empty().then(|| (None, Vec::new()));
    };
    if u16::from_le_bytes(*head) != 0 || rest.len() % CELL_BYTES != 0 {
        return None;
    }
    let le = |c: &[u8], i: usize| u16::from_le_bytes([c[i], c[i + 1]]);
    let cells = rest
        .chunks(CELL_BYTES)
        .map(|c| {
            let pos = [le(c, 0) as i16 as i32, le(c, 2) as i16 as i32, 0];
            (pos, (2..6).map(|k| le(c, 2 * k) as i64).collect())
        })
        .collect();
    Some((Some(*head), cells))
}

fn bytes_from_cells(head: [u8; 2], cells: &[Cell]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + cells.len() * CELL_BYTES);
    out.extend_from_slice(&head);
    for ([x, y, _], v) in cells {
        out.extend_from_slice(&(*x as i16).to_le_bytes());
        out.extend_from_slice(&(*y as i16).to_le_bytes());
        for k in v.iter().take(4) {
            out.extend_from_slice(&(*k as u16).to_le_bytes());
        }
    }
    out
}

fn bytes_of(text: &str) -> Option<(String, Vec<u8>, bool)> {
    match parse(text).ok()? {
        Value::Packed(p) => {
            let base64 = matches!(p.body, crate::value::PackedBody::Base64(_));
            match p.elements().ok()? {
                PackedElems::Bytes(b) => Some((p.name, b, base64)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Merge a 4.3+ `tile_map_data` cell by cell.
pub(crate) fn merge_bytes(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    merge_byte_cells(ctx, base, ours, theirs).unwrap_or(Grain::NotMine)
}

fn merge_byte_cells(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Option<GrainOutcome> {
    let (name, o, base64) = bytes_of(ours)?;
    let (_, t, _) = bytes_of(theirs)?;
    let b = base.map_or(Some(Vec::new()), |b| bytes_of(b).map(|x| x.1))?;
    let (oh, oc) = cells_from_bytes(&o)?;
    let (th, tc) = cells_from_bytes(&t)?;
    let (_, bc) = cells_from_bytes(&b)?;
    let describe = |v: &[i64]| {
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        format!(
            "source {} atlas ({}, {}) alternative {}",
            g(0),
            g(1),
            g(2),
            g(3)
        )
    };
    Some(match merge_cells(&bc, &oc, &tc, describe) {
        Ok(cells) if cells.is_empty() => Grain::Merged(write_call::<&str>(
            &name,
            &[],
            &Spelling::of(ctx.godot3(), ours),
        )),
        Ok(cells) => {
            let bytes = bytes_from_cells(oh.or(th).unwrap_or([0, 0]), &cells);
            Grain::Merged(write_bytes(&name, &bytes, base64 || ctx.file_format >= 4))
        }
        Err(c) => Grain::Conflict(c),
    })
}

fn write_bytes(name: &str, bytes: &[u8], base64: bool) -> String {
    if base64 {
        format!("{name}(\"{}\")", crate::value::packed_base64_encode(bytes))
    } else {
        let items: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        write_call(name, &items, &Spelling::of(false, ""))
    }
}

// ---- GridMap ----

/// Merge a GridMap's `data`: its `cells` cell by cell, its other entries key by key.
pub(crate) fn merge_grid(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    merge_grid_cells(ctx, base, ours, theirs).unwrap_or(Grain::NotMine)
}

fn merge_grid_cells(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Option<GrainOutcome> {
    let o = entries(ours)?;
    let t = entries(theirs)?;
    let b = base.map_or(Some(Vec::new()), entries)?;
    let is_cells = |k: &str| string_of(k).as_deref() == Some("cells");
    let cells_of = |side: &[(String, String)]| {
        side.iter()
            .find(|(k, _)| is_cells(k))
            .map(|(_, v)| v.clone())
    };
    let l = layout(Kind::GridMap, ctx)?;
    let (oc, tc) = (cells_of(&o)?, cells_of(&t)?);
    let merged_cells = merge_int_array(l, ctx, cells_of(&b).as_deref(), &oc, &tc)?;
    let rest = merge_keyed(
        &b,
        &o,
        &t,
        |x, y| same_value(x, y),
        |k, b, o, t| {
            if is_cells(k) {
                return Ok(o.cloned());
            }
            Err(vec![GrainConflict {
                at: ConflictAt::Entry(k.clone()),
                base: b.cloned(),
                ours: o.cloned(),
                theirs: t.cloned(),
            }])
        },
    );
    Some(match (merged_cells, rest) {
        (Grain::Merged(cells), Ok(mut entries)) => {
            for (k, v) in entries.iter_mut() {
                if is_cells(k) {
                    *v = cells.clone();
                }
            }
            Grain::Merged(write_dict(&entries, &Spelling::of(ctx.godot3(), ours)))
        }
        (Grain::Conflict(mut a), Err(b)) => {
            a.extend(b);
            Grain::Conflict(a)
        }
        (Grain::Conflict(a), _) | (_, Err(a)) => Grain::Conflict(a),
        (Grain::NotMine, _) => Grain::NotMine,
    })
}

// ---- descriptions ----

/// The cells of one side's value, whatever its kind.
fn cells_of(kind: Kind, ctx: &PropertyContext, text: &str) -> Option<Vec<Cell>> {
    match kind {
        Kind::TileMapLayer => Some(cells_from_bytes(&bytes_of(text)?.1)?.1),
        Kind::GridMap => {
            let e = entries(text)?;
            let (_, v) = e
                .iter()
                .find(|(k, _)| string_of(k).as_deref() == Some("cells"))?;
            cells_from_ints(&ints_of(v)?.1, layout(kind, ctx)?)
        }
        _ => cells_from_ints(&ints_of(text)?.1, layout(kind, ctx)?),
    }
}

/// Cells painted, erased and changed between `old` and `new`, each group with its
/// bounding box; a picture of the changed area when it is a small 2D one.
pub(crate) fn describe(
    kind: Kind,
    ctx: &PropertyContext,
    old: &str,
    new: &str,
) -> Option<ValueDiff> {
    let (a, b) = (cells_of(kind, ctx, old)?, cells_of(kind, ctx, new)?);
    let mut groups: [Vec<Pos>; 3] = Default::default();
    for (pos, x, y) in super::three::diff_keyed(&a, &b, |p, q| p == q) {
        let slot = match (x, y) {
            (None, _) => 0,
            (_, None) => 1,
            _ => 2,
        };
        groups[slot].push(*pos);
    }
    let grid = kind == Kind::GridMap;
    let changes = ["painted", "erased", "changed"]
        .into_iter()
        .zip(&groups)
        .filter_map(|(what, cells)| cell_summary(what, cells, grid))
        .collect();
    let picture = if grid {
        Vec::new()
    } else {
        let kept: Vec<Pos> = b.iter().map(|(p, _)| *p).collect();
        picture(&groups, &kept)
    };
    Some(ValueDiff { changes, picture })
}

/// The widest and tallest changed area drawn as a picture.
pub const PICTURE_MAX: i32 = 16;

fn bounds(cells: &[Pos]) -> Option<(Pos, Pos)> {
    let first = cells.first()?;
    let (mut lo, mut hi) = (*first, *first);
    for c in cells {
        for i in 0..3 {
            lo[i] = lo[i].min(c[i]);
            hi[i] = hi[i].max(c[i]);
        }
    }
    Some((lo, hi))
}

/// `N cells painted in (x0, y0)-(x1, y1)`: a count and the box around the cells.
fn cell_summary(what: &'static str, cells: &[Pos], grid: bool) -> Option<ValueChange> {
    let (lo, hi) = bounds(cells)?;
    let n = if grid { 3 } else { 2 };
    let show = |p: Pos| {
        let s: Vec<String> = p[..n].iter().map(|v| v.to_string()).collect();
        format!("({})", s.join(", "))
    };
    let at = if lo == hi {
        show(lo)
    } else {
        format!("{}-{}", show(lo), show(hi))
    };
    Some(ValueChange {
        part: "cells",
        at,
        change: what,
        count: cells.len(),
        old: None,
        new: None,
    })
}

/// A picture of the changed area of a 2D tile map (painted, erased, changed cells, and the
/// cells around them that stayed); empty when the area is over [`PICTURE_MAX`] a side.
fn picture(groups: &[Vec<Pos>; 3], kept: &[Pos]) -> Vec<String> {
    let all: Vec<Pos> = groups.iter().flatten().copied().collect();
    let Some((lo, hi)) = bounds(&all) else {
        return Vec::new();
    };
    let (w, h) = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
    if w > PICTURE_MAX || h > PICTURE_MAX {
        return Vec::new();
    }
    let mut rows = vec![vec!['.'; w as usize]; h as usize];
    let mut put = |p: &Pos, c: char| {
        let (x, y) = ((p[0] - lo[0]) as usize, (p[1] - lo[1]) as usize);
        if let Some(cell) = rows.get_mut(y).and_then(|r| r.get_mut(x)) {
            *cell = c;
        }
    };
    for p in kept {
        put(p, '#');
    }
    for (group, c) in groups.iter().zip(['+', '-', '~']) {
        group.iter().for_each(|p| put(p, c));
    }
    rows.into_iter().map(|r| r.into_iter().collect()).collect()
}
