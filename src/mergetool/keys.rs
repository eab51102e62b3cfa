//! An Animation track's keys as the mergetool shows them: each side's keys as (time,
//! value) pairs sorted by time, and one row per time any side has, with each side's
//! value there, for the page's time lines and key table. Reads both layouts of
//! `tracks/N/keys` (see docs/values.md): a dictionary of parallel columns (`times`,
//! `transitions`, `values` / `points` / `clips` ...) and a flat float array of
//! `transform`, `position_3d`, `rotation_3d`, `scale_3d` and `blend_shape` tracks. Pure;
//! merging keys is `gdscene::grain`'s, drawing them the page's.

use gdscene::value::{parse, PackedElems, Value};
use gdscene::write::{value as write_value, Dialect, FloatStyle, Style};
use serde_json::{json, Value as Json};

/// One key: its time and its value in the file's words.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// Seconds from the animation's start.
    pub time: f64,
    /// The key's value (several columns: `name: value` joined by `, `).
    pub value: String,
}

/// Floats per key of a flat track type (time and transition included), and the
/// constructor its value is shown as.
fn flat(track_type: &str) -> Option<(usize, &'static str)> {
    Some(match track_type {
        "transform" => (12, "Transform"),
        "position_3d" | "scale_3d" => (5, "Vector3"),
        "rotation_3d" => (6, "Quaternion"),
        "blend_shape" => (3, ""),
        _ => return None,
    })
}

/// A number as the file would read it: no trailing `.0` on a whole number.
pub fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn call(name: &str, parts: &[f64]) -> String {
    let inner: Vec<String> = parts.iter().copied().map(number).collect();
    if name.is_empty() {
        inner.join(", ")
    } else {
        format!("{name}({})", inner.join(", "))
    }
}

/// The elements of a column, each as text; `None` when it is no list.
fn column(v: &Value, style: &Style) -> Option<Vec<String>> {
    match v {
        Value::Array(items) | Value::TypedArray { items, .. } => {
            Some(items.iter().map(|i| write_value(i, style)).collect())
        }
        Value::Packed(p) => {
            let kind = p.kind()?;
            let ctor = kind
                .name()
                .trim_start_matches("Packed")
                .trim_end_matches("Array");
            Some(match p.elements().ok()? {
                PackedElems::Bytes(b) => b.iter().map(|x| x.to_string()).collect(),
                PackedElems::Ints(v) => v.iter().map(|x| x.to_string()).collect(),
                PackedElems::Strings(v) => v.iter().map(|s| format!("{s:?}")).collect(),
                PackedElems::Floats(v) => {
                    let n = kind.components().max(1);
                    let name = if n == 1 { "" } else { ctor };
                    v.chunks(n).map(|c| call(name, c)).collect()
                }
            })
        }
        _ => None,
    }
}

/// The keys of a `tracks/N/keys` value text, sorted by time (as the engine keeps them);
/// `None` when the text is no track's keys. `track_type` is `tracks/N/type`.
pub fn keys_of(text: &str, track_type: Option<&str>) -> Option<Vec<Key>> {
    let style = Style {
        dialect: Dialect::Godot4 { format: 3 },
        float: FloatStyle::Shortest,
    };
    let v = parse(text.trim()).ok()?;
    let mut keys: Vec<Key> = match (&v, track_type.and_then(flat)) {
        (Value::Packed(p), Some((stride, ctor))) => match p.elements().ok()? {
            PackedElems::Floats(f) => f
                .chunks_exact(stride)
                .map(|c| Key {
                    time: c[0],
                    value: call(ctor, &c[2..]),
                })
                .collect(),
            _ => return None,
        },
        (Value::Dict(entries), _) => {
            let name = |k: &Value| match k {
                Value::String(s) | Value::StringName(s) => Some(s.clone()),
                _ => None,
            };
            let mut times = None;
            let mut columns: Vec<(String, Vec<String>)> = Vec::new();
            for (k, val) in entries {
                match name(k).as_deref() {
                    Some("times") => times = Some(column(val, &style)?),
                    Some("transitions" | "update" | "handle_modes") | None => {}
                    Some(n) => {
                        if let Some(c) = column(val, &style) {
                            columns.push((n.to_string(), c));
                        }
                    }
                }
            }
            let times = times?;
            let points = columns.iter().any(|(n, _)| n == "points");
            times
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let value = key_value(&columns, i, points, times.len());
                    Some(Key {
                        time: t.parse().ok()?,
                        value,
                    })
                })
                .collect::<Option<Vec<Key>>>()?
        }
        _ => return None,
    };
    keys.sort_by(|a, b| a.time.total_cmp(&b.time));
    Some(keys)
}

/// Key `i`'s value from the columns: one column alone as is, several as `name: value`;
/// a bezier track's `points` (five floats a key) by its value, the first of the five.
fn key_value(columns: &[(String, Vec<String>)], i: usize, points: bool, n: usize) -> String {
    let at = |name: &str, c: &[String]| {
        if points && name == "points" && c.len() == n * 5 {
            c.get(i * 5).cloned()
        } else {
            c.get(i).cloned()
        }
    };
    let parts: Vec<(String, String)> = columns
        .iter()
        .filter_map(|(name, c)| Some((name.clone(), at(name, c)?)))
        .collect();
    match &parts[..] {
        [(_, only)] => only.clone(),
        many => many
            .iter()
            .map(|(n, v)| format!("{n}: {v}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Time as a key on a f32 time line matches it (the engine stores times as float32).
fn same_time(a: f64, b: f64) -> bool {
    (a as f32) == (b as f32)
}

/// The page's view of one track's keys on the three sides (base, ours, theirs; a side
/// without the value is `None`): the track, the time line's end, and one row per time
/// any side has a key at, sorted by time, with each side's value there (`null`: no key).
pub fn view(track: &str, length: f64, sides: [Option<&Vec<Key>>; 3]) -> Json {
    let mut times: Vec<f64> = sides
        .iter()
        .flatten()
        .flat_map(|keys| keys.iter().map(|k| k.time))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup_by(|a, b| same_time(*a, *b));
    let value_at = |side: Option<&Vec<Key>>, t: f64| {
        side.and_then(|keys| keys.iter().find(|k| same_time(k.time, t)))
            .map(|k| k.value.clone())
    };
    let rows: Vec<Json> = times
        .iter()
        .map(|&t| {
            json!({
                "time": t,
                "time_text": number(t),
                "base": value_at(sides[0], t),
                "ours": value_at(sides[1], t),
                "theirs": value_at(sides[2], t),
            })
        })
        .collect();
    let end = times.last().copied().unwrap_or(0.0).max(length).max(0.001);
    json!({"track": track, "end": end, "end_text": number(end), "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_track_keys_are_read_and_sorted_by_time() {
        let text = "{\n\"times\": PackedFloat32Array(0.5, 0, 0.25),\n\
            \"transitions\": PackedFloat32Array(1, 1, 1),\n\"update\": 0,\n\
            \"values\": [Vector2(0, -12), Vector2(0, 0), Vector2(4, 4)]\n}";
        let keys = keys_of(text, Some("value")).expect("keys");
        let times: Vec<f64> = keys.iter().map(|k| k.time).collect();
        assert_eq!(times, [0.0, 0.25, 0.5]);
        assert_eq!(keys[0].value, "Vector2(0, 0)");
        assert_eq!(keys[2].value, "Vector2(0, -12)");
    }

    #[test]
    fn flat_and_bezier_tracks_are_read() {
        let flat = "PackedFloat32Array(0, 1, 1, 2, 3, 0.5, 1, 4, 5, 6)";
        let keys = keys_of(flat, Some("position_3d")).expect("keys");
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[1].value, "Vector3(4, 5, 6)");
        let bezier = "{\n\"handle_modes\": PackedInt32Array(0),\n\
            \"points\": PackedFloat32Array(7, -0.25, 0, 0.25, 0),\n\
            \"times\": PackedFloat32Array(0.1)\n}";
        let keys = keys_of(bezier, Some("bezier")).expect("keys");
        assert_eq!((keys[0].time, keys[0].value.as_str()), (0.1, "7"));
        assert_eq!(keys_of("Vector2(1, 2)", None), None);
    }

    #[test]
    fn the_view_has_a_row_per_time_any_side_keys() {
        let k = |t: f64, v: &str| Key {
            time: t,
            value: v.into(),
        };
        let (base, ours, theirs) = (
            vec![k(0.0, "a"), k(0.5, "b")],
            vec![k(0.0, "a"), k(0.5, "c")],
            vec![k(0.0, "a"), k(0.5, "d"), k(0.8, "e")],
        );
        let v = view(
            "Player:position",
            1.0,
            [Some(&base), Some(&ours), Some(&theirs)],
        );
        let rows = v["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1]["ours"], "c");
        assert_eq!(rows[2]["base"], Json::Null);
        assert_eq!(rows[2]["time_text"], "0.8");
        assert_eq!(v["end"], 1.0);
    }
}
