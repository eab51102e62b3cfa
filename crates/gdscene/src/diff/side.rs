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
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// A map keyed by node paths or resource ids, for lookups only (never iterated into
/// output), with a hash cheaper than SipHash: these keys are many and short.
pub(super) type PathMap<'a, V> = HashMap<&'a str, V, BuildHasherDefault<PathHasher>>;

/// FNV-style hasher eight bytes at a time (see [`super::identity::fnv`]).
#[derive(Default)]
pub(super) struct PathHasher(u64);

impl Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0 ^ 0xcbf29ce484222325;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h ^ w).wrapping_mul(0x100000001b3).rotate_left(29);
        }
        for &b in chunks.remainder() {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        self.0 = h;
    }

    fn finish(&self) -> u64 {
        // Mix the high bits down: hashbrown takes its bucket from the low bits.
        self.0 ^ (self.0 >> 29) ^ (self.0 >> 47)
    }
}

/// One side of the comparison with its lookups and the labels that make references
/// comparable across sides (a paired resource gets the same label on both sides).
pub(super) struct Side<'a> {
    /// The scene itself.
    pub(super) sc: &'a Scene,
    /// ext_resource index by id.
    pub(super) ext_by_id: PathMap<'a, usize>,
    /// sub_resource index by id.
    pub(super) sub_by_id: PathMap<'a, usize>,
    /// Cross-side label of each ext_resource (set by [`super::identity::pair_ext`]).
    pub(super) ext_label: Vec<String>,
    /// Cross-side label of each sub_resource (set by [`super::identity::pair_sub`]).
    pub(super) sub_label: Vec<String>,
    /// Node index by path (the first node with that path); made on first use (a diff
    /// whose nodes all keep their unique_id and parent asks few paths).
    by_path: std::cell::OnceCell<hashbrown::HashTable<usize>>,
    /// Index of each node's parent node (`None` for the root or a missing parent).
    pub(super) parent_of: Vec<Option<usize>>,
    /// Children of each parent path, in file order ([`Siblings`]).
    pub(super) children: Siblings<'a>,
    /// Each node's place among its parent's children.
    pub(super) sibling_pos: Vec<usize>,
    /// Whether two nodes may share a path ([`twins`]; `false`: every path is one node's).
    pub(super) twins: bool,
}

/// Node index by path (the first node with that path), hashed by [`path_hash`].
fn paths_of(sc: &Scene) -> hashbrown::HashTable<usize> {
    let nodes = &sc.nodes;
    let mut table = hashbrown::HashTable::with_capacity(nodes.len());
    let rehash = |&i: &usize| path_hash(&nodes[i].path);
    for (i, n) in nodes.iter().enumerate() {
        let p = n.path.as_str();
        let same = |&k: &usize| nodes[k].path.as_str() == p;
        if let hashbrown::hash_table::Entry::Vacant(v) = table.entry(path_hash(p), same, rehash) {
            v.insert(i);
        }
    }
    table
}

/// The hash of a node path in [`paths_of`]'s table.
fn path_hash(p: &str) -> u64 {
    BuildHasherDefault::<PathHasher>::default().hash_one(p)
}

/// Each node's parent: the first node whose path is its `parent=` ([`parent_path`]).
///
/// In file order a node's parent is mostly the node before it or one of that node's
/// ancestors, so with `near` those are tried first by comparing paths: when no two nodes
/// share a path ([`twins`]), the node found there is the one the lookup by path gives.
/// Otherwise (a parent written later) the lookup decides.
fn parents_of(
    sc: &Scene,
    by_path: impl Fn(&str) -> Option<usize>,
    near: bool,
) -> Vec<Option<usize>> {
    let mut parent_of: Vec<Option<usize>> = Vec::with_capacity(sc.nodes.len());
    for (i, n) in sc.nodes.iter().enumerate() {
        let found = n.parent.as_deref().and_then(|p| {
            let p = parent_path(p);
            let close = near.then(|| near_ancestor(sc, &parent_of, i, p)).flatten();
            close.or_else(|| by_path(p))
        });
        parent_of.push(found);
    }
    parent_of
}

/// Whether two nodes may share a path, told from the sibling groups: a path is its
/// `parent=` and its name (when no name holds a `/` or is `.`), so the shortest twins
/// are two parentless nodes or namesakes under one parent path, whose parent (no twin
/// itself) they both found, or both missed (the same group of orphans).
fn twins(sc: &Scene, groups: &Siblings) -> bool {
    let nodes = &sc.nodes;
    let mut parentless = 0;
    for n in nodes {
        let name = n.name.as_bytes();
        if name.contains(&b'/') || name == b"." {
            return true;
        }
        parentless += usize::from(n.parent.is_none());
    }
    if parentless > 1 {
        return true;
    }
    let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
    groups.groups().filter(|g| g.len() > 1).any(|g| {
        seen.clear();
        !g.iter().all(|&k| seen.insert(nodes[k].name.as_str()))
    })
}

/// The node at path `p` among node `i - 1` and its ancestors written before it (parents
/// already known; the walk only goes back in the file, so it ends).
fn near_ancestor(sc: &Scene, parent_of: &[Option<usize>], i: usize, p: &str) -> Option<usize> {
    let mut at = i.checked_sub(1);
    while let Some(k) = at {
        if sc.nodes[k].path.as_str() == p {
            return Some(k);
        }
        at = parent_of.get(k).copied().flatten().filter(|&q| q < k);
    }
    None
}

/// The children of each parent path, in file order: of each node (indexed by the
/// parent's node index, as one flat list cut in runs), and of each `parent=` that names
/// no node (by that path; rare).
#[derive(Default)]
pub(super) struct Siblings<'a> {
    /// Where the children of node `k` start in `list` (`start[k]..start[k + 1]`).
    start: Vec<usize>,
    /// Children grouped by parent, in file order within a group.
    list: Vec<usize>,
    /// Children of each parent path that names no node, in file order.
    orphans: PathMap<'a, Vec<usize>>,
}

impl<'a> Siblings<'a> {
    /// The children of every parent of `sc`, and each node's place among them.
    fn of(sc: &'a Scene, parent_of: &[Option<usize>]) -> (Siblings<'a>, Vec<usize>) {
        let n = sc.nodes.len();
        let mut sibling_pos = vec![0; n];
        let mut start = vec![0usize; n + 1];
        let mut orphans: PathMap<Vec<usize>> = PathMap::default();
        for (i, nd) in sc.nodes.iter().enumerate() {
            if let Some(p) = parent_of[i] {
                sibling_pos[i] = start[p + 1];
                start[p + 1] += 1;
            } else if let Some(p) = nd.parent.as_deref() {
                let kids = orphans.entry(parent_path(p)).or_default();
                sibling_pos[i] = kids.len();
                kids.push(i);
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut list = vec![0; start[n]];
        for (i, p) in parent_of.iter().enumerate() {
            if let Some(p) = *p {
                list[start[p] + sibling_pos[i]] = i;
            }
        }
        let siblings = Siblings {
            start,
            list,
            orphans,
        };
        (siblings, sibling_pos)
    }

    /// Every group of children (some empty), in no particular order.
    pub(super) fn groups(&self) -> impl Iterator<Item = &[usize]> {
        let of_nodes = self.start.windows(2).map(|w| &self.list[w[0]..w[1]]);
        of_nodes.chain(self.orphans.values().map(Vec::as_slice))
    }
}

impl<'a> Side<'a> {
    pub(super) fn new(sc: &'a Scene) -> Side<'a> {
        let ext_by_id = sc.ext_resources.iter().enumerate();
        let ext_by_id = ext_by_id.map(|(i, e)| (e.id.as_str(), i)).collect();
        let sub_by_id = sc.sub_resources.iter().enumerate();
        let sub_by_id = sub_by_id.map(|(i, s)| (s.id.as_str(), i)).collect();
        let mut side = Side {
            sc,
            ext_by_id,
            sub_by_id,
            ext_label: Vec::new(),
            sub_label: Vec::new(),
            parent_of: Vec::new(),
            by_path: std::cell::OnceCell::new(),
            children: Siblings::default(),
            sibling_pos: Vec::new(),
            twins: false,
        };
        side.parent_of = parents_of(sc, |p| side.node_at(p), true);
        (side.children, side.sibling_pos) = Siblings::of(sc, &side.parent_of);
        side.twins = twins(sc, &side.children);
        if side.twins {
            // Found near may be a later twin: the lookup gives the first.
            side.parent_of = parents_of(sc, |p| side.node_at(p), false);
            (side.children, side.sibling_pos) = Siblings::of(sc, &side.parent_of);
        }
        side
    }

    /// Node index by path (the first node with that path).
    pub(super) fn node_at(&self, path: &str) -> Option<usize> {
        let table = self.by_path.get_or_init(|| paths_of(self.sc));
        let nodes = &self.sc.nodes;
        let found = table.find(path_hash(path), |&i| nodes[i].path.as_str() == path);
        found.copied()
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
        s.tag.field(key).map(|r| self.sc.doc.slice(&r))
    }

    pub(super) fn instance_path(&self, node: usize) -> Option<String> {
        let n = &self.sc.nodes[node];
        n.instance().map(|id| self.display(RefKind::Ext, id))
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

/// A node's `parent=` as a path key (`.` for the root's children, written `""` by some
/// tools).
pub(super) fn parent_path(p: &str) -> &str {
    if p.is_empty() {
        "."
    } else {
        p
    }
}

/// Every property of a section as (key, short display value): the body of an added or
/// removed part.
pub(super) fn all_props(side: &Side, s: &Section) -> Vec<(String, String)> {
    props_of(side.sc, s)
        .into_iter()
        .map(|(k, v)| (k.to_string(), side.short(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scenes whose parents are near, far, written later, missing, or shared by twins.
    const SCENES: [&str; 3] = [
        "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
         [node name=\"A\" type=\"Node\" parent=\".\"]\n\n\
         [node name=\"B\" type=\"Node\" parent=\"A\"]\n\n\
         [node name=\"C\" type=\"Node\" parent=\"A/B\"]\n\n\
         [node name=\"D\" type=\"Node\" parent=\".\"]\n\n\
         [node name=\"E\" type=\"Node\" parent=\"A\"]\n\n\
         [node name=\"F\" type=\"Node\" parent=\"\"]\n",
        "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
         [node name=\"X\" type=\"Node\" parent=\"Later\"]\n\n\
         [node name=\"Y\" type=\"Node\" parent=\"Nowhere\"]\n\n\
         [node name=\"Later\" type=\"Node\" parent=\".\"]\n\n\
         [node name=\"Z\" type=\"Node\" parent=\"Nowhere\"]\n",
        "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
         [node name=\"A\" type=\"Node\" parent=\".\"]\n\n\
         [node name=\"A\" type=\"Node\" parent=\".\"]\n\n\
         [node name=\"K\" type=\"Node\" parent=\"A\"]\n\n\
         [node name=\"L\" type=\"Node\" parent=\"A\"]\n",
    ];

    /// The parents found near agree with the lookup by path (the slow path), and the
    /// sibling groups and places with grouping by `parent=` text.
    #[test]
    fn near_parents_and_groups_agree_with_lookup_by_path() {
        for text in SCENES {
            let sc = Scene::parse(text.as_bytes()).expect("scene");
            let side = Side::new(&sc);
            let slow = sc.nodes.iter().map(|n| {
                let p = n.parent.as_deref()?;
                side.node_at(parent_path(p))
            });
            let slow: Vec<Option<usize>> = slow.collect();
            assert_eq!(side.parent_of, slow, "{text}");
            let mut by_text: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (i, n) in sc.nodes.iter().enumerate() {
                if let Some(p) = n.parent.as_deref() {
                    let kids = by_text.entry(parent_path(p)).or_default();
                    assert_eq!(side.sibling_pos[i], kids.len(), "{text}");
                    kids.push(i);
                }
            }
            let mut want: Vec<Vec<usize>> = by_text.into_values().collect();
            let groups = side.children.groups().filter(|g| !g.is_empty());
            let mut got: Vec<Vec<usize>> = groups.map(<[usize]>::to_vec).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{text}");
        }
    }
}
