//! The `tscn-merge` binary: everything that talks to git, files, the terminal, the
//! network or a browser. The deciding (parse, merge, diff, write, render) is the
//! `gdscene` library's; this side reads files, runs git and prints.
//!
//! One folder per thing a user does, over two shared layers, each importing only the
//! ones above it in this list:
//!
//! - `io/`: files (atomic writes, line endings), standard streams, signals, deadlines,
//!   colour; `git/`: repositories read with gix, and which paths are ours;
//! - `explain/` (what the driver records for `explain` and `doctor`), `uid_refs/`
//!   (scenes that still name a regenerated uid);
//! - `diff/` (`diff`, `textconv`, git's external diff), `install/` (`install`,
//!   `uninstall`), `driver/` (`merge`: the merge driver), then `solve/`, `check/`,
//!   `review/`, `ci/`, `mergetool/`, `doctor/`;
//! - `cli/`: argument parsing and dispatch only.

mod check;
mod ci;
mod cli;
mod diff;
mod doctor;
mod driver;
mod explain;
mod git;
mod install;
mod io;
mod mergetool;
mod review;
mod solve;
mod uid_refs;

fn main() {
    std::process::exit(cli::main());
}
