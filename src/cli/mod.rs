//! Command line: clap definitions and a thin dispatch to one module per subcommand.
//! Exit codes everywhere: 0 clean / no change, 1 conflicts or changes or broken,
//! 2 error (and `check --roundtrip` uses 3 for a printer bug).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

pub mod check;
pub mod ci;
pub mod config;
pub mod deadline;
pub mod diff;
pub mod doctor;
pub mod explain;
pub mod git;
pub mod gitconfig;
pub mod install;
pub mod io;
pub mod merge;
pub mod mergetool;
pub mod review;
pub mod solve;
pub mod uid_refs;

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
    /// Validate scenes/resources: 0 valid, 1 structurally broken, 2 unreadable.
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
    /// Remove exactly what `install` added.
    Uninstall(InstallArgs),
    /// Check this repository's setup (driver, binary, attributes, branches); say how
    /// to fix each problem. Exit 0 all good, 1 a problem.
    Doctor,
    /// Show what the last merges the driver made decided (of PATH only, if given).
    Explain(ExplainArgs),
    /// Merges that happen on the server: `ci check BASE`, `ci merge BASE [--push]`.
    Ci(ci::CiArgs),
}

/// `explain` arguments.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The file, as git names it (from the work tree's top; bytes, as the driver got
    /// it from git's `%P`).
    pub path: Option<OsString>,
}

/// When to colour output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// `check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Print one JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also verify that printing the parsed tree reproduces each file (exit 3 if not).
    #[arg(long)]
    pub roundtrip: bool,
    /// Files to check; a directory: every scene, resource and Godot config file under
    /// it (sorted; `.git` and `.godot` skipped).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

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

/// Output format of `diff` and `review`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// A tree of changes, coloured on a terminal.
    Text,
    /// A review-ready summary with a Mermaid diagram.
    Markdown,
    /// The versioned JSON schema.
    Json,
    /// One self-contained HTML page (inline CSS, no script).
    Html,
}

/// `diff` arguments.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Also list resave noise (renamed ids, load_steps, float re-spellings, ...).
    #[arg(long)]
    pub show_noise: bool,
    /// List every bone pose of a Skeleton3D saved in another pose (else one line per
    /// skeleton).
    #[arg(long)]
    pub show_state: bool,
    /// Called as git's external diff: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE.
    #[arg(long)]
    pub git_external: bool,
    /// Seconds the semantic diff may take before the line diff is shown instead (0: the
    /// line diff only; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// OLD NEW (files or git's REV:PATH), or one work-tree PATH to compare with HEAD
    /// (or git's seven arguments with --git-external).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// `textconv` arguments.
#[derive(Args, Debug)]
pub struct TextconvArgs {
    /// Seconds the projection may take before the file is printed as it is (0: always
    /// as it is; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// The scene to project.
    pub file: PathBuf,
}

/// `review` arguments.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// `A..B`, `A...B` (from the merge base), or a single commit.
    pub range: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
    /// When to use colour (text format).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Repository to read (default: the current directory).
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Also list resave noise.
    #[arg(long)]
    pub show_noise: bool,
    /// List every bone pose of a Skeleton3D saved in another pose (else one line per
    /// skeleton).
    #[arg(long)]
    pub show_state: bool,
    /// Most bytes of Markdown output (GitHub refuses comments over 65,536 characters):
    /// the most changed files in full, the rest summarised. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = tscn_merge::render::markdown::DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
    /// No progress on stderr (it is shown only on a terminal anyway).
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Seconds each file's semantic diff may take before the file is listed as not
    /// diffed (0: none is diffed; default `TSCN_MERGE_TIMEOUT`, else 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
}

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
                if let Some(code) = merge::rescue_refused_git_call(&args, &e.to_string()) {
                    return code;
                }
            }
            return code;
        }
    };
    let result = match &cli.command {
        Command::Check(a) => check::run(a),
        Command::Merge(a) => merge::run(a),
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
            let e = tscn_merge::render::escape::visible_lines(&format!("{e:#}"));
            io::write_stderr(&format!("tscn-merge: error: {e}\n"));
            2
        }
    }
}

/// Whether to colour. `--color always`/`never` win. Under `auto`, `NO_COLOR` turns colour
/// off; otherwise a terminal turns it on, and so does git's pager: `git diff` at a
/// terminal pipes through `less`, so the external diff sees a pipe, but git says so in
/// `GIT_PAGER_IN_USE`. When git runs us, its own `color.diff` / `color.ui` decide as
/// they do for git's output (`color.pager` is not consulted); git is asked only then.
pub fn use_color(choice: ColorChoice) -> bool {
    use std::io::IsTerminal;
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => auto_color(
            |k| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned()),
            std::io::stdout().is_terminal(),
            git_wants_color,
        ),
    }
}

/// The `auto` decision, from the environment, whether stdout is a terminal, and git's
/// verdict (asked with whether stdout is a terminal; `None` when git cannot say).
fn auto_color(
    env: impl Fn(&str) -> Option<String>,
    tty: bool,
    git: impl FnOnce(bool) -> Option<bool>,
) -> bool {
    if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let pager = env("GIT_PAGER_IN_USE").is_some_and(|v| git_env_true(&v));
    let run_by_git = pager || env("GIT_DIFF_PATH_COUNTER").is_some();
    match (tty, pager) {
        (false, false) => false,
        _ if run_by_git => git(tty).unwrap_or(true),
        _ => true,
    }
}

/// A boolean environment value as git reads one (`GIT_PAGER_IN_USE=true`).
fn git_env_true(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// git's own answer for `color.diff` (falling back to `color.ui`, `-c` overrides and the
/// pager included): `git config --get-colorbool color.diff TTY`.
fn git_wants_color(tty: bool) -> Option<bool> {
    let out = std::process::Command::new("git")
        .args(["config", "--get-colorbool", "color.diff"])
        .arg(if tty { "true" } else { "false" })
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    match String::from_utf8_lossy(&out.stdout).trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::auto_color;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
    }

    #[test]
    fn auto_colour_follows_the_terminal_the_pager_and_git() {
        let never_asked = |_| -> Option<bool> { panic!("git asked") };
        assert!(auto_color(env(&[]), true, never_asked));
        assert!(!auto_color(env(&[]), false, never_asked));
        assert!(!auto_color(env(&[("NO_COLOR", "1")]), true, never_asked));
        assert!(!auto_color(
            env(&[("GIT_PAGER_IN_USE", "false")]),
            false,
            never_asked
        ));
        let pager = [("GIT_PAGER_IN_USE", "true")];
        assert!(auto_color(env(&pager), false, |tty| Some(!tty)));
        assert!(!auto_color(env(&pager), false, |_| Some(false)));
        assert!(auto_color(env(&pager), false, |_| None));
        let counter = [("GIT_DIFF_PATH_COUNTER", "1")];
        assert!(!auto_color(env(&counter), true, |tty| Some(!tty)));
        assert!(!auto_color(env(&counter), false, never_asked));
        let both = [("GIT_PAGER_IN_USE", "1"), ("NO_COLOR", "x")];
        assert!(!auto_color(env(&both), true, never_asked));
    }
}
