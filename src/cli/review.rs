//! `review REV_RANGE`: one summary of every scene file changed over a range (added and
//! deleted files included), Markdown by default: the comment a CI job posts on a pull
//! request. Progress goes to stderr when it is a terminal or the range is long.

use super::{use_color, DiffFormat, ReviewArgs};
use anyhow::Result;
use std::io::{IsTerminal, Write};
use tscn_merge::diff::diff_files;
use tscn_merge::model::Scene;
use tscn_merge::render::{json, markdown, text, FileDiff, FileStatus, Options};

/// Ranges longer than this report progress even when stderr is not a terminal.
const LONG_RANGE: usize = 50;

fn parse(path: &str, side: &str, bytes: &Option<Vec<u8>>) -> Result<Option<Scene>, String> {
    match bytes {
        None => Ok(None),
        Some(b) => Scene::parse(b)
            .map(Some)
            .map_err(|e| format!("{path} ({side}): {e}")),
    }
}

/// Diff every changed file of the range.
pub fn collect(repo: &gix::Repository, range: &str, progress: bool) -> Result<Vec<FileDiff>> {
    let changes = super::git::changed_scene_files(repo, range)?;
    let total = changes.len();
    let mut out = Vec::with_capacity(total);
    for (i, c) in changes.into_iter().enumerate() {
        if progress {
            eprint!("\rtscn-merge review: {}/{} {}\x1b[K", i + 1, total, c.path);
        }
        let status = match (&c.old, &c.new) {
            (None, _) => FileStatus::Added,
            (_, None) => FileStatus::Deleted,
            _ => FileStatus::Modified,
        };
        let report = match (parse(&c.path, "old", &c.old), parse(&c.path, "new", &c.new)) {
            (Ok(o), Ok(n)) => Ok(diff_files(o.as_ref(), n.as_ref())),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        out.push(FileDiff {
            path: c.path,
            status,
            report,
        });
    }
    if progress && total > 0 {
        eprintln!();
    }
    Ok(out)
}

/// `tscn-merge review`.
pub fn run(a: &ReviewArgs) -> Result<i32> {
    let repo = super::git::open_repo(&a.repo)?;
    let commits = super::git::commits_in_range(&repo, &a.range)?;
    let progress = std::io::stderr().is_terminal() || commits > LONG_RANGE;
    if progress {
        eprintln!(
            "tscn-merge review: {} commit{} in {}",
            commits,
            if commits == 1 { "" } else { "s" },
            a.range
        );
    }
    let files = collect(&repo, &a.range, progress)?;
    let opts = Options {
        color: use_color(a.color),
        show_noise: a.show_noise,
    };
    let s = match a.format {
        DiffFormat::Markdown => markdown::review(&a.range, &files, &opts),
        DiffFormat::Text => text::review(&a.range, &files, &opts),
        DiffFormat::Json => json::to_string(&json::review(&a.range, &files)),
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}
