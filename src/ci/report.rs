//! What `ci merge` writes: the commit message of a merge it made (what tscn-merge resolved
//! per file) and the Markdown report of one it did not (per file: what git alone would
//! conflict on, what tscn-merge resolved, what is left and why). Pure text from the
//! driver's records and git's messages; nothing here runs git.

use super::driver::Record;
use gdscene::render::escape;

/// At most this many decisions are listed per file.
const MOST_DECISIONS: usize = 20;
/// At most this many conflicts are listed per file in the report.
const MOST_CONFLICTS: usize = 50;

/// One file of a merge as `ci merge` saw it.
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    /// Repository path.
    pub path: String,
    /// What the driver recorded, when git ran it on this file.
    pub record: Option<Record>,
    /// Whether git left the file unmerged.
    pub unmerged: bool,
    /// `check`'s errors in the merged scene (`line: message`).
    pub broken: Vec<String>,
    /// git's `CONFLICT` lines about the file.
    pub git_messages: Vec<String>,
}

impl FileReport {
    /// Whether this file keeps the merge from being committed.
    pub fn blocks(&self) -> bool {
        self.unmerged || !self.broken.is_empty()
    }
}

/// A repository's text (a path, a value, git's message quoting a path) in a Markdown
/// table cell: a code span no text can close from inside, `|` escaped for the table
/// ([`escape::cell`]). Inside a code span no HTML, link, heading or @mention is read.
fn cell(s: &str) -> String {
    escape::cell(s)
}

/// The same text anywhere else in the report: a code span ([`escape::code`]).
fn code(s: &str) -> String {
    escape::code(s)
}

/// What git's line merge alone would do to `f`.
fn git_alone(f: &FileReport) -> String {
    match &f.record {
        Some(r) if r.git_conflicts > 0 => format!("{} conflict(s)", r.git_conflicts),
        Some(_) => "clean".into(),
        None if f.unmerged => "conflict".into(),
        None => "clean".into(),
    }
}

/// What tscn-merge resolved in `f`.
fn resolved(f: &FileReport) -> String {
    match &f.record {
        Some(r) if r.method.starts_with("line") => "nothing (line merge)".into(),
        Some(r) => format!(
            "{} conflict(s), {} decision(s)",
            r.git_conflicts.saturating_sub(r.left),
            r.decisions.len()
        ),
        None if super::handled(&f.path) => "not run (git decided)".into(),
        None => "not a Godot file tscn-merge merges".into(),
    }
}

/// What is left in `f`.
fn left(f: &FileReport) -> String {
    match (&f.record, f.unmerged) {
        (Some(r), true) if r.left > 0 => format!("{} conflict(s)", r.left),
        (_, true) => "a conflict git reports".into(),
        (_, false) if !f.broken.is_empty() => format!("{} check error(s)", f.broken.len()),
        _ => "nothing".into(),
    }
}

/// The Markdown report of a merge that was not committed.
pub fn markdown(base: &str, branch: &str, files: &[FileReport]) -> String {
    let mut s = format!(
        "## tscn-merge: {} into {} needs a person\n\n",
        code(base),
        code(branch)
    );
    let blocking = files.iter().filter(|f| f.blocks()).count();
    s.push_str(&format!("Nothing was committed and the checkout is as it was: {blocking} file(s) are left to resolve by hand. In the conflicts below, ours is {} and theirs is {}.\n\n", code(branch), code(base)));
    s.push_str("| File | git alone | tscn-merge resolved | Left |\n| --- | --- | --- | --- |\n");
    for f in files {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&f.path),
            git_alone(f),
            resolved(f),
            left(f)
        ));
    }
    for f in files.iter().filter(|f| f.blocks()) {
        s.push_str(&format!("\n### {}\n\n", code(&f.path)));
        details(&mut s, f);
    }
    s.push_str("\nResolve them locally (`tscn-merge install` once, then `git merge` the base: the scenes merge the same way), push, and the check runs again.\n");
    s
}

/// The per-conflict detail of one blocking file.
fn details(s: &mut String, f: &FileReport) {
    if let Some(r) = &f.record {
        if let Some(why) = r.method.strip_prefix("line: ") {
            s.push_str(&format!(
                "tscn-merge used git's line merge here: {}.\n",
                code(&gdscene::merge::shorten(why, 400))
            ));
        }
        for c in r.conflicts.iter().take(MOST_CONFLICTS) {
            s.push_str(&format!("- {}\n", code(&gdscene::merge::shorten(c, 400))));
        }
        if r.conflicts.len() > MOST_CONFLICTS {
            let more = r.conflicts.len() - MOST_CONFLICTS;
            s.push_str(&format!("- ... and {more} more conflict(s)\n"));
        }
        if r.conflicts.is_empty() && r.left > 0 {
            s.push_str(&format!(
                "- {} conflict block(s) left by the line merge\n",
                r.left
            ));
        }
    }
    for m in &f.git_messages {
        s.push_str(&format!("- git: {}\n", code(m)));
    }
    for e in &f.broken {
        s.push_str(&format!("- check: line {}\n", code(e)));
    }
    if !super::handled(&f.path) {
        s.push_str("- not a Godot file tscn-merge merges: git's merge is all there is\n");
    }
}

/// The message of a merge commit `ci merge` made.
pub fn commit_message(base: &str, branch: &str, files: &[FileReport]) -> String {
    let mut s = format!("Merge {base} into {branch}\n");
    let merged: Vec<&Record> = files.iter().filter_map(|f| f.record.as_ref()).collect();
    if merged.is_empty() {
        s.push_str("\nNo scene needed tscn-merge: git merged every file.\n");
        return s;
    }
    s.push_str("\nFiles merged by tscn-merge (every changed scene and settings file passes `tscn-merge check`):\n");
    // One line per item, hidden characters spelled out: the message is read in terminals
    // and quoted in pull-request comments.
    let line = |t: &str| super::shown(&gdscene::merge::shorten(t, 400));
    for r in merged {
        s.push_str(&format!(
            "- {}: {} git conflict(s) resolved, {} automatic decision(s)\n",
            super::shown(&r.path),
            r.git_conflicts,
            r.decisions.len()
        ));
        for d in r.decisions.iter().take(MOST_DECISIONS) {
            s.push_str(&format!("  - {}\n", line(d)));
        }
        if r.decisions.len() > MOST_DECISIONS {
            s.push_str(&format!(
                "  - ... and {} more\n",
                r.decisions.len() - MOST_DECISIONS
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, git: usize, left: usize) -> Record {
        Record {
            path: path.into(),
            git_conflicts: git,
            left,
            method: "structural".into(),
            conflicts: (0..left)
                .map(|_| "node \"Player\" speed: base 1 | ours 2 | theirs 3".to_string())
                .collect(),
            decisions: vec!["id renamed".into()],
        }
    }

    #[test]
    fn report_names_every_file_and_what_is_left() {
        let files = vec![
            FileReport {
                path: "a.tscn".into(),
                record: Some(record("a.tscn", 2, 0)),
                ..Default::default()
            },
            FileReport {
                path: "b|c.tscn".into(),
                record: Some(record("b|c.tscn", 1, 1)),
                unmerged: true,
                ..Default::default()
            },
            FileReport {
                path: "notes.txt".into(),
                unmerged: true,
                git_messages: vec!["CONFLICT (content): Merge conflict in notes.txt".into()],
                ..Default::default()
            },
        ];
        let md = markdown("main", "feature", &files);
        assert!(
            md.contains("| `a.tscn` | 2 conflict(s) | 2 conflict(s), 1 decision(s) | nothing |"),
            "{md}"
        );
        assert!(md.contains("`b\\|c.tscn`"), "{md}");
        assert!(
            md.contains("- `node \"Player\" speed: base 1 | ours 2 | theirs 3`"),
            "{md}"
        );
        assert!(md.contains("### `notes.txt`"), "{md}");
        assert!(md.contains("2 file(s) are left"), "{md}");
        assert!(!md.contains("### `a.tscn`"), "{md}");
    }

    #[test]
    fn commit_message_lists_what_was_resolved() {
        let files = vec![FileReport {
            path: "a.tscn".into(),
            record: Some(record("a.tscn", 2, 0)),
            ..Default::default()
        }];
        let m = commit_message("origin/main", "feature", &files);
        assert!(m.starts_with("Merge origin/main into feature\n\n"), "{m}");
        assert!(
            m.contains(
                "- a.tscn: 2 git conflict(s) resolved, 1 automatic decision(s)\n  - id renamed\n"
            ),
            "{m}"
        );
    }
}
