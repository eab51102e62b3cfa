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
    fixed_mmap_threshold();
    std::process::exit(cli::main());
}

/// glibc's allocator serves a large block (a big scene's lists and tables, a merged
/// text) from its heap once a block that large was freed (each such free raises its
/// mmap threshold, up to 32 MB), and what is freed inside the heap stays resident. A
/// fixed threshold maps every block over 256 KB apart and gives it back when freed, so
/// the tables a merge drops between its phases leave room for the next.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fixed_mmap_threshold() {
    // SAFETY: sets one parameter of the C allocator, before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fixed_mmap_threshold() {}
