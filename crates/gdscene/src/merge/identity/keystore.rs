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

/// The keys recorded, each with its identity.
pub(super) struct KeyStore<'a> {
    /// The first identity recorded with a unique_id key.
    by_uid: FxMap<(String, i64), usize>,
    by_path: MultiMap<&'a str>,
    by_skey: MultiMap<(usize, Cow<'a, str>)>,
    /// Keys recorded and not in the maps yet, in the order recorded.
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
    pub(super) fn new(keyed: usize) -> KeyStore<'a> {
        KeyStore {
            by_uid: FxMap::default(),
            by_path: MultiMap::with_capacity(0),
            by_skey: MultiMap::with_capacity(0),
            pending: Vec::with_capacity(keyed),
            entered: false,
            lookups: 0,
            keyed,
        }
    }

    /// Record identity `id`'s keys, after every key recorded before.
    pub(super) fn record(&mut self, id: usize, keys: NodeKey3<'a>) {
        if self.entered {
            self.enter(id, keys);
        } else {
            self.pending.push((id, keys));
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
        self.by_path = MultiMap::with_capacity(self.keyed);
        self.by_skey = MultiMap::with_capacity(self.keyed);
        self.entered = true;
        for (id, keys) in pending {
            self.enter(id, keys);
        }
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
            let pending = &self.pending;
            let first = |same: &dyn Fn(&NodeKey3<'a>) -> bool, ok: &dyn Fn(usize) -> bool| {
                (pending.iter())
                    .filter(|(_, e)| same(e))
                    .map(|&(id, _)| id)
                    .find(|&id| ok(id))
            };
            return keys
                .uid
                .as_ref()
                .and_then(|k| first(&|e| e.uid.as_ref() == Some(k), &|_| true))
                .filter(|&id| !claimed(id))
                .or_else(|| {
                    let k = keys.skey.as_ref()?;
                    first(&|e| e.skey.as_ref() == Some(k), &usable)
                })
                .or_else(|| first(&|e| e.path == keys.path, &usable));
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

    fn key(
        uid: Option<i64>,
        skey: Option<(usize, &'static str)>,
        path: &'static str,
    ) -> NodeKey3<'static> {
        NodeKey3 {
            uid: uid.map(|u| (String::new(), u)),
            skey: skey.map(|(a, r)| (a, Cow::Borrowed(r))),
            path,
            entry: false,
        }
    }

    /// Walking the list answers what the maps answer, before and after the keys move
    /// into the maps, for every key kind, with claimed and unusable identities.
    #[test]
    fn the_list_and_the_maps_answer_alike() {
        let recorded = [
            (0, key(None, Some((9, "A")), "R/A")),
            (1, key(Some(5), Some((9, "B")), "R/B")),
            (2, key(None, Some((9, "A")), "R/A")),
            (3, key(Some(5), None, "R/C")),
            (4, key(None, None, "R/A")),
        ];
        let asks = [
            key(None, Some((9, "A")), "R/A"),
            key(Some(5), Some((9, "B")), "R/B"),
            key(None, None, "R/A"),
            key(Some(6), Some((8, "A")), "R/C"),
            key(None, Some((9, "Z")), "R/Z"),
        ];
        for usable_mask in 0u32..32 {
            for claimed_mask in 0u32..32 {
                let claimed = |id: usize| claimed_mask & (1 << id) != 0;
                let usable = |id: usize| !claimed(id) && usable_mask & (1 << id) != 0;
                let mut list = KeyStore::new(4);
                let mut maps = KeyStore::new(4);
                maps.enter_pending();
                for (id, k) in &recorded {
                    let copy = NodeKey3 {
                        uid: k.uid.clone(),
                        skey: k.skey.clone(),
                        path: k.path,
                        entry: false,
                    };
                    list.record(*id, copy);
                    let copy = NodeKey3 {
                        uid: k.uid.clone(),
                        skey: k.skey.clone(),
                        path: k.path,
                        entry: false,
                    };
                    maps.record(*id, copy);
                }
                for a in &asks {
                    assert_eq!(
                        list.find(a, 1, claimed, usable),
                        maps.find(a, 1, claimed, usable)
                    );
                }
                assert!(!list.entered, "five lookups stay in the list");
            }
        }
    }
}
