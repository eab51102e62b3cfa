//! The renames and moves followed, recorded as decisions with each node's path in the
//! result ([`MergedPaths`], which [`crate::merge::shared::merged`] builds from the merged
//! parent and name of each identity). Which nodes stay is left to
//! [`crate::merge::tree::nodes`].

use crate::merge::decisions::Decision;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::merged::{MergedNode, MergedPaths};
use crate::merge::tree::nodes::Followed;

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
