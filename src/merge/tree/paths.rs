//! Where every node ends up: its path in the result, built from the merged parent and
//! name of each identity, the parent text a `[node]` line needs, and the renames and
//! moves followed (recorded as decisions). Which nodes stay is left to [`crate::merge::tree::nodes`].

use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::tree::nodes::{Followed, MergedNode};
use crate::merge::Decision;
use crate::model::join_path;
use crate::syntax::SmallStr;
use std::borrow::Cow;

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

/// Record the renames and moves followed, with each node's path in the result.
pub(in crate::merge) fn record_followed(
    ctx: &mut Ctx,
    followed: Vec<Followed>,
    merged: &[Option<MergedNode>],
    paths: &MergedPaths,
) {
    for Followed {
        ident,
        rename,
        from,
    } in followed
    {
        let to = match paths.get(ident) {
            Some(".") | None => merged[ident].as_ref().map_or("", |m| m.name).to_string(),
            Some(p) => p.to_string(),
        };
        ctx.decisions.push(if rename {
            Decision::NodeRenameFollowed { from, to }
        } else {
            Decision::NodeMoveFollowed { from, to }
        });
    }
}
