//! A stable, readable projection of a scene for git's `textconv`, so that `git log -p`,
//! `git blame`, `git log -S` and `--word-diff` show what changed and little else.
//!
//! It decides what counts as re-save noise and hides it, line for line:
//! - every input line gives exactly one output line, in file order (blame stays exact);
//! - tag fields that change on a re-save without changing the scene are dropped:
//!   `load_steps`, `unique_id`, the 4.6 id paths (`parent_id_path`, `owner_uid_path`,
//!   `from_uid_path`, `to_uid_path`), and an ext_resource's `id` and `uid`;
//! - `ExtResource("1_abc")` prints as `ExtResource(res://player.gd)` (the path it names);
//!   sub_resource ids are the file's own (`SubResource("RectangleShape2D_sfy7j")`), so a
//!   search for an id finds it;
//! - floats print with 6 significant digits (`0.70710677` and `0.707107` agree), legacy
//!   constructor names in their Godot 4 spelling (`Quat` -> `Quaternion`, `PoolIntArray`
//!   -> `PackedInt32Array`), and spacing inside brackets as Godot 4 writes it.
//!
//! Values are rewritten token by token, never decoded: strings, comments and line breaks
//! pass through untouched, which keeps the projection as fast as the splitter. Reading
//! the file and printing are the binary's job.

use crate::model::{field_text, id_text};
use crate::syntax::{Document, Section};
use crate::value::{canonical_ctor_name, PackedKind};
use std::collections::BTreeMap;

/// Tag fields dropped from every section: they change on a re-save, the scene does not.
const NOISE_FIELDS: [&str; 6] = [
    "load_steps",
    "unique_id",
    "parent_id_path",
    "owner_uid_path",
    "from_uid_path",
    "to_uid_path",
];

/// Fields dropped from `[ext_resource]` tags: references print the path instead.
const EXT_NOISE_FIELDS: [&str; 2] = ["id", "uid"];

/// The textconv projection of a parsed file.
pub fn textconv(doc: &Document) -> String {
    let p = Projector {
        ext_paths: ext_paths(doc),
    };
    let text = doc.text.as_str();
    let mut out = String::with_capacity(text.len());
    let mut at = if doc.has_bom() {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    for s in &doc.sections {
        at = p.section(text, s, at, &mut out);
    }
    out.push_str(&text[at.min(text.len())..]);
    out
}

/// ext_resource id -> path, as the loader resolves `ExtResource(id)`.
fn ext_paths(doc: &Document) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for s in doc.sections.iter().filter(|s| s.tag.name == "ext_resource") {
        if let (Some(id), Some(path)) = (s.tag.field("id"), s.tag.field("path")) {
            out.insert(id_text(doc.slice(&id)), field_text(doc, &path));
        }
    }
    out
}

/// The state of one projection: what ext_resource ids name.
struct Projector {
    ext_paths: BTreeMap<String, String>,
}

impl Projector {
    /// Project one section: the text from `at` through its last value; returns where the
    /// verbatim copy resumes.
    fn section(&self, text: &str, s: &Section, mut at: usize, out: &mut String) -> usize {
        let dropped: &[&str] = if s.tag.name == "ext_resource" {
            &EXT_NOISE_FIELDS
        } else {
            &[]
        };
        let mut prev = s.tag.span.start() + 1;
        for f in &s.tag.fields {
            let key = f.key.as_str();
            if NOISE_FIELDS.contains(&key) || dropped.contains(&key) {
                let start = field_start(text, prev, f.value.start(), key).max(at);
                out.push_str(&text[at..start]);
                keep_line_breaks(&text[start..f.value.end()], out);
            } else {
                out.push_str(&text[at..f.value.start()]);
                self.value(&text[f.value.range()], out);
            }
            at = f.value.end();
            prev = f.value.end();
        }
        for p in &s.props {
            out.push_str(&text[at..p.value.start()]);
            self.value(&text[p.value.range()], out);
            at = p.value.end();
        }
        at
    }

    /// Rewrite one value token by token (see the module doc).
    fn value(&self, raw: &str, out: &mut String) {
        let b = raw.as_bytes();
        let mut i = 0;
        let mut last = 0u8;
        while i < b.len() {
            let c = b[i];
            let start = i;
            i = match c {
                b'"' => string_end(b, i),
                b';' => memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n),
                _ if c <= b' ' => {
                    let end = b[i..]
                        .iter()
                        .position(|&x| x > b' ')
                        .map_or(b.len(), |n| i + n);
                    space(&raw[i..end], last, b.get(end).copied(), out);
                    last = b' ';
                    i = end;
                    continue;
                }
                _ if c.is_ascii_alphabetic() || c == b'_' => {
                    let end = ident_end(b, i);
                    i = self.ident(raw, i, end, out);
                    last = b'a';
                    continue;
                }
                _ if starts_number(b, i) => {
                    let end = number_end(b, i);
                    number(&raw[i..end], out);
                    last = b'0';
                    i = end;
                    continue;
                }
                _ => i + utf8_len(c),
            };
            out.push_str(&raw[start..i.min(b.len())]);
            last = c;
        }
    }

    /// An identifier at `start..end`: `ExtResource(id)` resolved, legacy names renamed.
    /// Returns where the next token starts.
    fn ident(&self, raw: &str, start: usize, end: usize, out: &mut String) -> usize {
        let name = &raw[start..end];
        if name == "ExtResource" {
            if let Some((id, after)) = call_argument(raw, end) {
                if let Some(path) = self.ext_paths.get(&id_text(id)) {
                    out.push_str("ExtResource(");
                    out.push_str(path);
                    out.push(')');
                    return after;
                }
            }
        }
        if name == "inf_neg" {
            out.push_str("-inf");
        } else if let Some(k) = PackedKind::from_name(name) {
            out.push_str(k.name());
        } else {
            out.push_str(canonical_ctor_name(name));
        }
        end
    }
}

/// Where the field whose value starts at `value_start` begins, whitespace before it
/// included: the key is the last occurrence of `key` after `prev`.
fn field_start(text: &str, prev: usize, value_start: usize, key: &str) -> usize {
    let region = &text[prev..value_start];
    match region.rfind(key) {
        Some(k) => prev + region[..k].trim_end().len(),
        None => value_start,
    }
}

/// The line breaks of dropped text, so that lines keep their numbers.
fn keep_line_breaks(dropped: &str, out: &mut String) {
    for _ in dropped.bytes().filter(|&b| b == b'\n') {
        out.push('\n');
    }
}

/// Whitespace between tokens: line breaks as written; otherwise none just inside a
/// bracket or before a comma, else one space.
fn space(ws: &str, last: u8, next: Option<u8>, out: &mut String) {
    if ws.contains('\n') {
        out.push_str(ws);
        return;
    }
    let inner = matches!(last, b'(' | b'[' | b'{' | 0)
        || matches!(next, None | Some(b')' | b']' | b'}' | b','));
    if !inner {
        out.push(' ');
    }
}

/// End (exclusive) of the string literal opening at `i`; the rest of the value when it
/// is not closed.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

fn ident_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&x| !(x.is_ascii_alphanumeric() || x == b'_'))
        .map_or(b.len(), |n| i + n)
}

/// Bytes in the UTF-8 sequence a lead byte opens (1 for a stray continuation byte, which
/// a `&str` never starts a character with).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// `( id )` after `ExtResource`, with the id's text and where the call ends.
fn call_argument(raw: &str, at: usize) -> Option<(&str, usize)> {
    let rest = &raw[at..];
    let open = rest.len() - rest.trim_start().len();
    let inner = rest[open..].strip_prefix('(')?;
    let close = if inner.trim_start().starts_with('"') {
        let lead = inner.len() - inner.trim_start().len();
        let end = string_end(inner.as_bytes(), lead);
        end + inner[end..].find(')')?
    } else {
        inner.find(')')?
    };
    let id = inner[..close].trim();
    let end = at + open + 1 + close + 1;
    // A call over several lines stays as written: it would take lines away.
    if id.is_empty() || raw[at..end].contains('\n') {
        return None;
    }
    if !id.starts_with('"') && id.contains(|c: char| c.is_whitespace()) {
        return None;
    }
    Some((id, end))
}

/// A number starts here: a digit, or a sign or point followed by one.
fn starts_number(b: &[u8], i: usize) -> bool {
    let digit = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
    match b[i] {
        b'0'..=b'9' => true,
        b'.' => digit(i + 1),
        b'-' | b'+' => digit(i + 1) || (b.get(i + 1) == Some(&b'.') && digit(i + 2)),
        _ => false,
    }
}

/// End of the number starting at `i`: sign, digits, fraction, exponent.
fn number_end(b: &[u8], i: usize) -> usize {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = if matches!(b[i], b'-' | b'+') {
        i + 1
    } else {
        i
    };
    j = digits(j);
    if b.get(j) == Some(&b'.') {
        j = digits(j + 1);
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let k = if matches!(b.get(j + 1), Some(b'-' | b'+')) {
            j + 2
        } else {
            j + 1
        };
        if b.get(k).is_some_and(u8::is_ascii_digit) {
            j = digits(k);
        }
    }
    j
}

/// A number token: integers as written, floats with 6 significant digits (and still
/// spelled as floats: `4.0`, not `4`).
fn number(tok: &str, out: &mut String) {
    if !tok.contains(['.', 'e', 'E']) || already_canonical(tok) {
        out.push_str(tok);
        return;
    }
    match tok.parse::<f64>() {
        Ok(x) if x.is_finite() => {
            let mut s = crate::write::g6_signed(x);
            if !s.contains(['.', 'e']) {
                s.push_str(".0");
            }
            out.push_str(&s);
        }
        _ => out.push_str(tok),
    }
}

/// Whether a float token already reads as `%g` with 6 significant digits prints it (the
/// common case, which then costs no float parsing): `[-]I.F`, at most 6 significant
/// digits, no redundant zero, within `%g`'s fixed-point range, not zero.
fn already_canonical(tok: &str) -> bool {
    let t = tok.strip_prefix('-').unwrap_or(tok);
    let Some((int, frac)) = t.split_once('.') else {
        return false;
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !all_digits(frac) {
        return false;
    }
    if int == "0" {
        let zeros = frac.len() - frac.trim_start_matches('0').len();
        let sig = frac.len() - zeros;
        sig > 0 && zeros <= 3 && sig <= 6 && !frac.ends_with('0')
    } else {
        !int.starts_with('0')
            && (frac == "0" || (!frac.ends_with('0') && int.len() + frac.len() <= 6))
            && int.len() <= 6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"[gd_scene load_steps=4 format=3 uid="uid://s"]

[ext_resource type="Script" path="res://player.gd" id="1_abc"]
[ext_resource type="Texture2D" uid="uid://tex" path="res://icon.png" id="2_def"]

[sub_resource type="CircleShape2D" id="CircleShape2D_aaaaa"]
radius = 0.707107

[sub_resource type="RectangleShape2D" id="RectangleShape2D_sfy7j"]
size = Vector2(1, 2)

[node name="Root" type="Node2D" unique_id=5]
script = ExtResource("1_abc")
text = "two
lines; not a comment 0.70710677"

[node name="Box" type="CollisionShape2D" parent="." unique_id=6]
shape = SubResource("RectangleShape2D_sfy7j")

[node name="Ball" type="CollisionShape2D" parent="." unique_id=7]
shape = SubResource("CircleShape2D_aaaaa")

[connection signal="a" from="." to="." method="b" from_uid_path=PackedInt32Array(5)]
"#;

    fn tc(s: &str) -> String {
        textconv(&Document::parse(s.as_bytes()).unwrap())
    }

    #[test]
    fn resolves_ext_ids_keeps_sub_ids_and_drops_noise() {
        let t = tc(A);
        assert!(
            t.starts_with("[gd_scene format=3 uid=\"uid://s\"]\n"),
            "{t}"
        );
        assert!(t.contains("script = ExtResource(res://player.gd)\n"), "{t}");
        assert!(t.contains("[ext_resource type=\"Texture2D\" path=\"res://icon.png\"]\n"));
        assert!(
            t.contains("[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_sfy7j\"]")
        );
        assert!(
            t.contains("shape = SubResource(\"RectangleShape2D_sfy7j\")\n"),
            "{t}"
        );
        assert!(t.contains("[node name=\"Box\" type=\"CollisionShape2D\" parent=\".\"]\n"));
        assert!(t.contains("[connection signal=\"a\" from=\".\" to=\".\" method=\"b\"]\n"));
        for gone in [
            "unique_id",
            "1_abc",
            "from_uid_path",
            "load_steps",
            "uid://tex",
        ] {
            assert!(!t.contains(gone), "{gone} in {t}");
        }
    }

    #[test]
    fn one_output_line_per_input_line() {
        let t = tc(A);
        assert_eq!(t.lines().count(), A.lines().count(), "{t}");
        for (i, o) in A.lines().zip(t.lines()) {
            let head = |l: &str| l.split([' ', '=']).next().unwrap_or("").to_string();
            assert_eq!(head(i), head(o), "{i} -> {o}");
        }
    }

    #[test]
    fn strings_pass_through_untouched() {
        assert!(tc(A).contains("text = \"two\nlines; not a comment 0.70710677\"\n"));
    }

    #[test]
    fn resave_noise_projects_the_same() {
        let b = A
            .replace("load_steps=4 ", "")
            .replace("1_abc", "1_xyz")
            .replace("radius = 0.707107", "radius = 0.70710677")
            .replace(" unique_id=5", " unique_id=99")
            .replace("Vector2(1, 2)", "Vector2( 1, 2 )");
        assert_eq!(tc(A), tc(&b));
    }

    #[test]
    fn real_changes_show() {
        let b = A.replace("size = Vector2(1, 2)", "size = Vector2(1, 3)");
        assert!(tc(&b).contains("size = Vector2(1, 3)"));
        let b = A.replace("radius = 0.707107", "radius = 0.7072");
        assert!(tc(&b).contains("radius = 0.7072\n"));
    }

    #[test]
    fn godot3_spelling() {
        let g3 = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://a.gd\" type=\"Script\" id=1]\n\n[node name=\"A\" type=\"Spatial\"]\nscript = ExtResource( 1 )\ntransform = Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 1e-05, -1.0 )\nq = Quat( 0, 0, 0, 1 )\na = PoolIntArray( 1, 2 )\nb = [ 1, 2 ]\nc = inf_neg\n";
        let t = tc(g3);
        assert!(t.contains("script = ExtResource(res://a.gd)\n"), "{t}");
        assert!(
            t.contains("transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 1e-05, -1.0)\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "q = Quaternion(0, 0, 0, 1)\na = PackedInt32Array(1, 2)\nb = [1, 2]\nc = -inf\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn unknown_ext_ids_and_odd_calls_are_kept() {
        let s = "[gd_scene format=3]\n\n[ext_resource path=\"res://a.gd\" type=\"Script\" id=\"1\"]\n\n[node name=\"A\" type=\"Node\"]\na = ExtResource(\"9_zz\")\nb = ExtResource\nc = ExtResource(\ncall\n)\nd = ExtResource(\n\"1\"\n)\n";
        let t = tc(s);
        assert!(
            t.contains("a = ExtResource(\"9_zz\")\nb = ExtResource\n"),
            "{t}"
        );
        assert_eq!(t.lines().count(), s.lines().count());
    }

    #[test]
    fn the_fast_float_path_agrees_with_formatting() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200_000 {
            let digits = (next() % 9) as usize + 1;
            let m = next() % 10u64.pow(digits as u32);
            let point = (next() % (digits as u64 + 2)) as usize;
            let s = format!("{m:0digits$}");
            let (i, f) = s.split_at(point.min(s.len()));
            let tok = format!(
                "{}{}.{}",
                if next() % 2 == 0 { "-" } else { "" },
                if i.is_empty() { "0" } else { i },
                if f.is_empty() { "0" } else { f }
            );
            if already_canonical(&tok) {
                let x: f64 = tok.parse().unwrap();
                let mut g = crate::write::g6_signed(x);
                if !g.contains(['.', 'e']) {
                    g.push_str(".0");
                }
                assert_eq!(g, tok);
            }
        }
        assert!(
            already_canonical("0.5") && already_canonical("-12.25") && already_canonical("4.0")
        );
        assert!(
            !already_canonical("0.70710677")
                && !already_canonical("4.50")
                && !already_canonical("0.00001")
        );
    }
}
