//! Tile maps drawn with their `TileSet`'s images: Godot 3 `TileMap` (`tile_data`, cells
//! of `cell_size` at their top-left corner, tiles `SINGLE` by `region`, `AUTO` and
//! `ATLAS` by autotile coordinate, `tile_size` and `spacing`, flips from the id's high
//! bits), Godot 4.0-4.2 `TileMap` (`layer_N/tile_data`) and 4.3+ `TileMapLayer`
//! (`tile_map_data`): each cell's atlas tile (`margins`, `separation`,
//! `texture_region_size`, `size_in_atlas`) centred on the cell, as the engine draws it.
//!
//! Bounded: at most [`Limits::cells`](super::Limits) cells per picture are drawn with
//! their tiles; the rest, and cells whose tile has no image here, are drawn as squares
//! (row runs merged) so no cell is left out. Hands back each layer's cells so the
//! picture can outline the cells that changed.

use super::canvas::{Ctx, Shape, Style};
use super::geometry::{number, rect2, vec2, Rect, Xf};
use super::texture::{resolve, Region};
use super::tree::{Res, Target};
use crate::grain::{cells_from_bytes, cells_from_ints, Cell, Layout};
use crate::value::{PackedElems, Value};
use std::collections::BTreeMap;

/// The cells of one layer of one tile map, for outlining changed cells.
#[derive(Debug, Clone)]
pub struct LayerCells {
    /// The tile map's index in the drawn list.
    pub node: usize,
    /// The layer (`tile_data`, `layer_1/tile_data`, `tile_map_data`).
    pub layer: String,
    /// A cell's size.
    pub cell: (f64, f64),
    /// What each cell holds (source or tile id, atlas coordinates, alternative).
    pub cells: BTreeMap<(i32, i32), Vec<i64>>,
}

/// Which engine wrote the cells.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Era {
    Godot3,
    Godot4,
}

/// A tile's image region and where it sits in its cell.
type Drawn = Option<(Region, (f64, f64))>;

/// Draw node `i` if it is a tile map; its layers' cells go to `out`.
pub fn draw(c: &mut Ctx, i: usize, out: &mut Vec<LayerCells>) -> bool {
    let t = c.nodes[i].type_name.as_str();
    if t != "TileMap" && t != "TileMapLayer" {
        return false;
    }
    let tile_set = c
        .get(i, "tile_set")
        .and_then(|(f, v)| match c.files.target(f, &v, c.limits) {
            Some(Target::Res(r)) => Some(r),
            _ => None,
        });
    for (layer, era, cells) in layers(c, i) {
        let cell = match era {
            Era::Godot3 => c.vec2(i, "cell_size").unwrap_or((64.0, 64.0)),
            Era::Godot4 => tile_set
                .and_then(|r| c.files.value(r.file, r.section, "tile_size"))
                .and_then(|v| vec2(&v))
                .unwrap_or((16.0, 16.0)),
        };
        paint(c, i, (tile_set, era, cell), &cells);
        out.push(LayerCells {
            node: i,
            layer,
            cell,
            cells: cells
                .into_iter()
                .map(|([x, y, _], v)| ((x, y), v))
                .collect(),
        });
    }
    true
}

/// Every layer of node `i`: its key, who wrote it and its cells, each as (source or
/// id, atlas x, atlas y, alternative) for Godot 4 and (id with flags, autotile coord)
/// for Godot 3.
fn layers(c: &Ctx, i: usize) -> Vec<(String, Era, Vec<Cell>)> {
    let mut out = Vec::new();
    if let Some((f, v)) = c.get(i, "tile_data") {
        let stride = if c.num(i, "format") == Some(1.0) {
            3
        } else {
            2
        };
        let godot3 = c.files.scene(f).is_godot3();
        let layout = Layout {
            stride: if godot3 { stride } else { 3 },
            grid: false,
            sorted: godot3,
        };
        if let Some(cells) = ints(&v).and_then(|n| cells_from_ints(&n, layout)) {
            let era = if godot3 { Era::Godot3 } else { Era::Godot4 };
            out.push((
                "tile_data".into(),
                era,
                if godot3 { cells } else { split4(cells) },
            ));
        }
    }
    for n in 0..256 {
        let key = format!("layer_{n}/tile_data");
        let Some((_, v)) = c.get(i, &key) else {
            if n > 0 {
                break;
            }
            continue;
        };
        let layout = Layout {
            stride: 3,
            grid: false,
            sorted: false,
        };
        if let Some(cells) = ints(&v).and_then(|x| cells_from_ints(&x, layout)) {
            out.push((key, Era::Godot4, split4(cells)));
        }
    }
    if let Some((_, Value::Packed(p))) = c.get(i, "tile_map_data") {
        if let Ok(PackedElems::Bytes(b)) = p.elements() {
            if let Some((_, cells)) = cells_from_bytes(&b) {
                out.push(("tile_map_data".into(), Era::Godot4, cells));
            }
        }
    }
    out
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    match v {
        Value::Packed(p) => match p.elements().ok()? {
            PackedElems::Ints(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

fn half(v: i64, shift: u32) -> i64 {
    ((v >> shift) & 0xffff) as u16 as i16 as i64
}

/// Godot 4.0-4.2 cells (source | atlas x << 16, atlas y | alternative << 16) as
/// (source, atlas x, atlas y, alternative).
fn split4(cells: Vec<Cell>) -> Vec<Cell> {
    cells
        .into_iter()
        .map(|(p, v)| {
            let (a, b) = (
                v.first().copied().unwrap_or(0),
                v.get(1).copied().unwrap_or(0),
            );
            (
                p,
                vec![a & 0xffff, half(a, 16), half(b, 0), (b >> 16) & 0xffff],
            )
        })
        .collect()
}

/// A colour per tile, for cells drawn as squares.
fn square_colour(key: &[i64]) -> &'static str {
    const PALETTE: [&str; 8] = [
        "#6e7781", "#4c8eda", "#57ab5a", "#c69026", "#b083f0", "#e0823d", "#39c5cf", "#d16d9e",
    ];
    let h = key
        .iter()
        .take(3)
        .fold(7i64, |h, v| h.wrapping_mul(31).wrapping_add(*v));
    PALETTE[(h.rem_euclid(8)) as usize]
}

/// Cells as row runs: consecutive cells of a row become one rectangle.
pub fn runs(mut cells: Vec<(i32, i32)>, (w, h): (f64, f64)) -> Vec<Rect> {
    cells.sort_by_key(|&(x, y)| (y, x));
    let mut out: Vec<Rect> = Vec::new();
    let mut last: Option<(i32, i32)> = None;
    for (x, y) in cells {
        match (last, out.last_mut()) {
            (Some((lx, ly)), Some(r)) if ly == y && lx + 1 == x => r.w += w,
            _ => out.push(Rect::new(x as f64 * w, y as f64 * h, w, h)),
        }
        last = Some((x, y));
    }
    out
}

/// Draw the cells of one layer: with their tiles while the budget lasts, else squares.
fn paint(c: &mut Ctx, i: usize, (set, era, cell): (Option<Res>, Era, (f64, f64)), cells: &[Cell]) {
    let mut tiles = Vec::new();
    let mut squares: BTreeMap<&'static str, Vec<(i32, i32)>> = BTreeMap::new();
    let mut known: BTreeMap<Vec<i64>, Drawn> = BTreeMap::new();
    for ([x, y, _], v) in cells {
        if era == Era::Godot4 && v.first() == Some(&0xffff) {
            continue;
        }
        let room = c.canvas.cells < c.limits.cells;
        let key = tile_key(era, v);
        let drawn = match (room, set) {
            (true, Some(set)) => known
                .entry(key.clone())
                .or_insert_with(|| match era {
                    Era::Godot3 => tile3(c, set, &key),
                    Era::Godot4 => tile4(c, set, &key),
                })
                .clone(),
            _ => None,
        };
        match drawn {
            Some((region, (ox, oy))) => {
                c.canvas.cells += 1;
                let (cx, cy) = (*x as f64 * cell.0, *y as f64 * cell.1);
                let dest = match era {
                    Era::Godot3 => Rect::new(cx + ox, cy + oy, region.w, region.h),
                    Era::Godot4 => Rect::new(
                        cx + cell.0 / 2.0 - region.w / 2.0 - ox,
                        cy + cell.1 / 2.0 - region.h / 2.0 - oy,
                        region.w,
                        region.h,
                    ),
                };
                tiles.push((region.symbol, dest, flips(era, v)));
            }
            None => {
                c.canvas.cells_cut += usize::from(!room && set.is_some());
                squares
                    .entry(square_colour(&key))
                    .or_default()
                    .push((*x, *y))
            }
        }
    }
    if !tiles.is_empty() {
        c.add(i, Xf::IDENTITY, Shape::Tiles(tiles));
    }
    for (colour, list) in squares {
        let style = Style::fill(colour, 0.85);
        c.add(i, Xf::IDENTITY, Shape::Squares(runs(list, cell), style));
    }
}

/// What picks a cell's image: Godot 3 (id, autotile x, y); Godot 4 (source, atlas x,
/// y, alternative without its flip bits).
fn tile_key(era: Era, v: &[i64]) -> Vec<i64> {
    let first = v.first().copied().unwrap_or(0);
    match era {
        Era::Godot3 => {
            let a = v.get(1).copied().unwrap_or(0);
            vec![first & 0x1fff_ffff, half(a, 0), half(a, 16)]
        }
        Era::Godot4 => {
            let alt = v.get(3).copied().unwrap_or(0) & 0x0fff;
            vec![
                first,
                v.get(1).copied().unwrap_or(0),
                v.get(2).copied().unwrap_or(0),
                alt,
            ]
        }
    }
}

/// A cell's mirroring (bit 0 horizontal, 1 vertical).
fn flips(era: Era, v: &[i64]) -> u8 {
    let (h, vv) = match era {
        Era::Godot3 => (29, 30),
        Era::Godot4 => (12, 13),
    };
    let bits = match era {
        Era::Godot3 => v.first().copied().unwrap_or(0),
        Era::Godot4 => v.get(3).copied().unwrap_or(0),
    };
    u8::from(bits >> h & 1 == 1) | (u8::from(bits >> vv & 1 == 1) << 1)
}

fn vec_or(v: Option<Value>, d: (f64, f64)) -> (f64, f64) {
    v.and_then(|v| vec2(&v)).unwrap_or(d)
}

/// A Godot 3 tile's region and offset: `ID/texture`, `ID/region`, `ID/tile_mode`,
/// `ID/autotile/tile_size` and `spacing`, `ID/tex_offset`.
fn tile3(c: &mut Ctx, set: Res, key: &[i64]) -> Drawn {
    let get = |c: &Ctx, k: &str| {
        c.files
            .value(set.file, set.section, &format!("{}/{k}", key[0]))
    };
    let tex_v = get(c, "texture")?;
    let tex = resolve(c.files, c.book, c.limits, (set.file, &tex_v))?;
    let region = get(c, "region")
        .and_then(|v| rect2(&v))
        .filter(Rect::has_area);
    let base = region.unwrap_or(Rect::new(0.0, 0.0, tex.area.w, tex.area.h));
    let mode = get(c, "tile_mode").and_then(|v| number(&v)).unwrap_or(0.0);
    let src = if mode == 0.0 {
        base
    } else {
        let ts = vec_or(get(c, "autotile/tile_size"), (64.0, 64.0));
        let sp = get(c, "autotile/spacing")
            .and_then(|v| number(&v))
            .unwrap_or(0.0);
        Rect::new(
            base.x + key[1] as f64 * (ts.0 + sp),
            base.y + key[2] as f64 * (ts.1 + sp),
            ts.0,
            ts.1,
        )
    };
    let off = vec_or(get(c, "tex_offset"), (0.0, 0.0));
    let abs = Rect::new(tex.area.x + src.x, tex.area.y + src.y, src.w, src.h);
    Some((c.book.region(tex.image, Some(abs))?, off))
}

/// A Godot 4 tile's region and texture origin, from its atlas source: `margins +
/// coords * (texture_region_size + separation)`, `size_in_atlas` tiles wide.
fn tile4(c: &mut Ctx, set: Res, key: &[i64]) -> Drawn {
    let src_v = c
        .files
        .value(set.file, set.section, &format!("sources/{}", key[0]))?;
    let Some(Target::Res(src)) = c.files.target(set.file, &src_v, c.limits) else {
        return None;
    };
    let get = |c: &Ctx, k: &str| c.files.value(src.file, src.section, k);
    let tex_v = get(c, "texture")?;
    let tex = resolve(c.files, c.book, c.limits, (src.file, &tex_v))?;
    let rs = vec_or(get(c, "texture_region_size"), (16.0, 16.0));
    let margins = vec_or(get(c, "margins"), (0.0, 0.0));
    let sep = vec_or(get(c, "separation"), (0.0, 0.0));
    let (ax, ay) = (key[1] as f64, key[2] as f64);
    let tile = format!("{}:{}", key[1], key[2]);
    let span = vec_or(get(c, &format!("{tile}/size_in_atlas")), (1.0, 1.0));
    let origin = vec_or(
        get(c, &format!("{tile}/{}/texture_origin", key[3])),
        (0.0, 0.0),
    );
    let abs = Rect::new(
        tex.area.x + margins.0 + ax * (rs.0 + sep.0),
        tex.area.y + margins.1 + ay * (rs.1 + sep.1),
        rs.0 * span.0 + sep.0 * (span.0 - 1.0),
        rs.1 * span.1 + sep.1 * (span.1 - 1.0),
    );
    Some((c.book.region(tex.image, Some(abs))?, origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_cells_become_runs() {
        let r = runs(vec![(2, 0), (0, 0), (1, 0), (5, 0), (0, 1)], (10.0, 10.0));
        assert_eq!(
            r,
            vec![
                Rect::new(0.0, 0.0, 30.0, 10.0),
                Rect::new(50.0, 0.0, 10.0, 10.0),
                Rect::new(0.0, 10.0, 10.0, 10.0)
            ]
        );
    }

    #[test]
    fn godot4_cells_split_into_source_atlas_and_alternative() {
        let v = split4(vec![([0, 0, 0], vec![3 | (2 << 16), 1 | (1 << 28)])]);
        assert_eq!(v[0].1, vec![3, 2, 1, 1 << 12]);
        assert_eq!(flips(Era::Godot4, &v[0].1), 1);
        assert_eq!(flips(Era::Godot3, &[1 << 30]), 2);
    }
}
