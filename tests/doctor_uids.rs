//! Stale uid references after a real merge (issue 30.1): both branches re-saved a
//! `.tres` that had no header `uid`, each got its own; the merge keeps ours'. A scene
//! from theirs' branch refers to the resource by theirs' uid, which no file carries
//! after the merge: `doctor` and `review` name it. Also `review`'s heading names config
//! files as such.

mod common;

use common::{assert_success, stdout, TempRepo};
use serde_json::Value;

const STATS: &str = "[gd_resource type=\"Resource\" format=3]\n\n[resource]\nvalue = 1\n";
const SENTENCE: &str = "enemy.tscn refers to res://stats.tres by uid://c2theirs0002, but res://stats.tres now has uid://b8ours00001 (Godot loads it by path and warns)";

fn with_uid(uid: &str) -> String {
    STATS.replace("format=3]", &format!("format=3 uid=\"{uid}\"]"))
}

/// main: project.godot and stats.tres (no uid); ours and theirs each re-saved it with
/// a uid of their own, theirs added enemy.tscn referring to it by theirs'; ours merged
/// theirs (with the driver installed). Returns the repository, on ours, merged.
fn merged() -> TempRepo {
    let t = TempRepo::new();
    assert_success(&t.run_bin(["install"]), "install");
    t.write("project.godot", "config_version=5\n");
    t.write("stats.tres", STATS);
    t.write(
        "level.tscn",
        "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n",
    );
    t.commit_all("base");
    t.checkout_new("theirs");
    t.write("stats.tres", with_uid("uid://c2theirs0002"));
    t.write(
        "enemy.tscn",
        "[gd_scene format=3 uid=\"uid://denemy0003\"]\n\n[ext_resource type=\"Resource\" uid=\"uid://c2theirs0002\" path=\"res://stats.tres\" id=\"1_st\"]\n\n[node name=\"Enemy\" type=\"Node2D\"]\nmetadata/stats = ExtResource(\"1_st\")\n",
    );
    t.commit_all("theirs re-saved stats and added an enemy");
    t.checkout("main");
    t.checkout_new("ours");
    t.write("stats.tres", with_uid("uid://b8ours00001"));
    t.commit_all("ours re-saved stats");
    let out = t.merge("theirs");
    assert_success(&out, "merge");
    let merged = String::from_utf8(t.read("stats.tres")).unwrap();
    assert!(merged.contains("uid=\"uid://b8ours00001\""), "{merged}");
    t
}

#[test]
fn doctor_names_a_scene_that_refers_by_theirs_uid_after_the_merge() {
    let t = merged();
    let out = t.run_bin(["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("problem: {SENTENCE}")), "{text}");
    assert!(
        text.contains("fix: open the file in the Godot editor and save it"),
        "{text}"
    );
    // Re-saved by Godot (the uid it has now): nothing left to name.
    let enemy = String::from_utf8(t.read("enemy.tscn")).unwrap();
    t.write(
        "enemy.tscn",
        enemy.replace("uid://c2theirs0002", "uid://b8ours00001"),
    );
    let text = stdout(&t.run_bin(["doctor"]));
    assert!(!text.contains("refers to res://stats.tres"), "{text}");
    assert!(
        text.contains("ok: no scene refers to a file by a uid it no longer has"),
        "{text}"
    );
}

#[test]
fn review_of_the_merge_names_it_in_text_json_markdown_and_html() {
    let t = merged();
    let review = |format: &str| {
        let out = t.run_bin([
            "review",
            "HEAD^..HEAD",
            "--format",
            format,
            "--color",
            "never",
        ]);
        assert_success(&out, "review");
        stdout(&out)
    };
    let text = review("text");
    assert!(text.contains(&format!("note: {SENTENCE}")), "{text}");
    let j: Value = serde_json::from_str(&review("json")).unwrap();
    let refs = j["stale_uid_refs"].as_array().unwrap();
    assert_eq!(refs.len(), 1, "{j}");
    assert_eq!(refs[0]["file"], "enemy.tscn");
    assert_eq!(refs[0]["target"], "res://stats.tres");
    assert_eq!(refs[0]["uid"], "uid://c2theirs0002");
    assert_eq!(refs[0]["now"], "uid://b8ours00001");
    assert_eq!(refs[0]["text"], SENTENCE);
    let md = review("markdown");
    assert!(
        md.contains("- `enemy.tscn` refers to `res://stats.tres` by `uid://c2theirs0002`"),
        "{md}"
    );
    let html = review("html");
    assert!(
        html.contains("<li>enemy.tscn refers to res://stats.tres"),
        "{html}"
    );
    // A range that touches none of the files involved names nothing.
    t.write(
        "level.tscn",
        "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node3D\"]\n",
    );
    t.commit_all("unrelated");
    let out = stdout(&t.run_bin(["review", "HEAD^..HEAD", "--format", "json"]));
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["stale_uid_refs"].as_array().unwrap().len(), 0, "{j}");
}

#[test]
fn review_heading_counts_config_files_apart() {
    let t = merged();
    let text = stdout(&t.run_bin(["review", "main..theirs", "--format", "text"]));
    assert!(
        text.starts_with("2 scene files changed in main..theirs"),
        "{text}"
    );
    t.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"X\"\n",
    );
    t.commit_all("named");
    let text = stdout(&t.run_bin(["review", "HEAD^..HEAD", "--format", "text"]));
    assert!(
        text.starts_with("1 config file changed in HEAD^..HEAD"),
        "{text}"
    );
    let text = stdout(&t.run_bin(["review", "main..HEAD", "--format", "text"]));
    assert!(
        text.starts_with("2 scene files and 1 config file changed in main..HEAD"),
        "{text}"
    );
}
