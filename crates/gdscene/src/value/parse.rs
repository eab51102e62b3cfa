//! pest-based parser for values and whole files (spec §1–§3, §7).
//!
//! Pest pairs are converted to our own structures at once: pest keeps roughly 15x the
//! input size alive while its pair queue exists.

use super::{OutlineSection, Packed, PackedBody, ResId, TypeRef, Value, ValueError, MAX_DEPTH};
use pest::iterators::Pair;
use pest::Parser;

/// The pest-generated parser for `grammar/tscn.pest`.
#[derive(pest_derive::Parser)]
#[grammar = "../grammar/tscn.pest"]
pub(crate) struct TscnParser;

/// Reject nesting deeper than [`MAX_DEPTH`] before pest (which recurses) sees the text.
/// String- and comment-aware; counts `[`, `{` and `(`.
pub(crate) fn check_depth(text: &str) -> Result<(), ValueError> {
    if few_openers(text.as_bytes()) {
        return Ok(());
    }
    walk_depth(text)
}

/// [`check_depth`] the long way: every byte, strings and comments skipped.
fn walk_depth(text: &str) -> Result<(), ValueError> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' | b'{' | b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(ValueError::new(
                        i,
                        format!("nesting no deeper than {MAX_DEPTH} levels"),
                    ));
                }
            }
            b']' | b'}' | b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Whether `text` holds at most [`MAX_DEPTH`] opening brackets in all, so that no nesting
/// can pass the limit: one vectorised count instead of the byte by byte walk (a mesh's
/// 10 MB value has half a dozen brackets; strings and comments only count more).
fn few_openers(text: &[u8]) -> bool {
    let round = memchr::memchr2_iter(b'(', b'[', text);
    let curly = memchr::memchr_iter(b'{', text);
    round.take(MAX_DEPTH + 1).count() + curly.take(MAX_DEPTH + 1).count() <= MAX_DEPTH
}

fn rule_name(r: &Rule) -> &'static str {
    match r {
        Rule::EOI => "end of input",
        Rule::file => "file",
        Rule::tag => "`[tag ...]`",
        Rule::tag_name => "tag name",
        Rule::field => "field `name=value`",
        Rule::prop => "property `key = value`",
        Rule::bare_key | Rule::orphan => "property key",
        Rule::value => "value",
        Rule::ident => "identifier",
        Rule::number => "number",
        Rule::keyword => "keyword",
        Rule::string => "string",
        Rule::string_name => "StringName",
        Rule::color => "color",
        Rule::array => "array",
        Rule::dict => "dictionary",
        Rule::pair => "`key: value`",
        Rule::packed => "packed array",
        Rule::packed_name => "packed array name",
        Rule::packed_body => "packed array elements",
        Rule::typed_array => "typed array",
        Rule::typed_dict => "typed dictionary",
        Rule::type_ref => "type",
        Rule::object => "Object(...)",
        Rule::ctor => "constructor",
        _ => "token",
    }
}

fn from_pest(e: pest::error::Error<Rule>) -> ValueError {
    let offset = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let expected = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let mut names: Vec<&str> = positives.iter().map(rule_name).collect();
            names.dedup();
            names.join(" or ")
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
        _ => "valid syntax".to_string(),
    };
    ValueError { offset, expected }
}

/// Parse exactly one value (see [`super::parse`]).
pub(crate) fn parse_value(text: &str) -> Result<Value, ValueError> {
    check_depth(text)?;
    let mut pairs = TscnParser::parse(Rule::value_only, text).map_err(from_pest)?;
    match pairs.next() {
        Some(p) => convert(p),
        None => Err(ValueError::new(0, "value")),
    }
}

/// Parse a whole file into an outline (see [`super::outline`]).
pub(crate) fn parse_outline(text: &str) -> Result<Vec<OutlineSection>, ValueError> {
    check_depth(text)?;
    let file = TscnParser::parse(Rule::file, text)
        .map_err(from_pest)?
        .next()
        .ok_or_else(|| ValueError::new(0, "file"))?;
    let mut out: Vec<OutlineSection> = Vec::new();
    for p in file.into_inner() {
        match p.as_rule() {
            Rule::tag => {
                let start = p.as_span().start();
                let mut inner = p.into_inner();
                let name = inner
                    .next()
                    .map(|n| n.as_str().to_string())
                    .unwrap_or_default();
                let mut fields = Vec::new();
                for f in inner {
                    let mut fi = f.into_inner();
                    if let (Some(k), Some(v)) = (fi.next(), fi.next()) {
                        let s = v.as_span();
                        fields.push((k.as_str().to_string(), s.start()..s.end()));
                    }
                }
                out.push(OutlineSection {
                    start,
                    name,
                    fields,
                    props: Vec::new(),
                });
            }
            Rule::prop => {
                let mut pi = p.into_inner();
                if let (Some(k), Some(v)) = (pi.next(), pi.next()) {
                    let key = match k.as_rule() {
                        Rule::string => decode_string(k.as_str(), k.as_span().start())?,
                        _ => k.as_str().chars().filter(|&c| c > ' ').collect(),
                    };
                    let s = v.as_span();
                    if let Some(sec) = out.last_mut() {
                        sec.props.push((key, s.start()..s.end()));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Decode a `"..."` token (quotes included) with the escapes of §1.7.
/// `base` is the token's offset in the parsed text, for error positions.
pub(crate) fn decode_string(tok: &str, base: usize) -> Result<String, ValueError> {
    let body = tok
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| ValueError::new(base, "string"))?;
    if !body.contains('\\') {
        return Ok(body.to_string());
    }
    let mut out = String::with_capacity(body.len());
    let mut it = body.char_indices().peekable();
    let mut pending_high: Option<(u32, usize)> = None;
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            if let Some((_, at)) = pending_high.take() {
                return Err(ValueError::new(base + 1 + at, "low surrogate escape"));
            }
            out.push(c);
            continue;
        }
        let Some((_, e)) = it.next() else {
            return Err(ValueError::new(base + 1 + i, "escape character"));
        };
        let hex_len = match e {
            'u' => 4,
            'U' => 6,
            _ => 0,
        };
        if hex_len == 0 {
            if let Some((_, at)) = pending_high.take() {
                return Err(ValueError::new(base + 1 + at, "low surrogate escape"));
            }
            out.push(match e {
                'b' => '\u{8}',
                't' => '\t',
                'n' => '\n',
                'f' => '\u{c}',
                'r' => '\r',
                other => other,
            });
            continue;
        }
        let mut cp: u32 = 0;
        for _ in 0..hex_len {
            match it.next() {
                Some((_, h)) if h.is_ascii_hexdigit() => cp = cp * 16 + h.to_digit(16).unwrap_or(0),
                Some((j, _)) => return Err(ValueError::new(base + 1 + j, "hex digit")),
                None => return Err(ValueError::new(base + tok.len() - 1, "hex digit")),
            }
        }
        if (0xD800..0xDC00).contains(&cp) {
            if pending_high.is_some() {
                return Err(ValueError::new(base + 1 + i, "low surrogate escape"));
            }
            pending_high = Some((cp, i));
            continue;
        }
        if (0xDC00..0xE000).contains(&cp) {
            let Some((hi, _)) = pending_high.take() else {
                return Err(ValueError::new(
                    base + 1 + i,
                    "high surrogate before low surrogate",
                ));
            };
            cp = 0x10000 + ((hi - 0xD800) << 10) + (cp - 0xDC00);
        } else if let Some((_, at)) = pending_high.take() {
            return Err(ValueError::new(base + 1 + at, "low surrogate escape"));
        }
        match char::from_u32(cp) {
            Some(ch) => out.push(ch),
            None => return Err(ValueError::new(base + 1 + i, "valid code point")),
        }
    }
    if let Some((_, at)) = pending_high {
        return Err(ValueError::new(base + 1 + at, "low surrogate escape"));
    }
    Ok(out)
}

/// Decode a number token (§1.5): int unless it holds `.` or an exponent.
pub(crate) fn decode_number(tok: &str, at: usize) -> Result<Value, ValueError> {
    if !tok.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return tok
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| ValueError::new(at, "integer within 64 bits"));
    }
    decode_float(tok)
        .map(Value::Float)
        .ok_or_else(|| ValueError::new(at, "number"))
}

/// Float text as the engine reads it: also accepts `1.`, `1e`, `1e+` (empty exponent = 0)
/// and the special spellings `inf`, `nan`, `-inf`, `inf_neg`.
pub(crate) fn decode_float(tok: &str) -> Option<f64> {
    match tok {
        "inf" => return Some(f64::INFINITY),
        "-inf" | "inf_neg" => return Some(f64::NEG_INFINITY),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    if let Ok(x) = tok.parse::<f64>() {
        return Some(x);
    }
    // Rust rejects an empty exponent; the engine reads it as 0.
    let t = tok.trim_end_matches(['+', '-']);
    let t = t.trim_end_matches(['e', 'E']);
    if t.len() < tok.len() {
        return t.parse::<f64>().ok();
    }
    None
}

fn resid_from(v: Value, at: usize) -> Result<ResId, ValueError> {
    match v {
        Value::Int(i) => Ok(ResId::Int(i)),
        Value::String(s) => Ok(ResId::Str(s)),
        _ => Err(ValueError::new(at, "resource id (string or integer)")),
    }
}

/// Argument count per known constructor: (min, max, numeric-only).
fn ctor_arity(name: &str) -> Option<(usize, usize, bool)> {
    Some(match name {
        "Vector2" | "Vector2i" => (2, 2, true),
        "Vector3" | "Vector3i" => (3, 3, true),
        "Vector4" | "Vector4i" => (4, 4, true),
        "Rect2" | "Rect2i" | "Plane" | "Quaternion" | "Quat" | "Color" => (4, 4, true),
        "Transform2D" | "Matrix32" | "AABB" | "Rect3" => (6, 6, true),
        "Basis" | "Matrix3" => (9, 9, true),
        "Transform3D" | "Transform" => (12, 12, true),
        "Projection" => (16, 16, true),
        "RID" => (0, 1, true),
        "Signal" | "Callable" => (0, 0, true),
        "Resource" => (1, 2, false),
        _ => return None,
    })
}

fn convert(p: Pair<Rule>) -> Result<Value, ValueError> {
    let at = p.as_span().start();
    match p.as_rule() {
        Rule::string => decode_string(p.as_str(), at).map(Value::String),
        Rule::string_name => decode_string(&p.as_str()[1..], at + 1).map(Value::StringName),
        Rule::number => decode_number(p.as_str(), at),
        Rule::keyword => Ok(match p.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" | "nil" => Value::Null,
            "inf" => Value::Float(f64::INFINITY),
            "nan" => Value::Float(f64::NAN),
            _ => Value::Float(f64::NEG_INFINITY),
        }),
        Rule::color => {
            let hex = &p.as_str()[1..];
            if matches!(hex.len(), 3 | 4 | 6 | 8) {
                Ok(Value::Color(hex.to_string()))
            } else {
                Err(ValueError::new(at, "color with 3, 4, 6 or 8 hex digits"))
            }
        }
        Rule::array => p
            .into_inner()
            .map(convert)
            .collect::<Result<_, _>>()
            .map(Value::Array),
        Rule::dict => convert_pairs(p).map(Value::Dict),
        Rule::packed => convert_packed(p, at),
        Rule::typed_array => {
            let mut it = p.into_inner();
            let elem = convert_typeref(it.next())?;
            let items = match it.next() {
                Some(a) => a.into_inner().map(convert).collect::<Result<_, _>>()?,
                None => Vec::new(),
            };
            Ok(Value::TypedArray { elem, items })
        }
        Rule::typed_dict => {
            let mut it = p.into_inner();
            let key = convert_typeref(it.next())?;
            let value = convert_typeref(it.next())?;
            let entries = match it.next() {
                Some(d) => convert_pairs(d)?,
                None => Vec::new(),
            };
            Ok(Value::TypedDict {
                key,
                value,
                entries,
            })
        }
        Rule::object => convert_object(p),
        Rule::ctor => convert_ctor(p, at),
        _ => Err(ValueError::new(at, "value")),
    }
}

/// A packed array: its name and its body, kept as text (a byte array's base64 string
/// decoded); the elements are read when asked for.
fn convert_packed(p: Pair<Rule>, at: usize) -> Result<Value, ValueError> {
    let mut it = p.into_inner();
    let name = it
        .next()
        .map(|n| n.as_str().to_string())
        .unwrap_or_default();
    let body = it.next().map(|b| b.as_str()).unwrap_or("");
    let trimmed = body.trim_matches(|c: char| c <= ' ');
    let is_bytes = matches!(
        name.as_str(),
        "PackedByteArray" | "PoolByteArray" | "ByteArray"
    );
    let body = if is_bytes && trimmed.starts_with('"') {
        PackedBody::Base64(decode_string(trimmed, at)?)
    } else {
        PackedBody::List(body.to_string())
    };
    Ok(Value::Packed(Packed { name, body }))
}

/// An `Object(class, "key": value, ...)`.
fn convert_object(p: Pair<Rule>) -> Result<Value, ValueError> {
    let mut it = p.into_inner();
    let class = it
        .next()
        .map(|c| c.as_str().to_string())
        .unwrap_or_default();
    let mut props = Vec::new();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        let key = decode_string(k.as_str(), k.as_span().start())?;
        props.push((key, convert(v)?));
    }
    Ok(Value::Object { class, props })
}

/// A constructor and its arguments, checked by [`finish_ctor`].
fn convert_ctor(p: Pair<Rule>, at: usize) -> Result<Value, ValueError> {
    let mut it = p.into_inner();
    let name = it
        .next()
        .map(|c| c.as_str().to_string())
        .unwrap_or_default();
    let mut args = Vec::new();
    let mut arg_at = Vec::new();
    for a in it {
        arg_at.push(a.as_span().start());
        args.push(convert(a)?);
    }
    finish_ctor(name, args, &arg_at, at)
}

fn finish_ctor(
    name: String,
    mut args: Vec<Value>,
    arg_at: &[usize],
    at: usize,
) -> Result<Value, ValueError> {
    match name.as_str() {
        "ExtResource" | "SubResource" => {
            if args.len() != 1 {
                return Err(ValueError::new(
                    at,
                    format!("{name}(id) with exactly one id"),
                ));
            }
            let id = resid_from(args.remove(0), arg_at[0])?;
            return Ok(if name == "ExtResource" {
                Value::ExtResource(id)
            } else {
                Value::SubResource(id)
            });
        }
        "NodePath" => {
            return match args.pop() {
                Some(Value::String(s)) if args.is_empty() => Ok(Value::NodePath(s)),
                _ => Err(ValueError::new(
                    at,
                    "NodePath(\"path\") with one plain string",
                )),
            };
        }
        _ => {}
    }
    let Some((min, max, numeric)) = ctor_arity(&name) else {
        return Err(ValueError::new(
            at,
            format!("a known constructor (not `{name}`)"),
        ));
    };
    if args.len() < min || args.len() > max {
        let n = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(ValueError::new(at, format!("{n} arguments for {name}")));
    }
    for (a, &pos) in args.iter().zip(arg_at) {
        let ok = if numeric {
            matches!(a, Value::Int(_) | Value::Float(_))
        } else {
            matches!(a, Value::String(_))
        };
        if !ok {
            return Err(ValueError::new(
                pos,
                if numeric { "number" } else { "string" },
            ));
        }
    }
    Ok(Value::Ctor { name, args })
}

fn convert_pairs(p: Pair<Rule>) -> Result<Vec<(Value, Value)>, ValueError> {
    let mut out = Vec::new();
    for pair in p.into_inner() {
        let mut kv = pair.into_inner();
        if let (Some(k), Some(v)) = (kv.next(), kv.next()) {
            out.push((convert(k)?, convert(v)?));
        }
    }
    Ok(out)
}

fn convert_typeref(p: Option<Pair<Rule>>) -> Result<TypeRef, ValueError> {
    let p = p.ok_or_else(|| ValueError::new(0, "type"))?;
    let at = p.as_span().start();
    let inner = p
        .into_inner()
        .next()
        .ok_or_else(|| ValueError::new(at, "type"))?;
    match inner.as_rule() {
        Rule::ident => Ok(TypeRef::Name(inner.as_str().to_string())),
        _ => match convert(inner)? {
            Value::ExtResource(id) => Ok(TypeRef::Ext(id)),
            Value::SubResource(id) => Ok(TypeRef::Sub(id)),
            Value::Ctor { name, args } if name == "Resource" => Ok(TypeRef::Resource(
                args.into_iter()
                    .filter_map(|a| {
                        if let Value::String(s) = a {
                            Some(s)
                        } else {
                            None
                        }
                    })
                    .collect(),
            )),
            _ => Err(ValueError::new(
                at,
                "type name, ExtResource, SubResource or Resource",
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bracket_count_agrees_with_the_walk() {
        let bytes = [
            b'[', b'(', b'{', b']', b')', b'}', b'"', b';', b'\n', b'a', b'\\',
        ];
        let mut next = crate::test_support::rng(0x2545_F491_4F6C_DD1D);
        let (mut skipped, mut refused) = (0, 0);
        for _ in 0..3000 {
            let len = MAX_DEPTH / 2 + next(MAX_DEPTH * 3);
            // Mostly openers, so that texts near and past the limit are met.
            let text: String = (0..len)
                .map(|_| {
                    bytes[if next(3) == 0 {
                        next(bytes.len())
                    } else {
                        next(3)
                    }] as char
                })
                .collect();
            let walked = walk_depth(&text).map_err(|e| e.offset);
            assert_eq!(check_depth(&text).map_err(|e| e.offset), walked, "{text}");
            skipped += usize::from(few_openers(text.as_bytes()));
            refused += usize::from(walked.is_err());
        }
        assert!(
            skipped > 300 && refused > 100,
            "{skipped} skipped, {refused} refused"
        );
    }
}
