//! What changed on resources: the `[resource]` of a `.tres` (its properties), each
//! ext_resource (added, removed, `path`, `type`, `uid`) and each sub_resource (added,
//! removed, `type`, properties), each listed with the nodes that use it. Which resources
//! are partners is [`super::identity`]'s decision; noise is [`super::noise`]'s.

use super::context::Differ;
use super::report::NoiseKind;
use super::report::{Change, Detail, Subject};
use super::side::all_props;
use super::users::users_of;
use crate::model::ExtResource;
use crate::value::RefKind;

/// `[resource]` changes (its properties, or the whole section added or removed).
pub(super) fn main_resource_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let subject = Subject::MainResource {
        type_name: d.new.sc.header.resource_type.clone(),
    };
    let detail = match (d.old.sc.resource, d.new.sc.resource) {
        (Some(a), Some(b)) => {
            let mut out = Vec::new();
            let (os, ns) = (d.old.sc.section(a), d.new.sc.section(b));
            d.props("(resource)", os, ns, &mut out, true);
            changes.extend(out.into_iter().map(|detail| Change {
                subject: subject.clone(),
                detail,
            }));
            return;
        }
        (None, Some(b)) => Detail::Added {
            properties: all_props(&d.new, d.new.sc.section(b)),
        },
        (Some(a), None) => Detail::Removed {
            properties: all_props(&d.old, d.old.sc.section(a)),
        },
        (None, None) => return,
    };
    changes.push(Change { subject, detail });
}

/// new index -> old index of a pairing.
fn reverse(pair: &[Option<usize>], new_len: usize) -> Vec<Option<usize>> {
    let mut rev = vec![None; new_len];
    for (i, p) in pair.iter().enumerate() {
        if let Some(j) = p {
            rev[*j] = Some(i);
        }
    }
    rev
}

/// ext_resource changes, given the pairing (old index -> new index).
pub(super) fn ext_changes(d: &mut Differ, pair: &[Option<usize>], changes: &mut Vec<Change>) {
    let (o, n) = (&d.old.sc.ext_resources, &d.new.sc.ext_resources);
    let rev = reverse(pair, n.len());
    for (j, e) in n.iter().enumerate() {
        let details = match rev[j] {
            None => vec![Detail::Added {
                properties: Vec::new(),
            }],
            Some(i) => ext_pair_changes(d, &o[i], e),
        };
        if details.is_empty() {
            continue; // its users (a scan of every node) are only needed for a change
        }
        let subject = Subject::ExtResource {
            path: e.path.clone(),
            type_name: e.type_name.clone(),
            users: users_of(&d.new, &d.new_refs, RefKind::Ext, j),
        };
        changes.extend(details.into_iter().map(|detail| Change {
            subject: subject.clone(),
            detail,
        }));
    }
    for (i, e) in o.iter().enumerate() {
        if pair[i].is_none() {
            let subject = Subject::ExtResource {
                path: e.path.clone(),
                type_name: e.type_name.clone(),
                users: users_of(&d.old, &d.old_refs, RefKind::Ext, i),
            };
            let properties = Vec::new();
            let detail = Detail::Removed { properties };
            changes.push(Change { subject, detail });
        }
    }
    d.note_order(pair, "ext_resources");
}

/// What changed between two partner ext_resources (`uid` added and id renamed: noise).
fn ext_pair_changes(d: &mut Differ, oe: &ExtResource, e: &ExtResource) -> Vec<Detail> {
    let mut out = Vec::new();
    let field = |f: &str, old: Option<&String>, new: Option<&String>| Detail::Field {
        field: f.into(),
        old: old.cloned(),
        new: new.cloned(),
    };
    if oe.path != e.path {
        out.push(field("path", Some(&oe.path), Some(&e.path)));
    }
    if oe.type_name != e.type_name {
        out.push(field("type", Some(&oe.type_name), Some(&e.type_name)));
    }
    match (&oe.uid, &e.uid) {
        (None, Some(u)) => d.note(NoiseKind::UidAdded, &e.path, format!("uid {u}")),
        (Some(a), Some(b)) if a != b => out.push(field("uid", Some(a), Some(b))),
        (Some(a), None) => out.push(field("uid", Some(a), None)),
        _ => {}
    }
    if oe.id != e.id {
        let detail = format!("ext_resource id {} -> {}", oe.id, e.id);
        d.note(NoiseKind::IdRenamed, &e.path, detail);
    }
    out
}

/// sub_resource changes, given the pairing (old index -> new index).
pub(super) fn sub_changes(d: &mut Differ, pair: &[Option<usize>], changes: &mut Vec<Change>) {
    let n = &d.new.sc.sub_resources;
    let rev = reverse(pair, n.len());
    for (j, s) in n.iter().enumerate() {
        let details = match rev[j] {
            None => vec![Detail::Added {
                properties: all_props(&d.new, d.new.sc.section(s.section)),
            }],
            Some(i) => sub_pair_changes(d, i, j),
        };
        if details.is_empty() {
            continue;
        }
        let subject = Subject::SubResource {
            id: s.id.clone(),
            type_name: s.type_name.clone(),
            users: users_of(&d.new, &d.new_refs, RefKind::Sub, j),
        };
        changes.extend(details.into_iter().map(|detail| Change {
            subject: subject.clone(),
            detail,
        }));
    }
    for (i, s) in d.old.sc.sub_resources.iter().enumerate() {
        if pair[i].is_none() {
            let subject = Subject::SubResource {
                id: s.id.clone(),
                type_name: s.type_name.clone(),
                users: users_of(&d.old, &d.old_refs, RefKind::Sub, i),
            };
            let properties = all_props(&d.old, d.old.sc.section(s.section));
            let detail = Detail::Removed { properties };
            changes.push(Change { subject, detail });
        }
    }
    d.note_order(pair, "sub_resources");
}

/// What changed between partner sub_resources `i` (old) and `j` (new).
fn sub_pair_changes(d: &mut Differ, i: usize, j: usize) -> Vec<Detail> {
    let (o, s) = (&d.old.sc.sub_resources[i], &d.new.sc.sub_resources[j]);
    let (os, ns) = (d.old.sc.section(o.section), d.new.sc.section(s.section));
    let name = super::sub_display(&s.type_name, &s.id);
    let mut out = Vec::new();
    if o.type_name != s.type_name {
        out.push(Detail::Field {
            field: "type".into(),
            old: Some(o.type_name.clone()),
            new: Some(s.type_name.clone()),
        });
    }
    d.props(&name, os, ns, &mut out, false);
    if o.id != s.id {
        let detail = format!("sub_resource id {} -> {}", o.id, s.id);
        d.note(NoiseKind::IdRenamed, &name, detail);
    }
    out
}
