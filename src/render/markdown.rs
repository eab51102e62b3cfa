//! Markdown: the summary a CI job posts on a pull request. A one-line count, a Mermaid
//! `flowchart` of the changed part of the node tree (added, removed and changed nodes
//! styled apart), then the changes as nested lists.

use super::text::{describe, subject_title, users_note};
use super::{groups, node_name, parent_path, Counts, FileDiff, FileStatus, Options};
use crate::diff::{Change, Detail, DiffReport, Subject};
use std::collections::BTreeMap;

/// Most nodes drawn in one diagram.
pub const MAX_DIAGRAM_NODES: usize = 60;
/// Most change lines listed per file.
pub const MAX_LINES: usize = 300;

/// An inline code span that survives backticks in the text.
pub fn code(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn mermaid_label(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

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
    let mut state: BTreeMap<String, (State, Option<String>)> = BTreeMap::new();
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
    if order.is_empty() {
        return None;
    }
    // Ancestors as context, so the picture is a connected tree.
    let mut all: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for p in &order {
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
    let omitted = all.len().saturating_sub(MAX_DIAGRAM_NODES);
    all.truncate(MAX_DIAGRAM_NODES);
    let mut out = String::from("```mermaid\nflowchart TD\n");
    let id = |p: &str| seen.get(p).map(|i| format!("n{i}"));
    for p in &all {
        let (st, ty) = &state[p];
        let mut label = mermaid_label(node_name(p));
        if let Some(t) = ty {
            label.push_str(&format!("<br/><small>{}</small>", mermaid_label(t)));
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
        if let Some(u) = users_note(subj) {
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
            1
        }
    }
}

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

fn body(report: &DiffReport, opts: &Options, out: &mut String) {
    if report.changes.is_empty() {
        out.push_str("No semantic changes.\n");
    } else {
        out.push_str(&format!("**{}**\n\n", Counts::of(report).sentence()));
        if let Some(m) = mermaid(report) {
            out.push_str(&m);
            out.push('\n');
        }
        list(report, out);
    }
    noise(report, opts, out);
}

/// Render one file's report under a `###` heading.
pub fn render(title: &str, report: &DiffReport, opts: &Options) -> String {
    let mut out = format!("### {}\n\n", code(title));
    body(report, opts, &mut out);
    out
}

/// Render a review: a table of files, then one section per file.
pub fn review(range: &str, files: &[FileDiff], opts: &Options) -> String {
    let mut out = format!("## Scene changes in {}\n\n", code(range));
    if files.is_empty() {
        out.push_str("No scene files changed.\n");
        return out;
    }
    out.push_str("| File | Status | Summary |\n|---|---|---|\n");
    for f in files {
        let summary = match &f.report {
            Ok(r) if r.changes.is_empty() => "no semantic changes".to_string(),
            Ok(r) => Counts::of(r).sentence(),
            Err(_) => "cannot be parsed".to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            code(&f.path),
            f.status.name(),
            summary
        ));
    }
    for f in files {
        out.push_str(&format!(
            "\n### {} ({})\n\n",
            code(&f.path),
            f.status.name()
        ));
        match &f.report {
            Err(e) => out.push_str(&format!("Cannot diff: {}\n", code(e))),
            Ok(r) if f.status != FileStatus::Modified && r.changes.len() > MAX_LINES => {
                out.push_str(&format!("**{}**\n", Counts::of(r).sentence()));
            }
            Ok(r) => body(r, opts, &mut out),
        }
    }
    out
}
