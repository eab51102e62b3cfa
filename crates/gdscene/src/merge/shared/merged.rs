//! What the tree stage hands on about the nodes in the result: [`MergedNode`] (a node's
//! merged section, parent, name and fields) and [`MergedPaths`] (each node identity's path
//! in the result). Types shared by the stages after the tree (values that name nodes,
//! ids, output); which nodes stay and where is [`crate::merge::tree`]'s.

use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::shared::idents::{O, T};
use crate::merge::shared::sections::{NodeFields, OutSec};
use crate::model::join_path;
use crate::syntax::SmallStr;
use std::borrow::Cow;
use std::collections::HashMap;

/// What the merge decided for a node that is in the result.
pub(in crate::merge) struct MergedNode<'a> {
    /// Its section (tag and lines, or a whole-section conflict).
    pub(in crate::merge) out: OutSec,
    /// Where it hangs.
    pub(in crate::merge) parent: ParentRef,
    /// Its name.
    pub(in crate::merge) name: &'a str,
    /// Its `[node]` fields, for [`crate::merge::tree::node_tags`]; `None` for a whole-section conflict.
    pub(in crate::merge) fields: Option<NodeFields<'a>>,
    /// The `[node]` line itself conflicts (printed between markers, never rebuilt).
    pub(in crate::merge) tag_conflict: bool,
    /// Its name or parent conflicts: the `parent=` of the nodes under it depends on
    /// the side a person picks (see [`crate::merge::output::spelling`]).
    pub(in crate::merge) place_conflict: bool,
    /// Groups the merge writes (both sides changed them).
    pub(in crate::merge) groups: Option<Box<str>>,
}

/// Node identities printed inside another node's whole-section hunk (the descendants
/// it carries), with that node: the node a carried one is printed with.
pub(in crate::merge) fn printed_in(
    ctx: &Ctx,
    merged: &[Option<MergedNode>],
) -> HashMap<usize, usize> {
    let mut map = HashMap::new();
    for (x, m) in merged.iter().enumerate() {
        let Some(w) = m.as_ref().and_then(|m| m.out.whole.as_ref()) else {
            continue;
        };
        for s in [O, T] {
            for &si in w[s].iter().skip(1) {
                if let Some(k) = node_at_section(ctx, s, si) {
                    map.insert(ctx.id.node.of[s][k], x);
                }
            }
        }
    }
    map
}

/// The node of side `s` whose section is `si`.
pub(in crate::merge) fn node_at_section(ctx: &Ctx, s: usize, si: usize) -> Option<usize> {
    let nodes = &ctx.sc[s].nodes;
    // Nodes are listed in section order.
    let k = nodes.partition_point(|n| n.section < si);
    nodes.get(k).filter(|n| n.section == si).map(|_| k)
}

/// Deeper parent chains than this are cut (a cycle, or hostile input).
const MAX_DEPTH: usize = 4096;

/// The path of each node identity in the result (`None`: not in the result).
pub(in crate::merge) struct MergedPaths(pub(in crate::merge) Vec<Option<SmallStr>>);

impl MergedPaths {
    /// Paths of every node in the result.
    pub(in crate::merge) fn of(merged: &[Option<MergedNode>]) -> MergedPaths {
        let mut memo: Vec<Option<SmallStr>> = vec![None; merged.len()];
        for (ident, m) in merged.iter().enumerate() {
            if m.is_some() {
                path_of_ident(ident, merged, &mut memo, 0);
            }
        }
        MergedPaths(memo)
    }

    /// Every node identity's path in the result (`None`: not in it), by identity.
    pub(in crate::merge) fn all(&self) -> &[Option<SmallStr>] {
        &self.0
    }

    /// The path of a node identity, if it is in the result.
    pub(in crate::merge) fn get(&self, ident: usize) -> Option<&str> {
        self.0.get(ident).and_then(Option::as_deref)
    }

    /// The `parent` text of a node hanging at `parent` (`None` for the root).
    pub(in crate::merge) fn parent_text<'p>(
        &'p self,
        parent: &'p ParentRef,
    ) -> Option<Cow<'p, str>> {
        match parent {
            ParentRef::Root => None,
            ParentRef::Outside(p) => Some(Cow::Borrowed(p.as_str())),
            ParentRef::Inside { anchor, rest } => Some(Cow::Owned(join_path(
                self.get(*anchor).unwrap_or("."),
                rest,
            ))),
            ParentRef::Node(p) => Some(Cow::Borrowed(self.get(*p).unwrap_or("."))),
        }
    }
}

/// Fill `memo[ident]` (and its ancestors') with the merged path. An identity beyond
/// the table has no parent: its path is ".".
fn path_of_ident(
    ident: usize,
    merged: &[Option<MergedNode>],
    memo: &mut [Option<SmallStr>],
    depth: usize,
) {
    if memo.get(ident).is_none_or(Option::is_some) {
        return;
    }
    let node = merged.get(ident).and_then(Option::as_ref);
    let name = node.map_or("", |m| m.name);
    // Most paths fit a SmallStr inline: no allocation per node.
    let join = |p: &str, n: &str| {
        if p == "." || p.is_empty() {
            SmallStr::copy_from(n)
        } else {
            SmallStr::concat(&[p, "/", n])
        }
    };
    let r = match node.map(|m| &m.parent) {
        None | Some(ParentRef::Root) => SmallStr::copy_from("."),
        Some(ParentRef::Outside(p)) => join(p, name),
        Some(ParentRef::Inside { anchor, rest }) => join(
            &join_path(parent_path(*anchor, merged, memo, depth), rest),
            name,
        ),
        Some(ParentRef::Node(p)) => join(parent_path(*p, merged, memo, depth), name),
    };
    memo[ident] = Some(r);
}

/// The merged path of parent `p` of a node at `depth` ("." when unknown or too deep).
fn parent_path<'m>(
    p: usize,
    merged: &[Option<MergedNode>],
    memo: &'m mut [Option<SmallStr>],
    depth: usize,
) -> &'m str {
    if depth > MAX_DEPTH {
        return ".";
    }
    path_of_ident(p, merged, memo, depth + 1);
    memo.get(p).and_then(Option::as_deref).unwrap_or(".")
}
