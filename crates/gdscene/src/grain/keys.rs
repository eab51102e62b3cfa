//! Key-by-time merge of one Animation track's `keys`.
//!
//! Two layouts (see `docs/values.md`): a dictionary of parallel columns (`times`,
//! `transitions`, `values` / `points` / `clips` / `handle_modes` ...) for value, method,
//! bezier, audio and animation tracks, and a flat float array (time, transition, then the
//! components) for Godot 3 `transform` and Godot 4 `position_3d` / `rotation_3d` /
//! `scale_3d` / `blend_shape` tracks. Keys are matched by time (the n-th key at a time with
//! the n-th: Godot keeps several keys at one time); keys added at different
//! times on both sides merge, one time changed differently on both sides conflicts. Merged
//! keys are written sorted by time, as the engine keeps them; other dictionary entries
//! (`update`) merge as whole values.

use super::change::ValueChange;
use super::text::{
    same_value, shape, string_of, write_array, write_call, write_dict, Shape, Spelling,
};
use super::three::merge_keyed;
use super::{ConflictAt, Grain, GrainConflict, GrainOutcome, PropertyContext};
use crate::value::{parse, PackedKind, Value};

/// Floats per key of a flat track type, time and transition included.
fn flat_stride(track_type: &str) -> Option<usize> {
    Some(match track_type {
        "transform" => 12,
        "position_3d" | "scale_3d" => 5,
        "rotation_3d" => 6,
        "blend_shape" => 3,
        _ => return None,
    })
}

/// One key: its items per column (in ours' column order), times first.
type Key = Vec<Vec<String>>;

/// A track's keys value cut into columns.
#[derive(Debug, Clone)]
struct Table {
    /// Entries as written: the key text and, for columns, the container's name (`None`: a
    /// `[...]` array) and column index; scalars carry their value text.
    entries: Vec<(String, Slot)>,
    /// Column names (decoded), times first.
    columns: Vec<String>,
    /// Keys in written order, by time bits.
    keys: Vec<(u32, Key)>,
}

#[derive(Debug, Clone)]
enum Slot {
    Column(Option<String>),
    Scalar(String),
}

fn time_bits(item: &str) -> Option<u32> {
    let t = match parse(item).ok()? {
        Value::Float(f) => f as f32,
        Value::Int(i) => i as f32,
        _ => return None,
    };
    Some(if t == 0.0 { 0 } else { t.to_bits() })
}

fn container(text: &str) -> Option<(Option<String>, Vec<String>)> {
    let own = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    match shape(text)? {
        Shape::Array(items) => Some((None, own(items))),
        Shape::Call(name, items) if PackedKind::from_name(name).is_some() => {
            Some((Some(name.to_string()), own(items)))
        }
        _ => None,
    }
}

/// Cut `items` into `n` keys of equal width (width `0` when there are no keys).
fn rows(items: Vec<String>, n: usize) -> Option<Vec<Vec<String>>> {
    if n == 0 {
        return items.is_empty().then(Vec::new);
    }
    if !items.len().is_multiple_of(n) {
        return None;
    }
    let w = items.len() / n;
    Some(items.chunks(w.max(1)).map(|c| c.to_vec()).collect())
}

fn table_from_dict(dict: Vec<(&str, &str)>) -> Option<Table> {
    let (_, times) = dict
        .iter()
        .find(|(k, _)| string_of(k).as_deref() == Some("times"))?;
    let (_, times) = container(times)?;
    let bits: Vec<u32> = times.iter().map(|t| time_bits(t)).collect::<Option<_>>()?;
    let n = bits.len();
    let mut entries = Vec::new();
    let mut columns = vec!["times".to_string()];
    let mut cols: Vec<Vec<Vec<String>>> = Vec::new();
    for (k, v) in &dict {
        let name = string_of(k)?;
        match container(v) {
            Some((cname, items)) => {
                let r = rows(items, n)?;
                if name == "times" {
                    cols.insert(0, r);
                } else {
                    columns.push(name);
                    cols.push(r);
                }
                entries.push((k.to_string(), Slot::Column(cname)));
            }
            None => entries.push((k.to_string(), Slot::Scalar(v.to_string()))),
        }
    }
    let keys = (0..n)
        .map(|i| {
            cols.iter()
                .map(|c| c.get(i).cloned().unwrap_or_default())
                .collect()
        })
        .collect::<Vec<Key>>();
    Some(Table {
        entries,
        columns,
        keys: bits.into_iter().zip(keys).collect(),
    })
}

fn table_from_flat(text: &str, stride: usize) -> Option<Table> {
    let (Some(name), items) = container(text)? else {
        return None;
    };
    if items.len() % stride != 0 {
        return None;
    }
    let keys = items
        .chunks(stride)
        .map(|c| Some((time_bits(&c[0])?, vec![vec![c[0].clone()], c[1..].to_vec()])))
        .collect::<Option<Vec<_>>>()?;
    Some(Table {
        entries: vec![(String::new(), Slot::Column(Some(name)))],
        columns: vec!["times".to_string(), "rest".to_string()],
        keys,
    })
}

fn table(text: &str, flat: Option<usize>) -> Option<Table> {
    match (shape(text)?, flat) {
        (Shape::Dict(d), _) => table_from_dict(d),
        (Shape::Call(..), Some(stride)) => table_from_flat(text, stride),
        _ => None,
    }
}

/// Reorder a side's key columns to `order`; `None` when the sets of columns differ.
fn align(t: &Table, order: &[String]) -> Option<Vec<(u32, Key)>> {
    if t.keys.is_empty() {
        return Some(Vec::new());
    }
    if t.columns.len() != order.len() {
        return None;
    }
    let idx: Vec<usize> = order
        .iter()
        .map(|c| t.columns.iter().position(|x| x == c))
        .collect::<Option<_>>()?;
    Some(
        t.keys
            .iter()
            .map(|(b, k)| {
                (
                    *b,
                    idx.iter()
                        .map(|&i| k.get(i).cloned().unwrap_or_default())
                        .collect(),
                )
            })
            .collect(),
    )
}

/// Keys by (time, how many earlier keys of the track share that time): Godot keeps
/// several keys at one time (a jump from one value to another), each a key of its own.
fn by_time(keys: Vec<(u32, Key)>) -> Vec<((u32, u32), Key)> {
    let mut seen: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    keys.into_iter()
        .map(|(bits, k)| {
            let n = seen.entry(bits).or_insert(0);
            *n += 1;
            ((bits, *n - 1), k)
        })
        .collect()
}

fn key_eq(a: &Key, b: &Key) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q)))
}

/// A key in words: its value columns (and a transition other than 1).
pub(crate) fn describe_key(columns: &[String], key: &Key) -> String {
    let mut parts = Vec::new();
    let mut transition = None;
    for (name, items) in columns.iter().zip(key).skip(1) {
        match name.as_str() {
            "transitions" => transition = items.first().filter(|t| !same_value(t, "1")).cloned(),
            "rest" => parts.push(items.get(1..).unwrap_or_default().join(", ")),
            _ if columns.len() <= 3 => parts.push(items.join(", ")),
            _ => parts.push(format!("{name} {}", items.join(", "))),
        }
    }
    let mut s = parts.join("; ");
    if let Some(t) = transition {
        s.push_str(&format!(" (transition {t})"));
    }
    s
}

/// Merge a track's `keys`; `track` names the track in conflicts.
pub(crate) fn merge(
    ctx: &PropertyContext,
    track: Option<&str>,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    let flat = ctx.track_type.and_then(flat_stride);
    merge_tables(ctx, track, base, ours, theirs, flat).unwrap_or(Grain::NotMine)
}

fn merge_tables(
    ctx: &PropertyContext,
    track: Option<&str>,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    flat: Option<usize>,
) -> Option<GrainOutcome> {
    let o = table(ours, flat)?;
    let t = table(theirs, flat)?;
    let b = match base {
        Some(b) => Some(table(b, flat)?),
        None => None,
    };
    let order = if o.keys.is_empty() && !t.keys.is_empty() {
        &t.columns
    } else {
        &o.columns
    };
    let (ok, tk) = (by_time(align(&o, order)?), by_time(align(&t, order)?));
    let bk = match &b {
        Some(b) => by_time(align(b, order)?),
        None => Vec::new(),
    };
    let keys = merge_keyed(&bk, &ok, &tk, key_eq, |_, b, o, t| {
        let time = o
            .or(t)
            .or(b)
            .and_then(|k| k.first()?.first().cloned())
            .unwrap_or_default();
        let d = |k: Option<&Key>| k.map(|k| describe_key(order, k));
        Err(vec![GrainConflict {
            at: ConflictAt::Key {
                track: track.map(str::to_string),
                time,
            },
            base: d(b),
            ours: d(o),
            theirs: d(t),
        }])
    });
    let scalars = merge_scalars(b.as_ref(), &o, &t);
    Some(match (keys, scalars) {
        (Ok(mut keys), Ok(scalars)) => {
            let time = |x: &((u32, u32), Key)| (f32::from_bits(x.0 .0), x.0 .1);
            keys.sort_by(|x, y| {
                time(x)
                    .0
                    .total_cmp(&time(y).0)
                    .then(time(x).1.cmp(&time(y).1))
            });
            let keys: Vec<(u32, Key)> = keys.into_iter().map(|((b, _), k)| (b, k)).collect();
            Grain::Merged(render(
                &Spelling::of(ctx.godot3(), ours),
                &o,
                order,
                &keys,
                &scalars,
            ))
        }
        (Err(mut a), Err(b)) => {
            a.extend(b);
            Grain::Conflict(a)
        }
        (Err(a), _) | (_, Err(a)) => Grain::Conflict(a),
    })
}

fn scalars_of(t: &Table) -> Vec<(String, String)> {
    t.entries
        .iter()
        .filter_map(|(k, s)| match s {
            Slot::Scalar(v) => Some((k.clone(), v.clone())),
            Slot::Column(_) => None,
        })
        .collect()
}

fn merge_scalars(
    b: Option<&Table>,
    o: &Table,
    t: &Table,
) -> Result<Vec<(String, String)>, Vec<GrainConflict>> {
    let bs = b.map(scalars_of).unwrap_or_default();
    super::dict::merge_entries(&bs, &scalars_of(o), &scalars_of(t))
}

/// Write the merged keys back in ours' layout (entry order, container names).
fn render(
    sp: &Spelling,
    o: &Table,
    order: &[String],
    keys: &[(u32, Key)],
    scalars: &[(String, String)],
) -> String {
    let column = |i: usize, name: &Option<String>| {
        let items: Vec<String> = keys
            .iter()
            .flat_map(|(_, k)| k.get(i).cloned().unwrap_or_default())
            .collect();
        match name {
            Some(n) => write_call(n, &items, sp),
            None => write_array(&items, sp),
        }
    };
    if let [(k, Slot::Column(name))] = o.entries.as_slice() {
        if k.is_empty() {
            let items: Vec<String> = keys.iter().flat_map(|(_, k)| k.concat()).collect();
            return write_call(name.as_deref().unwrap_or("PackedFloat32Array"), &items, sp);
        }
    }
    let mut entries: Vec<(String, String)> = Vec::new();
    for (k, slot) in &o.entries {
        let name = string_of(k).unwrap_or_default();
        match slot {
            Slot::Column(cname) => {
                let i = order.iter().position(|c| *c == name).unwrap_or(0);
                entries.push((k.clone(), column(i, cname)));
            }
            Slot::Scalar(_) => {
                if let Some(v) = scalars.iter().find(|(sk, _)| sk == k) {
                    entries.push(v.clone());
                }
            }
        }
    }
    for s in scalars {
        if !entries.iter().any(|(k, _)| *k == s.0) {
            entries.push(s.clone());
        }
    }
    write_dict(&entries, sp)
}

/// The value of a value track's key at time 0, as written (`keys` is the track's
/// `tracks/N/keys` dictionary): what the track sets when the animation starts, which a
/// RESET animation's only key is. `None` without such a key or a `values` column.
pub fn value_at_start(keys: &str) -> Option<String> {
    let Shape::Dict(d) = shape(keys)? else {
        return None;
    };
    let t = table_from_dict(d)?;
    let col = t.columns.iter().position(|c| c == "values")?;
    let (_, key) = t.keys.iter().find(|(bits, _)| *bits == 0)?;
    match key.get(col)?.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// `time 0.2: Vector2(0, -10) -> Vector2(0, -12)`, `time 0.5: added ...`, `time 1: removed ...`.
pub(crate) fn describe(ctx: &PropertyContext, old: &str, new: &str) -> Option<Vec<ValueChange>> {
    let flat = ctx.track_type.and_then(flat_stride);
    let (a, b) = (table(old, flat)?, table(new, flat)?);
    let order = if a.keys.is_empty() {
        &b.columns
    } else {
        &a.columns
    };
    let (ak, bk) = (by_time(align(&a, order)?), by_time(align(&b, order)?));
    let time = |k: &Key| k.first().and_then(|t| t.first()).cloned();
    let mut lines: Vec<ValueChange> = super::three::diff_keyed(&ak, &bk, key_eq)
        .into_iter()
        .filter_map(|(_, x, y)| {
            let at = format!("time {}", time(x.or(y)?)?);
            let words = |k: Option<&Key>| k.map(|k| describe_key(order, k));
            let (x, y) = (words(x), words(y));
            Some(ValueChange::of("key", at, x.as_deref(), y.as_deref()))
        })
        .collect();
    lines.extend(super::dict::describe_entries(
        &scalars_of(&a),
        &scalars_of(&b),
    ));
    Some(lines)
}
