//! Which node on the old side is which on the new. First by `unique_id` when both sides
//! carry it, then by path (with parents already paired followed, so children of a renamed
//! or moved node keep their partner), then renames (same parent, same kind, alike
//! properties) and moves (same name, same kind, alike), repeated while that finds more.
//! Two nodes with different `unique_id`s are never the same node. A node whose type
//! changed is the same node when its path is the same, and a renamed or moved one may be
//! when the type is only Godot 4's name for its Godot 3 class (`Spatial` -> `Node3D`). What changed between
//! partners is [`super::nodes`]'s decision.

use super::context::Differ;
use super::godot3;
use super::noise::Eq3;
use super::side::{parent_path, props_of, PathHasher, Side};
use crate::model::{join_path, NodeKey};
use crate::value::RefKind;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

/// The cheap hash of [`PathHasher`], for the unique_id lookup.
type PathHash = BuildHasherDefault<PathHasher>;

/// Rounds of rename/move pairing (each may reveal more pairs by path).
const RENAME_ROUNDS: usize = 8;

/// Pair nodes by unique_id (both sides), then by path with renamed/moved parents followed.
pub(super) fn pair_nodes_by_key(d: &mut Differ) {
    let (o, n) = (&d.old.sc.nodes, &d.new.sc.nodes);
    let mut by_key: HashMap<&NodeKey, usize, PathHash> = HashMap::default();
    for (j, nd) in n.iter().enumerate() {
        if matches!(nd.key, NodeKey::UniqueId { .. }) {
            by_key.entry(&nd.key).or_insert(j);
        }
    }
    for (i, nd) in o.iter().enumerate() {
        if !matches!(nd.key, NodeKey::UniqueId { .. }) {
            continue;
        }
        if let Some(&j) = by_key.get(&nd.key) {
            if d.node_pair_rev[j].is_none() {
                d.node_pair[i] = Some(j);
                d.node_pair_rev[j] = Some(i);
            }
        }
    }
    pair_nodes_by_path(d);
}

/// Renames and moves, each round followed by pairing by path.
pub(super) fn pair_renamed_and_moved(d: &mut Differ) {
    for _ in 0..RENAME_ROUNDS {
        if !d.pair_renames_and_moves() {
            break;
        }
        pair_nodes_by_path(d);
    }
}

/// Unpaired old nodes to the new node at their (translated) path.
fn pair_nodes_by_path(d: &mut Differ) {
    for i in 0..d.old.sc.nodes.len() {
        if d.node_pair[i].is_some() {
            continue;
        }
        let on = &d.old.sc.nodes[i];
        let target = match d.old_parent_translated(i) {
            None => ".".to_string(),
            Some(p) => join_path(&p, &on.name),
        };
        if let Some(&j) = d.new.node_by_path.get(target.as_str()) {
            let nn = &d.new.sc.nodes[j];
            // Both sides with unique ids that differ: different nodes.
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

    /// Same type (or its Godot 3 / Godot 4 name) and the same instanced scene.
    fn same_kind(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.old.sc.nodes[i], &self.new.sc.nodes[j]);
        let inst = |s: &Side, id: Option<&str>| id.map(|id| s.label(RefKind::Ext, id));
        let same_type = match (&a.type_name, &b.type_name) {
            (Some(x), Some(y)) => x == y || godot3::renamed_class(x, y),
            (x, y) => x == y,
        };
        same_type && inst(&self.old, a.instance()) == inst(&self.new, b.instance())
    }

    /// Renames (same parent, same kind, alike) and moves (same name, same kind, alike) of
    /// nodes without a shared unique_id; children follow by path afterwards.
    fn pair_renames_and_moves(&mut self) -> bool {
        let mut progress = false;
        let mut by_parent: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (j, nd) in self.new.sc.nodes.iter().enumerate() {
            if self.node_pair_rev[j].is_some() {
                continue;
            }
            if let Some(p) = &nd.parent {
                by_parent
                    .entry(parent_path(p).to_string())
                    .or_default()
                    .push(j);
            }
            by_name.entry(nd.name.as_str()).or_default().push(j);
        }
        for i in 0..self.old.sc.nodes.len() {
            if self.node_pair[i].is_some() {
                continue;
            }
            let Some(parent) = self.old_parent_translated(i) else {
                continue;
            };
            let name = self.old.sc.nodes[i].name.as_str();
            let siblings = by_parent.get(&parent).into_iter().flatten();
            let namesakes = by_name.get(name).into_iter().flatten();
            let cands: Vec<usize> = siblings.chain(namesakes).copied().collect();
            if let Some(j) = self.most_alike(i, &cands) {
                self.node_pair[i] = Some(j);
                self.node_pair_rev[j] = Some(i);
                progress = true;
            }
        }
        progress
    }

    /// The free candidate of the same kind most alike old node `i` (at least half).
    fn most_alike(&self, i: usize, cands: &[usize]) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for &j in cands {
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
        best.map(|(_, j)| j)
    }
}
