//! `install` and `uninstall` arguments.

use clap::Args;

/// `install` / `uninstall` arguments.
#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Use the global git config and attributes file instead of this repository's.
    #[arg(long)]
    pub global: bool,
    /// Write the attributes to `.git/info/attributes` (every branch, nothing to commit)
    /// instead of `.gitattributes` (install only).
    #[arg(long, conflicts_with = "global")]
    pub local: bool,
    /// Also make `git diff` and `git log -p` show tscn-merge's view of scenes (their
    /// output is then no patch for `git apply`) (install only).
    #[arg(long)]
    pub diff: bool,
}
