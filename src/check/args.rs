//! `check` arguments.

use clap::Args;
use std::path::PathBuf;

/// `check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Print one JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also verify that printing the parsed tree reproduces each file (exit 3 if not).
    #[arg(long)]
    pub roundtrip: bool,
    /// Files to check; a directory: every scene, resource and Godot config file under
    /// it (sorted; `.git` and `.godot` skipped).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}
