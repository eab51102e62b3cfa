//! `tscn-merge ci`: merges that happen on the server (pull requests on GitHub, merge
//! requests on GitLab). `ci check` predicts the merge the server makes with git's own line
//! merge and checks every scene in it; `ci merge` makes the merge with the structural driver
//! in a checkout of the pull request's head, commits it only when everything merged clean
//! and checks, and otherwise reports and leaves the checkout as it was; `ci event` reads a
//! GitHub event and says what the workflow should do. The merging itself is the library's
//! and `cli::merge`'s; git does the rest (`git merge-tree`, `git merge`).

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

mod check;
mod driver;
mod event;
mod merge;
mod report;

/// `ci` arguments: one of its subcommands.
#[derive(Args, Debug)]
pub struct CiArgs {
    #[command(subcommand)]
    pub command: CiCommand,
}

/// What `ci` does.
#[derive(Subcommand, Debug)]
pub enum CiCommand {
    /// Check the merge the server would make (git's line merge, no driver): 0 every
    /// scene valid, 1 a scene broken or conflicted, 2 error.
    Check(CheckArgs),
    /// Merge BASE into HEAD with the structural driver; commit only when every file
    /// merges clean and every scene checks (0), else report and change nothing (1).
    Merge(MergeArgs),
    /// Read a GitHub Actions event and print what to do (`key=value` lines).
    Event(event::EventArgs),
    /// The merge driver `ci merge` configures for its own `git merge` (not for people).
    #[command(hide = true)]
    Driver(driver::DriverArgs),
}

/// `ci check` arguments.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The branch the pull request goes into (e.g. `origin/main`).
    pub base: String,
    /// The pull request's head (default: HEAD).
    #[arg(long, default_value = "HEAD")]
    pub head: String,
    /// Seconds each conflicted scene's structural merge may take in the preview.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    #[command(flatten)]
    pub godot: crate::check::args::GodotArg,
}

/// `ci merge` arguments.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The branch to merge into the checkout (e.g. `origin/main`).
    pub base: String,
    /// Push the merge commit to the branch's upstream (else `origin HEAD:<branch>`).
    #[arg(long)]
    pub push: bool,
    /// Seconds the whole `git merge` may take before it is stopped and undone.
    #[arg(long, default_value_t = 600.0)]
    pub timeout: f64,
    #[command(flatten)]
    pub godot: crate::check::args::GodotArg,
}

/// Run a `ci` subcommand.
pub fn run(a: &CiArgs) -> Result<i32> {
    match &a.command {
        CiCommand::Check(c) => check::run(c),
        CiCommand::Merge(m) => merge::run(m),
        CiCommand::Event(e) => event::run(e),
        CiCommand::Driver(d) => driver::run(d),
    }
}

/// A git command in the current directory, stdin closed.
fn git_cmd() -> Command {
    let mut cmd = Command::new("git");
    cmd.stdin(Stdio::null());
    cmd
}

/// Run git with `args`; its output whatever the status.
fn git<I, S>(args: I) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    git_cmd().args(args).output().context("cannot run git")
}

/// Run git, fail with its stderr unless it succeeds; its stdout.
fn git_ok<I, S>(args: I) -> Result<Vec<u8>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let out = git(&args)?;
    if !out.status.success() {
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        bail!(
            "git {} failed: {}",
            shown.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// The full id of the commit `rev` names.
fn commit_id(rev: &str) -> Result<String> {
    let out = git_ok([
        "rev-parse",
        "--verify",
        "--end-of-options",
        &format!("{rev}^{{commit}}"),
    ])
    .with_context(|| format!("{rev:?} does not name a commit"))?;
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// `git version 2.47.1` as (2, 47).
fn parse_git_version(text: &str) -> Option<(u32, u32)> {
    let v = text.trim().strip_prefix("git version ")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// Fail unless git is at least `major.minor` (`git merge-tree --write-tree` needs 2.38).
fn require_git(major: u32, minor: u32, why: &str) -> Result<()> {
    let out = git_ok(["version"])?;
    let text = String::from_utf8_lossy(&out);
    match parse_git_version(&text) {
        Some(v) if v >= (major, minor) => Ok(()),
        Some((a, b)) => bail!("{why} needs git {major}.{minor} or later; this is git {a}.{b}"),
        None => bail!("cannot read git's version from {:?}", text.trim()),
    }
}

/// NUL-separated fields of `-z` output (a trailing empty field dropped).
fn nul_fields(bytes: &[u8]) -> Vec<String> {
    let mut fields: Vec<String> = bytes
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    if fields.last().is_some_and(String::is_empty) {
        fields.pop();
    }
    fields
}

/// The work tree's root (`git rev-parse --show-toplevel`).
fn toplevel() -> Result<PathBuf> {
    let out = git_ok(["rev-parse", "--show-toplevel"]).context("not inside a git work tree")?;
    Ok(PathBuf::from(
        String::from_utf8_lossy(&out).trim_end_matches('\n'),
    ))
}

/// Whether `path` names a scene or resource this tool reads.
fn is_scene(path: &str) -> bool {
    super::git::is_scene_path(path)
}

/// Whether `path` names a file the driver merges: a scene or resource, or one of Godot's
/// ConfigFile files (`project.godot`, `*.import`, `*.uid`, ...).
fn handled(path: &str) -> bool {
    is_scene(path) || gdscene::config::ConfigKind::of_path(path).is_some()
}

/// The errors `check` finds in the file `path` holding `bytes`: a scene's, a ConfigFile's
/// ([`config_errors`]); nothing for any other file.
fn file_errors(path: &str, bytes: &[u8]) -> Vec<gdscene::check::Problem> {
    if is_scene(path) {
        scene_errors(bytes)
    } else if gdscene::config::ConfigKind::of_path(path).is_some() {
        config_errors(bytes)
    } else {
        Vec::new()
    }
}

/// A ConfigFile's errors as `check` finds them (leftover markers, repeated keys and
/// sections; one that does not parse is one error at its line).
fn config_errors(bytes: &[u8]) -> Vec<gdscene::check::Problem> {
    use gdscene::check::{Problem, Severity};
    let one = |line: usize, message: String| {
        vec![Problem {
            severity: Severity::Error,
            line,
            message,
        }]
    };
    let text = crate::io::eol::lf_view(bytes);
    let Ok(text) = std::str::from_utf8(&text) else {
        return one(0, "is not UTF-8".into());
    };
    match gdscene::config::check::check_config(text) {
        Ok(mut p) => {
            p.retain(|p| p.severity == Severity::Error);
            p
        }
        Err(e) => one(0, format!("does not parse: {e}")),
    }
}

/// A scene's errors as `check` finds them: leftover markers, and what the parsed scene
/// breaks (an unparsable file is one error at its line).
fn scene_errors(bytes: &[u8]) -> Vec<gdscene::check::Problem> {
    use gdscene::check::{check, check_markers, Problem, Severity};
    let mut problems = check_markers(bytes);
    match gdscene::model::Scene::parse(bytes) {
        Ok(scene) => problems.extend(check(&scene)),
        Err(e) if problems.is_empty() => problems.push(Problem {
            severity: Severity::Error,
            line: 0,
            message: format!("does not parse: {e}"),
        }),
        Err(_) => {}
    }
    problems.retain(|p| p.severity == Severity::Error);
    problems
}

/// `path` shown with its hidden characters spelled out.
fn shown(path: &str) -> String {
    gdscene::render::escape::visible(path).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions() {
        assert_eq!(parse_git_version("git version 2.47.1\n"), Some((2, 47)));
        assert_eq!(
            parse_git_version("git version 2.38.0.windows.1"),
            Some((2, 38))
        );
        assert_eq!(parse_git_version("hg 1.0"), None);
        assert!(Some((2, 37)) < Some((2, 38)));
    }

    #[test]
    fn nul_separated_fields() {
        assert_eq!(nul_fields(b"a\0b c\0\0d\0"), vec!["a", "b c", "", "d"]);
        assert!(nul_fields(b"").is_empty());
    }

    #[test]
    fn scene_errors_name_markers_and_parse_failures() {
        let marked = b"[gd_scene format=3]\n\n<<<<<<< ours\n[node name=\"A\" type=\"Node\"]\n=======\n[node name=\"B\" type=\"Node\"]\n>>>>>>> theirs\n";
        assert!(!scene_errors(marked).is_empty());
        let fine = b"[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n";
        assert!(scene_errors(fine).is_empty());
        let orphan = b"[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n\n[node name=\"B\" type=\"Node\" parent=\"Gone\"]\n";
        let e = scene_errors(orphan);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].line, 5);
    }
}
