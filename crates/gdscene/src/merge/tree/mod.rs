//! Stage 3, tree: which nodes are in the result (added, deleted, delete against modify,
//! rivals and replacements, a deleted node still needed), where each hangs and under
//! which path, its `[node]` line, the node order, and the sections hung on nodes
//! (connections, editable instances). Hands on the merged nodes
//! ([`crate::merge::shared::merged::MergedNode`]) and their paths in the result.

pub(super) mod connections;
pub(super) mod editables;
pub(super) mod held;
pub(super) mod node_tags;
pub(super) mod nodes;
pub(super) mod order;
pub(super) mod paths;
pub(super) mod rivals;
