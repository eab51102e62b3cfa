//! `diff` as `git diff` reads its arguments: `REV:PATH REV:PATH` and one work-tree
//! `PATH` against `HEAD` (exit 1 changes, 0 none, 2 error), and the text diff showing a
//! changed node under its ancestors' names.

mod common;

use common::{stderr, stdout, TempRepo};

const V1: &str = "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"Spawners\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"Cars\" type=\"Node2D\" parent=\"Spawners\"]\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\"Spawners/Cars\"]\nspeed = 1\n\n[node name=\"Peds\" type=\"Node2D\" parent=\"Spawners\"]\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\"Spawners/Peds\"]\nspeed = 1\n";

fn v2() -> String {
    V1.replace("speed = 1\n", "speed = 2\n")
}

fn repo_with_history() -> TempRepo {
    let repo = TempRepo::new();
    repo.write("levels/level.tscn", V1);
    repo.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"A\"\n",
    );
    repo.commit_all("one");
    repo.write("levels/level.tscn", v2());
    repo.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"B\"\n",
    );
    repo.commit_all("two");
    repo
}

#[test]
fn diff_of_two_revisions_of_a_path_works_like_git_diff() {
    let repo = repo_with_history();
    let out = repo.run_bin(["diff", "HEAD~1:levels/level.tscn", "HEAD:levels/level.tscn"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("~ speed: 1 -> 2"), "{}", stdout(&out));
    let same = repo.run_bin(["diff", "HEAD:levels/level.tscn", "HEAD:levels/level.tscn"]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    let config = repo.run_bin(["diff", "HEAD~1:project.godot", "HEAD:project.godot"]);
    assert_eq!(config.status.code(), Some(1), "{}", stderr(&config));
    assert!(
        stdout(&config).contains("config/name"),
        "{}",
        stdout(&config)
    );
    // A revision against a work-tree file, and ./ relative to the current directory.
    let mixed = repo.run_bin(["diff", "HEAD~1:./levels/level.tscn", "levels/level.tscn"]);
    assert_eq!(mixed.status.code(), Some(1), "{}", stderr(&mixed));
    let missing = repo.run_bin(["diff", "HEAD~1:nope.tscn", "HEAD:levels/level.tscn"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("does not exist in 'HEAD~1'"),
        "{}",
        stderr(&missing)
    );
    let bad_rev = repo.run_bin([
        "diff",
        "nobranch:levels/level.tscn",
        "HEAD:levels/level.tscn",
    ]);
    assert_eq!(bad_rev.status.code(), Some(2));
}

#[test]
fn diff_of_one_path_compares_the_work_tree_with_head() {
    let repo = repo_with_history();
    let clean = repo.run_bin(["diff", "levels/level.tscn"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
    assert!(
        stdout(&clean).starts_with("levels/level.tscn --- Godot scene\nNo semantic changes."),
        "{}",
        stdout(&clean)
    );
    repo.write(
        "levels/level.tscn",
        v2().replace("speed = 2\n", "speed = 3\n"),
    );
    let changed = repo.run_bin(["diff", "levels/level.tscn"]);
    assert_eq!(changed.status.code(), Some(1), "{}", stderr(&changed));
    assert!(
        stdout(&changed).contains("~ speed: 2 -> 3"),
        "{}",
        stdout(&changed)
    );
    repo.remove("levels/level.tscn");
    let deleted = repo.run_bin(["diff", "levels/level.tscn"]);
    assert_eq!(deleted.status.code(), Some(1), "{}", stderr(&deleted));
    let nowhere = repo.run_bin(["diff", "levels/nowhere.tscn"]);
    assert_eq!(nowhere.status.code(), Some(2));
}

#[test]
fn a_changed_node_is_shown_under_its_ancestors_names() {
    let repo = repo_with_history();
    let out = repo.run_bin(["diff", "HEAD~1:levels/level.tscn", "HEAD:levels/level.tscn"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = |l: &str| {
        lines
            .iter()
            .position(|x| *x == l)
            .unwrap_or_else(|| panic!("no line {l:?} in\n{text}"))
    };
    let (root, spawners, cars) = (at("  (root)"), at("    Spawners"), at("      Cars"));
    let first = at("        ~ Sprite (Sprite2D)");
    let peds = at("      Peds");
    assert!(
        root < spawners && spawners < cars && cars < first && first < peds,
        "{text}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.trim() == "Spawners").count(),
        1,
        "an ancestor already shown is not repeated:\n{text}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.trim() == "~ Sprite (Sprite2D)")
            .count(),
        2,
        "{text}"
    );
}

/// A scene whose path is not UTF-8 (Latin-1 `é`, the byte 0xE9, in a folder name with a
/// space): `diff REV:PATH REV:PATH`, `diff PATH` (work tree against HEAD) and `diff`
/// alone find HEAD's version by the path's bytes, as git does, and show the one change;
/// before, `REV:PATH` was read as a file that does not exist, `diff PATH` showed every
/// node as added and `diff` alone listed nothing.
#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_diffed_by_its_bytes() {
    use std::os::unix::ffi::OsStringExt;
    let name = |s: &[u8]| std::ffi::OsString::from_vec(s.to_vec());
    let rel = name(b"sc\xe9ne dir/level.tscn");
    let repo = TempRepo::new();
    repo.write(&rel, V1);
    repo.commit_all("one");
    repo.write(&rel, v2());
    repo.commit_all("two");
    let mut old = name(b"HEAD~1:");
    old.push(&rel);
    let mut new = name(b"HEAD:");
    new.push(&rel);
    let revs = repo.run_bin([name(b"diff"), old, new]);
    assert_eq!(revs.status.code(), Some(1), "{}", stderr(&revs));
    assert!(
        stdout(&revs).contains("~ speed: 1 -> 2"),
        "{}",
        stdout(&revs)
    );
    repo.write(&rel, V1);
    let one = repo.run_bin([name(b"diff"), rel.clone()]);
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert!(stdout(&one).contains("~ speed: 2 -> 1"), "{}", stdout(&one));
    assert!(!stdout(&one).contains("added"), "{}", stdout(&one));
    let all = repo.run_bin(["diff"]);
    assert_eq!(all.status.code(), Some(1), "{}", stderr(&all));
    assert!(stdout(&all).contains("~ speed: 2 -> 1"), "{}", stdout(&all));
}

/// What a user exported for their own use of tscn-merge (README: `TSCN_MERGE=off`,
/// `TSCN_MERGE_FAVOR=theirs`, `TSCN_MERGE_TIMEOUT`; `NO_COLOR`) changes no test: this
/// file's tests pass again in a child process with all of them set (before, a
/// `TSCN_MERGE_TIMEOUT=0` in the user's shell turned every semantic diff into a line diff).
#[test]
fn the_users_own_tscn_merge_variables_change_no_test() {
    let names = [
        "diff_of_two_revisions_of_a_path_works_like_git_diff",
        "diff_of_one_path_compares_the_work_tree_with_head",
        "a_changed_node_is_shown_under_its_ancestors_names",
    ];
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(names)
        .args(["--exact", "--test-threads=2"])
        .env("TSCN_MERGE", "off")
        .env("TSCN_MERGE_FAVOR", "theirs")
        .env("TSCN_MERGE_STATE", "conflict")
        .env("TSCN_MERGE_EXPLAIN", "json")
        .env("TSCN_MERGE_TIMEOUT", "0")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success() && stdout(&out).contains("3 passed"),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}

/// `diff` alone in the middle of a merge: a scene git left with conflict markers does not
/// parse, and is shown as a line diff with a note (as `git diff` shows it), the other
/// changed files semantically; exit 1. Before, that file was an error and the exit 2.
/// A broken scene the user names is still an error.
#[test]
fn diff_alone_shows_a_conflicted_scene_as_a_line_diff() {
    let repo = repo_with_history();
    repo.write(
        "levels/level.tscn",
        v2().replace(
            "speed = 2\n",
            "<<<<<<< HEAD\nspeed = 2\n=======\nspeed = 3\n>>>>>>> other\n",
        ),
    );
    repo.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"C\"\n",
    );
    let all = repo.run_bin(["diff"]);
    assert_eq!(all.status.code(), Some(1), "{}", stderr(&all));
    let text = stdout(&all);
    assert!(text.contains("semantic diff unavailable"), "{text}");
    assert!(text.contains("+<<<<<<< HEAD"), "{text}");
    assert!(text.contains("config/name"), "{text}");
    let named = repo.run_bin(["diff", "levels/level.tscn"]);
    assert_eq!(named.status.code(), Some(2), "{}", stdout(&named));
}
