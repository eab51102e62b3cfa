//! Hunk size against git's, per conflict style: over every conflicted shared real merge,
//! the lines the structural merge leaves between markers are at most what
//! `git merge-file` leaves in the same style.

mod common;

use gdscene::linemerge::{ConflictStyle, MarkerOptions};
use gdscene::merge::{merge, Decision, MergeOptions};
use std::path::Path;
use std::process::Command;

fn side(dir: &Path, stem: &str) -> Option<Vec<u8>> {
    ["tscn", "tres", "escn"]
        .iter()
        .find_map(|ext| std::fs::read(dir.join(format!("{stem}.{ext}"))).ok())
}

/// (hunks, lines from each `<<<<<<<` to its `>>>>>>>`, markers included).
fn marked(text: &[u8]) -> (usize, usize) {
    let (mut hunks, mut lines, mut inside) = (0, 0, false);
    for l in text.split(|&c| c == b'\n') {
        if l.starts_with(b"<<<<<<< ") {
            inside = true;
        }
        if inside {
            lines += 1;
        }
        if l.starts_with(b">>>>>>> ") {
            inside = false;
            hunks += 1;
        }
    }
    (hunks, lines)
}

/// `git merge-file -p` in `style`, isolated from the user's configuration.
fn git_merge_file(dir: &Path, ext: &str, style: &str) -> Option<Vec<u8>> {
    let p = |s: &str| dir.join(format!("{s}.{ext}"));
    let mut cmd = Command::new("git");
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .args([
            "merge-file",
            "-p",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
        ]);
    if style != "merge" {
        cmd.arg(format!("--{style}"));
    }
    let out = cmd
        .arg(p("ours"))
        .arg(p("base"))
        .arg(p("theirs"))
        .output()
        .ok()?;
    Some(out.stdout)
}

fn ext_of(dir: &Path) -> Option<&'static str> {
    ["tscn", "tres", "escn"]
        .into_iter()
        .find(|e| dir.join(format!("base.{e}")).exists())
}

/// The lines inside markers that a hunk carries: in each part of a hunk, the sections of
/// nodes under a node named by a `ConflictCarriesSubtree`, `RivalNodesConflict` or
/// `ReplacedNodeConflict` decision that the same part holds, and the sub_resource sections of a hunk that holds
/// a sub_resource named by a `ConflictCarriesSubResource` decision.
fn carried_lines(text: &[u8], decisions: &[Decision]) -> usize {
    let mut tops = Vec::new();
    let mut subs = Vec::new();
    for d in decisions {
        match d {
            Decision::ConflictCarriesSubtree { node, .. }
            | Decision::RivalNodesConflict { node, .. }
            | Decision::ReplacedNodeConflict { node, .. } => {
                tops.push(node.rsplit('/').next().unwrap_or(node).to_string())
            }
            Decision::ConflictCarriesSubResource { id } => subs.push(id.clone()),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(text);
    hunk_parts(&text)
        .iter()
        .map(|parts| {
            let carries_sub = parts
                .iter()
                .flatten()
                .any(|s| sub_id(s[0]).is_some_and(|id| subs.contains(&id)));
            parts
                .iter()
                .map(|part| part_carried(part, &tops, carries_sub))
                .sum::<usize>()
        })
        .sum()
}

/// Each hunk's parts, each part as its sections (lines, a section from its `[` line).
fn hunk_parts(text: &str) -> Vec<Vec<Vec<Vec<&str>>>> {
    let mut hunks: Vec<Vec<Vec<Vec<&str>>>> = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if l.starts_with("<<<<<<< ") {
            inside = true;
            hunks.push(vec![Vec::new()]);
            continue;
        }
        if !inside {
            continue;
        }
        let Some(parts) = hunks.last_mut() else {
            continue;
        };
        if l.starts_with(">>>>>>> ") {
            inside = false;
        } else if l.starts_with("||||||| ") || l == "=======" {
            parts.push(Vec::new());
        } else if let Some(part) = parts.last_mut() {
            match part.last_mut() {
                Some(sec) if !l.starts_with('[') => sec.push(l),
                _ => part.push(vec![l]),
            }
        }
    }
    hunks
}

/// The lines of one part's carried sections.
fn part_carried(part: &[Vec<&str>], tops: &[String], carries_sub: bool) -> usize {
    let mut under: Option<String> = None;
    let mut n = 0;
    for sec in part {
        let head = sec[0];
        if carries_sub && head.starts_with("[sub_resource ") {
            n += sec.len();
            continue;
        }
        let (Some(name), parent) = (field(head, "name"), field(head, "parent")) else {
            continue;
        };
        let path = match parent.as_deref() {
            None | Some(".") => name.clone(),
            Some(p) => format!("{p}/{name}"),
        };
        match (&under, parent) {
            (Some(top), Some(p)) if p == *top || p.starts_with(&format!("{top}/")) => {
                n += sec.len()
            }
            _ if tops.contains(&name) => under = Some(path),
            _ => {}
        }
    }
    n
}

/// A quoted `key="..."` field of a tag line.
fn field(head: &str, key: &str) -> Option<String> {
    let at = head.find(&format!(" {key}=\""))? + key.len() + 3;
    let rest = &head[at..];
    Some(rest[..rest.find('"')?].to_string())
}

/// A `[sub_resource]` line's id, quoted or not.
fn sub_id(head: &str) -> Option<String> {
    if !head.starts_with("[sub_resource ") {
        return None;
    }
    let at = head.find(" id=")? + 4;
    let rest = head[at..].trim_start_matches('"');
    Some(rest[..rest.find(['"', ' ', ']'])?].to_string())
}

#[test]
fn hunks_are_never_bigger_than_gits_in_any_style() {
    let Some(root) = common::shared_dir().map(|p| p.join("merges")) else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    let mut dirs: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let styles = [
        ("merge", ConflictStyle::Merge),
        ("diff3", ConflictStyle::Diff3),
        ("zdiff3", ConflictStyle::ZDiff3),
    ];
    let mut worse = Vec::new();
    let (mut compared, mut ours_total, mut git_total, mut carried) = (0, 0, 0, 0);
    for dir in &dirs {
        let (Some(ext), Some(b), Some(o), Some(t)) = (
            ext_of(dir),
            side(dir, "base"),
            side(dir, "ours"),
            side(dir, "theirs"),
        ) else {
            continue;
        };
        for (name, style) in styles {
            let Some(git) = git_merge_file(dir, ext, name) else {
                eprintln!("skipped: git not found");
                return;
            };
            let (git_hunks, git_lines) = marked(&git);
            if git_hunks == 0 {
                continue;
            }
            let opts = MergeOptions {
                markers: MarkerOptions {
                    style,
                    ..MarkerOptions::default()
                },
                ..MergeOptions::default()
            };
            let outcome = merge(&b, &o, &t, &opts);
            let (_, lines) = marked(&outcome.text);
            compared += 1;
            ours_total += lines;
            git_total += git_lines;
            // A node deleted against a modification carries its whole subtree (and the
            // sub_resources only that uses) in its hunks (issue 13 §1: picking a side
            // keeps or drops all of it), which git splits and partly leaves outside its
            // markers: those lines, and only those, do not count against git's size.
            let extra = carried_lines(&outcome.text, &outcome.decisions);
            if lines > git_lines && lines - extra <= git_lines {
                carried += 1;
            } else if lines > git_lines {
                let id = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                worse.push(format!(
                    "{} {name}: {lines} > git {git_lines}",
                    id.unwrap_or_default()
                ));
            }
        }
    }
    eprintln!(
        "{compared} conflicted (merge, style) pairs: {ours_total} lines in markers, git \
         {git_total}; {carried} bigger than git's only by the lines of a subtree or sub_resource a hunk carries"
    );
    assert!(compared > 0, "no conflicted shared merge was compared");
    assert!(
        worse.is_empty(),
        "{} bigger than git's:\n{}",
        worse.len(),
        worse.join("\n")
    );
}

/// Only a carried subtree's own lines are exempt: the carrying node's section, and a
/// node in the same part that does not hang under it, still count.
#[test]
fn carried_lines_are_only_the_subtree_below_the_carrying_node() {
    let text = "\
<<<<<<< ours
[node name=\"Hero\" type=\"Node2D\" parent=\".\"]
speed = 1

[node name=\"Hat\" type=\"Sprite2D\" parent=\"Hero\"]

[node name=\"Sign\" type=\"Label\" parent=\".\"]
=======
>>>>>>> theirs
";
    let decisions = [Decision::ConflictCarriesSubtree {
        node: "Hero".into(),
        nodes: 1,
    }];
    // `Hat` and the blank line after it: 2 of the 9 lines inside the markers.
    assert_eq!(carried_lines(text.as_bytes(), &decisions), 2);
    assert_eq!(carried_lines(text.as_bytes(), &[]), 0);
}
