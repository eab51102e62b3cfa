//! Which node on the old side is which on the new. First by `unique_id` when both sides
//! carry it, then by path (with parents already paired followed, so children of a renamed
//! or moved node keep their partner), then renames (same parent, same kind, alike
//! properties) and moves (same name, same kind, alike), repeated while that finds more;
//! a rename or move pairs only nodes each the other's one most alike, the merge's rule
//! ([`crate::model::likeness::mutual_best_among`]), so a tie is a removal and an addition.
//! Two nodes with different `unique_id`s are never the same node. A node whose type
//! changed is the same node when its path is the same, and a renamed or moved one may be
//! when the type is only Godot 4's name for its Godot 3 class (`Spatial` -> `Node3D`). What changed between
//! partners is [`super::nodes`]'s decision.

use super::context::Differ;
use super::godot3;
use super::noise::labelled;
use super::side::{parent_path, props_of, Side};
use crate::model::likeness::{likeness, mutual_best_among, Budget};
use crate::model::{join_path, Node, NodeKey};
use crate::value::{self, RefKind, Value};
use hashbrown::{hash_table, HashTable};
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// Rounds of rename/move pairing (each may reveal more pairs by path).
const RENAME_ROUNDS: usize = 8;

/// Pair nodes by unique_id (both sides), then by path with renamed/moved parents followed.
pub(super) fn pair_nodes_by_key(d: &mut Differ) {
    let (o, n) = (&d.old.sc.nodes, &d.new.sc.nodes);
    let (by_key, twins) = new_by_key(n);
    let mut next = 0; // the new node after the last partner found: the likely next one
    for (i, nd) in o.iter().enumerate() {
        if !has_id(nd) {
            continue;
        }
        let found = match n.get(next) {
            // No two new keys alike: the node there is the one the lookup would give.
            Some(m) if !twins && m.key == nd.key => Some(next),
            _ => by_key.get(&nd.key),
        };
        if let Some(j) = found {
            next = j + 1;
            if d.node_pair_rev[j].is_none() {
                d.node_pair[i] = Some(j);
                d.node_pair_rev[j] = Some(i);
            }
        }
    }
    pair_nodes_by_path(d);
}

/// Whether a node is keyed by its `unique_id`.
fn has_id(nd: &Node) -> bool {
    matches!(nd.key, NodeKey::UniqueId { .. })
}

/// The first new node of each unique_id key ([`KeyTable`]), and whether two new nodes
/// share a key.
fn new_by_key(n: &[Node]) -> (KeyTable<'_>, bool) {
    let count = n.iter().filter(|nd| has_id(nd)).count();
    let mut table = KeyTable {
        nodes: n,
        first: HashTable::with_capacity(count),
        beyond: false,
    };
    let mut twins = false;
    let rehash = |&j: &u32| key_hash(&n[j as usize].key);
    for (j, nd) in n.iter().enumerate().filter(|(_, nd)| has_id(nd)) {
        let Ok(j) = u32::try_from(j) else {
            table.beyond = true; // never in practice: 4 billion nodes
            return (table, true);
        };
        let same = |&k: &u32| n[k as usize].key == nd.key;
        match table.first.entry(key_hash(&nd.key), same, rehash) {
            hash_table::Entry::Occupied(_) => twins = true,
            hash_table::Entry::Vacant(v) => {
                v.insert(j);
            }
        }
    }
    (table, twins)
}

/// New nodes by unique_id key: the index of the first node of each key, four bytes an
/// entry (the table of a scene of 100,000 nodes stays small in the cache).
struct KeyTable<'n> {
    nodes: &'n [Node],
    first: HashTable<u32>,
    /// More nodes than a `u32` counts: the table is not made, lookups scan.
    beyond: bool,
}

impl KeyTable<'_> {
    /// The first new node with `key`.
    fn get(&self, key: &NodeKey) -> Option<usize> {
        if self.beyond {
            return self
                .nodes
                .iter()
                .position(|nd| has_id(nd) && nd.key == *key);
        }
        let same = |&k: &u32| self.nodes[k as usize].key == *key;
        self.first.find(key_hash(key), same).map(|&j| j as usize)
    }
}

/// The hash of a node key in a [`KeyTable`].
fn key_hash(key: &NodeKey) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(key)
}

/// Renames and moves, each round followed by pairing by path; returns how many
/// likenesses were computed (at most the [`Budget`] for the two scenes: beyond it the
/// nodes left are reported removed and added).
pub(super) fn pair_renamed_and_moved(d: &mut Differ) -> usize {
    let (o, n) = (d.old.sc.nodes.len(), d.new.sc.nodes.len());
    if d.node_pair.iter().all(Option::is_some) || d.node_pair_rev.iter().all(Option::is_some) {
        return 0; // a side with every node paired: no node left to be renamed or moved
    }
    let mut lk = Likeness {
        budget: Budget::for_nodes(o + n),
        old: (0..o).map(|_| OnceCell::new()).collect(),
        new: (0..n).map(|_| OnceCell::new()).collect(),
    };
    for _ in 0..RENAME_ROUNDS {
        if !d.pair_renames_and_moves(&mut lk) {
            break;
        }
        pair_nodes_by_path(d);
    }
    lk.budget.spent()
}

/// The rename rounds' state: the likeness budget, and each node's properties read once
/// (a node is compared with many candidates; parsing its values each time was most of
/// the cost).
struct Likeness<'s> {
    budget: Budget,
    old: Vec<OnceCell<Vec<(&'s str, Reading)>>>,
    new: Vec<OnceCell<Vec<(&'s str, Reading)>>>,
}

/// A property value as [`Differ::compare`] sees it: its text with references by label,
/// and its parsed value with references by label.
struct Reading {
    relabelled: String,
    value: Option<Value>,
}

impl Reading {
    /// What [`Differ::compare`] calls not different: the same text with references
    /// pointing at the same things, or the same value for the engine.
    fn alike(a: &Reading, b: &Reading) -> bool {
        a.relabelled == b.relabelled
            || matches!((&a.value, &b.value), (Some(x), Some(y)) if x.sem_eq(y))
    }
}

/// Node `i`'s properties on `side`, read for likeness.
fn readings<'s>(side: &Side<'s>, i: usize) -> Vec<(&'s str, Reading)> {
    let sc = side.sc;
    let s = sc.section(sc.nodes[i].section);
    props_of(sc, s)
        .into_iter()
        .map(|(k, v)| {
            let value = value::parse(v)
                .ok()
                .map(|x| labelled(side, v, &x).unwrap_or(x));
            let relabelled = side.relabel(v).into_owned();
            (k, Reading { relabelled, value })
        })
        .collect()
}

/// Unpaired old nodes to the new node at their (translated) path.
fn pair_nodes_by_path(d: &mut Differ) {
    let mut next = 0; // the new node after the last partner: the likely next one
    for i in 0..d.old.sc.nodes.len() {
        if let Some(j) = d.node_pair[i] {
            next = j + 1;
            continue;
        }
        let on = &d.old.sc.nodes[i];
        let found = near_target(d, i, next).or_else(|| {
            let target = match d.old_parent_translated(i) {
                None => ".".to_string(),
                Some(p) => join_path(&p, &on.name),
            };
            d.new.node_at(&target)
        });
        if let Some(j) = found {
            next = j + 1;
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

/// The new node at old node `i`'s translated path, when it is new node `g` found
/// without writing the path: `g`'s parent is the partner of `i`'s parent (so its parent
/// path is the translated one), `g` has `i`'s name, and no two new nodes share a path.
fn near_target(d: &Differ, i: usize, g: usize) -> Option<usize> {
    if d.new.twins {
        return None;
    }
    let q = d.node_pair[d.old.parent_of[i]?]?;
    let m = d.new.sc.nodes.get(g)?;
    (d.new.parent_of[g] == Some(q) && m.name == d.old.sc.nodes[i].name).then_some(g)
}

impl<'a> Differ<'a> {
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
    /// nodes without a shared unique_id, paired only when each is the other's one most
    /// alike ([`mutual_best_among`], the merge's rule: a tie is no rename); children
    /// follow by path afterwards.
    fn pair_renames_and_moves(&mut self, lk: &mut Likeness<'a>) -> bool {
        if lk.budget.is_out() {
            return false;
        }
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
        let (o, n) = (self.old.sc.nodes.len(), self.new.sc.nodes.len());
        let cands = |i: usize| self.candidates(i, &by_parent, &by_name);
        let Likeness { budget, old, new } = lk;
        let (so, sn) = (&self.old, &self.new);
        let found = mutual_best_among(o, n, cands, budget, |i, j| {
            let op = old[i].get_or_init(|| readings(so, i));
            let np = new[j].get_or_init(|| readings(sn, j));
            likeness(op, np, Reading::alike)
        });
        let found = found.unwrap_or_default(); // the budget is out: the rest stay apart
        for &(i, j) in &found {
            self.node_pair[i] = Some(j);
            self.node_pair_rev[j] = Some(i);
        }
        !found.is_empty()
    }

    /// The free new nodes of the same kind that unpaired old node `i` may have become:
    /// its siblings (a rename) and namesakes (a move), each once.
    fn candidates(
        &self,
        i: usize,
        by_parent: &BTreeMap<String, Vec<usize>>,
        by_name: &BTreeMap<&str, Vec<usize>>,
    ) -> Vec<usize> {
        if self.node_pair[i].is_some() {
            return Vec::new();
        }
        let Some(parent) = self.old_parent_translated(i) else {
            return Vec::new();
        };
        let a = &self.old.sc.nodes[i];
        let siblings = by_parent.get(&parent).into_iter().flatten();
        let namesakes = by_name.get(a.name.as_str()).into_iter().flatten();
        let mut cands: Vec<usize> = siblings
            .chain(namesakes)
            .copied()
            .filter(|&j| {
                let b = &self.new.sc.nodes[j];
                self.same_kind(i, j) && !(a.unique_id.is_some() && b.unique_id.is_some())
            })
            .collect();
        cands.sort_unstable();
        cands.dedup();
        cands
    }
}
