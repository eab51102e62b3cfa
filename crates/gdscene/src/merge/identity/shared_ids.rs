//! Nodes both sides re-identified alike: re-saved in a newer Godot that gave a node the
//! same new unique_id on each side, or moved it under the same new parent. Which base
//! node such a node is (the one neither side matched, found by path, by its parent's
//! identity and name, then by name), so that the merge is three-way against it; also
//! the override entries under such a node that only one side still lists. Runs after
//! the keyed matching and the moves of [`super::nodes`].

use super::kinds::{node_kind, MAX_SHARED_ROUNDS};
use crate::merge::shared::idents::{Paths, SharedChange, Table, B, O, T};
use crate::model::Scene;
use std::collections::{BTreeMap, BTreeSet};

/// Both sides changed a node's identity the same way (re-saved in a newer Godot that gave
/// it the same new unique_id, or moved it under the same new parent): the base node
/// neither side matched pairs with the node both sides share (found by either side's
/// path and type, then by name and type), when the pairing is unambiguous. The merge is
/// then three-way against base. A re-saved node (new unique_id, same path and type) only
/// one side still has pairs the same way: the other side deleted it.
pub(super) fn follow_shared(sc: [&Scene; 3], t: &mut Table, paths: &Paths) -> Vec<SharedChange> {
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

/// One round of [`follow_shared`] by the key `place`; how many base nodes it paired.
pub(super) fn pair_shared(
    sc: [&Scene; 3],
    t: &mut Table,
    paths: &Paths,
    place: SharedBy,
    paired: &mut Vec<SharedChange>,
) -> usize {
    let by_path = place != SharedBy::Name;
    let shared: BTreeSet<usize> = paired.iter().map(|p| p.ident).collect();
    let (gone, both) = shared_keys(sc, t, paths, place, &shared);
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
/// re-saved (`both`), by the key `place`. By the parent's identity, `both` also holds a
/// node only one side has and that has no `unique_id` to be re-identified by, under a
/// node both sides re-identified alike (`shared`): a rename there left the node no
/// path base knows (an override entry the other side deleted is then deleted).
pub(super) fn shared_keys(
    sc: [&Scene; 3],
    t: &Table,
    paths: &Paths,
    place: SharedBy,
    shared: &BTreeSet<usize>,
) -> (Keyed, Keyed) {
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
    let re_identified = |s: usize, i: usize| {
        let n = &sc[s].nodes[i];
        by_path && n.unique_id.is_some()
            || place == SharedBy::Parent
                && n.unique_id.is_none()
                && shared.contains(&parent_ident(t, paths, s, n))
    };
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
pub(super) type Keyed = BTreeMap<(String, String), Vec<usize>>;

/// The keys [`follow_shared`] pairs by, in order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SharedBy {
    Path,
    Parent,
    Name,
}

/// The identity of a node's parent on side `s` (`usize::MAX` for the root or an unknown
/// parent), for [`SharedBy::Parent`].
pub(super) fn parent_ident(t: &Table, paths: &Paths, s: usize, n: &crate::model::Node) -> usize {
    n.parent.as_ref().map_or(usize::MAX, |_| {
        let parent = n.path.rsplit_once('/').map_or(".", |(p, _)| p);
        paths[s].get(parent).map_or(usize::MAX, |&i| t.of[s][i])
    })
}
