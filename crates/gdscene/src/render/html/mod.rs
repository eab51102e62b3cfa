//! HTML: one self-contained page (inline CSS, no script, nothing from the network) for
//! `diff --format html` and `review --format html`. Per file: the tree of changed nodes
//! (with the ancestors that connect them), then each subject's changes with before and
//! after side by side, tile map cells as a picture and animation keys on a time line
//! ([`value`]). Every piece of repository text is escaped with [`escape`].
//!
//! Pictures of the scene before and after ([`crate::render::picture`]) go at the top of
//! a file's section when the caller drew them ([`scene`] lays them out). Choosing and
//! diffing the files is the caller's business; so is writing the page.

pub mod scene;
pub mod value;

use super::text::{describe, part_marker, subject_title};
use super::{groups, node_name, parent_path, value_parts, value_picture, Counts, FileDiff};
use crate::diff::{Change, Delta, Detail, DiffReport, Subject};
use crate::render::picture::Pictures;
use std::collections::BTreeMap;

/// `s` safe in HTML text and in quoted attribute values.
pub fn escape(s: &str) -> String {
    crate::render::escape::markup(s)
}

/// The page's style sheet, shared with the mergetool's page.
pub const CSS: &str = include_str!("page.css");

/// A whole page: `title` (escaped here) over `body` (HTML already).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// `s` escaped, each Markdown code span of it (`` `x` ``, as the config diff words its
/// changes) as `<code>`: no Markdown syntax reaches the page.
pub fn escape_code(s: &str) -> String {
    let mut out = String::new();
    for (k, part) in s.split('`').enumerate() {
        if k % 2 == 1 && s.matches('`').count().is_multiple_of(2) {
            out.push_str(&format!("<code>{}</code>", escape(part)));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// The page of one file's diff (`diff --format html`); `root` names the root node.
pub fn render(title: &str, report: &DiffReport, root: Option<&str>) -> String {
    render_pictured(title, report, root, None)
}

/// [`render`] with the pictures of the scene before and after.
pub fn render_pictured(
    title: &str,
    report: &DiffReport,
    root: Option<&str>,
    pictures: Option<&Pictures>,
) -> String {
    let mut body = format!("<h1>Scene changes in <code>{}</code></h1>\n", escape(title));
    if let Some(p) = pictures {
        body.push_str(&scene::block(p));
    }
    file_body(report, root, &mut body);
    page(&format!("tscn-merge diff: {title}"), &body)
}

/// The page of a review: a table of files, then one section per file.
pub fn review(range: &str, files: &[FileDiff]) -> String {
    review_pictured(range, files, &[])
}

/// [`review`] with each file's pictures (`pictures[i]` for `files[i]`; missing or `None`:
/// no picture).
pub fn review_pictured(range: &str, files: &[FileDiff], pictures: &[Option<Pictures>]) -> String {
    let mut body = format!("<h1>Scene changes in <code>{}</code></h1>\n", escape(range));
    if files.is_empty() {
        body.push_str("<p>No scene files changed.</p>\n");
        return page(&format!("tscn-merge review: {range}"), &body);
    }
    body.push_str(
        "<table class=\"files\">\n<tr><th>File</th><th>Status</th><th>Summary</th></tr>\n",
    );
    for (i, f) in files.iter().enumerate() {
        body.push_str(&format!(
            "<tr><td><a href=\"#file-{i}\"><code>{}</code></a></td><td>{}</td><td>{}</td></tr>\n",
            escape(&f.path),
            status(f),
            escape(&f.summary(str::to_string))
        ));
    }
    body.push_str("</table>\n");
    for (i, f) in files.iter().enumerate() {
        body.push_str(&format!(
            "<section class=\"file\" id=\"file-{i}\">\n<h2><code>{}</code> <small>{}</small></h2>\n",
            escape(&f.path),
            status(f)
        ));
        if let Some(Some(p)) = pictures.get(i) {
            body.push_str(&scene::block(p));
        }
        match &f.report {
            Ok(_) if f.settings.is_some() => {
                body.push_str(&format!(
                    "<p>{}</p>\n<ul>\n",
                    escape(&f.summary(str::to_string))
                ));
                for c in f.settings.iter().flatten() {
                    body.push_str(&format!("<li>{}</li>\n", escape_code(&c.text)));
                }
                body.push_str("</ul>\n");
            }
            Ok(r) => file_body(r, f.root_name.as_deref(), &mut body),
            Err(e) => body.push_str(&format!(
                "<p class=\"error\">Cannot diff: {}</p>\n",
                escape_code(e.lines().next().unwrap_or_default())
            )),
        }
        body.push_str("</section>\n");
    }
    page(&format!("tscn-merge review: {range}"), &body)
}

fn status(f: &FileDiff) -> String {
    match &f.renamed_from {
        Some((old, _)) => format!("renamed from <code>{}</code>", escape(old)),
        None => f.status.name().to_string(),
    }
}

/// The summary line, the tree and the changes of one report.
fn file_body(report: &DiffReport, root: Option<&str>, out: &mut String) {
    if report.changes.is_empty() {
        out.push_str("<p>No semantic changes.</p>\n");
        return;
    }
    out.push_str(&format!(
        "<p class=\"counts\">{}</p>\n",
        escape(&Counts::of(report).sentence())
    ));
    tree(report, root, out);
    for g in groups(&report.changes) {
        subject(g, out);
    }
    if !report.noise.is_empty() {
        out.push_str(&format!(
            "<p class=\"noise\">{} re-save difference(s) ignored (renamed ids, float spellings, load_steps, ...).</p>\n",
            report.noise.len()
        ));
    }
}

/// How a node of the tree changed.
fn node_state(d: &Detail) -> &'static str {
    match d {
        Detail::Added { .. } => "added",
        Detail::Removed { .. } => "removed",
        _ => "changed",
    }
}

/// The changed nodes and their ancestors as nested lists.
fn tree(report: &DiffReport, root: Option<&str>, out: &mut String) {
    let mut state: BTreeMap<String, &'static str> = BTreeMap::new();
    for g in groups(&report.changes) {
        if let Subject::Node { path, .. } = &g[0].subject {
            state.insert(path.clone(), node_state(&g[0].detail));
            let mut cur = path.as_str();
            while let Some(p) = parent_path(cur) {
                state.entry(p.to_string()).or_insert("context");
                cur = p;
            }
        }
    }
    if state.is_empty() {
        return;
    }
    out.push_str("<nav class=\"tree\" aria-label=\"changed nodes\"><ul>\n");
    tree_node(".", &state, root, out);
    out.push_str("</ul></nav>\n");
}

/// One node of [`tree`] and, nested, its children in `state`.
fn tree_node(
    path: &str,
    state: &BTreeMap<String, &'static str>,
    root: Option<&str>,
    out: &mut String,
) {
    let name = match root.filter(|_| path == ".") {
        Some(r) => r,
        None => node_name(path),
    };
    let st = state.get(path).copied().unwrap_or("context");
    out.push_str(&format!(
        "<li class=\"{st}\"><span class=\"node\">{}</span> <span class=\"state\">{}</span>",
        escape(name),
        if st == "context" { "" } else { st }
    ));
    let kids: Vec<&String> = state
        .keys()
        .filter(|k| parent_path(k) == Some(path))
        .collect();
    if !kids.is_empty() {
        out.push_str("<ul>");
        for c in kids {
            tree_node(c, state, root, out);
        }
        out.push_str("</ul>");
    }
    out.push_str("</li>\n");
}

/// One subject's changes: a heading, then a table of before and after.
fn subject(g: &[Change], out: &mut String) {
    let subj = &g[0].subject;
    let class = match g[0].detail {
        Detail::Added { .. } => "added",
        Detail::Removed { .. } => "removed",
        _ => "changed",
    };
    out.push_str(&format!(
        "<section class=\"subject {class}\">\n<h3>{}</h3>\n",
        escape(&subject_title(subj))
    ));
    if let Subject::ExtResource { users, .. } | Subject::SubResource { users, .. } = subj {
        if !users.is_empty() {
            let u: Vec<String> = users
                .iter()
                .map(|u| format!("<code>{}</code>", escape(u)))
                .collect();
            out.push_str(&format!(
                "<p class=\"users\">used by {}</p>\n",
                u.join(", ")
            ));
        }
    }
    out.push_str(
        "<table class=\"changes\">\n<tr><th>What</th><th>Before</th><th>After</th></tr>\n",
    );
    for ch in g {
        row(&ch.detail, out);
    }
    out.push_str("</table>\n</section>\n");
}

fn cell(v: Option<&str>) -> String {
    v.map_or_else(|| "<span class=\"none\">—</span>".to_string(), value::show)
}

fn tr(what: &str, before: Option<&str>, after: Option<&str>, out: &mut String) {
    out.push_str(&format!(
        "<tr><td>{}</td><td class=\"before\">{}</td><td class=\"after\">{}</td></tr>\n",
        escape(what),
        cell(before),
        cell(after)
    ));
}

/// The rows of one change (a part of a changed value on rows of its own).
fn row(d: &Detail, out: &mut String) {
    match d {
        Detail::Added { properties } => {
            for (k, v) in properties.iter().take(40) {
                tr(k, None, Some(v), out);
            }
        }
        Detail::Removed { properties } => {
            for (k, v) in properties.iter().take(40) {
                tr(k, Some(v), None, out);
            }
        }
        Detail::Renamed { old, new } => tr("name", Some(old), Some(new), out),
        Detail::Moved {
            old_parent,
            new_parent,
        } => tr("parent", Some(old_parent), Some(new_parent), out),
        Detail::Field { field, old, new } => tr(field, old.as_deref(), new.as_deref(), out),
        Detail::PropertyAdded { key, value } => tr(key, None, Some(value), out),
        Detail::PropertyRemoved { key, value } => tr(key, Some(value), None, out),
        Detail::PropertyChanged { key, old, new, .. } => {
            if parts_of(d).is_empty() {
                tr(key, Some(old), Some(new), out);
            } else {
                grain(key, d, out);
            }
        }
        d => {
            let (_, s) = describe(d);
            out.push_str(&format!("<tr><td colspan=\"3\">{}</td></tr>\n", escape(&s)));
        }
    }
}

/// The parts of a value changed part by part: every one, even a single one (the text
/// and Markdown say a single part in their headline; a table row would otherwise show
/// the whole value twice, "PackedByteArray(218 elements)" on both sides).
fn parts_of(d: &Detail) -> &[crate::grain::ValueChange] {
    match d {
        Detail::PropertyChanged {
            delta: Delta::Grain(g),
            ..
        } => &g.changes,
        _ => value_parts(d),
    }
}

/// A value changed part by part: the parts, then the picture or the time line.
fn grain(key: &str, d: &Detail, out: &mut String) {
    let parts = parts_of(d);
    out.push_str(&format!(
        "<tr><td colspan=\"3\"><strong>{}</strong>: {}<ul class=\"parts\">",
        escape(key),
        if parts.len() == 1 {
            "1 change".to_string()
        } else {
            format!("{} changes", parts.len())
        }
    ));
    for p in parts.iter().take(40) {
        if p.part == "cells" {
            // as the text says it: "895 cells erased in (0, 0)-(39, 22)"
            out.push_str(&format!(
                "<li class=\"{}\"><span class=\"mark\">{}</span> {}</li>",
                p.change,
                part_marker(p),
                escape(&p.to_string())
            ));
            continue;
        }
        out.push_str(&format!(
            "<li class=\"{}\"><span class=\"mark\">{}</span> {} {}</li>",
            p.change,
            part_marker(p),
            escape(&p.at),
            match (&p.old, &p.new) {
                (Some(a), Some(b)) => format!("{} → {}", value::show(a), value::show(b)),
                (None, Some(b)) => format!("{} {}", p.change, value::show(b)),
                (Some(a), None) => format!("{} {}", p.change, value::show(a)),
                (None, None) => format!("{} ({})", p.change, p.count),
            }
        ));
    }
    out.push_str("</ul>");
    out.push_str(&value::picture(value_picture(d)));
    out.push_str(&value::timeline(parts));
    out.push_str("</td></tr>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scene;

    fn scene(extra: &str) -> Scene {
        let text = format!(
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n\
             [node name=\"<b>x</b>\" type=\"Sprite2D\" parent=\".\"]\n{extra}"
        );
        Scene::parse(text.as_bytes()).expect("parses")
    }

    #[test]
    fn names_are_escaped_and_values_drawn() {
        let (a, b) = (
            scene("modulate = Color(1, 1, 1, 1)\n"),
            scene("modulate = Color(1, 0, 0, 1)\n"),
        );
        let report = crate::diff::diff(&a, &b);
        let page = render("a<b>.tscn", &report, Some("Root"));
        assert!(!page.contains("<b>x</b>"), "{page}");
        assert!(page.contains("&lt;b&gt;x&lt;/b&gt;"));
        assert!(page.contains("a&lt;b&gt;.tscn"));
        assert!(page.contains("class=\"swatch\""));
        assert!(!page.contains("<script"));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }
}
