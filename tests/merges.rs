//! Replays the real three-way merges of `../shared/merges` through the structural merge.
//!
//! Asserts: every scenario `git merge-file` merges cleanly stays clean, no clean output
//! of ours is structurally broken (where the human result is not), and reports how many
//! of git's conflicting scenarios are resolved.

mod common;

use gdscene::check::{check, is_broken};
use gdscene::merge::{merge, MergeOptions, Method};
use gdscene::model::Scene;
use std::path::{Path, PathBuf};

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("merges/SUMMARY.tsv").exists())
}

fn file(dir: &Path, stem: &str) -> Vec<u8> {
    for ext in ["tscn", "tres", "escn"] {
        if let Ok(b) = std::fs::read(dir.join(format!("{stem}.{ext}"))) {
            return b;
        }
    }
    panic!("{}: no {stem}.*", dir.display());
}

fn broken(bytes: &[u8]) -> bool {
    match Scene::parse(bytes) {
        Ok(s) => is_broken(&check(&s)),
        Err(_) => true,
    }
}

/// Lines with whitespace runs folded, for a "same text modulo layout" comparison.
fn folded(b: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(b)
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn real_merges_replay() {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let summary = std::fs::read_to_string(root.join("merges/SUMMARY.tsv")).expect("SUMMARY.tsv");
    let mut lines = summary.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect("column");
    let (c_id, c_git) = (col("id"), col("git_conflicts"));
    let (mut git_clean, mut git_conf) = (0, 0);
    let (mut clean_kept, mut resolved, mut exact, mut folded_eq, mut broken_out, mut fallbacks) =
        (0, 0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for l in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        let id = f[c_id];
        let git_conflicts = f[c_git] != "0";
        let dir = root.join("merges").join(id);
        let (b, o, t, human) = (
            file(&dir, "base"),
            file(&dir, "ours"),
            file(&dir, "theirs"),
            file(&dir, "result"),
        );
        let r = merge(&b, &o, &t, &MergeOptions::default());
        if matches!(r.method, Method::LineFallback(_)) {
            fallbacks += 1;
        }
        if r.is_clean() {
            if r.text == human {
                exact += 1;
            } else if folded(&r.text) == folded(&human) {
                folded_eq += 1;
            }
            if broken(&r.text) && !broken(&human) && !broken(&o) {
                broken_out += 1;
                failures.push(format!("{id}: clean output is broken"));
            }
        }
        if git_conflicts {
            git_conf += 1;
            if r.is_clean() {
                resolved += 1;
            }
        } else {
            git_clean += 1;
            if r.is_clean() {
                clean_kept += 1;
            } else {
                failures.push(format!(
                    "{id}: git merges cleanly, we conflict ({:?})",
                    r.conflicts.first()
                ));
            }
        }
    }
    eprintln!(
        "merges: git-clean {clean_kept}/{git_clean} kept clean; git-conflicting {resolved}/{git_conf} resolved cleanly; \
         clean outputs equal to the human result: {exact} exact, {folded_eq} equal up to whitespace; \
         broken outputs: {broken_out}; line fallbacks: {fallbacks}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
