//! `solve` arguments.

use crate::driver::args::{ExplainFormat, FavorArg, StyleArg};
use clap::Args;
use std::path::PathBuf;

/// `solve` arguments.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Do not keep a backup (`.git/tscn-merge/backup/FILE.orig` in a repository, else
    /// `FILE.orig` beside it).
    #[arg(long)]
    pub no_backup: bool,
    /// Print the result instead of writing the file.
    #[arg(long)]
    pub stdout: bool,
    /// Conflict marker size used in the file.
    #[arg(short = 'l', long = "marker-size", default_value_t = 7)]
    pub marker_size: usize,
    /// Print each automatic decision (text or json) on stderr.
    #[arg(long, num_args = 0..=1, default_missing_value = "text", require_equals = true)]
    pub explain: Option<ExplainFormat>,
    /// Conflict style of the markers written (default: git's `merge.conflictStyle`
    /// for a file in a repository, else diff3).
    #[arg(long, value_enum)]
    pub style: Option<StyleArg>,
    /// Resolve the conflicts left to this side, as `merge --favor` does.
    #[arg(long, value_enum)]
    pub favor: Option<FavorArg>,
    /// Conflicted files (default: every unmerged scene of the current repository).
    pub files: Vec<PathBuf>,
}
