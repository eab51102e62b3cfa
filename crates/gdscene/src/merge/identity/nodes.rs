//! Which node of base, ours and theirs is the same node: by unique_id, by its place under
//! a matched parent, by path; a node beside an unchanged base node in lockstep (when
//! that is certain is [`super::lockstep`]'s); roots
//! paired; nodes both sides re-identified alike (re-saved with the same new unique_id,
//! moved under the same new parent) paired with base's. Moves and renames without a
//! unique_id are [`super::moves`]'. Last, which identities sit at one place on all
//! three sides ([`same_place`]), so that later stages skip reading those nodes.

use super::keystore::{KeyStore, NodeKey3};
use super::kinds::{node_kind, root_of};
use super::lockstep::{node_sections, BaseNode, Lockstep, ParentKind};
use super::moves::follow_moves;
use super::shared_ids::follow_shared;
use crate::merge::shared::idents::{
    FxMap, NodePaths, ParentAt, Paths, SharedChange, Table, B, O, T,
};
use crate::model::{NodeKey, Scene};
use std::borrow::Cow;

/// Node identities, in named steps: each side's path map
/// ([`side_paths`]), then base, ours and theirs in turn ([`NodeKeys::match_side`]): a
/// node joins the base node it sits beside unchanged ([`Lockstep::ident`]), else the
/// identity its unique_id, its place under a matched parent, or its path finds
/// ([`NodeKeys::find`]), else a new one. Then moves without unique ids are paired
/// ([`follow_moves`]), and last the identities placed alike everywhere are marked
/// ([`same_place`]).
pub(super) fn match_nodes<'a>(
    sc: [&'a Scene; 3],
) -> (Table, Paths<'a>, ParentAt, Vec<SharedChange>, Vec<bool>) {
    let all_paths = side_paths(sc);
    let mut keys = NodeKeys::new(sc);
    // Lockstep needs certainty: paths unique on both sides and unique_id keys unique in
    // base (see [`Lockstep::ident`]).
    let unique_paths = |s: usize| all_paths[s].len() == sc[s].nodes.len();
    for side in [B, O, T] {
        // Base's uid keys are known once base's pass has read them.
        let base_ok = !keys.base_uid_twice && unique_paths(B);
        let lockstep = side != B && base_ok && unique_paths(side);
        keys.unique = unique_paths(side);
        keys.match_side(sc, side, &all_paths[side], lockstep);
    }
    let NodeKeys {
        mut t,
        parent_at,
        locked,
        ..
    } = keys;
    split_uid_twins(sc, &mut t);
    unfuse_arrivals(sc, &mut t, &all_paths);
    follow_moves(sc, &mut t, &all_paths);
    let shared = follow_shared(sc, &mut t, &all_paths);
    pair_roots(sc, &mut t);
    let same = same_place(&t, &parent_at, &locked);
    (t, all_paths, parent_at, shared, same)
}

/// For each identity, whether its node has one name and one parent identity on base,
/// ours and theirs (see [`crate::merge::shared::idents::Idents::same_place`]): both
/// sides' nodes joined it by lockstep (each at its base node's path, under its base
/// node's parent path, so with its name), and the three parents are one identity
/// still, after every later step re-bound what it re-bound. Read from the index tables
/// alone: no node is touched. The root (no parent) is never one: its name is free.
pub(super) fn same_place(t: &Table, parent_at: &ParentAt, locked: &[Vec<u32>; 3]) -> Vec<bool> {
    let parent = |s: usize, i: usize| {
        let p = (*parent_at[s].get(i)?)?;
        t.of[s].get(p).copied().filter(|&id| id != usize::MAX)
    };
    let joined = |s: usize, i: usize, b: usize| {
        locked[s]
            .get(i)
            .is_some_and(|&l| l != u32::MAX && l as usize == b)
    };
    (t.at.iter())
        .map(|a| {
            let [Some(b), Some(o), Some(th)] = *a else {
                return false;
            };
            let pb = parent(B, b);
            joined(O, o, b)
                && joined(T, th, b)
                && pb.is_some()
                && parent(O, o) == pb
                && parent(T, th) == pb
        })
        .collect()
}

/// Two nodes both sides added with one `unique_id` (hand-edited or duplicated ids) that
/// are plainly not one node (another type or instance, or another place and other
/// properties while no base node of that type is gone from both sides, as a re-save
/// with one new id on both would leave it) are two nodes: matched by the id they were one, a Sprite2D merged with a
/// Label. Theirs' becomes a node of its own; the ids stage gives it a fresh id (and at
/// one path the two are rivals, one whole-node conflict).
pub(super) fn split_uid_twins(sc: [&Scene; 3], t: &mut Table) {
    let own = |n: &crate::model::Node| {
        n.parent.is_some() && matches!(&n.key, NodeKey::UniqueId { scope, .. } if scope.is_empty())
    };
    // (Path, type) of base nodes both sides lost: a node both sides re-saved with one
    // new id (and one side renamed, edited or re-instanced) is that base node, paired later.
    let mut lost: Option<Vec<(String, String)>> = None;
    for ident in 0..t.at.len() {
        let [None, Some(o), Some(th)] = t.at[ident] else {
            continue;
        };
        let (no, nt) = (&sc[O].nodes[o], &sc[T].nodes[th]);
        if !own(no) || !own(nt) || no.key != nt.key {
            continue;
        }
        let (what, theirs) = (node_kind(sc[O], o).1, node_kind(sc[T], th).1);
        let lost = lost.get_or_insert_with(|| {
            (t.at.iter())
                .filter_map(|a| match *a {
                    [Some(b), None, None] => {
                        Some((sc[B].nodes[b].path.to_string(), node_kind(sc[B], b).1))
                    }
                    _ => None,
                })
                .collect()
        });
        let was = |path: &str, kind: &str| lost.iter().any(|(p, k)| p == path && k == kind);
        // One side changed the type or instance of the base node both re-identified.
        let other_kind = what != theirs && !was(&no.path, &what) && !was(&nt.path, &theirs);
        let elsewhere = no.path != nt.path
            && !lost.iter().any(|(_, k)| *k == what)
            && super::moves::rename_content(sc, O, o) != super::moves::rename_content(sc, T, th);
        if other_kind || elsewhere {
            t.at[ident][T] = None;
            t.fresh(T, th);
        }
    }
}

/// A node both sides have at a path base lacks, found by that path alone (no
/// `unique_id`), may be two nodes that arrived there: ours renamed X to Y and theirs Z
/// to Y, or ours moved X onto the path where theirs added a new Y. Matched by the path
/// they would be one node carrying both (X's position, Z's rotation, both nodes'
/// children). Each side's node is tried apart: when a side's node then is the rename or
/// move of a base node that the other side still has (elsewhere, as another node), the
/// two stay apart, and the tree stage makes their meeting at one path a conflict
/// ([`crate::merge::tree::rivals`]). (When both sides' nodes follow one base node, both
/// renamed it alike: they stay one node, as before.)
pub(super) fn unfuse_arrivals(sc: [&Scene; 3], t: &mut Table, paths: &Paths) {
    let fused: Vec<usize> = (0..t.at.len())
        .filter(|&id| match t.at[id] {
            [None, Some(o), Some(th)] => {
                let plain = |n: &crate::model::Node| {
                    n.parent.is_some() && matches!(n.key, NodeKey::Path(_))
                };
                plain(&sc[O].nodes[o]) && plain(&sc[T].nodes[th])
            }
            _ => false,
        })
        .collect();
    // Nothing left base on either side: nothing arrived from elsewhere. Many shared new
    // nodes (both sides merged one branch) are that branch's, not arrivals: not tried.
    let lost = |s: usize| t.at.iter().any(|a| a[B].is_some() && a[s].is_none());
    if fused.is_empty() || fused.len() > MAX_ARRIVALS || !(lost(O) || lost(T)) {
        return;
    }
    let mut trial = t.clone();
    let halves: Vec<(usize, usize, usize)> = fused
        .iter()
        .filter_map(|&id| {
            let [_, o, th] = trial.at[id];
            let (o, th) = (o?, th?);
            trial.at[id][T] = None;
            trial.fresh(T, th);
            Some((id, o, th))
        })
        .collect();
    follow_moves(sc, &mut trial, paths);
    // Whether side `s`'s node `i` followed a base node on the trial that the other side
    // still has as another node than `other`, that side's node at this path.
    let arrived = |s: usize, i: usize, other: usize| {
        let id = trial.of[s][i];
        trial.at[id][B].is_some() && trial.at[id][3 - s].is_some_and(|k| k != other)
    };
    for (id, o, th) in halves {
        if arrived(O, o, th) || arrived(T, th, o) {
            t.at[id][T] = None;
            t.fresh(T, th);
        }
    }
}

/// At most this many nodes both sides added at one path are tried apart by
/// [`unfuse_arrivals`].
const MAX_ARRIVALS: usize = 256;

/// A scene has one root: a side whose root is still a node of its own (an editor gave
/// it another `unique_id`, or a rebuilt root another type) has base's root there, when
/// base's root has no node on that side yet (else base's root moved, e.g. wrapped in a
/// new root, and the new root is new).
pub(super) fn pair_roots(sc: [&Scene; 3], t: &mut Table) {
    let Some(keep) = root_of(sc[B]).map(|r| t.of[B][r]) else {
        return;
    };
    for s in [O, T] {
        let Some(drop) = root_of(sc[s]).map(|r| t.of[s][r]) else {
            continue;
        };
        let at = t.at[drop];
        let free = |x: usize| at[x].is_none() || t.at[keep][x].is_none();
        if drop == keep || at[B].is_some() || t.at[keep][s].is_some() || !free(O) || !free(T) {
            continue;
        }
        t.at[drop] = [None; 3];
        for x in [O, T] {
            if let Some(i) = at[x] {
                t.bind(keep, x, i);
            }
        }
    }
}

/// Each side's node paths. Big scenes: theirs' table is built on a second thread.
pub(super) fn side_paths<'a>(sc: [&'a Scene; 3]) -> Paths<'a> {
    let paths_of = |scene: &'a Scene| NodePaths::of(&scene.nodes);
    if sc[T].nodes.len() < 20_000 {
        return sc.map(|s| NodePaths::of(&s.nodes));
    }
    std::thread::scope(|scope| {
        let theirs = std::thread::Builder::new().spawn_scoped(scope, || paths_of(sc[T]));
        let (b, o) = (paths_of(sc[B]), paths_of(sc[O]));
        let t = match theirs {
            Ok(h) => h.join().unwrap_or_else(|_| paths_of(sc[T])),
            Err(_) => paths_of(sc[T]),
        };
        [b, o, t]
    })
}

/// The unique_ids of a scene's own nodes (not of override entries inside instances).
pub(super) fn own_uids(s: &Scene) -> FxMap<i64, ()> {
    s.nodes
        .iter()
        .filter_map(|n| match &n.key {
            NodeKey::UniqueId { scope, id } if scope.is_empty() => Some((*id, ())),
            _ => None,
        })
        .collect()
}

/// Whether no two base nodes share a unique_id key (matching learns it in base's pass,
/// [`NodeKeys::note_base`]; this walk is the test's reference).
#[cfg(test)]
pub(super) fn base_uids_unique(base: &Scene) -> bool {
    let mut keys: FxMap<&NodeKey, ()> = FxMap::default();
    base.nodes
        .iter()
        .all(|n| !matches!(n.key, NodeKey::UniqueId { .. }) || keys.insert(&n.key, ()).is_none())
}

/// The node identities found so far and the keys they are found by.
pub(super) struct NodeKeys<'a> {
    t: Table,
    /// The keys recorded, each with its identity.
    keys: KeyStore<'a>,
    /// Whether an identity's unique_id was already in base (then a different id on a
    /// side means a different node).
    uid_in_base: Vec<bool>,
    has_uid: Vec<bool>,
    /// The unique_id (own scene's, not an override's) an identity was first given.
    uid_of: Vec<Option<i64>>,
    /// The unique_ids of each side's own nodes, gathered when first asked for.
    side_uids: [std::cell::OnceCell<FxMap<i64, ()>>; 3],
    sc: [&'a Scene; 3],
    parent_at: ParentAt,
    /// The last parent path [`NodeKeys::match_keyed`] looked up on the side being
    /// matched, and what the side's path map gave: siblings follow each other, so most
    /// lookups repeat the one before.
    last_parent: Option<(&'a str, Option<usize>)>,
    /// For each node of ours and theirs, the base node it joined by lockstep
    /// (`u32::MAX`: none), for [`same_place`].
    locked: [Vec<u32>; 3],
    /// No two nodes of the side being matched share a path: a node found at a path
    /// is the one the path map gives (see [`parent_near`]).
    unique: bool,
    /// What lockstep asks of each base node, read while base's pass reads the node
    /// anyway: lockstep then reads a few bytes per base node, not its whole record.
    base: Vec<BaseNode>,
    /// Base's unique_id keys seen so far, and whether one was seen twice (what
    /// [`base_uids_unique`] tells, gathered in base's pass: no walk of its own).
    base_uids: FxMap<&'a NodeKey, ()>,
    base_uid_twice: bool,
}

/// Whether a node is an override entry: listed only to change a node inside an
/// instanced scene (a parent, no `type`, no `instance`).
pub(super) fn is_override_entry(n: &crate::model::Node) -> bool {
    n.parent.is_some() && n.type_name.is_none() && n.instance().is_none()
}

impl<'a> NodeKeys<'a> {
    fn new(sc: [&'a Scene; 3]) -> NodeKeys<'a> {
        let mut t = Table::new([sc[0].nodes.len(), sc[1].nodes.len(), sc[2].nodes.len()]);
        let total = sc.iter().map(|s| s.nodes.len()).sum();
        t.at.reserve(total);
        NodeKeys {
            t,
            keys: KeyStore::new(&sc[B].nodes, sc[B].nodes.len() + 64),
            uid_in_base: Vec::with_capacity(total),
            has_uid: Vec::with_capacity(total),
            uid_of: Vec::with_capacity(total),
            side_uids: Default::default(),
            sc,
            parent_at: sc.map(|s| Vec::with_capacity(s.nodes.len())),
            last_parent: None,
            locked: Default::default(),
            unique: false,
            base: Vec::with_capacity(sc[B].nodes.len()),
            base_uids: FxMap::default(),
            base_uid_twice: false,
        }
    }

    /// Give every node of `side` an identity.
    fn match_side(
        &mut self,
        sc: [&'a Scene; 3],
        side: usize,
        paths: &NodePaths<'a>,
        lockstep: bool,
    ) {
        let scene = sc[side];
        let (base_root, side_root) = (root_of(sc[B]), root_of(scene));
        self.last_parent = None; // another side, another path map
        if lockstep {
            self.locked[side] = vec![u32::MAX; scene.nodes.len()];
        }
        // The base node expected next.
        let mut bc = 0usize;
        let mut secs = lockstep.then(|| node_sections(scene)).flatten();
        for (i, n) in scene.nodes.iter().enumerate() {
            if side == B {
                self.note_base(n);
            }
            let sec = secs.as_mut().and_then(|s| s.next());
            if lockstep && self.join_lockstep(sc, side, (i, sec), bc, base_root, side_root) {
                bc += 1;
                continue;
            }
            let id = self.match_keyed(side, i, n, paths, side_root);
            if let Some(bi) = self.t.at[id][B].filter(|_| side != B) {
                bc = bi + 1;
            }
        }
    }

    /// Note what lockstep and [`base_uids_unique`]'s answer need of base node `n`.
    fn note_base(&mut self, n: &'a crate::model::Node) {
        self.base.push(BaseNode::of(n));
        if matches!(n.key, NodeKey::UniqueId { .. }) {
            self.base_uid_twice |= self.base_uids.insert(&n.key, ()).is_some();
        }
    }

    /// Lockstep: most nodes of ours and theirs sit where base has them, in the same
    /// order. Such a node joins the base node's identity without any lookup when the
    /// answer of the keyed matching is certain. (The keys the keyed matching would
    /// record are then exactly the ones base recorded.)
    fn join_lockstep(
        &mut self,
        sc: [&'a Scene; 3],
        side: usize,
        (i, sec): (usize, Option<usize>),
        bc: usize,
        base_root: Option<usize>,
        side_root: Option<usize>,
    ) -> bool {
        let Some(&base) = self.base.get(bc) else {
            return false;
        };
        let n = &sc[side].nodes[i];
        let at = Lockstep {
            sc,
            t: &self.t,
            parent_at: &self.parent_at,
            locked: &self.locked[side],
            side,
            roots: (base_root, side_root),
        };
        let Some(id) = at.ident((n, sec), bc, base) else {
            return false;
        };
        let t = &mut self.t;
        t.bind(id, side, i);
        if let (Some(l), Ok(b)) = (self.locked[side].get_mut(i), u32::try_from(bc)) {
            *l = b;
        }
        // `n`'s parent is `base`'s (lockstep saw to it).
        let direct = match base.parent {
            ParentKind::Root => None,
            ParentKind::Dot => side_root,
            ParentKind::Path => self.parent_at[B][bc].and_then(|bp| t.at[t.of[B][bp]][side]),
        };
        self.parent_at[side].push(direct);
        true
    }

    /// A node matched by its keys (a new identity when none finds one); its keys are
    /// recorded for the sides after it.
    fn match_keyed(
        &mut self,
        side: usize,
        i: usize,
        n: &'a crate::model::Node,
        paths: &NodePaths<'a>,
        side_root: Option<usize>,
    ) -> usize {
        // The parent's index when the parent path names a listed node (or is ".").
        let direct = match n.parent.as_deref() {
            Some(".") => side_root,
            Some(p) => match self.last_parent {
                Some((q, d)) if q == p => d,
                _ => {
                    let near = (self.unique)
                        .then(|| parent_near(&self.sc[side].nodes, &self.parent_at[side], i, p))
                        .flatten();
                    let d = near.or_else(|| paths.get(p).copied());
                    self.last_parent = Some((p, d));
                    d
                }
            },
            None => None,
        };
        self.parent_at[side].push(direct);
        let keys = NodeKey3 {
            uid: self.uid_key(side, n, paths),
            skey: self.scope_key(side, n, paths, direct),
            path: n.path.as_str(),
            entry: is_override_entry(n),
        };
        let id = match self.find(side, &keys) {
            Some(id) => {
                self.t.bind(id, side, i);
                id
            }
            None => {
                self.uid_in_base.push(false);
                self.has_uid.push(false);
                self.uid_of.push(None);
                self.t.fresh(side, i)
            }
        };
        self.record(side, i, id, keys);
        id
    }

    /// The unique_id key, its scope named by identity when the scope is a listed node.
    fn uid_key(
        &self,
        side: usize,
        n: &crate::model::Node,
        paths: &NodePaths<'a>,
    ) -> Option<(String, i64)> {
        let NodeKey::UniqueId { scope, id } = &n.key else {
            return None;
        };
        let scope = match paths.get(scope.as_str()) {
            Some(&si) if !scope.is_empty() && self.t.bound(side, si) => {
                format!("#{}", self.t.of[side][si])
            }
            _ => scope.to_string(),
        };
        Some((scope, *id))
    }

    /// Where the node hangs: the identity of its nearest listed ancestor and the rest
    /// of the path (so a node follows a parent that was moved or renamed).
    fn scope_key(
        &self,
        side: usize,
        n: &'a crate::model::Node,
        paths: &NodePaths<'a>,
        direct: Option<usize>,
    ) -> Option<(usize, Cow<'a, str>)> {
        let p = n.parent.as_deref()?;
        let mut cut = p.len();
        let mut anchor = direct;
        while anchor.is_none() {
            let k = p[..cut].rfind('/')?;
            anchor = paths.get(&p[..k]).copied();
            cut = k;
        }
        let a = anchor?;
        if !self.t.bound(side, a) {
            return None;
        }
        let rest = if cut >= p.len() || p == "." {
            Cow::Borrowed(n.name.as_str())
        } else {
            Cow::Owned(format!("{}/{}", &p[cut + 1..], n.name))
        };
        Some((self.t.of[side][a], rest))
    }

    /// The identity a node's keys find on `side`: by unique_id, by place, by path.
    /// Base comes first: every identity listed while it is read is one of its own nodes
    /// (claimed on base), so no lookup could find one. Skipping them saves three
    /// lookups per base node, and a walk along the whole list of a path that a hostile
    /// base repeats many times.
    fn find(&mut self, side: usize, keys: &NodeKey3<'a>) -> Option<usize> {
        if side == B {
            return None;
        }
        let t = &self.t;
        let (has_uid, uid_in_base) = (&self.has_uid, &self.uid_in_base);
        let is_uid = keys.uid.is_some();
        // A unique_id this side gives to one of its own nodes names that node.
        let held_here = |id: usize| {
            self.uid_of[id].is_some_and(|u| {
                let held = self.side_uids[side].get_or_init(|| own_uids(self.sc[side]));
                held.contains_key(&u)
            })
        };
        // A node with a unique_id is not the node of an identity that already has
        // another one, unless that identity is a base node without one (both sides
        // gave it an id when re-saving in 4.6) whose id this side holds nowhere. Two
        // nodes added under one name with different ids are two nodes.
        // An override entry is the node at its path inside the instance, whatever
        // `unique_id` a re-import of the instanced model gave it: base's entry there is
        // its own (the ids then merge as fields, three-way).
        let base_entry = |id: usize| {
            keys.entry && t.at[id][B].is_some_and(|b| is_override_entry(&self.sc[B].nodes[b]))
        };
        // A node without one is not a base node known by its unique_id, when this side
        // gives that id to another node or the path it is found by is not the base
        // node's (the other side renamed or moved the base node there: this node
        // arrived at that path, a rival, as it would be the other way round).
        let base_path = |id: usize| t.at[id][B].map(|b| self.sc[B].nodes[b].path.as_str());
        let arrived =
            |id: usize| uid_in_base[id] && (held_here(id) || base_path(id) != Some(keys.path));
        let usable = |id: usize| {
            !t.claimed(id, side)
                && (if is_uid {
                    !has_uid[id]
                        || (!uid_in_base[id] && t.at[id][B].is_some() && !held_here(id))
                        || base_entry(id)
                } else {
                    !arrived(id)
                })
        };
        let claimed = |id: usize| t.claimed(id, side);
        self.keys.find(keys, side, claimed, usable)
    }

    /// Record node `i`'s keys for the sides after it.
    fn record(&mut self, side: usize, i: usize, id: usize, keys: NodeKey3<'a>) {
        if let Some(k) = &keys.uid {
            if k.0.is_empty() && self.uid_of[id].is_none() {
                self.uid_of[id] = Some(k.1);
            }
            self.has_uid[id] = true;
            if side == B {
                self.uid_in_base[id] = true;
            }
        }
        self.keys.record(id, keys, (side == B).then_some(i));
    }
}

/// How many nodes [`parent_near`] tries.
const NEAR_TRIES: usize = 6;

/// The node at path `p` among the few nearest above node `i` (the node before it,
/// then that node's parent, its parent's parent...), where a parent usually is: a file
/// lists a node after its parent, its siblings and their subtrees. Those nodes were
/// just read, where the path map is a hashed lookup in a table of every node (a cache
/// miss for most nodes of a big scene). Only for a side whose paths are unique: then
/// the node at `p` is the one the path map gives. `None`: not among them (ask the map).
pub(super) fn parent_near(
    nodes: &[crate::model::Node],
    parent_at: &[Option<usize>],
    i: usize,
    p: &str,
) -> Option<usize> {
    let mut k = i.checked_sub(1)?;
    for _ in 0..NEAR_TRIES {
        if nodes.get(k)?.path == p {
            return Some(k);
        }
        k = (*parent_at.get(k)?)?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::lockstep::tests::lockstep_base;
    use super::*;

    fn parse(texts: [&str; 3]) -> [Scene; 3] {
        texts.map(|t| Scene::parse(t.as_bytes()).expect("parses"))
    }

    /// The identity of the node at `path` on `side`.
    fn ident(sc: [&Scene; 3], t: &Table, side: usize, path: &str) -> usize {
        let i = sc[side].nodes.iter().position(|n| n.path == path);
        t.of[side][i.unwrap_or_else(|| panic!("no {path}"))]
    }

    const BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"X\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(1, 2)\n\n[node name=\"Z\" type=\"Node2D\" parent=\".\"]\nrotation = 1.5\n";

    /// A parent found among the nodes nearest above is the node the path map gives,
    /// for every node of a scene with deep and shallow parents, and a parent listed
    /// far above is left to the map.
    #[test]
    fn a_parent_found_near_is_the_path_map_s() {
        let mut text = String::from("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n");
        for a in 0..3 {
            text += &format!("\n[node name=\"A{a}\" type=\"Node\" parent=\".\"]\n");
            for b in 0..3 {
                text += &format!("\n[node name=\"B{b}\" type=\"Node\" parent=\"A{a}\"]\n");
                for c in 0..2 {
                    text += &format!("\n[node name=\"C{c}\" type=\"Node\" parent=\"A{a}/B{b}\"]\n");
                }
            }
        }
        // Far below its parent, past deep chains: not near.
        for d in 0..9 {
            let parent = (0..d)
                .map(|k| format!("D{k}"))
                .collect::<Vec<_>>()
                .join("/");
            let parent = if parent.is_empty() {
                ".".to_string()
            } else {
                parent
            };
            text += &format!("\n[node name=\"D{d}\" type=\"Node\" parent=\"{parent}\"]\n");
        }
        text += "\n[node name=\"Late\" type=\"Node\" parent=\"A0/B1\"]\n";
        let scene = Scene::parse(text.as_bytes()).expect("parses");
        let paths = NodePaths::of(&scene.nodes);
        assert_eq!(paths.len(), scene.nodes.len());
        let mut parent_at: Vec<Option<usize>> = Vec::new();
        let (mut near, mut far) = (0, 0);
        for (i, n) in scene.nodes.iter().enumerate() {
            let p = n.parent.as_deref().map(|p| if p == "." { "R" } else { p });
            let want = n.parent.as_deref().and_then(|p| match p {
                "." => Some(0),
                p => paths.get(p).copied(),
            });
            if let Some(p) = p.filter(|_| i > 0 && n.parent.as_deref() != Some(".")) {
                match parent_near(&scene.nodes, &parent_at, i, p) {
                    Some(k) => {
                        near += 1;
                        assert_eq!(Some(k), want, "{}", n.path);
                    }
                    None => far += 1,
                }
            }
            parent_at.push(want);
        }
        assert!(near > 20 && far >= 1, "{near} {far}");
    }

    #[test]
    fn two_renames_onto_one_path_are_two_nodes_each_with_its_base_node() {
        let ours = BASE.replace("name=\"X\"", "name=\"Y\"");
        let theirs = BASE.replace("name=\"Z\"", "name=\"Y\"");
        let s = parse([BASE, &ours, &theirs]);
        let sc = [&s[0], &s[1], &s[2]];
        let (t, ..) = match_nodes(sc);
        let (yo, yt) = (ident(sc, &t, O, "Y"), ident(sc, &t, T, "Y"));
        assert_ne!(yo, yt);
        assert_eq!(yo, ident(sc, &t, B, "X"));
        assert_eq!(yt, ident(sc, &t, B, "Z"));
        // Renamed alike on both sides: one node, base's.
        let s = parse([BASE, &ours, &ours.replace("1.5", "2.0")]);
        let sc = [&s[0], &s[1], &s[2]];
        let (t, ..) = match_nodes(sc);
        assert_eq!(ident(sc, &t, O, "Y"), ident(sc, &t, T, "Y"));
    }

    #[test]
    fn two_new_nodes_with_one_unique_id_are_split_by_kind_or_place() {
        let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n";
        let add = |name: &str, ty: &str| {
            format!("{base}\n[node name=\"{name}\" type=\"{ty}\" parent=\".\" unique_id=7]\n")
        };
        for (o, t, apart) in [
            (add("A", "Sprite2D"), add("A", "Label"), true),
            (
                add("A", "Label"),
                format!("{}text = \"b\"\n", add("B", "Label")),
                true,
            ),
            (add("A", "Label"), add("A", "Label"), false),
        ] {
            let s = parse([base, &o, &t]);
            let sc = [&s[0], &s[1], &s[2]];
            let (table, ..) = match_nodes(sc);
            let (io, it) = (table.of[O][1], table.of[T][1]);
            assert_eq!(io != it, apart, "{o}\n{t}");
        }
    }

    #[test]
    fn an_override_entry_both_sides_renumbered_is_base_entry() {
        let base = "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://m.glb\" id=\"1_m\"]\n\n[node name=\"W\" type=\"Node3D\" unique_id=1]\n\n[node name=\"P\" parent=\".\" unique_id=2 instance=ExtResource(\"1_m\")]\n\n[node name=\"S\" parent=\"P/A\" parent_id_path=PackedInt32Array(2, 3) unique_id=4]\n";
        let ours = base.replace("(2, 3) unique_id=4", "(2, 5) unique_id=6");
        let theirs = base.replace("(2, 3) unique_id=4", "(2, 8) unique_id=9");
        let s = parse([base, &ours, &theirs]);
        let sc = [&s[0], &s[1], &s[2]];
        let (t, ..) = match_nodes(sc);
        let b = ident(sc, &t, B, "P/A/S");
        assert_eq!(ident(sc, &t, O, "P/A/S"), b);
        assert_eq!(ident(sc, &t, T, "P/A/S"), b);
    }

    /// What base's pass learns of its unique ids is what a walk of them tells.
    #[test]
    fn base_s_pass_knows_its_uids_twice() {
        for (text, unique) in [
            (lockstep_base(true), true),
            (lockstep_base(false), true),
            (
                lockstep_base(true).replace("unique_id=13", "unique_id=12"),
                false,
            ),
        ] {
            let b = Scene::parse(text.as_bytes()).expect("parses");
            assert_eq!(base_uids_unique(&b), unique);
            let sc = [&b, &b, &b];
            let mut keys = NodeKeys::new(sc);
            let paths = NodePaths::of(&b.nodes);
            keys.match_side(sc, B, &paths, false);
            assert_eq!(keys.base_uid_twice, !unique);
        }
    }
}
