//! `check`: being written.
use super::CheckArgs;
pub fn run(_a: &CheckArgs) -> anyhow::Result<i32> { anyhow::bail!("`check` is not available in this build yet") }
