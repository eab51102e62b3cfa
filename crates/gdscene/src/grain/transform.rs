//! Transforms by parts. A `Transform3D` (Godot 3 `Transform`) or `Transform2D` is an
//! origin and a basis, and a node's basis is its rotation and its scale: Godot composes
//! it as `Basis::from_euler(rotation) * Basis::from_scale(scale)` (`set_euler_scale`),
//! each column of the rotation times one scale component, and the inspector shows
//! position, rotation and scale as separate fields. So two sides that changed different
//! parts of one transform (one moved a node, the other rotated it; one rotated it, the
//! other scaled it) merge to the transform holding both.
//!
//! Decides the merged value: origin and basis three-way as wholes; when both sides
//! changed the basis, rotation and scale three-way, recomposed only when each changed
//! side's basis has no shear (orthogonal columns, positive determinant) and its own
//! rotation and scale recompose, in float32 as the engine computes, to its own text
//! exactly in one float spelling (4.5's shortest or 4.0-4.4's `%g`), which is then the
//! result's; else no merge (the caller's conflict). Also the words a diff shows for a
//! changed transform: "moved by (0, 2, 0)", "rotated by 45°", "scaled by (2, 2, 2)".

use super::text::{shape, Shape};
use crate::value::{float_eq, parse, Value};
use crate::write::{float_component, Dialect, FloatStyle, Style};

/// A transform as written: its constructor name, its items' texts and their values.
struct Xf<'a> {
    name: &'a str,
    items: Vec<&'a str>,
    /// The items as float32 (what the engine holds), widened to compute exactly.
    nums: Vec<f64>,
    /// 3 (`Transform3D`, `Transform`) or 2 (`Transform2D`).
    dim: usize,
    /// Godot 3's `Name( a, b )` spacing.
    spaced: bool,
}

/// Read a transform value; `None` for anything else or a number that is not finite.
fn read(text: &str) -> Option<Xf<'_>> {
    let Shape::Call(name, items) = shape(text)? else {
        return None;
    };
    let dim = match (name, items.len()) {
        ("Transform3D" | "Transform", 12) => 3,
        ("Transform2D", 6) => 2,
        _ => return None,
    };
    let nums = items
        .iter()
        .map(|t| match parse(t).ok()? {
            Value::Float(f) if f.is_finite() => Some(f as f32 as f64),
            Value::Int(i) => Some(i as f32 as f64),
            _ => None,
        })
        .collect::<Option<Vec<f64>>>()?;
    let spaced = text.trim().strip_prefix(name)?.starts_with("( ");
    Some(Xf {
        name,
        items,
        nums,
        dim,
        spaced,
    })
}

impl Xf<'_> {
    /// Index of component `k` of basis column `j` in the items: a `Transform3D` writes
    /// the basis row by row, a `Transform2D` column by column.
    fn at(&self, j: usize, k: usize) -> usize {
        if self.dim == 3 {
            k * 3 + j
        } else {
            j * 2 + k
        }
    }

    /// The items of the basis and of the origin.
    fn split(&self) -> (usize, usize) {
        let b = self.dim * self.dim;
        (b, b + self.dim)
    }

    fn basis(&self) -> &[f64] {
        &self.nums[..self.split().0]
    }

    fn origin(&self) -> &[f64] {
        let (b, e) = self.split();
        &self.nums[b..e]
    }

    /// Column lengths, when the basis is a rotation times a scale: columns orthogonal,
    /// none of length 0, determinant positive (a mirror's sign is left alone).
    fn scale(&self) -> Option<Vec<f64>> {
        let d = self.dim;
        let col = |j: usize| {
            (0..d)
                .map(|k| self.nums[self.at(j, k)])
                .collect::<Vec<f64>>()
        };
        let cols: Vec<Vec<f64>> = (0..d).map(col).collect();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let s: Vec<f64> = cols.iter().map(|c| dot(c, c).sqrt()).collect();
        if s.iter().any(|&x| !x.is_normal()) {
            return None;
        }
        for i in 0..d {
            for j in i + 1..d {
                if dot(&cols[i], &cols[j]).abs() > 1e-4 * s[i] * s[j] {
                    return None;
                }
            }
        }
        let det = if d == 3 {
            let (a, b, c) = (&cols[0], &cols[1], &cols[2]);
            let cross = [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            dot(&cross, c)
        } else {
            cols[0][0] * cols[1][1] - cols[0][1] * cols[1][0]
        };
        (det > 0.0).then_some(s)
    }

    /// The rotation: each basis column divided by its scale component (item order).
    fn rotation(&self, s: &[f64]) -> Vec<f64> {
        let mut r = self.basis().to_vec();
        for j in 0..self.dim {
            for k in 0..self.dim {
                r[self.at(j, k)] /= s[j];
            }
        }
        r
    }

    /// A basis from a rotation and a scale, as `set_euler_scale` composes it (each
    /// rotation column times its scale component), rounded to float32 by the caller.
    fn compose(&self, r: &[f64], s: &[f64]) -> Vec<f64> {
        let mut b = r.to_vec();
        for j in 0..self.dim {
            for k in 0..self.dim {
                b[self.at(j, k)] *= s[j];
            }
        }
        b
    }

    /// The value written with other items, in this one's spelling.
    fn with(&self, items: &[String]) -> String {
        if self.spaced {
            format!("{}( {} )", self.name, items.join(", "))
        } else {
            format!("{}({})", self.name, items.join(", "))
        }
    }
}

/// Whether two lists of numbers are one value (engine float equality).
fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| float_eq(*x, *y))
}

/// Whether two lists of numbers differ by no more than `tol` (times the larger
/// magnitude when `relative`): the same rotation or scale once recomputed.
fn near(a: &[f64], b: &[f64], tol: f64, relative: bool) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let m = if relative {
            x.abs().max(y.abs()).max(1.0)
        } else {
            1.0
        };
        (x - y).abs() <= tol * m
    })
}

/// The three-way rule on one part: the side (1 ours, 2 theirs) whose value the result
/// takes, `None` when both changed it differently.
fn pick(b: &[f64], o: &[f64], t: &[f64], eq: &dyn Fn(&[f64], &[f64]) -> bool) -> Option<usize> {
    if eq(o, t) || eq(b, t) {
        Some(1)
    } else if eq(b, o) {
        Some(2)
    } else {
        None
    }
}

/// A transform merged by parts: its text and, for `--explain`, which side each part
/// came from (`origin from theirs`, `rotation from ours`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformMerge {
    /// The merged value, in ours' spelling.
    pub text: String,
    /// Which side each part came from.
    pub parts: Vec<String>,
}

const SIDES: [&str; 3] = ["base", "ours", "theirs"];

/// Merge a transform both sides changed by its parts; `None` when the values are no
/// transforms of one kind or a part was changed differently on both sides (or the
/// basis cannot be taken apart and put back exactly).
pub fn merge_transform(base: &str, ours: &str, theirs: &str) -> Option<TransformMerge> {
    let x = [read(base)?, read(ours)?, read(theirs)?];
    if x.iter().any(|v| v.name != x[1].name) {
        return None;
    }
    let origin = pick(x[0].origin(), x[1].origin(), x[2].origin(), &same)?;
    let mut parts = vec![format!("origin from {}", SIDES[origin])];
    let basis: Vec<String> = match pick(x[0].basis(), x[1].basis(), x[2].basis(), &same) {
        Some(side) => {
            parts.push(format!("basis from {}", SIDES[side]));
            let n = x[side].split().0;
            x[side].items[..n].iter().map(|s| s.to_string()).collect()
        }
        None => recompose(&x, &mut parts)?,
    };
    let (b, e) = x[origin].split();
    let mut items = basis;
    items.extend(x[origin].items[b..e].iter().map(|s| s.to_string()));
    Some(TransformMerge {
        text: x[1].with(&items),
        parts,
    })
}

/// The basis both sides changed, as one side's rotation times the other's scale.
fn recompose(x: &[Xf; 3], parts: &mut Vec<String>) -> Option<Vec<String>> {
    let s = [x[0].scale()?, x[1].scale()?, x[2].scale()?];
    let r = [0, 1, 2].map(|i| x[i].rotation(&s[i]));
    let rot = pick(&r[0], &r[1], &r[2], &|a, b| near(a, b, 1e-5, false))?;
    let scl = pick(&s[0], &s[1], &s[2], &|a, b| near(a, b, 1e-5, true))?;
    if rot == scl {
        // The other side's basis differs only in the last digits: this side's holds both.
        parts.push(format!("basis from {}", SIDES[rot]));
        let n = x[rot].split().0;
        return Some(x[rot].items[..n].iter().map(|s| s.to_string()).collect());
    }
    // Godot 4.5+ writes the shortest float32 digits, earlier editors 6 at most: a side
    // that holds a longer number was written by the first; the one that prints both
    // sides back as they are is the file's.
    let long = x.iter().any(|v| v.items.iter().any(|t| digits(t) > 6));
    let order = if long {
        [FloatStyle::Shortest, FloatStyle::Shortest]
    } else {
        [FloatStyle::G6, FloatStyle::Shortest]
    };
    let spelling = order.into_iter().find(|&f| {
        [1, 2].iter().all(|&i| {
            let back = x[i].compose(&r[i], &s[i]);
            back.iter()
                .zip(&x[i].items)
                .all(|(v, t)| print(*v, f) == t.trim())
        })
    })?;
    parts.push(format!("rotation from {}", SIDES[rot]));
    parts.push(format!("scale from {}", SIDES[scl]));
    let basis = x[1].compose(&r[rot], &s[scl]);
    Some(basis.iter().map(|v| print(*v, spelling)).collect())
}

/// How many significant digits a number is written with.
fn digits(text: &str) -> usize {
    let mantissa = text.trim().split(['e', 'E']).next().unwrap_or_default();
    let d: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    d.trim_start_matches('0').len()
}

/// A component, rounded to float32, as the editor of `float` writes it.
fn print(v: f64, float: FloatStyle) -> String {
    let style = Style {
        dialect: Dialect::Godot4 { format: 3 },
        float,
    };
    float_component(v as f32 as f64, &style)
}

/// How a transform changed, in words: `moved by (0, 2, 0)`, `rotated by 45°`, `scaled
/// by (2, 2, 2)` (`basis changed` when the basis is no rotation times a scale); `None` when
/// either value is no transform (or they are of two kinds).
pub fn describe_transform(old: &str, new: &str) -> Option<Vec<String>> {
    let (a, b) = (read(old)?, read(new)?);
    if a.name != b.name {
        return None;
    }
    let g6 = |v: f64| crate::write::g6_signed(v as f32 as f64);
    let mut words = Vec::new();
    if !same(a.origin(), b.origin()) {
        // A component that moved by float noise only reads 0 beside one that moved.
        let noise = |x: f64, y: f64| (y - x).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0);
        let pairs: Vec<(f64, f64)> = (a.origin().iter().copied())
            .zip(b.origin().iter().copied())
            .collect();
        let all_noise = pairs.iter().all(|&(x, y)| noise(x, y));
        let d: Vec<String> = pairs
            .iter()
            .map(|&(x, y)| {
                if noise(x, y) && !all_noise {
                    "0".into()
                } else {
                    g6(y - x)
                }
            })
            .collect();
        words.push(format!("moved by ({})", d.join(", ")));
    }
    if same(a.basis(), b.basis()) {
        return Some(words);
    }
    let (Some(sa), Some(sb)) = (a.scale(), b.scale()) else {
        words.push("basis changed".into());
        return Some(words);
    };
    let (ra, rb) = (a.rotation(&sa), b.rotation(&sb));
    let rotated = !near(&ra, &rb, 1e-5, false);
    let scaled = !near(&sa, &sb, 1e-5, true);
    if rotated {
        // The angle of the rotation from one to the other: trace(Ra^T Rb) is 1 + 2 cos
        // in 3D, 2 cos in 2D.
        let tr: f64 = ra.iter().zip(&rb).map(|(x, y)| x * y).sum();
        let cos = if a.dim == 3 {
            (tr - 1.0) / 2.0
        } else {
            tr / 2.0
        };
        let deg = cos.clamp(-1.0, 1.0).acos().to_degrees();
        words.push(format!("rotated by {}°", (deg * 10.0).round() / 10.0));
    }
    if scaled {
        let f: Vec<String> = sa.iter().zip(&sb).map(|(x, y)| g6(y / x)).collect();
        words.push(format!("scaled by ({})", f.join(", ")));
    }
    if !rotated && !scaled {
        words.push("basis changed".into());
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3)";
    /// Rotated 45 degrees about y (what Godot 4.5 writes).
    const TURNED: &str =
        "Transform3D(0.70710677, 0, 0.70710677, 0, 1, 0, -0.70710677, 0, 0.70710677, 1, 2, 3)";

    #[test]
    fn a_move_and_a_rotation_merge_with_both() {
        let moved = "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 4, 3)";
        for (o, t) in [(moved, TURNED), (TURNED, moved)] {
            let m = merge_transform(BASE, o, t).expect("merged");
            assert_eq!(
                m.text,
                "Transform3D(0.70710677, 0, 0.70710677, 0, 1, 0, -0.70710677, 0, 0.70710677, 1, 4, 3)"
            );
        }
    }

    #[test]
    fn a_rotation_and_a_scale_recompose_in_the_files_spelling() {
        let scaled = "Transform3D(2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3)";
        let m = merge_transform(BASE, TURNED, scaled).expect("merged");
        assert_eq!(
            m.text,
            "Transform3D(1.4142135, 0, 1.4142135, 0, 2, 0, -1.4142135, 0, 1.4142135, 1, 2, 3)"
        );
        assert!(
            m.parts.contains(&"rotation from ours".to_string()),
            "{:?}",
            m.parts
        );
        assert!(
            m.parts.contains(&"scale from theirs".to_string()),
            "{:?}",
            m.parts
        );
        // Godot 3 and 4.0-4.4 spell 6 digits, with Godot 3's spacing.
        let g3 = |s: &str| s.replace("Transform3D(", "Transform( ").replace(')', " )");
        let turned = "Transform( 0.707107, 0, 0.707107, 0, 1, 0, -0.707107, 0, 0.707107, 1, 2, 3 )";
        let m = merge_transform(&g3(BASE), turned, &g3(scaled)).expect("merged");
        assert_eq!(
            m.text,
            "Transform( 1.41421, 0, 1.41421, 0, 2, 0, -1.41421, 0, 1.41421, 1, 2, 3 )"
        );
    }

    #[test]
    fn both_rotating_or_a_sheared_basis_is_no_merge() {
        let other = "Transform3D(0, 0, 1, 0, 1, 0, -1, 0, 0, 1, 2, 3)";
        assert_eq!(merge_transform(BASE, TURNED, other), None);
        let sheared = "Transform3D(1, 0.5, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3)";
        let scaled = "Transform3D(2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3)";
        assert_eq!(merge_transform(BASE, sheared, scaled), None);
        assert_eq!(merge_transform(BASE, "Vector3(1, 2, 3)", scaled), None);
    }

    #[test]
    fn transform2d_columns_and_origin() {
        let base = "Transform2D(1, 0, 0, 1, 5, 5)";
        let moved = "Transform2D(1, 0, 0, 1, 7, 5)";
        let turned = "Transform2D(0, 1, -1, 0, 5, 5)";
        let m = merge_transform(base, moved, turned).expect("merged");
        assert_eq!(m.text, "Transform2D(0, 1, -1, 0, 7, 5)");
    }

    #[test]
    fn a_diff_says_moved_rotated_scaled() {
        let moved = "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 4, 3)";
        assert_eq!(
            describe_transform(BASE, moved),
            Some(vec!["moved by (0, 2, 0)".to_string()])
        );
        assert_eq!(
            describe_transform(BASE, TURNED),
            Some(vec!["rotated by 45°".to_string()])
        );
        let both = "Transform3D(2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 2, 3)";
        assert_eq!(
            describe_transform(BASE, both),
            Some(vec![
                "moved by (-1, 0, 0)".to_string(),
                "scaled by (2, 2, 2)".to_string()
            ])
        );
    }
}
