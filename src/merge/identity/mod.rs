//! Stage 1, identity: which ext_resource, sub_resource and node of base, ours and
//! theirs are the same thing (ext_resources by uid and path, sub_resources by id, use
//! and content, nodes by unique_id or path, renames and moves followed, re-saves and
//! re-imports seen through), and the keys connections and editables are matched by.
//! Hands on the identity tables inside [`crate::merge::shared::context::Ctx`], and the
//! identity choices `--explain` shows as decisions. Nothing here merges a value.

pub(super) mod matching;
