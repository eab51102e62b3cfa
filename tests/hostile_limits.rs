//! Limits (issue 14 §10): a script whose source is 100,000 lines long, reversed on one
//! side, through the binary's `merge`.
//!
//! Laws: the structural merge keeps the change the other side made elsewhere and puts the
//! string in one conflict; the line merge (`--timeout 0`) prints exactly what
//! `git merge-file -p --diff3` prints on this input, whose diff runs into xdiff's cost
//! cut-offs; a `--timeout` shorter than the structural merge falls back to that line
//! merge and does not add its own length on top of an unbounded run. The timing bound is
//! generous on purpose (these machines are shared): it catches a fallback that waits for
//! the structural merge or runs it twice, not a few percent.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const LINES: usize = 100_000;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tscn-merge"))
}

fn source_lines() -> Vec<String> {
    (0..LINES)
        .map(|i| format!("\tvar v{i} = {}", i * 7919 % 100_003))
        .collect()
}

fn prop(lines: &[String]) -> String {
    format!("script/source = \"extends Node\n{}\n\"\n", lines.join("\n"))
}

const HEAD: &str =
    "[gd_scene load_steps=2 format=3]\n\n[sub_resource type=\"GDScript\" id=\"GDScript_1\"]\n";
const ROOT: &str = "\n[node name=\"Root\" type=\"Node\"]\nscript = SubResource(\"GDScript_1\")\n";
const THEIR_PROP: &str = "editor_description = \"theirs\"\n";

/// Base, ours (the source reversed) and theirs (one source line changed and a property
/// added to the root node), written in `dir`.
fn write_inputs(dir: &Path) -> [(PathBuf, String); 3] {
    let base = source_lines();
    let ours: Vec<String> = base.iter().rev().cloned().collect();
    let mut theirs = base.clone();
    theirs[5] = "\tvar changed = 1".into();
    let texts = [
        format!("{HEAD}{}{ROOT}", prop(&base)),
        format!("{HEAD}{}{ROOT}", prop(&ours)),
        format!("{HEAD}{}{ROOT}{THEIR_PROP}", prop(&theirs)),
    ];
    let mut out = Vec::new();
    for (name, text) in ["base.tscn", "ours.tscn", "theirs.tscn"].iter().zip(texts) {
        let p = dir.join(name);
        std::fs::write(&p, &text).expect("writing an input");
        out.push((p, text));
    }
    out.try_into().expect("three inputs")
}

fn merge(dir: &Path, extra: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let out = Command::new(bin())
        .arg("merge")
        .args(extra)
        .args(["base.tscn", "ours.tscn", "theirs.tscn"])
        .current_dir(dir)
        .output()
        .expect("running tscn-merge");
    (out, t0.elapsed())
}

fn git_merge_file(dir: &Path) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .args([
            "merge-file",
            "-p",
            "--diff3",
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
        ])
        .args(["ours.tscn", "base.tscn", "theirs.tscn"])
        .current_dir(dir)
        .output()
        .ok()?;
    // git's exit code is the number of conflicts; above 127 it failed.
    (out.status.code().is_some_and(|c| (0..=127).contains(&c))).then_some(out.stdout)
}

#[test]
fn reversed_long_source_keeps_the_other_change_and_one_conflict() {
    let dir = tempfile::tempdir().expect("temp dir");
    let [(_, base), (_, ours), (_, theirs)] = write_inputs(dir.path());
    let (out, _) = merge(dir.path(), &["-q"]);
    assert_eq!(out.status.code(), Some(1), "conflicts expected");
    let prop_of = |text: &str| {
        let start = text.find("script/source").expect("source property");
        let end = text.find(ROOT).expect("root node");
        text[start..end].to_string()
    };
    // The source conflicts line by line inside the string, as git's line merge of it.
    let inside = gdscene::linemerge::merge_lines(
        prop_of(&base).as_bytes(),
        prop_of(&ours).as_bytes(),
        prop_of(&theirs).as_bytes(),
        &gdscene::linemerge::MarkerOptions::default(),
    );
    assert_eq!(inside.conflicts, 1, "one conflict inside the source");
    let expected = format!(
        "{HEAD}{}{ROOT}{THEIR_PROP}",
        String::from_utf8_lossy(&inside.text)
    );
    assert!(
        out.stdout == expected.as_bytes(),
        "unexpected merge ({} bytes, expected {})",
        out.stdout.len(),
        expected.len()
    );
}

#[test]
fn reversed_long_source_line_merge_is_gits() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_inputs(dir.path());
    let Some(git) = git_merge_file(dir.path()) else {
        eprintln!("skipped: git merge-file not available");
        return;
    };
    let (out, _) = merge(dir.path(), &["-q", "--timeout", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout == git,
        "the line merge differs from git merge-file's"
    );
}

#[test]
fn timeout_falls_back_within_bound() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_inputs(dir.path());
    let Some(git) = git_merge_file(dir.path()) else {
        eprintln!("skipped: git merge-file not available");
        return;
    };
    let (full, unbounded) = merge(dir.path(), &["-q"]);
    assert_eq!(full.status.code(), Some(1));
    // Far shorter than the structural merge of 100,000 reversed lines.
    let (out, bounded) = merge(dir.path(), &["--explain=json", "--timeout", "0.01"]);
    assert_eq!(out.status.code(), Some(1));
    let explain = String::from_utf8_lossy(&out.stderr);
    // After the deadline the first result in wins: almost always the line merge (started at
    // half the budget), but on a loaded machine the structural merge can finish first, and
    // then it must be the unbounded merge's result, whole.
    if explain.contains("\"method\": \"line\"") {
        assert!(
            out.stdout == git,
            "the fallback differs from git merge-file's"
        );
    } else {
        assert!(
            explain.contains("\"method\": \"structural\""),
            "neither merge: {explain}"
        );
        assert!(
            out.stdout == full.stdout,
            "a structural result after the deadline differs from the unbounded merge's"
        );
    }
    assert!(
        bounded < unbounded * 3 / 2 + Duration::from_secs(2),
        "--timeout 0.01 took {bounded:?}, the unbounded merge {unbounded:?}"
    );
}
