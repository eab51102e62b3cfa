//! Editor churn: property values the engine or the editor recomputes, which both sides
//! rewrite without meaning to. A Control whose parent is a built-in Container has its
//! position and size set by that container (`margin_*`, `rect_position`, `rect_size` in
//! Godot 3; `offset_*`, `position`, `size`, anchors in Godot 4), and `editor/display_folded`
//! is the scene dock's folding. Both sides changing such a value differently keeps ours;
//! a node whose only change is such a value, or saved state
//! ([`crate::merge::values::saved_state`]), counts as unchanged against a deletion.
//! It decides only whether a key is churn; the property and node phases act on it, and
//! [`crate::merge::MergeOptions::no_layout_policy`] turns it off.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{Ctx, ParentRef};

/// Built-in containers that place and size their children (Godot 3 and 4 names).
const CONTAINERS: &[&str] = &[
    "BoxContainer",
    "HBoxContainer",
    "VBoxContainer",
    "GridContainer",
    "MarginContainer",
    "CenterContainer",
    "PanelContainer",
    "ScrollContainer",
    "TabContainer",
    "SplitContainer",
    "HSplitContainer",
    "VSplitContainer",
    "AspectRatioContainer",
    "FlowContainer",
    "HFlowContainer",
    "VFlowContainer",
    "ViewportContainer",
    "SubViewportContainer",
];

/// Keys a container recomputes on its children: Godot 3, then Godot 4.
const LAYOUT_KEYS: &[&str] = &[
    "margin_left",
    "margin_top",
    "margin_right",
    "margin_bottom",
    "rect_position",
    "rect_size",
    "offset_left",
    "offset_top",
    "offset_right",
    "offset_bottom",
    "position",
    "size",
    "anchor_left",
    "anchor_top",
    "anchor_right",
    "anchor_bottom",
    "anchors_preset",
];

/// Editor-only state that changes nothing in the running game.
const EDITOR_KEYS: &[&str] = &["editor/display_folded"];

/// Why a key is churn, for the decision shown by `--explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::merge) enum Churn {
    /// Set by the parent container.
    Layout,
    /// Editor-only state.
    Editor,
}

impl Churn {
    /// The words `--explain` uses.
    pub(in crate::merge) fn reason(self) -> &'static str {
        match self {
            Churn::Layout => "the parent container recomputes it",
            Churn::Editor => "it is editor-only state",
        }
    }
}

impl Ctx<'_> {
    /// Whether `key` of node section `sec` on `side` is churn (`None`: a real change).
    pub(in crate::merge) fn churn(&self, side: usize, sec: usize, key: &str) -> Option<Churn> {
        if self.saved_state(side, sec, key).is_some() {
            return Some(Churn::Editor);
        }
        if !self.layout_policy {
            return None;
        }
        if EDITOR_KEYS.contains(&key) {
            return Some(Churn::Editor);
        }
        if !LAYOUT_KEYS.contains(&key) || self.sec(side, sec).tag.name != "node" {
            return None;
        }
        self.parent_is_container(side, sec).then_some(Churn::Layout)
    }

    /// Whether the node of section `sec` hangs under a built-in Container.
    fn parent_is_container(&self, side: usize, sec: usize) -> bool {
        let sc = self.sc[side];
        let Some(n) = sc.nodes.binary_search_by_key(&sec, |n| n.section).ok() else {
            return false;
        };
        let ParentRef::Node(p) = self.parent_ref(side, n) else {
            return false;
        };
        let Some(pi) = self.id.node.at.get(p).and_then(|at| at[side]) else {
            return false;
        };
        let ty = sc.nodes.get(pi).and_then(|n| n.type_name.as_deref());
        ty.is_some_and(|t| CONTAINERS.contains(&t))
    }

    /// Record that ours' value of a churn key was kept.
    pub(in crate::merge) fn churn_kept(&mut self, node: String, key: &str, why: Churn) {
        self.decisions.push(Decision::ChurnOursKept {
            node,
            key: key.to_string(),
            reason: why.reason(),
        });
    }
}
