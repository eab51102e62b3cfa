//! Structural three-way merge of scenes and resources.
//!
//! The merge reads base, ours and theirs as keyed scenes, matches every part across the
//! three (ext_resources by uid/path, sub_resources by id, use and content, nodes by
//! unique_id or path, connections, editables), merges property by property and field by
//! field, reconciles resource ids (ours keeps its ids; a colliding id from theirs is
//! renamed and every reference rewritten), and writes the result: untouched sections are
//! ours' bytes, new ones follow Godot's layout. Real conflicts become small diff3 markers
//! around one property line, one header or one section.
//!
//! Layout: [`merge_scenes`] runs the structural merge as a pipeline of phases, one file
//! per decision (see its doc); [`merge`] wraps it with the trivial cases, validation and
//! the line-merge fallback.
//!
//! Safety net: a result is called clean only if it re-parses and passes
//! [`crate::check`]; otherwise the merge falls back to [`crate::linemerge`], which behaves
//! like `git merge-file`.

mod identity;
mod ids;
mod output;
mod shared;
mod tree;
mod values;

pub use shared::sequence;

use identity::matching;
use ids::assign;
use output::{carried, header, print, spelling};
use shared::{context, sections};
use tree::{connections, editables, node_tags, nodes, order, paths};
use values::{nodepaths, resources, track_paths};

use crate::check::{check, is_broken};
use crate::linemerge::{merge_lines, MarkerOptions};
use crate::model::Scene;
use crate::syntax::Source;
use std::fmt;

/// What the caller chooses about a merge.
#[derive(Debug, Clone, Default)]
pub struct MergeOptions {
    /// Marker size, labels and conflict style, as git passes them.
    pub markers: MarkerOptions,
    /// The caller is a process that exits right after this merge (the command line):
    /// the parsed scenes of a big merge are then left for the exit to reclaim rather
    /// than freed allocation by allocation, as compilers do with `-disable-free`.
    /// Freeing three 20 MB scenes takes a core while the result is being validated.
    /// Leave it `false` in a process that goes on (it would keep that memory).
    pub exit_after: bool,
    /// Merge container layout and editor-only state like any property (`merge
    /// --no-layout-policy`) instead of keeping ours' where both sides changed it.
    pub no_layout_policy: bool,
}

/// How the result was produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// One side equals base (or both sides are equal): the other side's bytes.
    Trivial,
    /// The structural merge.
    Structural,
    /// The line merge, and why the structural one was not used.
    LineFallback(String),
}

/// One conflict, for the short report on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    /// The node, resource or section the conflict is in (`node "Player/Sprite"`).
    pub location: String,
    /// The property or field, when the conflict is about one.
    pub property: Option<String>,
    /// Base value (shortened), if any.
    pub base: Option<String>,
    /// Our value (shortened), if any.
    pub ours: Option<String>,
    /// Their value (shortened), if any.
    pub theirs: Option<String>,
}

/// An automatic decision, recorded so that `--explain` can show a person what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A resource id from theirs collided with ours and was renamed.
    IdRenamed {
        /// `ext_resource` or `sub_resource`.
        section: &'static str,
        /// Resource type.
        type_name: String,
        /// Id on theirs.
        from: String,
        /// Id in the result.
        to: String,
    },
    /// Both sides added the same resource; it is written once.
    ResourceDeduplicated {
        /// `ext_resource` or `sub_resource`.
        section: &'static str,
        /// What it is (type and path or id).
        what: String,
        /// Id kept (ours).
        id: String,
    },
    /// Theirs renumbered a sub_resource (Godot 3 resave); matched by content/use.
    ResourceMatched {
        /// Resource type.
        type_name: String,
        /// Id on theirs.
        theirs_id: String,
        /// Id on ours.
        ours_id: String,
        /// How they were matched.
        how: &'static str,
    },
    /// A node renamed on one side; changes from the other side followed it.
    NodeRenameFollowed {
        /// Path before.
        from: String,
        /// Path after.
        to: String,
    },
    /// A node moved on one side; changes from the other side followed it.
    NodeMoveFollowed {
        /// Path before.
        from: String,
        /// Path after.
        to: String,
    },
    /// A `NodePath` written against a node's old place was rewritten to reach it in the
    /// result (one side renamed or moved a node, the other wrote a path to it).
    NodePathFollowed {
        /// The node holding the property, by its path in the result.
        node: String,
        /// The property line as the side wrote it.
        from: String,
        /// The line written.
        to: String,
    },
    /// A `NodePath` whose node the merge moved or renamed was left as written: no one
    /// spelling names that node for every reader (the AnimationPlayers playing a track).
    NodePathKept {
        /// Who reads it, by their paths in the result.
        readers: String,
        /// The line as written.
        line: String,
        /// Why it was not rewritten.
        reason: &'static str,
    },
    /// Both sides changed a node's identity the same way (the same new unique_id, or the
    /// same new parent): the node was merged three-way against base's.
    NodeIdentityShared {
        /// Path on ours.
        path: String,
        /// By the same new unique_id (else by name, type and parent).
        by_unique_id: bool,
    },
    /// A re-import moved a sub_resource's content to another id and reused its id:
    /// the other side's changes followed the content, not the id.
    ResourceContentFollowed {
        /// `ours` or `theirs`: the side that moved it.
        side: &'static str,
        /// Resource type.
        type_name: String,
        /// Id in base.
        base_id: String,
        /// Id on that side.
        id: String,
    },
    /// Both sides changed the order or the set of nodes; the orders were merged.
    SiblingOrderMerged,
    /// Both sides reordered the same nodes differently. Order has no conflict marker:
    /// ours' order was kept where they disagree, and a person should look.
    OrderConflictOursKept,
    /// `load_steps` recomputed.
    LoadStepsRecomputed {
        /// Value on ours.
        from: Option<i64>,
        /// Value written.
        to: Option<i64>,
    },
    /// `load_steps` removed: base had it and one side's re-save (Godot 4.6 no longer
    /// writes it) dropped it; the removal is a header change like any other.
    LoadStepsRemoved {
        /// `ours` or `theirs`: the side that re-saved without it.
        side: &'static str,
        /// Value in base.
        base: i64,
    },
    /// A node deleted on one side that the other side only re-saved (a new `unique_id`,
    /// resource ids renamed consistently): a re-save is no change, so the deletion wins.
    ResavedNodeDeleted {
        /// The node, as the conflict report names it (`node "Player/Sprite"`).
        node: String,
        /// `ours` or `theirs`: the side that re-saved it.
        side: &'static str,
    },
    /// `format` raised because merged content needs it.
    FormatRaised {
        /// Value on ours.
        from: Option<i64>,
        /// Value written.
        to: i64,
    },
    /// A sub_resource or ext_resource no longer used by anything was dropped.
    UnusedResourceDropped {
        /// `ext_resource` or `sub_resource`.
        section: &'static str,
        /// Its id on the side it came from.
        id: String,
    },
    /// A deleted resource was kept because the merged content still uses it.
    DeletedResourceKept {
        /// `ext_resource` or `sub_resource`.
        section: &'static str,
        /// Id written.
        id: String,
    },
    /// A node in conflict as a whole (deleted on one side) carries its subtree inside
    /// its hunk, so that picking a side keeps or drops the subtree whole.
    ConflictCarriesSubtree {
        /// The node's path on the side that kept it.
        node: String,
        /// How many descendants the hunk carries.
        nodes: usize,
    },
    /// Both sides added a different node (another `unique_id`) with one name under one
    /// parent: one hunk holds each side's node with the descendants only it has.
    RivalNodesConflict {
        /// The node's path (the same on both sides).
        node: String,
        /// Descendants ours' part of the hunk carries.
        ours_nodes: usize,
        /// Descendants theirs' part carries.
        theirs_nodes: usize,
    },
    /// One side replaced a node (deleted it and added another under its name and parent)
    /// while the other side changed it: one hunk holds the changed node with what it
    /// carries against the new node with what only its side added under it.
    ReplacedNodeConflict {
        /// The node's path (the same on both sides).
        node: String,
        /// The side that replaced it: `"ours"` or `"theirs"`.
        replaced_by: &'static str,
        /// Descendants the changed (old) node's part carries.
        old_nodes: usize,
        /// Descendants the new node's part carries.
        new_nodes: usize,
    },
    /// A sub_resource that only a carried subtree uses (see `ConflictCarriesSubtree`) is
    /// written inside a hunk of its own in the sub_resource area.
    ConflictCarriesSubResource {
        /// Its id in the result.
        id: String,
    },
    /// A node's name or place conflicts: the `parent=` of the nodes under it is
    /// written between markers in each side's spelling.
    ConflictSpellsParents {
        /// The node's path in the result (ours' spelling).
        node: String,
        /// How many nodes under it.
        nodes: usize,
    },
    /// Both sides changed a value the editor recomputes (a Control's layout under a
    /// Container, editor-only state) differently: ours was kept.
    ChurnOursKept {
        /// The node, as the conflict report names it.
        node: String,
        /// The property.
        key: String,
        /// Why it is churn.
        reason: &'static str,
    },
    /// A node deleted on one side whose only change on the other was editor churn: gone.
    ChurnedNodeDeleted {
        /// The node, as the conflict report names it.
        node: String,
    },
    /// Both sides added the file (git passed an empty base): it was merged against a
    /// stand-in base holding only ours' header, so every part is one side's addition.
    AddAddStandInBase {
        /// The stand-in base's header line.
        header: String,
    },
    /// A conflict hunk resolved to one side by `--favor` (`git merge -X ours|theirs`).
    HunkFavored {
        /// `ours` or `theirs`.
        side: &'static str,
        /// The hunk's `<<<<<<<` line in the text with markers.
        line: usize,
        /// The first line kept (shortened), or `(nothing)`.
        kept: String,
    },
    /// A value naming resources (SpriteFrames textures, audio clips) both sides changed
    /// was merged inside, each side's ids read as the resources they name.
    ValueMergedInside {
        /// The node or resource, as the conflict report names it.
        location: String,
        /// The property.
        key: String,
    },
    /// The structural merge was not used.
    FellBack {
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::IdRenamed { section, type_name, from, to } => write!(
                f,
                "renamed their {section} {type_name} id \"{from}\" to \"{to}\": ours already uses \"{from}\" for another resource; every reference from their side was rewritten"
            ),
            Decision::ResourceDeduplicated { section, what, id } => {
                write!(f, "both sides added the same {section} ({what}); it is written once, as \"{id}\"")
            }
            Decision::ResourceMatched { type_name, theirs_id, ours_id, how } => write!(
                f,
                "matched their {type_name} sub_resource \"{theirs_id}\" with ours \"{ours_id}\" by {how} (ids were renumbered)"
            ),
            Decision::NodeRenameFollowed { from, to } => {
                write!(f, "followed the rename of node \"{from}\" to \"{to}\": changes made under the old name were applied to it")
            }
            Decision::NodeMoveFollowed { from, to } => {
                write!(f, "followed the move of node \"{from}\" to \"{to}\": changes made at the old place were applied to it")
            }
            Decision::NodePathFollowed { node, from, to } => write!(
                f,
                "rewrote a NodePath of node \"{node}\" that named a renamed or moved node: `{from}` -> `{to}`"
            ),
            Decision::NodePathKept { readers, line, reason } => write!(
                f,
                "kept a NodePath read by \"{readers}\" as written: `{line}` ({reason})"
            ),
            Decision::NodeIdentityShared { path, by_unique_id } => write!(
                f,
                "both sides gave node \"{path}\" the same new identity ({}); it was merged three-way against base",
                if *by_unique_id { "the same new unique_id" } else { "the same name, type and parent" }
            ),
            Decision::ResourceContentFollowed { side, type_name, base_id, id } => write!(
                f,
                "{side} moved the content of {type_name} sub_resource \"{base_id}\" to \"{id}\" (a re-import reused the id for other content); changes followed the content"
            ),
            Decision::OrderConflictOursKept => write!(f, "both sides reordered the same nodes differently; ours' order was kept where they disagree (order has no conflict marker: check the node order)"),
            Decision::SiblingOrderMerged => write!(f, "merged the node order of both sides (insertions from both kept)"),
            Decision::LoadStepsRecomputed { from, to } => write!(
                f,
                "recomputed load_steps: {} -> {} (sub_resources + ext_resources + 1)",
                from.map_or("absent".to_string(), |v| v.to_string()),
                to.map_or("absent".to_string(), |v| v.to_string())
            ),
            Decision::LoadStepsRemoved { side, base } => write!(
                f,
                "removed load_steps (base had {base}): {side} re-saved without load_steps (Godot 4.6 no longer writes it)"
            ),
            Decision::ResavedNodeDeleted { node, side } => write!(
                f,
                "deleted {node}: {side} only re-saved it (a new unique_id or renamed resource ids), which is no change"
            ),
            Decision::FormatRaised { from, to } => write!(
                f,
                "raised format from {} to {to}: the merged content needs it",
                from.map_or("absent".to_string(), |v| v.to_string())
            ),
            Decision::UnusedResourceDropped { section, id } => {
                write!(f, "dropped {section} \"{id}\": nothing in the merged file uses it any more")
            }
            Decision::DeletedResourceKept { section, id } => {
                write!(f, "kept {section} \"{id}\", deleted on one side, because merged content still uses it")
            }
            Decision::ConflictCarriesSubtree { node, nodes } => write!(
                f,
                "the conflict on node \"{node}\" (deleted on one side) carries its {nodes} descendant node(s) inside the markers, so picking a side keeps or drops the whole subtree"
            ),
            Decision::RivalNodesConflict { node, ours_nodes, theirs_nodes } => write!(
                f,
                "both sides added a different node \"{node}\" (another unique_id): one conflict holds ours' node with {ours_nodes} descendant node(s) and theirs' with {theirs_nodes}, so picking a side keeps that side's whole subtree"
            ),
            Decision::ReplacedNodeConflict { node, replaced_by, old_nodes, new_nodes } => write!(
                f,
                "{replaced_by} replaced node \"{node}\" by a new node of that name while the other side changed it: one conflict holds the changed node with {old_nodes} descendant node(s) and the new one with {new_nodes}, so picking a side leaves one node at that path"
            ),
            Decision::ConflictCarriesSubResource { id } => write!(
                f,
                "sub_resource \"{id}\", used only by a subtree a conflict carries, is written between markers too, so picking a side keeps or drops it with the subtree"
            ),
            Decision::ConflictSpellsParents { node, nodes } => write!(
                f,
                "the name or place of node \"{node}\" conflicts: the parent= of {nodes} node(s) under it is written between markers in each side's spelling"
            ),
            Decision::ChurnOursKept { node, key, reason } => write!(
                f,
                "both sides changed {key} of {node} differently; kept ours because {reason} (--no-layout-policy to get a conflict)"
            ),
            Decision::ValueMergedInside { location, key } => write!(
                f,
                "merged {key} of {location} inside (both sides changed it), reading each side's resource ids as the resources they name"
            ),
            Decision::ChurnedNodeDeleted { node } => write!(
                f,
                "deleted {node}: the other side changed only its container layout or editor-only state"
            ),
            Decision::AddAddStandInBase { header } => write!(
                f,
                "both sides added this file (git passed an empty base): merged against a stand-in base holding only `{header}`, so each node and resource is one side's addition"
            ),
            Decision::HunkFavored { side, line, kept } => write!(
                f,
                "resolved the conflict hunk at line {line} to {side} (--favor): kept {kept}"
            ),
            Decision::FellBack { reason } => write!(f, "used a line merge instead of the structural merge: {reason}"),
        }
    }
}

impl Decision {
    /// The decision as JSON, for `--explain=json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({ "kind": self.kind(), "message": self.to_string() });
        let extra = self.fields_json();
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            for (k, x) in e {
                o.insert(k.clone(), x.clone());
            }
        }
        v
    }

    /// The decision's stable name in JSON (`"kind"`), which scripts match on.
    fn kind(&self) -> &'static str {
        match self {
            Decision::IdRenamed { .. } => "id_renamed",
            Decision::ResourceDeduplicated { .. } => "resource_deduplicated",
            Decision::ResourceMatched { .. } => "resource_matched",
            Decision::NodeRenameFollowed { .. } => "node_rename_followed",
            Decision::NodeMoveFollowed { .. } => "node_move_followed",
            Decision::NodePathFollowed { .. } => "node_path_followed",
            Decision::NodePathKept { .. } => "node_path_kept",
            Decision::NodeIdentityShared { .. } => "node_identity_shared",
            Decision::ResourceContentFollowed { .. } => "resource_content_followed",
            Decision::SiblingOrderMerged => "sibling_order_merged",
            Decision::OrderConflictOursKept => "order_conflict_ours_kept",
            Decision::LoadStepsRecomputed { .. } => "load_steps_recomputed",
            Decision::LoadStepsRemoved { .. } => "load_steps_removed",
            Decision::ResavedNodeDeleted { .. } => "resaved_node_deleted",
            Decision::FormatRaised { .. } => "format_raised",
            Decision::UnusedResourceDropped { .. } => "unused_resource_dropped",
            Decision::DeletedResourceKept { .. } => "deleted_resource_kept",
            Decision::ConflictCarriesSubtree { .. } => "conflict_carries_subtree",
            Decision::ConflictSpellsParents { .. } => "conflict_spells_parents",
            Decision::RivalNodesConflict { .. } => "rival_nodes_conflict",
            Decision::ReplacedNodeConflict { .. } => "replaced_node_conflict",
            Decision::ConflictCarriesSubResource { .. } => "conflict_carries_sub_resource",
            Decision::ChurnOursKept { .. } => "churn_ours_kept",
            Decision::ChurnedNodeDeleted { .. } => "churned_node_deleted",
            Decision::AddAddStandInBase { .. } => "add_add_stand_in_base",
            Decision::HunkFavored { .. } => "hunk_favored",
            Decision::ValueMergedInside { .. } => "value_merged_inside",
            Decision::FellBack { .. } => "fell_back",
        }
    }

    /// The decision's own fields, as a JSON object merged into [`Decision::to_json`].
    fn fields_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Decision::IdRenamed {
                section,
                type_name,
                from,
                to,
            } => {
                json!({"section": section, "type": type_name, "from": from, "to": to})
            }
            Decision::ResourceDeduplicated { section, what, id } => {
                json!({"section": section, "what": what, "id": id})
            }
            Decision::ResourceMatched {
                type_name,
                theirs_id,
                ours_id,
                how,
            } => {
                json!({"type": type_name, "theirs_id": theirs_id, "ours_id": ours_id, "how": how})
            }
            Decision::NodeRenameFollowed { from, to } | Decision::NodeMoveFollowed { from, to } => {
                json!({"from": from, "to": to})
            }
            Decision::LoadStepsRecomputed { from, to } => json!({"from": from, "to": to}),
            Decision::FormatRaised { from, to } => json!({"from": from, "to": to}),
            Decision::LoadStepsRemoved { side, base } => json!({"side": side, "base": base}),
            Decision::ResavedNodeDeleted { node, side } => json!({"node": node, "side": side}),
            Decision::UnusedResourceDropped { section, id }
            | Decision::DeletedResourceKept { section, id } => {
                json!({"section": section, "id": id})
            }
            Decision::FellBack { reason } => json!({"reason": reason}),
            Decision::ValueMergedInside { location, key } => {
                json!({"location": location, "key": key})
            }
            Decision::AddAddStandInBase { header } => json!({"header": header}),
            Decision::HunkFavored { side, line, kept } => {
                json!({"side": side, "line": line, "kept": kept})
            }
            Decision::ConflictCarriesSubtree { node, nodes }
            | Decision::ConflictSpellsParents { node, nodes } => {
                json!({"node": node, "nodes": nodes})
            }
            Decision::RivalNodesConflict {
                node,
                ours_nodes,
                theirs_nodes,
            } => json!({"node": node, "ours_nodes": ours_nodes, "theirs_nodes": theirs_nodes}),
            Decision::ReplacedNodeConflict {
                node,
                replaced_by,
                old_nodes,
                new_nodes,
            } => {
                json!({"node": node, "replaced_by": replaced_by, "old_nodes": old_nodes, "new_nodes": new_nodes})
            }
            Decision::ChurnOursKept { node, key, reason } => {
                json!({"node": node, "key": key, "reason": reason})
            }
            Decision::ChurnedNodeDeleted { node } => json!({"node": node}),
            Decision::ConflictCarriesSubResource { id } => json!({"id": id}),
            Decision::NodePathFollowed { node, from, to } => {
                json!({"node": node, "from": from, "to": to})
            }
            Decision::NodePathKept {
                readers,
                line,
                reason,
            } => json!({"readers": readers, "line": line, "reason": reason}),
            Decision::NodeIdentityShared { path, by_unique_id } => {
                json!({"path": path, "by_unique_id": by_unique_id})
            }
            Decision::ResourceContentFollowed {
                side,
                type_name,
                base_id,
                id,
            } => {
                json!({"side": side, "type": type_name, "base_id": base_id, "id": id})
            }
            Decision::SiblingOrderMerged | Decision::OrderConflictOursKept => json!({}),
        }
    }
}

/// The result of a merge.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The merged file (with conflict markers when `conflicts` is not empty, or when the
    /// line fallback left some).
    pub text: Vec<u8>,
    /// Number of conflict blocks in `text` (hunks as written: neighbouring conflicts
    /// joined as git joins them count once).
    pub conflict_count: usize,
    /// Structural conflicts, for the report, in file order (empty after a line
    /// fallback); one hunk may hold several.
    pub conflicts: Vec<ConflictReport>,
    /// How the result was produced.
    pub method: Method,
    /// Automatic decisions, in the order they were made.
    pub decisions: Vec<Decision>,
}

impl MergeOutcome {
    /// Whether the result is free of conflicts.
    pub fn is_clean(&self) -> bool {
        self.conflict_count == 0
    }
}

fn line_fallback(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: String,
) -> MergeOutcome {
    let lm = merge_lines(base, ours, theirs, &opts.markers);
    MergeOutcome {
        text: lm.text,
        conflict_count: lm.conflicts,
        conflicts: Vec::new(),
        decisions: vec![Decision::FellBack {
            reason: reason.clone(),
        }],
        method: Method::LineFallback(reason),
    }
}

/// Free parsed scenes of a big merge on another thread: freeing millions of small
/// allocations is a noticeable part of a big merge, and nothing needs to wait for it.
/// With `exit_after` (see [`MergeOptions::exit_after`]) they are not freed at all.
fn dispose<T: Send + 'static>(x: T, exit_after: bool) {
    if exit_after {
        std::mem::forget(x);
        return;
    }
    // If no thread can be started, the value comes back (inside the error) and is
    // dropped here.
    let _ = std::thread::Builder::new().spawn(move || drop(x));
}

/// Whether a merged text is a valid scene.
fn validates(text: &[u8]) -> Result<(), String> {
    let scene = Scene::parse(text).map_err(|e| format!("the merged text does not parse: {e}"))?;
    let verdict = judge(&scene);
    if text.len() > 1 << 20 {
        dispose(scene, false);
    }
    verdict
}

/// [`validates`] for a text given away, handed back when it is valid: the validating
/// parse then needs no copy of it (20 MB of fresh memory for a big scene).
fn validates_owned(text: String, exit_after: bool) -> Result<String, String> {
    let big = text.len() > 1 << 20;
    let mut scene = crate::syntax::Document::from_text(text)
        .map_err(crate::model::ModelError::from)
        .and_then(Scene::from_document)
        .map_err(|e| format!("the merged text does not parse: {e}"))?;
    let verdict = judge(&scene);
    let text = std::mem::take(&mut scene.doc.text).into_string();
    if big {
        dispose(scene, exit_after);
    }
    verdict.map(|()| text)
}

/// What `check` says of a merged scene: `Err` with the first error when it is broken.
fn judge(scene: &Scene) -> Result<(), String> {
    let problems = check(scene);
    if is_broken(&problems) {
        let first = problems
            .iter()
            .find(|p| p.severity == crate::check::Severity::Error)
            .map(|p| format!("line {}: {}", p.line, p.message))
            .unwrap_or_default();
        return Err(format!("the structural result would be broken ({first})"));
    }
    Ok(())
}

/// Parse the three inputs, two of them on a second thread: parsing is the largest single
/// cost of merging a big scene, and the three parses are independent.
fn parse_three<I: Input>(
    (base, ours, theirs): (&I, &I, &I),
) -> (
    Result<Scene, crate::model::ModelError>,
    Result<Scene, crate::model::ModelError>,
    Result<Scene, crate::model::ModelError>,
) {
    let total = base.as_ref().len() + ours.as_ref().len() + theirs.as_ref().len();
    // Small files: a thread costs more than it saves.
    if total < 256 * 1024 {
        return (base.scene(), ours.scene(), theirs.scene());
    }
    std::thread::scope(|s| {
        let other = s.spawn(|| (base.scene(), theirs.scene()));
        let o = ours.scene();
        match other.join() {
            Ok((b, t)) => (b, o, t),
            // The parser does not panic on any input; if it ever did, parse here again
            // so that the panic surfaces where the caller can see it.
            Err(_) => (base.scene(), o, theirs.scene()),
        }
    })
}

/// An input of [`merge`]: bytes the scene copies, or a [`Source`] it shares.
trait Input: AsRef<[u8]> + Sync {
    fn scene(&self) -> Result<Scene, crate::model::ModelError>;
}

impl Input for &[u8] {
    fn scene(&self) -> Result<Scene, crate::model::ModelError> {
        Scene::parse(self)
    }
}

impl Input for Source {
    fn scene(&self) -> Result<Scene, crate::model::ModelError> {
        Scene::parse_source(self)
    }
}

/// Merge three versions of a scene or resource file.
pub fn merge(base: &[u8], ours: &[u8], theirs: &[u8], opts: &MergeOptions) -> MergeOutcome {
    merge_inputs((&base, &ours, &theirs), opts)
}

/// [`merge`] of inputs the caller keeps: the parsed scenes share their bytes instead of
/// copying them (a merge of three 20 MB scenes then holds 60 MB less).
pub fn merge_sources(
    base: &Source,
    ours: &Source,
    theirs: &Source,
    opts: &MergeOptions,
) -> MergeOutcome {
    merge_inputs((base, ours, theirs), opts)
}

fn merge_inputs<I: Input>(
    inputs @ (b_in, o_in, t_in): (&I, &I, &I),
    opts: &MergeOptions,
) -> MergeOutcome {
    let (base, ours, theirs) = (b_in.as_ref(), o_in.as_ref(), t_in.as_ref());
    let trivial = |text: &[u8]| MergeOutcome {
        text: text.to_vec(),
        conflict_count: 0,
        conflicts: Vec::new(),
        method: Method::Trivial,
        decisions: Vec::new(),
    };
    if ours == theirs || base == theirs {
        return trivial(ours);
    }
    if base == ours {
        return trivial(theirs);
    }
    let parsed = parse_three(inputs);
    let (mut b, mut o, mut t) = match parsed {
        (Ok(b), Ok(o), Ok(t)) => (b, o, t),
        (b, o, t) => {
            let which = [("base", b.err()), ("ours", o.err()), ("theirs", t.err())]
                .into_iter()
                .find_map(|(n, e)| {
                    e.map(|e| {
                        format!(
                            "{n} does not parse: {}",
                            e.to_string().lines().next().unwrap_or("")
                        )
                    })
                })
                .unwrap_or_default();
            return line_fallback(base, ours, theirs, opts, which);
        }
    };
    if b.kind != o.kind || o.kind != t.kind {
        return line_fallback(
            base,
            ours,
            theirs,
            opts,
            "the three versions are not all scenes or all resources".into(),
        );
    }
    let mut structural = merge_scenes(&b, &o, &t, opts);
    if base.len() + ours.len() + theirs.len() > 1 << 20 {
        // A syntax tree is a few large lists: freed at once even with `exit_after`, it
        // makes room for the validating parse (a 20 MB scene's tree is 53 MB).
        drop([&mut b, &mut o, &mut t].map(|s| std::mem::take(&mut s.doc.sections)));
        dispose((b, o, t), opts.exit_after);
    }
    // Validate: the clean text itself, or ours' resolution of every conflict. Either is
    // given to the validating parse, and the clean text taken back.
    let verdict = match structural.take_ours.take() {
        Some(resolved) => validates_owned(resolved, opts.exit_after).map(drop),
        None => validates_owned(std::mem::take(&mut structural.text), opts.exit_after)
            .map(|text| structural.text = text),
    };
    if let Err(reason) = verdict {
        let mut out = line_fallback(base, ours, theirs, opts, reason);
        // A clean line merge of two valid sides that is itself broken must not be
        // called clean: git then leaves the file unmerged for a person to look at.
        if out.conflict_count == 0 && validates(ours).is_ok() && validates(theirs).is_ok() {
            if let Err(why) = validates(&out.text) {
                out.conflict_count = 1;
                out.conflicts.push(ConflictReport {
                    location: "whole file".into(),
                    property: None,
                    base: None,
                    ours: None,
                    theirs: Some(format!(
                        "the line merge has no markers but {}",
                        why.trim_start_matches("the structural result would be ")
                    )),
                });
            }
        }
        return out;
    }
    if structural.conflicts.is_empty() {
        return MergeOutcome {
            text: structural.text.into_bytes(),
            conflict_count: 0,
            conflicts: Vec::new(),
            method: Method::Structural,
            decisions: structural.decisions,
        };
    }
    // Never worse than git: a clean line merge that validates beats a conflicted one.
    let lm = merge_lines(base, ours, theirs, &opts.markers);
    if lm.conflicts == 0 && !structural.line_merge_blind && validates(&lm.text).is_ok() {
        return MergeOutcome {
            text: lm.text,
            conflict_count: 0,
            conflicts: Vec::new(),
            method: Method::LineFallback("the line merge is clean and valid".into()),
            decisions: vec![Decision::FellBack {
                reason: format!(
                    "the line merge is clean and gives a valid scene, while the structural merge found {} conflict(s), the first in {}{}",
                    structural.conflicts.len(),
                    structural.conflicts[0].location,
                    structural.conflicts[0].property.as_deref().map(|p| format!(", {p}")).unwrap_or_default()
                ),
            }],
        };
    }
    MergeOutcome {
        text: structural.text.into_bytes(),
        // What the user finds in the file; a conflict always prints at least one.
        conflict_count: structural.hunks.max(1),
        conflicts: structural.conflicts,
        method: Method::Structural,
        decisions: structural.decisions,
    }
}

/// Output of the structural merge, before validation.
struct Structural {
    /// With conflict markers.
    text: String,
    /// Every conflict resolved to ours (used to validate the structure); `None` when
    /// there is no conflict, so that `text` is that already.
    take_ours: Option<String>,
    /// Conflict hunks as written (after git-style joining).
    hunks: usize,
    /// Conflicts, in file order.
    conflicts: Vec<ConflictReport>,
    /// Decisions.
    decisions: Vec<Decision>,
    /// A conflict rests on what a line merge cannot see (a NodePath to a node the other
    /// side deleted): a clean line merge must not win over it.
    line_merge_blind: bool,
}

/// The structural merge of three parsed scenes. Each phase is one call; conflicts and
/// decisions are logged in [`context::Ctx`] in the order the phases run:
///
/// 1. [`context`]/[`matching`]: identities of nodes and resources across the three;
///    [`resources`] records sub_resources matched by content.
/// 2. [`nodes`]: per node, added, deleted, delete against modify, kept (renamed, moved,
///    fields via [`node_tags`], properties via [`properties`]).
/// 3. [`paths`]: every node's path in the result; renames and moves followed.
/// 4. [`node_tags`]: `[node]` lines rebuilt where name, parent or fields changed.
/// 5. [`order`]: node order.
/// 6. [`resources`]: `[resource]` and sub_resource contents, then which resources stay.
/// 7. [`nodepaths`]: NodePath values follow renamed and moved nodes.
/// 8. [`order`] and [`ids`]: resource order and ids.
/// 9. [`connections`], [`editables`], [`spelling`] (`parent=`, `from=`, `to=` that
///    depend on the side picked in a hunk), [`header`].
/// 10. [`print`]: the text, and the text with every conflict resolved to ours.
fn merge_scenes(b: &Scene, o: &Scene, t: &Scene, opts: &MergeOptions) -> Structural {
    let markers = &opts.markers;
    let mut ctx = context::Ctx::new([b, o, t]);
    matching::record_identity_decisions(&mut ctx);
    ctx.layout_policy = !opts.no_layout_policy;
    resources::record_sub_matches(&mut ctx);
    let nodes::Nodes {
        mut merged,
        followed,
        path_needed,
    } = nodes::decide(&mut ctx);
    let paths = paths::MergedPaths::of(&merged);
    paths::record_followed(&mut ctx, followed, &merged, &paths);
    node_tags::rebuild(&ctx, &mut merged, &paths);
    let node_order = order::nodes(&mut ctx, &merged);
    let mut resource = resources::merge_resource_section(&mut ctx);
    let mut subs = resources::merge_subs(&mut ctx);
    resources::keep_held_edits(&mut ctx, &mut merged, resource.as_mut(), &mut subs);
    let used = resources::used(&mut ctx, &merged, resource.as_ref(), &subs);
    nodepaths::follow_node_paths(&mut ctx, &mut merged, &paths);
    track_paths::follow_track_paths(&mut ctx, &mut subs, &paths);
    let mut ext_order = order::exts(&ctx, &used.ext);
    let ext_ids = assign::ext_ids(&mut ctx, &ext_order);
    order::exts_by_id(&ctx, &mut ext_order, &ext_ids);
    let sub_order = order::subs(&ctx, &used.sub, &used.sub_refs);
    let sub_ids = assign::sub_ids(&mut ctx, &sub_order);
    let (mut conn_out, conn_order) = connections::merge(&mut ctx, &paths);
    let (edit_out, edit_order) = editables::merge(&ctx, &paths);
    let mut parts = spelling::respell_under_conflicts(&mut ctx, &mut merged, &paths, &mut conn_out);
    carried::carry_subs(&mut ctx, &merged, &mut subs, &sub_ids, &mut parts.fields);
    let in_result = merged.iter().flatten().map(|m| &m.out).chain(subs.values());
    let header = header::merge(&mut ctx, ext_order.len() + sub_order.len(), in_result);
    let mut owned = vec![header];
    owned.extend(resources::ext_sections(&mut ctx, &ext_order));
    owned.extend(resources::sub_sections(&ctx, &sub_order, subs));
    owned.extend(resource);
    drop(paths);
    ctx.drop_lookups();
    let mut secs: Vec<&sections::OutSec> = owned.iter().collect();
    secs.extend(print::node_sections(
        &ctx,
        &node_order,
        &parts.waits,
        &mut merged,
    ));
    secs.extend(conn_order.iter().filter_map(|i| conn_out.get(i)));
    secs.extend(edit_order.iter().filter_map(|i| edit_out.get(i)));
    let printer = print::Printer {
        ctx: &ctx,
        ext_ids: &ext_ids,
        sub_ids: &sub_ids,
        markers,
        godot3: o.is_godot3(),
        seps: print::ours_separators(&ctx),
        fields: &parts.fields,
    };
    let (text, nconf) = printer.print(&secs, false);
    // Without a conflict printed, resolving them to ours changes nothing.
    let take_ours = (nconf > 0).then(|| printer.print(&secs, true).0);
    ctx.conflicts_in_file_order(&node_order, &sub_order);
    Structural {
        text,
        take_ours,
        hunks: nconf,
        conflicts: ctx.conflicts,
        decisions: ctx.decisions,
        line_merge_blind: path_needed,
    }
}

/// Shorten a value for a one-line report.
pub fn shorten(s: &str, max: usize) -> String {
    // Words are joined only until the text is surely too long (more than `max` chars):
    // a value can be a million-line string.
    let mut one = String::new();
    for word in s.split_whitespace() {
        if one.len() > 4 * (max + 1) {
            break;
        }
        if !one.is_empty() {
            one.push(' ');
        }
        one.push_str(word);
    }
    if one.chars().count() <= max {
        one
    } else {
        let cut: String = one.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests;
