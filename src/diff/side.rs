//! One side (old or new) of the comparison: lookups by id and path, the labels that make
//! references comparable across sides, who uses each resource, and how values read in a
//! report. It decides nothing about change; pairing fills its labels
//! ([`super::identity`]) and the phases read from it.

use super::show::{self, Detail as ShowDetail};
use super::VALUE_LIMIT;
use crate::model::Scene;
use crate::syntax::Section;
use crate::value::{self, RefKind};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// One side of the comparison with its lookups and the labels that make references
/// comparable across sides (a paired resource gets the same label on both sides).
pub(super) struct Side<'a> {
    /// The scene itself.
    pub(super) sc: &'a Scene,
    /// ext_resource index by id.
    pub(super) ext_by_id: BTreeMap<&'a str, usize>,
    /// sub_resource index by id.
    pub(super) sub_by_id: BTreeMap<&'a str, usize>,
    /// Cross-side label of each ext_resource (set by [`super::identity::pair_ext`]).
    pub(super) ext_label: Vec<String>,
    /// Cross-side label of each sub_resource (set by [`super::identity::pair_sub`]).
    pub(super) sub_label: Vec<String>,
    /// Node index by path (the first node with that path).
    pub(super) node_by_path: BTreeMap<&'a str, usize>,
    /// Children of each node path, in file order.
    pub(super) children: BTreeMap<&'a str, Vec<usize>>,
    /// Refs of each node's props and instance field, of each sub, and of `[resource]`;
    /// computed on first use (only changed resources need their users).
    refs: std::cell::OnceCell<Refs>,
}

/// Every reference of every node, sub_resource and the main resource of one side.
struct Refs {
    node_refs: Vec<Vec<(RefKind, String)>>,
    sub_refs: Vec<Vec<(RefKind, String)>>,
    main_refs: Vec<(RefKind, String)>,
}

/// Every reference in a section's `instance`/`script` fields and its properties.
fn scan_section(sc: &Scene, s: &Section, out: &mut Vec<(RefKind, String)>) {
    let mut f = |k: RefKind, id: &str| out.push((k, id.to_string()));
    for fl in &s.tag.fields {
        if fl.key == "instance" || fl.key == "script" {
            value::scan_refs_in_text(sc.slice(&fl.value), &mut f);
        }
    }
    for p in &s.props {
        value::scan_refs_in_text(sc.slice(&p.value), &mut f);
    }
}

impl<'a> Side<'a> {
    pub(super) fn new(sc: &'a Scene) -> Side<'a> {
        let mut ext_by_id = BTreeMap::new();
        for (i, e) in sc.ext_resources.iter().enumerate() {
            ext_by_id.insert(e.id.as_str(), i);
        }
        let mut sub_by_id = BTreeMap::new();
        for (i, s) in sc.sub_resources.iter().enumerate() {
            sub_by_id.insert(s.id.as_str(), i);
        }
        let mut node_by_path = BTreeMap::new();
        let mut children: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, n) in sc.nodes.iter().enumerate() {
            node_by_path.entry(n.path.as_str()).or_insert(i);
            if let Some(p) = &n.parent {
                let p = if p.is_empty() { "." } else { p.as_str() };
                children.entry(p).or_default().push(i);
            }
        }
        Side {
            sc,
            ext_by_id,
            sub_by_id,
            ext_label: Vec::new(),
            sub_label: Vec::new(),
            node_by_path,
            children,
            refs: std::cell::OnceCell::new(),
        }
    }

    fn refs(&self) -> &Refs {
        self.refs.get_or_init(|| {
            let sc = self.sc;
            let scan = |sec: usize| {
                let mut v = Vec::new();
                scan_section(sc, sc.section(sec), &mut v);
                v
            };
            Refs {
                node_refs: sc.nodes.iter().map(|n| scan(n.section)).collect(),
                sub_refs: sc.sub_resources.iter().map(|n| scan(n.section)).collect(),
                main_refs: sc.resource.map(scan).unwrap_or_default(),
            }
        })
    }

    pub(super) fn label(&self, k: RefKind, id: &str) -> String {
        let (map, labels) = match k {
            RefKind::Ext => (&self.ext_by_id, &self.ext_label),
            RefKind::Sub => (&self.sub_by_id, &self.sub_label),
        };
        match map.get(id).and_then(|&i| labels.get(i)) {
            Some(l) => l.clone(),
            None => format!("?{id}"),
        }
    }

    /// How a reference reads in a report.
    pub(super) fn display(&self, k: RefKind, id: &str) -> String {
        match k {
            RefKind::Ext => match self.ext_by_id.get(id) {
                Some(&i) => self.sc.ext_resources[i].path.clone(),
                None => format!("missing {id}"),
            },
            RefKind::Sub => match self.sub_by_id.get(id) {
                Some(&i) => sub_display(&self.sc.sub_resources[i].type_name, id),
                None => format!("missing {id}"),
            },
        }
    }

    /// Refs text rewritten to labels (borrowed when there is no reference at all).
    pub(super) fn relabel<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if !text.contains("Resource") {
            return Cow::Borrowed(text);
        }
        Cow::Owned(value::rewrite_refs_in_text(text, &mut |k, id| {
            Some(self.label(k, id))
        }))
    }

    fn show(&self, text: &str, detail: ShowDetail) -> String {
        match value::parse(text) {
            Ok(v) => show::show(&v, &|k, id| self.display(k, id), detail),
            Err(_) => match detail {
                ShowDetail::Short { limit } => show::shorten(text.trim(), limit),
                ShowDetail::Full => text.trim().to_string(),
            },
        }
    }

    pub(super) fn short(&self, text: &str) -> String {
        self.show(text, ShowDetail::Short { limit: VALUE_LIMIT })
    }

    pub(super) fn raw_field(&self, s: &'a Section, key: &str) -> Option<&'a str> {
        s.tag.field(key).map(|r| self.sc.doc.slice(r))
    }

    pub(super) fn instance_path(&self, node: usize) -> Option<String> {
        let n = &self.sc.nodes[node];
        n.instance.as_ref().map(|id| self.display(RefKind::Ext, id))
    }

    /// Nodes using a resource, directly or through sub_resources.
    pub(super) fn users(&self, kind: RefKind, idx: usize) -> Vec<String> {
        let id = match kind {
            RefKind::Ext => &self.sc.ext_resources[idx].id,
            RefKind::Sub => &self.sc.sub_resources[idx].id,
        };
        let mut out = BTreeSet::new();
        let mut seen_subs = BTreeSet::new();
        let mut stack = vec![(kind, id.clone())];
        let all = self.refs();
        while let Some((k, id)) = stack.pop() {
            for (ni, refs) in all.node_refs.iter().enumerate() {
                if refs.iter().any(|(rk, rid)| *rk == k && *rid == id) {
                    out.insert(self.sc.nodes[ni].path.to_string());
                }
            }
            if all.main_refs.iter().any(|(rk, rid)| *rk == k && *rid == id) {
                out.insert("(resource)".to_string());
            }
            for (si, refs) in all.sub_refs.iter().enumerate() {
                if refs.iter().any(|(rk, rid)| *rk == k && *rid == id) && seen_subs.insert(si) {
                    stack.push((RefKind::Sub, self.sc.sub_resources[si].id.clone()));
                }
            }
        }
        out.into_iter().collect()
    }
}

/// Display name of a sub_resource: its id when the id already names the type (4.x),
/// else `Type#id` (3.x numeric ids).
pub fn sub_display(type_name: &str, id: &str) -> String {
    if id.starts_with(type_name) {
        id.to_string()
    } else {
        format!("{type_name}#{id}")
    }
}

/// Properties of a section, last occurrence winning, at the position of the first.
pub(super) fn props_of<'s>(sc: &'s Scene, s: &'s Section) -> Vec<(&'s str, &'s str)> {
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(s.props.len());
    let mut pos: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &s.props {
        let v = sc.slice(&p.value);
        match pos.get(p.key.as_str()) {
            Some(&i) => out[i].1 = v,
            None => {
                pos.insert(p.key.as_str(), out.len());
                out.push((p.key.as_str(), v));
            }
        }
    }
    out
}

/// Every property of a section as (key, short display value): the body of an added or
/// removed part.
pub(super) fn all_props(side: &Side, s: &Section) -> Vec<(String, String)> {
    props_of(side.sc, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), side.short(v)))
        .collect()
}
