//! `diff` (two files, or git's external diff arguments) and `textconv`.
//!
//! Exit codes of `diff`: 0 no change, 1 changes, 2 error. As git's external diff
//! (`--git-external`) it exits 0 even with changes, as git expects, and falls back to a
//! line diff when a side cannot be parsed so `git diff` never breaks on a broken file.

use super::{use_color, DiffArgs, DiffFormat, TextconvArgs};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::Path;
use tscn_merge::diff::{diff_files, DiffReport};
use tscn_merge::model::Scene;
use tscn_merge::render::{json, markdown, text, Options};

/// Read and parse one side; `/dev/null` (git's name for a missing side) is `None`.
fn load(path: &Path) -> Result<Option<(Vec<u8>, Scene)>, String> {
    if path == Path::new("/dev/null") {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    match Scene::parse(&bytes) {
        Ok(s) => Ok(Some((bytes, s))),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn emit(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Render one report in the chosen format.
fn render_one(title: &str, report: &DiffReport, format: DiffFormat, opts: &Options) -> String {
    match format {
        DiffFormat::Text => text::render(report, opts),
        DiffFormat::Markdown => markdown::render(title, report, opts),
        DiffFormat::Json => json::to_string(&json::render(report)),
    }
}

/// `tscn-merge diff`.
pub fn run(a: &DiffArgs) -> Result<i32> {
    let opts = Options {
        color: use_color(a.color),
        show_noise: a.show_noise,
    };
    if a.git_external {
        return run_git_external(a, &opts);
    }
    if a.files.len() != 2 {
        bail!("diff takes two files, OLD and NEW (got {})", a.files.len());
    }
    let old = match load(&a.files[0]) {
        Ok(s) => s,
        Err(e) => bail!("{e}"),
    };
    let new = match load(&a.files[1]) {
        Ok(s) => s,
        Err(e) => bail!("{e}"),
    };
    let report = diff_files(old.as_ref().map(|x| &x.1), new.as_ref().map(|x| &x.1));
    let title = a.files[1].display().to_string();
    emit(&render_one(&title, &report, a.format, &opts))?;
    Ok(if report.is_empty() { 0 } else { 1 })
}

/// git's external diff: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE
/// (two more, the new path and a rename header, for renames).
fn run_git_external(a: &DiffArgs, opts: &Options) -> Result<i32> {
    if a.files.len() < 7 {
        bail!(
            "--git-external expects git's seven arguments, got {}",
            a.files.len()
        );
    }
    let path = a.files[0].display().to_string();
    let new_path = if a.files.len() >= 9 {
        a.files[7].display().to_string()
    } else {
        path.clone()
    };
    let header = if new_path != path {
        format!("diff --tscn-merge a/{path} b/{new_path}\n")
    } else {
        format!("diff --tscn-merge a/{path} b/{path}\n")
    };
    let header = if opts.color {
        format!("\x1b[1m{}\x1b[0m", header.trim_end()) + "\n"
    } else {
        header
    };
    let (old_file, new_file) = (&a.files[1], &a.files[4]);
    match (load(old_file), load(new_file)) {
        (Ok(old), Ok(new)) => {
            let report = diff_files(old.as_ref().map(|x| &x.1), new.as_ref().map(|x| &x.1));
            let body = render_one(&path, &report, a.format, opts);
            emit(&format!("{header}{body}"))?;
        }
        (o, n) => {
            // Fall back to a line diff, with the reason.
            let err = o.err().or(n.err()).unwrap_or_default();
            let read = |p: &Path| {
                if p == Path::new("/dev/null") {
                    Vec::new()
                } else {
                    std::fs::read(p).unwrap_or_default()
                }
            };
            let (ob, nb) = (read(old_file), read(new_file));
            let (os, ns) = (String::from_utf8_lossy(&ob), String::from_utf8_lossy(&nb));
            let udiff = similar::TextDiff::from_lines(os.as_ref(), ns.as_ref())
                .unified_diff()
                .header(&format!("a/{path}"), &format!("b/{new_path}"))
                .to_string();
            emit(&format!(
                "{header}note: semantic diff unavailable ({err}); line diff follows\n{udiff}"
            ))?;
        }
    }
    Ok(0)
}

/// `tscn-merge textconv FILE`: the projection on stdout. A file that does not parse is
/// printed unchanged (with a warning on stderr) so git can still show something.
pub fn run_textconv(a: &TextconvArgs) -> Result<i32> {
    let bytes = super::io::read(&a.file)?;
    match Scene::parse(&bytes) {
        Ok(sc) => emit(&tscn_merge::textconv::textconv(&sc))?,
        Err(e) => {
            eprintln!(
                "tscn-merge: warning: {}: {e}; shown as is",
                a.file.display()
            );
            super::io::write_stdout(&bytes)?;
        }
    }
    Ok(0)
}
