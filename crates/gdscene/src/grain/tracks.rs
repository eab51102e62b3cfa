//! Merge of an Animation resource's `tracks/*` properties as one set: tracks are matched by
//! type and path (not index), their fields merge one by one and their `keys` by time.
//!
//! Tracks both sides added are both kept: ours' tracks in ours' order, then the tracks only
//! theirs has, in theirs' order (the editor appends new tracks), renumbered from 0 so the
//! result reads as the editor writes it. Properties that are not `tracks/N/FIELD` are left
//! to the caller.

use super::change::ValueChange;
use super::text::same_value;
use super::three::{diff_keyed, merge_keyed};
use super::{keys, ConflictAt, Grain, GrainConflict, PropertyContext};
use crate::value::{parse, Value};

/// `tracks/N/FIELD` -> (N, FIELD).
pub(crate) fn split_track_key(key: &str) -> Option<(usize, &str)> {
    let rest = key.strip_prefix("tracks/")?;
    let (n, field) = rest.split_once('/')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || field.is_empty() {
        return None;
    }
    Some((n.parse().ok()?, field))
}

/// One track: its fields as written, in order.
type Fields = Vec<(String, String)>;
/// A track's identity: type, path, and which occurrence of that pair it is.
type TrackId = (String, String, usize);

/// Group `tracks/N/FIELD` properties by N (ascending); `None` when any key is not a track
/// field or a track lacks a readable `type` and `path`.
fn tracks_of(props: &[(String, String)]) -> Option<Vec<(TrackId, Fields)>> {
    let mut by_index: Vec<(usize, Fields)> = Vec::new();
    for (k, v) in props {
        let (n, field) = split_track_key(k)?;
        match by_index.iter_mut().find(|(i, _)| *i == n) {
            Some((_, f)) => f.push((field.to_string(), v.clone())),
            None => by_index.push((n, vec![(field.to_string(), v.clone())])),
        }
    }
    by_index.sort_by_key(|(n, _)| *n);
    let mut out: Vec<(TrackId, Fields)> = Vec::with_capacity(by_index.len());
    for (_, fields) in by_index {
        let (ty, path) = type_and_path(&fields)?;
        let nth = out
            .iter()
            .filter(|((t, p, _), _)| *t == ty && *p == path)
            .count();
        out.push(((ty, path, nth), fields));
    }
    Some(out)
}

/// A track's decoded `type` and `path`, from its fields.
fn type_and_path(fields: &[(String, String)]) -> Option<(String, String)> {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(f, _)| f == name)
            .map(|(_, v)| v.as_str())
    };
    let ty = match parse(get("type")?).ok()? {
        Value::String(s) | Value::StringName(s) => s,
        _ => return None,
    };
    let path = match parse(get("path")?).ok()? {
        Value::NodePath(p) | Value::String(p) => p,
        _ => return None,
    };
    Some((ty, path))
}

/// The conflicts of [`merge_tracks`] about track number `n` of `side` (its `tracks/*`
/// properties): a clash at one of its keys, in one of its fields, or over the whole track.
pub fn conflicts_of_track(
    conflicts: &[GrainConflict],
    side: &[(String, String)],
    n: usize,
) -> Vec<GrainConflict> {
    let fields: Fields = side
        .iter()
        .filter_map(|(k, v)| match split_track_key(k) {
            Some((i, f)) if i == n => Some((f.to_string(), v.clone())),
            _ => None,
        })
        .collect();
    let Some((ty, path)) = type_and_path(&fields) else {
        return Vec::new();
    };
    let name = label(&(ty, path, 0));
    let about = |c: &&GrainConflict| match &c.at {
        ConflictAt::Key { track: Some(t), .. } | ConflictAt::Track(t) => *t == name,
        ConflictAt::Entry(e) => e.strip_prefix(&name).is_some_and(|r| r.starts_with(' ')),
        _ => false,
    };
    conflicts.iter().filter(about).cloned().collect()
}

fn label(id: &TrackId) -> String {
    format!("\"{}\" {}", id.0, id.1)
}

fn fields_eq(a: &Fields, b: &Fields) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && same_value(v, v2)))
}

/// Merge the fields of one track both sides changed: `keys` by time, the rest whole.
fn merge_fields(
    ctx: &PropertyContext,
    id: &TrackId,
    b: Option<&Fields>,
    o: &Fields,
    t: &Fields,
) -> Result<Fields, Vec<GrainConflict>> {
    let empty = Vec::new();
    let b = b.unwrap_or(&empty);
    let track = label(id);
    let kctx = PropertyContext {
        track_type: Some(&id.0),
        ..*ctx
    };
    merge_keyed(
        b,
        o,
        t,
        |x, y| same_value(x, y),
        |field, bv, ov, tv| {
            let conflict = || {
                vec![GrainConflict {
                    at: ConflictAt::Entry(format!("{track} {field}")),
                    base: bv.cloned(),
                    ours: ov.cloned(),
                    theirs: tv.cloned(),
                }]
            };
            match (field.as_str(), ov, tv) {
                ("keys", Some(ov), Some(tv)) => {
                    match keys::merge(&kctx, Some(&track), bv.map(|s| s.as_str()), ov, tv) {
                        Grain::Merged(v) => Ok(Some(v)),
                        Grain::Conflict(c) => Err(c),
                        Grain::NotMine => Err(conflict()),
                    }
                }
                _ => Err(conflict()),
            }
        },
    )
}

/// Merge the `tracks/*` properties of one Animation resource, given as ordered
/// (key, value text) lists; the result is renumbered in the editor's order.
/// [`Grain::NotMine`] when a list holds anything else or a track has no type or path.
pub fn merge_tracks(
    ctx: &PropertyContext,
    base: &[(String, String)],
    ours: &[(String, String)],
    theirs: &[(String, String)],
) -> Grain<Vec<(String, String)>> {
    let (Some(b), Some(o), Some(t)) = (tracks_of(base), tracks_of(ours), tracks_of(theirs)) else {
        return Grain::NotMine;
    };
    let merged = merge_keyed(&b, &o, &t, fields_eq, |id, bv, ov, tv| match (ov, tv) {
        (Some(ov), Some(tv)) => merge_fields(ctx, id, bv, ov, tv).map(Some),
        _ => Err(vec![GrainConflict {
            at: ConflictAt::Track(label(id)),
            base: bv.map(|_| "present".to_string()),
            ours: ov.map(|_| "changed".to_string()),
            theirs: tv.map(|_| "changed".to_string()),
        }]),
    });
    match merged {
        Ok(tracks) => Grain::Merged(
            tracks
                .iter()
                .enumerate()
                .flat_map(|(n, (_, fields))| {
                    fields
                        .iter()
                        .map(move |(f, v)| (format!("tracks/{n}/{f}"), v.clone()))
                })
                .collect(),
        ),
        Err(c) => Grain::Conflict(c),
    }
}

/// Other sides' `tracks/*` (base's and theirs') renumbered to `ours`' numbering, tracks
/// matched by type and path; the tracks ours lacks follow, in the order the lists first
/// have them. `None` when a list is not readable tracks or ours' numbers are not 0..n.
pub fn renumber_like_ours(
    ours: &[(String, String)],
    others: [&[(String, String)]; 2],
) -> Option<[Vec<(String, String)>; 2]> {
    let mut numbers: Vec<usize> = ours
        .iter()
        .filter_map(|(k, _)| split_track_key(k).map(|(n, _)| n))
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.iter().enumerate().any(|(i, n)| i != *n) {
        return None;
    }
    let lists = [tracks_of(others[0])?, tracks_of(others[1])?];
    let mut order: Vec<TrackId> = tracks_of(ours)?.into_iter().map(|(id, _)| id).collect();
    for (id, _) in lists.iter().flatten() {
        if !order.contains(id) {
            order.push(id.clone());
        }
    }
    Some(lists.map(|list| {
        let at = |id: &TrackId| order.iter().position(|x| x == id).unwrap_or_default();
        list.into_iter()
            .flat_map(|(id, fields)| {
                let n = at(&id);
                fields
                    .into_iter()
                    .map(move |(f, v)| (format!("tracks/{n}/{f}"), v))
            })
            .collect()
    }))
}

/// Tracks added or removed (by type and path), and the fields and keys (by time) of the
/// tracks both lists have; `None` when a list holds anything but readable tracks.
pub(crate) fn describe(
    ctx: &PropertyContext,
    old: &[(String, String)],
    new: &[(String, String)],
) -> Option<Vec<ValueChange>> {
    let (a, b) = (tracks_of(old)?, tracks_of(new)?);
    let mut out = Vec::new();
    for (id, x, y) in diff_keyed(&a, &b, fields_eq) {
        let at = format!("track {}", label(id));
        match (x, y) {
            (Some(x), Some(y)) => out.extend(
                describe_fields(ctx, id, x, y)
                    .into_iter()
                    .map(|c| c.within(&at)),
            ),
            (None, _) => out.push(ValueChange::whole("track", at, "added")),
            (_, None) => out.push(ValueChange::whole("track", at, "removed")),
        }
    }
    Some(out)
}

/// The fields of one track that differ: `keys` key by key, the rest whole.
fn describe_fields(
    ctx: &PropertyContext,
    id: &TrackId,
    x: &Fields,
    y: &Fields,
) -> Vec<ValueChange> {
    let kctx = PropertyContext {
        track_type: Some(&id.0),
        ..*ctx
    };
    let mut out = Vec::new();
    for (field, fx, fy) in diff_keyed(x, y, |p, q| same_value(p, q)) {
        let by_key = match (field.as_str(), fx, fy) {
            ("keys", Some(fx), Some(fy)) => keys::describe(&kctx, fx, fy),
            _ => None,
        };
        match by_key {
            Some(changes) => out.extend(changes),
            None => out.push(ValueChange::of(
                "entry",
                field.clone(),
                fx.map(String::as_str),
                fy.map(String::as_str),
            )),
        }
    }
    out
}
