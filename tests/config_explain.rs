//! ConfigFile merges: `--explain=json` gives structured decisions (kind, section, key,
//! kept and dropped values) as the scene merge does, and the sidecar uid note names the
//! work tree's scenes that refer to the uid not kept.

mod common;

use common::{stderr, TempRepo};

fn import(uid: &str) -> String {
    format!("[remap]\n\nimporter=\"texture\"\ntype=\"CompressedTexture2D\"\nuid=\"{uid}\"\npath=\"res://.godot/imported/icon.png-x.ctex\"\n\n[deps]\n\nsource_file=\"res://icon.png\"\n")
}

#[test]
fn explain_json_of_a_config_merge_is_structured_and_the_uid_note_names_scenes() {
    let repo = TempRepo::new();
    repo.write("base", "");
    repo.write("ours", import("uid://ours1"));
    repo.write("theirs", import("uid://theirs2"));
    let uses = "[gd_scene format=3]\n\n[ext_resource type=\"Texture2D\" uid=\"uid://theirs2\" path=\"res://icon.png\" id=\"1\"]\n\n[node name=\"R\" type=\"Sprite2D\"]\ntexture = ExtResource(\"1\")\n";
    repo.write("levels/uses_theirs.tscn", uses);
    repo.write("other.tscn", uses.replace("uid://theirs2", "uid://ours1"));
    let out = repo.run_bin([
        "merge",
        "--explain=json",
        "-p",
        "icon.png.import",
        "-o",
        "out",
        "base",
        "ours",
        "theirs",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let start = err.find('{').expect("a JSON document on stderr");
    let end = err.rfind('}').unwrap();
    let doc: serde_json::Value = serde_json::from_str(&err[start..=end]).expect(&err);
    let d = &doc["decisions"][0];
    assert_eq!(d["kind"], "sidecar_uid_kept_ours", "{doc}");
    assert_eq!(d["section"], "remap");
    assert_eq!(d["key"], "uid");
    assert_eq!(d["side"], "ours");
    assert_eq!(d["kept"], "uid://ours1");
    assert_eq!(d["dropped"], "uid://theirs2");
    assert!(d["message"].as_str().unwrap().contains("kept ours'"));
    assert!(
        err.contains("refer to theirs' uid://theirs2: levels/uses_theirs.tscn;"),
        "{err}"
    );
    assert!(!err.contains("other.tscn"), "{err}");
}
