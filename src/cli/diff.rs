//! `diff` and `textconv`: being written.
use super::{DiffArgs, TextconvArgs};
pub fn run(_a: &DiffArgs) -> anyhow::Result<i32> { anyhow::bail!("`diff` is not available in this build yet") }
pub fn run_textconv(_a: &TextconvArgs) -> anyhow::Result<i32> { anyhow::bail!("`textconv` is not available in this build yet") }
