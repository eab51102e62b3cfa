//! [`Decision`]: an automatic choice the merge made, recorded so that `--explain` can
//! show a person what happened; its sentence (`Display`) and its JSON
//! (`--explain=json`). Every stage records decisions; this file decides nothing.

use std::fmt;

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
    /// An override entry (a node inside an instanced scene) deleted on one side whose
    /// `index=` alone the other side shifted (the instanced scene gained a node before
    /// it): an index of an entry that is gone is moot, so the deletion wins.
    ReindexedEntryDeleted {
        /// The entry, as the conflict report names it.
        node: String,
        /// `ours` or `theirs`: the side that only shifted its index.
        side: &'static str,
    },
    /// A node only theirs added carried a `unique_id` that one of ours' nodes holds (two
    /// different new nodes given one id, by hand or by a duplicated file): both nodes
    /// stay, theirs' with a fresh id.
    NodeUniqueIdRenamed {
        /// Theirs' node path.
        node: String,
        /// The id it had.
        from: i64,
        /// The id it gets.
        to: i64,
    },
    /// Theirs gave a node both sides kept a new `unique_id` (a re-save) that a different
    /// node of ours holds: the node keeps ours' id, so no two nodes share one.
    NodeUniqueIdKeptOurs {
        /// The node's path in ours.
        node: String,
        /// The id theirs gave it.
        theirs: i64,
        /// The id it keeps (ours').
        ours: i64,
    },
    /// Both sides gave a node a different new `parent_id_path` (each re-imported the
    /// instanced model above it): ours' was kept, with the rest of ours' ids.
    NodeIdPathOursKept {
        /// The node's path in ours.
        node: String,
        /// Theirs' `parent_id_path`.
        theirs: String,
    },
    /// Two nodes arrived at one path (ours renamed or moved one there, theirs another or
    /// added one): a conflict of the nodes, never one node carrying both.
    NodesAtOnePathConflict {
        /// The path.
        node: String,
        /// What ours put there.
        ours: String,
        /// What theirs put there.
        theirs: String,
    },
    /// `format` raised because merged content needs it.
    FormatRaised {
        /// Value on ours.
        from: Option<i64>,
        /// Value written.
        to: i64,
    },
    /// Both sides replaced the same `ExtResource` by an embedded resource of one type, one
    /// holding every property of the other: that one (the superset) was kept.
    EmbeddedSupersetKept {
        /// The node or resource, as the conflict report names it.
        location: String,
        /// The property.
        key: String,
        /// The embedded resource's type.
        type_name: String,
        /// `ours` or `theirs`: the side whose resource was kept.
        side: &'static str,
    },
    /// Both sides gave the file's own header a new `uid` (a re-save on each branch): ours'
    /// was kept, by rule.
    HeaderUidOurs {
        /// The uid kept (ours').
        ours: String,
        /// Theirs' uid, which files written on theirs may refer to.
        theirs: String,
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
    /// Both sides changed saved editor state (a bone pose, an animated sprite's frame,
    /// AnimationTree parameters, a blend shape, a value an AnimationPlayer track drives)
    /// differently: the RESET animation's value, else ours', was kept.
    SavedStateKept {
        /// The node, as the conflict report names it.
        node: String,
        /// The keys, in file order.
        keys: Vec<String>,
        /// What kind of state.
        what: &'static str,
        /// `RESET` (the RESET animation's value at time 0) or `ours`.
        from: &'static str,
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
    /// A transform both sides changed was merged by its parts (origin, basis, or the
    /// basis's rotation and scale), each from the side that changed it.
    TransformMergedByParts {
        /// The node or resource, as the conflict report names it.
        location: String,
        /// The property.
        key: String,
        /// Which side each part came from (`origin from ours`, `rotation from theirs`).
        parts: Vec<String>,
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
            Decision::IdRenamed { .. }
            | Decision::ResourceDeduplicated { .. }
            | Decision::ResourceMatched { .. }
            | Decision::ResourceContentFollowed { .. }
            | Decision::LoadStepsRecomputed { .. }
            | Decision::LoadStepsRemoved { .. }
            | Decision::FormatRaised { .. }
            | Decision::HeaderUidOurs { .. }
            | Decision::EmbeddedSupersetKept { .. }
            | Decision::UnusedResourceDropped { .. }
            | Decision::DeletedResourceKept { .. }
            | Decision::ValueMergedInside { .. }
            | Decision::TransformMergedByParts { .. } => self.fmt_resource(f),
            Decision::NodeRenameFollowed { .. }
            | Decision::NodeMoveFollowed { .. }
            | Decision::NodePathFollowed { .. }
            | Decision::NodePathKept { .. }
            | Decision::NodeIdentityShared { .. }
            | Decision::OrderConflictOursKept
            | Decision::SiblingOrderMerged
            | Decision::ResavedNodeDeleted { .. }
            | Decision::ReindexedEntryDeleted { .. }
            | Decision::NodeUniqueIdRenamed { .. }
            | Decision::NodeUniqueIdKeptOurs { .. }
            | Decision::NodeIdPathOursKept { .. }
            | Decision::ChurnOursKept { .. }
            | Decision::SavedStateKept { .. }
            | Decision::ChurnedNodeDeleted { .. } => self.fmt_node(f),
            Decision::ConflictCarriesSubtree { .. }
            | Decision::RivalNodesConflict { .. }
            | Decision::ReplacedNodeConflict { .. }
            | Decision::NodesAtOnePathConflict { .. }
            | Decision::ConflictCarriesSubResource { .. }
            | Decision::ConflictSpellsParents { .. }
            | Decision::AddAddStandInBase { .. }
            | Decision::HunkFavored { .. }
            | Decision::FellBack { .. } => self.fmt_hunk(f),
        }
    }
}

impl Decision {
    /// The sentence of a decision about resources, their ids or the header.
    fn fmt_resource(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            Decision::ResourceContentFollowed { side, type_name, base_id, id } => write!(
                f,
                "{side} moved the content of {type_name} sub_resource \"{base_id}\" to \"{id}\" (a re-import reused the id for other content); changes followed the content"
            ),
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
            Decision::FormatRaised { from, to } => write!(
                f,
                "raised format from {} to {to}: the merged content needs it",
                from.map_or("absent".to_string(), |v| v.to_string())
            ),
            Decision::EmbeddedSupersetKept { location, key, type_name, side } => write!(
                f,
                "kept {side}' embedded {type_name} for {key} of {location}: both sides replaced the same ExtResource by an embedded {type_name}, and {side}' holds every property of the other's with the same value"
            ),
            Decision::HeaderUidOurs { ours, theirs } => write!(
                f,
                "kept ours' file uid {ours}: both sides gave the file a new uid (theirs {theirs}); files that refer to {theirs} still load it by its path, with Godot's warning"
            ),
            Decision::UnusedResourceDropped { section, id } => {
                write!(f, "dropped {section} \"{id}\": nothing in the merged file uses it any more")
            }
            Decision::DeletedResourceKept { section, id } => {
                write!(f, "kept {section} \"{id}\", deleted on one side, because merged content still uses it")
            }
            Decision::ValueMergedInside { location, key } => write!(
                f,
                "merged {key} of {location} inside (both sides changed it), reading each side's resource ids as the resources they name"
            ),
            Decision::TransformMergedByParts { location, key, parts } => write!(
                f,
                "merged {key} of {location} by its parts (both sides changed it, different parts): {}",
                parts.join(", ")
            ),
            // Not reached: `fmt` hands this function only the decisions above.
            _ => Ok(()),
        }
    }

    /// The sentence of a decision about nodes, their paths or their order.
    fn fmt_node(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
            Decision::OrderConflictOursKept => write!(f, "both sides reordered the same nodes differently; ours' order was kept where they disagree (order has no conflict marker: check the node order)"),
            Decision::SiblingOrderMerged => write!(f, "merged the node order of both sides (insertions from both kept)"),
            Decision::ResavedNodeDeleted { node, side } => write!(
                f,
                "deleted {node}: {side} only re-saved it (a new unique_id or renamed resource ids), which is no change"
            ),
            Decision::ReindexedEntryDeleted { node, side } => write!(
                f,
                "deleted {node}: {side} only shifted its index= among the instanced scene's children, which is moot for an entry that is gone"
            ),
            Decision::NodeUniqueIdRenamed { node, from, to } => write!(
                f,
                "node \"{node}\" that theirs added had unique_id={from}, which a different node of ours holds: both nodes were kept, theirs' with unique_id={to}"
            ),
            Decision::NodeUniqueIdKeptOurs { node, theirs, ours } => write!(
                f,
                "theirs gave node \"{node}\" unique_id={theirs}, which a different node of ours holds: it keeps ours' unique_id={ours}"
            ),
            Decision::NodeIdPathOursKept { node, theirs } => write!(
                f,
                "both sides gave node \"{node}\" a different new parent_id_path (each re-imported the instance above it): kept ours', theirs' was {theirs}"
            ),
            Decision::ChurnOursKept { node, key, reason } => write!(
                f,
                "both sides changed {key} of {node} differently; kept ours because {reason} (--no-layout-policy to get a conflict)"
            ),
            Decision::SavedStateKept { node, keys, what, from } => write!(
                f,
                "kept {} {} of {node}: both sides changed {} differently, and it is {what}, state the editor saves rather than an edit (--state=conflict to get a conflict)",
                if *from == "RESET" { "the RESET animation's value for" } else { "ours'" },
                key_list(keys),
                if keys.len() == 1 { "it" } else { "them" }
            ),
            Decision::ChurnedNodeDeleted { node } => write!(
                f,
                "deleted {node}: the other side changed only its container layout or editor-only state"
            ),
            // Not reached: `fmt` hands this function only the decisions above.
            _ => Ok(()),
        }
    }

    /// The sentence of a decision about conflict hunks or the merge as a whole.
    fn fmt_hunk(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::ConflictCarriesSubtree { node, nodes } => write!(
                f,
                "the conflict on node \"{node}\" (deleted on one side) carries its {nodes} descendant node(s) inside the markers, so picking a side keeps or drops the whole subtree"
            ),
            Decision::RivalNodesConflict { node, ours_nodes, theirs_nodes } => write!(
                f,
                "both sides added a different node \"{node}\" (another unique_id): one conflict holds ours' node with {ours_nodes} descendant node(s) and theirs' with {theirs_nodes}, so picking a side keeps that side's whole subtree"
            ),
            Decision::NodesAtOnePathConflict { node, ours, theirs } => write!(
                f,
                "two nodes arrive at \"{node}\" (ours: {ours}; theirs: {theirs}): they conflict as nodes (each side's [node] line, a new node whole against nothing), so picking a side leaves that side's one node at that path"
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
            Decision::AddAddStandInBase { header } => write!(
                f,
                "both sides added this file (git passed an empty base): merged against a stand-in base holding only `{header}`, so each node and resource is one side's addition"
            ),
            Decision::HunkFavored { side, line, kept } => write!(
                f,
                "resolved the conflict hunk at line {line} to {side} (--favor): kept {kept}"
            ),
            Decision::FellBack { reason } => write!(f, "used a line merge instead of the structural merge: {reason}"),
            // Not reached: `fmt` hands this function only the decisions above.
            _ => Ok(()),
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
            Decision::ReindexedEntryDeleted { .. } => "reindexed_entry_deleted",
            Decision::NodeUniqueIdRenamed { .. } => "node_unique_id_renamed",
            Decision::NodeUniqueIdKeptOurs { .. } => "node_unique_id_kept_ours",
            Decision::NodeIdPathOursKept { .. } => "node_id_path_ours_kept",
            Decision::FormatRaised { .. } => "format_raised",
            Decision::HeaderUidOurs { .. } => "header_uid_ours",
            Decision::EmbeddedSupersetKept { .. } => "embedded_superset_kept",
            Decision::UnusedResourceDropped { .. } => "unused_resource_dropped",
            Decision::DeletedResourceKept { .. } => "deleted_resource_kept",
            Decision::ConflictCarriesSubtree { .. } => "conflict_carries_subtree",
            Decision::ConflictSpellsParents { .. } => "conflict_spells_parents",
            Decision::RivalNodesConflict { .. } => "rival_nodes_conflict",
            Decision::NodesAtOnePathConflict { .. } => "nodes_at_one_path_conflict",
            Decision::ReplacedNodeConflict { .. } => "replaced_node_conflict",
            Decision::ConflictCarriesSubResource { .. } => "conflict_carries_sub_resource",
            Decision::ChurnOursKept { .. } => "churn_ours_kept",
            Decision::ChurnedNodeDeleted { .. } => "churned_node_deleted",
            Decision::SavedStateKept { .. } => "saved_state_kept",
            Decision::AddAddStandInBase { .. } => "add_add_stand_in_base",
            Decision::HunkFavored { .. } => "hunk_favored",
            Decision::ValueMergedInside { .. } => "value_merged_inside",
            Decision::TransformMergedByParts { .. } => "transform_merged_by_parts",
            Decision::FellBack { .. } => "fell_back",
        }
    }

    /// The decision's own fields, as a JSON object merged into [`Decision::to_json`].
    fn fields_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Decision::IdRenamed { .. }
            | Decision::ResourceDeduplicated { .. }
            | Decision::ResourceMatched { .. }
            | Decision::ResourceContentFollowed { .. } => self.resource_fields_json(),
            Decision::NodeRenameFollowed { from, to } | Decision::NodeMoveFollowed { from, to } => {
                json!({"from": from, "to": to})
            }
            Decision::LoadStepsRecomputed { from, to } => json!({"from": from, "to": to}),
            Decision::FormatRaised { from, to } => json!({"from": from, "to": to}),
            Decision::HeaderUidOurs { ours, theirs } => json!({"ours": ours, "theirs": theirs}),
            Decision::EmbeddedSupersetKept {
                location,
                key,
                type_name,
                side,
            } => {
                json!({"location": location, "key": key, "type": type_name, "side": side})
            }
            Decision::LoadStepsRemoved { side, base } => json!({"side": side, "base": base}),
            Decision::ResavedNodeDeleted { node, side }
            | Decision::ReindexedEntryDeleted { node, side } => json!({"node": node, "side": side}),
            Decision::UnusedResourceDropped { section, id }
            | Decision::DeletedResourceKept { section, id } => {
                json!({"section": section, "id": id})
            }
            Decision::FellBack { reason } => json!({"reason": reason}),
            Decision::ValueMergedInside { location, key } => {
                json!({"location": location, "key": key})
            }
            Decision::TransformMergedByParts {
                location,
                key,
                parts,
            } => json!({"location": location, "key": key, "parts": parts}),
            Decision::AddAddStandInBase { header } => json!({"header": header}),
            Decision::HunkFavored { side, line, kept } => {
                json!({"side": side, "line": line, "kept": kept})
            }
            Decision::ConflictCarriesSubtree { .. }
            | Decision::ConflictSpellsParents { .. }
            | Decision::RivalNodesConflict { .. }
            | Decision::ReplacedNodeConflict { .. }
            | Decision::NodesAtOnePathConflict { .. }
            | Decision::ChurnOursKept { .. }
            | Decision::SavedStateKept { .. }
            | Decision::ChurnedNodeDeleted { .. }
            | Decision::ConflictCarriesSubResource { .. }
            | Decision::NodePathFollowed { .. }
            | Decision::NodePathKept { .. }
            | Decision::NodeIdentityShared { .. }
            | Decision::SiblingOrderMerged
            | Decision::OrderConflictOursKept
            | Decision::NodeUniqueIdRenamed { .. }
            | Decision::NodeIdPathOursKept { .. }
            | Decision::NodeUniqueIdKeptOurs { .. } => self.node_fields_json(),
        }
    }

    /// The fields of a decision about resource ids and matching, for
    /// [`Decision::fields_json`].
    fn resource_fields_json(&self) -> serde_json::Value {
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
            Decision::ResourceContentFollowed {
                side,
                type_name,
                base_id,
                id,
            } => {
                json!({"side": side, "type": type_name, "base_id": base_id, "id": id})
            }
            _ => json!({}),
        }
    }

    /// The fields of a decision about nodes, their paths, their order or the hunks that
    /// carry them, for [`Decision::fields_json`].
    fn node_fields_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Decision::NodeUniqueIdRenamed { node, from, to } => {
                json!({"node": node, "from": from, "to": to})
            }
            Decision::NodeIdPathOursKept { node, theirs } => {
                json!({"node": node, "theirs": theirs})
            }
            Decision::NodeUniqueIdKeptOurs { node, theirs, ours } => {
                json!({"node": node, "theirs": theirs, "ours": ours})
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
            Decision::NodesAtOnePathConflict { node, ours, theirs } => {
                json!({"node": node, "ours": ours, "theirs": theirs})
            }
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
            Decision::SavedStateKept {
                node,
                keys,
                what,
                from,
            } => json!({"node": node, "keys": keys, "what": what, "from": from}),
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
            Decision::SiblingOrderMerged | Decision::OrderConflictOursKept => json!({}),
            // Not reached: `fields_json` hands this function only the decisions above.
            _ => json!({}),
        }
    }
}

/// Keys for a sentence: all of them up to four, else the first three and how many more.
fn key_list(keys: &[String]) -> String {
    match keys.len() {
        0..=4 => keys.join(", "),
        n => format!("{} and {} more", keys[..3].join(", "), n - 3),
    }
}
