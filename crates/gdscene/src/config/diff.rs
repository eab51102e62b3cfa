//! Semantic diff of two ConfigFile-format files: key-level changes in words.
//!
//! Keys are compared by name and values by engine equality, so key order, blank lines,
//! comments and value spelling are not changes. `[autoload]` entries, `[input]` actions
//! (their events by identity, their deadzone), `[editor_plugins] enabled` and
//! `[global_group]` entries get their own sentences; other keys are shown as Godot names
//! the setting (`application/run/main_scene`). Rendering to a terminal is the caller's.

use super::model::{same_value, sections, SectionRef};
use super::syntax::{Document, Entry};
use crate::value::{self, Value};
use std::collections::{HashMap, HashSet};

/// One change, as a sentence, with the section it is in (`""`: before the first section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigChange {
    /// The section.
    pub section: String,
    /// The key (`None` for a whole section added or removed).
    pub key: Option<String>,
    /// What changed, in words.
    pub text: String,
}

/// The changes from `old` to `new` (`None`: the file is absent on that side), in file order.
pub fn diff_config(old: Option<&Document>, new: Option<&Document>) -> Vec<ConfigChange> {
    let empty = Document::parse("").expect("an empty file parses");
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    let (os, ns) = (sections(old), sections(new));
    // By name, the first of a repeated name as a search would find it: a lookup per
    // section, not a scan (a hostile file may hold tens of thousands).
    let mut by_name: HashMap<&str, &SectionRef<'_>> = HashMap::new();
    for o in &os {
        by_name.entry(o.name).or_insert(o);
    }
    let new_names: HashSet<&str> = ns.iter().map(|n| n.name).collect();
    let mut out = Vec::new();
    for n in &ns {
        match by_name.get(n.name).copied() {
            Some(o) => diff_section(old, o, new, n, &mut out),
            None if !n.name.is_empty() => {
                out.push(change(
                    n.name,
                    None,
                    format!("section `[{}]` added", n.name),
                ));
                diff_section(old, &blank(n.name), new, n, &mut out);
            }
            None => diff_section(old, &blank(""), new, n, &mut out),
        }
    }
    for o in &os {
        if !new_names.contains(o.name) {
            let keys = o.entries().count();
            out.push(change(
                o.name,
                None,
                format!("section `[{}]` removed ({keys} key(s))", o.name),
            ));
        }
    }
    match (os[0].uid(), ns[0].uid()) {
        (Some(a), Some(b)) if a != b => out.push(change("", None, format!("uid: {a} -> {b}"))),
        (None, Some(b)) => out.push(change("", None, format!("uid {b} added"))),
        (Some(a), None) => out.push(change("", None, format!("uid {a} removed"))),
        _ => {}
    }
    out
}

fn blank(name: &str) -> SectionRef<'_> {
    SectionRef {
        name,
        header: None,
        line: 0,
        items: &[],
        keys: &super::model::NO_KEYS,
    }
}

fn change(section: &str, key: Option<&str>, text: String) -> ConfigChange {
    ConfigChange {
        section: section.into(),
        key: key.map(String::from),
        text,
    }
}

fn diff_section(
    od: &Document,
    o: &SectionRef<'_>,
    nd: &Document,
    n: &SectionRef<'_>,
    out: &mut Vec<ConfigChange>,
) {
    // The last entry of a repeated key, as the engine keeps (`SectionRef::get`).
    let old_keys: HashMap<&str, &Entry> = o.entries().map(|(_, f)| (f.key.as_str(), f)).collect();
    let new_keys: HashSet<&str> = n.entries().map(|(_, e)| e.key.as_str()).collect();
    for (_, e) in n.entries() {
        let new_v = nd.slice(&e.value);
        match old_keys.get(e.key.as_str()) {
            None => out.push(change(n.name, Some(&e.key), added(n.name, &e.key, new_v))),
            Some(f) => {
                let old_v = od.slice(&f.value);
                if !same_value(old_v, new_v) {
                    for t in changed(n.name, &e.key, old_v, new_v) {
                        out.push(change(n.name, Some(&e.key), t));
                    }
                }
            }
        }
    }
    for (_, f) in o.entries() {
        if !new_keys.contains(f.key.as_str()) {
            out.push(change(
                o.name,
                Some(&f.key),
                removed(o.name, &f.key, od.slice(&f.value)),
            ));
        }
    }
}

/// The setting's name as Godot spells it: `section/key`, or the key before any section.
fn setting(section: &str, key: &str) -> String {
    if section.is_empty() {
        key.to_string()
    } else {
        format!("{section}/{key}")
    }
}

fn short(v: &str) -> String {
    let one: String = v.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::merge::shorten(&one, 80)
}

fn added(sec: &str, key: &str, v: &str) -> String {
    match sec {
        "autoload" => format!("autoload `{key}` added ({})", short(v)),
        "input" => format!("input action `{key}` added ({} event(s))", events(v).len()),
        "global_group" => format!("global group `{key}` added"),
        _ => format!("`{}` added: {}", setting(sec, key), short(v)),
    }
}

fn removed(sec: &str, key: &str, v: &str) -> String {
    match sec {
        "autoload" => format!("autoload `{key}` removed"),
        "input" => format!("input action `{key}` removed"),
        "global_group" => format!("global group `{key}` removed"),
        _ => format!("`{}` removed (was {})", setting(sec, key), short(v)),
    }
}

fn changed(sec: &str, key: &str, old: &str, new: &str) -> Vec<String> {
    if sec == "input" {
        let lines = action_changes(key, old, new);
        if !lines.is_empty() {
            return lines;
        }
    }
    if let (Some(a), Some(b)) = (strings(old), strings(new)) {
        let name = setting(sec, key);
        let mut lines: Vec<String> = b
            .iter()
            .filter(|x| !a.contains(x))
            .map(|x| format!("`{name}`: \"{x}\" added"))
            .collect();
        lines.extend(
            a.iter()
                .filter(|x| !b.contains(x))
                .map(|x| format!("`{name}`: \"{x}\" removed")),
        );
        if !lines.is_empty() {
            return lines;
        }
    }
    let what = if sec == "autoload" {
        format!("autoload `{key}`")
    } else {
        format!("`{}`", setting(sec, key))
    };
    vec![format!("{what}: {} -> {}", short(old), short(new))]
}

/// The strings of a string array or string packed array.
fn strings(v: &str) -> Option<Vec<String>> {
    let items: Vec<Value> = match value::parse(v).ok()? {
        Value::Array(a) => a,
        Value::Packed(p) => {
            let body = match &p.body {
                value::PackedBody::List(s) => s.clone(),
                value::PackedBody::Base64(_) => return None,
            };
            match value::parse(&format!("[{body}]")).ok()? {
                Value::Array(a) => a,
                _ => return None,
            }
        }
        _ => return None,
    };
    items
        .into_iter()
        .map(|x| match x {
            Value::String(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// An input action's events, each described in a few words.
fn events(v: &str) -> Vec<String> {
    let Ok(Value::Dict(entries)) = value::parse(v) else {
        return Vec::new();
    };
    entries
        .iter()
        .find_map(|(k, v)| match (k, v) {
            (Value::String(k), Value::Array(evs)) if k == "events" => {
                Some(evs.iter().map(describe_event).collect())
            }
            _ => None,
        })
        .unwrap_or_default()
}

fn describe_event(e: &Value) -> String {
    let Value::Object { class, props } = e else {
        return "null".into();
    };
    let shown: Vec<String> = props
        .iter()
        .filter(|(k, v)| {
            matches!(
                k.as_str(),
                "keycode"
                    | "physical_keycode"
                    | "scancode"
                    | "physical_scancode"
                    | "button_index"
                    | "axis"
                    | "axis_value"
                    | "unicode"
            ) && !matches!(v, Value::Int(0))
                || (k.ends_with("pressed") && k != "pressed"
                    || matches!(k.as_str(), "alt" | "shift" | "control" | "meta"))
                    && matches!(v, Value::Bool(true))
        })
        .map(|(k, v)| {
            format!(
                "{k} {}",
                short(&crate::write::value(
                    v,
                    &crate::write::Style {
                        dialect: crate::write::Dialect::Godot4 { format: 3 },
                        float: crate::write::FloatStyle::Shortest,
                    }
                ))
            )
        })
        .collect();
    format!("{class} {}", shown.join(", "))
        .trim_end()
        .to_string()
}

fn deadzone(v: &str) -> Option<String> {
    let Ok(Value::Dict(entries)) = value::parse(v) else {
        return None;
    };
    entries.iter().find_map(|(k, v)| match (k, v) {
        (Value::String(k), Value::Float(f)) if k == "deadzone" => Some(f.to_string()),
        (Value::String(k), Value::Int(i)) if k == "deadzone" => Some(i.to_string()),
        _ => None,
    })
}

fn action_changes(key: &str, old: &str, new: &str) -> Vec<String> {
    let (a, b) = (events(old), events(new));
    let mut out: Vec<String> = b
        .iter()
        .filter(|e| !a.contains(e))
        .map(|e| format!("input action `{key}`: event added ({e})"))
        .collect();
    out.extend(
        a.iter()
            .filter(|e| !b.contains(e))
            .map(|e| format!("input action `{key}`: event removed ({e})")),
    );
    if let (Some(x), Some(y)) = (deadzone(old), deadzone(new)) {
        if x != y {
            out.push(format!("input action `{key}`: deadzone {x} -> {y}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(a: &str, b: &str) -> Vec<String> {
        let (a, b) = (Document::parse(a).unwrap(), Document::parse(b).unwrap());
        diff_config(Some(&a), Some(&b))
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn key_order_and_layout_are_not_changes() {
        let a = "config_version=5\n\n[application]\n\nconfig/name=\"X\"\nrun/main_scene=\"res://a.tscn\"\n";
        let b = "config_version=5\n[application]\nrun/main_scene=\"res://a.tscn\"\n; note\nconfig/name = \"X\"\n";
        assert!(texts(a, b).is_empty(), "{:?}", texts(a, b));
    }

    #[test]
    fn changes_are_named_as_godot_names_them() {
        let a = "[application]\n\nrun/main_scene=\"res://a.tscn\"\n\n[autoload]\n\nA=\"*res://a.gd\"\n\n[editor_plugins]\n\nenabled=PackedStringArray(\"res://addons/x/plugin.cfg\")\n";
        let b = "[application]\n\nrun/main_scene=\"res://b.tscn\"\n\n[autoload]\n\nA=\"*res://a.gd\"\nGameManager=\"*res://gm.gd\"\n\n[editor_plugins]\n\nenabled=PackedStringArray(\"res://addons/x/plugin.cfg\", \"res://addons/y/plugin.cfg\")\n";
        assert_eq!(
            texts(a, b),
            [
                "`application/run/main_scene`: \"res://a.tscn\" -> \"res://b.tscn\"",
                "autoload `GameManager` added (\"*res://gm.gd\")",
                "`editor_plugins/enabled`: \"res://addons/y/plugin.cfg\" added",
            ]
        );
    }

    #[test]
    fn input_actions_show_events_added_and_removed() {
        let ev = |c: u32| {
            format!("Object(InputEventKey,\"resource_local_to_scene\":false,\"keycode\":{c},\"physical_keycode\":0,\"unicode\":0,\"script\":null)")
        };
        let a = format!(
            "[input]\n\njump={{\n\"deadzone\": 0.5,\n\"events\": [{}\n]\n}}\n",
            ev(32)
        );
        let b = format!(
            "[input]\n\njump={{\n\"deadzone\": 0.5,\n\"events\": [{}\n, {}\n]\n}}\n",
            ev(32),
            ev(87)
        );
        assert_eq!(
            texts(&a, &b),
            ["input action `jump`: event added (InputEventKey keycode 87)"]
        );
        assert_eq!(texts(&b, "[input]\n"), ["input action `jump` removed"]);
    }
}
