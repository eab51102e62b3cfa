//! Renames and moves without unique ids: a node gone from base on one side paired with a
//! node new on that side (the same name and type, or the same parent, type and
//! properties) when the pairing is unambiguous, else known by the subtree it kept, else
//! alike enough by the rule `diff` uses ([`crate::model::likeness`]), and its
//! descendants followed with it.

use super::kinds::{node_kind, root_of, same_kind, sub_ids_blank, MAX_SHARED_ROUNDS};
use crate::merge::shared::idents::{FxMap, Paths, Table, B, O, T};
use crate::model::likeness::{likeness, mutual_best, Budget};
use crate::model::Scene;
use std::collections::{BTreeMap, HashMap};

/// Without unique ids a moved node looks deleted and re-added. Pair a node that
/// disappeared from base on one side with a node that appeared on the same side when
/// both have the same name and type, or (a rename) the same parent, type and
/// properties, and the pairing is unambiguous. Pairing a renamed or moved parent lets
/// its children pair in the next round: under the parent's identity with the same name
/// and type (a child the other side re-saved with a unique_id, or edited, included).
/// Likeness comes last and asks both sides on one table ([`alike_pairs`]): the pairs
/// are the same whichever side is ours.
pub(super) fn follow_moves(sc: [&Scene; 3], t: &mut Table, paths: &Paths) {
    // A pair is a node gone from base on a side and a node new on it: without both on
    // either side no round pairs anything (and the parents need not be looked up).
    if ![O, T].into_iter().any(|x| gone_and_new_on(t, x)) {
        return;
    }
    let mut budget = Budget::for_nodes(sc.iter().map(|s| s.nodes.len()).sum());
    let pa = &parents_of(sc, paths);
    for _ in 0..MAX_SHARED_ROUNDS {
        for x in [O, T] {
            for _ in 0..MAX_SHARED_ROUNDS {
                if follow_moves_once(sc, pa, t, x) == 0 {
                    break;
                }
            }
        }
        let alike = [O, T].map(|x| {
            let [gone, new] = gone_and_new(sc, t, x).map(|m| {
                let mut v: Vec<usize> = m.into_values().flatten().collect();
                v.sort_unstable();
                v
            });
            alike_pairs((sc, pa), t, x, (&gone, &new), &mut budget)
        });
        if alike.iter().all(Vec::is_empty) {
            break;
        }
        for (x, paired) in [O, T].into_iter().zip(alike) {
            apply_pairs(sc, t, x, paired);
        }
    }
}

/// Whether side `x` has both a base node it lacks and a node new on it alone (what
/// [`gone_and_new`] lists).
fn gone_and_new_on(t: &Table, x: usize) -> bool {
    let other = if x == O { T } else { O };
    let (mut gone, mut new) = (false, false);
    for at in &t.at {
        gone |= at[B].is_some() && at[x].is_none();
        new |= at[B].is_none() && at[x].is_some() && at[other].is_none();
        if gone && new {
            return true;
        }
    }
    false
}

/// Bind each pair's new node of side `x` to the gone identity, and follow the
/// descendants of the nodes so followed.
fn apply_pairs(sc: [&Scene; 3], t: &mut Table, x: usize, paired: Vec<(usize, usize)>) {
    let mut followed = Vec::with_capacity(paired.len());
    for (keep, drop) in paired {
        let Some(i) = t.at[drop][x] else { continue };
        t.at[drop][x] = None;
        t.bind(keep, x, i);
        followed.push(keep);
    }
    follow_descendants(sc, t, x, &followed);
}

/// The descendants of nodes [`follow_moves`] followed on side `x` move with them: a base
/// descendant gone from `x` pairs with the node new on `x` at the same path below the
/// followed node, of the same kind. Names that recur in a scene (`Label`, `TextEdit`)
/// are ambiguous scene-wide, but not below one node; and an instance's override entries
/// (no type of their own) are paired by nothing else.
pub(super) fn follow_descendants(sc: [&Scene; 3], t: &mut Table, x: usize, followed: &[usize]) {
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
pub(super) fn below<'s, 'p>(sorted: &'s [(&'p str, usize)], path: &str) -> &'s [(&'p str, usize)] {
    let prefix = format!("{path}/");
    let start = sorted.partition_point(|(p, _)| *p < prefix.as_str());
    let len = sorted[start..].partition_point(|(p, _)| p.starts_with(prefix.as_str()));
    &sorted[start..start + len]
}

/// Identities base has and side `x` lost, and identities only side `x` has, by
/// [`node_kind`].
pub(super) type GoneNew = [HashMap<(String, String), Vec<usize>>; 2];

pub(super) fn gone_and_new(sc: [&Scene; 3], t: &Table, x: usize) -> GoneNew {
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

/// One round of [`follow_moves`] on side `x` (likeness aside): how many nodes it paired.
pub(super) fn follow_moves_once(sc: [&Scene; 3], pa: &Parents, t: &mut Table, x: usize) -> usize {
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
    let renamed = |s: usize, i: usize| (parent_ident_at(pa, t, s, i), rename_content(sc, s, i));
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
        (parent_ident_at(pa, t, s, i), (kind, name))
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
        paired = adopted_pairs((sc, pa), t, x, &gone, &new);
    }
    let count = paired.len();
    apply_pairs(sc, t, x, paired);
    count
}

/// A node renamed and edited on side `x` is known by its children: every base child it
/// still has on `x` hangs under one new node there, of the same type and under the same
/// parent, and that node took children from no other gone node. Not when the other side
/// has a node at that new node's path (the names would collide: which is the rename is
/// then a guess).
pub(super) fn adopted_pairs(
    (sc, pa): ([&Scene; 3], &Parents),
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
        for (g, n) in evidence(
            sc[B].nodes[b].path.as_str(),
            &sc[x].nodes[i],
            &gone_at,
            &new_at,
        ) {
            took.entry(g).or_default().push(n);
            gave.entry(n).or_default().push(g);
        }
    }
    let kind = |s: usize, id: usize| t.at[id][s].map(|i| node_kind(sc[s], i).1);
    let parent = |s: usize, id: usize| t.at[id][s].and_then(|i| parent_ident_at(pa, t, s, i));
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

/// What a node matched on base (at `base_path`) and on side `x` (`node`) says of the gone
/// nodes above it in base: its base parent, when gone, went to the new node that is its
/// parent on `x` (`usize::MAX`: not a new node, which speaks against any); a gone
/// ancestor higher up went to the new node at the same relative path above it on `x`
/// (the node and the nodes between kept their names: a renamed container whose children
/// recur in the scene, `VBoxContainer/Label`, is known by a grandchild with a name of its
/// own). A descendant that moved elsewhere says nothing of an ancestor above its parent.
fn evidence(
    base_path: &str,
    node: &crate::model::Node,
    gone_at: &HashMap<&str, usize>,
    new_at: &HashMap<&str, usize>,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let Some((parent, _)) = base_path.rsplit_once('/') else {
        return out;
    };
    if let Some(&g) = gone_at.get(parent) {
        let n = node.parent.as_deref().and_then(|p| new_at.get(p)).copied();
        out.push((g, n.unwrap_or(usize::MAX)));
    }
    let xp = node.path.as_str();
    for (k, _) in parent.match_indices('/') {
        let Some(&g) = gone_at.get(&base_path[..k]) else {
            continue;
        };
        let rel = &base_path[k..]; // "/child/.../name"
        let Some(prefix) = xp.strip_suffix(rel) else {
            continue;
        };
        if let Some(&n) = new_at.get(prefix) {
            out.push((g, n));
        }
    }
    out
}

/// A node renamed and edited on side `x` with no child to know it by is the same node
/// when it is alike enough by the rule `diff` pairs renames with
/// ([`crate::model::likeness`]): the same parent and kind, at least half of its
/// properties alike (SubResource ids left out: sub_resources are matched after nodes),
/// and each the other's one most alike ([`mutual_best`]: two alike nodes gone and one
/// renamed is a guess, and pairs nothing). Only a node the other side still has
/// (pairing a node both sides deleted would turn the other side's deletion into a
/// conflict), and not when the other side has a node at the new node's path (which
/// node is the rename would be a guess). [`follow_moves`] asks both sides on one table,
/// so that "the other side still has it" does not depend on which side is ours.
pub(super) fn alike_pairs(
    (sc, pa): ([&Scene; 3], &Parents),
    t: &Table,
    x: usize,
    (gone, new): (&[usize], &[usize]),
    budget: &mut Budget,
) -> Vec<(usize, usize)> {
    // Nothing gone or nothing new: no place has both.
    if gone.is_empty() || new.is_empty() {
        return Vec::new();
    }
    let other = if x == O { T } else { O };
    // Per place (parent identity, kind): the gone base nodes and the new nodes of `x`.
    type Place = (usize, String);
    let mut by_place: BTreeMap<Place, [Vec<(usize, usize)>; 2]> = BTreeMap::new();
    let taken_paths: std::collections::HashSet<&str> =
        sc[other].nodes.iter().map(|m| m.path.as_str()).collect();
    for &n in new {
        let Some(i) = t.at[n][x] else { continue };
        let (Some(p), kind) = (parent_ident_at(pa, t, x, i), node_kind(sc[x], i).1) else {
            continue;
        };
        if !kind.is_empty() && !taken_paths.contains(sc[x].nodes[i].path.as_str()) {
            by_place.entry((p, kind)).or_default()[1].push((i, n));
        }
    }
    if by_place.is_empty() {
        return Vec::new();
    }
    for &g in gone.iter().filter(|&&g| t.at[g][other].is_some()) {
        let Some(b) = t.at[g][B] else { continue };
        let Some(p) = parent_ident_at(pa, t, B, b) else {
            continue;
        };
        if let Some(group) = by_place.get_mut(&(p, node_kind(sc[B], b).1)) {
            group[0].push((b, g));
        }
    }
    let mut pairs = Vec::new();
    for [gone, new] in by_place.values_mut() {
        if gone.is_empty() {
            continue;
        }
        gone.sort_unstable();
        new.sort_unstable();
        let gp: Vec<_> = gone
            .iter()
            .map(|&(b, _)| likeness_props(sc[B], b))
            .collect();
        let np: Vec<_> = new.iter().map(|&(i, _)| likeness_props(sc[x], i)).collect();
        let Some(found) = mutual_best(gone.len(), new.len(), budget, |r, c| {
            likeness(&gp[r], &np[c], |v, w| v == w)
        }) else {
            break; // the budget is out: the nodes left are removed and added
        };
        pairs.extend(found.into_iter().map(|(r, c)| (gone[r].1, new[c].1)));
    }
    pairs.sort_unstable();
    pairs
}

/// A node's properties as [`alike_pairs`] compares them: trimmed text, SubResource ids
/// left out, the last of a repeated key.
fn likeness_props(s: &Scene, i: usize) -> Vec<(&str, String)> {
    let sec = &s.doc.sections[s.nodes[i].section];
    let mut out: Vec<(&str, String)> = Vec::with_capacity(sec.props.len());
    for p in &sec.props {
        let v = sub_ids_blank(s.doc.slice(&p.value)).trim().to_string();
        match out.iter_mut().find(|(k, _)| *k == p.key.as_str()) {
            Some(slot) => slot.1 = v,
            None => out.push((p.key.as_str(), v)),
        }
    }
    out
}

/// What pairs a gone node with a new one: its parent's identity and what it is.
pub(super) type MoveKey<C> = (Option<usize>, (String, C));

/// Pairs of a gone and a new identity whose keys are equal and shared by no other
/// (keys with an unknown parent or no kind pair nothing).
pub(super) fn unambiguous_pairs<C>(
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
pub(super) fn rename_content(
    sc: [&Scene; 3],
    s: usize,
    i: usize,
) -> (String, Vec<(String, String)>) {
    let n = &sc[s].nodes[i];
    let sec = &sc[s].doc.sections[n.section];
    let props = sec
        .props
        .iter()
        .map(|p| (p.key.to_string(), sub_ids_blank(sc[s].doc.slice(&p.value))))
        .collect();
    (node_kind(sc[s], i).1, props)
}

/// Each side's parent index of each node (`None`: the root, or a parent not listed),
/// found once by path so that pairing asks it in constant time.
pub(super) type Parents = [Vec<Option<usize>>; 3];

/// [`Parents`] of the three scenes: a parent path names the first node listed at it.
/// `paths` are the sides' path maps ([`super::nodes::side_paths`]): on a side where no
/// two nodes share a path (the map holds every node), the first node at a path is the
/// only one and the map answers; otherwise a map of first nodes is built.
pub(super) fn parents_of(sc: [&Scene; 3], paths: &Paths) -> Parents {
    let mut s = 0;
    sc.map(|scene| {
        let side = &paths[s];
        s += 1;
        let mut first: FxMap<&str, usize> = FxMap::default();
        let unique = side.len() == scene.nodes.len();
        if !unique {
            first.reserve(scene.nodes.len());
            for (i, n) in scene.nodes.iter().enumerate() {
                first.entry(n.path.as_str()).or_insert(i);
            }
        }
        let at = |p: &str| {
            if unique {
                side.get(p).copied()
            } else {
                first.get(p).copied()
            }
        };
        let root = root_of(scene);
        scene
            .nodes
            .iter()
            .map(|n| match n.parent.as_deref()? {
                "." => root,
                p => at(p),
            })
            .collect()
    })
}

/// The identity of node `i`'s parent on side `s`, when the parent is a matched node.
pub(super) fn parent_ident_at(pa: &Parents, t: &Table, s: usize, i: usize) -> Option<usize> {
    let pi = pa[s][i]?;
    t.bound(s, pi).then(|| t.of[s][pi])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parent path names the first node listed at it, "." the root; the root and an
    /// unlisted parent have none.
    #[test]
    fn parents_are_found_by_path_once() {
        let text = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"K\" type=\"Node\" parent=\"A\"]\n\n[node name=\"L\" type=\"Node\" parent=\"Gone\"]\n";
        let s = Scene::parse(text.as_bytes()).expect("parses");
        let pa = parents_of([&s, &s, &s], &super::super::nodes::side_paths([&s, &s, &s]));
        assert_eq!(pa[B], vec![None, Some(0), Some(0), Some(1), None]);
        let mut t = Table::new([5, 5, 5]);
        for i in 0..4 {
            t.fresh(B, i);
        }
        assert_eq!(parent_ident_at(&pa, &t, B, 3), Some(t.of[B][1]));
        assert_eq!(parent_ident_at(&pa, &t, B, 4), None);
        assert_eq!(
            parent_ident_at(&pa, &t, O, 3),
            None,
            "a parent not yet matched"
        );
    }
}
