//! The plane a picture is drawn on: 2D affine transforms ([`Xf`], SVG's `matrix(a b c d e
//! f)`), rectangles and the bounds of what is drawn, and Godot's math values read from a
//! scene's text (`Vector2`, `Rect2`, `Color`, `Transform2D`, `Transform3D`, packed vector
//! arrays). What a node's transform is, is `place.rs`'s; what is drawn, the drawers'.

use crate::value::{PackedElems, Value};

/// A 2D affine transform: `x' = a x + c y + e`, `y' = b x + d y + f` (SVG's order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Xf {
    /// The columns of the basis and the origin.
    pub m: [f64; 6],
}

impl Default for Xf {
    fn default() -> Self {
        Xf::IDENTITY
    }
}

impl Xf {
    /// No change.
    pub const IDENTITY: Xf = Xf {
        m: [1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    };

    /// A move by `(x, y)`.
    pub fn translate(x: f64, y: f64) -> Xf {
        Xf {
            m: [1.0, 0.0, 0.0, 1.0, x, y],
        }
    }

    /// Godot's `Transform2D(rotation, scale, skew, position)`: the basis x axis is
    /// `(cos r, sin r) * sx`, the y axis `(-sin(r + skew), cos(r + skew)) * sy`.
    pub fn godot(pos: (f64, f64), rot: f64, scale: (f64, f64), skew: f64) -> Xf {
        let (s, c) = rot.sin_cos();
        let (s2, c2) = (rot + skew).sin_cos();
        Xf {
            m: [
                c * scale.0,
                s * scale.0,
                -s2 * scale.1,
                c2 * scale.1,
                pos.0,
                pos.1,
            ],
        }
    }

    /// `self` after `inner`: a point of `inner`'s space in `self`'s parent space.
    pub fn then(&self, inner: &Xf) -> Xf {
        let [a, b, c, d, e, f] = self.m;
        let [a2, b2, c2, d2, e2, f2] = inner.m;
        Xf {
            m: [
                a * a2 + c * b2,
                b * a2 + d * b2,
                a * c2 + c * d2,
                b * c2 + d * d2,
                a * e2 + c * f2 + e,
                b * e2 + d * f2 + f,
            ],
        }
    }

    /// Where point `(x, y)` lands.
    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.m;
        (a * x + c * y + e, b * x + d * y + f)
    }

    /// The larger of the two axes' lengths (how much a length grows).
    pub fn stretch(&self) -> f64 {
        let [a, b, c, d, ..] = self.m;
        a.hypot(b).max(c.hypot(d))
    }

    /// Whether every number is finite (a scene may hold `inf` or `nan`).
    pub fn is_finite(&self) -> bool {
        self.m.iter().all(|v| v.is_finite())
    }

    /// SVG's `matrix(...)` text, numbers rounded to what a picture shows.
    pub fn svg(&self) -> String {
        let v: Vec<String> = self.m.iter().map(|x| num(*x)).collect();
        format!("matrix({})", v.join(" "))
    }
}

/// A number as SVG text: at most 3 decimals, no `-0`.
pub fn num(x: f64) -> String {
    let r = (x * 1000.0).round() / 1000.0;
    if r == 0.0 || !r.is_finite() {
        "0".into()
    } else {
        let s = format!("{r:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// An axis-aligned rectangle: position and size.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// A rectangle from its parts.
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    /// Whether it covers any area.
    pub fn has_area(&self) -> bool {
        self.w.abs() > 1e-9 && self.h.abs() > 1e-9
    }

    /// Its four corners.
    pub fn corners(&self) -> [(f64, f64); 4] {
        [
            (self.x, self.y),
            (self.x + self.w, self.y),
            (self.x + self.w, self.y + self.h),
            (self.x, self.y + self.h),
        ]
    }
}

/// The box around everything drawn so far, in picture space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Smallest x and y.
    pub lo: (f64, f64),
    /// Largest x and y.
    pub hi: (f64, f64),
}

impl Bounds {
    /// The box around one point.
    pub fn point(p: (f64, f64)) -> Bounds {
        Bounds { lo: p, hi: p }
    }

    /// Grow to hold `p` (a point that is not finite is left out).
    pub fn add(&mut self, p: (f64, f64)) {
        if !(p.0.is_finite() && p.1.is_finite()) {
            return;
        }
        self.lo = (self.lo.0.min(p.0), self.lo.1.min(p.1));
        self.hi = (self.hi.0.max(p.0), self.hi.1.max(p.1));
    }

    /// Both boxes together.
    pub fn union(&self, o: &Bounds) -> Bounds {
        let mut b = *self;
        b.add(o.lo);
        b.add(o.hi);
        b
    }

    /// Grow `into` by `b` (`None`: nothing yet).
    pub fn merge(into: &mut Option<Bounds>, b: Bounds) {
        *into = Some(match into {
            Some(a) => a.union(&b),
            None => b,
        });
    }

    /// As a rectangle.
    pub fn rect(&self) -> Rect {
        Rect::new(
            self.lo.0,
            self.lo.1,
            self.hi.0 - self.lo.0,
            self.hi.1 - self.lo.1,
        )
    }
}

/// A number (`int` or `float`).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// The numbers of constructor `v` when its name is one of `names`.
fn ctor_nums(v: &Value, names: &[&str]) -> Option<Vec<f64>> {
    match v {
        Value::Ctor { name, args } if names.contains(&name.as_str()) => {
            args.iter().map(number).collect()
        }
        _ => None,
    }
}

/// `Vector2(x, y)` or `Vector2i(x, y)`.
pub fn vec2(v: &Value) -> Option<(f64, f64)> {
    match ctor_nums(v, &["Vector2", "Vector2i", "Size2"])?[..] {
        [x, y] => Some((x, y)),
        _ => None,
    }
}

/// `Vector3(x, y, z)` or `Vector3i`.
pub fn vec3(v: &Value) -> Option<[f64; 3]> {
    match ctor_nums(v, &["Vector3", "Vector3i"])?[..] {
        [x, y, z] => Some([x, y, z]),
        _ => None,
    }
}

/// `Rect2(x, y, w, h)` or `Rect2i`.
pub fn rect2(v: &Value) -> Option<Rect> {
    match ctor_nums(v, &["Rect2", "Rect2i"])?[..] {
        [x, y, w, h] => Some(Rect::new(x, y, w, h)),
        _ => None,
    }
}

/// `Color(r, g, b[, a])` or `#rrggbb`, components 0..1.
pub fn color(v: &Value) -> Option<[f64; 4]> {
    if let Value::Color(hex) = v {
        return crate::value::html_color(hex);
    }
    match ctor_nums(v, &["Color"])?[..] {
        [r, g, b] => Some([r, g, b, 1.0]),
        [r, g, b, a] => Some([r, g, b, a]),
        _ => None,
    }
}

/// A colour as SVG paint and opacity.
pub fn paint(c: [f64; 4]) -> (String, f64) {
    let byte = |x: f64| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    (
        format!("#{:02x}{:02x}{:02x}", byte(c[0]), byte(c[1]), byte(c[2])),
        c[3].clamp(0.0, 1.0),
    )
}

/// `Transform2D(xx, xy, yx, yy, ox, oy)` (Godot 3 `Transform2D` too).
pub fn transform2d(v: &Value) -> Option<Xf> {
    match ctor_nums(v, &["Transform2D", "Matrix32"])?[..] {
        [a, b, c, d, e, f] => Some(Xf {
            m: [a, b, c, d, e, f],
        }),
        _ => None,
    }
}

/// A 3D transform: the basis rows as written and the origin (`Transform3D` of Godot 4,
/// `Transform` of Godot 3: 12 numbers).
pub fn transform3d(v: &Value) -> Option<[f64; 12]> {
    let n = ctor_nums(v, &["Transform3D", "Transform"])?;
    n.try_into().ok()
}

/// The points of a `PackedVector2Array` (`PoolVector2Array`, `Vector2Array`) or an
/// array of `Vector2`.
pub fn points(v: &Value) -> Option<Vec<(f64, f64)>> {
    match v {
        Value::Packed(p) => match p.elements().ok()? {
            PackedElems::Floats(f) if f.len() % 2 == 0 => {
                Some(f.chunks(2).map(|c| (c[0], c[1])).collect())
            }
            _ => None,
        },
        Value::Array(items) => items.iter().map(vec2).collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_compose_as_godot_places_children() {
        let parent = Xf::godot((100.0, 0.0), std::f64::consts::FRAC_PI_2, (2.0, 2.0), 0.0);
        let child = Xf::translate(10.0, 0.0);
        let (x, y) = parent.then(&child).apply(0.0, 0.0);
        assert!(
            (x - 100.0).abs() < 1e-9 && (y - 20.0).abs() < 1e-9,
            "{x} {y}"
        );
        assert_eq!(num(1.23456), "1.235");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(20.0), "20");
    }

    #[test]
    fn values_are_read() {
        let p = |s: &str| crate::value::parse(s).expect("value");
        assert_eq!(vec2(&p("Vector2(3, -4)")), Some((3.0, -4.0)));
        assert_eq!(
            rect2(&p("Rect2(0, 0, 16, 8)")),
            Some(Rect::new(0.0, 0.0, 16.0, 8.0))
        );
        assert_eq!(color(&p("Color(1, 0, 0, 1)")), Some([1.0, 0.0, 0.0, 1.0]));
        assert_eq!(
            points(&p("PackedVector2Array(0, 0, 10, 0, 10, 10)")).map(|v| v.len()),
            Some(3)
        );
        assert_eq!(paint([1.0, 0.5, 0.0, 2.0]), ("#ff8000".to_string(), 1.0));
    }
}
