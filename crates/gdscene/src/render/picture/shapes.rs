//! Nodes drawn from geometry: `CollisionShape2D` (its `Shape2D`: rectangle, circle,
//! capsule, segment, ray, world boundary, convex and concave polygons; Godot 3's
//! `extents` and capsule `height` as the engine reads them) and `CollisionPolygon2D`,
//! in the editor's debug colour; `Polygon2D` in its `color` at its `offset`; `Line2D`
//! with its `width` and `default_color`.

use super::canvas::{Ctx, Shape, Style};
use super::geometry::{color, number, paint, points, vec2, Rect, Xf};
use super::tree::{Res, Target};

/// The editor's colour for collision shapes (`debug/shapes/collision/shape_color`).
const COLLISION: &str = "#0099b3";
/// Segments of a concave shape drawn, at most.
const MAX_SEGMENTS: usize = 4000;

/// Draw node `i` if it is one of this file's kinds; whether it was.
pub fn draw(c: &mut Ctx, i: usize) -> bool {
    match c.nodes[i].type_name.as_str() {
        "CollisionShape2D" => collision_shape(c, i),
        "CollisionPolygon2D" => {
            if let Some(p) = c.get(i, "polygon").and_then(|v| points(&v.1)) {
                c.add(i, Xf::IDENTITY, Shape::Poly(p, true, collision_style(c, i)));
            }
        }
        "Polygon2D" => polygon(c, i),
        "Line2D" => line(c, i),
        _ => return false,
    }
    true
}

fn collision_style(c: &Ctx, i: usize) -> Style {
    let disabled = c.flag(i, "disabled").unwrap_or(false);
    let col = if disabled { "#8c959f" } else { COLLISION };
    Style {
        fill: Some((col.into(), 0.42)),
        stroke: Some((col.into(), 1.0, 1.5)),
        thin: true,
    }
}

/// A capsule of `radius` and total `height`, standing, as a polygon.
fn capsule(radius: f64, height: f64) -> Vec<(f64, f64)> {
    let half = (height / 2.0 - radius).max(0.0);
    let mut out = Vec::new();
    for k in 0..=12 {
        let a = std::f64::consts::PI * k as f64 / 12.0;
        out.push((radius * a.cos(), -half - radius * a.sin()));
    }
    for k in 0..=12 {
        let a = std::f64::consts::PI * k as f64 / 12.0;
        out.push((-radius * a.cos(), half + radius * a.sin()));
    }
    out
}

/// The shape of resource `r` as drawn, `None` for a kind this picture does not know.
fn shape_of(c: &Ctx, r: Res, style: Style) -> Option<Vec<Shape>> {
    let f = &*c.files;
    let get = |k: &str| f.value(r.file, r.section, k);
    let n = |k: &str, d: f64| get(k).and_then(|v| number(&v)).unwrap_or(d);
    let godot3 = f.scene(r.file).is_godot3();
    let one = |s: Shape| Some(vec![s]);
    match f.res_type(r).as_str() {
        "RectangleShape2D" => {
            let (w, h) = match get("size").and_then(|v| vec2(&v)) {
                Some(s) => s,
                None => get("extents")
                    .and_then(|v| vec2(&v))
                    .map_or((20.0, 20.0), |e| (e.0 * 2.0, e.1 * 2.0)),
            };
            one(Shape::Rect(Rect::new(-w / 2.0, -h / 2.0, w, h), style))
        }
        "CircleShape2D" => one(Shape::Circle((0.0, 0.0), n("radius", 10.0), style)),
        "CapsuleShape2D" => {
            let r = n("radius", 10.0);
            let h = if godot3 {
                n("height", 20.0) + 2.0 * r
            } else {
                n("height", 30.0)
            };
            one(Shape::Poly(capsule(r, h), true, style))
        }
        "SegmentShape2D" => {
            let a = get("a").and_then(|v| vec2(&v)).unwrap_or((0.0, 0.0));
            let b = get("b").and_then(|v| vec2(&v)).unwrap_or((0.0, 10.0));
            one(Shape::Poly(vec![a, b], false, style))
        }
        "SeparationRayShape2D" | "RayShape2D" => one(Shape::Poly(
            vec![(0.0, 0.0), (0.0, n("length", 20.0))],
            false,
            style,
        )),
        "WorldBoundaryShape2D" | "LineShape2D" => {
            let (nx, ny) = get("normal").and_then(|v| vec2(&v)).unwrap_or((0.0, -1.0));
            let d = n(if godot3 { "d" } else { "distance" }, 0.0);
            let (cx, cy) = (nx * d, ny * d);
            let (tx, ty) = (-ny * 1000.0, nx * 1000.0);
            one(Shape::Poly(
                vec![(cx - tx, cy - ty), (cx + tx, cy + ty)],
                false,
                style,
            ))
        }
        "ConvexPolygonShape2D" => one(Shape::Poly(
            get("points").and_then(|v| points(&v))?,
            true,
            style,
        )),
        "ConcavePolygonShape2D" => {
            let p = get("segments").and_then(|v| points(&v))?;
            Some(
                p.chunks(2)
                    .take(MAX_SEGMENTS)
                    .filter(|s| s.len() == 2)
                    .map(|s| Shape::Poly(s.to_vec(), false, style.clone()))
                    .collect(),
            )
        }
        _ => None,
    }
}

fn collision_shape(c: &mut Ctx, i: usize) {
    let style = collision_style(c, i);
    let target = c
        .get(i, "shape")
        .and_then(|(f, v)| c.files.target(f, &v, c.limits));
    let shapes = match target {
        Some(Target::Res(r)) => shape_of(c, r, style),
        _ => None,
    };
    match shapes {
        Some(list) => list.into_iter().for_each(|s| c.add(i, Xf::IDENTITY, s)),
        None => c.add(i, Xf::IDENTITY, Shape::Origin),
    }
}

fn polygon(c: &mut Ctx, i: usize) {
    let Some(p) = c.get(i, "polygon").and_then(|v| points(&v.1)) else {
        return c.add(i, Xf::IDENTITY, Shape::Origin);
    };
    let (fill, o) = paint(
        c.get(i, "color")
            .and_then(|v| color(&v.1))
            .unwrap_or([1.0; 4]),
    );
    let (ox, oy) = c.vec2(i, "offset").unwrap_or((0.0, 0.0));
    c.add(
        i,
        Xf::translate(ox, oy),
        Shape::Poly(p, true, Style::fill(&fill, o)),
    );
}

fn line(c: &mut Ctx, i: usize) {
    let Some(p) = c.get(i, "points").and_then(|v| points(&v.1)) else {
        return c.add(i, Xf::IDENTITY, Shape::Origin);
    };
    let (col, o) = paint(
        c.get(i, "default_color")
            .and_then(|v| color(&v.1))
            .unwrap_or([1.0; 4]),
    );
    let width = c.num(i, "width").unwrap_or(10.0);
    let closed = c.flag(i, "closed").unwrap_or(false);
    let style = Style {
        fill: None,
        stroke: Some((col, o, width)),
        thin: false,
    };
    c.add(i, Xf::IDENTITY, Shape::Poly(p, closed, style));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capsule_spans_its_height() {
        let p = capsule(10.0, 40.0);
        let top = p.iter().map(|q| q.1).fold(f64::MAX, f64::min);
        let bottom = p.iter().map(|q| q.1).fold(f64::MIN, f64::max);
        assert!(
            (top + 20.0).abs() < 1e-9 && (bottom - 20.0).abs() < 1e-9,
            "{top} {bottom}"
        );
    }
}
