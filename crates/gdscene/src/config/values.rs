//! Three-way merge of one value that both sides changed differently, by its parts:
//! dictionaries key by key (an `[input]` action's `deadzone` and `events`), arrays of
//! strings, input events or `null` as sets (an event is known by its class and the
//! properties that say which key or button it is), arrays of dictionaries that carry a
//! `"class"` (Godot 3's `_global_script_classes`) by class name, and string packed arrays
//! (`[editor_plugins] enabled`, `config/features`) as sets.
//!
//! The merged value is spliced from the sides' own element texts and the layout around
//! them (the text between `[` and the first element, between elements, before `]`), so it
//! reads as the editor wrote it. Returns `None` (a conflict for the caller) whenever two
//! changes cannot both be kept. Which keys reach here is [`super::merge`]'s decision.

use super::syntax::{ConfigParser, Rule};
use crate::value::{self, Value};
use crate::write::{self, Dialect, FloatStyle, Style};
use pest::Parser;

/// One element of a container: its identity, its text, and (dictionaries) the key's text.
#[derive(Debug, Clone)]
struct Elem {
    id: String,
    text: String,
    key_text: Option<String>,
    val_text: String,
}

/// Which kind of container a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Dict,
    Packed,
}

/// A container value as written: `open` + `prefix` + elements joined by `sep` + `suffix` +
/// `close`.
#[derive(Debug, Clone)]
struct Parts {
    kind: Kind,
    open: String,
    prefix: String,
    sep: Option<String>,
    suffix: String,
    close: String,
    elems: Vec<Elem>,
}

/// Merge `ours` and `theirs` (value texts) over `base` (`None`: both added the key).
pub fn merge_value(base: Option<&str>, ours: &str, theirs: &str) -> Option<String> {
    merge_depth(base, ours, theirs, 0)
}

fn merge_depth(base: Option<&str>, ours: &str, theirs: &str, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    let (o, t) = (parts(ours)?, parts(theirs)?);
    let b = match base {
        Some(b) => parts(b)?,
        None => Parts {
            elems: Vec::new(),
            ..o.clone()
        },
    };
    if o.kind != t.kind || b.kind != o.kind || canon_open(&o.open) != canon_open(&t.open) {
        return None;
    }
    let merged = merge_elems(&b.elems, &o.elems, &t.elems, o.kind, depth)?;
    // The layout of the side with the most elements (the best sample of the editor's).
    let layout = [&o, &t, &b]
        .into_iter()
        .max_by_key(|p| (p.elems.len(), p.sep.is_some()))
        .unwrap_or(&o);
    let sep = layout
        .sep
        .clone()
        .unwrap_or_else(|| default_sep(&merged, o.kind));
    let mut out = o.open.clone();
    if !merged.is_empty() {
        out.push_str(&layout.prefix);
        out.push_str(&merged.join(&sep));
        out.push_str(&layout.suffix);
    }
    out.push_str(&o.close);
    Some(out)
}

fn canon_open(open: &str) -> &str {
    value::canonical_ctor_name(open.trim_end_matches('('))
}

fn default_sep(elems: &[String], kind: Kind) -> String {
    match kind {
        Kind::Dict => ",\n".into(),
        Kind::Array if elems.iter().any(|e| e.starts_with("Object(")) => "\n, ".into(),
        _ => ", ".into(),
    }
}

/// The three-way merge of element lists by identity; the merged element texts.
fn merge_elems(
    b: &[Elem],
    o: &[Elem],
    t: &[Elem],
    kind: Kind,
    depth: usize,
) -> Option<Vec<String>> {
    for side in [b, o, t] {
        let mut ids: Vec<&str> = side.iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
    }
    let find = |s: &'_ [Elem], id: &str| s.iter().position(|e| e.id == id);
    let same = |x: &Elem, y: &Elem| super::model::same_value(&x.text, &y.text);
    // (id, text, ours-added)
    let mut out: Vec<(String, String, bool)> = Vec::new();
    for e in o {
        let (bi, ti) = (find(b, &e.id), find(t, &e.id));
        match (bi.map(|i| &b[i]), ti.map(|i| &t[i])) {
            (_, Some(te)) if same(e, te) => out.push((e.id.clone(), e.text.clone(), false)),
            (Some(be), Some(te)) if same(be, e) => out.push((e.id.clone(), te.text.clone(), false)),
            (Some(be), Some(te)) if same(be, te) => out.push((e.id.clone(), e.text.clone(), false)),
            (be, Some(te)) => {
                let text = merge_pair(be, e, te, kind, depth)?;
                out.push((e.id.clone(), text, false));
            }
            (Some(be), None) if same(be, e) => {}
            (Some(_), None) => return None,
            (None, None) => out.push((e.id.clone(), e.text.clone(), true)),
        }
    }
    for (ti, e) in t.iter().enumerate() {
        if find(o, &e.id).is_some() {
            continue;
        }
        match find(b, &e.id) {
            Some(bi) if same(&b[bi], e) => continue,
            Some(_) => return None,
            None => {}
        }
        let pred = t[..ti]
            .iter()
            .rev()
            .find_map(|p| out.iter().position(|x| x.0 == p.id));
        let mut at = pred.map_or(0, |p| p + 1);
        while at < out.len() && out[at].2 {
            at += 1;
        }
        out.insert(at, (e.id.clone(), e.text.clone(), false));
    }
    Some(out.into_iter().map(|x| x.1).collect())
}

/// An element both sides changed: a dictionary entry's value merged in turn, or (a keyed
/// array's dictionary) the element itself merged key by key.
fn merge_pair(b: Option<&Elem>, o: &Elem, t: &Elem, kind: Kind, depth: usize) -> Option<String> {
    let base = b.map(|b| b.val_text.as_str());
    match (kind, &o.key_text) {
        (Kind::Dict, Some(k)) => {
            let merged = merge_depth(base, &o.val_text, &t.val_text, depth + 1)?;
            Some(format!("{k}: {merged}"))
        }
        _ if o.id.starts_with("class ") => merge_depth(base, &o.val_text, &t.val_text, depth + 1),
        // The same event or string spelled differently (another editor version): ours.
        _ => Some(o.text.clone()),
    }
}

/// A value text's parts, when it is a container we know how to merge.
fn parts(text: &str) -> Option<Parts> {
    let mut pairs = ConfigParser::parse(Rule::value_only, text).ok()?;
    let p = pairs.next()?;
    let (start, end) = (p.as_span().start(), p.as_span().end());
    match p.as_rule() {
        Rule::array => {
            let kids: Vec<(usize, usize)> = p
                .into_inner()
                .map(|k| (k.as_span().start(), k.as_span().end()))
                .collect();
            let mut ps = layout(text, start + 1, end - 1, &kids, "[", "]", Kind::Array);
            let vals: Vec<Value> = kids
                .iter()
                .map(|&(s, e)| value::parse(&text[s..e]).ok())
                .collect::<Option<_>>()?;
            let keyed = !vals.is_empty() && vals.iter().all(|v| class_of(v).is_some());
            for (el, v) in ps.elems.iter_mut().zip(&vals) {
                el.id = if keyed {
                    format!("class {}", class_of(v)?)
                } else {
                    set_identity(v)?
                };
            }
            Some(ps)
        }
        Rule::dict => {
            let pairs: Vec<_> = p.into_inner().collect();
            let kids: Vec<(usize, usize)> = pairs
                .iter()
                .map(|k| (k.as_span().start(), k.as_span().end()))
                .collect();
            let mut ps = layout(text, start + 1, end - 1, &kids, "{", "}", Kind::Dict);
            for (el, pair) in ps.elems.iter_mut().zip(pairs) {
                let mut kv = pair.into_inner();
                let (k, v) = (kv.next()?, kv.next()?);
                el.id = canonical(&value::parse(k.as_str()).ok()?);
                el.key_text = Some(k.as_str().to_string());
                el.val_text = v.as_str().to_string();
            }
            Some(ps)
        }
        Rule::packed => packed_parts(p.as_str()),
        _ => None,
    }
}

/// The layout around the elements `kids` (spans) of a container whose inside is
/// `inner_start..inner_end`.
fn layout(
    text: &str,
    inner_start: usize,
    inner_end: usize,
    kids: &[(usize, usize)],
    open: &str,
    close: &str,
    kind: Kind,
) -> Parts {
    let elems = kids
        .iter()
        .map(|&(s, e)| Elem {
            id: String::new(),
            text: text[s..e].to_string(),
            key_text: None,
            val_text: text[s..e].to_string(),
        })
        .collect();
    let (prefix, suffix) = match (kids.first(), kids.last()) {
        (Some(f), Some(l)) => (
            text[inner_start..f.0].to_string(),
            text[l.1..inner_end].to_string(),
        ),
        _ => (String::new(), String::new()),
    };
    Parts {
        kind,
        open: open.into(),
        prefix,
        sep: (kids.len() > 1).then(|| text[kids[0].1..kids[1].0].to_string()),
        suffix,
        close: close.into(),
        elems,
    }
}

/// A string packed array (`PackedStringArray(...)`, `PoolStringArray( ... )`) as parts.
fn packed_parts(text: &str) -> Option<Parts> {
    let open_at = text.find('(')?;
    let name = text[..open_at].trim();
    if !name.ends_with("StringArray") {
        return None;
    }
    let (inner_start, inner_end) = (open_at + 1, text.rfind(')')?);
    let mut kids = Vec::new();
    let b = text.as_bytes();
    let mut i = inner_start;
    while i < inner_end {
        match b[i] {
            b'"' => {
                let s = i;
                i += 1;
                while i < inner_end && b[i] != b'"' {
                    i += usize::from(b[i] == b'\\') + 1;
                }
                kids.push((s, (i + 1).min(inner_end)));
            }
            b',' | b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => return None,
        }
        i += 1;
    }
    let mut ps = layout(
        text,
        inner_start,
        inner_end,
        &kids,
        &text[..=open_at],
        ")",
        Kind::Packed,
    );
    for el in &mut ps.elems {
        el.id = match value::parse(&el.text).ok()? {
            Value::String(s) => format!("string {s}"),
            _ => return None,
        };
    }
    Some(ps)
}

/// The `"class"` of a dictionary element (Godot 3's global script class entries).
fn class_of(v: &Value) -> Option<String> {
    let Value::Dict(entries) = v else {
        return None;
    };
    entries.iter().find_map(|(k, v)| match (k, v) {
        (Value::String(k), Value::String(c)) if k == "class" => Some(c.clone()),
        _ => None,
    })
}

/// Properties that say which key, button or axis an input event is.
const EVENT_IDENTITY: &[&str] = &[
    "device",
    "keycode",
    "physical_keycode",
    "key_label",
    "unicode",
    "scancode",
    "physical_scancode",
    "button_index",
    "axis",
    "alt_pressed",
    "shift_pressed",
    "ctrl_pressed",
    "meta_pressed",
    "alt",
    "shift",
    "control",
    "meta",
    "command",
    "action",
];

/// The identity of a set element: strings by text, events by what they stand for,
/// `null` as itself; any other element makes the array not a set (`None`).
fn set_identity(v: &Value) -> Option<String> {
    match v {
        Value::String(s) | Value::StringName(s) => Some(format!("string {s}")),
        Value::Null => Some("null".into()),
        Value::Object { class, props } => {
            let mut kept: Vec<String> = props
                .iter()
                .filter(|(k, _)| EVENT_IDENTITY.contains(&k.as_str()))
                .map(|(k, v)| format!("{k}={}", canonical(v)))
                .collect();
            if let Some((_, axis_value)) = props.iter().find(|(k, _)| k == "axis_value") {
                let sign = matches!(axis_value, Value::Float(f) if *f < 0.0)
                    || matches!(axis_value, Value::Int(i) if *i < 0);
                kept.push(format!("direction={}", if sign { "-" } else { "+" }));
            }
            if kept.is_empty() {
                kept = props
                    .iter()
                    .filter(|(k, _)| !k.starts_with("resource_") && k != "script")
                    .map(|(k, v)| format!("{k}={}", canonical(v)))
                    .collect();
            }
            kept.sort();
            Some(format!("{class}({})", kept.join(",")))
        }
        _ => None,
    }
}

/// One fixed spelling of a value, for identities.
fn canonical(v: &Value) -> String {
    let style = Style {
        dialect: Dialect::Godot4 { format: 3 },
        float: FloatStyle::Shortest,
    };
    write::value(v, &style)
}

#[cfg(test)]
mod tests {
    use super::merge_value;

    #[test]
    fn string_sets_keep_both_additions_in_the_editors_layout() {
        let b = r#"PackedStringArray("res://addons/a/plugin.cfg")"#;
        let o = r#"PackedStringArray("res://addons/a/plugin.cfg", "res://addons/b/plugin.cfg")"#;
        let t = r#"PackedStringArray("res://addons/a/plugin.cfg", "res://addons/c/plugin.cfg")"#;
        assert_eq!(
            merge_value(Some(b), o, t).unwrap(),
            r#"PackedStringArray("res://addons/a/plugin.cfg", "res://addons/b/plugin.cfg", "res://addons/c/plugin.cfg")"#
        );
        let g3 = merge_value(
            Some(r#"PoolStringArray( "a" )"#),
            r#"PoolStringArray( "a", "b" )"#,
            r#"PoolStringArray(  )"#,
        );
        assert_eq!(g3.unwrap(), r#"PoolStringArray( "b" )"#);
    }

    #[test]
    fn input_events_merge_by_identity_and_dicts_by_key() {
        let ev = |code: u32| {
            format!(
                r#"Object(InputEventKey,"resource_local_to_scene":false,"device":0,"pressed":false,"keycode":{code},"physical_keycode":0,"unicode":0,"echo":false,"script":null)"#
            )
        };
        let action = |evs: &[u32], dz: &str| {
            let list: Vec<String> = evs.iter().map(|&c| ev(c)).collect();
            format!(
                "{{\n\"deadzone\": {dz},\n\"events\": [{}\n]\n}}",
                list.join("\n, ")
            )
        };
        let m = merge_value(
            Some(&action(&[32], "0.5")),
            &action(&[32, 87], "0.5"),
            &action(&[32, 38], "0.2"),
        )
        .unwrap();
        assert_eq!(m, action(&[32, 87, 38], "0.2"));
        // Both changed the deadzone differently: no clean merge.
        assert!(merge_value(
            Some(&action(&[32], "0.5")),
            &action(&[32], "0.3"),
            &action(&[32], "0.2")
        )
        .is_none());
    }

    #[test]
    fn godot3_global_script_classes_merge_by_class_name() {
        let c = |name: &str, path: &str| {
            format!("{{\n\"base\": \"Node\",\n\"class\": \"{name}\",\n\"language\": \"GDScript\",\n\"path\": \"{path}\"\n}}")
        };
        let list = |items: &[String]| format!("[ {} ]", items.join(", "));
        let (a, b2, cc) = (
            c("A", "res://a.gd"),
            c("B", "res://b.gd"),
            c("C", "res://c.gd"),
        );
        let m = merge_value(
            Some(&list(std::slice::from_ref(&a))),
            &list(&[a.clone(), b2.clone()]),
            &list(&[a.clone(), cc.clone()]),
        )
        .unwrap();
        assert_eq!(m, list(&[a.clone(), b2.clone(), cc]));
        let moved = c("A", "res://moved/a.gd");
        let m = merge_value(
            Some(&list(std::slice::from_ref(&a))),
            &list(std::slice::from_ref(&moved)),
            &list(&[a, b2.clone()]),
        )
        .unwrap();
        assert_eq!(m, list(&[moved, b2]));
    }
}
