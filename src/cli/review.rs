//! `review`: being written.
use super::ReviewArgs;
pub fn run(_a: &ReviewArgs) -> anyhow::Result<i32> { anyhow::bail!("`review` is not available in this build yet") }
