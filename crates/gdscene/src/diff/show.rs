//! Canonical, human-readable printing of values with references resolved.
//!
//! Used by the diff renderers (short, shortened values) and by textconv (full values): the
//! same value written by any editor version prints the same way, floats are normalised to
//! 6 significant digits (the precision [`crate::value::float_eq`] compares at), and
//! `ExtResource`/`SubResource` ids are replaced by names a person can read.

use crate::value::{
    canonical_ctor_name, html_color, PackedElems, PackedKind, RefKind, ResId, TypeRef, Value,
};
use crate::write::{c_escape, multiline_escape};

/// How much of a value to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything (textconv): strings keep their real line breaks.
    Full,
    /// For one line of a report: strings escaped, big packed arrays summarised by length,
    /// output cut after about `limit` bytes.
    Short {
        /// Soft byte budget.
        limit: usize,
    },
}

/// Names references print with: `(kind, id) -> name`.
pub type Namer<'a> = &'a dyn Fn(RefKind, &str) -> String;

/// Canonical spelling of a float: `%g` with 6 significant digits (what 3.x and 4.0–4.4
/// wrote, and the precision two spellings are compared at), `inf`, `-inf`, `nan`.
pub fn canon_float(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        crate::write::g6_signed(x)
    }
}

/// A scalar float: like [`canon_float`] but always reads back as a float (`1.0`, not `1`).
pub fn canon_float_plain(x: f64) -> String {
    let mut s = canon_float(x);
    if !s.contains(['.', 'e', 'n', 'i']) {
        s.push_str(".0");
    }
    s
}

/// Print `v` canonically with references named by `names`.
pub fn show(v: &Value, names: Namer<'_>, detail: Detail) -> String {
    let mut out = String::new();
    write(&mut out, v, names, detail);
    if let Detail::Short { limit } = detail {
        return shorten(&out, limit);
    }
    out
}

/// Cut a string to at most `limit` bytes (on a char boundary), marking the cut with `…`.
pub fn shorten(s: &str, limit: usize) -> String {
    if s.len() <= limit {
        return s.to_string();
    }
    let mut end = limit.saturating_sub(1);
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn over(out: &str, detail: Detail) -> bool {
    matches!(detail, Detail::Short { limit } if out.len() > limit)
}

/// Whether nothing more written can show: [`shorten`] keeps fewer than `limit` bytes,
/// all already written, and anything appended makes the text long enough to be cut. A
/// 90,000-vertex array past the cut is not decoded just to be cut away.
fn past_the_cut(out: &str, detail: Detail) -> bool {
    matches!(detail, Detail::Short { limit } if out.len() >= limit)
}

fn write_str(out: &mut String, s: &str, detail: Detail) {
    out.push('"');
    match detail {
        Detail::Full => out.push_str(&multiline_escape(s)),
        Detail::Short { .. } => out.push_str(&c_escape(s)),
    }
    out.push('"');
}

fn write_ref(out: &mut String, ctor: &str, kind: RefKind, id: &ResId, names: Namer<'_>) {
    out.push_str(ctor);
    out.push('(');
    out.push_str(&names(kind, &id.key()));
    out.push(')');
}

fn write_typeref(out: &mut String, t: &TypeRef, names: Namer<'_>) {
    match t {
        TypeRef::Name(n) => out.push_str(n),
        TypeRef::Ext(id) => write_ref(out, "ExtResource", RefKind::Ext, id, names),
        TypeRef::Sub(id) => write_ref(out, "SubResource", RefKind::Sub, id, names),
        TypeRef::Resource(args) => {
            out.push_str("Resource(");
            out.push_str(
                &args
                    .iter()
                    .map(|a| format!("\"{}\"", multiline_escape(a)))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            out.push(')');
        }
    }
}

fn write_seq<'v>(
    out: &mut String,
    items: impl Iterator<Item = &'v Value>,
    names: Namer<'_>,
    detail: Detail,
) {
    for (i, it) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if over(out, detail) {
            out.push('…');
            return;
        }
        write(out, it, names, detail);
    }
}

fn write_entries(out: &mut String, entries: &[(Value, Value)], names: Namer<'_>, detail: Detail) {
    out.push('{');
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if over(out, detail) {
            out.push('…');
            break;
        }
        write(out, k, names, detail);
        out.push_str(": ");
        write(out, v, names, detail);
    }
    out.push('}');
}

fn write_component(out: &mut String, v: &Value, int_ctor: bool, names: Namer<'_>, detail: Detail) {
    match v {
        Value::Float(f) if int_ctor => out.push_str(&(f.trunc() as i64).to_string()),
        Value::Float(f) => out.push_str(&canon_float(*f)),
        Value::Int(i) => out.push_str(&i.to_string()),
        other => write(out, other, names, detail),
    }
}

/// Number of packed elements at or below which Short detail still prints them all.
const SHORT_PACKED_ELEMS: usize = 4;

fn write_packed(out: &mut String, p: &crate::value::Packed, detail: Detail) {
    let kind = p.kind();
    let name = kind.map_or(p.name.as_str(), |k| k.name());
    let elems = match p.elements() {
        Ok(e) => e,
        Err(_) => {
            // Undecodable: print what was written.
            out.push_str(&p.name);
            out.push('(');
            match &p.body {
                crate::value::PackedBody::List(s) | crate::value::PackedBody::Base64(s) => {
                    out.push_str(s.trim())
                }
            }
            out.push(')');
            return;
        }
    };
    let comps = kind.map_or(1, PackedKind::components);
    let count = packed_len(&elems, comps);
    if matches!(detail, Detail::Short { .. }) && count > SHORT_PACKED_ELEMS {
        out.push_str(&format!("{name}({count} elements)"));
        return;
    }
    out.push_str(name);
    out.push('(');
    match &elems {
        PackedElems::Bytes(b) => out.push_str(
            &b.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        PackedElems::Ints(v) => out.push_str(
            &v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        PackedElems::Floats(v) => {
            let mut first = true;
            for x in v {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                out.push_str(&canon_float(*x));
            }
        }
        PackedElems::Strings(v) => {
            let mut first = true;
            for s in v {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                write_str(out, s, detail);
            }
        }
    }
    out.push(')');
}

/// Number of elements of a decoded packed array with `comps` components per element.
pub fn packed_len(e: &PackedElems, comps: usize) -> usize {
    match e {
        PackedElems::Bytes(b) => b.len(),
        PackedElems::Ints(v) => v.len(),
        PackedElems::Floats(v) => v.len() / comps.max(1),
        PackedElems::Strings(v) => v.len(),
    }
}

fn write(out: &mut String, v: &Value, names: Namer<'_>, detail: Detail) {
    if past_the_cut(out, detail) {
        out.push('…');
        return;
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&canon_float_plain(*f)),
        Value::String(s) => write_str(out, s, detail),
        Value::StringName(s) => {
            out.push('&');
            write_str(out, s, Detail::Short { limit: usize::MAX });
        }
        Value::NodePath(s) => {
            out.push_str("NodePath(");
            write_str(out, s, Detail::Short { limit: usize::MAX });
            out.push(')');
        }
        Value::Color(hex) => write_color(out, hex),
        Value::ExtResource(id) => write_ref(out, "ExtResource", RefKind::Ext, id, names),
        Value::SubResource(id) => write_ref(out, "SubResource", RefKind::Sub, id, names),
        Value::Ctor { name, args } => write_ctor(out, name, args, names, detail),
        Value::Array(items) => {
            out.push('[');
            write_seq(out, items.iter(), names, detail);
            out.push(']');
        }
        Value::TypedArray { elem, items } => {
            out.push_str("Array[");
            write_typeref(out, elem, names);
            out.push_str("]([");
            write_seq(out, items.iter(), names, detail);
            out.push_str("])");
        }
        Value::Dict(entries) => write_entries(out, entries, names, detail),
        Value::TypedDict {
            key,
            value,
            entries,
        } => {
            out.push_str("Dictionary[");
            write_typeref(out, key, names);
            out.push_str(", ");
            write_typeref(out, value, names);
            out.push_str("](");
            write_entries(out, entries, names, detail);
            out.push(')');
        }
        Value::Object { class, props } => write_object(out, class, props, names, detail),
        Value::Packed(p) => write_packed(out, p, detail),
    }
}

/// A `#hex` color, as the `Color(r, g, b, a)` it stands for when it reads as one.
fn write_color(out: &mut String, hex: &str) {
    match html_color(hex) {
        Some(c) => {
            out.push_str("Color(");
            out.push_str(
                &c.iter()
                    .map(|x| canon_float(*x))
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            out.push(')');
        }
        None => {
            out.push('#');
            out.push_str(hex);
        }
    }
}

/// A math or other constructor, by its canonical name; integer vectors print their
/// components as integers.
fn write_ctor(out: &mut String, name: &str, args: &[Value], names: Namer<'_>, detail: Detail) {
    let canon = canonical_ctor_name(name);
    let int_ctor = matches!(
        canon,
        "Vector2i" | "Vector3i" | "Vector4i" | "Rect2i" | "RID"
    );
    out.push_str(canon);
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_component(out, a, int_ctor, names, detail);
    }
    out.push(')');
}

/// An `Object(class, key: value, ...)`, cut when over the budget.
fn write_object(
    out: &mut String,
    class: &str,
    props: &[(String, Value)],
    names: Namer<'_>,
    detail: Detail,
) {
    out.push_str("Object(");
    out.push_str(class);
    for (k, v) in props {
        out.push_str(", ");
        if over(out, detail) {
            out.push('…');
            break;
        }
        write_str(out, k, detail);
        out.push_str(": ");
        write(out, v, names, detail);
    }
    out.push(')');
}

/// Names of the components of a math constructor, for per-component change lists.
pub fn component_names(ctor: &str, n: usize) -> Vec<String> {
    let fixed: &[&str] = match (canonical_ctor_name(ctor), n) {
        ("Vector2" | "Vector2i" | "Size2", 2) => &["x", "y"],
        ("Vector3" | "Vector3i", 3) => &["x", "y", "z"],
        ("Vector4" | "Vector4i" | "Quaternion", 4) => &["x", "y", "z", "w"],
        ("Color", 4) => &["r", "g", "b", "a"],
        ("Color", 3) => &["r", "g", "b"],
        ("Rect2" | "Rect2i", 4) => &["position.x", "position.y", "size.x", "size.y"],
        ("Plane", 4) => &["normal.x", "normal.y", "normal.z", "d"],
        ("AABB", 6) => &[
            "position.x",
            "position.y",
            "position.z",
            "size.x",
            "size.y",
            "size.z",
        ],
        ("Transform2D", 6) => &["x.x", "x.y", "y.x", "y.y", "origin.x", "origin.y"],
        ("Transform3D", 12) => &[
            "basis[0][0]",
            "basis[0][1]",
            "basis[0][2]",
            "basis[1][0]",
            "basis[1][1]",
            "basis[1][2]",
            "basis[2][0]",
            "basis[2][1]",
            "basis[2][2]",
            "origin.x",
            "origin.y",
            "origin.z",
        ],
        ("Basis", 9) => &[
            "[0][0]", "[0][1]", "[0][2]", "[1][0]", "[1][1]", "[1][2]", "[2][0]", "[2][1]",
            "[2][2]",
        ],
        _ => &[],
    };
    if fixed.len() == n {
        fixed.iter().map(|s| s.to_string()).collect()
    } else {
        (0..n).map(|i| format!("[{i}]")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> Value {
        crate::value::parse(t).unwrap()
    }
    fn names(k: RefKind, id: &str) -> String {
        format!("{}:{id}", if k == RefKind::Ext { "e" } else { "s" })
    }

    #[test]
    fn a_short_value_is_the_whole_value_cut_whatever_is_skipped_past_the_cut() {
        let values = [
            "[{\"aabb\": AABB(-50, -50, 0, 1, 1, 1), \"format\": 4097, \"vertex_data\": PackedVector3Array(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)}]",
            "{\"é\": \"ünïcødé ✓ text\", 2: [1, 2.5, \"x\"], \"c\": Color(1, 0, 0, 1)}",
            "Object(Node, \"a\": 1, \"b\": PackedStringArray(\"x\", \"y\"), \"c\": SubResource(\"s\"))",
            "Array[int]([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])",
            "PackedByteArray(1, 2, 3)",
            "\"✓✓✓✓✓✓✓✓\"",
        ];
        for t in values {
            let v = p(t);
            let whole = show(&v, &names, Detail::Short { limit: usize::MAX });
            for limit in 0..whole.len() + 3 {
                assert_eq!(
                    show(&v, &names, Detail::Short { limit }),
                    shorten(&whole, limit),
                    "{t} at {limit}"
                );
            }
        }
    }

    #[test]
    fn floats_are_canonical_across_spellings() {
        let a = show(&p("Vector2(0.707107, 1)"), &names, Detail::Full);
        let b = show(&p("Vector2( 0.70710677, 1.0 )"), &names, Detail::Full);
        assert_eq!(a, "Vector2(0.707107, 1)");
        assert_eq!(a, b);
        assert_eq!(show(&p("2"), &names, Detail::Full), "2");
        assert_eq!(show(&p("2.0"), &names, Detail::Full), "2.0");
        assert_eq!(
            show(
                &p("Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 )"),
                &names,
                Detail::Full
            )
            .split('(')
            .next(),
            Some("Transform3D")
        );
    }

    #[test]
    fn references_are_named() {
        assert_eq!(
            show(
                &p("[ExtResource( 1 ), SubResource(\"x\")]"),
                &names,
                Detail::Full
            ),
            "[ExtResource(e:1), SubResource(s:x)]"
        );
    }

    #[test]
    fn short_summarises_big_packed_arrays_and_cuts() {
        let v = p("PackedVector3Array(1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6)");
        assert_eq!(
            show(&v, &names, Detail::Short { limit: 80 }),
            "PackedVector3Array(5 elements)"
        );
        assert_eq!(
            show(
                &p("PoolIntArray( 1, 2 )"),
                &names,
                Detail::Short { limit: 80 }
            ),
            "PackedInt32Array(1, 2)"
        );
        let long = show(
            &p(&format!("\"{}\"", "a".repeat(300))),
            &names,
            Detail::Short { limit: 40 },
        );
        assert!(long.len() <= 43 && long.ends_with('…'), "{long}");
        let s = show(&p("\"a\nb\""), &names, Detail::Short { limit: 80 });
        assert_eq!(s, "\"a\\nb\"");
        assert_eq!(show(&p("\"a\nb\""), &names, Detail::Full), "\"a\nb\"");
    }

    #[test]
    fn component_names_fall_back_to_indexes() {
        assert_eq!(component_names("Vector3", 3), ["x", "y", "z"]);
        assert_eq!(component_names("Quat", 4)[3], "w");
        assert_eq!(component_names("Foo", 2), ["[0]", "[1]"]);
    }
}
