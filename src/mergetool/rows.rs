//! The table the page shows for each conflict: each property (a ConfigFile's keys, a
//! scene section's properties) with its value on base, ours and theirs, values drawn as
//! the editor shows them; what a side changed in a tile map's cells drawn as a picture;
//! an animation track's keys on a time line (`keys`). A conflict inside a value (one line
//! of a `keys` dictionary) is shown as the whole value on each side. Pure.

use super::hunks::{attr, Conflict};
use super::keys::{keys_of, view, Key};
use gdscene::grain::{describe_change, PropertyContext};
use gdscene::render::html::value::{picture, show_with};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What ids name in these texts: `ExtResource` ids to their paths, `SubResource` ids
/// to their types.
pub fn resource_names(texts: &[&str]) -> BTreeMap<(String, String), String> {
    let mut names = BTreeMap::new();
    for l in texts.iter().flat_map(|t| t.lines()) {
        let (kind, shown) = if l.starts_with("[ext_resource ") {
            ("ExtResource", attr(l, "path"))
        } else if l.starts_with("[sub_resource ") {
            ("SubResource", attr(l, "type"))
        } else {
            continue;
        };
        if let (Some(id), Some(shown)) = (attr(l, "id"), shown) {
            names
                .entry((kind.to_string(), id.to_string()))
                .or_insert_with(|| shown.to_string());
        }
    }
    names
}

/// The properties of a section's lines, key to value (a value goes on until the next
/// `key = ` line, so multi-line dictionaries stay whole), in order.
pub fn properties(lines: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in lines.lines() {
        let key = l
            .split_once(" = ")
            .map(|(k, _)| k)
            .filter(|k| !k.is_empty() && !k.contains(['"', '{', '[', ' ']));
        match (key, out.last_mut()) {
            (Some(k), _) if !l.starts_with('[') => {
                out.push((k.to_string(), l[k.len() + 3..].to_string()));
            }
            (_, Some(last)) if !l.starts_with('[') => {
                last.1.push('\n');
                last.1.push_str(l);
            }
            _ => out.push((String::new(), l.to_string())),
        }
    }
    out
}

/// A ConfigFile fragment's keys, key to value text (`[section] key` under a header the
/// fragment holds), in order; lines that do not parse are split at their first `=`.
pub fn config_properties(lines: &str) -> Vec<(String, String)> {
    use gdscene::config::model::sections;
    let Ok(doc) = gdscene::config::Document::parse(lines) else {
        return lines
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.to_string()))
            .collect();
    };
    let mut out = Vec::new();
    for s in sections(&doc) {
        for (_, e) in s.entries() {
            let key = if s.name.is_empty() {
                e.key.clone()
            } else {
                format!("[{}] {}", s.name, e.key)
            };
            out.push((key, doc.slice(&e.value).trim_end().to_string()));
        }
    }
    out
}

/// Each side's properties (base, ours, theirs); a conflict inside a value gives that
/// one property, whole, on each side.
fn side_properties(c: &Conflict, config: bool) -> [Vec<(String, String)>; 3] {
    if let Some(w) = &c.within {
        return w
            .values
            .clone()
            .map(|v| v.map(|v| (w.key.clone(), v)).into_iter().collect());
    }
    let texts = [
        c.base.as_deref(),
        Some(c.ours.as_str()),
        Some(c.theirs.as_str()),
    ];
    texts.map(|t| match t {
        None => Vec::new(),
        Some(t) if config => config_properties(t),
        Some(t) => properties(t),
    })
}

/// `tracks/N/...`'s N.
fn track_number(key: &str) -> Option<&str> {
    key.strip_prefix("tracks/")?.strip_suffix("/keys")
}

/// The value `key` has among `lines` (`key = value`), unquoted.
fn value_in<'a>(lines: &'a str, key: &str) -> Option<&'a str> {
    lines.lines().find_map(|l| {
        let (k, v) = l.split_once(" = ")?;
        (k == key).then(|| v.trim().trim_matches('"'))
    })
}

/// The time line of a `tracks/N/keys` row: the track's keys on each side, sorted by time.
fn key_view(section: &str, key: &str, values: [Option<&str>; 3]) -> Option<Value> {
    let n = track_number(key)?;
    let around = section;
    let path = value_in(around, &format!("tracks/{n}/path"))
        .map(|p| p.trim_start_matches("NodePath(\"").trim_end_matches("\")"))
        .unwrap_or_default();
    let kind = value_in(around, &format!("tracks/{n}/type"));
    let length = value_in(around, "length").and_then(|l| l.parse().ok());
    let keys: [Option<Vec<Key>>; 3] = values.map(|v| keys_of(v?, kind));
    if keys.iter().all(Option::is_none) {
        return None;
    }
    let sides = [keys[0].as_ref(), keys[1].as_ref(), keys[2].as_ref()];
    Some(view(path, length.unwrap_or(0.0), sides))
}

/// The rows of a conflict's table: each key with its value on each side (`null` where
/// a side does not set it), values as HTML drawn by [`show_with`]; a track's keys also
/// as a key view (`keys`).
pub fn rows(
    c: &Conflict,
    section: &str,
    names: &BTreeMap<(String, String), String>,
    file_format: u8,
    config: bool,
) -> Vec<Value> {
    let sides = side_properties(c, config);
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in sides[1].iter().chain(&sides[2]).chain(&sides[0]) {
        if !k.is_empty() && !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let resolve = |kind: &str, id: &str| names.get(&(kind.to_string(), id.to_string())).cloned();
    let cell = |side: &[(String, String)], k: &str| {
        side.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| show_with(&gdscene::merge::shorten(v, 300), &resolve))
    };
    let owner = attr(&c.header, "type").unwrap_or_default();
    let value = |side: &[(String, String)], k: &str| {
        side.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    keys.iter()
        .map(|k| {
            let ctx = PropertyContext {
                owner_type: owner,
                key: k,
                file_format,
                tile_format: None,
                track_type: None,
            };
            let [base, ours, theirs] = [0, 1, 2].map(|i| value(&sides[i], k));
            let (base, ours, theirs) = (base.as_deref(), ours.as_deref(), theirs.as_deref());
            let keys = key_view(section, k, [base, ours, theirs]);
            json!({
                "key": k,
                "base": cell(&sides[0], k),
                "ours": cell(&sides[1], k),
                "theirs": cell(&sides[2], k),
                "ours_drawn": if keys.is_some() { None } else { drawn(&ctx, base, ours) },
                "theirs_drawn": if keys.is_some() { None } else { drawn(&ctx, base, theirs) },
                "keys": keys,
            })
        })
        .collect()
}

/// What a side changed in a tile map's cells since the base, drawn as a picture;
/// `None` for other values (a track's keys get their own view).
fn drawn(ctx: &PropertyContext, base: Option<&str>, side: Option<&str>) -> Option<String> {
    let d = describe_change(ctx, base?, side?)?;
    let html = picture(&d.picture);
    (!html.is_empty()).then_some(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_cells_each_side_changed_are_drawn() {
        let cells = |t: &str| format!("layer_0/tile_data = PackedInt32Array(0, 1, 0, 1, {t}, 0)\n");
        let c = Conflict {
            line: 1,
            header: "[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]".into(),
            ours: cells("7"),
            base: Some(cells("1")),
            theirs: cells("9"),
            section: 0,
            within: None,
        };
        let r = rows(&c, "", &BTreeMap::new(), 3, false);
        assert_eq!(r.len(), 1);
        let drawn = r[0]["ours_drawn"].as_str().unwrap_or_default();
        assert!(drawn.contains("<svg class=\"cells\""), "{}", r[0]);
        assert_eq!(drawn.matches("class=\"changed\"").count(), 1, "{drawn}");
        assert!(r[0]["base"]
            .as_str()
            .unwrap_or_default()
            .contains("PackedInt32Array"));
    }

    #[test]
    fn resources_and_properties_are_read() {
        let h = "[ext_resource type=\"Texture2D\" path=\"res://a b.png\" id=\"1_a\"]";
        let names = resource_names(&[h]);
        assert_eq!(
            names
                .get(&("ExtResource".into(), "1_a".into()))
                .map(String::as_str),
            Some("res://a b.png")
        );
        let p = properties("a = 1\nd = {\n\"k\": 2\n}\n");
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].1, "{\n\"k\": 2\n}");
    }

    #[test]
    fn a_conflict_inside_an_animations_keys_gets_its_keys_by_time() {
        let m = super::super::hunks::split(super::super::hunks::tests::KEYS, 7).expect("splits");
        let c = &m.conflicts[1];
        let r = rows(c, &m.sections[c.section], &BTreeMap::new(), 3, false);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0]["key"], "tracks/0/keys");
        let keys = &r[0]["keys"];
        let times: Vec<&str> = keys["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .filter_map(|k| k["time_text"].as_str())
            .collect();
        assert_eq!(times, ["0", "0.25", "0.8"]);
        assert_eq!(keys["rows"][1]["ours"], "2");
        assert_eq!(keys["rows"][1]["theirs"], Value::Null);
        assert_eq!(keys["rows"][2]["theirs"], "3");
        assert_eq!(keys["end"], 1.0);
    }

    #[test]
    fn config_keys_are_read_by_the_config_grammar() {
        let p = config_properties("config/name=\"A\"\nrun/x={\n\"a\": 1\n}\n");
        assert_eq!(p[0], ("config/name".to_string(), "\"A\"".to_string()));
        assert_eq!(p[1].1, "{\n\"a\": 1\n}");
        let s = config_properties("[autoload]\n\nA=\"*res://a.gd\"\n");
        assert_eq!(s[0].0, "[autoload] A");
    }
}
