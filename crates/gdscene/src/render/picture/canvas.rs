//! What a picture holds before it is written: [`Item`]s (a texture region, a labelled
//! box, a shape, tile cells, a node's marker) each placed by its node's transform, in
//! draw order, and the bounds each node's items cover. The drawers (`sprite.rs`,
//! `shapes.rs`, `tiles.rs`, `spatial.rs`) add items; `svg.rs` writes them.

use super::geometry::{Bounds, Rect, Xf};
use super::place::Place;
use super::texture::Book;
use super::tree::{FNode, Files};
use super::{Limits, Mark};

/// How a shape is painted: fill colour and opacity, stroke colour, opacity and width (in
/// screen pixels when `thin`, else in scene units).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Style {
    /// Fill: colour and opacity.
    pub fill: Option<(String, f64)>,
    /// Stroke: colour, opacity and width.
    pub stroke: Option<(String, f64, f64)>,
    /// The stroke keeps its width in pixels whatever the zoom.
    pub thin: bool,
}

impl Style {
    /// A fill only.
    pub fn fill(colour: &str, opacity: f64) -> Style {
        Style {
            fill: Some((colour.to_string(), opacity)),
            ..Style::default()
        }
    }

    /// A stroke only, `width` pixels whatever the zoom.
    pub fn line(colour: &str, opacity: f64, width: f64) -> Style {
        Style {
            stroke: Some((colour.to_string(), opacity, width)),
            thin: true,
            ..Style::default()
        }
    }
}

/// One thing drawn, in its node's space.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A texture region (a `<symbol>` of the book) stretched over `dest`, mirrored as
    /// asked.
    Texture {
        /// The region's symbol id.
        symbol: String,
        /// Where it lands.
        dest: Rect,
        /// Mirrored horizontally, vertically.
        flip: (bool, bool),
    },
    /// A box with the node's name, where a texture is unknown or missing.
    Placeholder {
        /// The box.
        rect: Rect,
        /// What to write in it.
        label: String,
    },
    /// A rectangle.
    Rect(Rect, Style),
    /// A polygon (`closed`) or a polyline.
    Poly(Vec<(f64, f64)>, bool, Style),
    /// A circle: centre and radius.
    Circle((f64, f64), f64, Style),
    /// Tile cells drawn with their textures: symbol, destination, flips (bit 0 h, 1 v).
    Tiles(Vec<(String, Rect, u8)>),
    /// Cells drawn as plain squares (no texture known, or past the limit).
    Squares(Vec<Rect>, Style),
    /// A node with nothing to draw: a small cross at its origin.
    Origin,
    /// Changed tile cells, outlined in their mark's colour.
    CellMarks(Vec<(Rect, Mark)>),
}

impl Shape {
    /// The points whose hull the shape covers, in its own space.
    fn extent(&self) -> Vec<(f64, f64)> {
        let rects = |rs: &mut dyn Iterator<Item = &Rect>| -> Vec<(f64, f64)> {
            rs.flat_map(|r| r.corners()).collect()
        };
        match self {
            Shape::Texture { dest, .. } => dest.corners().to_vec(),
            Shape::Placeholder { rect, .. } | Shape::Rect(rect, _) => rect.corners().to_vec(),
            Shape::Poly(p, _, _) => p.clone(),
            Shape::Circle((x, y), r, _) => vec![(x - r, y - r), (x + r, y + r)],
            Shape::Tiles(t) => rects(&mut t.iter().map(|x| &x.1)),
            Shape::Squares(s, _) => rects(&mut s.iter()),
            Shape::CellMarks(m) => rects(&mut m.iter().map(|x| &x.0)),
            Shape::Origin => vec![(0.0, 0.0)],
        }
    }
}

/// A shape placed: its node (index in the drawn list), transform and draw order.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The node it belongs to.
    pub node: usize,
    /// Node space to picture space.
    pub xf: Xf,
    /// Godot's `z_index` as it applies (higher is drawn later).
    pub z: i64,
    /// What is drawn.
    pub shape: Shape,
    /// Drawn faintly (a node hidden with `visible = false`).
    pub faint: bool,
}

/// Everything drawn for one side, and the bounds of each node's items.
#[derive(Debug, Default)]
pub struct Canvas {
    /// The items, in the order they were added.
    pub items: Vec<Item>,
    /// Per node, the box around its own items in picture space.
    pub bounds: Vec<Option<Bounds>>,
    /// Cells drawn with their textures (counted against the limit).
    pub cells: usize,
    /// Cells drawn as squares because the limit was reached.
    pub cells_cut: usize,
}

impl Canvas {
    /// A canvas for `nodes` nodes.
    pub fn new(nodes: usize) -> Canvas {
        Canvas {
            items: Vec::new(),
            bounds: vec![None; nodes],
            cells: 0,
            cells_cut: 0,
        }
    }

    /// Add an item; its node's bounds grow to hold it (a transform that is not finite
    /// drops it).
    pub fn push(&mut self, item: Item) {
        if !item.xf.is_finite() {
            return;
        }
        let mut b: Option<Bounds> = None;
        for (x, y) in item.shape.extent() {
            let p = item.xf.apply(x, y);
            if p.0.is_finite() && p.1.is_finite() {
                Bounds::merge(&mut b, Bounds::point(p));
            }
        }
        if let (Some(b), Some(slot)) = (b, self.bounds.get_mut(item.node)) {
            Bounds::merge(slot, b);
        }
        self.items.push(item);
    }

    /// The box around everything drawn.
    pub fn extent(&self) -> Option<Bounds> {
        let mut all = None;
        for b in self.bounds.iter().flatten() {
            Bounds::merge(&mut all, *b);
        }
        all
    }
}

/// What a drawer works with: the files, the book of textures, the limits, the canvas,
/// and every node with its placement.
pub struct Ctx<'c, 'a> {
    /// The scene and the files it leads to.
    pub files: &'c mut Files<'a>,
    /// The textures embedded so far.
    pub book: &'c mut Book,
    /// The bounds.
    pub limits: &'c Limits,
    /// What is drawn so far.
    pub canvas: &'c mut Canvas,
    /// The nodes.
    pub nodes: &'c [FNode],
    /// Their placements.
    pub places: &'c [Place],
}

impl Ctx<'_, '_> {
    /// Draw `shape` for node `i` in its space, moved by `local` first.
    pub fn add(&mut self, i: usize, local: Xf, shape: Shape) {
        let p = &self.places[i];
        self.canvas.push(Item {
            node: i,
            xf: p.xf.then(&local),
            z: p.z,
            shape,
            faint: !p.visible,
        });
    }

    /// The value of node `i`'s property `key` and the file it was written in.
    pub fn get(&self, i: usize, key: &str) -> Option<(usize, crate::value::Value)> {
        self.nodes[i].get(self.files, key)
    }

    /// Node `i`'s property `key` as a number.
    pub fn num(&self, i: usize, key: &str) -> Option<f64> {
        self.nodes[i].num(self.files, key)
    }

    /// Node `i`'s property `key` as a flag.
    pub fn flag(&self, i: usize, key: &str) -> Option<bool> {
        self.nodes[i].flag(self.files, key)
    }

    /// Node `i`'s property `key` as a `Vector2`.
    pub fn vec2(&self, i: usize, key: &str) -> Option<(f64, f64)> {
        super::geometry::vec2(&self.get(i, key)?.1)
    }

    /// Node `i`'s name.
    pub fn name(&self, i: usize) -> String {
        self.nodes[i].name(self.files).to_string()
    }
}
