//! Which `[node]` lines a name or place conflict reaches: when both sides renamed or
//! moved a node differently, the result's path of everything under it depends on the
//! side a person picks, so each such node's `parent=` is written between markers in
//! each side's spelling (base, ours, theirs). Deciding that the name or place conflicts
//! is left to [`super::nodes`]; the markers to [`super::print`].

use super::context::{Ctx, ParentRef};
use super::matching::{B, O, T};
use super::nodes::MergedNode;
use super::paths::MergedPaths;
use super::sections::TagOut;
use super::Decision;
use crate::model::join_path;

/// Deeper parent chains than this are cut (a cycle, or hostile input).
const MAX_DEPTH: usize = 4096;

/// Wrap the tag of every node whose `parent=` differs between the sides' spellings of
/// a conflicted ancestor, and record one decision per conflicted node.
pub(super) fn respell_under_conflicts<'a>(
    ctx: &mut Ctx<'a>,
    merged: &mut [Option<MergedNode<'a>>],
    paths: &MergedPaths,
) {
    if !merged.iter().flatten().any(|m| m.place_conflict) {
        return;
    }
    let spelled: [Vec<String>; 3] = [B, O, T].map(|s| Speller::all(ctx, merged, s));
    let mut counts = vec![0usize; merged.len()];
    for d in 0..merged.len() {
        let Some(m) = merged[d].as_ref() else { continue };
        if m.out.whole.is_some() || m.tag_conflict {
            continue;
        }
        let parents = [B, O, T].map(|s| parent_text(&m.parent, &spelled[s]));
        let Some(ours) = parents[O].clone() else { continue };
        if parents.iter().all(|p| p.as_deref().is_none_or(|p| p == ours)) {
            continue;
        }
        for a in conflicted_ancestors(merged, d) {
            counts[a] += 1;
        }
        let quoted = parents.map(|p| format!("\"{}\"", crate::write::c_escape(&p.unwrap_or(ours.clone()))));
        if let Some(m) = merged[d].as_mut() {
            let inner = std::mem::replace(&mut m.out.tag, TagOut::Src((O, 0..0)));
            m.out.tag = TagOut::Respelled(Box::new(inner), Box::new(quoted));
            m.out.verbatim = None;
        }
    }
    for (a, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let node = paths.get(a).unwrap_or(".").to_string();
        ctx.decisions.push(Decision::ConflictSpellsParents { node, nodes: n });
    }
}

/// The `parent=` text of a node hanging at `parent`, with the given paths.
fn parent_text(parent: &ParentRef, spelled: &[String]) -> Option<String> {
    let path = |i: usize| spelled.get(i).map_or(".", String::as_str);
    match parent {
        ParentRef::Root => None,
        ParentRef::Outside(p) => Some(p.clone()),
        ParentRef::Inside { anchor, rest } => Some(join_path(path(*anchor), rest)),
        ParentRef::Node(p) => Some(path(*p).to_string()),
    }
}

/// The nodes above `d` in the result whose name or place conflicts.
fn conflicted_ancestors(merged: &[Option<MergedNode>], d: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = merged.get(d).and_then(Option::as_ref).and_then(|m| m.parent.anchor());
    for _ in 0..MAX_DEPTH {
        let Some(p) = at else { break };
        let Some(m) = merged.get(p).and_then(Option::as_ref) else { break };
        if m.place_conflict {
            out.push(p);
        }
        at = m.parent.anchor();
    }
    out
}

/// Paths of the result as one side spells them: a node whose name or place conflicts
/// takes that side's name and parent, every other node the result's.
struct Speller<'c, 'a> {
    ctx: &'c Ctx<'a>,
    merged: &'c [Option<MergedNode<'a>>],
    side: usize,
    memo: Vec<Option<String>>,
}

impl<'a> Speller<'_, 'a> {
    /// Every node's path in `side`'s spelling ("." for nodes not in the result).
    fn all(ctx: &Ctx<'a>, merged: &[Option<MergedNode<'a>>], side: usize) -> Vec<String> {
        let mut sp = Speller { ctx, merged, side, memo: vec![None; merged.len()] };
        (0..merged.len()).map(|i| sp.path(i, 0)).collect()
    }

    fn path(&mut self, n: usize, depth: usize) -> String {
        if let Some(Some(p)) = self.memo.get(n) {
            return p.clone();
        }
        let Some(m) = self.merged.get(n).and_then(Option::as_ref) else {
            return ".".into();
        };
        let own = self.ctx.id.node.at[n][self.side].filter(|_| m.place_conflict);
        let (parent, name) = match own {
            Some(i) => (self.ctx.parent_ref(self.side, i), self.ctx.sc[self.side].nodes[i].name.as_str()),
            None => (m.parent.clone(), m.name),
        };
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
