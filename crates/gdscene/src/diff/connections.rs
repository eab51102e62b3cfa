//! What changed on the links between nodes: `[connection]`s (identified by signal, from,
//! to and method, with old node paths translated through renames and moves; `flags`,
//! `binds` and `unbinds` compared) and `[editable]`s (by translated path). Node pairing is
//! [`super::matching`]'s; whether a field difference counts is [`super::noise`]'s.

use super::context::Differ;
use super::noise::Eq3;
use super::report::{Change, Detail, Subject};
use crate::model::Connection;
use std::collections::{BTreeMap, BTreeSet};

/// Connection fields that are not part of its identity, with their default (absent) text.
const CONNECTION_FIELDS: [(&str, &str); 3] = [("flags", "2"), ("binds", "[]"), ("unbinds", "0")];

/// A connection's identity: (signal, from, to, method).
type ConnKey = (String, String, String, String);

fn subject(c: &Connection) -> Subject {
    Subject::Connection {
        signal: c.key.signal.clone(),
        from: c.key.from.clone(),
        to: c.key.to.clone(),
        method: c.key.method.clone(),
    }
}

/// Connection changes: fields of partners, then added, then removed ones.
pub(super) fn connection_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let mut new_by_key: BTreeMap<ConnKey, usize> = BTreeMap::new();
    for (j, c) in d.new.sc.connections.iter().enumerate() {
        let k = &c.key;
        let key = (
            k.signal.clone(),
            k.from.clone(),
            k.to.clone(),
            k.method.clone(),
        );
        new_by_key.entry(key).or_insert(j);
    }
    let mut paired_new = vec![false; d.new.sc.connections.len()];
    let mut removed = Vec::new();
    let mut partners = Vec::new();
    for (i, c) in d.old.sc.connections.iter().enumerate() {
        let k = &c.key;
        let (from, to) = (d.translate(&k.from), d.translate(&k.to));
        let key = (k.signal.clone(), from, to, k.method.clone());
        match new_by_key.get(&key) {
            Some(&j) if !paired_new[j] => {
                paired_new[j] = true;
                partners.push((i, j));
            }
            _ => removed.push(i),
        }
    }
    for (i, j) in partners {
        field_changes(d, i, j, changes);
    }
    for (j, c) in d.new.sc.connections.iter().enumerate() {
        if !paired_new[j] {
            let s = d.new.sc.section(c.section);
            let fields = CONNECTION_FIELDS.iter();
            let properties = fields
                .filter_map(|(f, _)| {
                    d.new
                        .raw_field(s, f)
                        .map(|v| (f.to_string(), d.new.short(v)))
                })
                .collect();
            let detail = Detail::Added { properties };
            changes.push(Change {
                subject: subject(c),
                detail,
            });
        }
    }
    for i in removed {
        let detail = Detail::Removed {
            properties: Vec::new(),
        };
        changes.push(Change {
            subject: subject(&d.old.sc.connections[i]),
            detail,
        });
    }
}

/// `flags`, `binds`, `unbinds` of partner connections `i` (old) and `j` (new).
fn field_changes(d: &mut Differ, i: usize, j: usize, changes: &mut Vec<Change>) {
    let (oc, nc) = (&d.old.sc.connections[i], &d.new.sc.connections[j]);
    let (os, ns) = (d.old.sc.section(oc.section), d.new.sc.section(nc.section));
    let k = &nc.key;
    let name = format!("connection {} {} -> {}", k.signal, k.from, k.to);
    for (f, def) in CONNECTION_FIELDS {
        let a = d.old.raw_field(os, f).unwrap_or(def);
        let b = d.new.raw_field(ns, f).unwrap_or(def);
        match d.compare(a, b) {
            Eq3::Same => {}
            Eq3::Noise(k) => d.note(k, &name, format!("{f}: {a} -> {b}")),
            Eq3::Differs(_) => changes.push(Change {
                subject: subject(nc),
                detail: Detail::Field {
                    field: f.into(),
                    old: Some(d.old.short(a)),
                    new: Some(d.new.short(b)),
                },
            }),
        }
    }
}

/// `[editable]` paths added and removed (old paths translated to the new tree).
pub(super) fn editable_changes(d: &Differ, changes: &mut Vec<Change>) {
    let old_paths = d.old.sc.editables.iter().map(|e| d.translate(&e.path));
    let old: BTreeSet<String> = old_paths.collect();
    let new: BTreeSet<String> = d.new.sc.editables.iter().map(|e| e.path.clone()).collect();
    let properties = Vec::new;
    for p in new.difference(&old) {
        let subject = Subject::Editable { path: p.clone() };
        let detail = Detail::Added {
            properties: properties(),
        };
        changes.push(Change { subject, detail });
    }
    for p in old.difference(&new) {
        let subject = Subject::Editable { path: p.clone() };
        let detail = Detail::Removed {
            properties: properties(),
        };
        changes.push(Change { subject, detail });
    }
}
