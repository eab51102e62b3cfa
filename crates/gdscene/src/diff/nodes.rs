//! What changed on each node, in tree order: nodes added and removed (a removed node is
//! listed after its old predecessor's partner), and for each pair of partners its name,
//! parent, place among siblings, type, header fields (`instance`, `index`, `owner`, ...),
//! groups and properties. Which nodes are partners is [`super::matching`]'s decision;
//! whether a difference is only noise is [`super::noise`]'s.

use super::agree::Agreement;
use super::context::Differ;
use super::report::NoiseKind;
use super::report::{Change, Detail, Subject};
use super::side::{all_props, parent_path, Side};
use crate::syntax::Section;
use crate::value::{self, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Node changes of the whole tree, appended to `changes`: in new file order, each
/// removed node after its old predecessor's partner.
pub(super) fn node_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let reordered = reorders(d);
    let refs_agree = Agreement::of(d);
    let removed_after = removed_after(d);
    let removed = |after: Option<usize>| removed_after.get(&after).into_iter().flatten();
    for &i in removed(None) {
        changes.push(removed_change(d, i));
    }
    for j in 0..d.new.sc.nodes.len() {
        match d.node_pair_rev[j] {
            None => {
                let s = d.new.sc.section(d.new.sc.nodes[j].section);
                changes.push(Change {
                    subject: node_subject(&d.new, j),
                    detail: Detail::Added {
                        properties: all_props(&d.new, s),
                    },
                });
            }
            Some(i) => {
                let place = reordered.get(&j).copied();
                let out = paired_changes(d, (i, j), place, &refs_agree);
                if !out.is_empty() {
                    let subject = node_subject(&d.new, j);
                    changes.extend(out.into_iter().map(|detail| Change {
                        subject: subject.clone(),
                        detail,
                    }));
                }
            }
        }
        for &i in removed(Some(j)) {
            changes.push(removed_change(d, i));
        }
    }
}

/// Old node `i` removed.
fn removed_change(d: &Differ, i: usize) -> Change {
    let s = d.old.sc.section(d.old.sc.nodes[i].section);
    Change {
        subject: node_subject(&d.old, i),
        detail: Detail::Removed {
            properties: all_props(&d.old, s),
        },
    }
}

/// The removed old nodes by the new node they follow (their old predecessor's partner;
/// `None`: before every new node).
fn removed_after(d: &Differ) -> BTreeMap<Option<usize>, Vec<usize>> {
    let mut removed_after: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    let mut last_paired: Option<usize> = None;
    for i in 0..d.old.sc.nodes.len() {
        match d.node_pair[i] {
            Some(j) => last_paired = Some(j),
            None => removed_after.entry(last_paired).or_default().push(i),
        }
    }
    removed_after
}

fn node_subject(side: &Side, i: usize) -> Subject {
    let n = &side.sc.nodes[i];
    Subject::Node {
        path: n.path.to_string(),
        type_name: n.type_name.as_deref().map(String::from),
        instance: side.instance_path(i),
    }
}

/// Everything that changed between partners `(i, j)`; `reordered` is their old and new
/// place among siblings when that changed; `refs_agree` says which texts need no
/// reference scan ([`Agreement`]).
fn paired_changes(
    d: &mut Differ,
    (i, j): (usize, usize),
    reordered: Option<(usize, usize)>,
    refs_agree: &Agreement,
) -> Vec<Detail> {
    let mut out = Vec::new();
    if reordered.is_none() && unchanged(d, (i, j), refs_agree) {
        return out;
    }
    let os = d.old.sc.section(d.old.sc.nodes[i].section);
    let ns = d.new.sc.section(d.new.sc.nodes[j].section);
    let path = d.new.sc.nodes[j].path.clone();
    place_changes(d, (i, j), reordered, &mut out);
    let (on, nn) = (&d.old.sc.nodes[i], &d.new.sc.nodes[j]);
    if on.type_name != nn.type_name {
        out.push(Detail::Field {
            field: "type".into(),
            old: on.type_name.as_deref().map(String::from),
            new: nn.type_name.as_deref().map(String::from),
        });
    }
    d.note_node_ids(&path, (i, j));
    for f in ["instance", "instance_placeholder", "index", "node_paths"] {
        d.field_cmp(&path, os, ns, f, &mut out);
    }
    // Owner: compared through renames.
    let oo = on.owner().map(|o| d.translate(o));
    if oo.as_deref() != nn.owner() {
        out.push(Detail::Field {
            field: "owner".into(),
            old: on.owner().map(str::to_string),
            new: nn.owner().map(str::to_string),
        });
    }
    group_changes(d, &path, (os, ns), &mut out);
    d.props(&path, os, ns, &mut out, true);
    out
}

/// Fast path: the same bytes, the same targets, the same parent.
///
/// A new section the reading copied from the old one ([`crate::model::Scene::copied_from`])
/// has the same bytes without comparing them; a text that can name no resource whose
/// label differs between the sides ([`Agreement`]) needs no reference scan.
fn unchanged(d: &Differ, (i, j): (usize, usize), refs_agree: &Agreement) -> bool {
    let (old, new) = (d.old.sc, d.new.sc);
    let (osec, nsec) = (old.nodes[i].section, new.nodes[j].section);
    let nt = || new.slice(&new.section(nsec).span);
    let same_bytes = new.copied_from(old, nsec) == Some(osec)
        || old.slice(&old.section(osec).span).trim_end() == nt().trim_end();
    let refs_same = || refs_agree.surely_holds_for(nt()) || d.same_refs(nt());
    same_bytes && refs_same() && d.same_parent(i, j)
}

/// Renamed, moved to another parent, or placed elsewhere among its siblings.
fn place_changes(
    d: &Differ,
    (i, j): (usize, usize),
    reordered: Option<(usize, usize)>,
    out: &mut Vec<Detail>,
) {
    let (on, nn) = (&d.old.sc.nodes[i], &d.new.sc.nodes[j]);
    if on.name != nn.name {
        out.push(Detail::Renamed {
            old: on.name.to_string(),
            new: nn.name.to_string(),
        });
    }
    if !d.same_parent(i, j) {
        out.push(Detail::Moved {
            old_parent: on.parent.as_deref().unwrap_or("(none)").to_string(),
            new_parent: nn.parent.as_deref().unwrap_or("(none)").to_string(),
        });
    }
    if let Some((o, n)) = reordered {
        out.push(Detail::Reordered {
            old_index: o,
            new_index: n,
        });
    }
}

/// A section's groups, `None` when `groups=` is not a plain list of names.
fn groups(side: &Side, s: &Section) -> Option<BTreeSet<String>> {
    let Some(raw) = side.raw_field(s, "groups") else {
        return Some(BTreeSet::new());
    };
    match value::parse(raw).ok()? {
        Value::Array(items) | Value::TypedArray { items, .. } => Some(
            items
                .into_iter()
                .filter_map(|v| match v {
                    Value::String(s) | Value::StringName(s) => Some(s),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    }
}

/// Groups joined and left (a list written differently with the same names is noise).
fn group_changes(
    d: &mut Differ,
    path: &str,
    (os, ns): (&Section, &Section),
    out: &mut Vec<Detail>,
) {
    let (Some(a), Some(b)) = (groups(&d.old, os), groups(&d.new, ns)) else {
        d.field_cmp(path, os, ns, "groups", out);
        return;
    };
    for g in b.difference(&a) {
        out.push(Detail::GroupAdded { group: g.clone() });
    }
    for g in a.difference(&b) {
        out.push(Detail::GroupRemoved { group: g.clone() });
    }
    if a == b && d.old.raw_field(os, "groups") != d.new.raw_field(ns, "groups") {
        let detail = "groups written differently".into();
        d.note(NoiseKind::Respelled, path, detail);
    }
}

/// Longest increasing subsequence membership (patience sort with back-pointers).
pub(super) fn lis_members(seq: &[usize]) -> Vec<bool> {
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![usize::MAX; seq.len()];
    for (i, &x) in seq.iter().enumerate() {
        let pos = tails.partition_point(|&t| seq[t] < x);
        if pos > 0 {
            prev[i] = tails[pos - 1];
        }
        if pos == tails.len() {
            tails.push(i);
        } else {
            tails[pos] = i;
        }
    }
    let mut keep = vec![false; seq.len()];
    let mut k = tails.last().copied().unwrap_or(usize::MAX);
    while k != usize::MAX {
        keep[k] = true;
        k = prev[k];
    }
    keep
}

/// Whether node `j`'s `parent=` is written `""`: read only under the root (a parent
/// found whose path is not `.` is written as that path).
fn parent_written_empty(side: &Side, j: usize) -> bool {
    match side.parent_of[j] {
        Some(p) if side.sc.nodes[p].path.as_str() != "." => false,
        _ => side.sc.nodes[j].parent.as_deref() == Some(""),
    }
}

/// Sibling reorderings: per new parent, children paired under the same parent whose
/// relative order changed (outside the longest run kept in order).
fn reorders(d: &Differ) -> BTreeMap<usize, (usize, usize)> {
    let mut out = BTreeMap::new();
    let (mut seq, mut who) = (Vec::new(), Vec::new());
    for kids in d.new.children.groups() {
        seq.clear();
        who.clear();
        for (new_pos, &j) in kids.iter().enumerate() {
            let Some(i) = d.node_pair_rev[j] else {
                continue;
            };
            // Partners under paired parents stay (the parent's path is never empty, and
            // a paired parent means an old parent): no parent text read.
            let stayed = d.parents_paired(i, j) && !parent_written_empty(&d.new, j);
            if !stayed {
                let Some(op) = d.old.sc.nodes[i].parent.as_deref().map(parent_path) else {
                    continue;
                };
                let np = d.new.sc.nodes[j].parent.as_deref().unwrap_or(".");
                let kept = (d.parents_paired(i, j) && !np.is_empty()) || d.translate(op) == np;
                if !kept {
                    continue; // moved
                }
            }
            let old_pos = d.old.sibling_pos[i];
            seq.push(old_pos);
            who.push((j, old_pos, new_pos));
        }
        if seq.windows(2).all(|w| w[0] < w[1]) {
            continue; // in order: the longest run kept in order is all of them
        }
        for (keep, &(j, o, n)) in lis_members(&seq).into_iter().zip(&who) {
            if !keep {
                out.insert(j, (o, n));
            }
        }
    }
    out
}
