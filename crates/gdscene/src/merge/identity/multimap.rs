//! [`MultiMap`]: a map from a key to a list of identities, chained through one array,
//! that the node matching looks candidates up in. Decides nothing.

use crate::merge::shared::idents::FxMap;

/// A map from a key to a list of identities (in insertion order), without a vector per
/// key: the lists are chained through one array.
pub(super) struct MultiMap<K> {
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
    pub(super) fn with_capacity(n: usize) -> MultiMap<K> {
        MultiMap {
            ends: FxMap::with_capacity_and_hasher(n, Default::default()),
            entries: Vec::with_capacity(n),
            skip: FxMap::default(),
        }
    }

    pub(super) fn push(&mut self, key: K, id: usize) {
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
    pub(super) fn find<Q>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::shared::idents::{O, T};

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
