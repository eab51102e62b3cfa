//! Plain or coloured text: a tree of nodes in scene order with their changes under them,
//! then resources, connections, editables and the header. What `diff` prints by default
//! and what git shows through the external diff driver.
//!
//! Every line that carries repository text goes through `paint`, which spells out
//! control characters ([`escape::visible`]): a node named `\x1b[2J` cannot clear the
//! reader's terminal, and a name with a line break cannot forge a line.

use super::escape::{self, visible};
use super::value_parts;
use super::{depth, groups, Counts, FileDiff, FileStatus, Options};
use crate::diff::{Change, Delta, Detail, DiffReport, Subject};
use crate::grain::{ValueChange, ValueDiff};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// `s` with hidden characters spelled out, coloured when `on`.
fn paint(on: bool, code: &str, s: &str) -> String {
    let s = visible(s);
    if on {
        format!("{code}{s}{RESET}")
    } else {
        s.into_owned()
    }
}

fn opt(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("(none)")
}

/// One change as `(marker, text)`: `+`, `-` or `~` and a sentence. Shared with Markdown.
pub fn describe(d: &Detail) -> (char, String) {
    match d {
        Detail::Added { .. } => ('+', "added".into()),
        Detail::Removed { .. } => ('-', "removed".into()),
        Detail::Renamed { old, new } => ('~', format!("renamed: {old} -> {new}")),
        Detail::Moved {
            old_parent,
            new_parent,
        } => ('~', format!("moved: parent {old_parent} -> {new_parent}")),
        Detail::Reordered {
            old_index,
            new_index,
        } => (
            '~',
            format!("reordered: position {old_index} -> {new_index}"),
        ),
        Detail::Field { field, old, new } => match (old, new) {
            (None, Some(n)) => ('+', format!("{field} = {n}")),
            (Some(o), None) => ('-', format!("{field} = {o}")),
            _ => ('~', format!("{field}: {} -> {}", opt(old), opt(new))),
        },
        Detail::GroupAdded { group } => ('+', format!("group \"{group}\"")),
        Detail::GroupRemoved { group } => ('-', format!("group \"{group}\"")),
        Detail::PropertyAdded { key, value } => ('+', format!("{key} = {value}")),
        Detail::PropertyRemoved { key, value } => ('-', format!("{key} = {value}")),
        Detail::Folded { text, .. } => ('~', text.clone()),
        Detail::PropertyChanged {
            key,
            old,
            new,
            delta,
        } => {
            let mut s = format!("{key}: {old} -> {new}");
            match delta {
                Delta::Grain(g) => s = grain_headline(key, g),
                Delta::None => {}
                Delta::Transform { parts, .. } => s = format!("{key}: {}", parts.join(", ")),
                Delta::Components(c) => {
                    let parts: Vec<String> = c
                        .iter()
                        .map(|(n, a, b)| format!("{n}: {a} -> {b}"))
                        .collect();
                    s.push_str(&format!("  ({})", parts.join(", ")));
                }
                Delta::Packed {
                    old_len,
                    new_len,
                    changed,
                    ..
                } => {
                    if old_len == new_len {
                        s.push_str(&format!("  ({changed} of {new_len} elements changed)"));
                    } else {
                        s.push_str(&format!("  ({old_len} -> {new_len} elements, {changed} of the first {} changed)", old_len.min(new_len)));
                    }
                }
            }
            ('~', s)
        }
    }
}

/// `tile_data: 3 cells painted in (0, 0)-(2, 1)` when one part changed, else
/// `tile_data: 4 changes` with the parts listed below ([`super::value_parts`]).
fn grain_headline(key: &str, g: &ValueDiff) -> String {
    match g.changes.as_slice() {
        [one] => format!("{key}: {one}"),
        many => format!("{key}: {} changes", many.len()),
    }
}

/// `s` without the Markdown code spans' backticks (the config diff words its changes
/// for Markdown: `` autoload `Game` added ``): plain text has no Markdown syntax.
pub fn plain(s: &str) -> String {
    if s.matches('`').count().is_multiple_of(2) {
        s.replace('`', "")
    } else {
        s.to_string()
    }
}

/// The marker of one part of a value: `+` added or painted, `-` removed or erased, `~`.
pub fn part_marker(c: &ValueChange) -> char {
    match c.change {
        "added" | "painted" => '+',
        "removed" | "erased" => '-',
        _ => '~',
    }
}

/// Heading of a subject, without marker.
pub fn subject_title(s: &Subject) -> String {
    match s {
        Subject::Node {
            path,
            type_name,
            instance,
        } => {
            let what = match (type_name, instance) {
                (Some(t), _) => format!(" ({t})"),
                (None, Some(i)) => format!(" (instance of {i})"),
                (None, None) => String::new(),
            };
            format!("{}{what}", if path == "." { "(root)" } else { path })
        }
        Subject::MainResource { type_name } => {
            format!("resource ({})", type_name.as_deref().unwrap_or("?"))
        }
        Subject::ExtResource {
            path, type_name, ..
        } => format!("ext_resource {path} ({type_name})"),
        Subject::SubResource { id, type_name, .. } => format!(
            "sub_resource {} ({type_name})",
            crate::diff::sub_display(type_name, id)
        ),
        Subject::Connection {
            signal,
            from,
            to,
            method,
        } => format!("connection {signal}: {from} -> {to} :: {method}"),
        Subject::Editable { path } => format!("editable {path}"),
        Subject::Header => "header".into(),
    }
}

/// "used by A, B and 3 more" for resources.
pub fn users_note(s: &Subject) -> Option<String> {
    let users = match s {
        Subject::ExtResource { users, .. } | Subject::SubResource { users, .. } => users,
        _ => return None,
    };
    if users.is_empty() {
        return None;
    }
    let shown: Vec<&str> = users
        .iter()
        .take(5)
        .map(|u| if u == "." { "(root)" } else { u.as_str() })
        .collect();
    let more = users.len().saturating_sub(5);
    Some(if more > 0 {
        format!("used by {} and {more} more", shown.join(", "))
    } else {
        format!("used by {}", shown.join(", "))
    })
}

fn section_of(s: &Subject) -> &'static str {
    match s {
        Subject::Node { .. } => "Nodes",
        Subject::MainResource { .. }
        | Subject::ExtResource { .. }
        | Subject::SubResource { .. } => "Resources",
        Subject::Connection { .. } => "Connections",
        Subject::Editable { .. } => "Editables",
        Subject::Header => "Header",
    }
}

fn group_marker(g: &[Change]) -> char {
    match g[0].detail {
        Detail::Added { .. } => '+',
        Detail::Removed { .. } => '-',
        _ => '~',
    }
}

fn color_of(m: char) -> &'static str {
    match m {
        '+' => GREEN,
        '-' => RED,
        _ => YELLOW,
    }
}

/// A node's heading under its ancestors: its own name (the path is spelled by the lines
/// above it); anything else as [`subject_title`].
fn node_title(s: &Subject) -> String {
    match s {
        Subject::Node { path, .. } if path != "." => {
            let full = subject_title(s);
            let name = super::node_name(path);
            format!("{name}{}", &full[path.len()..])
        }
        _ => subject_title(s),
    }
}

/// Print the ancestors of the node at `path` that the lines above do not already show
/// (`open`: the chain of the last node printed), one dim line each at its depth, so a
/// changed node always reads under its parents' names (`(root)` / `Spawners` / `Cars`).
fn open_ancestors<'a>(path: &'a str, open: &mut Vec<&'a str>, c: bool, out: &mut String) {
    let mut chain = vec![path];
    let mut p = path;
    while let Some(parent) = super::parent_path(p) {
        chain.push(parent);
        p = parent;
    }
    chain.reverse(); // ".", "A", "A/B", ..., path
    let shared = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
    let end = chain.len() - 1; // the node itself is the caller's line
    for anc in &chain[shared.min(end)..end] {
        let indent = "  ".repeat(depth(anc) + 1);
        out.push_str(&format!(
            "{indent}{}\n",
            paint(c, DIM, super::node_name(anc))
        ));
    }
    *open = chain;
}

/// Render one file's report.
pub fn render(report: &DiffReport, opts: &Options) -> String {
    let report = &*super::shown(report, opts);
    let c = opts.color;
    let mut out = String::new();
    if report.changes.is_empty() {
        out.push_str("No semantic changes.");
        if !report.noise.is_empty() && !opts.show_noise {
            out.push_str(&format!(
                " ({} re-save differences hidden; --show-noise lists them)",
                report.noise.len()
            ));
        }
        out.push('\n');
    } else {
        out.push_str(&paint(c, BOLD, &Counts::of(report).sentence()));
        out.push('\n');
    }
    let mut section = "";
    let mut open: Vec<&str> = Vec::new();
    for g in groups(&report.changes) {
        let subj = &g[0].subject;
        let sec = section_of(subj);
        if sec != section {
            section = sec;
            out.push_str(&paint(c, BOLD, sec));
            out.push('\n');
        }
        let indent = match subj {
            Subject::Node { path, .. } => {
                open_ancestors(path, &mut open, c, &mut out);
                "  ".repeat(depth(path) + 1)
            }
            _ => "  ".to_string(),
        };
        let m = group_marker(g);
        let mut title = format!("{m} {}", node_title(subj));
        if let Some(u) = users_note(subj) {
            title.push_str(&format!(", {u}"));
        }
        out.push_str(&format!("{indent}{}\n", paint(c, color_of(m), &title)));
        for ch in g {
            match &ch.detail {
                Detail::Added { properties } | Detail::Removed { properties } => {
                    for (k, v) in properties {
                        out.push_str(&format!(
                            "{indent}    {}\n",
                            paint(c, DIM, &format!("{k} = {v}"))
                        ));
                    }
                }
                d => {
                    let (m, s) = describe(d);
                    out.push_str(&format!(
                        "{indent}    {}\n",
                        paint(c, color_of(m), &format!("{m} {s}"))
                    ));
                    for part in value_parts(d) {
                        let m = part_marker(part);
                        let line = paint(c, color_of(m), &format!("{m} {part}"));
                        out.push_str(&format!("{indent}        {line}\n"));
                    }
                }
            }
        }
    }
    if opts.show_noise {
        noise_lines(report, c, &mut out);
    }
    out
}

/// The re-save noise, when there is any (`--show-noise`).
fn noise_lines(report: &DiffReport, c: bool, out: &mut String) {
    if report.noise.is_empty() {
        return;
    }
    out.push_str(&paint(
        c,
        BOLD,
        &format!("Re-save noise ({})", report.noise.len()),
    ));
    out.push('\n');
    for n in &report.noise {
        out.push_str(&format!(
            "  {}\n",
            paint(
                c,
                DIM,
                &format!("{} {}: {}", n.kind.name(), n.subject, n.detail)
            )
        ));
    }
}

/// Render a review: every file with a heading line.
pub fn review(range: &str, files: &[FileDiff], opts: &Options) -> String {
    let mut out = String::new();
    let range = visible(range);
    if files.is_empty() {
        out.push_str(&format!("No scene files changed in {range}.\n"));
        return out;
    }
    out.push_str(&format!("{} changed in {range}\n", counted(files)));
    for f in files {
        out.push('\n');
        out.push_str(&paint(opts.color, BOLD, &heading(f)));
        out.push('\n');
        file_body(f, opts, &mut out);
    }
    out
}

/// "3 scene files", "2 scene files and 1 config file", "1 config file": what a review
/// lists (Godot's config files, `project.godot`, `*.import`, ..., apart from scenes).
fn counted(files: &[FileDiff]) -> String {
    let configs = files
        .iter()
        .filter(|f| crate::config::ConfigKind::of_path(&f.path).is_some())
        .count();
    let count = |n: usize, what: &str| format!("{n} {what} file{}", if n == 1 { "" } else { "s" });
    match (files.len() - configs, configs) {
        (scenes, 0) => count(scenes, "scene"),
        (0, configs) => count(configs, "config"),
        (scenes, configs) => format!(
            "{} and {}",
            count(scenes, "scene"),
            count(configs, "config")
        ),
    }
}

/// "=== path (added)", or "=== new (moved from old, 3 changes)".
fn heading(f: &FileDiff) -> String {
    match &f.renamed_from {
        Some((old, _)) => {
            let n = f.weight();
            let s = if n == 1 { "" } else { "s" };
            format!("=== {} (moved from {old}, {n} change{s})", f.path)
        }
        None => format!("=== {} ({})", f.path, f.status.name()),
    }
}

fn file_body(f: &FileDiff, opts: &Options, out: &mut String) {
    let quote = |s: &str| visible(s).into_owned();
    if let (Some(settings), Ok(_)) = (&f.settings, &f.report) {
        out.push_str(&format!("{}\n", f.summary(quote)));
        for c in settings {
            out.push_str(&format!("  {}\n", visible(&plain(&c.text))));
        }
        return;
    }
    match &f.report {
        Ok(r) if matches!(f.status, FileStatus::Added | FileStatus::Deleted) => {
            out.push_str(&format!("{}\n", f.summary(quote)));
            if f.status == FileStatus::Added {
                for l in render(r, opts).lines().skip(1) {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        Ok(r) => out.push_str(&render(r, opts)),
        Err(e) => {
            out.push_str("cannot diff: ");
            for l in e.lines() {
                out.push_str(&escape::visible(l));
                out.push('\n');
            }
        }
    }
}
