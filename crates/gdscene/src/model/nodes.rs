//! Building the nodes of a scene: each `[node]` section given its path, its identity
//! (`unique_id` scoped by the instance an override sits in, else the path) and the rare
//! fields, in file order, on two threads for a big scene.
//!
//! Decides each node's path and key; the other parts and the scene itself are
//! `mod.rs`'s.

use super::{
    field_int, field_small, field_text, ref_id, Node, NodeKey, RareNodeFields, SectionKind,
};
use crate::syntax::{Document, Key, Section, SmallStr};
use std::collections::BTreeSet;

/// The nodes of a scene whose document was read following another scene's, for the
/// sections copied from it: a node is read from its own section only, so the node of a
/// copied section is the followed scene's node of the section it was copied from.
#[derive(Clone, Copy)]
pub(super) struct Copied<'a> {
    /// The followed scene's nodes, in file order.
    pub(super) nodes: &'a [Node],
    /// For each section, the followed scene's section it was copied from, or
    /// `u32::MAX` (see [`crate::syntax::Document::read_like`]).
    pub(super) from: &'a [u32],
}

impl Copied<'_> {
    /// The node of section `i` copied from the followed scene, if the section was
    /// copied; `hint` is where in its nodes the last one was found (copies come in
    /// file order, so the next is almost always right after it).
    fn node(&self, i: usize, hint: &mut usize) -> Option<Node> {
        let k = *self.from.get(i)? as usize;
        if k == u32::MAX as usize {
            return None;
        }
        let nodes = self.nodes;
        let near = (*hint..nodes.len().min(*hint + 4)).find(|&j| nodes[j].section == k);
        let j = match near {
            Some(j) => j,
            None => nodes.binary_search_by_key(&k, |n| n.section).ok()?,
        };
        *hint = j + 1;
        let mut node = nodes[j].clone();
        node.section = i;
        Some(node)
    }
}

/// The nodes in file order, keyed by path (see [`key_nodes`]); on two threads from
/// `parallel_min` nodes on; copied from a followed scene where `copied` says so.
pub(super) fn build_nodes(
    doc: &Document,
    kinds: &[SectionKind],
    parallel_min: usize,
    copied: Option<Copied>,
) -> Vec<Node> {
    let node_secs: Vec<usize> = (0..doc.sections.len())
        .filter(|&i| kinds.get(i) == Some(&SectionKind::Node))
        .collect();
    let build = |list: &[usize]| -> Vec<Node> {
        let mut hint = 0;
        list.iter()
            .map(|&i| node_at(doc, i, copied, &mut hint))
            .collect()
    };
    if node_secs.len() >= parallel_min.max(2) {
        build_nodes_split(doc, &node_secs, copied).unwrap_or_else(|| build(&node_secs))
    } else {
        build(&node_secs)
    }
}

/// The node of section `i`: copied when [`Copied`] has it, else built.
fn node_at(doc: &Document, i: usize, copied: Option<Copied>, hint: &mut usize) -> Node {
    copied
        .and_then(|c| c.node(i, hint))
        .unwrap_or_else(|| build_node(doc, i, &doc.sections[i]))
}

/// Key each node by its `unique_id` when it has one, scoped by the instance an override
/// entry sits in (instance roots are known only once every node is built).
pub(super) fn key_nodes(nodes: &mut [Node]) {
    let mut instanced: BTreeSet<SmallStr> = BTreeSet::new();
    let mut root_inherited = false;
    let mut any_id = false;
    for node in nodes.iter() {
        any_id |= node.unique_id.is_some();
        if node.instance().is_some() {
            root_inherited |= node.parent.is_none();
            instanced.insert(node.path.clone());
        }
    }
    if !any_id {
        // Every node keeps its path key.
        return;
    }
    for n in nodes {
        if let Some(id) = n.unique_id {
            let scope = if n.is_override() {
                let parent = n.parent.as_deref().unwrap_or(".");
                override_scope(parent, &instanced, root_inherited)
            } else {
                SmallStr::new()
            };
            n.key = NodeKey::UniqueId { scope, id };
        }
    }
}

/// The model of one `[node]` section (its key is the path; unique ids are keyed later,
/// once every instance is known).
fn build_node(doc: &Document, i: usize, s: &Section) -> Node {
    // One pass over the fields (the last of a repeated key wins, as in
    // `Tag::field`), decoding only the ones present.
    let mut name = None;
    let mut type_name = None;
    let mut parent = None;
    let mut instance = None;
    let mut placeholder = None;
    let mut owner = None;
    let mut index = None;
    let mut unique_id = None;
    for f in &s.tag.fields {
        let slot = match f.key.as_str() {
            "name" => &mut name,
            "type" => &mut type_name,
            "parent" => &mut parent,
            "instance" => &mut instance,
            "instance_placeholder" => &mut placeholder,
            "owner" => &mut owner,
            "index" => &mut index,
            "unique_id" => &mut unique_id,
            _ => continue,
        };
        *slot = Some(&f.value);
    }
    let instance = instance.and_then(|r| ref_id(doc.slice(r), "ExtResource"));
    let name = name.map(|r| field_small(doc, r)).unwrap_or_default();
    let parent = parent.map(|r| field_small(doc, r));
    let path = match &parent {
        None => SmallStr::copy_from("."),
        Some(p) if p == "." || p.is_empty() => name.clone(),
        Some(p) => SmallStr::concat(&[p, "/", &name]),
    };
    Node {
        section: i,
        type_name: type_name.map(|r| Key::memoized(&field_small(doc, r))),
        rare: (instance.is_some() || placeholder.is_some() || owner.is_some() || index.is_some())
            .then(|| {
                Box::new(RareNodeFields {
                    instance,
                    instance_placeholder: placeholder.map(|r| field_text(doc, r)),
                    owner: owner.map(|r| field_text(doc, r)),
                    index: index.and_then(|r| field_int(doc, r)),
                })
            }),
        key: NodeKey::Path(path.clone()),
        name,
        parent,
        path,
        unique_id: unique_id.and_then(|r| field_int(doc, r)),
    }
}

/// Nodes of a big scene are built on two threads: each is read from its own section only.
pub(super) const PARALLEL_NODES_MIN: usize = 20_000;

/// Build the nodes of `secs` on two threads, each writing its half of one vector's
/// slots: nothing is copied afterwards (the nodes of a 100,000-node scene take 24 MB,
/// and a copy costs as much again in fresh pages). `None` when the second thread could
/// not be started or did not finish; the caller then builds them all itself.
fn build_nodes_split(doc: &Document, secs: &[usize], copied: Option<Copied>) -> Option<Vec<Node>> {
    let n = secs.len();
    let (a, b) = secs.split_at(n / 2);
    let fill = |slots: &mut [std::mem::MaybeUninit<Node>], list: &[usize]| {
        let mut hint = 0;
        for (slot, &i) in slots.iter_mut().zip(list) {
            slot.write(node_at(doc, i, copied, &mut hint));
        }
    };
    let mut nodes: Vec<Node> = Vec::with_capacity(n);
    let (first, second) = nodes.spare_capacity_mut()[..n].split_at_mut(a.len());
    std::thread::scope(|scope| {
        let other = std::thread::Builder::new()
            .spawn_scoped(scope, || fill(second, b))
            .ok()?;
        fill(first, a);
        other.join().ok()
    })?;
    // SAFETY: the first `n` slots are all initialised: `first` holds `a.len()` slots and
    // `fill` wrote one node into each (it zips them with `a`); `second` holds
    // `n - a.len() == b.len()` slots, each written the same way by the other thread,
    // which has finished without panicking. (Had anything failed, we returned above
    // with the length still 0: the written nodes are then leaked, never read.)
    unsafe { nodes.set_len(n) };
    Some(nodes)
}

/// The instance an override entry belongs to: the deepest listed instanced node whose
/// path is the parent or an ancestor of it; the root when the scene is inherited.
fn override_scope(parent: &str, instanced: &BTreeSet<SmallStr>, root_inherited: bool) -> SmallStr {
    let mut p = parent;
    loop {
        if let Some(found) = instanced.get(p) {
            return found.clone();
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => break,
        }
    }
    if root_inherited {
        SmallStr::copy_from(".")
    } else {
        // An override whose instance is not listed: scope by its parent path.
        SmallStr::concat(&["?", parent])
    }
}
