//! `tscn-merge check` from the command line: a header-only scene, folders walked
//! (scenes, resources and Godot config files, sorted, `.git` and `.godot` skipped), and
//! the report (issue 38): problems on stdout with a summary line, `-q`, `.` by default,
//! a file that does not parse is a problem (exit 1) saying what was expected.

mod common;

use common::{stderr, stdout, TempRepo};

#[test]
fn a_header_only_scene_is_reported_as_having_no_nodes() {
    let repo = TempRepo::new();
    repo.write("h.tscn", "[gd_scene format=3 uid=\"uid://abc\"]\n");
    let out = repo.run_bin(["check", "h.tscn"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("h.tscn:1: error: no nodes"), "{text}");
    assert!(!text.contains("every node has a parent"), "{text}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

const SCENE: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n";
const BROKEN: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"C\" type=\"Node\" parent=\"Gone\"]\n";

#[test]
fn check_walks_a_folder_in_sorted_order_skipping_git_and_the_editor_cache() {
    let repo = TempRepo::new();
    repo.write("game/b.tscn", SCENE);
    repo.write(
        "game/a/z.tres",
        "[gd_resource type=\"Resource\" format=3]\n\n[resource]\n",
    );
    repo.write(
        "game/project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"G\"\n",
    );
    repo.write(
        "game/icon.svg.import",
        "[remap]\n\nimporter=\"texture\"\nimporter=\"texture\"\n",
    );
    repo.write("game/player.gd.uid", "uid://cx1\n");
    repo.write("game/readme.txt", "not a scene\n");
    repo.write("game/.godot/editor/cache.tscn", "broken [[[\n");
    repo.write("game/.git/x.tscn", "broken [[[\n");
    repo.write("game/sub/broken.tscn", BROKEN);
    let out = repo.run_bin(["check", "game"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let ok: Vec<&str> = text.lines().filter(|l| l.ends_with(": ok")).collect();
    assert_eq!(
        ok,
        [
            "game/a/z.tres: ok",
            "game/b.tscn: ok",
            "game/player.gd.uid: ok",
            "game/project.godot: ok",
        ]
    );
    assert!(
        text.contains("game/icon.svg.import:4: error: key `importer` repeated"),
        "{text}"
    );
    assert!(text.contains("game/sub/broken.tscn:5: error"), "{text}");
    assert!(
        !text.contains(".godot/") && !text.contains(".git/"),
        "{text}"
    );
    assert!(text.ends_with("\n6 files: 2 problems\n"), "{text}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let json = repo.run_bin(["check", "--json", "game"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 6, "{files:?}");
    assert!(files.windows(2).all(|w| w[0] < w[1]), "{files:?}");
}

#[test]
fn a_file_that_does_not_parse_is_a_problem_saying_what_was_expected() {
    let repo = TempRepo::new();
    repo.write(
        "bad.tscn",
        "[gd_scene format=3]\n\n[node name\"R\" type=\"Node\"]\n",
    );
    repo.write("good.tscn", SCENE);
    let out = repo.run_bin(["check", "bad.tscn", "good.tscn"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("bad.tscn:3:11: expected `=` after the field name\n  | [node name\"R\" type=\"Node\"]\n  |           ^\n"),
        "{text}"
    );
    assert!(text.contains("good.tscn: ok\n"), "{text}");
    assert!(text.ends_with("2 files: 1 problem\n"), "{text}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let json = repo.run_bin(["check", "--json", "bad.tscn"]);
    assert_eq!(json.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["files"][0]["status"], "unparsable");
    assert_eq!(doc["exit"], 1);
    // A file that cannot be read at all is still an error (exit 2).
    let out = repo.run_bin(["check", "missing.tscn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).contains("missing.tscn:cannot read"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn quiet_prints_only_problems_and_the_summary_and_no_path_is_the_current_folder() {
    let repo = TempRepo::new();
    for i in 0..1002 {
        repo.write(format!("levels/l{i:04}.tscn"), SCENE);
    }
    repo.write("levels/broken.tscn", BROKEN);
    let out = repo.run_bin(["check", "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "levels/broken.tscn:5: error: node \"C\" has parent \"Gone\", which does not exist (at this point of the file)\n1,003 files: 1 problem\n"
    );
    let out = repo.run_bin(["check"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1004, "{}", &text[..200]);
    assert!(
        text.starts_with("levels/broken.tscn:5: error"),
        "{}",
        &text[..200]
    );
    assert!(
        text.contains("\nlevels/l0000.tscn: ok\n"),
        "{}",
        &text[..200]
    );
}
