//! Renderers of a [`DiffReport`]: a coloured text tree, a review-ready Markdown summary
//! with a Mermaid diagram, and the versioned JSON document (`docs/diff-json-schema.json`).
//! Each renders one file (`diff`) or several (`review`). Pure: they return strings.

pub mod escape;
pub mod html;
pub mod json;
pub mod markdown;
pub mod picture;
pub mod text;

use crate::diff::{Change, Delta, Detail, DiffReport, Subject};

/// What every renderer needs to know.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// ANSI colours (text only).
    pub color: bool,
    /// Also list re-save noise.
    pub show_noise: bool,
    /// List each saved-state change (every bone pose of a Skeleton3D saved in another
    /// pose) instead of one line per node ([`shown`]).
    pub show_state: bool,
}

/// A property key that is a Skeleton3D bone's pose: `bones/N/position`, `rotation`,
/// `scale` (Godot 3 `bones/N/pose`); the bone's number.
fn pose_bone(c: &Change) -> Option<&str> {
    let key = match (&c.subject, &c.detail) {
        (
            Subject::Node { .. },
            Detail::PropertyChanged { key, .. }
            | Detail::PropertyAdded { key, .. }
            | Detail::PropertyRemoved { key, .. },
        ) => key,
        _ => return None,
    };
    let (n, field) = key.strip_prefix("bones/")?.split_once('/')?;
    let pose = matches!(field, "position" | "rotation" | "scale" | "pose");
    (pose && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// The report as a reader is shown it: unless [`Options::show_state`], the changed bone
/// poses of each node (a skeleton saved in another pose, the animation frame the editor
/// showed, not an edit) are one line where the first was, `Skeleton3D pose re-saved, 24
/// bones`. Every other change is as the diff found it.
pub fn shown<'r>(report: &'r DiffReport, opts: &Options) -> std::borrow::Cow<'r, DiffReport> {
    use std::borrow::Cow;
    if opts.show_state || !report.changes.iter().any(|c| pose_bone(c).is_some()) {
        return Cow::Borrowed(report);
    }
    let mut changes = Vec::with_capacity(report.changes.len());
    for g in groups(&report.changes) {
        let bones: std::collections::BTreeSet<&str> = g.iter().filter_map(pose_bone).collect();
        let count = g.iter().filter(|c| pose_bone(c).is_some()).count();
        let mut folded = false;
        for c in g {
            if pose_bone(c).is_none() {
                changes.push(c.clone());
            } else if !std::mem::replace(&mut folded, true) {
                let n = bones.len();
                let text = format!(
                    "Skeleton3D pose re-saved, {n} bone{}",
                    if n == 1 { "" } else { "s" }
                );
                changes.push(Change {
                    subject: c.subject.clone(),
                    detail: Detail::Folded { text, count },
                });
            }
        }
    }
    Cow::Owned(DiffReport {
        changes,
        noise: report.noise.clone(),
    })
}

/// Whether a file exists on both sides of a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    /// New in the range.
    Added,
    /// Gone in the range.
    Deleted,
    /// Present on both sides.
    Modified,
    /// Moved or renamed (git's rename detection), possibly changed too.
    Renamed,
}

impl FileStatus {
    /// Machine name (JSON, Markdown).
    pub fn name(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Modified => "modified",
            FileStatus::Renamed => "renamed",
        }
    }
}

/// One file of a review: its path, status and diff (or why it could not be diffed).
#[derive(Debug, Clone)]
pub struct FileDiff {
    /// Repository-relative path.
    pub path: String,
    /// Added, deleted, modified or renamed.
    pub status: FileStatus,
    /// For a renamed file: its old path and how similar (0-100) old and new bytes are.
    pub renamed_from: Option<(String, u8)>,
    /// Name of the root node (new side, or old side when deleted): diagrams label the
    /// root with it rather than with `.`.
    pub root_name: Option<String>,
    /// The diff, or the parse error that prevented it.
    pub report: Result<DiffReport, String>,
    /// For a Godot config file (`project.godot`, `export_presets.cfg`, `*.import`, ...):
    /// its key-level changes ("autoload `GameManager` added"); `report` is then empty.
    pub settings: Option<Vec<crate::config::diff::ConfigChange>>,
}

impl FileDiff {
    /// How much changed, for putting the most changed files first.
    pub fn weight(&self) -> usize {
        match (&self.settings, &self.report) {
            (Some(s), Ok(_)) => s.len(),
            (_, r) => r.as_ref().map_or(0, |r| r.changes.len()),
        }
    }

    /// One line for a table of files: a census for added and deleted files ("new scene:
    /// 14 nodes, 3 resources"), the counts of changes otherwise. `quote` spells the one
    /// piece of repository text in it (a resource's type) for the output at hand.
    pub fn summary(&self, quote: fn(&str) -> String) -> String {
        match (&self.report, self.status) {
            (Err(e), _) if e.contains("semantic diff unavailable") => "not diffed".to_string(),
            (Err(_), _) => "cannot be parsed".to_string(),
            (Ok(_), status) if self.settings.is_some() => settings_summary(self.weight(), status),
            (Ok(r), FileStatus::Added) => census(&self.path, r, ("new", "added"), quote),
            (Ok(r), FileStatus::Deleted) => census(&self.path, r, ("deleted", "removed"), quote),
            (Ok(r), _) if r.changes.is_empty() => "no semantic changes".to_string(),
            (Ok(r), _) => Counts::of(r).sentence(),
        }
    }
}

/// "3 setting changes" (a new config file: "new file: 3 settings").
fn settings_summary(n: usize, status: FileStatus) -> String {
    match status {
        FileStatus::Added if n == 0 => "new config file".to_string(),
        FileStatus::Added => format!("new config file: {}", plural(n, "setting", "settings")),
        FileStatus::Deleted => "deleted config file".to_string(),
        _ if n == 0 => "no semantic changes".to_string(),
        _ => plural(n, "setting change", "setting changes"),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "new scene: 14 nodes, 3 resources, 2 connections" from the report of a file diffed
/// against nothing: each part of the file is one subject whose detail is `kind`.
fn census(
    path: &str,
    report: &DiffReport,
    (adjective, kind): (&str, &str),
    quote: fn(&str) -> String,
) -> String {
    let (mut nodes, mut resources, mut connections) = (0, 0, 0);
    let mut main_type: Option<&str> = None;
    let mut is_resource = path.to_ascii_lowercase().ends_with(".tres");
    for g in groups(&report.changes) {
        if g[0].detail.kind() != kind {
            continue;
        }
        match &g[0].subject {
            Subject::Node { .. } => nodes += 1,
            Subject::ExtResource { .. } | Subject::SubResource { .. } => resources += 1,
            Subject::Connection { .. } => connections += 1,
            Subject::MainResource { type_name } => {
                is_resource = true;
                main_type = type_name.as_deref();
            }
            Subject::Editable { .. } | Subject::Header => {}
        }
    }
    let mut head = format!(
        "{adjective} {}",
        if is_resource { "resource" } else { "scene" }
    );
    if let Some(t) = main_type {
        head.push_str(&format!(" ({})", quote(t)));
    }
    let mut parts = Vec::new();
    if nodes > 0 {
        parts.push(plural(nodes, "node", "nodes"));
    }
    if resources > 0 {
        parts.push(plural(resources, "resource", "resources"));
    }
    if connections > 0 {
        parts.push(plural(connections, "connection", "connections"));
    }
    if parts.is_empty() {
        head
    } else {
        format!("{head}: {}", parts.join(", "))
    }
}

/// Consecutive changes about the same subject.
pub fn groups(changes: &[Change]) -> Vec<&[Change]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=changes.len() {
        if i == changes.len() || changes[i].subject != changes[start].subject {
            if i > start {
                out.push(&changes[start..i]);
            }
            start = i;
        }
    }
    out
}

/// Counts for a one-line summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Nodes added.
    pub nodes_added: usize,
    /// Nodes removed.
    pub nodes_removed: usize,
    /// Nodes changed in place (renamed, moved, properties, ...).
    pub nodes_changed: usize,
    /// Resources (ext, sub, main) added, removed or changed.
    pub resources: usize,
    /// Connections added, removed or changed.
    pub connections: usize,
    /// Editables, header.
    pub other: usize,
}

impl Counts {
    /// Count the subjects of a report.
    pub fn of(report: &DiffReport) -> Counts {
        let mut c = Counts::default();
        for g in groups(&report.changes) {
            let kind = g[0].detail.kind();
            match &g[0].subject {
                Subject::Node { .. } => match kind {
                    "added" => c.nodes_added += 1,
                    "removed" => c.nodes_removed += 1,
                    _ => c.nodes_changed += 1,
                },
                Subject::ExtResource { .. }
                | Subject::SubResource { .. }
                | Subject::MainResource { .. } => c.resources += 1,
                Subject::Connection { .. } => c.connections += 1,
                Subject::Editable { .. } | Subject::Header => c.other += 1,
            }
        }
        c
    }

    /// "2 nodes changed, 1 added, 1 resource changed" (empty when nothing).
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if self.nodes_changed > 0 {
            parts.push(plural(self.nodes_changed, "node changed", "nodes changed"));
        }
        if self.nodes_added > 0 {
            parts.push(plural(self.nodes_added, "node added", "nodes added"));
        }
        if self.nodes_removed > 0 {
            parts.push(plural(self.nodes_removed, "node removed", "nodes removed"));
        }
        if self.resources > 0 {
            parts.push(plural(
                self.resources,
                "resource changed",
                "resources changed",
            ));
        }
        if self.connections > 0 {
            parts.push(plural(
                self.connections,
                "connection changed",
                "connections changed",
            ));
        }
        if self.other > 0 {
            parts.push(plural(self.other, "other change", "other changes"));
        }
        parts.join(", ")
    }
}

/// Depth of a node path (`.` is 0).
pub fn depth(path: &str) -> usize {
    if path == "." || path.is_empty() {
        0
    } else {
        path.matches('/').count() + 1
    }
}

/// Parent of a node path (`None` for the root).
pub fn parent_path(path: &str) -> Option<&str> {
    if path == "." || path.is_empty() {
        return None;
    }
    Some(path.rfind('/').map_or(".", |i| &path[..i]))
}

/// Last segment of a node path (`(root)` for `.`).
pub fn node_name(path: &str) -> &str {
    if path == "." || path.is_empty() {
        return "(root)";
    }
    path.rsplit('/').next().unwrap_or(path)
}

/// The parts listed under a changed value (none when its headline already says it all).
pub fn value_parts(d: &Detail) -> &[crate::grain::ValueChange] {
    match d {
        Detail::PropertyChanged {
            delta: Delta::Grain(g),
            ..
        } if g.changes.len() > 1 => &g.changes,
        _ => &[],
    }
}

/// The picture of a tile map's changed area, when small enough to draw.
pub fn value_picture(d: &Detail) -> &[String] {
    match d {
        Detail::PropertyChanged {
            delta: Delta::Grain(g),
            ..
        } => &g.picture,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(depth("."), 0);
        assert_eq!(depth("A/B"), 2);
        assert_eq!(parent_path("A"), Some("."));
        assert_eq!(parent_path("A/B"), Some("A"));
        assert_eq!(parent_path("."), None);
        assert_eq!(node_name("A/B"), "B");
    }

    #[test]
    fn summary_sentence() {
        let c = Counts {
            nodes_changed: 2,
            nodes_added: 1,
            resources: 1,
            ..Counts::default()
        };
        assert_eq!(
            c.sentence(),
            "2 nodes changed, 1 node added, 1 resource changed"
        );
        assert_eq!(Counts::default().sentence(), "");
    }
}
