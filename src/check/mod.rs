//! `tscn-merge check`: validate files. Exit 0 all valid, 1 one is structurally broken,
//! 2 one cannot be read or parsed, 3 (with `--roundtrip`) printing does not reproduce
//! a file's bytes (a bug of ours). The highest code wins.
//!
//! A directory named on the command line is walked: every scene or resource
//! (`.tscn`/`.tres`/`.escn`) and every Godot ConfigFile (`project.godot`,
//! `export_presets.cfg`, `override.cfg`, `plugin.cfg`, `*.import`, `*.uid`) under it, in
//! byte order of their paths, skipping `.git` and `.godot` and not following linked
//! folders. ConfigFiles are checked by `config.rs`'s rules, the rest as scenes.
//!
//! The text report spells out control, bidi and zero-width characters in file names
//! and messages (a node named `\x1b[2J` must not clear the terminal); `--json` keeps
//! them exact.

pub mod args;
mod config;

use crate::check::args::CheckArgs;
use crate::io::stderr_line;
use gdscene::check::{check, check_markers, is_broken, Problem, Severity};
use gdscene::model::Scene;
use gdscene::render::escape::visible;
use std::path::{Path, PathBuf};

/// What happened to one file.
enum Outcome {
    Valid(Vec<Problem>),
    Broken(Vec<Problem>),
    Unreadable(String),
    RoundtripMismatch,
}

fn check_file(bytes: &[u8], roundtrip: bool) -> Outcome {
    let markers = check_markers(bytes);
    let scene = match Scene::parse(bytes) {
        Ok(s) => s,
        Err(e) if !markers.is_empty() => {
            let _ = e;
            return Outcome::Broken(markers);
        }
        Err(e) => return Outcome::Unreadable(e.to_string()),
    };
    if roundtrip && scene.doc.print().as_bytes() != bytes {
        return Outcome::RoundtripMismatch;
    }
    let mut problems = markers;
    problems.extend(check(&scene));
    if is_broken(&problems) {
        Outcome::Broken(problems)
    } else {
        Outcome::Valid(problems)
    }
}

/// One file's text report: problems on stderr, `NAME: ok` on stdout when no error,
/// every name and message with its hidden characters spelled out.
fn print_human(name: &str, error: Option<&str>, problems: &[Problem]) -> anyhow::Result<()> {
    let name = visible(name);
    if let Some(e) = error {
        // Line by line: the caret line goes under the source line, not after a `\n`.
        let lines: Vec<_> = e.split('\n').map(visible).collect();
        stderr_line!("{name}:{}", lines.join("\n"));
    }
    for p in problems {
        let sev = if p.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        stderr_line!("{name}:{}: {sev}: {}", p.line, visible(&p.message));
    }
    if error.is_none() && !problems.iter().any(|p| p.severity == Severity::Error) {
        crate::io::print_line(&format!("{name}: ok"))?;
    }
    Ok(())
}

/// The files `check` reads for one argument: the file itself, or for a directory every
/// scene, resource and ConfigFile below it, sorted (so the report is the same on every
/// machine).
fn expand(arg: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !arg.is_dir() {
        return Ok(vec![arg.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(arg, &mut out)?;
    out.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    Ok(out)
}

/// Folders never walked: git's own, and the editor's cache (imported copies, uid cache).
const SKIPPED_DIRS: [&str; 2] = [".git", ".godot"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                walk(&path, out)?;
            }
        } else if !path.is_dir() && is_checked_name(&name.to_string_lossy()) {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether a file found in a walked folder is one `check` reads.
fn is_checked_name(name: &str) -> bool {
    crate::git::is_scene_path(name) || gdscene::config::ConfigKind::of_path(name).is_some()
}

/// (status, exit code, problems, error) of one file.
fn check_path(path: &Path, roundtrip: bool) -> config::Checked {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return ("error", 2, Vec::new(), Some(format!("cannot read: {e}"))),
    };
    if crate::git::paths::is_config_file(path) {
        return config::check_bytes(bytes, roundtrip); // project.godot, ...: issue 28
    }
    match check_file(&bytes, roundtrip) {
        Outcome::Valid(p) => ("valid", 0, p, None),
        Outcome::Broken(p) => ("broken", 1, p, None),
        Outcome::Unreadable(e) => ("error", 2, Vec::new(), Some(e)),
        Outcome::RoundtripMismatch => (
            "roundtrip-mismatch",
            3,
            Vec::new(),
            Some("printing the parsed file does not reproduce its bytes (a tscn-merge bug: please report it)".to_string()),
        ),
    }
}

/// Every file to check, directories expanded; a directory that cannot be read is an
/// error of its own (exit 2), one with nothing to check is said on stderr.
fn files_of(args: &CheckArgs) -> (Vec<PathBuf>, Vec<(String, String)>) {
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    for arg in &args.files {
        match expand(arg) {
            Ok(f) if f.is_empty() => stderr_line!(
                "{}: no scene, resource or Godot config file found",
                visible(&arg.display().to_string())
            ),
            Ok(f) => files.extend(f),
            Err(e) => errors.push((arg.display().to_string(), format!("cannot read: {e}"))),
        }
    }
    (files, errors)
}

/// Run `check` over every file (and every file under each directory).
pub fn run(args: &CheckArgs) -> anyhow::Result<i32> {
    let (files, dir_errors) = files_of(args);
    let mut code = 0;
    let mut report = Vec::new();
    let results = dir_errors
        .into_iter()
        .map(|(name, e)| (name, ("error", 2, Vec::new(), Some(e))))
        .chain(
            files
                .iter()
                .map(|p| (p.display().to_string(), check_path(p, args.roundtrip))),
        );
    for (name, (status, file_code, problems, error)) in results {
        code = code.max(file_code);
        if args.json {
            report.push(serde_json::json!({
                "file": name,
                "status": status,
                "error": error,
                "problems": problems.iter().map(|p| serde_json::json!({
                    "severity": if p.severity == Severity::Error { "error" } else { "warning" },
                    "line": p.line,
                    "message": p.message,
                })).collect::<Vec<_>>(),
            }));
        } else {
            print_human(&name, error.as_deref(), &problems)?;
        }
    }
    if args.json {
        let doc = serde_json::json!({ "schema": "tscn-merge/check", "version": 1, "files": report, "exit": code });
        crate::io::print_line(&serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(code)
}
