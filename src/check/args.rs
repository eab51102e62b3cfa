//! `check` arguments, and `--godot [BINARY]`, which `ci check` and `ci merge` take too.

use clap::Args;
use std::path::PathBuf;

/// `check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Print one JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also verify that printing the parsed tree reproduces each file (a file it does not reproduce is a problem: exit 1).
    #[arg(long)]
    pub roundtrip: bool,
    /// Print only the problems and the summary line (no `FILE: ok` lines).
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub godot: GodotArg,
    /// Files to check (default: `.`); a directory: every scene, resource and Godot config
    /// file under it (sorted; `.git` and `.godot` skipped).
    pub files: Vec<PathBuf>,
}

/// `--godot [BINARY]`: the user's own Godot loads the files as well.
#[derive(Args, Debug, Clone, Default)]
pub struct GodotArg {
    /// Also load every scene and resource with this Godot 4 (or 3) binary, headless, and
    /// report what the engine said (no BINARY: `$GODOT`, else `godot`, `godot4` or
    /// `godot3` on PATH). Exit 1 when a file does not load, 2 when the binary cannot run.
    #[arg(
        long,
        value_name = "BINARY",
        num_args = 0..=1,
        default_missing_value = "",
        value_parser = clap::builder::ValueParser::os_string()
    )]
    pub godot: Option<std::ffi::OsString>,
}

impl CheckArgs {
    /// The Godot binary asked for (`Some("")`: the default one) and the paths to check.
    /// `check --godot level.tscn` means the file, not a binary named so: a value that is
    /// a folder or a name `check` reads goes back to the paths. No path at all: `.`.
    pub fn binary_and_paths(&self) -> (Option<PathBuf>, Vec<PathBuf>) {
        let mut paths = Vec::new();
        let binary = match self.godot.godot.as_ref().map(PathBuf::from) {
            Some(v) if v.is_dir() || is_checked_name(&v.to_string_lossy()) => {
                paths.push(v);
                Some(PathBuf::new())
            }
            other => other,
        };
        paths.extend(self.files.iter().cloned());
        if paths.is_empty() {
            paths.push(PathBuf::from("."));
        }
        (binary, paths)
    }
}

/// Whether a file found in a walked folder is one `check` reads.
pub fn is_checked_name(name: &str) -> bool {
    crate::git::is_scene_path(name) || gdscene::config::ConfigKind::of_path(name).is_some()
}
