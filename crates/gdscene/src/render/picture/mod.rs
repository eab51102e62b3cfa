//! Pictures of a scene, drawn from the scene itself as SVG: what the editor's viewport
//! would show, before and after a change. Node2D and Control transforms composed down
//! the tree (`place.rs`); sprites, texture rects and animated sprites with the project's
//! own images, embedded as `data:` URIs (`sprite.rs`, `texture.rs`), a labelled box when
//! the repository does not have them; collision shapes, polygons and lines
//! (`shapes.rs`); tile maps with their TileSet's atlas (`tiles.rs`); instanced scenes
//! mounted where they sit (`tree.rs`); a top-down schematic for 3D scenes
//! (`spatial.rs`). Added, removed and changed nodes are outlined in the review page's
//! colours ([`Mark`]), changed tile cells cell by cell (`svg.rs` writes it all).
//!
//! Pure: the caller hands the scene and an [`Assets`] that gives the bytes of any
//! project file (`res://...`: from the work tree, or from git at a revision); nothing
//! here reads a file. Bounded by [`Limits`] (nodes, cells, embedded bytes), and a
//! picture says what a limit left out in its notes. The time bound is the caller's
//! (the drawing's work is bounded by the same limits).

mod canvas;
mod geometry;
mod place;
mod shapes;
mod spatial;
mod sprite;
mod svg;
mod texture;
mod tiles;
mod tree;

use crate::diff::{Detail, DiffReport, Subject};
use crate::model::Scene;
use canvas::{Canvas, Ctx, Item, Shape};
use geometry::{Bounds, Rect, Xf};
use place::Family;
use std::collections::BTreeMap;
use svg::{Frame, Outline};
use texture::Book;
use tiles::LayerCells;
use tree::{FNode, Files};

/// The project's files, as the caller can read them: `res://...` path to bytes.
pub trait Assets {
    /// The bytes of the project file at `res_path` (`res://...`), `None` when there is
    /// none.
    fn read(&self, res_path: &str) -> Option<Vec<u8>>;
}

/// No project files: every texture becomes a labelled box.
pub struct NoAssets;

impl Assets for NoAssets {
    fn read(&self, _: &str) -> Option<Vec<u8>> {
        None
    }
}

impl Assets for BTreeMap<String, Vec<u8>> {
    fn read(&self, res_path: &str) -> Option<Vec<u8>> {
        self.get(res_path).cloned()
    }
}

/// How much a picture may hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Nodes drawn (instanced scenes' nodes included).
    pub nodes: usize,
    /// Tile cells drawn with their images (the rest are drawn as squares).
    pub cells: usize,
    /// Nodes outlined.
    pub marks: usize,
    /// Bytes of one embedded image.
    pub image_bytes: usize,
    /// Bytes of all embedded images of one set of pictures.
    pub page_bytes: usize,
    /// Bytes read through [`Assets`] (scenes, resources, images).
    pub read_bytes: usize,
    /// Largest width and height of a picture on the page, in pixels.
    pub size: (f64, f64),
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: 4_000,
            cells: 20_000,
            marks: 400,
            image_bytes: 4 << 20,
            page_bytes: 12 << 20,
            read_bytes: 64 << 20,
            size: (520.0, 420.0),
        }
    }
}

/// How a node changed, as the picture outlines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Only after.
    Added,
    /// Only before.
    Removed,
    /// On both sides, different.
    Changed,
}

impl Mark {
    /// Every mark, in legend order.
    pub const ALL: [Mark; 3] = [Mark::Added, Mark::Removed, Mark::Changed];

    /// Its name (a CSS class, `data-mark`).
    pub fn name(self) -> &'static str {
        match self {
            Mark::Added => "added",
            Mark::Removed => "removed",
            Mark::Changed => "changed",
        }
    }

    /// Its colour: the review page's painted, erased and changed cells.
    pub fn colour(self) -> &'static str {
        match self {
            Mark::Added => "#2da44e",
            Mark::Removed => "#e5534b",
            Mark::Changed => "#d4a72c",
        }
    }
}

/// The nodes of one side to outline, by path, and (before) where each changed node is
/// after, so a renamed tile map's cells are compared with its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    /// Node path to mark.
    pub nodes: BTreeMap<String, Mark>,
    /// This side's path to the other side's, for nodes renamed or moved.
    pub to_new: BTreeMap<String, String>,
}

/// One side to draw: the scene, its `res://` path, the project's files as they were on
/// that side, and what to outline.
pub struct Side<'a> {
    /// The scene.
    pub scene: &'a Scene,
    /// Where it lives (`res://levels/one.tscn`): relative paths resolve against it.
    pub path: &'a str,
    /// The project's files on this side.
    pub assets: &'a dyn Assets,
    /// What to outline.
    pub marks: &'a Marks,
}

/// How a picture looks at its scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The 2D canvas, as the editor's 2D viewport.
    Plane,
    /// A 3D scene seen from above.
    TopDown,
}

/// One side's picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The `<svg>` element.
    pub svg: String,
    /// 2D or top-down.
    pub view: View,
    /// What was left out or could not be read, one sentence each.
    pub notes: Vec<String>,
}

/// The pictures of several sides of one scene, sharing one view and one set of images.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pictures {
    /// A hidden `<svg>` holding the images and regions every side uses (empty when
    /// none); put it in the page once, before the pictures.
    pub defs: String,
    /// Each side's picture (`None` for a side not given or with nothing to draw).
    pub sides: Vec<Option<Picture>>,
    /// Why there is no picture, or what was left out of all of them (the caller's time
    /// limit, the page's size limit).
    pub notes: Vec<String>,
}

impl Pictures {
    /// No picture, and why.
    pub fn none(why: String) -> Pictures {
        Pictures {
            notes: vec![why],
            ..Pictures::default()
        }
    }
}

/// The marks of the old and new side of a diff: removed nodes before, added after,
/// changed ones on both (at their old path before).
pub fn marks_of(report: &DiffReport) -> (Marks, Marks) {
    let (mut old, mut new) = (Marks::default(), Marks::default());
    let groups = crate::render::groups(&report.changes);
    let mut moves: Vec<(String, String)> = Vec::new();
    for g in &groups {
        let Subject::Node { path, .. } = &g[0].subject else {
            continue;
        };
        let mut name = crate::render::node_name(path).to_string();
        let mut parent = crate::render::parent_path(path).map(str::to_string);
        let mut moved = false;
        for ch in g.iter() {
            match &ch.detail {
                Detail::Renamed { old, .. } => (name, moved) = (old.clone(), true),
                Detail::Moved { old_parent, .. } => {
                    (parent, moved) = (Some(old_parent.clone()), true)
                }
                _ => {}
            }
        }
        if moved {
            let was = match parent.as_deref() {
                None | Some(".") | Some("") => name,
                Some(p) => format!("{p}/{name}"),
            };
            moves.push((path.clone(), was));
        }
    }
    moves.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let to_old = |p: &str| -> String {
        for (n, o) in &moves {
            if p == n {
                return o.clone();
            }
            if let Some(rest) = p.strip_prefix(n.as_str()).and_then(|r| r.strip_prefix('/')) {
                return format!("{o}/{rest}");
            }
        }
        p.to_string()
    };
    for g in &groups {
        let Subject::Node { path, .. } = &g[0].subject else {
            continue;
        };
        match g[0].detail {
            Detail::Added { .. } => {
                new.nodes.insert(path.clone(), Mark::Added);
            }
            Detail::Removed { .. } => {
                old.nodes.insert(path.clone(), Mark::Removed);
            }
            _ => {
                let was = to_old(path);
                new.nodes.insert(path.clone(), Mark::Changed);
                old.nodes.insert(was.clone(), Mark::Changed);
                old.to_new.insert(was, path.clone());
            }
        }
    }
    (old, new)
}

/// One side drawn, before it is written.
struct Drawn {
    nodes: Vec<FNode>,
    names: Vec<String>,
    places: Vec<place::Place>,
    canvas: Canvas,
    layers: Vec<LayerCells>,
    view: View,
    notes: Vec<String>,
}

fn draw_side(side: &Side, book: &mut Book, limits: &Limits) -> Drawn {
    let mut files = Files::new(side.scene, side.path, side.assets);
    let (nodes, cut) = tree::flatten(&mut files, limits);
    let project = files.bytes("res://project.godot", limits);
    let viewport = place::viewport(project.as_deref(), side.scene.is_godot3());
    let places = place::layout(&files, &nodes, viewport);
    let count = |f: &dyn Fn(Family) -> bool| places.iter().filter(|p| f(p.family)).count();
    let flat = |f: Family| matches!(f, Family::Node2D | Family::Control);
    let view = if count(&|f| f == Family::Node3D) > count(&flat) {
        View::TopDown
    } else {
        View::Plane
    };
    let mut canvas = Canvas::new(nodes.len());
    let mut layers = Vec::new();
    let mut c = Ctx {
        files: &mut files,
        book,
        limits,
        canvas: &mut canvas,
        nodes: &nodes,
        places: &places,
    };
    match view {
        View::TopDown => spatial::draw(&mut c),
        View::Plane => {
            for (i, n) in nodes.iter().enumerate() {
                if !flat(places[i].family) {
                    continue;
                }
                let drawn = sprite::draw(&mut c, i)
                    || shapes::draw(&mut c, i)
                    || tiles::draw(&mut c, i, &mut layers);
                if !drawn && side.marks.nodes.contains_key(&n.path) {
                    c.add(i, Xf::IDENTITY, Shape::Origin);
                }
            }
        }
    }
    let mut notes = std::mem::take(&mut files.notes);
    if cut {
        notes.push(format!(
            "drawn the first {} nodes (the picture's limit)",
            limits.nodes
        ));
    }
    if canvas.cells_cut > 0 {
        notes.push(format!(
            "{} tile cells drawn as squares ({} cells with their tiles is the picture's limit)",
            canvas.cells_cut, limits.cells
        ));
    }
    let names = nodes.iter().map(|n| n.name(&files).to_string()).collect();
    Drawn {
        nodes,
        names,
        places,
        canvas,
        layers,
        view,
        notes,
    }
}

/// Outline the cells of each tile map layer that differ between `old` and `new`.
fn mark_cells(old: &mut Drawn, new: &mut Drawn, old_marks: &Marks, limits: &Limits) {
    type Marked = Vec<((i32, i32), Mark)>;
    // The layer's node, marked cells and cell size on the old side, then the new.
    type Found = (usize, Marked, (f64, f64), usize, Marked, (f64, f64));
    let mut found: Vec<Found> = Vec::new();
    for nl in &new.layers {
        let new_path = &new.nodes[nl.node].path;
        let Some(ol) = old.layers.iter().find(|ol| {
            let p = &old.nodes[ol.node].path;
            ol.layer == nl.layer && old_marks.to_new.get(p).unwrap_or(p) == new_path
        }) else {
            continue;
        };
        let mut before: Vec<((i32, i32), Mark)> = Vec::new();
        let mut after: Vec<((i32, i32), Mark)> = Vec::new();
        for (pos, v) in &ol.cells {
            match nl.cells.get(pos) {
                None => before.push((*pos, Mark::Removed)),
                Some(w) if w != v => {
                    before.push((*pos, Mark::Changed));
                    after.push((*pos, Mark::Changed));
                }
                Some(_) => {}
            }
        }
        after.extend(
            nl.cells
                .keys()
                .filter(|p| !ol.cells.contains_key(p))
                .map(|p| (*p, Mark::Added)),
        );
        found.push((ol.node, before, ol.cell, nl.node, after, nl.cell));
    }
    for (on, before, oc, nn, after, nc) in found {
        push_cell_marks(old, on, before, oc, limits);
        push_cell_marks(new, nn, after, nc, limits);
    }
}

fn push_cell_marks(
    d: &mut Drawn,
    node: usize,
    cells: Vec<((i32, i32), Mark)>,
    cell: (f64, f64),
    limits: &Limits,
) {
    let mut rects = Vec::new();
    for m in Mark::ALL {
        let list: Vec<(i32, i32)> = cells.iter().filter(|c| c.1 == m).map(|c| c.0).collect();
        let runs = tiles::runs(list, cell);
        if runs.len() > limits.marks * 20 {
            let mut b: Option<Bounds> = None;
            for r in &runs {
                r.corners()
                    .iter()
                    .for_each(|p| Bounds::merge(&mut b, Bounds::point(*p)));
            }
            rects.extend(b.map(|b| (b.rect(), m)));
        } else {
            rects.extend(runs.into_iter().map(|r| (r, m)));
        }
    }
    if rects.is_empty() {
        return;
    }
    let p = d.places[node];
    d.canvas.push(Item {
        node,
        xf: p.xf,
        z: i64::MAX,
        shape: Shape::CellMarks(rects),
        faint: false,
    });
}

/// The outlines of one side's marked nodes: the box around each and its children.
fn outlines(d: &Drawn, marks: &Marks, limits: &Limits) -> (Vec<Outline>, usize) {
    let mut sub = d.canvas.bounds.clone();
    for i in (0..d.nodes.len()).rev() {
        if let (Some(p), Some(b)) = (d.nodes[i].parent, sub[i]) {
            Bounds::merge(&mut sub[p], b);
        }
    }
    let mut out = Vec::new();
    let mut left = 0;
    for (i, n) in d.nodes.iter().enumerate() {
        let Some(&mark) = marks.nodes.get(&n.path) else {
            continue;
        };
        if out.len() >= limits.marks {
            left += 1;
            continue;
        }
        let origin = match d.view {
            View::Plane => d.places[i].xf.apply(0.0, 0.0),
            View::TopDown => {
                let t = d.places[i].xf3;
                (t[9] * spatial::PX_PER_METRE, t[11] * spatial::PX_PER_METRE)
            }
        };
        let b = sub[i].unwrap_or_else(|| Bounds::point(origin));
        out.push(Outline {
            rect: b.rect(),
            mark,
            name: d.names[i].clone(),
            path: n.path.clone(),
        });
    }
    (out, left)
}

/// The box around everything drawn and outlined on every side.
fn extent(drawn: &[Option<Drawn>], lines: &[Option<(Vec<Outline>, usize)>]) -> Option<Bounds> {
    let mut all: Option<Bounds> = None;
    for (d, l) in drawn.iter().zip(lines) {
        if let (Some(d), Some((ls, _))) = (d, l) {
            d.canvas
                .extent()
                .into_iter()
                .for_each(|b| Bounds::merge(&mut all, b));
            ls.iter().for_each(|o| {
                o.rect
                    .corners()
                    .iter()
                    .for_each(|p| Bounds::merge(&mut all, Bounds::point(*p)))
            });
        }
    }
    all
}

/// The hidden `<svg>` of the images every side uses; empty when none.
fn defs_of(book: &Book) -> String {
    if book.is_empty() {
        return String::new();
    }
    format!(
        "<svg class=\"scene-defs\" xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>{}</defs></svg>",
        book.defs()
    )
}

/// Draw each side of a scene (a side may be absent: an added or deleted file) in one
/// view, sharing one set of embedded images; ids in the SVG start with `prefix` (letters
/// and digits), so several sets can share a page.
pub fn draw(sides: &[Option<Side>], limits: &Limits, prefix: &str) -> Pictures {
    draw_labelled(sides, limits, prefix, &["before", "after"])
}

/// [`draw`] with each side's label given (the mergetool's "ours" and "theirs" rather
/// than a diff's "before" and "after"); a side past the labels is "scene".
pub fn draw_labelled(
    sides: &[Option<Side>],
    limits: &Limits,
    prefix: &str,
    labels: &[&str],
) -> Pictures {
    let mut book = Book::new(prefix);
    let mut drawn: Vec<Option<Drawn>> = sides
        .iter()
        .map(|s| s.as_ref().map(|s| draw_side(s, &mut book, limits)))
        .collect();
    if let [Some(Some(s0)), _] = [sides.first(), sides.get(1)] {
        if let [Some(old), Some(new), ..] = &mut drawn[..] {
            mark_cells(old, new, s0.marks, limits);
        }
    }
    let lines: Vec<Option<(Vec<Outline>, usize)>> = sides
        .iter()
        .zip(&drawn)
        .map(|(s, d)| Some(outlines(d.as_ref()?, s.as_ref()?.marks, limits)))
        .collect();
    let Some(all) = extent(&drawn, &lines) else {
        return Pictures {
            sides: sides.iter().map(|_| None).collect(),
            ..Pictures::default()
        };
    };
    let r = all.rect();
    let pad = (r.w.max(r.h) * 0.06).max(16.0);
    let view = Rect::new(r.x - pad, r.y - pad, r.w + 2.0 * pad, r.h + 2.0 * pad);
    let frame = Frame::new(view, limits.size);
    let shown = |d: &Drawn, (ls, left): &(Vec<Outline>, usize), label: &str| {
        let mut notes = d.notes.clone();
        if *left > 0 {
            notes.push(format!(
                "{left} more changed nodes not outlined (the picture's limit)"
            ));
        }
        let label = match d.view {
            View::Plane => label.to_string(),
            View::TopDown => format!("{label}, 3D scene seen from above"),
        };
        Picture {
            svg: svg::emit(&d.canvas, &paths(d), ls, &frame, &label),
            view: d.view,
            notes,
        }
    };
    let out = drawn
        .iter()
        .zip(&lines)
        .enumerate()
        .map(|(k, (d, l))| {
            Some(shown(
                d.as_ref()?,
                l.as_ref()?,
                labels.get(k).copied().unwrap_or("scene"),
            ))
        })
        .collect::<Vec<_>>();
    let mut book_notes = book.notes.clone();
    book_notes.dedup();
    let sides = out
        .into_iter()
        .map(|p| {
            p.map(|mut p| {
                p.notes.extend(book_notes.iter().cloned());
                p.notes.sort();
                p.notes.dedup();
                p
            })
        })
        .collect();
    let defs = defs_of(&book);
    Pictures {
        defs,
        sides,
        notes: Vec::new(),
    }
}

fn paths(d: &Drawn) -> Vec<String> {
    d.nodes.iter().map(|n| n.path.clone()).collect()
}

/// One side alone (the mergetool's picture of one side of a conflict): its `<svg>` with
/// the images it uses inside it.
pub fn draw_one(side: Side, limits: &Limits, prefix: &str) -> Option<Picture> {
    let p = draw(&[Some(side)], limits, prefix);
    let mut pic = p.sides.into_iter().next()??;
    if let Some(at) = pic.svg.find('>').filter(|_| !p.defs.is_empty()) {
        let start = p.defs.find("<defs>")?;
        let end = p.defs.rfind("</defs>")? + "</defs>".len();
        pic.svg.insert_str(at + 1, &p.defs[start..end]);
    }
    Some(pic)
}

#[cfg(test)]
mod tests;
