//! The three-way merge of keyed collections that every grain shares: cells by coordinates,
//! keys by time, entries by key, tracks by path and type.
//!
//! It decides which side's version of each key wins and the output order (ours' order, then
//! what only theirs added, in theirs' order: what the editor's insertion-ordered maps
//! write). What to do when both sides changed one key is left to the caller's `clash`.

use std::collections::HashMap;
use std::hash::Hash;

/// First position of each key (the engine keeps the first slot and the last value).
fn index<K: Hash + Eq, V>(side: &[(K, V)]) -> HashMap<&K, &V> {
    let mut m = HashMap::with_capacity(side.len());
    for (k, v) in side {
        m.insert(k, v);
    }
    m
}

/// What the trivial rules give for one key, or `None` when both sides changed it differently.
fn settle<'v, V>(
    b: Option<&'v V>,
    o: Option<&'v V>,
    t: Option<&'v V>,
    eq: &impl Fn(&V, &V) -> bool,
) -> Option<Option<&'v V>> {
    let same = |x: Option<&V>, y: Option<&V>| match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => eq(x, y),
        _ => false,
    };
    if same(o, t) || same(b, t) {
        Some(o)
    } else if same(b, o) {
        Some(t)
    } else {
        None
    }
}

/// Merge three keyed lists. `clash(key, base, ours, theirs)` decides a key both sides
/// changed differently: `Ok(Some(v))` keeps `v`, `Ok(None)` drops the key, `Err` conflicts.
pub(crate) fn merge_keyed<K, V, C>(
    base: &[(K, V)],
    ours: &[(K, V)],
    theirs: &[(K, V)],
    eq: impl Fn(&V, &V) -> bool,
    mut clash: impl FnMut(&K, Option<&V>, Option<&V>, Option<&V>) -> Result<Option<V>, Vec<C>>,
) -> Result<Vec<(K, V)>, Vec<C>>
where
    K: Hash + Eq + Clone,
    V: Clone,
{
    let (b, o, t) = (index(base), index(ours), index(theirs));
    let mut out = Vec::with_capacity(ours.len().max(theirs.len()));
    let mut conflicts = Vec::new();
    let mut seen: HashMap<&K, ()> = HashMap::with_capacity(ours.len() + theirs.len());
    let keys = ours.iter().chain(theirs).map(|(k, _)| k);
    for k in keys {
        if seen.insert(k, ()).is_some() {
            continue;
        }
        let (bv, ov, tv) = (b.get(k).copied(), o.get(k).copied(), t.get(k).copied());
        match settle(bv, ov, tv, &eq) {
            Some(Some(v)) => out.push((k.clone(), v.clone())),
            Some(None) => {}
            None => match clash(k, bv, ov, tv) {
                Ok(Some(v)) => out.push((k.clone(), v)),
                Ok(None) => {}
                Err(mut c) => conflicts.append(&mut c),
            },
        }
    }
    if conflicts.is_empty() {
        Ok(out)
    } else {
        Err(conflicts)
    }
}

/// The keys whose value differs between `old` and `new` (`None`: absent), in old's order
/// then new's additions.
pub(crate) fn diff_keyed<'a, K, V>(
    old: &'a [(K, V)],
    new: &'a [(K, V)],
    eq: impl Fn(&V, &V) -> bool,
) -> Vec<(&'a K, Option<&'a V>, Option<&'a V>)>
where
    K: Hash + Eq,
{
    let (a, b) = (index(old), index(new));
    let mut seen: HashMap<&K, ()> = HashMap::with_capacity(old.len() + new.len());
    let mut out = Vec::new();
    for (k, _) in old.iter().chain(new) {
        if seen.insert(k, ()).is_some() {
            continue;
        }
        let (x, y) = (a.get(k).copied(), b.get(k).copied());
        let same = match (x, y) {
            (Some(x), Some(y)) => eq(x, y),
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push((k, x, y));
        }
    }
    out
}
