//! Values of Godot's text scene format: parsing, engine equality, and reference handling.
//!
//! The authoritative description is `shared/spec/format.md` §1–§2. Everything here is pure:
//! no I/O, no printing, no panics on user input. Number text lives in `number` so the
//! canonical writer (`crate::write`) depends on this module and never the other way round.

pub(crate) mod number;
mod packed;
mod parse;
mod refs;

pub use packed::{PackedElems, PackedKind};
pub use refs::{
    may_name_ref, may_name_sub, rewrite_refs_in_text, scan_refs_in_text, SubsSpelled, WordAhead,
};

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

/// Deepest `[ { (` nesting accepted; pest recurses, so deeper input is rejected up front.
pub const MAX_DEPTH: usize = 128;

/// A parsed value, kept close to how it was written so the writer can reproduce it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` or `nil`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer literal (no `.` or exponent).
    Int(i64),
    /// A float literal, or `inf`, `nan`, `-inf` / `inf_neg`.
    Float(f64),
    /// A `"..."` string, escapes decoded.
    String(String),
    /// A `&"..."` (or `@"..."`) StringName, decoded.
    StringName(String),
    /// `NodePath("...")`, decoded.
    NodePath(String),
    /// A `#hex` color literal: the hex digits as written (without `#`).
    Color(String),
    /// `ExtResource(id)`.
    ExtResource(ResId),
    /// `SubResource(id)`.
    SubResource(ResId),
    /// Any other constructor (`Vector2`, `Transform3D`, `Color`, `Rect2`, `Quat`, `RID`,
    /// `Resource("..")`, ...). `name` is as written (legacy names kept).
    Ctor {
        /// The constructor's name.
        name: String,
        /// Its arguments, in order.
        args: Vec<Value>,
    },
    /// `[a, b, ...]`.
    Array(Vec<Value>),
    /// `Array[T]([...])`.
    TypedArray {
        /// The element type.
        elem: TypeRef,
        /// The elements, in order.
        items: Vec<Value>,
    },
    /// `{k: v, ...}`, in written order.
    Dict(Vec<(Value, Value)>),
    /// `Dictionary[K, V]({...})`.
    TypedDict {
        /// The key type.
        key: TypeRef,
        /// The value type.
        value: TypeRef,
        /// The entries, in written order.
        entries: Vec<(Value, Value)>,
    },
    /// `Object(Class, "k": v, ...)`.
    Object {
        /// The object's class.
        class: String,
        /// Its properties, in written order.
        props: Vec<(String, Value)>,
    },
    /// A packed array (`Packed*Array`, `Pool*Array`, legacy `*Array`), decoded lazily.
    Packed(Packed),
}

/// A resource id as written: `1` (3.x) or `"1_abcde"` (4.x). `1` and `"1"` name the same entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResId {
    /// Integer form `ExtResource( 1 )`.
    Int(i64),
    /// String form `ExtResource("1_abcde")`.
    Str(String),
}

impl ResId {
    /// The id as the loader sees it (it turns every id into a string).
    pub fn key(&self) -> Cow<'_, str> {
        match self {
            ResId::Int(i) => Cow::Owned(i.to_string()),
            ResId::Str(s) => Cow::Borrowed(s),
        }
    }
}

/// The element/key/value type of a typed container.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeRef {
    /// A built-in type or class name (`int`, `Node`, `Resource`, `Variant`, ...).
    Name(String),
    /// A script given as `ExtResource(id)`.
    Ext(ResId),
    /// A script given as `SubResource(id)`.
    Sub(ResId),
    /// A script given as `Resource("path")` / `Resource("uid://..", "path")` (strings as written).
    Resource(Vec<String>),
}

/// Which id table a reference points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefKind {
    /// `ExtResource(...)`: the `[ext_resource]` table.
    Ext,
    /// `SubResource(...)`: the `[sub_resource]` table.
    Sub,
}

/// A packed array: its name as written and its undecoded body (decoding is lazy for speed).
#[derive(Debug, Clone, PartialEq)]
pub struct Packed {
    /// Name as written, e.g. `PoolVector2Array`.
    pub name: String,
    /// The body: raw list text, or a decoded base64 string for `PackedByteArray("...")`.
    pub body: PackedBody,
}

/// The inside of a packed array's parentheses.
#[derive(Debug, Clone, PartialEq)]
pub enum PackedBody {
    /// Raw inner text (`1, 2, 3` or `"a", "b"`), decoded on demand.
    List(String),
    /// The decoded text of a base64 string (format 4 `PackedByteArray("AAEC")`).
    Base64(String),
}

/// A parse or decode error: where (byte offset into the parsed text) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// Byte offset into the text that was parsed (for lazy packed decoding: into the body).
    pub offset: usize,
    /// What the parser expected there, in words.
    pub expected: String,
}

impl ValueError {
    pub(crate) fn new(offset: usize, expected: impl Into<String>) -> Self {
        ValueError {
            offset,
            expected: expected.into(),
        }
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: expected {}", self.offset, self.expected)
    }
}

impl std::error::Error for ValueError {}

/// One section of a file outline: the tag, its fields and its property lines, as spans.
#[derive(Debug, Clone, PartialEq)]
pub struct OutlineSection {
    /// Offset of the section's `[`.
    pub start: usize,
    /// Tag name (`gd_scene`, `node`, ...).
    pub name: String,
    /// Header fields: name and the byte span of the value text.
    pub fields: Vec<(String, Range<usize>)>,
    /// Property lines: decoded key and the byte span of the value text.
    pub props: Vec<(String, Range<usize>)>,
}

/// Parse exactly one value, with optional surrounding whitespace and comments.
pub fn parse(text: &str) -> Result<Value, ValueError> {
    parse::parse_value(text)
}

/// Full-file outline via the pest file grammar: the reference parse of a whole file.
pub fn outline(text: &str) -> Result<Vec<OutlineSection>, ValueError> {
    parse::parse_outline(text)
}

/// Float equality used everywhere (§4.9, §6.5–6.6): equal as float32 (NaN equals NaN, -0
/// equals 0), or equal once both are rounded to 6 significant digits, which is what 3.x and
/// 4.0–4.4 wrote (`0.707107` vs `0.70710677` are 4 float32 ulps apart).
pub fn float_eq(a: f64, b: f64) -> bool {
    let (x, y) = (a as f32, b as f32);
    if x == y || (x.is_nan() && y.is_nan()) {
        return true;
    }
    if !(a.is_finite() && b.is_finite()) {
        return false;
    }
    use number::g6_signed as g6;
    // Also after float32 rounding: 4.0–4.4 printed the float32 of a component with %g.
    g6(a) == g6(b) || g6(x as f64) == g6(y as f64)
}

fn f32_eq(a: f64, b: f64) -> bool {
    float_eq(a, b)
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// Modern Godot 4 name of a constructor (legacy names map to it).
pub fn canonical_ctor_name(name: &str) -> &str {
    match name {
        "Quat" => "Quaternion",
        "Transform" => "Transform3D",
        "Matrix32" => "Transform2D",
        "Matrix3" => "Basis",
        "Rect3" => "AABB",
        other => other,
    }
}

/// Color components (0..1) of a `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` literal.
pub fn html_color(hex: &str) -> Option<[f64; 4]> {
    let d: Vec<u32> = hex.chars().map(|c| c.to_digit(16)).collect::<Option<_>>()?;
    let (vals, scale): (Vec<u32>, f64) = match d.len() {
        3 | 4 => (d.clone(), 15.0),
        6 | 8 => (d.chunks(2).map(|c| c[0] * 16 + c[1]).collect(), 255.0),
        _ => return None,
    };
    let mut out = [1.0; 4];
    for (o, v) in out.iter_mut().zip(vals) {
        *o = v as f64 / scale;
    }
    Some(out)
}

/// A `#hex` color as the equivalent `Color(r, g, b, a)` constructor.
pub(crate) fn color_as_ctor(hex: &str) -> Option<Value> {
    html_color(hex).map(|c| Value::Ctor {
        name: "Color".to_string(),
        args: c.iter().map(|&x| Value::Float(x)).collect(),
    })
}

fn typeref_eq(a: &TypeRef, b: &TypeRef) -> bool {
    match (a, b) {
        (TypeRef::Name(x), TypeRef::Name(y)) => x == y,
        (TypeRef::Ext(x), TypeRef::Ext(y)) | (TypeRef::Sub(x), TypeRef::Sub(y)) => {
            x.key() == y.key()
        }
        (TypeRef::Resource(x), TypeRef::Resource(y)) => x == y,
        _ => false,
    }
}

/// Last-wins view of a dictionary literal (the engine keeps the last duplicate): the
/// indices of the entries that count.
fn dedup_entries<K, V>(entries: &[(K, V)], eq: impl Fn(&K, &K) -> bool) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        if let Some(slot) = out.iter_mut().find(|o| eq(&entries[**o].0, &e.0)) {
            *slot = i;
        } else {
            out.push(i);
        }
    }
    out
}

/// Key identity inside one dictionary (the engine hashes keys exactly): floats compare as
/// doubles here, so two distinct keys that are equal as float32 are not merged.
fn dict_key_same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a.sem_eq(b),
    }
}

/// Two dictionaries (or objects' property lists) as maps: last-wins duplicates by `same`,
/// then every entry of `a` meets one of `b` with an equal key (`keq`) and value (`veq`).
fn map_eq<K, V>(
    a: &[(K, V)],
    b: &[(K, V)],
    same: impl Fn(&K, &K) -> bool,
    keq: impl Fn(&K, &K) -> bool,
    veq: impl Fn(&V, &V) -> bool,
) -> bool {
    // Fast path: same order, no duplicates to worry about when everything lines up. The
    // values compared on the way are remembered: a mesh's arrays are not compared twice.
    let mut known: Vec<bool> = Vec::new();
    if a.len() == b.len() {
        for (x, y) in a.iter().zip(b) {
            if !keq(&x.0, &y.0) {
                break;
            }
            known.push(veq(&x.1, &y.1));
            if !known[known.len() - 1] {
                break;
            }
        }
        if known.len() == a.len() && known.iter().all(|&k| k) {
            let distinct = a.len() < 2
                || a.iter()
                    .enumerate()
                    .all(|(i, x)| a[..i].iter().all(|y| !same(&x.0, &y.0)));
            if distinct {
                return true;
            }
        }
    }
    let value_eq = |i: usize, j: usize| match known.get(i) {
        Some(&k) if i == j => k,
        _ => veq(&a[i].1, &b[j].1),
    };
    let da = dedup_entries(a, &same);
    let db = dedup_entries(b, &same);
    da.len() == db.len()
        && da
            .iter()
            .all(|&i| db.iter().any(|&j| keq(&a[i].0, &b[j].0) && value_eq(i, j)))
}

fn ctor_eq(an: &str, aa: &[Value], bn: &str, ba: &[Value]) -> bool {
    let (an, bn) = (canonical_ctor_name(an), canonical_ctor_name(bn));
    if an != bn || aa.len() != ba.len() {
        return false;
    }
    let int_ctor = matches!(an, "Vector2i" | "Vector3i" | "Vector4i" | "Rect2i" | "RID");
    aa.iter().zip(ba).all(|(x, y)| match (num(x), num(y)) {
        (Some(p), Some(q)) if int_ctor => {
            if an == "RID" {
                p.trunc() == q.trunc()
            } else {
                (p.trunc() as i64 as i32) == (q.trunc() as i64 as i32)
            }
        }
        (Some(p), Some(q)) => f32_eq(p, q),
        _ => x.sem_eq(y),
    })
}

impl Value {
    /// Engine equality: floats as float32, legacy names equal modern ones, `1` == `"1"` ids,
    /// dictionaries as maps, packed arrays by element. Int and Float differ (inside containers).
    pub fn sem_eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => f32_eq(*a, *b),
            (String(a), String(b))
            | (StringName(a), StringName(b))
            | (NodePath(a), NodePath(b)) => a == b,
            (Color(a), Color(b)) if a.eq_ignore_ascii_case(b) => true,
            (Color(h), c @ Ctor { .. }) | (c @ Ctor { .. }, Color(h)) => {
                color_as_ctor(h).is_some_and(|x| x.sem_eq(c))
            }
            (Color(a), Color(b)) => match (color_as_ctor(a), color_as_ctor(b)) {
                (Some(x), Some(y)) => x.sem_eq(&y),
                _ => false,
            },
            (ExtResource(a), ExtResource(b)) | (SubResource(a), SubResource(b)) => {
                a.key() == b.key()
            }
            (Ctor { name: an, args: aa }, Ctor { name: bn, args: ba }) => ctor_eq(an, aa, bn, ba),
            (Array(a), Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.sem_eq(y)),
            (
                TypedArray {
                    elem: ea,
                    items: ia,
                },
                TypedArray {
                    elem: eb,
                    items: ib,
                },
            ) => {
                typeref_eq(ea, eb)
                    && ia.len() == ib.len()
                    && ia.iter().zip(ib).all(|(x, y)| x.sem_eq(y))
            }
            (Dict(a), Dict(b)) => {
                map_eq(a, b, dict_key_same, |x, y| x.sem_eq(y), |x, y| x.sem_eq(y))
            }
            (
                TypedDict {
                    key: ka,
                    value: va,
                    entries: ea,
                },
                TypedDict {
                    key: kb,
                    value: vb,
                    entries: eb,
                },
            ) => {
                typeref_eq(ka, kb)
                    && typeref_eq(va, vb)
                    && map_eq(
                        ea,
                        eb,
                        dict_key_same,
                        |x, y| x.sem_eq(y),
                        |x, y| x.sem_eq(y),
                    )
            }
            (
                Object {
                    class: ca,
                    props: pa,
                },
                Object {
                    class: cb,
                    props: pb,
                },
            ) => ca == cb && map_eq(pa, pb, |x, y| x == y, |x, y| x == y, |x, y| x.sem_eq(y)),
            (Packed(a), Packed(b)) => a.sem_eq(b),
            _ => false,
        }
    }

    /// Call `f` for every ExtResource/SubResource inside (type references included).
    pub fn for_each_ref(&self, f: &mut dyn FnMut(RefKind, &ResId)) {
        fn tr(t: &TypeRef, f: &mut dyn FnMut(RefKind, &ResId)) {
            match t {
                TypeRef::Ext(id) => f(RefKind::Ext, id),
                TypeRef::Sub(id) => f(RefKind::Sub, id),
                _ => {}
            }
        }
        match self {
            Value::ExtResource(id) => f(RefKind::Ext, id),
            Value::SubResource(id) => f(RefKind::Sub, id),
            Value::Ctor { args, .. } | Value::Array(args) => {
                args.iter().for_each(|a| a.for_each_ref(f))
            }
            Value::TypedArray { elem, items } => {
                tr(elem, f);
                items.iter().for_each(|a| a.for_each_ref(f));
            }
            Value::Dict(entries) => entries.iter().for_each(|(k, v)| {
                k.for_each_ref(f);
                v.for_each_ref(f);
            }),
            Value::TypedDict {
                key,
                value,
                entries,
            } => {
                tr(key, f);
                tr(value, f);
                entries.iter().for_each(|(k, v)| {
                    k.for_each_ref(f);
                    v.for_each_ref(f);
                });
            }
            Value::Object { props, .. } => props.iter().for_each(|(_, v)| v.for_each_ref(f)),
            _ => {}
        }
    }

    /// Replace reference ids: `f` returns the new id, or `None` to keep the old one.
    pub fn map_refs(&mut self, f: &mut dyn FnMut(RefKind, &ResId) -> Option<ResId>) {
        fn tr(t: &mut TypeRef, f: &mut dyn FnMut(RefKind, &ResId) -> Option<ResId>) {
            match t {
                TypeRef::Ext(id) => {
                    if let Some(n) = f(RefKind::Ext, id) {
                        *id = n;
                    }
                }
                TypeRef::Sub(id) => {
                    if let Some(n) = f(RefKind::Sub, id) {
                        *id = n;
                    }
                }
                _ => {}
            }
        }
        match self {
            Value::ExtResource(id) => {
                if let Some(n) = f(RefKind::Ext, id) {
                    *id = n;
                }
            }
            Value::SubResource(id) => {
                if let Some(n) = f(RefKind::Sub, id) {
                    *id = n;
                }
            }
            Value::Ctor { args, .. } | Value::Array(args) => {
                args.iter_mut().for_each(|a| a.map_refs(f))
            }
            Value::TypedArray { elem, items } => {
                tr(elem, f);
                items.iter_mut().for_each(|a| a.map_refs(f));
            }
            Value::Dict(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.map_refs(f);
                v.map_refs(f);
            }),
            Value::TypedDict {
                key,
                value,
                entries,
            } => {
                tr(key, f);
                tr(value, f);
                entries.iter_mut().for_each(|(k, v)| {
                    k.map_refs(f);
                    v.map_refs(f);
                });
            }
            Value::Object { props, .. } => props.iter_mut().for_each(|(_, v)| v.map_refs(f)),
            _ => {}
        }
    }
}

/// Equality of two top-level property values: like [`Value::sem_eq`], but a hand-written `1`
/// equals `1.0` because the property's declared type converts it (§6.7).
pub fn sem_eq_top(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
            f32_eq(*i as f64, *f)
        }
        _ => a.sem_eq(b),
    }
}

#[cfg(test)]
mod tests;

/// Base64 encoder shared with the writer (format 4 PackedByteArray).
pub(crate) fn packed_base64_encode(data: &[u8]) -> String {
    packed::base64_encode(data)
}

/// §4.10 "multiline" escaping (String values, `Resource("…")` paths): only `\` and `"`.
pub fn multiline_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            c => o.push(c),
        }
    }
    o
}
