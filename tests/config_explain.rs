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

/// A repository whose driver is installed, with `project.godot` routed to it: ours adds
/// an autoload, theirs a section git would conflict with.
fn merged_project(section: &str) -> (TempRepo, std::process::Output) {
    let t = TempRepo::new();
    common::assert_success(&t.run_bin(["install"]), "install");
    let base = "config_version=5\n\n[application]\n\nconfig/name=\"Game\"\n\n[display]\n\nwindow/size/width=640\n";
    t.write("project.godot", base);
    t.commit_all("base");
    t.checkout_new("feature");
    t.write(
        "project.godot",
        base.replace("[display]", &format!("[{section}]\n\nx=1\n\n[display]")),
    );
    t.commit_all("theirs");
    t.checkout("main");
    t.write(
        "project.godot",
        base.replace("[display]", "[autoload]\n\nA=\"*res://a.gd\"\n\n[display]"),
    );
    t.commit_all("ours");
    let out = t.merge("feature");
    common::assert_success(&out, "git merge with the driver");
    (t, out)
}

#[test]
fn a_config_merge_is_recorded_and_explained_afterwards() {
    let (t, out) = merged_project("audio");
    let err = stderr(&out);
    assert!(
        err.contains("details: tscn-merge explain project.godot"),
        "the note must point at what works once git deleted the inputs:\n{err}"
    );
    let shown = t.run_bin(["explain", "project.godot"]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    let text = common::stdout(&shown);
    assert!(text.starts_with("=== project.godot\n"), "{text}");
    assert!(
        text.contains("merged by section and key, 0 conflict(s)"),
        "{text}"
    );
    assert!(text.contains("placed in Godot's sorted order"), "{text}");
}

#[test]
fn explain_and_doctor_spell_out_escapes_from_names() {
    // A section named with an escape sequence, in a decision `explain` prints.
    let (t, _) = merged_project("b\u{1b}[2J\u{7}");
    let shown = t.run_bin(["explain", "project.godot"]);
    let text = common::stdout(&shown);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "raw: {text:?}"
    );
    assert!(text.contains("\\x1b[2J\\x07"), "{text}");
    // A fallback line as the driver's shell command writes it (git's %P, raw).
    let state = t.path().join(".git/tscn-merge");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(
        state.join("fallbacks"),
        "2026-01-01T00:00:00Z lev\u{1b}]0;pwned\u{7}el.tscn: the tscn-merge binary was not found\n",
    )
    .unwrap();
    let doctor = t.run_bin(["doctor"]);
    let all = format!("{}{}", common::stdout(&doctor), stderr(&doctor));
    assert!(all.contains("lev\\x1b]0;pwned\\x07el.tscn"), "{all}");
    assert!(
        !all.contains('\u{1b}') && !all.contains('\u{7}'),
        "raw: {all:?}"
    );
}
