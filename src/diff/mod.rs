//! Semantic diff of two versions of a scene or resource.
//!
//! Parts are matched by identity, not by position: nodes by `unique_id` when both sides
//! carry it, else by path (parents renamed or moved are followed); ext_resources by uid,
//! else path; sub_resources by content, then id, then use. Values are compared with their
//! references resolved to what they point at and with engine equality
//! ([`crate::value::sem_eq_top`]), so a re-save that only renamed ids, re-spelled floats,
//! dropped `load_steps`, added uids or `unique_id`s, or reordered resources reports no
//! change. Such differences are kept apart as [`Noise`].
//!
//! The result is a flat, ordered list of [`Change`]s: grouped by node in tree order, then
//! the main resource, ext_resources, sub_resources, connections, editables and the header.

pub mod show;

use crate::model::{id_text, FileKind, NodeKey, Scene};
use crate::syntax::Section;
use crate::value::{self, PackedElems, PackedKind, RefKind, ResId, Value};
use show::{component_names, packed_len, Detail as ShowDetail};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// Byte budget of one value in a report line.
pub const VALUE_LIMIT: usize = 100;

/// The result of comparing two versions of a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffReport {
    /// Real changes, in report order (nodes in tree order, then resources, ...).
    pub changes: Vec<Change>,
    /// Differences that change nothing for the engine (re-save noise).
    pub noise: Vec<Noise>,
}

impl DiffReport {
    /// Whether anything really changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// One change, on one part of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// What changed.
    pub subject: Subject,
    /// How it changed.
    pub detail: Detail,
}

/// The part of a file a change is about; consecutive changes with equal subjects belong
/// together.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// A node: its path (new path, or old path when removed) and type.
    Node {
        /// Path relative to the root (`.` is the root).
        path: String,
        /// `type=` (absent for instances and overrides).
        type_name: Option<String>,
        /// `instance=` resolved to the scene's path.
        instance: Option<String>,
    },
    /// The `[resource]` of a `.tres`.
    MainResource {
        /// `type=` of the header.
        type_name: Option<String>,
    },
    /// An `[ext_resource]`.
    ExtResource {
        /// `path=` (new, or old when removed).
        path: String,
        /// `type=`.
        type_name: String,
        /// Nodes (paths) that use it directly or through sub_resources.
        users: Vec<String>,
    },
    /// A `[sub_resource]`.
    SubResource {
        /// Its id (new, or old when removed): an ordinary id is where to find it.
        id: String,
        /// `type=`.
        type_name: String,
        /// Nodes (paths) that use it directly or through other sub_resources.
        users: Vec<String>,
    },
    /// A `[connection]`.
    Connection {
        /// `signal=`.
        signal: String,
        /// `from=`.
        from: String,
        /// `to=`.
        to: String,
        /// `method=`.
        method: String,
    },
    /// An `[editable]`.
    Editable {
        /// `path=`.
        path: String,
    },
    /// The file header.
    Header,
}

impl Subject {
    /// Short machine name of the subject kind (JSON `subject.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Node { .. } => "node",
            Subject::MainResource { .. } => "resource",
            Subject::ExtResource { .. } => "ext_resource",
            Subject::SubResource { .. } => "sub_resource",
            Subject::Connection { .. } => "connection",
            Subject::Editable { .. } => "editable",
            Subject::Header => "header",
        }
    }
}

/// How a part changed. Values are canonical display text (references resolved, floats
/// normalised, long values shortened).
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    /// The part is new. `properties` lists its stored properties (key, value).
    Added {
        /// Its properties.
        properties: Vec<(String, String)>,
    },
    /// The part is gone.
    Removed {
        /// Its properties as they were.
        properties: Vec<(String, String)>,
    },
    /// A node's name changed.
    Renamed {
        /// Old name.
        old: String,
        /// New name.
        new: String,
    },
    /// A node moved to another parent.
    Moved {
        /// Old parent path.
        old_parent: String,
        /// New parent path.
        new_parent: String,
    },
    /// A node changed place among its siblings.
    Reordered {
        /// Old position among the siblings.
        old_index: usize,
        /// New position.
        new_index: usize,
    },
    /// A header field changed (`type`, `instance`, `owner`, `index`, `path`, `format`, ...).
    Field {
        /// Field name (`script` is reported this way too).
        field: String,
        /// Old value, `None` when absent.
        old: Option<String>,
        /// New value, `None` when absent.
        new: Option<String>,
    },
    /// A node joined a group.
    GroupAdded {
        /// The group.
        group: String,
    },
    /// A node left a group.
    GroupRemoved {
        /// The group.
        group: String,
    },
    /// A property was set.
    PropertyAdded {
        /// Property key.
        key: String,
        /// Its value.
        value: String,
    },
    /// A property was removed (back to its default).
    PropertyRemoved {
        /// Property key.
        key: String,
        /// Its old value.
        value: String,
    },
    /// A property changed value.
    PropertyChanged {
        /// Property key.
        key: String,
        /// Old value.
        old: String,
        /// New value.
        new: String,
        /// Finer detail for math types and packed arrays.
        delta: Delta,
    },
}

impl Detail {
    /// Short machine name of the change kind (JSON `kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Detail::Added { .. } => "added",
            Detail::Removed { .. } => "removed",
            Detail::Renamed { .. } => "renamed",
            Detail::Moved { .. } => "moved",
            Detail::Reordered { .. } => "reordered",
            Detail::Field { .. } => "field_changed",
            Detail::GroupAdded { .. } => "group_added",
            Detail::GroupRemoved { .. } => "group_removed",
            Detail::PropertyAdded { .. } => "property_added",
            Detail::PropertyRemoved { .. } => "property_removed",
            Detail::PropertyChanged { .. } => "property_changed",
        }
    }
}

/// Finer detail of a changed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// Nothing finer to say.
    None,
    /// Same math type: the components that changed (name, old, new).
    Components(Vec<(String, String, String)>),
    /// Same packed array kind: lengths and how many elements (of the common prefix) differ.
    Packed {
        /// Canonical packed type name.
        kind: String,
        /// Old length in elements.
        old_len: usize,
        /// New length in elements.
        new_len: usize,
        /// Elements of the common prefix that differ.
        changed: usize,
    },
}

/// Kinds of re-save noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NoiseKind {
    /// A resource id changed, content the same.
    IdRenamed,
    /// A value spelled differently with the same meaning (float digits, legacy names, ...).
    Respelled,
    /// `load_steps` changed or was dropped.
    LoadSteps,
    /// A `uid` was added (ext_resource or header).
    UidAdded,
    /// A `unique_id` was added to a node (4.6 re-save).
    UniqueIdAdded,
    /// Resources listed in another order.
    Reordered,
    /// 4.6 id paths (`parent_id_path`, `owner_uid_path`, `from_uid_path`, ...) changed.
    IdPath,
}

impl NoiseKind {
    /// Machine name (JSON).
    pub fn name(self) -> &'static str {
        match self {
            NoiseKind::IdRenamed => "id_renamed",
            NoiseKind::Respelled => "respelled",
            NoiseKind::LoadSteps => "load_steps",
            NoiseKind::UidAdded => "uid_added",
            NoiseKind::UniqueIdAdded => "unique_id_added",
            NoiseKind::Reordered => "reordered",
            NoiseKind::IdPath => "id_path",
        }
    }
}

/// A difference that is not a change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Noise {
    /// Which kind.
    pub kind: NoiseKind,
    /// Where (a node path, resource, `header`, ...).
    pub subject: String,
    /// What, in words.
    pub detail: String,
}

// ---------------------------------------------------------------------------------------
// Per-side lookups

/// One side of the comparison with its lookups and the labels that make references
/// comparable across sides (a paired resource gets the same label on both sides).
struct Side<'a> {
    sc: &'a Scene,
    ext_by_id: BTreeMap<&'a str, usize>,
    sub_by_id: BTreeMap<&'a str, usize>,
    ext_label: Vec<String>,
    sub_label: Vec<String>,
    node_by_path: BTreeMap<&'a str, usize>,
    /// Children of each node path, in file order.
    children: BTreeMap<&'a str, Vec<usize>>,
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
    fn new(sc: &'a Scene) -> Side<'a> {
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

    fn label(&self, k: RefKind, id: &str) -> String {
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
    fn display(&self, k: RefKind, id: &str) -> String {
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
    fn relabel<'t>(&self, text: &'t str) -> Cow<'t, str> {
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

    fn short(&self, text: &str) -> String {
        self.show(text, ShowDetail::Short { limit: VALUE_LIMIT })
    }

    fn raw_field(&self, s: &'a Section, key: &str) -> Option<&'a str> {
        s.tag.field(key).map(|r| self.sc.doc.slice(r))
    }

    fn instance_path(&self, node: usize) -> Option<String> {
        let n = &self.sc.nodes[node];
        n.instance.as_ref().map(|id| self.display(RefKind::Ext, id))
    }

    /// Nodes using a resource, directly or through sub_resources.
    fn users(&self, kind: RefKind, idx: usize) -> Vec<String> {
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
fn props_of<'s>(sc: &'s Scene, s: &'s Section) -> Vec<(&'s str, &'s str)> {
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

/// FNV-1a, for content fingerprints (deterministic across runs and platforms).
pub(crate) fn fnv(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

/// FNV-style hash eight bytes at a time: only for in-run fingerprints (never shown).
fn fnv_wide(h: &mut u64, bytes: &[u8]) {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        *h = (*h ^ w).wrapping_mul(0x100000001b3).rotate_left(29);
    }
    fnv(h, chunks.remainder());
}

/// Offset basis of [`fnv`].
pub(crate) const FNV0: u64 = 0xcbf29ce484222325;

// ---------------------------------------------------------------------------------------
// Comparison engine

enum Eq3 {
    Same,
    Noise(NoiseKind),
    /// Different; the parsed (unlabelled) values when both parsed.
    Differs(Option<Box<(Value, Value)>>),
}

struct Differ<'a> {
    old: Side<'a>,
    new: Side<'a>,
    /// old node index -> new node index.
    node_pair: Vec<Option<usize>>,
    node_pair_rev: Vec<Option<usize>>,
    noise: Vec<Noise>,
}

impl<'a> Differ<'a> {
    /// Whether every reference in `text` points to the same thing on both sides.
    fn same_refs(&self, text: &str) -> bool {
        let mut same = true;
        if text.contains("Resource") {
            value::scan_refs_in_text(text, &mut |k, id| {
                if same && self.old.label(k, id) != self.new.label(k, id) {
                    same = false;
                }
            });
        }
        same
    }

    fn compare(&self, a: &str, b: &str) -> Eq3 {
        if a == b && self.same_refs(a) {
            // Same text: the same unless a reference now points elsewhere.
            return Eq3::Same;
        }
        let (ra, rb) = (self.old.relabel(a), self.new.relabel(b));
        if ra == rb {
            return if a == b {
                Eq3::Same
            } else {
                Eq3::Noise(NoiseKind::IdRenamed)
            };
        }
        let (Ok(x), Ok(y)) = (value::parse(a), value::parse(b)) else {
            return Eq3::Differs(None);
        };
        let label = |side: &Side, text: &str, v: &Value| -> Option<Value> {
            if !text.contains("Resource") {
                return None;
            }
            let mut v = v.clone();
            v.map_refs(&mut |k, id| Some(ResId::Str(side.label(k, &id.key()))));
            Some(v)
        };
        let (lx, ly) = (label(&self.old, a, &x), label(&self.new, b, &y));
        if value::sem_eq_top(lx.as_ref().unwrap_or(&x), ly.as_ref().unwrap_or(&y)) {
            return Eq3::Noise(NoiseKind::Respelled);
        }
        Eq3::Differs(Some(Box::new((x, y))))
    }

    fn note(&mut self, kind: NoiseKind, subject: &str, detail: String) {
        self.noise.push(Noise {
            kind,
            subject: subject.to_string(),
            detail,
        });
    }

    /// Translate an old node path to the new tree (following renames and moves).
    fn translate(&self, old_path: &str) -> String {
        if let Some(&i) = self.old.node_by_path.get(old_path) {
            if let Some(j) = self.node_pair[i] {
                return self.new.sc.nodes[j].path.to_string();
            }
        }
        match old_path.rfind('/') {
            Some(k) => {
                let parent = self.translate(&old_path[..k]);
                crate::model::join_path(&parent, &old_path[k + 1..])
            }
            None => {
                if old_path == "." || old_path.is_empty() {
                    ".".to_string()
                } else {
                    crate::model::join_path(".", old_path)
                }
            }
        }
    }

    fn old_parent_translated(&self, i: usize) -> Option<String> {
        self.old.sc.nodes[i]
            .parent
            .as_ref()
            .map(|p| self.translate(if p.is_empty() { "." } else { p }))
    }

    /// Compare property lists; `subject` names where for noise.
    fn props(
        &mut self,
        subject: &str,
        os: &Section,
        ns: &Section,
        out: &mut Vec<Detail>,
        script_as_field: bool,
    ) {
        let op = props_of(self.old.sc, os);
        let np = props_of(self.new.sc, ns);
        let omap: BTreeMap<&str, &str> = op.iter().copied().collect();
        let nmap: BTreeMap<&str, &str> = np.iter().copied().collect();
        let mut order_noise = false;
        // Old keys in new order would be a reordering; property order is the engine's.
        let common_old: Vec<&str> = op
            .iter()
            .map(|p| p.0)
            .filter(|k| nmap.contains_key(k))
            .collect();
        let common_new: Vec<&str> = np
            .iter()
            .map(|p| p.0)
            .filter(|k| omap.contains_key(k))
            .collect();
        if common_old != common_new {
            order_noise = true;
        }
        for (k, nv) in &np {
            match omap.get(k) {
                None => {
                    if script_as_field && *k == "script" {
                        out.push(Detail::Field {
                            field: "script".into(),
                            old: None,
                            new: Some(self.new.short(nv)),
                        });
                    } else {
                        out.push(Detail::PropertyAdded {
                            key: k.to_string(),
                            value: self.new.short(nv),
                        });
                    }
                }
                Some(ov) => match self.compare(ov, nv) {
                    Eq3::Same => {}
                    Eq3::Noise(kind) => {
                        let d = format!(
                            "{k}: {} -> {}",
                            show::shorten(ov.trim(), 60),
                            show::shorten(nv.trim(), 60)
                        );
                        self.note(kind, subject, d);
                    }
                    Eq3::Differs(parsed) => {
                        if script_as_field && *k == "script" {
                            out.push(Detail::Field {
                                field: "script".into(),
                                old: Some(self.old.short(ov)),
                                new: Some(self.new.short(nv)),
                            });
                        } else {
                            out.push(self.changed(k, ov, nv, parsed));
                        }
                    }
                },
            }
        }
        for (k, ov) in &op {
            if !nmap.contains_key(k) {
                if script_as_field && *k == "script" {
                    out.push(Detail::Field {
                        field: "script".into(),
                        old: Some(self.old.short(ov)),
                        new: None,
                    });
                } else {
                    out.push(Detail::PropertyRemoved {
                        key: k.to_string(),
                        value: self.old.short(ov),
                    });
                }
            }
        }
        if order_noise {
            self.note(
                NoiseKind::Reordered,
                subject,
                "properties listed in another order".into(),
            );
        }
    }

    fn changed(
        &self,
        key: &str,
        ov: &str,
        nv: &str,
        parsed: Option<Box<(Value, Value)>>,
    ) -> Detail {
        let short = ShowDetail::Short { limit: VALUE_LIMIT };
        let (old, new, delta) = match parsed {
            Some(p) => (
                show::show(&p.0, &|k, id| self.old.display(k, id), short),
                show::show(&p.1, &|k, id| self.new.display(k, id), short),
                delta(&p.0, &p.1),
            ),
            None => (self.old.short(ov), self.new.short(nv), Delta::None),
        };
        Detail::PropertyChanged {
            key: key.to_string(),
            old,
            new,
            delta,
        }
    }

    fn field_cmp(
        &mut self,
        subject: &str,
        os: &Section,
        ns: &Section,
        key: &str,
        out: &mut Vec<Detail>,
    ) {
        let (a, b) = (self.old.raw_field(os, key), self.new.raw_field(ns, key));
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b)) => match self.compare(a, b) {
                Eq3::Same => {}
                Eq3::Noise(k) => {
                    self.note(k, subject, format!("{key}: {} -> {}", a.trim(), b.trim()))
                }
                Eq3::Differs(_) => out.push(Detail::Field {
                    field: key.into(),
                    old: Some(self.old.short(a)),
                    new: Some(self.new.short(b)),
                }),
            },
            (a, b) => out.push(Detail::Field {
                field: key.into(),
                old: a.map(|t| self.old.short(t)),
                new: b.map(|t| self.new.short(t)),
            }),
        }
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn no_names(_: RefKind, id: &str) -> String {
    id.to_string()
}

/// Per-component or per-element detail of a changed value.
fn delta(a: &Value, b: &Value) -> Delta {
    match (a, b) {
        (Value::Ctor { name: an, args: aa }, Value::Ctor { name: bn, args: ba })
            if value::canonical_ctor_name(an) == value::canonical_ctor_name(bn)
                && aa.len() == ba.len()
                && aa.len() > 1 =>
        {
            let names = component_names(bn, ba.len());
            let mut comps = Vec::new();
            for (i, (x, y)) in aa.iter().zip(ba).enumerate() {
                let same = match (num(x), num(y)) {
                    (Some(p), Some(q)) => value::float_eq(p, q),
                    _ => x.sem_eq(y),
                };
                if !same {
                    let s = |v: &Value| show::show(v, &no_names, ShowDetail::Short { limit: 40 });
                    comps.push((names[i].clone(), s(x), s(y)));
                }
            }
            if comps.is_empty() {
                Delta::None
            } else {
                Delta::Components(comps)
            }
        }
        (Value::Packed(pa), Value::Packed(pb)) if pa.kind().is_some() && pa.kind() == pb.kind() => {
            let kind = pa.kind().unwrap_or(PackedKind::Byte);
            let (Ok(ea), Ok(eb)) = (pa.elements(), pb.elements()) else {
                return Delta::None;
            };
            let comps = kind.components();
            let (old_len, new_len) = (packed_len(&ea, comps), packed_len(&eb, comps));
            let n = old_len.min(new_len);
            let changed = match (&ea, &eb) {
                (PackedElems::Bytes(x), PackedElems::Bytes(y)) => {
                    (0..n).filter(|&i| x[i] != y[i]).count()
                }
                (PackedElems::Ints(x), PackedElems::Ints(y)) => {
                    (0..n).filter(|&i| x[i] != y[i]).count()
                }
                (PackedElems::Strings(x), PackedElems::Strings(y)) => {
                    (0..n).filter(|&i| x[i] != y[i]).count()
                }
                (PackedElems::Floats(x), PackedElems::Floats(y)) => (0..n)
                    .filter(|&i| {
                        (0..comps).any(|c| !value::float_eq(x[i * comps + c], y[i * comps + c]))
                    })
                    .count(),
                _ => 0,
            };
            Delta::Packed {
                kind: kind.name().to_string(),
                old_len,
                new_len,
                changed,
            }
        }
        _ => Delta::None,
    }
}

// ---------------------------------------------------------------------------------------
// Pairing

fn pair_ext(d: &mut Differ) -> Vec<Option<usize>> {
    let (o, n) = (&d.old.sc.ext_resources, &d.new.sc.ext_resources);
    let mut pair = vec![None; o.len()];
    let mut taken = vec![false; n.len()];
    let valid = |u: &Option<String>| {
        u.as_ref()
            .filter(|u| u.starts_with("uid://") && u.len() > 6)
            .cloned()
    };
    let mut by_uid: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (j, e) in n.iter().enumerate() {
        if let Some(u) = valid(&e.uid) {
            by_uid.entry(u).or_default().push(j);
        }
        by_path.entry(e.path.as_str()).or_default().push(j);
    }
    for (i, e) in o.iter().enumerate() {
        if let Some(u) = valid(&e.uid) {
            if let Some(j) = by_uid
                .get(&u)
                .and_then(|v| v.iter().copied().find(|&j| !taken[j]))
            {
                pair[i] = Some(j);
                taken[j] = true;
            }
        }
    }
    for (i, e) in o.iter().enumerate() {
        if pair[i].is_some() {
            continue;
        }
        let cand = by_path.get(e.path.as_str()).and_then(|v| {
            v.iter()
                .copied()
                .find(|&j| !taken[j] && (valid(&e.uid).is_none() || valid(&n[j].uid).is_none()))
        });
        if let Some(j) = cand {
            pair[i] = Some(j);
            taken[j] = true;
        }
    }
    d.new.ext_label = (0..n.len()).map(|j| format!("e{j}")).collect();
    d.old.ext_label = (0..o.len())
        .map(|i| pair[i].map_or(format!("eo{i}"), |j| format!("e{j}")))
        .collect();
    pair
}

/// Content fingerprint of every sub_resource of a side: type and properties (sorted by
/// key), references replaced by labels (ext) or the referenced sub's fingerprint.
fn sub_fingerprints(side: &Side) -> Vec<u64> {
    let subs = &side.sc.sub_resources;
    let mut fp: Vec<Option<u64>> = vec![None; subs.len()];
    fn go(side: &Side, i: usize, fp: &mut Vec<Option<u64>>, depth: usize) -> u64 {
        if let Some(h) = fp[i] {
            return h;
        }
        let sc = side.sc;
        let s = sc.section(sc.sub_resources[i].section);
        let mut props = props_of(sc, s);
        props.sort_by(|a, b| a.0.cmp(b.0));
        let mut h = FNV0;
        fnv(&mut h, sc.sub_resources[i].type_name.as_bytes());
        for (k, v) in props {
            fnv(&mut h, b"\n");
            fnv(&mut h, k.as_bytes());
            fnv(&mut h, b"=");
            if v.contains("Resource") {
                let t = value::rewrite_refs_in_text(v, &mut |kind, id| match kind {
                    RefKind::Ext => Some(side.label(kind, id)),
                    RefKind::Sub => match side.sub_by_id.get(id) {
                        Some(&j) if j != i && depth < 64 => {
                            Some(format!("{:x}", go(side, j, fp, depth + 1)))
                        }
                        _ => Some(format!("?{id}")),
                    },
                });
                fnv_wide(&mut h, t.trim().as_bytes());
            } else {
                fnv_wide(&mut h, v.trim().as_bytes());
            }
        }
        fp[i] = Some(h);
        h
    }
    (0..subs.len()).map(|i| go(side, i, &mut fp, 0)).collect()
}

/// First place a sub_resource is used: (referring node's paired identity, property key).
fn sub_use_sites(
    side: &Side,
    node_label: &dyn Fn(usize) -> String,
) -> Vec<Option<(String, String)>> {
    let sc = side.sc;
    let mut out: Vec<Option<(String, String)>> = vec![None; sc.sub_resources.len()];
    let mut visit = |owner: String, s: &Section| {
        for p in &s.props {
            value::scan_refs_in_text(sc.slice(&p.value), &mut |k, id| {
                if k == RefKind::Sub {
                    if let Some(&j) = side.sub_by_id.get(id) {
                        if out[j].is_none() {
                            out[j] = Some((owner.clone(), p.key.to_string()));
                        }
                    }
                }
            });
        }
    };
    for (i, n) in sc.nodes.iter().enumerate() {
        visit(node_label(i), sc.section(n.section));
    }
    if let Some(r) = sc.resource {
        visit("(resource)".into(), sc.section(r));
    }
    out
}

fn pair_sub(d: &mut Differ) -> Vec<Option<usize>> {
    let (o, n) = (&d.old.sc.sub_resources, &d.new.sc.sub_resources);
    let mut pair: Vec<Option<usize>> = vec![None; o.len()];
    let mut taken = vec![false; n.len()];
    let fo = sub_fingerprints(&d.old);
    let fnw = sub_fingerprints(&d.new);
    let mut by_fp: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (j, h) in fnw.iter().enumerate() {
        by_fp.entry(*h).or_default().push(j);
    }
    // 1. Same content (prefer the same id among equals).
    for i in 0..o.len() {
        if let Some(c) = by_fp.get(&fo[i]) {
            let free: Vec<usize> = c.iter().copied().filter(|&j| !taken[j]).collect();
            if let Some(&j) = free.iter().find(|&&j| n[j].id == o[i].id).or(free.first()) {
                pair[i] = Some(j);
                taken[j] = true;
            }
        }
    }
    // 2. Same id and type.
    for i in 0..o.len() {
        if pair[i].is_some() {
            continue;
        }
        if let Some(&j) = d.new.sub_by_id.get(o[i].id.as_str()) {
            if !taken[j] && n[j].type_name == o[i].type_name {
                pair[i] = Some(j);
                taken[j] = true;
            }
        }
    }
    // 3. Same use: first referenced by the same node's same property, same type.
    if pair.iter().all(Option::is_some) || taken.iter().all(|t| *t) {
        d.new.sub_label = (0..n.len()).map(|j| format!("s{j}")).collect();
        d.old.sub_label = (0..o.len())
            .map(|i| pair[i].map_or(format!("so{i}"), |j| format!("s{j}")))
            .collect();
        return pair;
    }
    let np = &d.node_pair;
    let so = sub_use_sites(&d.old, &|i| {
        np[i].map_or(format!("old{i}"), |j| format!("n{j}"))
    });
    let sn = sub_use_sites(&d.new, &|j| format!("n{j}"));
    let mut by_use: BTreeMap<(&String, &String, &str), usize> = BTreeMap::new();
    for (j, u) in sn.iter().enumerate() {
        if let (Some((a, b)), false) = (u, taken[j]) {
            by_use.entry((a, b, n[j].type_name.as_str())).or_insert(j);
        }
    }
    for i in 0..o.len() {
        if pair[i].is_some() {
            continue;
        }
        if let Some((a, b)) = &so[i] {
            if let Some(&j) = by_use.get(&(a, b, o[i].type_name.as_str())) {
                if !taken[j] {
                    pair[i] = Some(j);
                    taken[j] = true;
                }
            }
        }
    }
    d.new.sub_label = (0..n.len()).map(|j| format!("s{j}")).collect();
    d.old.sub_label = (0..o.len())
        .map(|i| pair[i].map_or(format!("so{i}"), |j| format!("s{j}")))
        .collect();
    pair
}

/// Pair nodes by unique_id (both sides), then by path with renamed/moved parents followed.
fn pair_nodes_by_key(d: &mut Differ) {
    let (o, n) = (&d.old.sc.nodes, &d.new.sc.nodes);
    let mut by_key: BTreeMap<&NodeKey, usize> = BTreeMap::new();
    for (j, nd) in n.iter().enumerate() {
        if matches!(nd.key, NodeKey::UniqueId { .. }) {
            by_key.entry(&nd.key).or_insert(j);
        }
    }
    for (i, nd) in o.iter().enumerate() {
        if matches!(nd.key, NodeKey::UniqueId { .. }) {
            if let Some(&j) = by_key.get(&nd.key) {
                if d.node_pair_rev[j].is_none() {
                    d.node_pair[i] = Some(j);
                    d.node_pair_rev[j] = Some(i);
                }
            }
        }
    }
    pair_nodes_by_path(d);
}

fn pair_nodes_by_path(d: &mut Differ) {
    for i in 0..d.old.sc.nodes.len() {
        if d.node_pair[i].is_some() {
            continue;
        }
        let on = &d.old.sc.nodes[i];
        // Both sides with unique ids that differ: different nodes.
        let target = match d.old_parent_translated(i) {
            None => ".".to_string(),
            Some(p) => crate::model::join_path(&p, &on.name),
        };
        if let Some(&j) = d.new.node_by_path.get(target.as_str()) {
            let nn = &d.new.sc.nodes[j];
            let both_ids = on.unique_id.is_some() && nn.unique_id.is_some() && on.key != nn.key;
            if d.node_pair_rev[j].is_none() && !both_ids {
                d.node_pair[i] = Some(j);
                d.node_pair_rev[j] = Some(i);
            }
        }
    }
}

impl<'a> Differ<'a> {
    /// How alike two nodes' properties are (0..1), references compared by label.
    fn similarity(&self, i: usize, j: usize) -> f64 {
        let os = self.old.sc.section(self.old.sc.nodes[i].section);
        let ns = self.new.sc.section(self.new.sc.nodes[j].section);
        let op = props_of(self.old.sc, os);
        let np: BTreeMap<&str, &str> = props_of(self.new.sc, ns).into_iter().collect();
        let total = op.len().max(np.len());
        if total == 0 {
            return 1.0;
        }
        let same = op
            .iter()
            .filter(|(k, v)| {
                np.get(k)
                    .is_some_and(|w| !matches!(self.compare(v, w), Eq3::Differs(_)))
            })
            .count();
        same as f64 / total as f64
    }

    fn same_kind(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.old.sc.nodes[i], &self.new.sc.nodes[j]);
        let inst = |s: &Side, id: &Option<String>| id.as_ref().map(|id| s.label(RefKind::Ext, id));
        a.type_name == b.type_name && inst(&self.old, &a.instance) == inst(&self.new, &b.instance)
    }

    /// Renames (same parent, same kind, alike) and moves (same name, same kind, alike) of
    /// nodes without a shared unique_id; children follow by path afterwards.
    fn pair_renames_and_moves(&mut self) -> bool {
        let mut progress = false;
        let mut by_parent: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (j, nd) in self.new.sc.nodes.iter().enumerate() {
            if self.node_pair_rev[j].is_none() {
                if let Some(p) = &nd.parent {
                    by_parent
                        .entry(if p.is_empty() {
                            ".".into()
                        } else {
                            p.to_string()
                        })
                        .or_default()
                        .push(j);
                }
                by_name.entry(nd.name.as_str()).or_default().push(j);
            }
        }
        for i in 0..self.old.sc.nodes.len() {
            if self.node_pair[i].is_some() {
                continue;
            }
            let Some(parent) = self.old_parent_translated(i) else {
                continue;
            };
            let mut best: Option<(f64, usize)> = None;
            let cands: Vec<usize> = by_parent
                .get(&parent)
                .into_iter()
                .flatten()
                .chain(
                    by_name
                        .get(self.old.sc.nodes[i].name.as_str())
                        .into_iter()
                        .flatten(),
                )
                .copied()
                .collect();
            for j in cands {
                if self.node_pair_rev[j].is_some() || !self.same_kind(i, j) {
                    continue;
                }
                let (a, b) = (&self.old.sc.nodes[i], &self.new.sc.nodes[j]);
                if a.unique_id.is_some() && b.unique_id.is_some() {
                    continue;
                }
                let s = self.similarity(i, j);
                if s >= 0.5 && best.is_none_or(|(bs, _)| s > bs) {
                    best = Some((s, j));
                }
            }
            if let Some((_, j)) = best {
                self.node_pair[i] = Some(j);
                self.node_pair_rev[j] = Some(i);
                progress = true;
            }
        }
        progress
    }
}

// ---------------------------------------------------------------------------------------
// The diff

/// Compare two versions of a file. Pure and deterministic.
pub fn diff(old: &Scene, new: &Scene) -> DiffReport {
    let mut d = Differ {
        old: Side::new(old),
        new: Side::new(new),
        node_pair: vec![None; old.nodes.len()],
        node_pair_rev: vec![None; new.nodes.len()],
        noise: Vec::new(),
    };
    let ext_pair = pair_ext(&mut d);
    pair_nodes_by_key(&mut d);
    let sub_pair = pair_sub(&mut d);
    for _ in 0..8 {
        if !d.pair_renames_and_moves() {
            break;
        }
        pair_nodes_by_path(&mut d);
    }
    let mut changes = Vec::new();
    node_changes(&mut d, &mut changes);
    main_resource_changes(&mut d, &mut changes);
    ext_changes(&mut d, &ext_pair, &mut changes);
    sub_changes(&mut d, &sub_pair, &mut changes);
    connection_changes(&mut d, &mut changes);
    editable_changes(&mut d, &mut changes);
    header_changes(&mut d, &mut changes);
    let mut noise = std::mem::take(&mut d.noise);
    noise.sort();
    noise.dedup();
    DiffReport { changes, noise }
}

/// Compare two optional versions: `None` is a file that does not exist on that side
/// (added or deleted), reported as every part added or removed.
pub fn diff_files(old: Option<&Scene>, new: Option<&Scene>) -> DiffReport {
    match (old, new) {
        (Some(o), Some(n)) => diff(o, n),
        (None, Some(n)) => diff(&empty_like(n), n),
        (Some(o), None) => diff(o, &empty_like(o)),
        (None, None) => DiffReport::default(),
    }
}

/// A file with only the header of `s`: the other side of an added or deleted file.
fn empty_like(s: &Scene) -> Scene {
    let header = s
        .doc
        .sections
        .first()
        .map(|h| s.doc.slice(&h.tag.span))
        .unwrap_or("[gd_scene]");
    Scene::parse(format!("{header}\n").as_bytes())
        .or_else(|_| Scene::parse(b"[gd_scene]\n"))
        .unwrap_or_else(|_| s.clone())
}

fn node_subject(side: &Side, i: usize) -> Subject {
    let n = &side.sc.nodes[i];
    Subject::Node {
        path: n.path.to_string(),
        type_name: n.type_name.as_deref().map(String::from),
        instance: side.instance_path(i),
    }
}

fn all_props(side: &Side, s: &Section) -> Vec<(String, String)> {
    props_of(side.sc, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), side.short(v)))
        .collect()
}

/// Longest increasing subsequence membership (patience sort with back-pointers).
fn lis_members(seq: &[usize]) -> Vec<bool> {
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

/// Sibling reorderings: per new parent, children paired under the same parent whose
/// relative order changed (outside the longest run kept in order).
fn reorders(d: &Differ) -> BTreeMap<usize, (usize, usize)> {
    let mut out = BTreeMap::new();
    for kids in d.new.children.values() {
        let mut seq = Vec::new();
        let mut who = Vec::new();
        for (new_pos, &j) in kids.iter().enumerate() {
            let Some(i) = d.node_pair_rev[j] else {
                continue;
            };
            let on = &d.old.sc.nodes[i];
            let Some(op) = &on.parent else { continue };
            let op = if op.is_empty() { "." } else { op.as_str() };
            if d.translate(op) != *d.new.sc.nodes[j].parent.as_deref().unwrap_or(".") {
                continue; // moved
            }
            let old_pos = d
                .old
                .children
                .get(op)
                .and_then(|v| v.iter().position(|&x| x == i))
                .unwrap_or(0);
            seq.push(old_pos);
            who.push((j, old_pos, new_pos));
        }
        for (keep, (j, o, n)) in lis_members(&seq).into_iter().zip(who) {
            if !keep {
                out.insert(j, (o, n));
            }
        }
    }
    out
}

fn node_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let reordered = reorders(d);
    // Merged order: new file order, removed nodes after their old predecessor's partner.
    let mut removed_after: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    let mut last_paired: Option<usize> = None;
    for i in 0..d.old.sc.nodes.len() {
        match d.node_pair[i] {
            Some(j) => last_paired = Some(j),
            None => removed_after.entry(last_paired).or_default().push(i),
        }
    }
    let mut order: Vec<(bool, usize)> = Vec::new();
    for i in removed_after.get(&None).into_iter().flatten() {
        order.push((false, *i));
    }
    for j in 0..d.new.sc.nodes.len() {
        order.push((true, j));
        for i in removed_after.get(&Some(j)).into_iter().flatten() {
            order.push((false, *i));
        }
    }
    for (is_new, k) in order {
        if !is_new {
            let s = d.old.sc.section(d.old.sc.nodes[k].section);
            let subject = node_subject(&d.old, k);
            changes.push(Change {
                subject,
                detail: Detail::Removed {
                    properties: all_props(&d.old, s),
                },
            });
            continue;
        }
        let j = k;
        let ns = d.new.sc.section(d.new.sc.nodes[j].section);
        let Some(i) = d.node_pair_rev[j] else {
            let subject = node_subject(&d.new, j);
            changes.push(Change {
                subject,
                detail: Detail::Added {
                    properties: all_props(&d.new, ns),
                },
            });
            continue;
        };
        let os = d.old.sc.section(d.old.sc.nodes[i].section);
        // Fast path: the same bytes, the same targets, the same place.
        let (ot, nt) = (d.old.sc.slice(&os.span), d.new.sc.slice(&ns.span));
        if ot.trim_end() == nt.trim_end()
            && !reordered.contains_key(&j)
            && d.same_refs(nt)
            && d.old_parent_translated(i).as_deref()
                == d.new.sc.nodes[j]
                    .parent
                    .as_deref()
                    .map(|p| if p.is_empty() { "." } else { p })
        {
            continue;
        }
        let subject = node_subject(&d.new, j);
        let path = d.new.sc.nodes[j].path.clone();
        let mut out = Vec::new();
        let (on, nn) = (&d.old.sc.nodes[i], &d.new.sc.nodes[j]);
        if on.name != nn.name {
            out.push(Detail::Renamed {
                old: on.name.to_string(),
                new: nn.name.to_string(),
            });
        }
        let op = d.old_parent_translated(i);
        let np = nn.parent.as_ref().map(|p| {
            if p.is_empty() {
                ".".to_string()
            } else {
                p.to_string()
            }
        });
        if op != np {
            out.push(Detail::Moved {
                old_parent: on.parent.as_deref().unwrap_or("(none)").to_string(),
                new_parent: nn.parent.as_deref().unwrap_or("(none)").to_string(),
            });
        }
        if let Some(&(o, n)) = reordered.get(&j) {
            out.push(Detail::Reordered {
                old_index: o,
                new_index: n,
            });
        }
        if on.type_name != nn.type_name {
            out.push(Detail::Field {
                field: "type".into(),
                old: on.type_name.as_deref().map(String::from),
                new: nn.type_name.as_deref().map(String::from),
            });
        }
        if on.unique_id.is_none() && nn.unique_id.is_some() {
            d.note(
                NoiseKind::UniqueIdAdded,
                &path,
                format!("unique_id={}", nn.unique_id.unwrap_or(0)),
            );
        }
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
        for f in ["parent_id_path", "owner_uid_path"] {
            let (a, b) = (d.old.raw_field(os, f), d.new.raw_field(ns, f));
            if a.is_some() && b.is_some() && a != b {
                d.note(NoiseKind::IdPath, &path, format!("{f} changed"));
            }
        }
        // Groups.
        let groups = |side: &Side, s: &Section| -> Option<BTreeSet<String>> {
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
        };
        match (groups(&d.old, os), groups(&d.new, ns)) {
            (Some(a), Some(b)) => {
                for g in b.difference(&a) {
                    out.push(Detail::GroupAdded { group: g.clone() });
                }
                for g in a.difference(&b) {
                    out.push(Detail::GroupRemoved { group: g.clone() });
                }
                if a == b && d.old.raw_field(os, "groups") != d.new.raw_field(ns, "groups") {
                    d.note(
                        NoiseKind::Respelled,
                        &path,
                        "groups written differently".into(),
                    );
                }
            }
            _ => d.field_cmp(&path, os, ns, "groups", &mut out),
        }
        d.props(&path, os, ns, &mut out, true);
        changes.extend(out.into_iter().map(|detail| Change {
            subject: subject.clone(),
            detail,
        }));
    }
}

fn main_resource_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let subject = Subject::MainResource {
        type_name: d.new.sc.header.resource_type.clone(),
    };
    match (d.old.sc.resource, d.new.sc.resource) {
        (Some(a), Some(b)) => {
            let mut out = Vec::new();
            let (os, ns) = (d.old.sc.section(a), d.new.sc.section(b));
            d.props("(resource)", os, ns, &mut out, true);
            changes.extend(out.into_iter().map(|detail| Change {
                subject: subject.clone(),
                detail,
            }));
        }
        (None, Some(b)) => {
            let ns = d.new.sc.section(b);
            changes.push(Change {
                subject,
                detail: Detail::Added {
                    properties: all_props(&d.new, ns),
                },
            })
        }
        (Some(a), None) => {
            let os = d.old.sc.section(a);
            changes.push(Change {
                subject,
                detail: Detail::Removed {
                    properties: all_props(&d.old, os),
                },
            })
        }
        (None, None) => {}
    }
}

/// Whether the paired items keep their relative order.
fn order_kept(pair: &[Option<usize>]) -> bool {
    let v: Vec<usize> = pair.iter().flatten().copied().collect();
    v.windows(2).all(|w| w[0] < w[1])
}

fn ext_changes(d: &mut Differ, pair: &[Option<usize>], changes: &mut Vec<Change>) {
    let (o, n) = (&d.old.sc.ext_resources, &d.new.sc.ext_resources);
    let mut rev = vec![None; n.len()];
    for (i, p) in pair.iter().enumerate() {
        if let Some(j) = p {
            rev[*j] = Some(i);
        }
    }
    for (j, e) in n.iter().enumerate() {
        let subject = Subject::ExtResource {
            path: e.path.clone(),
            type_name: e.type_name.clone(),
            users: d.new.users(RefKind::Ext, j),
        };
        match rev[j] {
            None => changes.push(Change {
                subject,
                detail: Detail::Added {
                    properties: Vec::new(),
                },
            }),
            Some(i) => {
                let oe = &o[i];
                if oe.path != e.path {
                    changes.push(Change {
                        subject: subject.clone(),
                        detail: Detail::Field {
                            field: "path".into(),
                            old: Some(oe.path.clone()),
                            new: Some(e.path.clone()),
                        },
                    });
                }
                if oe.type_name != e.type_name {
                    changes.push(Change {
                        subject: subject.clone(),
                        detail: Detail::Field {
                            field: "type".into(),
                            old: Some(oe.type_name.clone()),
                            new: Some(e.type_name.clone()),
                        },
                    });
                }
                match (&oe.uid, &e.uid) {
                    (None, Some(u)) => d.noise.push(Noise {
                        kind: NoiseKind::UidAdded,
                        subject: e.path.clone(),
                        detail: format!("uid {u}"),
                    }),
                    (Some(a), Some(b)) if a != b => changes.push(Change {
                        subject: subject.clone(),
                        detail: Detail::Field {
                            field: "uid".into(),
                            old: Some(a.clone()),
                            new: Some(b.clone()),
                        },
                    }),
                    (Some(a), None) => changes.push(Change {
                        subject: subject.clone(),
                        detail: Detail::Field {
                            field: "uid".into(),
                            old: Some(a.clone()),
                            new: None,
                        },
                    }),
                    _ => {}
                }
                if oe.id != e.id {
                    d.noise.push(Noise {
                        kind: NoiseKind::IdRenamed,
                        subject: e.path.clone(),
                        detail: format!("ext_resource id {} -> {}", oe.id, e.id),
                    });
                }
            }
        }
    }
    for (i, e) in o.iter().enumerate() {
        if pair[i].is_none() {
            let subject = Subject::ExtResource {
                path: e.path.clone(),
                type_name: e.type_name.clone(),
                users: d.old.users(RefKind::Ext, i),
            };
            changes.push(Change {
                subject,
                detail: Detail::Removed {
                    properties: Vec::new(),
                },
            });
        }
    }
    if !order_kept(pair) {
        d.noise.push(Noise {
            kind: NoiseKind::Reordered,
            subject: "ext_resources".into(),
            detail: "listed in another order".into(),
        });
    }
}

fn sub_changes(d: &mut Differ, pair: &[Option<usize>], changes: &mut Vec<Change>) {
    let (o, n) = (&d.old.sc.sub_resources, &d.new.sc.sub_resources);
    let mut rev = vec![None; n.len()];
    for (i, p) in pair.iter().enumerate() {
        if let Some(j) = p {
            rev[*j] = Some(i);
        }
    }
    for (j, s) in n.iter().enumerate() {
        let ns = d.new.sc.section(s.section);
        let mk = |d: &Differ| Subject::SubResource {
            id: s.id.clone(),
            type_name: s.type_name.clone(),
            users: d.new.users(RefKind::Sub, j),
        };
        match rev[j] {
            None => changes.push(Change {
                subject: mk(d),
                detail: Detail::Added {
                    properties: all_props(&d.new, ns),
                },
            }),
            Some(i) => {
                let os = d.old.sc.section(o[i].section);
                let name = sub_display(&s.type_name, &s.id);
                let mut out = Vec::new();
                if o[i].type_name != s.type_name {
                    out.push(Detail::Field {
                        field: "type".into(),
                        old: Some(o[i].type_name.clone()),
                        new: Some(s.type_name.clone()),
                    });
                }
                d.props(&name, os, ns, &mut out, false);
                if o[i].id != s.id {
                    d.note(
                        NoiseKind::IdRenamed,
                        &name,
                        format!("sub_resource id {} -> {}", o[i].id, s.id),
                    );
                }
                if !out.is_empty() {
                    let subject = mk(d);
                    changes.extend(out.into_iter().map(|detail| Change {
                        subject: subject.clone(),
                        detail,
                    }));
                }
            }
        }
    }
    for (i, s) in o.iter().enumerate() {
        if pair[i].is_none() {
            let os = d.old.sc.section(s.section);
            let subject = Subject::SubResource {
                id: s.id.clone(),
                type_name: s.type_name.clone(),
                users: d.old.users(RefKind::Sub, i),
            };
            changes.push(Change {
                subject,
                detail: Detail::Removed {
                    properties: all_props(&d.old, os),
                },
            });
        }
    }
    if !order_kept(pair) {
        d.noise.push(Noise {
            kind: NoiseKind::Reordered,
            subject: "sub_resources".into(),
            detail: "listed in another order".into(),
        });
    }
}

/// Connection fields that are not part of its identity, with their default (absent) text.
const CONNECTION_FIELDS: [(&str, &str); 3] = [("flags", "2"), ("binds", "[]"), ("unbinds", "0")];

fn connection_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let key_of_new = |c: &crate::model::Connection| {
        (
            c.key.signal.clone(),
            c.key.from.clone(),
            c.key.to.clone(),
            c.key.method.clone(),
        )
    };
    let mut new_by_key: BTreeMap<(String, String, String, String), usize> = BTreeMap::new();
    for (j, c) in d.new.sc.connections.iter().enumerate() {
        new_by_key.entry(key_of_new(c)).or_insert(j);
    }
    let mut paired_new = vec![false; d.new.sc.connections.len()];
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for (i, c) in d.old.sc.connections.iter().enumerate() {
        let k = (
            c.key.signal.clone(),
            d.translate(&c.key.from),
            d.translate(&c.key.to),
            c.key.method.clone(),
        );
        match new_by_key.get(&k) {
            Some(&j) if !paired_new[j] => {
                paired_new[j] = true;
                changed.push((i, j));
            }
            _ => removed.push(i),
        }
    }
    let subj = |c: &crate::model::Connection| Subject::Connection {
        signal: c.key.signal.clone(),
        from: c.key.from.clone(),
        to: c.key.to.clone(),
        method: c.key.method.clone(),
    };
    for (i, j) in changed {
        let (oc, nc) = (&d.old.sc.connections[i], &d.new.sc.connections[j]);
        let (os, ns) = (d.old.sc.section(oc.section), d.new.sc.section(nc.section));
        let subject = subj(nc);
        let name = format!(
            "connection {} {} -> {}",
            nc.key.signal, nc.key.from, nc.key.to
        );
        for (f, def) in CONNECTION_FIELDS {
            let a = d.old.raw_field(os, f).unwrap_or(def);
            let b = d.new.raw_field(ns, f).unwrap_or(def);
            match d.compare(a, b) {
                Eq3::Same => {}
                Eq3::Noise(k) => d.note(k, &name, format!("{f}: {a} -> {b}")),
                Eq3::Differs(_) => changes.push(Change {
                    subject: subject.clone(),
                    detail: Detail::Field {
                        field: f.into(),
                        old: Some(d.old.short(a)),
                        new: Some(d.new.short(b)),
                    },
                }),
            }
        }
    }
    for (j, c) in d.new.sc.connections.iter().enumerate() {
        if !paired_new[j] {
            let s = d.new.sc.section(c.section);
            let props = CONNECTION_FIELDS
                .iter()
                .filter_map(|(f, _)| {
                    d.new
                        .raw_field(s, f)
                        .map(|v| (f.to_string(), d.new.short(v)))
                })
                .collect();
            changes.push(Change {
                subject: subj(c),
                detail: Detail::Added { properties: props },
            });
        }
    }
    for i in removed {
        let c = &d.old.sc.connections[i];
        changes.push(Change {
            subject: subj(c),
            detail: Detail::Removed {
                properties: Vec::new(),
            },
        });
    }
}

fn editable_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let old: BTreeSet<String> = d
        .old
        .sc
        .editables
        .iter()
        .map(|e| d.translate(&e.path))
        .collect();
    let new: BTreeSet<String> = d.new.sc.editables.iter().map(|e| e.path.clone()).collect();
    for p in new.difference(&old) {
        changes.push(Change {
            subject: Subject::Editable { path: p.clone() },
            detail: Detail::Added {
                properties: Vec::new(),
            },
        });
    }
    for p in old.difference(&new) {
        changes.push(Change {
            subject: Subject::Editable { path: p.clone() },
            detail: Detail::Removed {
                properties: Vec::new(),
            },
        });
    }
}

fn header_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    let (a, b) = (&d.old.sc.header, &d.new.sc.header);
    if a.load_steps != b.load_steps {
        let s = |x: Option<i64>| x.map_or("none".to_string(), |v| v.to_string());
        d.note(
            NoiseKind::LoadSteps,
            "header",
            format!("load_steps {} -> {}", s(a.load_steps), s(b.load_steps)),
        );
    }
    let mut field = |f: &str, x: Option<String>, y: Option<String>| {
        if x != y {
            changes.push(Change {
                subject: Subject::Header,
                detail: Detail::Field {
                    field: f.into(),
                    old: x,
                    new: y,
                },
            });
        }
    };
    if d.old.sc.kind != d.new.sc.kind {
        let k = |k: FileKind| {
            Some(if k == FileKind::Scene {
                "gd_scene".to_string()
            } else {
                "gd_resource".to_string()
            })
        };
        field("kind", k(d.old.sc.kind), k(d.new.sc.kind));
    }
    field(
        "format",
        a.format.map(|x| x.to_string()),
        b.format.map(|x| x.to_string()),
    );
    field("type", a.resource_type.clone(), b.resource_type.clone());
    field(
        "script_class",
        a.script_class.clone(),
        b.script_class.clone(),
    );
    match (&a.uid, &b.uid) {
        (None, Some(u)) => d.noise.push(Noise {
            kind: NoiseKind::UidAdded,
            subject: "header".into(),
            detail: format!("uid {u}"),
        }),
        (x, y) if x != y => changes.push(Change {
            subject: Subject::Header,
            detail: Detail::Field {
                field: "uid".into(),
                old: x.clone(),
                new: y.clone(),
            },
        }),
        _ => {}
    }
}

/// The id text a `[sub_resource]`/`[ext_resource]` id field holds, as the loader sees it.
pub fn section_id(sc: &Scene, s: &Section) -> Option<String> {
    s.tag.field("id").map(|r| id_text(sc.slice(r)))
}

#[cfg(test)]
mod tests;
