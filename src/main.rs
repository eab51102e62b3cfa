//! The `tscn-merge` binary: argument parsing and all I/O. The logic lives in the
//! library (`tscn_merge`); this side reads files, talks to git and prints.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
