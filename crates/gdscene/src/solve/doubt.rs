//! Doubt: why a merge of versions rebuilt from markers may differ from the merge of the
//! real versions.
//!
//! Decides which outcomes are not trusted (decisions that rest on text outside the
//! blocks, nodes whose history the blocks do not show); what is done about it is
//! `remerge.rs`'s.

use super::{Sides, Source};
use crate::merge::{Decision, MergeOutcome};
use crate::model::{Node, Scene};
use std::collections::{BTreeMap, BTreeSet};

/// Decisions that rest on the whole of each version (parts outside the blocks, where
/// the rebuilt versions are not the real ones): a merge making one of them is not
/// trusted.
fn needs_base(d: &Decision) -> bool {
    matches!(
        d,
        Decision::UnusedResourceDropped { .. }
            | Decision::DeletedResourceKept { .. }
            | Decision::NodeRenameFollowed { .. }
            | Decision::NodeMoveFollowed { .. }
            | Decision::ResourceMatched { .. }
            | Decision::ValueMergedInside { .. }
            | Decision::FellBack { .. }
    )
}

/// Why a merge of versions rebuilt from markers may differ from the merge of the real
/// versions, if it may. Text outside the blocks went to all three versions, so a
/// side's clean change (a renumbering, a deletion, one half of a move) looks like the
/// base's: decisions that compare whole versions, and nodes whose history the blocks
/// do not show, are doubtful.
pub(super) fn doubt(o: &MergeOutcome, sides: &Sides, source: Source) -> Option<String> {
    if let Some(d) = o.decisions.iter().find(|d| needs_base(d)) {
        return Some(format!(
            "the merge would rest on text outside the blocks ({d})"
        ));
    }
    let (Ok(b), Ok(ours), Ok(theirs)) = (
        Scene::parse(&sides.base),
        Scene::parse(&sides.ours),
        Scene::parse(&sides.theirs),
    ) else {
        return None;
    };
    both_added_differently(&b, &ours, &theirs).or_else(|| {
        (source == Source::TwoSidedMarkers)
            .then(|| maybe_moved(&b, &ours, &theirs))
            .flatten()
    })
}

/// The trimmed text of a node's section.
fn section_text<'a>(s: &'a Scene, n: &Node) -> &'a str {
    s.doc
        .sections
        .get(n.section)
        .map_or("", |sec| s.doc.slice(&sec.span).trim())
}

/// A node both sides have and the base lacks, written differently: a real "both
/// added", or one side's move (or a side that already had the node twice) whose other
/// half is outside the blocks.
fn both_added_differently(b: &Scene, ours: &Scene, theirs: &Scene) -> Option<String> {
    let in_base: BTreeSet<&str> = b.nodes.iter().map(|n| n.path.as_str()).collect();
    let in_theirs: BTreeMap<&str, &Node> =
        theirs.nodes.iter().map(|n| (n.path.as_str(), n)).collect();
    ours.nodes
        .iter()
        .filter(|n| !in_base.contains(n.path.as_str()))
        .find(|n| {
            in_theirs
                .get(n.path.as_str())
                .is_some_and(|t| section_text(ours, n) != section_text(theirs, t))
        })
        .map(|n| {
            format!(
                "both sides have node \"{}\", which the base lacks, written differently (one side may have moved it, or already had it twice)",
                n.path
            )
        })
}

/// A node only one side has, absent from the base, while the base has a node of that
/// name and type elsewhere: with two-sided markers it may be one half of a move (the
/// other half taken by git outside the blocks), and re-adding it would leave the same
/// node at two paths.
fn maybe_moved(b: &Scene, ours: &Scene, theirs: &Scene) -> Option<String> {
    let paths =
        |s: &Scene| -> BTreeSet<String> { s.nodes.iter().map(|n| n.path.to_string()).collect() };
    let (in_base, in_ours, in_theirs) = (paths(b), paths(ours), paths(theirs));
    let named: BTreeSet<(&str, Option<&str>)> = b
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.type_name.as_deref()))
        .collect();
    let one_sided = |s: &Scene, other: &BTreeSet<String>| -> Option<String> {
        s.nodes
            .iter()
            .find(|n| {
                !in_base.contains(n.path.as_str())
                    && !other.contains(n.path.as_str())
                    && named.contains(&(n.name.as_str(), n.type_name.as_deref()))
            })
            .map(|n| n.path.to_string())
    };
    one_sided(ours, &in_theirs)
        .or_else(|| one_sided(theirs, &in_ours))
        .map(|p| {
            format!(
                "node \"{p}\" is in one side of a block only, and a node of that name and type is elsewhere in the file: it may have been moved, and keeping both would leave it at two paths"
            )
        })
}
