//! `tscn-merge check` from the command line: a header-only scene, and folders walked
//! (scenes, resources and Godot config files, sorted, `.git` and `.godot` skipped).

mod common;

use common::{stderr, stdout, TempRepo};

#[test]
fn a_header_only_scene_is_reported_as_having_no_nodes() {
    let repo = TempRepo::new();
    repo.write("h.tscn", "[gd_scene format=3 uid=\"uid://abc\"]\n");
    let out = repo.run_bin(["check", "h.tscn"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("h.tscn:1: error: no nodes"), "{err}");
    assert!(!err.contains("every node has a parent"), "{err}");
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
    let ok: Vec<String> = stdout(&out).lines().map(String::from).collect();
    assert_eq!(
        ok,
        [
            "game/a/z.tres: ok",
            "game/b.tscn: ok",
            "game/player.gd.uid: ok",
            "game/project.godot: ok",
        ]
    );
    let err = stderr(&out);
    assert!(
        err.contains("game/icon.svg.import:4: error: key `importer` repeated"),
        "{err}"
    );
    assert!(err.contains("game/sub/broken.tscn:5: error"), "{err}");
    assert!(!err.contains(".godot") && !err.contains(".git/"), "{err}");
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
