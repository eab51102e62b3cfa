//! Which lines outside a hunk depend on the side a person picks in it: when both sides
//! renamed or moved a node differently, the path of everything under it does, so each
//! such node's `parent=` is written between markers in each side's spelling (base,
//! ours, theirs); a `[connection]` whose `from=`/`to=` names such a node likewise, and
//! one naming a node inside a delete-against-modify hunk is left out of the part of
//! the side that lacks the node. Deciding what conflicts is left to [`crate::merge::tree::nodes`];
//! the markers to [`crate::merge::output::print`].

use crate::merge::decisions::Decision;
use crate::merge::output::hunk_parts::{parent_text, quoted, HunkParts};
use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::{printed_in, MergedNode, MergedPaths};
use crate::merge::shared::sections::{Chunk, OutSec, TagOut};
use crate::model::join_path;
use std::collections::{BTreeMap, HashMap};

/// Fields of a tag per side (`None`: the side's part leaves the tag out).
type Sides = [Option<Vec<(&'static str, String)>>; 3];

/// Deeper parent chains than this are cut (a cycle, or hostile input).
const MAX_DEPTH: usize = 4096;

/// Wrap the tag of every node whose `parent=` differs between the sides' spellings of
/// a conflicted ancestor, and record one decision per conflicted node; then what the
/// hunks' parts print and which nodes wait (see [`HunkParts`]).
pub(in crate::merge) fn respell_under_conflicts<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
    paths: &MergedPaths,
    connections: &mut BTreeMap<usize, OutSec>,
) -> HunkParts {
    if !merged
        .iter()
        .flatten()
        .any(|m| m.place_conflict || m.tag_conflict || m.out.whole.is_some())
    {
        return HunkParts::default();
    }
    let (spelled, parents) = {
        let tree = Tree::of(ctx, merged);
        let spelled: [Vec<String>; 3] = [B, O, T].map(|s| Speller::all(&tree, s));
        (spelled.clone(), parents_per_side(&tree, &spelled))
    };
    let nodes = NodesBySide::of(ctx, merged, paths, &spelled);
    for out in connections.values_mut() {
        respell_connection(ctx, &nodes, out);
    }
    respell_parents(ctx, merged, paths, parents);
    let tree = Tree::of(ctx, merged);
    let place = |n: usize, m: &MergedNode<'a>, s: usize| tree.place_on(n, m, s);
    HunkParts::of(ctx, merged, &spelled, &place)
}

/// By node identity, each side's `parent=` text of a node printed on its own (not in a
/// whole-section hunk, not in a tag conflict) whose `parent=` differs between the
/// sides' spellings.
type Parents = Vec<Option<[Option<String>; 3]>>;

fn parents_per_side<'a>(tree: &Tree<'_, 'a>, spelled: &[Vec<String>; 3]) -> Parents {
    let parents_of = |d: usize, m: &MergedNode<'a>| {
        if m.out.whole.is_some() || m.tag_conflict {
            return None;
        }
        let parents = [B, O, T].map(|s| parent_text(&tree.place_on(d, m, s).0, &spelled[s]));
        let ours = parents[O].clone()?;
        let differ = parents
            .iter()
            .any(|p| p.as_deref().is_some_and(|p| p != ours));
        differ.then_some(parents)
    };
    tree.merged
        .iter()
        .enumerate()
        .map(|(d, m)| m.as_ref().and_then(|m| parents_of(d, m)))
        .collect()
}

/// Wrap the tag of every node whose `parent=` differs between the sides' spellings
/// (`parents`), with one decision per conflicted node.
fn respell_parents<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
    paths: &MergedPaths,
    parents: Parents,
) {
    let mut counts = vec![0usize; merged.len()];
    for (d, parents) in parents.into_iter().enumerate() {
        let Some(parents) = parents else { continue };
        let Some(ours) = parents[O].clone() else {
            continue;
        };
        for a in conflicted_ancestors(merged, d) {
            counts[a] += 1;
        }
        let sides = parents.map(|p| Some(vec![("parent", quoted(&p.unwrap_or(ours.clone())))]));
        if let Some(m) = merged[d].as_mut() {
            per_side(&mut m.out, sides);
        }
    }
    for (a, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let node = paths.get(a).unwrap_or(".").to_string();
        ctx.decisions
            .push(Decision::ConflictSpellsParents { node, nodes: n });
    }
}

/// The merged nodes with, for a node printed inside another node's whole-section hunk
/// (a descendant that hunk carries), the node whose hunk prints it.
pub(in crate::merge) struct Tree<'c, 'a> {
    ctx: &'c Ctx<'a>,
    merged: &'c [Option<MergedNode<'a>>],
    carried_by: HashMap<usize, usize>,
}

impl<'c, 'a> Tree<'c, 'a> {
    fn of(ctx: &'c Ctx<'a>, merged: &'c [Option<MergedNode<'a>>]) -> Self {
        let carried_by = printed_in(ctx, merged);
        Tree {
            ctx,
            merged,
            carried_by,
        }
    }

    /// Where node `n` hangs, and its name, in `side`'s part: that side's own place when
    /// its name or place conflicts or that part lacks its parent, else the result's.
    fn place_on(&self, n: usize, m: &MergedNode<'a>, side: usize) -> (ParentRef, &'a str) {
        let ctx = self.ctx;
        // Base's part shows base's place wherever a side's part shows that side's own.
        let own_place = |s: usize| m.place_conflict || self.lacks_parent(m, s);
        let own = ctx.id.node.at[n][side]
            .filter(|_| own_place(side) || (side == B && (own_place(O) || own_place(T))));
        match own {
            Some(i) => (ctx.parent_ref(side, i), ctx.sc[side].nodes[i].name.as_str()),
            None => (m.parent.clone(), m.name),
        }
    }

    /// Whether `side`'s part of a whole-section hunk lacks the node's parent in the
    /// result: the parent is that hunk's node, or a descendant it carries, and `side`'s
    /// part does not print it.
    fn lacks_parent(&self, m: &MergedNode, side: usize) -> bool {
        if side == B {
            return false;
        }
        let Some(p) = m.parent.anchor() else {
            return false;
        };
        match self.merged.get(p).and_then(Option::as_ref) {
            Some(pm) => pm.out.whole.as_ref().is_some_and(|w| w[side].is_empty()),
            None => self.carried_by.contains_key(&p) && self.carried_place(p, side).is_none(),
        }
    }

    /// For a node a hunk carries: where it hangs, and its name, in `side`'s part of that
    /// hunk (`None` when that part does not print it).
    fn carried_place(&self, d: usize, side: usize) -> Option<(ParentRef, &'a str)> {
        let ctx = self.ctx;
        let x = *self.carried_by.get(&d)?;
        let w = self.merged.get(x)?.as_ref()?.out.whole.as_ref()?;
        let k = ctx.id.node.at[d][side]?;
        let n = &ctx.sc[side].nodes[k];
        w[side]
            .contains(&n.section)
            .then(|| (ctx.parent_ref(side, k), n.name.as_str()))
    }
}

/// Make a section's tag depend on the side picked.
fn per_side(out: &mut OutSec, sides: Sides) {
    let inner = std::mem::replace(&mut out.tag, TagOut::Src((O, 0..0)));
    out.tag = TagOut::PerSide(Box::new(inner), Box::new(sides));
    out.verbatim = None;
}

/// Each node path a connection of the result may name (as the result spells it), with
/// the node's path in each side's part (`None`: that part lacks the node).
struct NodesBySide(HashMap<String, [Option<String>; 3]>);

impl NodesBySide {
    fn of(
        ctx: &Ctx,
        merged: &[Option<MergedNode>],
        paths: &MergedPaths,
        spelled: &[Vec<String>; 3],
    ) -> NodesBySide {
        let mut map = HashMap::new();
        for (i, m) in merged.iter().enumerate() {
            let Some(m) = m else { continue };
            let Some(path) = paths.get(i) else { continue };
            match &m.out.whole {
                None => {
                    map.insert(
                        path.to_string(),
                        [B, O, T].map(|s| spelled[s].get(i).cloned()),
                    );
                }
                Some(w) => {
                    let kept = if w[O].is_empty() { T } else { O };
                    for si in &w[kept] {
                        let sc = ctx.sc[kept];
                        let Some(n) = sc.nodes.iter().find(|n| n.section == *si) else {
                            continue;
                        };
                        let mut v: [Option<String>; 3] = Default::default();
                        v[kept] = Some(n.path.to_string());
                        v[B] = Some(n.path.to_string());
                        map.insert(n.path.to_string(), v.clone());
                        if *si == w[kept][0] {
                            map.insert(path.to_string(), v);
                        }
                    }
                }
            }
        }
        NodesBySide(map)
    }

    /// A `from=`/`to=` value's path on each side; unknown paths are the same on all.
    fn get(&self, value: &str) -> [Option<String>; 3] {
        self.0
            .get(value)
            .cloned()
            .unwrap_or_else(|| [B, O, T].map(|_| Some(value.to_string())))
    }
}

/// A connection naming a node whose path depends on the side picked (or that one
/// side's part lacks) is written per side.
fn respell_connection(ctx: &Ctx, nodes: &NodesBySide, out: &mut OutSec) {
    let (Some(from), Some(to)) = (
        field_value(ctx, &out.tag, "from"),
        field_value(ctx, &out.tag, "to"),
    ) else {
        return;
    };
    let (f, t) = (nodes.get(&from), nodes.get(&to));
    let sides: Sides = [B, O, T].map(|s| match (&f[s], &t[s]) {
        (Some(a), Some(b)) => Some(vec![("from", quoted(a)), ("to", quoted(b))]),
        _ => None,
    });
    let same = |x: &Option<Vec<(&str, String)>>| {
        x.as_ref()
            .is_some_and(|v| v[0].1 == quoted(&from) && v[1].1 == quoted(&to))
    };
    if !(same(&sides[O]) && same(&sides[T])) {
        per_side(out, sides);
    }
}

/// A tag field's value, unquoted (`None` when it is not a plain quoted string).
fn field_value(ctx: &Ctx, tag: &TagOut, key: &str) -> Option<String> {
    let raw = match tag {
        TagOut::Src((side, r)) => {
            let text = ctx.sc[*side].doc.slice(r);
            let at = text.find(&format!(" {key}=\""))? + key.len() + 2;
            let rest = &text[at..];
            rest[..rest[1..].find('"')? + 2].to_string()
        }
        TagOut::Fields(_, fields) => match &fields.iter().find(|(k, _)| k == key)?.1 {
            Chunk::Src((side, r)) => ctx.sc[*side].doc.slice(r).to_string(),
            Chunk::Lit(l) => l.clone(),
        },
        _ => return None,
    };
    let inner = raw.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then(|| inner.to_string())
}

/// The nodes above `d` in the result whose name or place conflicts, or that are in
/// conflict as a whole.
fn conflicted_ancestors(merged: &[Option<MergedNode>], d: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = merged
        .get(d)
        .and_then(Option::as_ref)
        .and_then(|m| m.parent.anchor());
    for _ in 0..MAX_DEPTH {
        let Some(p) = at else { break };
        let Some(m) = merged.get(p).and_then(Option::as_ref) else {
            break;
        };
        if m.place_conflict || m.out.whole.is_some() {
            out.push(p);
        }
        at = m.parent.anchor();
    }
    out
}

/// Paths of the result as one side spells them: a node whose name or place conflicts,
/// or whose parent that side's part of a hunk lacks, takes that side's name and
/// parent; every other node the result's.
struct Speller<'t, 'c, 'a> {
    tree: &'t Tree<'c, 'a>,
    side: usize,
    memo: Vec<Option<String>>,
}

impl<'a> Speller<'_, '_, 'a> {
    /// Every node's path in `side`'s spelling ("." for nodes not in the result, or not
    /// in that side's part).
    fn all(tree: &Tree<'_, 'a>, side: usize) -> Vec<String> {
        let mut sp = Speller {
            tree,
            side,
            memo: vec![None; tree.merged.len()],
        };
        (0..tree.merged.len()).map(|i| sp.path(i, 0)).collect()
    }

    fn path(&mut self, n: usize, depth: usize) -> String {
        if let Some(Some(p)) = self.memo.get(n) {
            return p.clone();
        }
        let tree = self.tree;
        // A node a hunk carries hangs, in the part that prints it, where that side put it.
        let place = match tree.merged.get(n).and_then(Option::as_ref) {
            Some(m) => tree.place_on(n, m, self.side),
            None => match tree.carried_place(n, self.side) {
                Some(place) => place,
                None => return ".".into(),
            },
        };
        let (parent, name) = place;
        let above = match &parent {
            _ if depth > MAX_DEPTH => ".".to_string(),
            ParentRef::Root => ".".to_string(),
            ParentRef::Outside(p) => p.clone(),
            ParentRef::Inside { anchor, rest } => join_path(&self.path(*anchor, depth + 1), rest),
            ParentRef::Node(p) => self.path(*p, depth + 1),
        };
        let p = match parent {
            ParentRef::Root => ".".to_string(),
            _ if above == "." => name.to_string(),
            _ => format!("{above}/{name}"),
        };
        if let Some(slot) = self.memo.get_mut(n) {
            *slot = Some(p.clone());
        }
        p
    }
}
