//! Where each node is: its transform composed down the tree as the engine composes it.
//! A `Node2D` places itself by `position`, `rotation` (Godot 3 also `rotation_degrees`),
//! `scale` and `skew` in its parent's space; a `Control` by its anchors and offsets
//! (Godot 3 `margin_*`) inside its parent's rectangle (the viewport's for a top control),
//! turned and scaled about `pivot_offset`; a `CanvasLayer` starts a new space from its
//! `offset`, `rotation` and `scale`; a node that is no canvas item (`Node`, `Timer`)
//! breaks the chain, so a `Node2D` under it is placed in its layer's space. A `Node3D`
//! (Godot 3 `Spatial`) composes its `transform`; the top-down schematic flattens it.
//!
//! Decides placements only; what a node draws is the drawers'.

use super::geometry::{number, transform2d, transform3d, vec2, Xf};
use super::tree::{FNode, Files};
use crate::value::Value;

/// What kind of thing a node is, for placing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// A `Node2D` (or a Godot 3 2D node).
    Node2D,
    /// A `Control`.
    Control,
    /// A `CanvasLayer`: a space of its own.
    Layer,
    /// A `Node3D` (`Spatial`).
    Node3D,
    /// Anything else (`Node`, `AnimationPlayer`, `Timer`, ...).
    Plain,
}

/// Classes whose name does not say which family they belong to.
const NODE2D: [&str; 12] = [
    "Sprite",
    "AnimatedSprite",
    "TileMap",
    "TileMapLayer",
    "YSort",
    "Node2D",
    "ParallaxLayer",
    "Particles2D",
    "Light2D",
    "BackBufferCopy",
    "Skeleton2D",
    "TouchScreenButton",
];
const CONTROL: [&str; 14] = [
    "Control",
    "Label",
    "Panel",
    "Tree",
    "ItemList",
    "Tabs",
    "TabBar",
    "SpinBox",
    "ColorPicker",
    "GraphEdit",
    "GraphNode",
    "VideoPlayer",
    "VideoStreamPlayer",
    "Range",
];
const SPATIAL: [&str; 16] = [
    "Spatial",
    "MeshInstance",
    "Camera",
    "DirectionalLight",
    "OmniLight",
    "SpotLight",
    "KinematicBody",
    "StaticBody",
    "RigidBody",
    "Area",
    "CollisionShape",
    "GridMap",
    "Position3D",
    "RayCast",
    "Particles",
    "CPUParticles",
];
const CONTROL_SUFFIXES: [&str; 9] = [
    "Container",
    "Button",
    "Rect",
    "Label",
    "Edit",
    "Bar",
    "Slider",
    "Separator",
    "Box",
];

/// The family of class `t` (`node`'s properties settle an unknown class).
pub fn family(t: &str, node: &FNode, files: &Files) -> Family {
    if t == "CanvasLayer" {
        return Family::Layer;
    }
    if t.ends_with("2D") || NODE2D.contains(&t) {
        return Family::Node2D;
    }
    if t.ends_with("3D")
        || SPATIAL.contains(&t)
        || t.starts_with("CSG")
        || t.starts_with("VehicleBody")
    {
        return Family::Node3D;
    }
    if CONTROL.contains(&t) || CONTROL_SUFFIXES.iter().any(|s| t.ends_with(s)) {
        return Family::Control;
    }
    let has = |k: &str| node.get(files, k).is_some();
    if has("anchor_right") || has("offset_right") || has("margin_right") || has("layout_mode") {
        Family::Control
    } else if node
        .get(files, "transform")
        .is_some_and(|(_, v)| transform3d(&v).is_some())
    {
        Family::Node3D
    } else if has("position") || has("z_index") {
        Family::Node2D
    } else {
        Family::Plain
    }
}

/// Where a node is and how it is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    /// Its family.
    pub family: Family,
    /// Its space in the picture (2D).
    pub xf: Xf,
    /// The space its 2D children start from (its layer's, for a node that is no canvas
    /// item).
    pub layer: Xf,
    /// A control's size (its rectangle is `(0, 0)`-`size` in its space).
    pub size: (f64, f64),
    /// Its `z_index` as the engine applies it.
    pub z: i64,
    /// Shown (`visible` not false here nor above).
    pub visible: bool,
    /// Its 3D transform (basis rows, origin), for the top-down schematic.
    pub xf3: [f64; 12],
}

const IDENTITY3: [f64; 12] = [1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.];

/// `outer` after `inner`, 3D (rows of the basis, then the origin).
fn then3(o: &[f64; 12], i: &[f64; 12]) -> [f64; 12] {
    let mut r = [0.0; 12];
    for row in 0..3 {
        for col in 0..3 {
            r[row * 3 + col] = (0..3).map(|k| o[row * 3 + k] * i[k * 3 + col]).sum();
        }
        r[9 + row] = (0..3).map(|k| o[row * 3 + k] * i[9 + k]).sum::<f64>() + o[9 + row];
    }
    r
}

fn vec_or(n: &FNode, files: &Files, key: &str, d: (f64, f64)) -> (f64, f64) {
    n.get(files, key).and_then(|(_, v)| vec2(&v)).unwrap_or(d)
}

/// A Node2D's own transform.
fn node2d(n: &FNode, files: &Files) -> Xf {
    if let Some(xf) = n.get(files, "transform").and_then(|(_, v)| transform2d(&v)) {
        return xf;
    }
    let rot = n
        .num(files, "rotation")
        .or_else(|| n.num(files, "rotation_degrees").map(f64::to_radians))
        .unwrap_or(0.0);
    Xf::godot(
        vec_or(n, files, "position", (0.0, 0.0)),
        rot,
        vec_or(n, files, "scale", (1.0, 1.0)),
        n.num(files, "skew").unwrap_or(0.0),
    )
}

/// A control's rectangle (position, size) in a parent rectangle of `parent` size.
fn control_rect(n: &FNode, files: &Files, parent: (f64, f64)) -> ((f64, f64), (f64, f64)) {
    let num = |k: &str| n.num(files, k);
    let side = |i: usize| {
        let names = ["left", "top", "right", "bottom"];
        let anchor = num(&format!("anchor_{}", names[i])).unwrap_or(0.0);
        let offset = num(&format!("offset_{}", names[i]))
            .or_else(|| num(&format!("margin_{}", names[i])))
            .unwrap_or(0.0);
        let extent = if i.is_multiple_of(2) {
            parent.0
        } else {
            parent.1
        };
        anchor * extent + offset
    };
    let (l, t, r, b) = (side(0), side(1), side(2), side(3));
    let mut pos = (l, t);
    let mut size = (r - l, b - t);
    if let Some(p) = n.get(files, "position").and_then(|(_, v)| vec2(&v)) {
        pos = p;
    }
    if let Some(s) = n.get(files, "size").and_then(|(_, v)| vec2(&v)) {
        size = s;
    }
    let min = vec_or(
        n,
        files,
        "custom_minimum_size",
        vec_or(n, files, "rect_min_size", (0.0, 0.0)),
    );
    (pos, (size.0.max(min.0), size.1.max(min.1)))
}

/// A control's own transform and size.
fn control(n: &FNode, files: &Files, parent: (f64, f64)) -> (Xf, (f64, f64)) {
    let (pos, size) = control_rect(n, files, parent);
    let rot = n
        .num(files, "rotation")
        .or_else(|| n.num(files, "rect_rotation").map(f64::to_radians))
        .unwrap_or(0.0);
    let scale = vec_or(
        n,
        files,
        "scale",
        vec_or(n, files, "rect_scale", (1.0, 1.0)),
    );
    let pivot = vec_or(
        n,
        files,
        "pivot_offset",
        vec_or(n, files, "rect_pivot_offset", (0.0, 0.0)),
    );
    let xf = Xf::translate(pos.0 + pivot.0, pos.1 + pivot.1)
        .then(&Xf::godot((0.0, 0.0), rot, scale, 0.0))
        .then(&Xf::translate(-pivot.0, -pivot.1));
    (xf, size)
}

/// A node's 3D transform relative to its parent.
fn node3d(n: &FNode, files: &Files) -> [f64; 12] {
    if let Some(t) = n.get(files, "transform").and_then(|(_, v)| transform3d(&v)) {
        return t;
    }
    let mut t = IDENTITY3;
    if let Some((_, Value::Ctor { args, .. })) = n.get(files, "position") {
        for (k, a) in args.iter().take(3).enumerate() {
            t[9 + k] = number(a).unwrap_or(0.0);
        }
    }
    t
}

/// The placement of every node (parents come before children in `nodes`), in a
/// viewport of `viewport` size.
pub fn layout(files: &Files, nodes: &[FNode], viewport: (f64, f64)) -> Vec<Place> {
    let mut out: Vec<Place> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let parent = n.parent.and_then(|p| out.get(p)).copied();
        let fam = family(&n.type_name, n, files);
        let (pxf, player) = match parent {
            Some(p) if matches!(p.family, Family::Node2D | Family::Control) => (p.xf, p.layer),
            Some(p) => (p.layer, p.layer),
            None => (Xf::IDENTITY, Xf::IDENTITY),
        };
        let parent_size = match parent {
            Some(p) if p.family == Family::Control => p.size,
            _ => viewport,
        };
        let shown = n.flag(files, "visible").unwrap_or(true);
        let z_here = n.num(files, "z_index").unwrap_or(0.0) as i64;
        let relative = n.flag(files, "z_as_relative").unwrap_or(true);
        let pz = parent.map_or(0, |p| p.z);
        let mut place = Place {
            family: fam,
            xf: pxf,
            layer: player,
            size: (0.0, 0.0),
            z: if relative { pz + z_here } else { z_here },
            visible: shown && parent.is_none_or(|p| p.visible),
            xf3: parent.map_or(IDENTITY3, |p| p.xf3),
        };
        match fam {
            Family::Node2D => place.xf = pxf.then(&node2d(n, files)),
            Family::Control => {
                let (xf, size) = control(n, files, parent_size);
                place.xf = pxf.then(&xf);
                place.size = size;
            }
            Family::Layer => {
                let rot = n.num(files, "rotation").unwrap_or(0.0);
                let xf = Xf::godot(
                    vec_or(n, files, "offset", (0.0, 0.0)),
                    rot,
                    vec_or(n, files, "scale", (1.0, 1.0)),
                    0.0,
                );
                place.xf = xf;
                place.layer = xf;
                place.z = 0;
            }
            Family::Node3D => place.xf3 = then3(&place.xf3, &node3d(n, files)),
            Family::Plain => {}
        }
        out.push(place);
    }
    out
}

/// The project's viewport size (`display/window/size/viewport_width` and `_height`,
/// Godot 3 `width`/`height`), else the engine's default (Godot 4 1152 x 648, Godot 3
/// 1024 x 600).
pub fn viewport(project: Option<&[u8]>, godot3: bool) -> (f64, f64) {
    let text = project
        .and_then(|b| std::str::from_utf8(b).ok())
        .unwrap_or("");
    let key = |k: &str| -> Option<f64> {
        text.lines().find_map(|l| {
            l.trim()
                .strip_prefix(k)?
                .trim_start()
                .strip_prefix('=')?
                .trim()
                .parse()
                .ok()
        })
    };
    let w = key("window/size/viewport_width").or_else(|| key("window/size/width"));
    let h = key("window/size/viewport_height").or_else(|| key("window/size/height"));
    let d = if godot3 {
        (1024.0, 600.0)
    } else {
        (1152.0, 648.0)
    };
    (w.unwrap_or(d.0), h.unwrap_or(d.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_d_transforms_compose() {
        let mut a = IDENTITY3;
        a[9] = 5.0;
        let mut b = IDENTITY3;
        b[11] = 2.0;
        let c = then3(&a, &b);
        assert_eq!((c[9], c[10], c[11]), (5.0, 0.0, 2.0));
    }

    #[test]
    fn the_viewport_comes_from_the_project() {
        let p = b"[display]\n\nwindow/size/viewport_width=640\nwindow/size/viewport_height=360\n";
        assert_eq!(viewport(Some(p), false), (640.0, 360.0));
        assert_eq!(viewport(None, true), (1024.0, 600.0));
    }
}
