//! `install` and `uninstall` arguments. `uninstall` takes back whatever `install` did
//! in its scope, so it has no `--local` or `--diff` (clap refuses them, exit 2); to undo
//! only `--diff`, run `install` without it.

use clap::Args;

/// `install` arguments.
#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Use the global git config and attributes file instead of this repository's.
    #[arg(long)]
    pub global: bool,
    /// Write the attributes to `.git/info/attributes` (every branch, nothing to commit)
    /// instead of `.gitattributes`.
    #[arg(long, conflicts_with = "global")]
    pub local: bool,
    /// Also make `git diff` and `git log -p` show tscn-merge's view of scenes (their
    /// output is then no patch for `git apply`); `install` without it undoes that.
    #[arg(long)]
    pub diff: bool,
}

/// `uninstall` arguments: the scope only (it removes everything `install` recorded there).
#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// Uninstall from the global git config and attributes file instead of this
    /// repository's.
    #[arg(long)]
    pub global: bool,
}
