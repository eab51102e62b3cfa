//! `review` lists Godot's config files (project.godot, export_presets.cfg, `.import`,
//! `.uid`, override.cfg, plugin.cfg) with their key-level changes, in every format.

mod common;

use common::{stderr, stdout, TempRepo};

const PROJECT: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Game\"\n\n[input]\n\njump={\n\"deadzone\": 0.5,\n\"events\": []\n}\n";

fn project_v2() -> String {
    PROJECT
        .replace(
            "[input]",
            "[autoload]\n\nGameManager=\"*res://game_manager.gd\"\n\n[input]",
        )
        .replace(
            "\"events\": []",
            "\"events\": [Object(InputEventKey,\"resource_local_to_scene\":false,\"device\":-1,\"keycode\":0,\"physical_keycode\":32,\"unicode\":32,\"script\":null)\n]",
        )
}

fn repo() -> TempRepo {
    let repo = TempRepo::new();
    repo.write("project.godot", PROJECT);
    repo.write(
        "player.tscn",
        "[gd_scene format=3]\n\n[node name=\"P\" type=\"Node\"]\n",
    );
    repo.commit_all("one");
    repo.write("project.godot", project_v2());
    repo.write("player.gd.uid", "uid://b2k4\n");
    repo.write("notes.txt", "not shown\n");
    repo.commit_all("two");
    repo
}

#[test]
fn review_lists_config_files_with_their_semantic_changes() {
    let repo = repo();
    let md = repo.run_bin(["review", "HEAD~1..HEAD"]);
    assert_eq!(md.status.code(), Some(0), "{}", stderr(&md));
    let md = stdout(&md);
    assert!(md.contains("project.godot"), "{md}");
    assert!(md.contains("player.gd.uid"), "{md}");
    assert!(!md.contains("notes.txt"), "{md}");
    assert!(md.contains("autoload `GameManager` added"), "{md}");
    assert!(md.contains("input action `jump`: event added"), "{md}");
    assert!(md.contains("3 setting changes"), "{md}");
    assert!(md.contains("new config file: 1 setting"), "{md}");
    assert!(md.contains("uid uid://b2k4 added"), "{md}");

    let text = stdout(&repo.run_bin(["review", "--format", "text", "HEAD~1..HEAD"]));
    assert!(text.contains("=== project.godot (modified)"), "{text}");
    assert!(text.contains("  autoload GameManager added"), "{text}");
    assert!(!text.contains('`'), "no Markdown outside Markdown: {text}");

    let json = repo.run_bin(["review", "--format", "json", "HEAD~1..HEAD"]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    let project = files
        .iter()
        .find(|f| f["path"] == "project.godot")
        .expect("project.godot listed");
    let settings = project["settings"].as_array().unwrap();
    assert!(settings.iter().any(|c| c["section"] == "autoload"
        && c["key"] == "GameManager"
        && c["text"].as_str().unwrap().contains("added")));
    assert!(settings
        .iter()
        .any(|c| c["section"] == "input" && c["key"] == "jump"));

    let html = stdout(&repo.run_bin(["review", "--format", "html", "HEAD~1..HEAD"]));
    assert!(
        html.contains("<li>autoload <code>GameManager</code> added"),
        "{html}"
    );
    assert!(!html.contains('`'), "no Markdown outside Markdown: {html}");
}
