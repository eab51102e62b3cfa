//! `tscn-merge check`: validate files. Exit 0 all valid, 1 one is structurally broken or
//! does not parse (or, with `--godot`, does not load in the engine), 2 one cannot be read
//! (or the Godot binary cannot run); with `--roundtrip`, a file whose printing does not
//! reproduce its bytes (a bug of ours) is a problem too, exit 1. The highest code wins.
//!
//! A directory named on the command line is walked: every scene or resource
//! (`.tscn`/`.tres`/`.escn`) and every Godot ConfigFile (`project.godot`,
//! `export_presets.cfg`, `override.cfg`, `plugin.cfg`, `*.import`, `*.uid`) under it, in
//! byte order of their paths, skipping `.git` and `.godot` and not following linked
//! folders. ConfigFiles are checked by `config.rs`'s rules, the rest as scenes.
//!
//! The text report is on standard output: each problem a line (`FILE:LINE: error: ...`,
//! a parse error `FILE:LINE:COLUMN: expected ...` and the line with a caret), `FILE: ok`
//! for a file without (not under `-q`), then one summary line (`2,363 files: 2
//! problems`). No path: `.`. `--godot` hands the files to the user's Godot as well
//! (`godot.rs`) and adds what it said per file. The text report spells out control, bidi and zero-width characters in file names
//! and messages (a node named `\x1b[2J` must not clear the terminal); `--json` keeps
//! them exact.

pub mod args;
mod config;
pub mod godot;
mod report;

use crate::check::args::{is_checked_name, CheckArgs};
use crate::io::stderr_line;
use gdscene::check::{check, check_markers, is_broken, Problem};
use gdscene::model::Scene;
use gdscene::render::escape::visible;
use std::path::{Path, PathBuf};

/// What happened to one file.
enum Outcome {
    Valid(Vec<Problem>),
    Broken(Vec<Problem>),
    /// The file does not parse: the error, located.
    Unparsable(String),
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
        Err(e) => return Outcome::Unparsable(e.to_string()),
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
        Outcome::Unparsable(e) => ("unparsable", 1, Vec::new(), Some(e)),
        Outcome::RoundtripMismatch => (
            "roundtrip-mismatch",
            1,
            Vec::new(),
            Some("printing the parsed file does not reproduce its bytes (a tscn-merge bug: please report it)".to_string()),
        ),
    }
}

/// Every file to check, directories expanded; a directory that cannot be read is an
/// error of its own (exit 2), one with nothing to check is said on stderr.
fn files_of(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<(String, String)>) {
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    for arg in paths {
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
    let (binary, paths) = args.binary_and_paths();
    let engine = binary.as_deref().map(godot::Godot::find).transpose()?;
    let (files, dir_errors) = files_of(&paths);
    let mut results: Vec<report::FileResult> = dir_errors
        .into_iter()
        .map(|(name, e)| report::FileResult::new(name, None, ("error", 2, Vec::new(), Some(e))))
        .collect();
    let implicit = args.files.is_empty()
        && binary.as_deref().map(|b| b.as_os_str()) == args.godot.godot.as_deref();
    for p in &files {
        let checked = check_path(p, args.roundtrip);
        // `check` alone walks `.`: names as `git status` gives them, without `./`.
        let shown = if implicit {
            p.strip_prefix(".").unwrap_or(p)
        } else {
            p
        };
        let name = shown.display().to_string();
        results.push(report::FileResult::new(name, Some(p.clone()), checked));
    }
    if let Some(g) = &engine {
        load_in_godot(g, &mut results)?;
    }
    report::print(args, engine.as_ref(), &results)
}

/// The engine's verdict on every scene, resource and ConfigFile (a `.uid` sidecar is one
/// line, not a ConfigFile) that could be read, in one batch.
fn load_in_godot(g: &godot::Godot, results: &mut [report::FileResult]) -> anyhow::Result<()> {
    let mut jobs = Vec::new();
    let mut at = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let Some(path) = &r.path else { continue };
        let name = path.to_string_lossy();
        if gdscene::config::ConfigKind::of_path(&name) == Some(gdscene::config::ConfigKind::Uid) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(path) {
            jobs.push(godot::job_on_disk(path, bytes));
            at.push(i);
        }
    }
    for (i, v) in at.into_iter().zip(g.load(&jobs)?) {
        results[i].godot = Some(v);
    }
    Ok(())
}
