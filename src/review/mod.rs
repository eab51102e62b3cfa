//! `review REV_RANGE`: one summary of every scene file changed over a range (added,
//! deleted and renamed files included), and of Godot's config files (key by key), Markdown by default: the comment a CI job posts
//! on a pull request, kept under `--max-bytes`. Progress goes to stderr only when it is a
//! terminal, and never with `-q`.
//!
//! Names the stale uid references the range leaves (`uids`: a file referring to another
//! by a uid it no longer has, as a merge that kept ours' regenerated header uid leaves).
//! Decides which files to show and how they pair up (`renames`); reading trees is
//! `git.rs`'s, diffing the library's, the page layout the renderers'.

pub mod args;

mod pictures;
mod renames;
mod uids;

use crate::diff::args::DiffFormat;
use crate::io::color::use_color;
use crate::io::deadline;
use crate::io::stderr_line;
use crate::review::args::ReviewArgs;
use anyhow::Result;
use gdscene::config::diff::diff_config;
use gdscene::config::{ConfigKind, Document};
use gdscene::diff::diff_files;
use gdscene::model::Scene;
use gdscene::render::escape::visible;
use gdscene::render::{json, markdown, text, FileDiff, FileStatus, Options};
use renames::Paired;
use std::io::{IsTerminal, Write};

fn parse(path: &str, side: &str, bytes: &Option<Vec<u8>>) -> Result<Option<Scene>, String> {
    match bytes {
        None => Ok(None),
        Some(b) => Scene::parse(b)
            .map(Some)
            .map_err(|e| format!("{path} ({side}): {e}")),
    }
}

/// Diff every changed file of the range, renames paired; each file's diff within
/// `secs` seconds, else listed as not diffed.
pub fn collect(
    repo: &gix::Repository,
    range: &str,
    progress: bool,
    secs: f64,
) -> Result<Vec<FileDiff>> {
    let changes = renames::detect(crate::git::changed_files(repo, range, is_reviewed)?);
    let total = changes.len();
    let mut out = Vec::with_capacity(total);
    for (i, c) in changes.into_iter().enumerate() {
        if progress {
            crate::io::write_stderr(&format!(
                "\rtscn-merge review: {}/{} {}\x1b[K",
                i + 1,
                total,
                visible(&c.path)
            ));
        }
        out.push(diff_within(c, secs));
    }
    if progress && total > 0 {
        crate::io::write_stderr("\n");
    }
    Ok(out)
}

fn status_of(c: &Paired) -> FileStatus {
    match (&c.old, &c.new) {
        _ if c.renamed_from.is_some() => FileStatus::Renamed,
        (None, _) => FileStatus::Added,
        (_, None) => FileStatus::Deleted,
        _ => FileStatus::Modified,
    }
}

/// [`diff_one`] within `secs` seconds; past them the file is listed with why it was
/// not diffed (a scene whose nodes were all replaced can take long to pair).
fn diff_within(c: Paired, secs: f64) -> FileDiff {
    let (path, status, renamed_from) = (c.path.clone(), status_of(&c), c.renamed_from.clone());
    deadline::within(secs, move || diff_one(c)).unwrap_or_else(|| FileDiff {
        report: Err(format!(
            "{path}: semantic diff unavailable ({}); see git diff for its lines",
            deadline::reason(secs)
        )),
        path,
        status,
        renamed_from,
        root_name: None,
        settings: None,
    })
}

/// The files a review shows: scenes and resources, and Godot's config files
/// (`project.godot`, `export_presets.cfg`, `override.cfg`, `plugin.cfg`, `*.import`,
/// `*.uid`), whose key-level changes it lists.
fn is_reviewed(path: &str) -> bool {
    crate::git::is_scene_path(path) || ConfigKind::of_path(path).is_some()
}

/// A config file's side, parsed (`None`: absent).
fn parse_config(
    path: &str,
    side: &str,
    bytes: &Option<Vec<u8>>,
) -> Result<Option<Document>, String> {
    let Some(b) = bytes else { return Ok(None) };
    let text =
        std::str::from_utf8(b).map_err(|_| format!("{path} ({side}): 1:1: expected UTF-8 text"))?;
    Document::parse(text)
        .map(Some)
        .map_err(|e| format!("{path} ({side}): {e}"))
}

/// A config file's entry: its key-level changes.
fn diff_config_file(c: Paired) -> FileDiff {
    let status = status_of(&c);
    let old_path = c.renamed_from.as_ref().map_or(c.path.as_str(), |(p, _)| p);
    let (old, new) = (
        parse_config(old_path, "old", &c.old),
        parse_config(&c.path, "new", &c.new),
    );
    let (report, settings) = match (old, new) {
        (Ok(o), Ok(n)) => (
            Ok(Default::default()),
            Some(diff_config(o.as_ref(), n.as_ref())),
        ),
        (Err(e), _) | (_, Err(e)) => (Err(e), None),
    };
    FileDiff {
        path: c.path,
        status,
        renamed_from: c.renamed_from,
        root_name: None,
        report,
        settings,
    }
}

fn diff_one(c: Paired) -> FileDiff {
    if ConfigKind::of_path(&c.path).is_some() {
        return diff_config_file(c);
    }
    let status = status_of(&c);
    let old_path = c.renamed_from.as_ref().map_or(c.path.as_str(), |(p, _)| p);
    let (old, new) = (
        parse(old_path, "old", &c.old),
        parse(&c.path, "new", &c.new),
    );
    let root_name = [&new, &old].into_iter().find_map(|s| match s {
        Ok(Some(s)) => s.node_by_path(".").map(|n| n.name.to_string()),
        _ => None,
    });
    let report = match (old, new) {
        (Ok(o), Ok(n)) => Ok(diff_files(o.as_ref(), n.as_ref())),
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    FileDiff {
        path: c.path,
        status,
        renamed_from: c.renamed_from,
        root_name,
        report,
        settings: None,
    }
}

/// `tscn-merge review`.
pub fn run(a: &ReviewArgs) -> Result<i32> {
    let repo = crate::git::open_repo(&a.repo)?;
    let progress = !a.quiet && std::io::stderr().is_terminal();
    if progress {
        let commits = crate::git::commits_in_range(&repo, &a.range)?;
        stderr_line!(
            "tscn-merge review: {} commit{} in {}",
            commits,
            if commits == 1 { "" } else { "s" },
            visible(&a.range)
        );
    }
    let files = collect(&repo, &a.range, progress, deadline::limit(a.timeout))?;
    let opts = Options {
        color: use_color(a.color),
        show_noise: a.show_noise,
        show_state: a.show_state,
    };
    let max = (a.max_bytes > 0).then_some(a.max_bytes);
    let stale = uids::find(&repo, &a.range, &files)?;
    let s = match a.format {
        DiffFormat::Markdown => {
            let block = stale.markdown();
            let room = max.map(|m| m.saturating_sub(block.len()));
            let page = markdown::review_within(&a.range, &files, &opts, room);
            uids::Found::put_in_markdown(&block, page)
        }
        DiffFormat::Text => stale.put_in_text(text::review(&a.range, &files, &opts)),
        DiffFormat::Json => json::to_string(&stale.put_in_json(json::review(&a.range, &files))),
        DiffFormat::Html => {
            let secs = deadline::limit(a.timeout).min(pictures::SECS_PER_FILE);
            let drawn = pictures::draw_all(&repo, &a.range, &files, secs)?;
            stale.put_in_html(gdscene::render::html::review_pictured(
                &a.range, &files, &drawn,
            ))
        }
    };
    if let (DiffFormat::Markdown, Some(m)) = (a.format, max) {
        warn_over_limit(m, s.len());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(0),
    }
}

/// A Markdown review longer than `--max-bytes` is the smallest one (the heading, the
/// table's head and the note on what was left out): say so rather than break the limit
/// silently.
fn warn_over_limit(max: usize, len: usize) {
    if len > max {
        stderr_line!(
            "tscn-merge review: warning: --max-bytes {max} is below the smallest review of this range ({len} bytes, printed); use --max-bytes {len} or more"
        );
    }
}
