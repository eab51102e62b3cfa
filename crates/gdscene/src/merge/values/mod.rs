//! Stage 2, values: how one value, one property list and one resource merge three-way
//! (engine equality, the value grain of resource lists and animation tracks, the layout
//! churn policy, saved editor state), the contents of `[resource]` and sub_resources and which resources are
//! still used, and the values that name nodes (NodePaths, animation track paths,
//! `%Unique` names) following the nodes the tree stage moved or renamed. It stands on
//! identities and the shared types only; the tree stage calls its rules for each node.
//! Hands on merged property lines and resource sections.

pub(super) mod embedded;
pub(super) mod equality;
pub(super) mod layout;
pub(super) mod nodepaths;
pub(super) mod properties;
pub(super) mod resources;
pub(super) mod saved_state;
pub(super) mod section_refs;
pub(super) mod track_paths;
pub(super) mod unique_paths;
pub(super) mod value_grain;
