//! Command line: clap's definition of the commands and a thin dispatch to the folder of
//! each thing a user does (`driver/` for `merge`, `diff/`, `review/`, `solve/`, ...).
//! Each command's arguments are declared in its own folder (`args.rs`); this file only
//! names the commands and turns an outcome into an exit code. Exit codes everywhere:
//! 0 clean / no change, 1 conflicts or changes or broken, 2 error.

use crate::check::args::CheckArgs;
use crate::diff::args::{DiffArgs, TextconvArgs};
use crate::driver::args::MergeArgs;
use crate::explain::args::ExplainArgs;
use crate::install::args::{InstallArgs, UninstallArgs};
use crate::review::args::ReviewArgs;
use crate::solve::args::SolveArgs;
use crate::{check, ci, diff, doctor, driver, explain, install, io, mergetool, review, solve};
use clap::{Parser, Subcommand};

/// Structural git merge driver and semantic diff for Godot scenes and resources.
#[derive(Parser, Debug)]
#[command(name = "tscn-merge", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate scenes, resources and config files: 0 valid, 1 broken or not parsing, 2 unreadable.
    Check(CheckArgs),
    /// Three-way structural merge (git merge-driver conventions).
    Merge(MergeArgs),
    /// Semantic diff of two versions of a scene.
    Diff(DiffArgs),
    /// Print a stable, readable projection of a scene for git's textconv.
    Textconv(TextconvArgs),
    /// Summarise every changed scene in a revision range (Markdown by default).
    Review(ReviewArgs),
    /// Re-merge files that git left with conflict markers.
    Solve(SolveArgs),
    /// Resolve a scene's conflicts in the browser (git's mergetool `tscn-merge`).
    Mergetool(mergetool::MergetoolArgs),
    /// Register the merge and diff drivers with git and .gitattributes.
    Install(InstallArgs),
    /// Remove exactly what `install` added in this clone (never a committed file).
    Uninstall(UninstallArgs),
    /// Check this repository's setup (driver, binary, attributes, branches); say how
    /// to fix each problem. Exit 0 all good, 1 a problem.
    Doctor,
    /// Show what the last merges the driver made decided (of PATH only, if given).
    Explain(ExplainArgs),
    /// Merges that happen on the server: `ci check BASE`, `ci merge BASE [--push]`.
    Ci(ci::CiArgs),
}

/// Print what `install` or `uninstall` did, one line each.
fn print_lines(lines: Vec<String>) -> anyhow::Result<i32> {
    lines.iter().try_for_each(|l| io::print_line(l))?;
    Ok(0)
}

/// Parse arguments, run, and turn the outcome into an exit code.
pub fn main() -> i32 {
    if let Some(files) = diff::link_call(diff::TEXTCONV_LINK) {
        return finish(diff::run_textconv_link(&files));
    }
    if let Some(args) = diff::link_call(diff::DIFF_LINK) {
        return finish(diff::run_diff_link(args));
    }
    if let Some(a) = textconv_fast_path() {
        return finish(diff::run_textconv(&a));
    }
    io::clean_up_on_signals();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            if code == 2 {
                if let Some(code) = driver::rescue_refused_git_call(&args, &e.to_string()) {
                    return code;
                }
            }
            return code;
        }
    };
    let result = match &cli.command {
        Command::Check(a) => check::run(a),
        Command::Merge(a) => driver::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Textconv(a) => diff::run_textconv(a),
        Command::Review(a) => review::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Mergetool(a) => mergetool::run(a),
        Command::Install(a) => {
            let opts = install::Options {
                diff: a.diff,
                local: a.local,
            };
            install::run_install(a.global, opts).and_then(print_lines)
        }
        Command::Uninstall(a) => install::run_uninstall(a.global).and_then(print_lines),
        Command::Doctor => doctor::run(),
        Command::Explain(a) => {
            let path = a.path.as_ref().map(|p| p.to_string_lossy().into_owned());
            explain::run(path.as_deref())
        }
        Command::Ci(a) => ci::run(a),
    };
    finish(result)
}

/// `textconv [--] FILE`, git's most frequent call (once per blob of `git log -p`), read
/// without building the whole command line parser.
fn textconv_fast_path() -> Option<TextconvArgs> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != "textconv" {
        return None;
    }
    let mut file = args.next()?;
    let dashes = file == "--";
    if dashes {
        file = args.next()?;
    }
    let plain = dashes || !file.as_encoded_bytes().starts_with(b"-");
    (plain && args.next().is_none()).then(|| TextconvArgs {
        timeout: None,
        file: file.into(),
    })
}

/// The exit code of a command's outcome, its error printed.
fn finish(result: anyhow::Result<i32>) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            let e = gdscene::render::escape::visible_lines(&format!("{e:#}"));
            io::write_stderr(&format!("tscn-merge: error: {e}\n"));
            2
        }
    }
}
