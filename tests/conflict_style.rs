//! Hunk size against git's, per conflict style: over every conflicted shared real merge,
//! the lines the structural merge leaves between markers are at most what
//! `git merge-file` leaves in the same style.

mod common;

use std::path::Path;
use std::process::Command;
use tscn_merge::linemerge::{ConflictStyle, MarkerOptions};
use tscn_merge::merge::{merge, Decision, MergeOptions};

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
            // A node deleted against a modification carries its whole subtree in its hunk
            // (issue 13 §1: picking a side keeps or drops all of it), which git splits and
            // partly leaves outside its markers: completeness wins over size there.
            let carries_subtree = outcome
                .decisions
                .iter()
                .any(|d| matches!(d, Decision::ConflictCarriesSubtree { .. }));
            if lines > git_lines && carries_subtree {
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
         {git_total}; {carried} bigger because a hunk carries a deleted node's subtree"
    );
    assert!(compared > 0, "no conflicted shared merge was compared");
    assert!(
        worse.is_empty(),
        "{} bigger than git's:\n{}",
        worse.len(),
        worse.join("\n")
    );
}
