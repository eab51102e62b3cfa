//! A small reader of container literals that keeps each item's text as written, and the
//! writers that put items back together in the editor's layout.
//!
//! Merged values reuse the untouched items' bytes, so a merge of a value with itself is a
//! byte-for-byte no-op. Decoding an item's meaning is left to `crate::value::parse`.

use crate::value::{parse, Value};

/// A container literal cut into its top-level items, each as written (trimmed).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape<'a> {
    /// `[a, b]`.
    Array(Vec<&'a str>),
    /// `{k: v, ...}`.
    Dict(Vec<(&'a str, &'a str)>),
    /// `Name(a, b)`: packed arrays and constructors.
    Call(&'a str, Vec<&'a str>),
}

/// Cut a value into its top-level items; `None` for scalars, typed containers, comments or
/// anything unbalanced.
pub(crate) fn shape(text: &str) -> Option<Shape<'_>> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return Some(Shape::Array(split(inner, b',')?));
    }
    if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let entries = split(inner, b',')?
            .into_iter()
            .map(|e| {
                let at = top_level_colon(e)?;
                Some((e.get(..at)?.trim(), e.get(at + 1..)?.trim()))
            })
            .collect::<Option<Vec<_>>>()?;
        return Some(Shape::Dict(entries));
    }
    let open = t.find('(')?;
    let name = &t[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let inner = t[open + 1..].strip_suffix(')')?;
    Some(Shape::Call(name, split(inner, b',')?))
}

/// Byte offsets of every top-level `sep` in `s` (outside strings and brackets); `None` when
/// brackets do not balance or a comment appears.
fn separators(s: &str, sep: u8) -> Option<Vec<usize>> {
    let b = s.as_bytes();
    let (mut depth, mut i, mut out) = (0usize, 0usize, Vec::new());
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = string_end(b, i);
                if i >= b.len() {
                    return None;
                }
            }
            b'[' | b'{' | b'(' => depth += 1,
            b']' | b'}' | b')' => depth = depth.checked_sub(1)?,
            b';' => return None,
            c if c == sep && depth == 0 => out.push(i),
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some(out)
}

/// Offset of the `"` that closes the string opening at `open` (escapes skipped), or
/// at least `b.len()` when the string never closes.
fn string_end(b: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i
}

fn top_level_colon(s: &str) -> Option<usize> {
    separators(s, b':')?.first().copied()
}

/// Items between top-level separators, trimmed; an empty body gives no items.
fn split(s: &str, sep: u8) -> Option<Vec<&str>> {
    if s.trim().is_empty() {
        return Some(Vec::new());
    }
    let cuts = separators(s, sep)?;
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for c in cuts.into_iter().chain(std::iter::once(s.len())) {
        out.push(s.get(from..c)?.trim());
        from = c + 1;
    }
    if sep == b',' && out.iter().any(|i| i.is_empty()) {
        return None;
    }
    Some(out)
}

/// How a value is spelled, read from a side's text so a merge writes what that side's
/// editor wrote (a `format=2` header can hold Godot 4 text, files can have CRLF ends).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spelling {
    /// Godot 3 spacing: `[ a ]`, `Name( a )`.
    pub spaced: bool,
    /// Line ends inside dictionaries.
    pub newline: &'static str,
    /// An empty dictionary: `{}`, `{\n\n}` (Godot 3) or as the sample wrote it.
    pub empty_dict: String,
}

impl Spelling {
    /// The spelling of `sample` (usually ours), falling back on the file's dialect.
    pub(crate) fn of(godot3: bool, sample: &str) -> Spelling {
        let b = sample.as_bytes();
        let opener = separators_any(sample, b"([").and_then(|at| b.get(at + 1).copied());
        let newline = if sample.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let empty_dict = match shape(sample) {
            Some(Shape::Dict(e)) if e.is_empty() => sample.trim().to_string(),
            _ if godot3 => format!("{{{newline}{newline}}}"),
            _ => "{}".to_string(),
        };
        Spelling {
            spaced: opener.map_or(godot3, |c| c == b' '),
            newline,
            empty_dict,
        }
    }
}

/// Offset of the first byte in `set` outside strings.
fn separators_any(s: &str, set: &[u8]) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = string_end(b, i),
            c if set.contains(&c) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `[a, b]` or, spaced, `[ a, b ]`; empty `[]` / `[  ]`.
pub(crate) fn write_array<S: AsRef<str>>(items: &[S], sp: &Spelling) -> String {
    wrap("[", items, "]", sp.spaced)
}

/// `Name(a, b)` or, spaced, `Name( a, b )`; empty `Name()` / `Name(  )`.
pub(crate) fn write_call<S: AsRef<str>>(name: &str, items: &[S], sp: &Spelling) -> String {
    wrap(&format!("{name}("), items, ")", sp.spaced)
}

fn wrap<S: AsRef<str>>(open: &str, items: &[S], close: &str, spaced: bool) -> String {
    let body: Vec<&str> = items.iter().map(|s| s.as_ref()).collect();
    let pad = if spaced { " " } else { "" };
    if body.is_empty() {
        return format!("{open}{pad}{pad}{close}");
    }
    format!("{open}{pad}{}{pad}{close}", body.join(", "))
}

/// `{\n"k": v,\n"k2": v2\n}` (with the sample's line ends); empty as [`Spelling`] says.
pub(crate) fn write_dict<K: AsRef<str>, V: AsRef<str>>(
    entries: &[(K, V)],
    sp: &Spelling,
) -> String {
    if entries.is_empty() {
        return sp.empty_dict.clone();
    }
    let nl = sp.newline;
    let lines: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}: {}", k.as_ref(), v.as_ref()))
        .collect();
    format!("{{{nl}{}{nl}}}", lines.join(&format!(",{nl}")))
}

/// Whether two item texts mean the same value (engine equality; identical text is equal).
pub(crate) fn same_value(a: &str, b: &str) -> bool {
    a == b
        || match (parse(a), parse(b)) {
            (Ok(x), Ok(y)) => crate::value::sem_eq_top(&x, &y),
            _ => false,
        }
}

/// The decoded text of a String or StringName item, `None` for anything else.
pub(crate) fn string_of(item: &str) -> Option<String> {
    match parse(item).ok()? {
        Value::String(s) | Value::StringName(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_hide_separators_and_escaped_quotes_from_both_scanners() {
        let s = r#"["a,\"b(", c]"#;
        assert_eq!(string_end(s.as_bytes(), 1), 8);
        assert_eq!(separators(&s[1..s.len() - 1], b','), Some(vec![8]));
        assert_eq!(separators("\"open, x", b','), None);
        assert_eq!(separators_any(r#""(\"[" ( x"#, b"(["), Some(7));
        assert_eq!(separators_any(r#""never closed ["#, b"(["), None);
        assert_eq!(string_end(br#""ends with \"#, 0), 13);
    }
}
