//! `merge`: being written.
use super::MergeArgs;
pub fn run(_a: &MergeArgs) -> anyhow::Result<i32> { anyhow::bail!("`merge` is not available in this build yet") }
