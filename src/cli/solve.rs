//! `solve`: being written.
use super::SolveArgs;
pub fn run(_a: &SolveArgs) -> anyhow::Result<i32> { anyhow::bail!("`solve` is not available in this build yet") }
