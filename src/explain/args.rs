//! `explain` arguments.

use clap::Args;
use std::ffi::OsString;

/// `explain` arguments.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The file, as git names it (from the work tree's top; bytes, as the driver got
    /// it from git's `%P`).
    pub path: Option<OsString>,
}
