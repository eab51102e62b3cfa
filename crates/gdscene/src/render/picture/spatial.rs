//! The top-down schematic of a 3D scene: every `Node3D` (`Spatial`) at its composed
//! position seen from above (x to the right, z down, [`PX_PER_METRE`] units a metre), a
//! cross with a short tick along its forward axis (-z), and the footprint of a box or
//! plane mesh (`MeshInstance3D` with a `BoxMesh`/`PlaneMesh`, Godot 3 `CubeMesh`;
//! `CSGBox3D`). Decides the projection; placing is `place.rs`'s.

use super::canvas::{Ctx, Shape, Style};
use super::geometry::{number, vec2, vec3, Rect, Xf};
use super::place::Family;
use super::tree::Target;

/// Scene units a metre is drawn as.
pub const PX_PER_METRE: f64 = 32.0;

/// The top-down view of a 3D transform (basis rows, origin): local (x, z) to picture.
fn top_down(t: &[f64; 12]) -> Xf {
    let k = PX_PER_METRE;
    Xf {
        m: [t[0] * k, t[6] * k, t[2] * k, t[8] * k, t[9] * k, t[11] * k],
    }
}

/// A footprint's size (x, z) in metres, from a mesh resource or a CSG box.
fn footprint(c: &mut Ctx, i: usize) -> Option<(f64, f64)> {
    let t = c.nodes[i].type_name.clone();
    if t == "CSGBox3D" || t == "CSGBox" {
        let size = c.get(i, "size").and_then(|v| vec3(&v.1));
        let w = c.num(i, "width");
        return Some(match (size, w) {
            (Some(s), _) => (s[0], s[2]),
            (None, Some(w)) => (w, c.num(i, "depth").unwrap_or(2.0)),
            _ => (2.0, 2.0),
        });
    }
    if !t.starts_with("MeshInstance") {
        return None;
    }
    let (f, v) = c.get(i, "mesh")?;
    let Some(Target::Res(r)) = c.files.target(f, &v, c.limits) else {
        return None;
    };
    let get = |k: &str| c.files.value(r.file, r.section, k);
    match c.files.res_type(r).as_str() {
        "BoxMesh" | "CubeMesh" => {
            let d = if c.files.scene(r.file).is_godot3() {
                2.0
            } else {
                1.0
            };
            let s = get("size").and_then(|v| vec3(&v)).unwrap_or([d; 3]);
            Some((s[0], s[2]))
        }
        "PlaneMesh" | "QuadMesh" => {
            let s = get("size").and_then(|v| vec2(&v)).unwrap_or((2.0, 2.0));
            Some(s)
        }
        "CylinderMesh" | "SphereMesh" | "CapsuleMesh" => {
            let r = get("radius")
                .or_else(|| get("top_radius"))
                .and_then(|v| number(&v));
            let r = r.unwrap_or(0.5);
            Some((r * 2.0, r * 2.0))
        }
        _ => None,
    }
}

/// Draw every 3D node of the scene, seen from above.
pub fn draw(c: &mut Ctx) {
    for i in 0..c.nodes.len() {
        let p = c.places[i];
        if p.family != Family::Node3D {
            continue;
        }
        let xf = top_down(&p.xf3);
        let faint = !p.visible;
        if let Some((w, d)) = footprint(c, i) {
            let rect = Rect::new(-w / 2.0, -d / 2.0, w, d);
            let style = Style {
                fill: Some(("#8c959f".into(), 0.3)),
                stroke: Some(("#d0d7de".into(), 0.8, 1.0)),
                thin: true,
            };
            push(c, i, xf, Shape::Rect(rect, style), faint);
        }
        push(c, i, xf, Shape::Origin, faint);
        let tick = Style::line("#f0f3f6", 0.8, 1.5);
        push(
            c,
            i,
            xf,
            Shape::Poly(vec![(0.0, 0.0), (0.0, -0.35)], false, tick),
            faint,
        );
    }
}

fn push(c: &mut Ctx, i: usize, xf: Xf, shape: Shape, faint: bool) {
    c.canvas.push(super::canvas::Item {
        node: i,
        xf,
        z: 0,
        shape,
        faint,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seen_from_above_x_is_right_and_z_is_down() {
        let mut t = [1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.];
        t[9] = 2.0;
        t[10] = 100.0;
        t[11] = 3.0;
        let (x, y) = top_down(&t).apply(0.0, 0.0);
        assert_eq!((x, y), (2.0 * PX_PER_METRE, 3.0 * PX_PER_METRE));
    }
}
