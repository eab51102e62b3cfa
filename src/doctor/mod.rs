//! `tscn-merge doctor`: from the repository it runs in, everything a teammate's setup
//! can get wrong, each problem with the command that fixes it. The merge driver git
//! would run and whether its binary is there (else a `tscn-merge` on `PATH`, which a
//! GUI client's `PATH` may lack), its version and command against this binary's, the
//! attributes of each scene extension and the file they come from, a `.gitattributes`
//! that marks scenes but is not committed (before any branch is blamed), local branches
//! whose `.gitattributes` lacks them, `git diff` taken over (`install --diff`) with a link
//! gone, the textconv cache ref of earlier versions, the recent fallbacks to the line
//! merge, and scenes of the work tree that refer to a file by a uid it no longer has
//! (`uid_refs::stale`: what a merge that kept ours' regenerated header uid leaves). Exit 0 when all is well, 1 on a problem, 2 on an error. Installing is
//! left to [`crate::install`].

use crate::install::{first_on_path, merge_driver_command, Exe, CACHE_REF, DRIVER};
use crate::io;
use std::path::{Path, PathBuf};

/// The checks' findings, in order.
#[derive(Default)]
struct Report {
    lines: Vec<String>,
    problems: usize,
}

impl Report {
    fn ok(&mut self, what: impl Into<String>) {
        self.lines.push(format!("ok: {}", what.into()));
    }
    fn note(&mut self, what: impl Into<String>) {
        self.lines.push(format!("note: {}", what.into()));
    }
    fn problem(&mut self, what: impl Into<String>, fix: &str) {
        self.problems += 1;
        self.lines.push(format!("problem: {}", what.into()));
        self.lines.push(format!("  fix: {fix}"));
    }
    /// Another problem of the kind just reported, under the same fix.
    fn problem_more(&mut self, what: impl Into<String>) {
        self.problems += 1;
        self.lines.push(format!("problem: {}", what.into()));
    }
}

/// `git ARGS` in `dir`: its output without the final newline, `None` on failure.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// Run every check from the current directory; print the report.
pub fn run() -> anyhow::Result<i32> {
    let here = std::env::current_dir()?;
    let mut r = Report::default();
    r.ok(format!("this is tscn-merge {}", env!("CARGO_PKG_VERSION")));
    match git(&here, &["rev-parse", "--show-toplevel"]) {
        None => r.problem(
            "not inside a git work tree",
            "run tscn-merge doctor in your project",
        ),
        Some(top) => {
            let top = PathBuf::from(top);
            check_driver(&mut r, &top);
            let shared = check_attributes(&mut r, &top);
            if !shared && check_committed(&mut r, &here, &top) {
                check_branches(&mut r, &top);
            }
            check_diff(&mut r, &top);
            show_fallbacks(&mut r, &top);
            check_uids(&mut r, &top);
        }
    }
    for l in &r.lines {
        io::print_line(l)?;
    }
    io::print_line(&match r.problems {
        0 => "all good".to_string(),
        n => format!("{n} problem(s)"),
    })?;
    Ok(i32::from(r.problems > 0))
}

/// The binary a driver command starts: the word after `exe=` (shell-unquoted), `None`
/// for the bare name (found on `PATH`).
fn driver_exe(driver: &str) -> Option<PathBuf> {
    let rest = driver.split("; exe=").nth(1)?;
    let word = match rest.strip_prefix('\'') {
        None => rest.split(';').next()?.to_string(),
        Some(mut q) => {
            let mut out = String::new();
            loop {
                let end = q.find('\'')?;
                out.push_str(&q[..end]);
                q = &q[end + 1..];
                match q.strip_prefix("\\''") {
                    Some(more) => {
                        out.push('\'');
                        q = more;
                    }
                    None => break out,
                }
            }
        }
    };
    (word != DRIVER).then(|| PathBuf::from(word))
}

/// The version a binary prints (`tscn-merge 1.2.3` -> `1.2.3`).
fn version_of(exe: &Path) -> Option<String> {
    let out = std::process::Command::new(exe)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.split_whitespace().nth(1)?.to_string())
}

/// The merge driver: configured, its binary there, its version and command current.
fn check_driver(r: &mut Report, top: &Path) {
    let Some(driver) = git(top, &["config", "--get", "merge.tscn-merge.driver"]) else {
        r.problem(
            "no merge driver configured here: git merges scenes line by line",
            "tscn-merge install",
        );
        return;
    };
    let on_path = first_on_path();
    let exe = match (driver_exe(&driver), &on_path) {
        (Some(p), _) if p.is_file() => {
            r.ok(format!("the merge driver runs {}", p.display()));
            p
        }
        (recorded, Some(found)) => {
            let what = recorded.map_or("the bare name".into(), |p| p.display().to_string());
            r.problem(
                format!("the driver's binary ({what}) is not there; it falls back to the tscn-merge on PATH ({}), which a GUI client's PATH may lack", found.display()),
                "tscn-merge install (records this binary's path)",
            );
            found.clone()
        }
        (recorded, None) => {
            let what = recorded.map_or("tscn-merge on PATH".into(), |p| p.display().to_string());
            r.problem(
                format!("the driver's binary ({what}) is missing: every merge of a scene falls back to git's line merge"),
                "install tscn-merge again, then run tscn-merge install with it",
            );
            return;
        }
    };
    let mine = env!("CARGO_PKG_VERSION");
    match version_of(&exe) {
        Some(v) if v == mine => r.ok(format!("the driver's version is {v}, as this binary's")),
        Some(v) => r.problem(
            format!("the driver runs version {v}, this binary is {mine}"),
            "run `tscn-merge install` with the binary you mean git to use",
        ),
        None => r.problem(
            format!("{} does not answer --version", exe.display()),
            "install tscn-merge again, then run tscn-merge install",
        ),
    }
    if driver != merge_driver_command(&Exe::Absolute(exe.clone())) {
        r.problem(
            "the driver command is not what this version writes (an older install, or edited by hand): a missing binary may go unnoticed",
            "tscn-merge install",
        );
    }
}

/// The attributes files git reads, highest precedence first: `.git/info/attributes`,
/// the work tree's `.gitattributes`, the global file.
fn attribute_files(top: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let args = [
        "rev-parse",
        "--path-format=absolute",
        "--git-path",
        "info/attributes",
    ];
    files.extend(git(top, &args).map(PathBuf::from));
    files.push(top.join(".gitattributes"));
    let global = git(
        top,
        &["config", "--type=path", "--get", "core.attributesFile"],
    )
    .map(PathBuf::from)
    .or_else(|| {
        let xdg = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(xdg.join("git").join("attributes"))
    });
    files.extend(global);
    files
}

/// Whether `text` marks `pattern` with the driver.
fn marks(text: &str, pattern: &str) -> bool {
    text.lines().any(|l| {
        let mut words = l.split_whitespace();
        words.next() == Some(pattern) && words.any(|w| w == format!("merge={DRIVER}"))
    })
}

/// Each extension's `merge` attribute and where it comes from. Returns whether it
/// comes from a file every branch sees (`.git/info/attributes`, the global one).
fn check_attributes(r: &mut Report, top: &Path) -> bool {
    let files = attribute_files(top);
    let mut shared = true;
    for ext in ["tscn", "tres", "escn"] {
        let probe = format!("x.{ext}");
        let value = git(top, &["check-attr", "merge", "--", &probe])
            .and_then(|o| o.rsplit(": ").next().map(str::to_string))
            .unwrap_or_default();
        let pattern = format!("*.{ext}");
        let from = files
            .iter()
            .find(|f| std::fs::read_to_string(f).is_ok_and(|t| marks(&t, &pattern)));
        match (value.as_str(), from) {
            (DRIVER, Some(f)) => {
                shared &= f.file_name().is_some_and(|n| n != ".gitattributes");
                r.ok(format!("{pattern} merge={DRIVER}, from {}", f.display()));
            }
            (DRIVER, None) => r.ok(format!("{pattern} merge={DRIVER}")),
            ("unspecified", _) => {
                shared = false;
                r.problem(
                    format!("{pattern} has no merge attribute: git merges these files line by line"),
                    "tscn-merge install (then commit .gitattributes), or tscn-merge install --local",
                );
            }
            (other, _) => r.problem(
                format!("{pattern} has merge={other}, not {DRIVER} (a later attributes line wins)"),
                "remove that line, or run tscn-merge install --local (.git/info/attributes comes first)",
            ),
        }
    }
    shared
}

/// Whether `HEAD` holds the work tree's `.gitattributes` marking of scenes: a marking
/// nobody committed reaches no other branch and no clone, and that, not the branches, is
/// the problem to fix first. Returns whether the branches are worth checking.
fn check_committed(r: &mut Report, here: &Path, top: &Path) -> bool {
    let marked =
        std::fs::read_to_string(top.join(".gitattributes")).is_ok_and(|t| marks(&t, "*.tscn"));
    let committed = git(top, &["show", "HEAD:.gitattributes"]).is_some_and(|t| marks(&t, "*.tscn"));
    if !marked || committed {
        return true;
    }
    let up = git(here, &["rev-parse", "--show-cdup"]).unwrap_or_default();
    let path = crate::install::shell_quote(&format!("{up}.gitattributes"));
    r.problem(
        ".gitattributes marks scenes for tscn-merge but is not committed: no other branch and no clone has it, so their merges of scenes are line merges",
        &format!("git add {path} && git commit -m \"Merge Godot scenes with tscn-merge\""),
    );
    false
}

/// Local branches (the 10 most recent) whose `.gitattributes` lacks the driver: a
/// merge or cherry-pick on them merges scenes line by line.
fn check_branches(r: &mut Report, top: &Path) {
    let args = [
        "for-each-ref",
        "--count=10",
        "--sort=-committerdate",
        "--format=%(refname:short)",
        "refs/heads/",
    ];
    let branches = git(top, &args).unwrap_or_default();
    let lacking: Vec<&str> = branches
        .lines()
        .filter(|b| {
            let attrs = git(top, &["show", &format!("{b}:.gitattributes")]).unwrap_or_default();
            !marks(&attrs, "*.tscn")
        })
        .collect();
    match lacking.as_slice() {
        [] => r.ok("every recent local branch has the attributes in its .gitattributes"),
        some => r.problem(
            format!(
                "branch(es) without tscn-merge in their .gitattributes: {} (a merge or cherry-pick on them merges scenes line by line)",
                some.join(", ")
            ),
            "tscn-merge install --local (every branch of this clone, nothing to commit)",
        ),
    }
}

/// `install --diff`'s external diff and textconv (their links there), and the cache ref.
fn check_diff(r: &mut Report, top: &Path) {
    for key in ["command", "textconv"] {
        let Some(value) = git(top, &["config", "--get", &format!("diff.{DRIVER}.{key}")]) else {
            continue;
        };
        r.note(format!("diff.{DRIVER}.{key} is set (install --diff): git diff and git log -p show tscn-merge's view, which is no patch for git apply"));
        let program = Path::new(&value);
        let gone = program.is_absolute() && !program.exists();
        if gone {
            r.problem(
                format!(
                    "diff.{DRIVER}.{key} runs {value}, which is gone: git diff and git log -p die"
                ),
                "tscn-merge install --diff (or tscn-merge install to leave git diff to git)",
            );
        }
    }
    if git(top, &["rev-parse", "--verify", "-q", CACHE_REF]).is_some() {
        r.problem(
            format!("the textconv cache of an earlier version ({CACHE_REF}) shows as a commit in git log --all"),
            &format!("tscn-merge install (turns the cache off), then git update-ref -d {CACHE_REF}"),
        );
    }
}

/// The last fallbacks to the line merge, as notes (the cause is checked above).
fn show_fallbacks(r: &mut Report, top: &Path) {
    let recent = crate::explain::recent_fallbacks(top, 5);
    if recent.is_empty() {
        r.ok("no fallback to git's line merge recorded");
        return;
    }
    r.note("recent fallbacks to git's line merge (.git/tscn-merge/fallbacks):");
    for l in recent {
        r.note(format!("  {l}"));
    }
}

/// Scenes and resources of the work tree that refer to a file by a uid no file carries
/// while the path names a file with another uid (bounded; see `uid_refs::stale`).
fn check_uids(r: &mut Report, top: &Path) {
    use crate::uid_refs::stale;
    let (files, cut_short) = stale::read_work_tree(top, stale::LIMITS);
    let found = stale::find(&files, None);
    if found.is_empty() {
        r.ok("no scene refers to a file by a uid it no longer has");
        if cut_short {
            r.note("the uid search stopped at its bound (files, bytes or time); there may be stale references it did not read");
        }
        return;
    }
    let fix =
        "open the file in the Godot editor and save it (Godot writes the uid the file has now)";
    for (i, s) in found.iter().take(stale::MAX_LISTED).enumerate() {
        match i {
            0 => r.problem(s.sentence(), fix),
            _ => r.problem_more(s.sentence()),
        }
    }
    if found.len() > stale::MAX_LISTED {
        r.note(format!(
            "and {} more stale uid reference(s)",
            found.len() - stale::MAX_LISTED
        ));
    }
    if cut_short {
        r.note("the uid search stopped at its bound (files, bytes or time); there may be more");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_names_its_binary() {
        let cmd = merge_driver_command(&Exe::Absolute("/opt/my tools/it's/tscn-merge".into()));
        assert_eq!(
            driver_exe(&cmd),
            Some(PathBuf::from("/opt/my tools/it's/tscn-merge"))
        );
        let cmd = merge_driver_command(&Exe::Absolute("/usr/bin/tscn-merge".into()));
        assert_eq!(driver_exe(&cmd), Some(PathBuf::from("/usr/bin/tscn-merge")));
        assert_eq!(driver_exe(&merge_driver_command(&Exe::OnPath)), None);
        assert!(marks("*.tscn merge=tscn-merge diff=tscn-merge\n", "*.tscn"));
        assert!(!marks("*.tscn diff=tscn-merge\n", "*.tscn"));
    }
}
