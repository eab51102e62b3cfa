//! [`KeyStore`]: the keys node matching finds an identity by (unique_id, place under a
//! matched ancestor, path), in the order they were recorded. Decides nothing: what a
//! lookup may return is the caller's (`claimed`, `usable`).
//!
//! Most nodes of ours and theirs join base's by lockstep and are never looked up, and
//! a merge where the sides add or rename a few nodes looks only those up. So the keys
//! are first kept in a list, and a lookup walks it; only past [`LINEAR_LOOKUPS`] lookups
//! are they put in maps (hashing every base node's keys cost a big merge about 7% of
//! its time, most of it cache misses). Either way a lookup answers the same: the first
//! entry of a key, in the order recorded, that is usable.
//!
//! Base's keys, one entry per base node, are listed small ([`BaseEntry`], 20 bytes
//! where a [`NodeKey3`] and its identity take 96): their strings are the node's, read
//! when a lookup gets that far. (For a base of 135,000 nodes: 2.7 MB written and walked
//! instead of 13 MB.)

use super::multimap::MultiMap;
use crate::merge::shared::idents::FxMap;
use std::borrow::Cow;

/// A node's keys on its side.
pub(super) struct NodeKey3<'a> {
    /// unique_id key: the scope (the instance an override entry sits in) is named by
    /// the identity of that instance node, so a moved instance keeps its overrides.
    pub(super) uid: Option<(String, i64)>,
    /// (identity of the nearest listed ancestor, rest of the path and name).
    pub(super) skey: Option<(usize, Cow<'a, str>)>,
    pub(super) path: &'a str,
    /// The node is an override entry ([`super::nodes::is_override_entry`]).
    pub(super) entry: bool,
}

/// Lookups made by walking the keys recorded (each a pass over them) before they are
/// put in maps.
const LINEAR_LOOKUPS: usize = 16;

/// A base node's keys in the list: its path and the name a place key ends in are the
/// node's own, read from it. Its place key's anchor and its path's length, which a
/// lookup compares first, are listed apart ([`KeyStore::anchors`],
/// [`KeyStore::path_lens`]): a lookup walks 4 bytes an entry, not all of it.
#[derive(Clone, Copy)]
struct BaseEntry {
    /// The identity.
    id: u32,
    /// The base node.
    node: u32,
    /// The place key's rest: the node's name (`u32::MAX`), else an index into
    /// [`KeyStore::rests`].
    rest: u32,
    /// The rest's length, compared before the rest (names under one anchor are
    /// many: the root's children).
    rest_len: u32,
}

/// The keys recorded, each with its identity.
pub(super) struct KeyStore<'a> {
    /// The first identity recorded with a unique_id key.
    by_uid: FxMap<(String, i64), usize>,
    by_path: MultiMap<&'a str>,
    by_skey: MultiMap<(usize, Cow<'a, str>)>,
    /// Base's nodes, whose keys [`BaseEntry`] lists.
    nodes: &'a [crate::model::Node],
    /// Base's keys not in the maps yet, in the order recorded (all before `pending`).
    base: Vec<BaseEntry>,
    /// For each of `base`, its place key's anchor identity (`u32::MAX`: none).
    anchors: Vec<u32>,
    /// For each of `base`, its path's length.
    path_lens: Vec<u32>,
    /// The place keys' rests that are not the node's name, for [`BaseEntry::rest`].
    rests: Vec<Cow<'a, str>>,
    /// The unique_id keys of `base`, with the index of their entry there.
    base_uids: Vec<(u32, (String, i64))>,
    /// Other keys recorded and not in the maps yet, in the order recorded.
    pending: Vec<(usize, NodeKey3<'a>)>,
    /// The maps hold every key recorded.
    entered: bool,
    /// Lookups made in `pending`.
    lookups: usize,
    /// What the path maps are sized for once made.
    keyed: usize,
}

impl<'a> KeyStore<'a> {
    /// A store for about `keyed` nodes' keys (base's: most nodes of ours and theirs
    /// join by lockstep and are never recorded).
    pub(super) fn new(nodes: &'a [crate::model::Node], keyed: usize) -> KeyStore<'a> {
        KeyStore {
            by_uid: FxMap::default(),
            by_path: MultiMap::with_capacity(0),
            by_skey: MultiMap::with_capacity(0),
            nodes,
            base: Vec::with_capacity(nodes.len()),
            anchors: Vec::with_capacity(nodes.len()),
            path_lens: Vec::with_capacity(nodes.len()),
            rests: Vec::new(),
            base_uids: Vec::new(),
            pending: Vec::new(),
            entered: false,
            lookups: 0,
            keyed,
        }
    }

    /// Record identity `id`'s keys, after every key recorded before; `base`: they are
    /// the keys of base node `base` (its path, its name), recorded before any other.
    pub(super) fn record(&mut self, id: usize, keys: NodeKey3<'a>, base: Option<usize>) {
        if self.entered {
            self.enter(id, keys);
            return;
        }
        match base.and_then(|b| self.base_entry(id, b, &keys)) {
            Some((e, anchor, path_len)) => {
                if let Some(k) = keys.uid {
                    self.base_uids.push((self.base.len() as u32, k));
                }
                if let Some((_, rest)) = keys.skey.filter(|_| e.rest != u32::MAX) {
                    self.rests.push(rest);
                }
                self.base.push(e);
                self.anchors.push(anchor);
                self.path_lens.push(path_len);
            }
            None => self.pending.push((id, keys)),
        }
    }

    /// `keys` as base node `b`'s entry, anchor and path length, when they are that
    /// node's keys (path and name) and every base key recorded so far is listed small.
    fn base_entry(
        &self,
        id: usize,
        b: usize,
        keys: &NodeKey3<'a>,
    ) -> Option<(BaseEntry, u32, u32)> {
        let n = self.nodes.get(b)?;
        let small = |x: usize| u32::try_from(x).ok().filter(|&x| x != u32::MAX);
        // Equal strings, told at once when they are the node's own (as they are).
        let same = |a: &str, b: &str| std::ptr::eq(a, b) || a == b;
        if !self.pending.is_empty() || !same(&n.path, keys.path) {
            return None;
        }
        let (anchor, rest, rest_len) = match &keys.skey {
            None => (u32::MAX, u32::MAX, 0),
            Some((a, r)) if same(r, &n.name) => (small(*a)?, u32::MAX, small(r.len())?),
            Some((a, r)) => (small(*a)?, small(self.rests.len())?, small(r.len())?),
        };
        let e = BaseEntry {
            id: small(id)?,
            node: small(b)?,
            rest,
            rest_len,
        };
        Some((e, anchor, small(keys.path.len())?))
    }

    /// Base entry `e`'s place key's rest.
    fn rest_of(&self, e: &BaseEntry) -> &str {
        match e.rest {
            u32::MAX => self
                .nodes
                .get(e.node as usize)
                .map_or("", |n| n.name.as_str()),
            r => self.rests.get(r as usize).map_or("", |r| r),
        }
    }

    /// Base entry `e`'s keys, for the maps.
    fn keys_of(
        &self,
        k: usize,
        e: &BaseEntry,
        uid: &mut std::iter::Peekable<impl Iterator<Item = (u32, (String, i64))>>,
    ) -> NodeKey3<'a> {
        let nodes: &'a [crate::model::Node] = self.nodes;
        let node = nodes.get(e.node as usize);
        let uid = uid.next_if(|(at, _)| *at as usize == k).map(|(_, key)| key);
        let anchor = self.anchors.get(k).copied().unwrap_or(u32::MAX);
        let skey = (anchor != u32::MAX).then(|| {
            let rest = match e.rest {
                u32::MAX => Cow::Borrowed(node.map_or("", |n| n.name.as_str())),
                r => self.rests.get(r as usize).cloned().unwrap_or_default(),
            };
            (anchor as usize, rest)
        });
        NodeKey3 {
            uid,
            skey,
            path: node.map_or("", |n| n.path.as_str()),
            entry: false,
        }
    }

    fn enter(&mut self, id: usize, keys: NodeKey3<'a>) {
        if let Some(k) = keys.uid {
            self.by_uid.entry(k).or_insert(id);
        }
        if let Some(k) = keys.skey {
            self.by_skey.push(k, id);
        }
        self.by_path.push(keys.path, id);
    }

    /// Put every pending key in the maps, in the order recorded; later keys go straight
    /// there. The path maps are sized for base (sized for all three sides, the entries
    /// would spread over three times the memory, each page touched).
    fn enter_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        let base = std::mem::take(&mut self.base);
        let mut uids = std::mem::take(&mut self.base_uids).into_iter().peekable();
        self.by_path = MultiMap::with_capacity(self.keyed);
        self.by_skey = MultiMap::with_capacity(self.keyed);
        self.entered = true;
        for (k, e) in base.iter().enumerate() {
            let keys = self.keys_of(k, e, &mut uids);
            self.enter(e.id as usize, keys);
        }
        (self.rests, self.anchors, self.path_lens) = Default::default();
        for (id, keys) in pending {
            self.enter(id, keys);
        }
    }

    /// [`KeyStore::find`] in the lists: the first identity listed with the key, base's
    /// first, that `ok` accepts.
    fn find_listed(
        &self,
        keys: &NodeKey3<'a>,
        claimed: impl Fn(usize) -> bool,
        usable: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        let pending = &self.pending;
        let first = |same: &dyn Fn(&NodeKey3<'a>) -> bool, ok: &dyn Fn(usize) -> bool| {
            (pending.iter())
                .filter(|(_, e)| same(e))
                .map(|&(id, _)| id)
                .find(|&id| ok(id))
        };
        // The first of base's entries whose `column` holds `want` (told apart from
        // `u32::MAX`, which no entry holds) and that `same` and `ok` accept.
        let base_ids = |column: &[u32],
                        want: Option<u32>,
                        same: &dyn Fn(&BaseEntry) -> bool,
                        ok: &dyn Fn(usize) -> bool| {
            let want = want.filter(|&w| w != u32::MAX)?;
            (column.iter().zip(&self.base))
                .filter(|&(&v, e)| v == want && same(e))
                .map(|(_, e)| e.id as usize)
                .find(|&id| ok(id))
        };
        let small = |x: usize| u32::try_from(x).ok();
        let by_uid = |k: &(String, i64)| {
            (self.base_uids.iter())
                .find(|(_, u)| u == k)
                .and_then(|&(at, _)| self.base.get(at as usize))
                .map(|e| e.id as usize)
                .or_else(|| first(&|e| e.uid.as_ref() == Some(k), &|_| true))
        };
        let by_skey = |(a, r): &(usize, Cow<'a, str>)| {
            let rest = |e: &BaseEntry| e.rest_len as usize == r.len() && self.rest_of(e) == r;
            base_ids(&self.anchors, small(*a), &rest, &usable).or_else(|| {
                first(
                    &|e| e.skey.as_ref().is_some_and(|(ea, er)| ea == a && er == r),
                    &usable,
                )
            })
        };
        let path = keys.path;
        let by_path = || {
            let at = |e: &BaseEntry| self.nodes.get(e.node as usize).map(|n| n.path.as_str());
            base_ids(
                &self.path_lens,
                small(path.len()),
                &|e| at(e) == Some(path),
                &usable,
            )
            .or_else(|| first(&|e| e.path == path, &usable))
        };
        keys.uid
            .as_ref()
            .and_then(by_uid)
            .filter(|&id| !claimed(id))
            .or_else(|| by_skey(keys.skey.as_ref()?))
            .or_else(by_path)
    }

    /// The identity `keys` find on `side`: the first recorded with the unique_id key,
    /// unless `claimed`; else the first usable one recorded with the place key; else
    /// the first usable one recorded with the path. (`usable` implies not `claimed`.)
    pub(super) fn find(
        &mut self,
        keys: &NodeKey3<'a>,
        side: usize,
        claimed: impl Fn(usize) -> bool,
        usable: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        if !self.entered {
            self.lookups += 1;
            if self.lookups > LINEAR_LOOKUPS {
                self.enter_pending();
            }
        }
        if !self.entered {
            return self.find_listed(keys, claimed, usable);
        }
        keys.uid
            .as_ref()
            .and_then(|k| self.by_uid.get(k).copied())
            .filter(|&id| !claimed(id))
            .or_else(|| {
                let k = keys.skey.as_ref()?;
                self.by_skey.find(k, side, &claimed, &usable)
            })
            .or_else(|| self.by_path.find(keys.path, side, &claimed, &usable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scene;

    fn key(uid: Option<i64>, skey: Option<(usize, &str)>, path: &str) -> NodeKey3<'static> {
        // Leaked: the keys live as long as the test.
        let path: &'static str = Box::leak(path.to_string().into_boxed_str());
        NodeKey3 {
            uid: uid.map(|u| (String::new(), u)),
            skey: skey.map(|(a, r)| (a, Cow::Owned(r.to_string()))),
            path,
            entry: false,
        }
    }

    fn copy<'a>(k: &NodeKey3<'a>) -> NodeKey3<'a> {
        NodeKey3 {
            uid: k.uid.clone(),
            skey: k.skey.clone(),
            path: k.path,
            entry: false,
        }
    }

    /// Walking the lists answers what the maps answer, before and after the keys move
    /// into the maps, for every key kind, with claimed and unusable identities, base's
    /// keys listed small (a place key ending in the name, or in more) and others in full.
    #[test]
    fn the_list_and_the_maps_answer_alike() {
        let text = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\" unique_id=5]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"C\" type=\"Node\" parent=\"A/Q\" unique_id=5]\n";
        let scene = Scene::parse(text.as_bytes()).expect("parses");
        let nodes = &scene.nodes;
        // Base's keys: node i is identity i.
        let base = [
            key(None, None, "."),
            key(None, Some((9, "A")), "A"),
            key(Some(5), Some((9, "B")), "B"),
            key(None, Some((9, "A")), "A"),
            key(Some(5), Some((1, "Q/C")), "A/Q/C"),
        ];
        let later = [
            (5, key(None, Some((9, "A")), "A")),
            (6, key(Some(7), Some((1, "Q/C")), "Z")),
        ];
        let asks = [
            key(None, Some((9, "A")), "A"),
            key(Some(5), Some((9, "B")), "B"),
            key(None, None, "A"),
            key(Some(6), Some((8, "A")), "A/Q/C"),
            key(None, Some((9, "Z")), "Z"),
            key(Some(7), Some((1, "Q/C")), "."),
            key(None, Some((1, "Q/C")), "Z"),
        ];
        let mut small = 0;
        for usable_mask in 0u32..128 {
            for claimed_mask in [0u32, 1, 2, 5, 8, 34, 127, 64, 96] {
                let claimed = |id: usize| claimed_mask & (1 << id) != 0;
                let usable = |id: usize| !claimed(id) && usable_mask & (1 << id) != 0;
                let mut list = KeyStore::new(nodes, 4);
                let mut maps = KeyStore::new(nodes, 4);
                maps.enter_pending();
                for (id, k) in base.iter().enumerate() {
                    list.record(id, copy(k), Some(id));
                    maps.record(id, copy(k), Some(id));
                }
                small = list.base.len();
                for (id, k) in &later {
                    list.record(*id, copy(k), None);
                    maps.record(*id, copy(k), None);
                }
                for a in &asks {
                    assert_eq!(
                        list.find(a, 1, claimed, usable),
                        maps.find(a, 1, claimed, usable),
                        "{:?} {:?} {claimed_mask} {usable_mask}",
                        a.path,
                        a.skey
                    );
                }
                assert!(!list.entered, "seven lookups stay in the list");
                // Moved into the maps, the lists answer alike still.
                list.enter_pending();
                for a in &asks {
                    assert_eq!(
                        list.find(a, 1, claimed, usable),
                        maps.find(a, 1, claimed, usable)
                    );
                }
            }
        }
        assert_eq!(small, base.len(), "base's keys are listed small");
    }
}
