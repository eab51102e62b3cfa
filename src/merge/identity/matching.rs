//! Matching: which ext_resource, sub_resource and node of base, ours and theirs are the
//! same thing. Each gets an *identity* (an index into a table), so that ids and paths
//! can be renamed freely afterwards.

use crate::merge::shared::idents::{
    FxMap, IdIndex, Idents, ParentAt, Paths, SharedChange, SubMatch, Table, B, O, T,
};
use crate::model::{NodeKey, Scene};
use crate::value::{rewrite_refs_in_text, scan_refs_in_text, RefKind};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// A map from a key to a list of identities (in insertion order), without a vector per
/// key: the lists are chained through one array.
struct MultiMap<K> {
    /// key -> (first entry, last entry).
    ends: FxMap<K, (usize, usize)>,
    /// entry -> (identity, next entry or usize::MAX).
    entries: Vec<(usize, usize)>,
    /// (first entry of a key, side) -> where [`MultiMap::find`] starts: past a long run
    /// of leading entries already claimed on that side. Empty unless a key is shared by
    /// many nodes.
    skip: FxMap<(usize, usize), usize>,
}

impl<K: std::hash::Hash + Eq> MultiMap<K> {
    fn with_capacity(n: usize) -> MultiMap<K> {
        MultiMap {
            ends: FxMap::with_capacity_and_hasher(n, Default::default()),
            entries: Vec::with_capacity(n),
            skip: FxMap::default(),
        }
    }

    fn push(&mut self, key: K, id: usize) {
        let e = self.entries.len();
        self.entries.push((id, usize::MAX));
        match self.ends.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut o) => {
                let (_, last) = *o.get();
                self.entries[last].1 = e;
                o.get_mut().1 = e;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((e, e));
            }
        }
    }

    /// The first identity listed under `key` (in insertion order) that is `usable` on
    /// `side`. Usable implies not `claimed` on `side`, and a claim is never undone: a
    /// long run of claimed entries at the head of the list is remembered and skipped
    /// next time, so that a path many nodes share is not walked from its start for
    /// each of them (quadratic time).
    fn find<Q>(
        &mut self,
        key: &Q,
        side: usize,
        claimed: impl Fn(usize) -> bool,
        usable: impl Fn(usize) -> bool,
    ) -> Option<usize>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let &(first, _) = self.ends.get(key)?;
        let start = if self.skip.is_empty() {
            first
        } else {
            self.skip.get(&(first, side)).copied().unwrap_or(first)
        };
        // The first entry not claimed on `side`, else the last one seen (entries
        // pushed later are chained after it).
        let mut lead = None;
        let mut last = start;
        let mut skipped = 0usize;
        let mut e = start;
        let mut found = None;
        while let Some(&(id, next)) = self.entries.get(e) {
            last = e;
            if lead.is_none() {
                if claimed(id) {
                    skipped += 1;
                } else {
                    lead = Some(e);
                }
            }
            if usable(id) {
                found = Some(id);
                break;
            }
            e = next;
        }
        if skipped >= 8 {
            // With no unclaimed entry, start at the last one: it is claimed (skipped
            // again), and whatever is pushed later follows it.
            self.skip.insert((first, side), lead.unwrap_or(last));
        }
        found
    }
}

fn match_exts(sc: [&Scene; 3]) -> Table {
    let mut t = Table::new([
        sc[0].ext_resources.len(),
        sc[1].ext_resources.len(),
        sc[2].ext_resources.len(),
    ]);
    let mut by_uid: HashMap<String, usize> = HashMap::new();
    let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
    let mut uid_of: Vec<Option<String>> = Vec::new();
    let mut type_of: Vec<&str> = Vec::new();
    for (side, scene) in sc.iter().enumerate() {
        for (i, e) in scene.ext_resources.iter().enumerate() {
            let uid = e.uid.clone().filter(|u| u.len() > 6);
            let mut cand = uid
                .as_ref()
                .and_then(|u| by_uid.get(u).copied())
                .filter(|&id| !t.claimed(id, side));
            if cand.is_none() {
                // Same path and type with another uid: the file was re-imported, and
                // its uid merges like any field.
                cand = by_path.get(&e.path).and_then(|v| {
                    v.iter().copied().find(|&id| {
                        !t.claimed(id, side)
                            && match (&uid, &uid_of[id]) {
                                (Some(a), Some(b)) => a == b || type_of[id] == e.type_name,
                                _ => true,
                            }
                    })
                });
            }
            let id = match cand {
                Some(id) => {
                    t.bind(id, side, i);
                    id
                }
                None => {
                    uid_of.push(None);
                    type_of.push(e.type_name.as_str());
                    t.fresh(side, i)
                }
            };
            if let Some(u) = uid {
                by_uid.entry(u.clone()).or_insert(id);
                if uid_of[id].is_none() {
                    uid_of[id] = Some(u);
                }
            }
            by_path.entry(e.path.clone()).or_default().push(id);
        }
    }
    t
}

/// Node identities, in named steps: each side's path map
/// ([`side_paths`]), then base, ours and theirs in turn ([`NodeKeys::match_side`]): a
/// node joins the base node it sits beside unchanged ([`lockstep_ident`]), else the
/// identity its unique_id, its place under a matched parent, or its path finds
/// ([`NodeKeys::find`]), else a new one. Last, moves without unique ids are paired
/// ([`follow_moves`]).
fn match_nodes<'a>(sc: [&'a Scene; 3]) -> (Table, Paths<'a>, ParentAt, Vec<SharedChange>) {
    let all_paths = side_paths(sc);
    let mut keys = NodeKeys::new(sc);
    // Lockstep needs certainty: paths unique on both sides and unique_id keys unique in
    // base (see [`lockstep_ident`]).
    let unique_paths = |s: usize| all_paths[s].len() == sc[s].nodes.len();
    let base_ok = base_uids_unique(sc[B]) && unique_paths(B);
    for side in [B, O, T] {
        let lockstep = side != B && base_ok && unique_paths(side);
        keys.match_side(sc, side, &all_paths[side], lockstep);
    }
    let NodeKeys {
        mut t, parent_at, ..
    } = keys;
    follow_moves(sc, &mut t);
    let shared = follow_shared(sc, &mut t, &all_paths);
    pair_roots(sc, &mut t);
    (t, all_paths, parent_at, shared)
}

/// A scene has one root: a side whose root is still a node of its own (an editor gave
/// it another `unique_id`, or a rebuilt root another type) has base's root there, when
/// base's root has no node on that side yet (else base's root moved, e.g. wrapped in a
/// new root, and the new root is new).
fn pair_roots(sc: [&Scene; 3], t: &mut Table) {
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

/// Both sides changed a node's identity the same way (re-saved in a newer Godot that gave
/// it the same new unique_id, or moved it under the same new parent): the base node
/// neither side matched pairs with the node both sides share (found by either side's
/// path and type, then by name and type), when the pairing is unambiguous. The merge is
/// then three-way against base. A re-saved node (new unique_id, same path and type) only
/// one side still has pairs the same way: the other side deleted it.
fn follow_shared(sc: [&Scene; 3], t: &mut Table, paths: &Paths) -> Vec<SharedChange> {
    let mut paired = Vec::new();
    pair_shared(sc, t, paths, SharedBy::Path, &mut paired);
    // The parent's identity and the name pair a re-saved node whose ancestor one side
    // renamed or moved (its path changed) once that ancestor is paired: one level a round.
    for _ in 0..MAX_SHARED_ROUNDS {
        if pair_shared(sc, t, paths, SharedBy::Parent, &mut paired) == 0 {
            break;
        }
    }
    pair_shared(sc, t, paths, SharedBy::Name, &mut paired);
    paired
}

/// Rounds of [`SharedBy::Parent`] pairing (levels of a re-saved subtree under a renamed
/// or moved ancestor).
const MAX_SHARED_ROUNDS: usize = 32;

/// One round of [`follow_shared`] by the key `place`; how many base nodes it paired.
fn pair_shared(
    sc: [&Scene; 3],
    t: &mut Table,
    paths: &Paths,
    place: SharedBy,
    paired: &mut Vec<SharedChange>,
) -> usize {
    let by_path = place != SharedBy::Name;
    let (gone, both) = shared_keys(sc, t, paths, place);
    let mut count = 0;
    for (k, g) in &gone {
        let Some(n) = both.get(k).filter(|n| n.len() == 1 && g.len() == 1) else {
            continue;
        };
        // By name alone a node without a type (an override inside an instance) is
        // too vague; by its whole path it is as sure as any.
        if k.1.is_empty() && !by_path {
            continue;
        }
        let (keep, drop) = (g[0], n[0]);
        let [_, o, th] = t.at[drop];
        if o.is_none() && th.is_none() {
            continue; // paired under its other key
        }
        t.at[drop] = [None; 3];
        count += 1;
        for (s, i) in [(O, o), (T, th)] {
            if let Some(i) = i {
                t.bind(keep, s, i);
            }
        }
        let uid = |s: usize, i: Option<usize>| i.and_then(|i| sc[s].nodes[i].unique_id);
        if o.is_some() && th.is_some() {
            let by_unique_id = uid(O, o).is_some() && uid(O, o) == uid(T, th);
            paired.push(SharedChange {
                ident: keep,
                by_unique_id,
            });
        }
    }
    count
}

/// Base nodes neither side matched (`gone`) and nodes both sides share or one side
/// re-saved (`both`), by the key `place`.
fn shared_keys(sc: [&Scene; 3], t: &Table, paths: &Paths, place: SharedBy) -> (Keyed, Keyed) {
    let by_path = place != SharedBy::Name;
    let key = |s: usize, i: usize| {
        let (name, what) = node_kind(sc[s], i);
        let n = &sc[s].nodes[i];
        let place = match place {
            SharedBy::Path => n.path.to_string(),
            SharedBy::Parent => format!("{}/{name}", parent_ident(t, paths, s, n)),
            SharedBy::Name => name,
        };
        (place, what)
    };
    let mut gone: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    let mut both: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    let re_identified = |s: usize, i: usize| by_path && sc[s].nodes[i].unique_id.is_some();
    for (ident, at) in t.at.iter().enumerate() {
        match *at {
            [Some(b), None, None] => gone.entry(key(B, b)).or_default().push(ident),
            [None, Some(o), Some(th)] => {
                let (ko, kt) = (key(O, o), key(T, th));
                if kt != ko {
                    both.entry(kt).or_default().push(ident);
                }
                both.entry(ko).or_default().push(ident);
            }
            // A re-saved node the other side deleted (or changed otherwise).
            [None, Some(i), None] if re_identified(O, i) => {
                both.entry(key(O, i)).or_default().push(ident)
            }
            [None, None, Some(i)] if re_identified(T, i) => {
                both.entry(key(T, i)).or_default().push(ident)
            }
            _ => {}
        }
    }
    (gone, both)
}

/// Identities by a [`follow_shared`] key.
type Keyed = BTreeMap<(String, String), Vec<usize>>;

/// The keys [`follow_shared`] pairs by, in order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SharedBy {
    Path,
    Parent,
    Name,
}

/// The identity of a node's parent on side `s` (`usize::MAX` for the root or an unknown
/// parent), for [`SharedBy::Parent`].
fn parent_ident(t: &Table, paths: &Paths, s: usize, n: &crate::model::Node) -> usize {
    n.parent.as_ref().map_or(usize::MAX, |_| {
        let parent = n.path.rsplit_once('/').map_or(".", |(p, _)| p);
        paths[s].get(parent).map_or(usize::MAX, |&i| t.of[s][i])
    })
}

/// Each side's node paths. Big scenes: theirs' map is built on a second thread.
fn side_paths(sc: [&Scene; 3]) -> Paths<'_> {
    let paths_of = |scene| -> FxMap<&str, usize> {
        let scene: &Scene = scene;
        let mut m = FxMap::with_capacity_and_hasher(scene.nodes.len(), Default::default());
        m.extend(
            scene
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.path.as_str(), i)),
        );
        m
    };
    if sc[T].nodes.len() < 20_000 {
        return sc.map(paths_of);
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
fn own_uids(s: &Scene) -> FxMap<i64, ()> {
    s.nodes
        .iter()
        .filter_map(|n| match &n.key {
            NodeKey::UniqueId { scope, id } if scope.is_empty() => Some((*id, ())),
            _ => None,
        })
        .collect()
}

/// Whether no two base nodes share a unique_id key.
fn base_uids_unique(base: &Scene) -> bool {
    let mut keys: FxMap<&NodeKey, ()> = FxMap::default();
    base.nodes
        .iter()
        .all(|n| !matches!(n.key, NodeKey::UniqueId { .. }) || keys.insert(&n.key, ()).is_none())
}

/// The node identities found so far and the keys they are found by.
struct NodeKeys<'a> {
    t: Table,
    /// unique_id keys: the scope (the instance an override entry sits in) is named by
    /// the identity of that instance node, so a moved instance keeps its overrides.
    by_uid: FxMap<(String, i64), usize>,
    by_path: MultiMap<&'a str>,
    /// (identity of the nearest listed ancestor, rest of the path and name).
    by_skey: MultiMap<(usize, Cow<'a, str>)>,
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
}

/// A node's keys on its side.
struct NodeKey3<'a> {
    uid: Option<(String, i64)>,
    skey: Option<(usize, Cow<'a, str>)>,
    path: &'a str,
}

impl<'a> NodeKeys<'a> {
    fn new(sc: [&'a Scene; 3]) -> NodeKeys<'a> {
        let mut t = Table::new([sc[0].nodes.len(), sc[1].nodes.len(), sc[2].nodes.len()]);
        let total = sc.iter().map(|s| s.nodes.len()).sum();
        t.at.reserve(total);
        // The keyed maps are sized for base: most nodes of ours and theirs join by
        // lockstep and are never entered. Sized for all three sides, a big scene's maps
        // would spread the same entries over three times the memory, each page touched.
        let keyed = sc[B].nodes.len() + 64;
        NodeKeys {
            t,
            by_uid: FxMap::default(),
            by_path: MultiMap::with_capacity(keyed),
            by_skey: MultiMap::with_capacity(keyed),
            uid_in_base: Vec::with_capacity(total),
            has_uid: Vec::with_capacity(total),
            uid_of: Vec::with_capacity(total),
            side_uids: Default::default(),
            sc,
            parent_at: sc.map(|s| Vec::with_capacity(s.nodes.len())),
        }
    }

    /// Give every node of `side` an identity.
    fn match_side(
        &mut self,
        sc: [&'a Scene; 3],
        side: usize,
        paths: &FxMap<&'a str, usize>,
        lockstep: bool,
    ) {
        let scene = sc[side];
        let (base_root, side_root) = (root_of(sc[B]), root_of(scene));
        // The base node expected next.
        let mut bc = 0usize;
        for (i, n) in scene.nodes.iter().enumerate() {
            if lockstep && self.join_lockstep(sc, side, i, bc, base_root, side_root) {
                bc += 1;
                continue;
            }
            let id = self.match_keyed(side, i, n, paths, side_root);
            if let Some(bi) = self.t.at[id][B].filter(|_| side != B) {
                bc = bi + 1;
            }
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
        i: usize,
        bc: usize,
        base_root: Option<usize>,
        side_root: Option<usize>,
    ) -> bool {
        let t = &mut self.t;
        let n = &sc[side].nodes[i];
        let Some(id) = lockstep_ident(sc, t, &self.parent_at, side, n, bc, base_root, side_root)
        else {
            return false;
        };
        t.bind(id, side, i);
        let direct = match n.parent.as_deref() {
            None => None,
            Some(".") => side_root,
            Some(_) => self.parent_at[B][bc].and_then(|bp| t.at[t.of[B][bp]][side]),
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
        paths: &FxMap<&'a str, usize>,
        side_root: Option<usize>,
    ) -> usize {
        // The parent's index when the parent path names a listed node (or is ".").
        let direct = match n.parent.as_deref() {
            Some(".") => side_root,
            Some(p) => paths.get(p).copied(),
            None => None,
        };
        self.parent_at[side].push(direct);
        let keys = NodeKey3 {
            uid: self.uid_key(side, n, paths),
            skey: self.scope_key(side, n, paths, direct),
            path: n.path.as_str(),
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
        self.record(side, id, keys);
        id
    }

    /// The unique_id key, its scope named by identity when the scope is a listed node.
    fn uid_key(
        &self,
        side: usize,
        n: &crate::model::Node,
        paths: &FxMap<&'a str, usize>,
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
        paths: &FxMap<&'a str, usize>,
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
        let usable = |id: usize| {
            !t.claimed(id, side)
                && (!is_uid
                    || !has_uid[id]
                    || (!uid_in_base[id] && t.at[id][B].is_some() && !held_here(id)))
        };
        let claimed = |id: usize| t.claimed(id, side);
        keys.uid
            .as_ref()
            .and_then(|k| self.by_uid.get(k).copied())
            .filter(|&id| !t.claimed(id, side))
            .or_else(|| {
                let k = keys.skey.as_ref()?;
                self.by_skey.find(k, side, claimed, usable)
            })
            .or_else(|| self.by_path.find(keys.path, side, claimed, usable))
    }

    /// Record a node's keys for the sides after it.
    fn record(&mut self, side: usize, id: usize, keys: NodeKey3<'a>) {
        if let Some(k) = keys.uid {
            if k.0.is_empty() && self.uid_of[id].is_none() {
                self.uid_of[id] = Some(k.1);
            }
            self.by_uid.entry(k).or_insert(id);
            self.has_uid[id] = true;
            if side == B {
                self.uid_in_base[id] = true;
            }
        }
        if let Some(k) = keys.skey {
            self.by_skey.push(k, id);
        }
        self.by_path.push(keys.path, id);
    }
}

/// The base identity node `n` of `side` certainly joins, when `n` is the base node at
/// `bc` unchanged in key, path and parent identity (see [`NodeKeys::join_lockstep`]).
#[allow(clippy::too_many_arguments)]
fn lockstep_ident(
    sc: [&Scene; 3],
    t: &Table,
    parent_at: &ParentAt,
    side: usize,
    n: &crate::model::Node,
    bc: usize,
    base_root: Option<usize>,
    side_root: Option<usize>,
) -> Option<usize> {
    let bn = sc[B].nodes.get(bc)?;
    let own = match &n.key {
        NodeKey::UniqueId { scope, .. } => scope.is_empty(),
        NodeKey::Path(_) => true,
    };
    if !own || bn.key != n.key || bn.path != n.path || bn.parent != n.parent {
        return None;
    }
    let id = t.of[B][bc];
    if id == usize::MAX || t.claimed(id, side) {
        return None;
    }
    let same_parent = match n.parent.as_deref() {
        None => true,
        Some(".") => match (base_root, side_root) {
            (Some(br), Some(sr)) => t.bound(side, sr) && t.of[side][sr] == t.of[B][br],
            _ => false,
        },
        Some(p) => parent_at[B][bc]
            .and_then(|bp| t.at[t.of[B][bp]][side])
            .is_some_and(|spi| sc[side].nodes[spi].path == p),
    };
    same_parent.then_some(id)
}

/// Index of the scene root (the node without `parent`), normally the first node.
fn root_of(s: &Scene) -> Option<usize> {
    match s.nodes.first() {
        Some(n) if n.parent.is_none() => Some(0),
        _ => s.nodes.iter().position(|n| n.parent.is_none()),
    }
}

/// What a node is, apart from where it is: its name and its type (or instanced scene).
fn node_kind(s: &Scene, i: usize) -> (String, String) {
    let n = &s.nodes[i];
    let what = match (&n.type_name, n.instance()) {
        (Some(t), _) => t.to_string(),
        (None, Some(ext)) => {
            let path = s
                .ext_resources
                .iter()
                .rev()
                .find(|e| e.id == ext)
                .map_or("", |e| e.path.as_str());
            format!("instance:{path}")
        }
        _ => String::new(),
    };
    (n.name.to_string(), what)
}

/// Whether two nodes are of one [`node_kind`], an instanced scene known by its
/// ext_resource's `uid` as well as by its path (a moved scene file keeps its uid).
fn same_kind(a: (&Scene, usize), b: (&Scene, usize)) -> bool {
    let uid = |(s, i): (&Scene, usize)| {
        let ext = s.nodes[i].instance()?;
        s.ext_resources
            .iter()
            .rev()
            .find(|e| e.id == ext)?
            .uid
            .clone()
    };
    let (ka, kb) = (node_kind(a.0, a.1), node_kind(b.0, b.1));
    ka == kb || (ka.0 == kb.0 && uid(a).is_some() && uid(a) == uid(b))
}

/// A value with every SubResource id left out: sub_resources are matched after nodes, and
/// a re-save that renumbers them must not hide a rename.
fn sub_ids_blank(text: &str) -> String {
    if !text.contains("SubResource") {
        return text.to_string();
    }
    crate::value::rewrite_refs_in_text(text, &mut |kind, _| {
        (kind == crate::value::RefKind::Sub).then(String::new)
    })
}

/// Without unique ids a moved node looks deleted and re-added. Pair a node that
/// disappeared from base on one side with a node that appeared on the same side when
/// both have the same name and type, or (a rename) the same parent, type and
/// properties, and the pairing is unambiguous. Pairing a renamed or moved parent lets
/// its children pair in the next round: under the parent's identity with the same name
/// and type (a child the other side re-saved with a unique_id, or edited, included).
fn follow_moves(sc: [&Scene; 3], t: &mut Table) {
    for x in [O, T] {
        for _ in 0..MAX_SHARED_ROUNDS {
            if follow_moves_once(sc, t, x) == 0 {
                break;
            }
        }
    }
}

/// The descendants of nodes [`follow_moves`] followed on side `x` move with them: a base
/// descendant gone from `x` pairs with the node new on `x` at the same path below the
/// followed node, of the same kind. Names that recur in a scene (`Label`, `TextEdit`)
/// are ambiguous scene-wide, but not below one node; and an instance's override entries
/// (no type of their own) are paired by nothing else.
fn follow_descendants(sc: [&Scene; 3], t: &mut Table, x: usize, followed: &[usize]) {
    if followed.is_empty() {
        return;
    }
    let other = if x == O { T } else { O };
    let at_path: HashMap<&str, usize> = sc[x]
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.path.as_str(), i))
        .collect();
    let mut base_paths: Vec<(&str, usize)> = sc[B]
        .nodes
        .iter()
        .enumerate()
        .map(|(d, n)| (n.path.as_str(), d))
        .collect();
    base_paths.sort_unstable();
    for &k in followed {
        let (Some(b), Some(i)) = (t.at[k][B], t.at[k][x]) else {
            continue;
        };
        let (bp, sp) = (sc[B].nodes[b].path.as_str(), sc[x].nodes[i].path.as_str());
        if bp == "." || sp == "." {
            continue;
        }
        for &(path, d) in below(&base_paths, bp) {
            let rel = &path[bp.len() + 1..];
            let gone = t.of[B][d];
            if gone == usize::MAX || t.at[gone][x].is_some() {
                continue;
            }
            let Some(&j) = at_path.get(format!("{sp}/{rel}").as_str()) else {
                continue;
            };
            let new = t.of[x][j];
            let fresh = new != usize::MAX && t.at[new][B].is_none() && t.at[new][other].is_none();
            if fresh && same_kind((sc[B], d), (sc[x], j)) {
                t.at[new][x] = None;
                t.bind(gone, x, j);
            }
        }
    }
}

/// The entries of `sorted` (paths in byte order) strictly below `path`: one contiguous
/// run, the paths that start with `path/`, found by binary search so that following
/// many moved nodes costs their descendants, not the whole scene, each.
fn below<'s, 'p>(sorted: &'s [(&'p str, usize)], path: &str) -> &'s [(&'p str, usize)] {
    let prefix = format!("{path}/");
    let start = sorted.partition_point(|(p, _)| *p < prefix.as_str());
    let len = sorted[start..].partition_point(|(p, _)| p.starts_with(prefix.as_str()));
    &sorted[start..start + len]
}

/// Identities base has and side `x` lost, and identities only side `x` has, by
/// [`node_kind`].
type GoneNew = [HashMap<(String, String), Vec<usize>>; 2];

fn gone_and_new(sc: [&Scene; 3], t: &Table, x: usize) -> GoneNew {
    let mut gn: GoneNew = Default::default();
    for (ident, at) in t.at.iter().enumerate() {
        let other = if x == O { at[T] } else { at[O] };
        match (at[B], at[x]) {
            (Some(b), None) => gn[0].entry(node_kind(sc[B], b)).or_default().push(ident),
            (None, Some(i)) if other.is_none() => {
                gn[1].entry(node_kind(sc[x], i)).or_default().push(ident)
            }
            _ => {}
        }
    }
    gn
}

/// One round of [`follow_moves`] on side `x`: how many nodes it paired.
fn follow_moves_once(sc: [&Scene; 3], t: &mut Table, x: usize) -> usize {
    let [gone, new] = gone_and_new(sc, t, x);
    let mut paired: Vec<(usize, usize)> = Vec::new();
    for (kind, g) in &gone {
        if kind.1.is_empty() {
            continue; // override entries have no kind of their own
        }
        if let (Some(n), [g]) = (new.get(kind), g.as_slice()) {
            if let [n] = n.as_slice() {
                paired.push((*g, *n));
            }
        }
    }
    let done: std::collections::HashSet<usize> = paired.iter().flat_map(|&(a, b)| [a, b]).collect();
    let open = |m: &HashMap<(String, String), Vec<usize>>| -> Vec<usize> {
        let mut v: Vec<usize> = m
            .values()
            .flatten()
            .copied()
            .filter(|i| !done.contains(i))
            .collect();
        v.sort_unstable();
        v
    };
    let (gone, new) = (open(&gone), open(&new));
    let renamed = |s: usize, i: usize| (parent_ident_at(sc, t, s, i), rename_content(sc, s, i));
    paired.extend(unambiguous_pairs(
        &gone,
        &new,
        |g| renamed(B, g),
        |i| renamed(x, i),
        t,
        x,
    ));
    let done: std::collections::HashSet<usize> = paired.iter().flat_map(|&(a, b)| [a, b]).collect();
    let (gone, new): (Vec<usize>, Vec<usize>) = (
        gone.into_iter().filter(|i| !done.contains(i)).collect(),
        new.into_iter().filter(|i| !done.contains(i)).collect(),
    );
    let placed = |s: usize, i: usize| {
        let (name, kind) = node_kind(sc[s], i);
        (parent_ident_at(sc, t, s, i), (kind, name))
    };
    paired.extend(unambiguous_pairs(
        &gone,
        &new,
        |g| placed(B, g),
        |i| placed(x, i),
        t,
        x,
    ));
    if paired.is_empty() {
        paired = adopted_pairs(sc, t, x, &gone, &new);
    }
    let count = paired.len();
    let mut followed = Vec::with_capacity(count);
    for (keep, drop) in paired {
        let Some(i) = t.at[drop][x] else { continue };
        t.at[drop][x] = None;
        t.bind(keep, x, i);
        followed.push(keep);
    }
    follow_descendants(sc, t, x, &followed);
    count
}

/// A node renamed and edited on side `x` is known by its children: every base child it
/// still has on `x` hangs under one new node there, of the same type and under the same
/// parent, and that node took children from no other gone node. Not when the other side
/// has a node at that new node's path (the names would collide: which is the rename is
/// then a guess).
fn adopted_pairs(
    sc: [&Scene; 3],
    t: &Table,
    x: usize,
    gone: &[usize],
    new: &[usize],
) -> Vec<(usize, usize)> {
    if gone.is_empty() || new.is_empty() {
        return Vec::new();
    }
    let at_path = |s: usize, ids: &[usize]| -> HashMap<&str, usize> {
        ids.iter()
            .filter_map(|&id| Some((sc[s].nodes[t.at[id][s]?].path.as_str(), id)))
            .collect()
    };
    let (gone_at, new_at) = (at_path(B, gone), at_path(x, new));
    let mut took: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut gave: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for at in &t.at {
        let (Some(b), Some(i)) = (at[B], at[x]) else {
            continue;
        };
        let Some(&g) = sc[B].nodes[b]
            .parent
            .as_deref()
            .and_then(|p| gone_at.get(p))
        else {
            continue;
        };
        let n = sc[x].nodes[i]
            .parent
            .as_deref()
            .and_then(|p| new_at.get(p))
            .copied();
        let n = n.unwrap_or(usize::MAX);
        took.entry(g).or_default().push(n);
        gave.entry(n).or_default().push(g);
    }
    let kind = |s: usize, id: usize| t.at[id][s].map(|i| node_kind(sc[s], i).1);
    let parent = |s: usize, id: usize| t.at[id][s].and_then(|i| parent_ident_at(sc, t, s, i));
    let other = if x == O { T } else { O };
    let free = |n: usize| {
        t.at[n][x].is_some_and(|i| {
            !sc[other]
                .nodes
                .iter()
                .any(|m| m.path == sc[x].nodes[i].path)
        })
    };
    took.into_iter()
        .filter_map(|(g, ns)| {
            let n = *ns.first()?;
            let one = |v: &[usize], e: usize| v.iter().all(|&y| y == e);
            (n != usize::MAX
                && one(&ns, n)
                && gave.get(&n).is_some_and(|gs| one(gs, g))
                && kind(B, g) == kind(x, n)
                && parent(B, g).is_some()
                && parent(B, g) == parent(x, n)
                && free(n))
            .then_some((g, n))
        })
        .collect()
}

/// What pairs a gone node with a new one: its parent's identity and what it is.
type MoveKey<C> = (Option<usize>, (String, C));

/// Pairs of a gone and a new identity whose keys are equal and shared by no other
/// (keys with an unknown parent or no kind pair nothing).
fn unambiguous_pairs<C>(
    gone: &[usize],
    new: &[usize],
    gone_key: impl Fn(usize) -> MoveKey<C>,
    new_key: impl Fn(usize) -> MoveKey<C>,
    t: &Table,
    x: usize,
) -> Vec<(usize, usize)>
where
    MoveKey<C>: std::hash::Hash + Eq,
{
    let mut by: HashMap<MoveKey<C>, [Vec<usize>; 2]> = HashMap::new();
    for &g in gone {
        let Some(b) = t.at[g][B] else { continue };
        by.entry(gone_key(b)).or_default()[0].push(g);
    }
    for &n in new {
        let Some(i) = t.at[n][x] else { continue };
        by.entry(new_key(i)).or_default()[1].push(n);
    }
    let mut pairs: Vec<(usize, usize)> = by
        .into_iter()
        .filter(|(k, _)| k.0.is_some() && !k.1 .0.is_empty())
        .filter_map(|(_, [g, n])| match (g.as_slice(), n.as_slice()) {
            ([g], [n]) => Some((*g, *n)),
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// What a renamed node keeps: its type and its properties (SubResource ids left out).
fn rename_content(sc: [&Scene; 3], s: usize, i: usize) -> (String, Vec<(String, String)>) {
    let n = &sc[s].nodes[i];
    let sec = &sc[s].doc.sections[n.section];
    let props = sec
        .props
        .iter()
        .map(|p| (p.key.to_string(), sub_ids_blank(sc[s].doc.slice(&p.value))))
        .collect();
    (node_kind(sc[s], i).1, props)
}

/// The identity of node `i`'s parent on side `s`, when the parent is a matched node.
fn parent_ident_at(sc: [&Scene; 3], t: &Table, s: usize, i: usize) -> Option<usize> {
    let p = sc[s].nodes[i].parent.as_deref()?;
    let pi = if p == "." {
        root_of(sc[s])?
    } else {
        sc[s].nodes.iter().position(|n| n.path == p)?
    };
    t.bound(s, pi).then(|| t.of[s][pi])
}

/// Text of a value with ExtResource/SubResource ids replaced by identities, so values
/// compare equal across renumbered ids. Unmatched sub ids stay side-specific.
pub fn normalize<'a>(
    text: &'a str,
    side: usize,
    sc: &Scene,
    ext: &Table,
    sub: &Table,
    sub_ids: &FxMap<&str, usize>,
    ext_ids: &FxMap<&str, usize>,
) -> Cow<'a, str> {
    if !text.contains("Resource") {
        return Cow::Borrowed(text);
    }
    let _ = sc;
    Cow::Owned(rewrite_refs_in_text(text, &mut |kind, id| {
        Some(match kind {
            RefKind::Ext => match ext_ids.get(id) {
                Some(&i) if ext.bound(side, i) => format!("@E{}", ext.of[side][i]),
                _ => format!("?E{side}:{id}"),
            },
            RefKind::Sub => match sub_ids.get(id) {
                Some(&i) if sub.bound(side, i) => format!("@S{}", sub.of[side][i]),
                _ => format!("?S{side}:{id}"),
            },
        })
    }))
}

/// Sub refs (indexes) appearing in a text, in order.
fn sub_refs(text: &str, idx: &IdIndex) -> Vec<usize> {
    let mut v = Vec::new();
    if text.contains("SubResource") {
        scan_refs_in_text(text, &mut |k, id| {
            if k == RefKind::Sub {
                if let Some(&i) = idx.sub.get(id) {
                    v.push(i);
                }
            }
        });
    }
    v
}

/// Whether a section's properties refer to a sub_resource of `side` not bound yet.
fn refers_unbound(s: &Scene, section: usize, idx: &IdIndex, sub: &Table, side: usize) -> bool {
    let sec = &s.doc.sections[section];
    if !s.doc.slice(&sec.span).contains("SubResource") {
        return false;
    }
    sec.props.iter().any(|p| {
        let text = s.doc.slice(&p.value);
        let mut found = false;
        if text.contains("SubResource") {
            scan_refs_in_text(text, &mut |k, id| {
                if k == RefKind::Sub {
                    if let Some(&i) = idx.sub.get(id) {
                        found |= !sub.bound(side, i);
                    }
                }
            });
        }
        found
    })
}

/// Properties of a section by key (last wins).
fn props_of(s: &Scene, section: usize) -> BTreeMap<&str, &str> {
    let sec = &s.doc.sections[section];
    sec.props
        .iter()
        .map(|p| (p.key.as_str(), s.doc.slice(&p.value)))
        .collect()
}

fn content_signature(
    s: &Scene,
    side: usize,
    k: usize,
    ext: &Table,
    sub: &Table,
    idx: &IdIndex,
) -> String {
    let r = &s.sub_resources[k];
    let sec = &s.doc.sections[r.section];
    let mut sig = r.type_name.clone();
    for p in &sec.props {
        sig.push('\n');
        sig.push_str(&p.key);
        sig.push('=');
        let v = normalize(s.doc.slice(&p.value), side, s, ext, sub, &idx.sub, &idx.ext);
        sig.extend(v.split_whitespace());
    }
    sig
}

/// How alike two sub_resources are: `None` when their type or `resource_name` differ,
/// else the share of property keys (of either) with the same text, in percent.
fn likeness(a: (&Scene, usize), b: (&Scene, usize)) -> Option<usize> {
    let (ra, rb) = (&a.0.sub_resources[a.1], &b.0.sub_resources[b.1]);
    if ra.type_name != rb.type_name {
        return None;
    }
    let (pa, pb) = (props_of(a.0, ra.section), props_of(b.0, rb.section));
    if pa.get("resource_name") != pb.get("resource_name") {
        return None;
    }
    let same = pa.iter().filter(|(k, v)| pb.get(*k) == Some(*v)).count();
    let keys = pa.len() + pb.iter().filter(|(k, _)| !pa.contains_key(*k)).count();
    Some((same * 100).checked_div(keys).unwrap_or(100))
}

/// Whether two sub_resources are the same content: same type and `resource_name`, most
/// properties alike.
fn alike(a: (&Scene, usize), b: (&Scene, usize)) -> bool {
    likeness(a, b).is_some_and(|l| l >= 50)
}

/// Step a of sub_resource matching on side `x`: a sub_resource joins base's of the same
/// id and type when its content is base's. When it is not and base's content reappears
/// under another id on `x` (a re-import moved it there and reused the id, or a re-save
/// permuted ids), the content is followed instead (recorded as a [`SubMatch`] "content
/// (re-import)"); see [`moved_content`].
fn match_subs_by_id(
    sc: [&Scene; 3],
    x: usize,
    idx: &[IdIndex; 3],
    sub: &mut Table,
    sub_matches: &mut Vec<SubMatch>,
) {
    let mut doubted = Vec::new();
    for (k, r) in sc[x].sub_resources.iter().enumerate() {
        let Some(&bi) = idx[B].sub.get(r.id.as_str()) else {
            continue;
        };
        let ident = sub.of[B][bi];
        if sc[B].sub_resources[bi].type_name != r.type_name
            || sub.claimed(ident, x)
            || sub.bound(x, k)
        {
            continue;
        }
        if sub_body(sc[B], bi) == sub_body(sc[x], k) {
            sub.bind(ident, x, k);
        } else {
            doubted.push((bi, k));
        }
    }
    // Many doubted ids are edits, not a re-import: too many to search (quadratic).
    let search = doubted.len() <= MAX_DOUBTED;
    for &(bi, k) in &doubted {
        let ident = sub.of[B][bi];
        if sub.claimed(ident, x) {
            continue; // a repeated id, bound already
        }
        match moved_content(sc, x, idx, sub, (bi, k)).filter(|_| search) {
            Some(j) => {
                sub.bind(ident, x, j);
                sub_matches.push(SubMatch {
                    side: x,
                    index: j,
                    ident,
                    how: REIMPORT,
                });
            }
            None if !sub.bound(x, k) => sub.bind(ident, x, k),
            None => {}
        }
    }
}

/// Where a scene refers to sub_resource `id`: (the section's `name` or tag, property).
/// Ids a re-save permuted are permuted in their references too; an edited resource
/// whose content happens to equal another one's is still referred to by its own id.
fn uses(s: &Scene, id: &str) -> std::collections::BTreeSet<(String, String)> {
    let mut out = std::collections::BTreeSet::new();
    for sec in &s.doc.sections {
        let name = sec.tag.fields.iter().find(|f| f.key == "name");
        let label = name.map_or(sec.tag.name.to_string(), |f| {
            s.doc.slice(&f.value).to_string()
        });
        for p in &sec.props {
            let mut hit = false;
            scan_refs_in_text(s.doc.slice(&p.value), &mut |k, r| {
                hit |= k == RefKind::Sub && r == id
            });
            if hit {
                out.insert((label.clone(), p.key.to_string()));
            }
        }
    }
    out
}

/// A sub_resource's properties as written (its tag, and so its id, left out).
fn sub_body(s: &Scene, i: usize) -> &str {
    let sec = &s.doc.sections[s.sub_resources[i].section];
    s.doc.slice(&(sec.tag.span.end()..sec.body_end)).trim()
}

/// Where base's sub_resource `bi` went on side `x`, whose own id there (`k`) holds other
/// content: an unbound sub_resource of `x` with exactly base's content, when `k` no longer
/// looks like it or now holds exactly what base had under another id (ids permuted);
/// else, when `k` no longer looks like it, one alike that does not keep base's content
/// under its own id. `None`: the id is followed (an edit).
fn moved_content(
    sc: [&Scene; 3],
    x: usize,
    idx: &[IdIndex; 3],
    sub: &Table,
    (bi, k): (usize, usize),
) -> Option<usize> {
    let kept_alike = alike((sc[B], bi), (sc[x], k));
    let ty = &sc[B].sub_resources[bi].type_name;
    let free = |j: &usize| *j != k && !sub.bound(x, *j) && sc[x].sub_resources[*j].type_name == *ty;
    let n = sc[x].sub_resources.len();
    let permuted = || {
        (0..sc[B].sub_resources.len())
            .any(|bj| bj != bi && sub_body(sc[B], bj) == sub_body(sc[x], k))
    };
    let exact = (0..n)
        .filter(free)
        .find(|&j| sub_body(sc[x], j) == sub_body(sc[B], bi));
    let used_alike = |j: usize| {
        let bu = uses(sc[B], &sc[B].sub_resources[bi].id);
        !bu.is_disjoint(&uses(sc[x], &sc[x].sub_resources[j].id))
    };
    // An id base has, alike there, is taken over only when the references agree.
    let confirmed = |j: usize| !reused_alike(sc, x, idx, j) || used_alike(j);
    // A file that repeats the id (a broken theme, shadowed entries) says nothing sure.
    let id = &sc[B].sub_resources[bi].id;
    let repeated = sc[B].sub_resources.iter().filter(|r| r.id == *id).count() > 1;
    if !repeated && exact.is_some_and(|j| (!kept_alike || permuted()) && confirmed(j)) {
        return exact;
    }
    (0..n)
        .filter(|_| !kept_alike)
        .filter(free)
        .find(|&j| !reused_alike(sc, x, idx, j) && alike((sc[B], bi), (sc[x], j)))
}

/// How a sub_resource whose content a re-import moved to another id was matched.
const REIMPORT: &str = "content (re-import)";

/// More sub_resources whose content disagrees with their id than this are not searched
/// for elsewhere.
const MAX_DOUBTED: usize = 256;

/// Whether sub_resource `j` of side `x` keeps an id base has, with base's content there.
fn reused_alike(sc: [&Scene; 3], x: usize, idx: &[IdIndex; 3], j: usize) -> bool {
    idx[B]
        .sub
        .get(sc[x].sub_resources[j].id.as_str())
        .is_some_and(|&bj| alike((sc[B], bj), (sc[x], j)))
}

/// The automatic identity choices matching made that `--explain` shows: nodes both sides
/// re-identified alike, sub_resource contents followed past a reused id.
pub(in crate::merge) fn record_identity_decisions(ctx: &mut crate::merge::shared::context::Ctx) {
    let sc = ctx.sc;
    for c in &ctx.id.shared_changes {
        let Some(o) = ctx.id.node.at[c.ident][O] else {
            continue;
        };
        ctx.decisions
            .push(crate::merge::decisions::Decision::NodeIdentityShared {
                path: sc[O].nodes[o].path.to_string(),
                by_unique_id: c.by_unique_id,
            });
    }
    for m in ctx.id.sub_matches.iter().filter(|m| m.how == REIMPORT) {
        let Some(b) = ctx.id.sub.at[m.ident][B] else {
            continue;
        };
        let r = &sc[m.side].sub_resources[m.index];
        ctx.decisions
            .push(crate::merge::decisions::Decision::ResourceContentFollowed {
                side: if m.side == O { "ours" } else { "theirs" },
                type_name: r.type_name.clone(),
                base_id: sc[B].sub_resources[b].id.clone(),
                id: r.id.clone(),
            });
    }
}

/// Match everything.
pub fn match_all<'a>(sc: [&'a Scene; 3]) -> Idents<'a> {
    let ext = match_exts(sc);
    let (node, paths, parent_at, shared_changes) = match_nodes(sc);
    let mut m = SubMatcher::new(sc, &ext, &node);
    for x in [O, T] {
        m.match_side(x);
    }
    let SubMatcher {
        sub, sub_matches, ..
    } = m;
    Idents {
        paths,
        parent_at,
        ext,
        sub,
        node,
        sub_matches,
        shared_changes,
    }
}

/// The sub_resource matching of ours and theirs against base (and theirs also against
/// what ours added), once ext_resources and nodes have their identities.
struct SubMatcher<'s, 'a> {
    sc: [&'a Scene; 3],
    idx: [IdIndex<'a>; 3],
    ext: &'s Table,
    node: &'s Table,
    sub: Table,
    sub_matches: Vec<SubMatch>,
}

impl<'s, 'a> SubMatcher<'s, 'a> {
    /// Every sub_resource of base is its own identity; ours' and theirs' are unbound.
    fn new(sc: [&'a Scene; 3], ext: &'s Table, node: &'s Table) -> Self {
        let mut sub = Table::new(sc.map(|s| s.sub_resources.len()));
        for i in 0..sc[B].sub_resources.len() {
            sub.fresh(B, i);
        }
        SubMatcher {
            sc,
            idx: sc.map(IdIndex::new),
            ext,
            node,
            sub,
            sub_matches: Vec::new(),
        }
    }

    /// Bind the sub_resources of side `x`: by id (Godot 4), then against each reference
    /// side by use and by content; what is left is new.
    fn match_side(&mut self, x: usize) {
        let godot3 = self.sc.iter().any(|s| s.is_godot3());
        if !godot3 {
            match_subs_by_id(self.sc, x, &self.idx, &mut self.sub, &mut self.sub_matches);
        }
        // Whether a section of this side referred to a sub_resource not bound yet when
        // first looked at: only those can bind one by use (bindings only ever add up, so
        // a section that did not cannot later).
        let mut x_cand: Vec<Option<bool>> = vec![None; self.sc[x].doc.sections.len()];
        // Reference sides: base, and for theirs also what ours added. Not by use
        // between what ours and theirs both added: two new resources are one only
        // when identical (by content).
        let refs: &[usize] = if x == O { &[B] } else { &[B, O] };
        for &rside in refs {
            if rside == B {
                self.match_by_use(rside, x, &mut x_cand);
            }
            self.match_by_content(rside, x);
        }
        for k in 0..self.sc[x].sub_resources.len() {
            if !self.sub.bound(x, k) {
                self.sub.fresh(x, k);
            }
        }
    }

    /// By use: the same property of the same node (or resource) refers to it. Rounds,
    /// since a binding lets the resources that refer to it bind theirs.
    fn match_by_use(&mut self, rside: usize, x: usize, x_cand: &mut [Option<bool>]) {
        for _round in 0..4 {
            // Nothing left to bind on this side: no round can change anything.
            if (0..self.sc[x].sub_resources.len()).all(|k| self.sub.bound(x, k)) {
                break;
            }
            let mut changed = false;
            for (rs, xs) in self.use_pairs(rside, x) {
                if self.may_bind_by_use(x, xs, x_cand) {
                    changed |= self.bind_by_use_in(rside, rs, x, xs);
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The sections of `rside` and `x` that are one thing (matched nodes, the
    /// `[resource]`, matched sub_resources): (rside section, x section).
    fn use_pairs(&self, rside: usize, x: usize) -> Vec<(usize, usize)> {
        let sc = self.sc;
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for at in &self.node.at {
            if let (Some(ri), Some(xi)) = (at[rside], at[x]) {
                pairs.push((sc[rside].nodes[ri].section, sc[x].nodes[xi].section));
            }
        }
        if let (Some(a), Some(b)) = (sc[rside].resource, sc[x].resource) {
            pairs.push((a, b));
        }
        for at in &self.sub.at {
            if let (Some(ri), Some(xi)) = (at[rside], at[x]) {
                pairs.push((
                    sc[rside].sub_resources[ri].section,
                    sc[x].sub_resources[xi].section,
                ));
            }
        }
        pairs
    }

    /// Whether section `xs` of `x` still refers to a sub_resource not bound yet (only
    /// such a section can bind one), remembered in `x_cand`.
    fn may_bind_by_use(&self, x: usize, xs: usize, x_cand: &mut [Option<bool>]) -> bool {
        let refers = || refers_unbound(self.sc[x], xs, &self.idx[x], &self.sub, x);
        match x_cand[xs] {
            Some(c) => c && refers(),
            None => {
                let c = refers();
                x_cand[xs] = Some(c);
                c
            }
        }
    }

    /// Bind the sub_resources the same properties of sections `rs` and `xs` refer to,
    /// position by position. Whether anything was bound.
    fn bind_by_use_in(&mut self, rside: usize, rs: usize, x: usize, xs: usize) -> bool {
        let sc = self.sc;
        let rp = props_of(sc[rside], rs);
        let xp = props_of(sc[x], xs);
        let mut changed = false;
        for (key, xv) in &xp {
            let Some(rv) = rp.get(key) else { continue };
            let a = sub_refs(rv, &self.idx[rside]);
            let b = sub_refs(xv, &self.idx[x]);
            if a.len() != b.len() {
                continue;
            }
            for (ri, xi) in a.into_iter().zip(b) {
                changed |= self.bind_used(rside, ri, x, xi);
            }
        }
        changed
    }

    /// Bind `xi` of `x` to the identity of `ri` of `rside` when both are free for it and
    /// of one type. Whether it was bound.
    fn bind_used(&mut self, rside: usize, ri: usize, x: usize, xi: usize) -> bool {
        let (sc, sub) = (self.sc, &mut self.sub);
        if sub.bound(x, xi) || !sub.bound(rside, ri) {
            return false;
        }
        let ident = sub.of[rside][ri];
        // Only base identities, or identities ours added (for theirs).
        if sub.claimed(ident, x) || (rside == O && sub.at[ident][B].is_some()) {
            return false;
        }
        let (r, xr) = (&sc[rside].sub_resources[ri], &sc[x].sub_resources[xi]);
        if r.type_name != xr.type_name {
            return false;
        }
        sub.bind(ident, x, xi);
        if r.id != xr.id {
            self.sub_matches.push(SubMatch {
                side: x,
                index: xi,
                ident,
                how: "use",
            });
        }
        true
    }

    /// By content, in file order so that dependencies are matched first.
    fn match_by_content(&mut self, rside: usize, x: usize) {
        let mut sigs = self.content_signatures(rside, x);
        let sc = self.sc;
        for k in 0..sc[x].sub_resources.len() {
            if self.sub.bound(x, k) {
                continue;
            }
            let sig = content_signature(sc[x], x, k, self.ext, &self.sub, &self.idx[x]);
            let Some(list) = sigs.get_mut(&sig) else {
                continue;
            };
            let Some(pos) = list.iter().position(|&id| !self.sub.claimed(id, x)) else {
                continue;
            };
            let ident = list.remove(pos);
            self.sub.bind(ident, x, k);
            let how = if rside == O {
                "identical content (both added it)"
            } else {
                "content"
            };
            let other = self.sub.at[ident][rside].map(|i| sc[rside].sub_resources[i].id.as_str());
            if other != Some(sc[x].sub_resources[k].id.as_str()) || rside == O {
                self.sub_matches.push(SubMatch {
                    side: x,
                    index: k,
                    ident,
                    how,
                });
            }
        }
    }

    /// The identities of `rside` that `x` may still join, by content signature.
    fn content_signatures(&self, rside: usize, x: usize) -> HashMap<String, Vec<usize>> {
        let (sc, sub) = (self.sc, &self.sub);
        let mut sigs: HashMap<String, Vec<usize>> = HashMap::new();
        for ri in 0..sc[rside].sub_resources.len() {
            let ident = sub.of[rside][ri];
            if ident == usize::MAX
                || sub.claimed(ident, x)
                || (rside == O && sub.at[ident][B].is_some())
            {
                continue;
            }
            let sig = content_signature(sc[rside], rside, ri, self.ext, sub, &self.idx[rside]);
            sigs.entry(sig).or_default().push(ident);
        }
        sigs
    }
}

/// Identities for parts keyed by a value (connections, editables): for each identity,
/// the index on each side, and each side's order of identities. The first of equal
/// keys on a side wins.
#[allow(clippy::type_complexity)]
pub(in crate::merge) fn key_table<K: Ord>(
    counts: [usize; 3],
    mut key: impl FnMut(usize, usize) -> K,
) -> (Vec<[Option<usize>; 3]>, [Vec<usize>; 3]) {
    let mut table: BTreeMap<K, usize> = BTreeMap::new();
    let mut at: Vec<[Option<usize>; 3]> = Vec::new();
    let mut seqs: [Vec<usize>; 3] = Default::default();
    for (side, &count) in counts.iter().enumerate() {
        for k in 0..count {
            let id = *table.entry(key(side, k)).or_insert_with(|| {
                at.push([None; 3]);
                at.len() - 1
            });
            if at[id][side].is_none() {
                at[id][side] = Some(k);
                seqs[side].push(id);
            }
        }
    }
    (at, seqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find` answers as a plain walk of the list does, after skips were remembered and
    /// after entries were pushed behind a list whose every entry was claimed.
    #[test]
    fn multimap_find_skips_claimed_runs_and_sees_later_entries() {
        let mut m: MultiMap<&str> = MultiMap::with_capacity(4);
        for id in 0..20 {
            m.push("A", id);
        }
        m.push("B", 100);
        let mut claimed = [false; 200];
        // Claim in order, as matching does: each answer is then claimed.
        for want in 0..20 {
            let got = m.find("A", O, |id| claimed[id], |id| !claimed[id]);
            assert_eq!(got, Some(want));
            claimed[want] = true;
        }
        assert!(
            !m.skip.is_empty(),
            "a long claimed run should be remembered"
        );
        assert_eq!(m.find("A", O, |id| claimed[id], |id| !claimed[id]), None);
        // Pushed after the whole list was claimed: still found.
        m.push("A", 150);
        assert_eq!(
            m.find("A", O, |id| claimed[id], |id| !claimed[id]),
            Some(150)
        );
        // Another side has its own skip: it sees the list from the start.
        assert_eq!(m.find("A", T, |_| false, |_| true), Some(0));
        // Usable may refuse an unclaimed entry: the walk goes on past it.
        assert_eq!(m.find("A", T, |id| id < 5, |id| id > 6), Some(7));
        assert_eq!(
            m.find("B", O, |id| claimed[id], |id| !claimed[id]),
            Some(100)
        );
        // A list claimed whole before anyone asked: the walk that finds nothing
        // remembers its end, and an entry pushed later is still found.
        for id in 30..50 {
            m.push("D", id);
        }
        claimed[30..50].fill(true);
        assert_eq!(m.find("D", O, |id| claimed[id], |id| !claimed[id]), None);
        m.push("D", 60);
        assert_eq!(
            m.find("D", O, |id| claimed[id], |id| !claimed[id]),
            Some(60)
        );
        assert_eq!(m.find("C", O, |_| false, |_| true), None);
    }
}
