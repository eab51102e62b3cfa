//! Markdown: the summary a CI job posts on a pull request. A one-line count, a Mermaid
//! `flowchart` of the changed part of the node tree (added, removed and changed nodes
//! styled apart), then the changes as nested lists. A review is a table of files, then
//! one section per file, kept under a size budget (GitHub refuses comments over 65,536
//! characters) by leaving out whole sections, least changed first.
//!
//! Everything from the repository goes through [`escape`]: code spans, table cells and
//! Mermaid labels. Choosing and diffing the files is the caller's business.

use super::text::{describe, part_marker, subject_title};
use super::{groups, node_name, parent_path, Counts, FileDiff, FileStatus, Options};
use crate::diff::{Change, Detail, DiffReport, Subject};
use std::collections::BTreeMap;

/// Most nodes drawn in one diagram.
pub const MAX_DIAGRAM_NODES: usize = 60;
/// Most change lines listed per file.
pub const MAX_LINES: usize = 300;

pub use super::escape::code;
use super::escape::{self, cell};

/// State of a node in the diagram.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Added,
    Removed,
    Changed,
    Context,
}

/// Mermaid `flowchart` of changed nodes and their ancestors; `None` when no node changed.
pub fn mermaid(report: &DiffReport) -> Option<String> {
    mermaid_rooted(report, None)
}

/// What happened to each node, with its type: `path -> (state, type)`.
type NodeStates = BTreeMap<String, (State, Option<String>)>;

/// The nodes the report changes, with what happened to them (by their first change),
/// and their paths in the order of the report.
fn node_states(report: &DiffReport) -> (NodeStates, Vec<String>) {
    let mut state: NodeStates = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for g in groups(&report.changes) {
        if let Subject::Node {
            path, type_name, ..
        } = &g[0].subject
        {
            let s = match g[0].detail {
                Detail::Added { .. } => State::Added,
                Detail::Removed { .. } => State::Removed,
                _ => State::Changed,
            };
            if !state.contains_key(path) {
                order.push(path.clone());
            }
            state.insert(path.clone(), (s, type_name.clone()));
        }
    }
    (state, order)
}

/// The paths of `order` with their ancestors before them (each once, as context in
/// `state`), so the picture is a connected tree; and each path's place in that list.
fn with_ancestors(
    order: &[String],
    state: &mut NodeStates,
) -> (Vec<String>, BTreeMap<String, usize>) {
    let mut all: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for p in order {
        let mut chain = vec![p.clone()];
        let mut cur = p.as_str();
        while let Some(par) = parent_path(cur) {
            chain.push(par.to_string());
            cur = par;
        }
        for q in chain.into_iter().rev() {
            if !seen.contains_key(&q) {
                seen.insert(q.clone(), all.len());
                all.push(q.clone());
                state.entry(q).or_insert((State::Context, None));
            }
        }
    }
    (all, seen)
}

/// [`mermaid`] with the root node labelled by its name (`root`) instead of `(root)`.
pub fn mermaid_rooted(report: &DiffReport, root: Option<&str>) -> Option<String> {
    let (mut state, order) = node_states(report);
    if order.is_empty() {
        return None;
    }
    let (mut all, seen) = with_ancestors(&order, &mut state);
    let omitted = all.len().saturating_sub(MAX_DIAGRAM_NODES);
    all.truncate(MAX_DIAGRAM_NODES);
    let mut out = String::from("```mermaid\nflowchart TD\n");
    let id = |p: &str| seen.get(p).map(|i| format!("n{i}"));
    for p in &all {
        let Some((st, ty)) = state.get(p) else {
            continue;
        };
        let name = match (parent_path(p), root) {
            (None, Some(r)) => r,
            _ => node_name(p),
        };
        let mut label = escape::mermaid(name);
        if let Some(t) = ty {
            label.push_str(&format!("<br/><small>{}</small>", escape::mermaid(t)));
        }
        let nid = id(p).unwrap_or_default();
        out.push_str(&format!("  {nid}[\"{label}\"]\n"));
        if let Some(par) = parent_path(p) {
            if let Some(pid) = id(par).filter(|_| all.iter().any(|a| a == par)) {
                out.push_str(&format!("  {pid} --> {nid}\n"));
            }
        }
        let class = match st {
            State::Added => "added",
            State::Removed => "removed",
            State::Changed => "changed",
            State::Context => "context",
        };
        out.push_str(&format!("  class {nid} {class}\n"));
    }
    if omitted > 0 {
        out.push_str(&format!(
            "  more[\"… {omitted} more nodes\"]\n  class more context\n"
        ));
    }
    out.push_str("  classDef added fill:#dafbe1,stroke:#1a7f37,color:#1a7f37\n");
    out.push_str(
        "  classDef removed fill:#ffebe9,stroke:#cf222e,color:#cf222e,stroke-dasharray:4 3\n",
    );
    out.push_str("  classDef changed fill:#fff8c5,stroke:#9a6700,color:#6b4b00\n");
    out.push_str("  classDef context fill:#f6f8fa,stroke:#d0d7de,color:#57606a\n");
    out.push_str("```\n");
    Some(out)
}

fn list(report: &DiffReport, out: &mut String) {
    let mut lines = 0usize;
    let mut skipped = 0usize;
    for g in groups(&report.changes) {
        if lines >= MAX_LINES {
            skipped += g.len();
            continue;
        }
        let subj = &g[0].subject;
        let what = match g[0].detail {
            Detail::Added { .. } => " — **added**",
            Detail::Removed { .. } => " — **removed**",
            _ => "",
        };
        let mut line = format!("- {}{what}", code(&subject_title(subj)));
        if let Some(u) = users(subj) {
            line.push_str(&format!(" ({u})"));
        }
        out.push_str(&line);
        out.push('\n');
        lines += 1;
        for ch in g {
            lines += item(ch, out);
        }
    }
    if skipped > 0 {
        out.push_str(&format!(
            "- … and {skipped} more changes (see `tscn-merge diff`)\n"
        ));
    }
}

/// "used by `A`, `B` and 3 more": each user in its own code span.
fn users(s: &Subject) -> Option<String> {
    let users = match s {
        Subject::ExtResource { users, .. } | Subject::SubResource { users, .. } => users,
        _ => return None,
    };
    if users.is_empty() {
        return None;
    }
    let shown: Vec<String> = users
        .iter()
        .take(5)
        .map(|u| if u == "." { "`(root)`".into() } else { code(u) })
        .collect();
    let more = users.len().saturating_sub(5);
    let mut note = format!("used by {}", shown.join(", "));
    if more > 0 {
        note.push_str(&format!(" and {more} more"));
    }
    Some(note)
}

fn item(ch: &Change, out: &mut String) -> usize {
    match &ch.detail {
        Detail::Added { properties } | Detail::Removed { properties } => {
            for (k, v) in properties.iter().take(20) {
                out.push_str(&format!("  - {} = {}\n", code(k), code(v)));
            }
            if properties.len() > 20 {
                out.push_str(&format!(
                    "  - … {} more properties\n",
                    properties.len() - 20
                ));
            }
            properties.len().min(21)
        }
        d => {
            let (m, s) = describe(d);
            let sign = match m {
                '+' => "➕",
                '-' => "➖",
                _ => "✏️",
            };
            out.push_str(&format!("  - {sign} {}\n", code(&s)));
            1 + value_parts_md(d, out)
        }
    }
}

/// The parts of a changed value as a nested list (at most [`MAX_PARTS`]), then the
/// picture of a small tile map change in a code block. Returns the lines written.
fn value_parts_md(d: &Detail, out: &mut String) -> usize {
    let parts = super::value_parts(d);
    for p in parts.iter().take(MAX_PARTS) {
        out.push_str(&format!(
            "    - {}\n",
            code(&format!("{} {p}", part_marker(p)))
        ));
    }
    if parts.len() > MAX_PARTS {
        out.push_str(&format!("    - … {} more\n", parts.len() - MAX_PARTS));
    }
    let picture = super::value_picture(d);
    if !picture.is_empty() {
        out.push_str("\n    ```text\n");
        for row in picture {
            out.push_str(&format!("    {row}\n"));
        }
        out.push_str("    ```\n\n");
        out.push_str(&format!("    {PICTURE_KEY}\n"));
    }
    parts.len().min(MAX_PARTS + 1) + picture.len()
}

/// Parts of one value listed before "… N more".
const MAX_PARTS: usize = 20;

/// What the picture's characters mean.
const PICTURE_KEY: &str = "`+` painted, `-` erased, `~` changed, `#` unchanged, `.` empty";

fn noise(report: &DiffReport, opts: &Options, out: &mut String) {
    if report.noise.is_empty() {
        return;
    }
    if opts.show_noise {
        out.push_str(&format!(
            "\n<details><summary>Re-save noise ({})</summary>\n\n",
            report.noise.len()
        ));
        for n in &report.noise {
            out.push_str(&format!(
                "- {} {}: {}\n",
                n.kind.name(),
                code(&n.subject),
                code(&n.detail)
            ));
        }
        out.push_str("\n</details>\n");
    } else {
        out.push_str(&format!("\n_{} re-save difference(s) ignored (renamed ids, float spellings, load_steps, ...)._\n", report.noise.len()));
    }
}

fn body(report: &DiffReport, root: Option<&str>, opts: &Options, out: &mut String) {
    let report = &*super::shown(report, opts);
    if report.changes.is_empty() {
        out.push_str("No semantic changes.\n");
    } else {
        out.push_str(&format!("**{}**\n\n", Counts::of(report).sentence()));
        if let Some(m) = mermaid_rooted(report, root) {
            out.push_str(&m);
            out.push('\n');
        }
        list(report, out);
    }
    noise(report, opts, out);
}

/// Render one file's report under a `###` heading.
pub fn render(title: &str, report: &DiffReport, opts: &Options) -> String {
    render_rooted(title, report, None, opts)
}

/// [`render`] with the Mermaid root labelled by the root node's name, as `diff` knows it.
pub fn render_rooted(
    title: &str,
    report: &DiffReport,
    root: Option<&str>,
    opts: &Options,
) -> String {
    let mut out = format!("### {}\n\n", code(title));
    body(report, root, opts, &mut out);
    out
}

/// Default size budget of a review: under GitHub's 65,536-character comment limit with
/// room for a marker line.
pub const DEFAULT_MAX_BYTES: usize = 65_000;

/// Room kept for the note about what was left out.
const NOTE_ROOM: usize = 600;

const TABLE_HEAD: &str = "| File | Status | Summary |\n|---|---|---|\n";

/// Render a review without a size limit: a table of files, then one section per file.
pub fn review(range: &str, files: &[FileDiff], opts: &Options) -> String {
    review_within(range, files, opts, None)
}

/// Render a review in at most `max_bytes` bytes (when given and when the title and the
/// note fit): if everything does not fit, the table stays (rows cut from the end only
/// when it alone is too long), the most changed files are shown in full, and a closing
/// note says how many were left out. The files shown are the longest run of the most
/// changed ones that fits; only whole sections are left out, so no code block or
/// character is ever cut.
pub fn review_within(
    range: &str,
    files: &[FileDiff],
    opts: &Options,
    max_bytes: Option<usize>,
) -> String {
    let mut out = format!("## Scene changes in {}\n\n", code(range));
    if files.is_empty() {
        out.push_str("No scene files changed.\n");
        return out;
    }
    let rows: Vec<String> = files.iter().map(row).collect();
    let sections: Vec<String> = files.iter().map(|f| section(f, opts)).collect();
    let total = out.len() + TABLE_HEAD.len() + sum_len(&rows) + sum_len(&sections);
    let max = match max_bytes {
        Some(m) if total > m => m,
        _ => {
            out.push_str(TABLE_HEAD);
            rows.iter().chain(&sections).for_each(|s| out.push_str(s));
            return out;
        }
    };
    let mut room = max.saturating_sub(out.len() + TABLE_HEAD.len() + NOTE_ROOM + range.len());
    out.push_str(TABLE_HEAD);
    let mut rows_kept = 0;
    for r in &rows {
        if r.len() > room {
            break;
        }
        room -= r.len();
        out.push_str(r);
        rows_kept += 1;
    }
    if rows_kept < rows.len() {
        out.push_str(&format!(
            "| … | | {} more files |\n",
            rows.len() - rows_kept
        ));
    }
    let mut shown = 0;
    for i in most_changed_first(files) {
        let Some(s) = sections.get(i).filter(|s| s.len() <= room) else {
            break;
        };
        room -= s.len();
        out.push_str(s);
        shown += 1;
    }
    out.push_str(&left_out_note(
        range,
        files.len(),
        shown,
        rows.len() - rows_kept,
        max,
    ));
    out
}

fn sum_len(parts: &[String]) -> usize {
    parts.iter().map(String::len).sum()
}

/// Indexes of `files`, most changes first, then by path.
fn most_changed_first(files: &[FileDiff]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&files[a], &files[b]);
        fb.weight()
            .cmp(&fa.weight())
            .then_with(|| fa.path.cmp(&fb.path))
    });
    order
}

fn left_out_note(range: &str, files: usize, shown: usize, rows_cut: usize, max: usize) -> String {
    let mut note = format!(
        "\n---\n\n_Size limit ({max} characters): {shown} of {files} files shown in full, most changed first; the other {} are only summarised in the table",
        files - shown
    );
    if rows_cut > 0 {
        note.push_str(&format!(", {rows_cut} of them not even there"));
    }
    note.push_str(&format!(
        ". For everything, without the limit: {}._\n",
        code(&format!("tscn-merge review --max-bytes 0 {range}"))
    ));
    note
}

/// "added", or for a renamed file "moved from `old` (3 changes)"; `in_table` escapes
/// `|` for a table cell.
fn status(f: &FileDiff, in_table: bool) -> String {
    let Some((old, _)) = &f.renamed_from else {
        return f.status.name().to_string();
    };
    let verb = if parent_dir(old) == parent_dir(&f.path) {
        "renamed"
    } else {
        "moved"
    };
    let changes = match f.weight() {
        1 => "1 change".to_string(),
        n => format!("{n} changes"),
    };
    let old = if in_table { cell(old) } else { code(old) };
    format!("{verb} from {old} ({changes})")
}

/// A config file's changes: the count, then one line each in a fenced block (the texts
/// quote keys and values from the repository; nothing in a code block is obeyed).
fn settings_md(f: &FileDiff, settings: &[crate::config::diff::ConfigChange], out: &mut String) {
    out.push_str(&format!("**{}**\n", f.summary(code)));
    if settings.is_empty() {
        return;
    }
    let lines: Vec<String> = settings
        .iter()
        .map(|c| super::escape::visible(&c.text).into_owned())
        .collect();
    let longest = lines.iter().map(|l| longest_run(l, '`')).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    out.push_str(&format!("\n{fence}text\n{}\n{fence}\n", lines.join("\n")));
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    s.split(|x| x != c).map(str::len).max().unwrap_or(0)
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn row(f: &FileDiff) -> String {
    format!(
        "| {} | {} | {} |\n",
        cell(&f.path),
        status(f, true),
        f.summary(cell)
    )
}

/// The section of one file: a census for added and deleted files (an added file's tree
/// drawn, its contents folded), the full report otherwise.
fn section(f: &FileDiff, opts: &Options) -> String {
    let mut out = match f.renamed_from {
        Some(_) => format!("\n### {}: {}\n\n", code(&f.path), status(f, false)),
        None => format!("\n### {} ({})\n\n", code(&f.path), status(f, false)),
    };
    let root = f.root_name.as_deref();
    if let (Some(settings), Ok(_)) = (&f.settings, &f.report) {
        settings_md(f, settings, &mut out);
        return out;
    }
    match (&f.report, f.status) {
        (Err(e), _) => {
            let first = e.lines().next().unwrap_or_default();
            out.push_str(&format!("Cannot diff: {}\n", code(first)));
        }
        (Ok(r), FileStatus::Added) => {
            out.push_str(&format!("**{}**\n\n", f.summary(code)));
            if let Some(m) = mermaid_rooted(r, root) {
                out.push_str(&m);
            }
            out.push_str("\n<details><summary>Contents</summary>\n\n");
            list(r, &mut out);
            out.push_str("\n</details>\n");
        }
        (Ok(_), FileStatus::Deleted) => out.push_str(&format!("**{}**\n", f.summary(code))),
        (Ok(r), _) => body(r, root, opts, &mut out),
    }
    out
}
