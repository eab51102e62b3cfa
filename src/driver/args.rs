//! The merge driver's arguments (`merge`, as git's `driver` line passes them: `%O %A %B
//! %L %P %S %X %Y`) and the option values `solve` and `ci` share with it: conflict
//! style, favoured side, explain format.

use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// How `--explain` prints the merge decisions.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    /// Sentences on stderr.
    Text,
    /// One JSON document on stderr.
    Json,
}

/// Conflict style of `merge --style`, as git's `merge.conflictStyle`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StyleArg {
    /// Ours and theirs only (git's default).
    Merge,
    /// Also the base.
    Diff3,
    /// diff3 with the lines both sides share moved out.
    Zdiff3,
}

/// The side `merge --favor` resolves conflicts to.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FavorArg {
    /// Our side.
    Ours,
    /// Their side.
    Theirs,
}

/// What `merge --state` does with saved editor state both sides changed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateArg {
    /// The RESET animation's value, else ours' (the default).
    Resolve,
    /// A conflict hunk, as for any property.
    Conflict,
}

/// `merge` arguments.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Write the result over OURS (git's %A).
    #[arg(long)]
    pub git: bool,
    /// Write the result to this file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// The path of the file in the repository (git's %P), for messages and format detection.
    #[arg(short = 'p', long = "path")]
    pub path: Option<PathBuf>,
    /// Conflict marker size (git's %L).
    #[arg(short = 'l', long = "marker-size", default_value_t = 7)]
    pub marker_size: usize,
    /// Label of the base (git's %S).
    #[arg(short = 's', long = "base-label")]
    pub base_label: Option<OsString>,
    /// Label of ours (git's %X).
    #[arg(short = 'x', long = "ours-label")]
    pub ours_label: Option<OsString>,
    /// Label of theirs (git's %Y).
    #[arg(short = 'y', long = "theirs-label")]
    pub theirs_label: Option<OsString>,
    /// Print each automatic decision (text or json) on stderr.
    #[arg(long, num_args = 0..=1, default_missing_value = "text", require_equals = true)]
    pub explain: Option<ExplainFormat>,
    /// Do not report each conflict on stderr.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Conflict style (default: git's `merge.conflictStyle` with `--git`, else diff3).
    #[arg(long, value_enum)]
    pub style: Option<StyleArg>,
    /// Resolve every conflict to this side, as `git merge -X ours|theirs` would
    /// (also `TSCN_MERGE_FAVOR=ours|theirs`).
    #[arg(long, value_enum)]
    pub favor: Option<FavorArg>,
    /// Seconds the structural merge may take before the line merge is used instead
    /// (0: the line merge only).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Treat container layout and editor-only state like any property: a conflict when
    /// both sides change it, instead of keeping ours'.
    #[arg(long)]
    pub no_layout_policy: bool,
    /// Saved editor state both sides changed (bone poses, animated frames, AnimationTree
    /// parameters, blend shapes, values an AnimationPlayer drives): `resolve` takes the
    /// RESET animation's value, else ours'; `conflict` leaves a hunk (also
    /// `TSCN_MERGE_STATE=conflict`).
    #[arg(long, value_enum)]
    pub state: Option<StateArg>,
    /// Common ancestor.
    pub base: PathBuf,
    /// Our version (overwritten with --git).
    pub ours: PathBuf,
    /// Their version.
    pub theirs: PathBuf,
}

impl MergeArgs {
    /// git's `%P` for messages and format detection: git passes bytes (a Latin-1 name
    /// is not UTF-8), shown here with U+FFFD for what is not UTF-8.
    pub fn path_text(&self) -> Option<String> {
        self.path.as_ref().map(|p| p.to_string_lossy().into_owned())
    }
}

/// A conflict label git passes (`%X`, `%Y`, `%S`: a branch name is bytes), or `default`.
pub fn label_text(label: &Option<OsString>, default: &str) -> String {
    label
        .as_ref()
        .map_or_else(|| default.to_string(), |l| l.to_string_lossy().into_owned())
}
