//! The versioned JSON document, described by `docs/diff-json-schema.json`:
//! `{"schema": "tscn-merge/diff", "version": 1, "changes": [...], "noise": [...]}`.
//! A review is `{"schema": "tscn-merge/review", "version": 1, "range": ..., "files":
//! [{"path", "status", "old_path"?, "similarity"?, "summary", "error"?, "diff": <diff
//! document>}]}`; `old_path` and `similarity` (0-100) belong to renamed files.

use super::FileDiff;
use crate::diff::{Delta, Detail, DiffReport, Subject};
use serde_json::{json, Map, Value};

/// Schema name of a diff document.
pub const SCHEMA: &str = "tscn-merge/diff";
/// Schema name of a review document.
pub const REVIEW_SCHEMA: &str = "tscn-merge/review";
/// Version of both; bumped on any incompatible change.
pub const VERSION: u64 = 1;

fn subject(s: &Subject) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!(s.kind()));
    match s {
        Subject::Node {
            path,
            type_name,
            instance,
        } => {
            m.insert("path".into(), json!(path));
            m.insert("type".into(), json!(type_name));
            m.insert("instance".into(), json!(instance));
        }
        Subject::MainResource { type_name } => {
            m.insert("type".into(), json!(type_name));
        }
        Subject::ExtResource {
            path,
            type_name,
            users,
        } => {
            m.insert("path".into(), json!(path));
            m.insert("type".into(), json!(type_name));
            m.insert("users".into(), json!(users));
        }
        Subject::SubResource {
            id,
            type_name,
            users,
        } => {
            m.insert("id".into(), json!(id));
            m.insert("type".into(), json!(type_name));
            m.insert("users".into(), json!(users));
        }
        Subject::Connection {
            signal,
            from,
            to,
            method,
        } => {
            m.insert("signal".into(), json!(signal));
            m.insert("from".into(), json!(from));
            m.insert("to".into(), json!(to));
            m.insert("method".into(), json!(method));
        }
        Subject::Editable { path } => {
            m.insert("path".into(), json!(path));
        }
        Subject::Header => {}
    }
    Value::Object(m)
}

fn props(p: &[(String, String)]) -> Value {
    Value::Array(
        p.iter()
            .map(|(k, v)| json!({"key": k, "value": v}))
            .collect(),
    )
}

/// One change as a JSON object.
pub fn change(c: &crate::diff::Change) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!(c.detail.kind()));
    m.insert("subject".into(), subject(&c.subject));
    match &c.detail {
        Detail::Added { properties } | Detail::Removed { properties } => {
            m.insert("properties".into(), props(properties));
        }
        Detail::Renamed { old, new } => {
            m.insert("old".into(), json!(old));
            m.insert("new".into(), json!(new));
        }
        Detail::Moved {
            old_parent,
            new_parent,
        } => {
            m.insert("old".into(), json!(old_parent));
            m.insert("new".into(), json!(new_parent));
        }
        Detail::Reordered {
            old_index,
            new_index,
        } => {
            m.insert("old".into(), json!(old_index.to_string()));
            m.insert("new".into(), json!(new_index.to_string()));
        }
        Detail::Field { field, old, new } => {
            m.insert("key".into(), json!(field));
            m.insert("old".into(), json!(old));
            m.insert("new".into(), json!(new));
        }
        Detail::GroupAdded { group } | Detail::GroupRemoved { group } => {
            m.insert("key".into(), json!(group));
        }
        Detail::PropertyAdded { key, value } => {
            m.insert("key".into(), json!(key));
            m.insert("new".into(), json!(value));
        }
        Detail::Folded { text, count } => {
            m.insert("text".into(), json!(text));
            m.insert("count".into(), json!(count));
        }
        Detail::PropertyRemoved { key, value } => {
            m.insert("key".into(), json!(key));
            m.insert("old".into(), json!(value));
        }
        Detail::PropertyChanged {
            key,
            old,
            new,
            delta,
        } => {
            m.insert("key".into(), json!(key));
            m.insert("old".into(), json!(old));
            m.insert("new".into(), json!(new));
            delta_fields(&mut m, delta);
        }
    }
    Value::Object(m)
}

/// What a property change adds about how its value changed: the parts of a grain
/// value, the components of a math value, or a packed array's lengths.
fn delta_fields(m: &mut Map<String, Value>, delta: &Delta) {
    match delta {
        Delta::None => {}
        Delta::Grain(g) => {
            m.insert(
                "parts".into(),
                Value::Array(g.changes.iter().map(part).collect()),
            );
            if !g.picture.is_empty() {
                m.insert("picture".into(), json!(g.picture));
            }
        }
        Delta::Transform { parts, components } => {
            m.insert("transform".into(), json!(parts));
            m.insert(
                "components".into(),
                Value::Array(
                    components
                        .iter()
                        .map(|(n, a, b)| json!({"name": n, "old": a, "new": b}))
                        .collect(),
                ),
            );
        }
        Delta::Components(c) => {
            m.insert(
                "components".into(),
                Value::Array(
                    c.iter()
                        .map(|(n, a, b)| json!({"name": n, "old": a, "new": b}))
                        .collect(),
                ),
            );
        }
        Delta::Packed {
            kind,
            old_len,
            new_len,
            changed,
        } => {
            m.insert(
                "packed".into(),
                json!({"type": kind, "old_len": old_len, "new_len": new_len, "changed": changed}),
            );
        }
    }
}

/// One part of a value that changed (a cell box, a track, a key, an entry, a frame).
fn part(c: &crate::grain::ValueChange) -> Value {
    json!({
        "part": c.part,
        "at": c.at,
        "change": c.change,
        "count": c.count,
        "old": c.old,
        "new": c.new,
        "text": c.to_string(),
    })
}

/// The diff document of one file. Noise is always included (an empty list when none).
pub fn render(report: &DiffReport) -> Value {
    json!({
        "schema": SCHEMA,
        "version": VERSION,
        "changes": report.changes.iter().map(change).collect::<Vec<_>>(),
        "noise": report.noise.iter().map(|n| json!({"kind": n.kind.name(), "subject": n.subject, "detail": n.detail})).collect::<Vec<_>>(),
    })
}

/// The review document of several files.
pub fn review(range: &str, files: &[FileDiff]) -> Value {
    let files: Vec<Value> = files
        .iter()
        .map(|f| {
            let mut m = Map::new();
            m.insert("path".into(), json!(f.path));
            m.insert("status".into(), json!(f.status.name()));
            if let Some((old, similarity)) = &f.renamed_from {
                m.insert("old_path".into(), json!(old));
                m.insert("similarity".into(), json!(similarity));
            }
            m.insert("summary".into(), json!(f.summary(str::to_string)));
            match &f.report {
                Ok(_) if f.settings.is_some() => {
                    let changes = f
                        .settings
                        .iter()
                        .flatten()
                        .map(|c| json!({"section": c.section, "key": c.key, "text": c.text}));
                    m.insert("settings".into(), Value::Array(changes.collect()));
                }
                Ok(r) => {
                    m.insert("diff".into(), render(r));
                }
                Err(e) => {
                    m.insert("error".into(), json!(e));
                }
            }
            Value::Object(m)
        })
        .collect();
    json!({"schema": REVIEW_SCHEMA, "version": VERSION, "range": range, "files": files})
}

/// Pretty text of a JSON value with a final newline.
pub fn to_string(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
