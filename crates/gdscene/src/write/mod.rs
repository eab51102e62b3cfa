//! Canonical writer for values: the exact text each editor version writes (spec §4.8–4.11, §5).
//!
//! Used to re-emit values a merge had to build, so the result matches what Godot would save
//! and the next editor save produces no diff noise.

pub mod format4;
pub mod section;
#[cfg(test)]
mod tests;

use crate::value::number::{g6, shortest};
use crate::value::packed_base64_encode;
use crate::value::{
    canonical_ctor_name, color_as_ctor, PackedBody, PackedElems, ResId, TypeRef, Value,
};
use std::cmp::Ordering;

pub use crate::value::multiline_escape;
pub(crate) use crate::value::number::g6_signed;

/// Which editor generation's layout to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Godot 3.x (`format=2`): spaces inside parentheses/brackets, `Pool*Array`, int ids.
    Godot3,
    /// Godot 4.x; `format` is the file's header value (3, or 4 for base64 bytes and `-inf`).
    Godot4 {
        /// The file's `format=` value.
        format: u8,
    },
}

/// How floats are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatStyle {
    /// `%g`, 6 significant digits: 3.x and 4.0–4.4.
    G6,
    /// 4.5+: shortest round-trip, float32-shortest when the value is exactly a float32.
    Shortest,
}

/// A complete writer style: dialect plus float style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Layout dialect.
    pub dialect: Dialect,
    /// Float digits.
    pub float: FloatStyle,
}

impl Style {
    fn g3(&self) -> bool {
        self.dialect == Dialect::Godot3
    }
}

/// Core float text. `f32_backed`: the engine stores it as float32 (vector components etc.).
fn float_text(x: f64, style: &Style, f32_backed: bool) -> String {
    let x = if f32_backed { x as f32 as f64 } else { x };
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        if x > 0.0 {
            return "inf".into();
        }
        return match (style.dialect, style.float) {
            (Dialect::Godot3, _) => "-inf".into(),
            (Dialect::Godot4 { format }, FloatStyle::Shortest) if format >= 4 => "-inf".into(),
            _ => "inf_neg".into(),
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    let body = match style.float {
        FloatStyle::G6 => g6(a),
        FloatStyle::Shortest => shortest(a, f32_backed || (a as f32) as f64 == a),
    };
    if x < 0.0 {
        format!("-{body}")
    } else {
        body
    }
}

/// A plain (scalar) float value: like [`float_component`] plus `.0` when the text would
/// otherwise read back as an int (rule 4 of §4.9).
pub fn float_plain(x: f64, style: &Style) -> String {
    let mut s = float_text(x, style, false);
    if !s.contains(['.', 'e', 'E']) && s != "inf" && s != "-inf" && s != "nan" {
        s.push_str(".0");
    }
    s
}

/// A vector component or packed element: no `.0` added. Uses float32-shortest when the value
/// is exactly a float32 (4.5+).
pub fn float_component(x: f64, style: &Style) -> String {
    float_text(x, style, false)
}

/// §4.10 C-style escaping (StringName, NodePath, PackedStringArray elements, node names...).
pub fn c_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\u{7}' => o.push_str("\\a"),
            '\u{8}' => o.push_str("\\b"),
            '\u{c}' => o.push_str("\\f"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            '\u{b}' => o.push_str("\\v"),
            '\'' => o.push_str("\\'"),
            '?' => o.push_str("\\?"),
            '"' => o.push_str("\\\""),
            c => o.push(c),
        }
    }
    o
}

/// §4.11 property key encoding: bare unless it holds `=`, `"`, `;`, `[`, `]`, a char ≤ 32 or
/// above 126; then quoted with `\` and `"` escaped.
pub fn encode_key(key: &str) -> String {
    let needs = key
        .chars()
        .any(|c| matches!(c, '=' | '"' | ';' | '[' | ']') || c <= ' ' || c as u32 > 126);
    if needs {
        format!("\"{}\"", multiline_escape(key))
    } else {
        key.to_string()
    }
}

/// Write a value exactly as the editor of `style` would.
pub fn value(v: &Value, style: &Style) -> String {
    let mut out = String::new();
    write_value(&mut out, v, style);
    out
}

fn write_id(out: &mut String, name: &str, id: &ResId, style: &Style) {
    if style.g3() {
        match id {
            ResId::Int(i) => out.push_str(&format!("{name}( {i} )")),
            ResId::Str(s) if s.parse::<i64>().is_ok_and(|i| i.to_string() == *s) => {
                out.push_str(&format!("{name}( {s} )"))
            }
            ResId::Str(s) => out.push_str(&format!("{name}( \"{}\" )", c_escape(s))),
        }
    } else {
        out.push_str(&format!("{name}(\"{}\")", c_escape(&id.key())));
    }
}

fn write_typeref(out: &mut String, t: &TypeRef, style: &Style) {
    match t {
        TypeRef::Name(n) => out.push_str(n),
        TypeRef::Ext(id) => write_id(out, "ExtResource", id, style),
        TypeRef::Sub(id) => write_id(out, "SubResource", id, style),
        TypeRef::Resource(args) => {
            out.push_str("Resource(");
            let parts: Vec<String> = args
                .iter()
                .map(|a| format!("\"{}\"", multiline_escape(a)))
                .collect();
            out.push_str(&parts.join(", "));
            out.push(')');
        }
    }
}

fn num_of(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn write_ctor(out: &mut String, name: &str, args: &[Value], style: &Style) {
    let canon = canonical_ctor_name(name);
    let wname = if style.g3() {
        match canon {
            "Transform3D" => "Transform",
            "Quaternion" => "Quat",
            n => n,
        }
    } else {
        canon
    };
    if matches!(canon, "Signal" | "Callable") {
        out.push_str(wname);
        out.push_str(if style.g3() { "(  )" } else { "()" });
        return;
    }
    let int_ctor = matches!(
        canon,
        "Vector2i" | "Vector3i" | "Vector4i" | "Rect2i" | "RID"
    );
    let parts: Vec<String> = args
        .iter()
        .map(|a| match (a, num_of(a)) {
            (Value::Int(i), _) if int_ctor && canon == "RID" => i.to_string(),
            (_, Some(x)) if int_ctor => {
                let t = x.trunc();
                if canon == "RID" {
                    (t as i64).to_string()
                } else {
                    (t as i64 as i32).to_string()
                }
            }
            (_, Some(x)) => float_text(x, style, true),
            (Value::String(s), _) => format!("\"{}\"", multiline_escape(s)),
            (other, None) => value(other, style),
        })
        .collect();
    out.push_str(wname);
    if style.g3() {
        if canon == "Resource" {
            // 3.x writes `Resource( "res://x")`.
            out.push_str("( ");
            out.push_str(&parts.join(", "));
            out.push(')');
        } else if parts.is_empty() {
            out.push_str("(  )");
        } else {
            out.push_str("( ");
            out.push_str(&parts.join(", "));
            out.push_str(" )");
        }
    } else {
        out.push('(');
        out.push_str(&parts.join(", "));
        out.push(')');
    }
}

fn write_list(out: &mut String, items: &[Value], style: &Style) {
    if items.is_empty() {
        out.push_str(if style.g3() { "[  ]" } else { "[]" });
        return;
    }
    out.push_str(if style.g3() { "[ " } else { "[" });
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, it, style);
    }
    out.push_str(if style.g3() { " ]" } else { "]" });
}

/// Variant type rank used by the engine's key ordering (Godot 4 `Variant::Type` order).
fn type_rank(v: &Value) -> u32 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        Value::String(_) => 4,
        Value::Ctor { name, .. } => match canonical_ctor_name(name) {
            "Vector2" => 5,
            "Vector2i" => 6,
            "Rect2" => 7,
            "Rect2i" => 8,
            "Vector3" => 9,
            "Vector3i" => 10,
            "Transform2D" => 11,
            "Vector4" => 12,
            "Vector4i" => 13,
            "Plane" => 14,
            "Quaternion" => 15,
            "AABB" => 16,
            "Basis" => 17,
            "Transform3D" => 18,
            "Projection" => 19,
            "Color" => 20,
            "RID" => 23,
            "Resource" => 24,
            "Callable" => 25,
            "Signal" => 26,
            _ => 40,
        },
        Value::Color(_) => 20,
        Value::StringName(_) => 21,
        Value::NodePath(_) => 22,
        Value::ExtResource(_) | Value::SubResource(_) | Value::Object { .. } => 24,
        Value::Dict(_) | Value::TypedDict { .. } => 27,
        Value::Array(_) | Value::TypedArray { .. } => 28,
        Value::Packed(p) => 29 + p.kind().map_or(10, |k| k as u32),
    }
}

/// Dictionary key order (§4.8): String/StringName together by code point (4.x), else by type
/// rank then value. Keys the engine cannot order keep their relative order (stable sort).
fn key_cmp(a: &Value, b: &Value, style: &Style) -> Ordering {
    let text = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::StringName(s) if !style.g3() => Some(s.clone()),
            _ => None,
        }
    };
    if let (Some(x), Some(y)) = (text(a), text(b)) {
        return x.cmp(&y);
    }
    let (ra, rb) = (type_rank(a), type_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::StringName(x), Value::StringName(y)) | (Value::NodePath(x), Value::NodePath(y)) => {
            x.cmp(y)
        }
        _ => Ordering::Equal,
    }
}

fn write_dict(out: &mut String, entries: &[(Value, Value)], style: &Style) {
    if entries.is_empty() {
        out.push_str(if style.g3() { "{\n\n}" } else { "{}" });
        return;
    }
    let mut sorted: Vec<&(Value, Value)> = entries.iter().collect();
    sorted.sort_by(|a, b| key_cmp(&a.0, &b.0, style));
    out.push_str("{\n");
    for (i, (k, v)) in sorted.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        write_value(out, k, style);
        out.push_str(": ");
        write_value(out, v, style);
    }
    out.push_str("\n}");
}

fn write_packed(out: &mut String, p: &crate::value::Packed, style: &Style) {
    let Some(kind) = p.kind() else {
        // Unknown name: keep as written.
        out.push_str(&p.name);
        out.push('(');
        if let PackedBody::List(l) = &p.body {
            out.push_str(l.trim_matches(|c: char| c <= ' '));
        }
        out.push(')');
        return;
    };
    let name = if style.g3() {
        kind.godot3_name()
    } else {
        kind.name()
    };
    let parts: Vec<String> = match p.elements() {
        Ok(PackedElems::Bytes(b)) => {
            if matches!(style.dialect, Dialect::Godot4 { format } if format >= 4) {
                out.push_str(name);
                if b.is_empty() {
                    out.push_str("()");
                } else {
                    out.push_str(&format!("(\"{}\")", packed_base64_encode(&b)));
                }
                return;
            }
            b.iter().map(|x| x.to_string()).collect()
        }
        Ok(PackedElems::Ints(v)) => v.iter().map(|x| x.to_string()).collect(),
        Ok(PackedElems::Floats(v)) => v
            .iter()
            .map(|&x| float_text(x, style, kind.is_f32()))
            .collect(),
        Ok(PackedElems::Strings(v)) => v.iter().map(|s| format!("\"{}\"", c_escape(s))).collect(),
        Err(_) => match &p.body {
            // Undecodable: keep the body text as written.
            PackedBody::List(l) => vec![l.trim_matches(|c: char| c <= ' ').to_string()],
            PackedBody::Base64(s) => vec![format!("\"{}\"", s)],
        },
    };
    out.push_str(name);
    if style.g3() {
        if parts.is_empty() {
            out.push_str("(  )");
        } else {
            out.push_str(&format!("( {} )", parts.join(", ")));
        }
    } else {
        out.push_str(&format!("({})", parts.join(", ")));
    }
}

fn write_value(out: &mut String, v: &Value, style: &Style) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&float_plain(*f, style)),
        Value::String(s) => {
            out.push('"');
            out.push_str(&multiline_escape(s));
            out.push('"');
        }
        Value::StringName(s) => {
            out.push_str(if style.g3() { "\"" } else { "&\"" });
            out.push_str(&if style.g3() {
                multiline_escape(s)
            } else {
                c_escape(s)
            });
            out.push('"');
        }
        Value::NodePath(s) => {
            out.push_str("NodePath(\"");
            out.push_str(&c_escape(s));
            out.push_str("\")");
        }
        Value::Color(hex) => match color_as_ctor(hex) {
            Some(Value::Ctor { name, args }) => write_ctor(out, &name, &args, style),
            _ => {
                out.push('#');
                out.push_str(hex);
            }
        },
        Value::ExtResource(id) => write_id(out, "ExtResource", id, style),
        Value::SubResource(id) => write_id(out, "SubResource", id, style),
        Value::Ctor { name, args } => write_ctor(out, name, args, style),
        Value::Array(items) => write_list(out, items, style),
        Value::TypedArray { elem, items } => {
            if style.g3() {
                write_list(out, items, style);
            } else {
                out.push_str("Array[");
                write_typeref(out, elem, style);
                out.push_str("](");
                write_list(out, items, style);
                out.push(')');
            }
        }
        Value::Dict(entries) => write_dict(out, entries, style),
        Value::TypedDict {
            key,
            value: val,
            entries,
        } => {
            if style.g3() {
                write_dict(out, entries, style);
            } else {
                out.push_str("Dictionary[");
                write_typeref(out, key, style);
                out.push_str(", ");
                write_typeref(out, val, style);
                out.push_str("](");
                write_dict(out, entries, style);
                out.push(')');
            }
        }
        Value::Object { class, props } => {
            out.push_str("Object(");
            out.push_str(class);
            for (k, v) in props {
                out.push_str(",\"");
                out.push_str(&multiline_escape(k));
                out.push_str("\":");
                write_value(out, v, style);
            }
            out.push_str(")\n");
        }
        Value::Packed(p) => write_packed(out, p, style),
    }
}
