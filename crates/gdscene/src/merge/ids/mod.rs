//! Stage 4, ids: the order of the resources that stay and the id each gets in the
//! result (ours keeps its ids; a colliding id from theirs is renamed), and the fresh
//! `unique_id` of a node theirs added with an id ours' nodes hold. Hands on the id maps
//! the printer rewrites every reference with.

pub(super) mod assign;
mod new_refs;
pub(super) mod node_uids;
pub(super) mod order;
