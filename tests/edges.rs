//! Nothing lost at the edges (issue 29's small items): `--favor` and text that only
//! looks like markers, `check`'s caret line, blank lines after `--favor`, `review
//! --max-bytes`, binary files caught by a broad attribute. Driven through the binary.

mod common;

use std::process::Command;

/// `merge -o` with `extra` arguments: exit code, output text, stderr.
fn merge(base: &str, ours: &str, theirs: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, t: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, t).expect("write");
        f
    };
    let (b, o, t) = (
        p("base.tscn", base),
        p("ours.tscn", ours),
        p("theirs.tscn", theirs),
    );
    let out = dir.path().join("out.tscn");
    let run = Command::new(common::bin())
        .arg("merge")
        .args(extra)
        .arg("-o")
        .arg(&out)
        .args([&b, &o, &t])
        .env_remove("TSCN_MERGE_FAVOR")
        .output()
        .expect("run");
    (
        run.status.code().unwrap_or(-1),
        std::fs::read_to_string(&out).unwrap_or_default(),
        common::stderr(&run),
    )
}

/// A Godot 4 scene whose GDScript's `source` holds a tutorial with marker-shaped lines,
/// and a `Label` whose `text` is `label`.
fn tutorial_scene(label: &str) -> String {
    format!(
        r#"[gd_scene load_steps=2 format=3 uid="uid://b1tutorial0001"]

[sub_resource type="GDScript" id="GDScript_a1b2c"]
script/source = "extends Node
# How a conflict looks:
<<<<<<< x
var a = 1
=======
var a = 2
>>>>>>> y
"

[node name="Root" type="Node"]
script = SubResource("GDScript_a1b2c")

[node name="Label" type="Label" parent="."]
text = "{label}"
"#
    )
}

/// Item 4: `--favor ours` resolves the real conflict (the `Label`'s text) and keeps every
/// line of the string, as `git merge-file --ours` does.
#[test]
fn favor_keeps_marker_shaped_lines_of_a_script_source() {
    let (b, o, t) = (
        tutorial_scene("base"),
        tutorial_scene("ours"),
        tutorial_scene("theirs"),
    );
    for side in ["ours", "theirs"] {
        let (code, text, err) = merge(&b, &o, &t, &[&format!("--favor={side}")]);
        assert_eq!(code, 0, "{err}\n{text}");
        assert_eq!(text, tutorial_scene(side), "{err}");
    }
    // Without --favor the conflict is there, and the string too.
    let (code, text, _) = merge(&b, &o, &t, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("<<<<<<< x\nvar a = 1\n=======\nvar a = 2\n>>>>>>> y\n"));
    if let Some((git, _)) = common::git_merge_file(b.as_bytes(), o.as_bytes(), t.as_bytes()) {
        assert!(String::from_utf8_lossy(&git).contains("<<<<<<< x\n"));
    }
}

/// Item 13: `check`'s caret line sits under the offending line, on a line of its own.
#[test]
fn check_puts_the_caret_under_the_source_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("bad.tscn");
    std::fs::write(
        &f,
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nx = (\n",
    )
    .expect("write");
    let run = Command::new(common::bin())
        .arg("check")
        .arg(&f)
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(1));
    let err = common::stdout(&run);
    assert!(!err.contains("\\n"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].ends_with("bad.tscn:4:5: expected a value"),
        "{err}"
    );
    assert_eq!(lines[1..3], ["  | x = (", "  |     ^"], "{err}");
}

/// A Godot 4 scene of three sprites, `A` at `a` (or none when `a` is empty), and `C`
/// last (or none).
fn sprites(a: &str, c: bool) -> String {
    let mut s = String::from(
        "[gd_scene format=3 uid=\"uid://b1dm0001\"]\n\n[node name=\"Root\" type=\"Node2D\"]\n",
    );
    if !a.is_empty() {
        s += &format!("\n[node name=\"A\" type=\"Sprite2D\" parent=\".\"]\nposition = {a}\n");
    }
    s += "\n[node name=\"B\" type=\"Sprite2D\" parent=\".\"]\n";
    if c {
        s += "\n[node name=\"C\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(3, 3)\n";
    }
    s
}

/// Item 15: a delete/modify conflict resolved to the deleting side leaves one blank line
/// between sections (and one line break at the end), as the editor writes.
#[test]
fn favor_on_delete_modify_keeps_single_blank_lines() {
    let base = sprites("Vector2(1, 1)", true);
    let changed = sprites("Vector2(5, 5)", true);
    let deleted = sprites("", true);
    let (code, text, err) = merge(&base, &changed, &deleted, &["--favor=theirs"]);
    assert_eq!((code, text.as_str()), (0, deleted.as_str()), "{err}");
    let (code, text, err) = merge(&base, &deleted, &changed, &["--favor=ours"]);
    assert_eq!((code, text.as_str()), (0, deleted.as_str()), "{err}");
    let (code, text, err) = merge(&base, &deleted, &changed, &["--favor=theirs"]);
    assert_eq!((code, text.as_str()), (0, changed.as_str()), "{err}");
    // The last node deleted on one side and changed on the other.
    let c_changed = base.replace("Vector2(3, 3)", "Vector2(9, 9)");
    let c_gone = sprites("Vector2(1, 1)", false);
    let (code, text, err) = merge(&base, &c_changed, &c_gone, &["--favor=theirs"]);
    assert_eq!((code, text.as_str()), (0, c_gone.as_str()), "{err}");
}

/// Item 14: `review --max-bytes` below the smallest review prints that smallest review
/// and says so on stderr, naming its size; a limit that fits is held silently.
#[test]
fn review_says_when_max_bytes_cannot_hold() {
    let r = common::TempRepo::new();
    r.write("a.tscn", sprites("Vector2(1, 1)", true));
    let base = r.commit_all("base");
    r.write("a.tscn", sprites("Vector2(5, 5)", false));
    r.commit_all("edit");
    let range = format!("{base}..HEAD");
    let review = |max: &str| r.run_bin(["review", range.as_str(), "--max-bytes", max]);
    let tight = review("200");
    assert_eq!(tight.status.code(), Some(0));
    let (out, err) = (common::stdout(&tight), common::stderr(&tight));
    assert!(out.len() > 200, "{out}");
    assert!(
        err.contains(&format!("--max-bytes {}", out.len())) && err.contains("warning"),
        "{err}"
    );
    let room = review(&out.len().to_string());
    assert!(common::stdout(&room).len() <= out.len());
    assert!(
        !common::stderr(&room).contains("warning"),
        "{}",
        common::stderr(&room)
    );
}

/// A PNG-like file: the signature, a NUL-filled header and `fill`.
fn png(fill: &[u8]) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\n".to_vec();
    for _ in 0..20 {
        b.extend_from_slice(fill);
        b.push(b'\n');
    }
    b
}

/// Item 6: binary input under `merge --git` keeps ours byte for byte, conflicts (exit 1)
/// and says so in git's words; nothing of theirs is spliced in.
#[test]
fn binary_files_are_not_line_merged_under_git() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, b: &[u8]| {
        let f = dir.path().join(n);
        std::fs::write(&f, b).expect("write");
        f
    };
    let (base, theirs) = (png(b"base"), png(b"theirs"));
    // Ours' change and theirs' do not touch: a line merge would splice them.
    let mut ours_changed = base.clone();
    ours_changed.splice(0..0, b"x\n".iter().copied());
    let (b, o, t) = (
        p("b.png", &base),
        p("o.png", &ours_changed),
        p("t.png", &theirs),
    );
    let run = Command::new(common::bin())
        .args(["merge", "--git", "-p", "icon.png"])
        .args([&b, &o, &t])
        .env_remove("TSCN_MERGE_FAVOR")
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(1), "{}", common::stderr(&run));
    assert_eq!(std::fs::read(&o).expect("ours"), ours_changed);
    let err = common::stderr(&run);
    assert!(err.contains("Cannot merge binary files: icon.png"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Item 6 through a real `git merge` with `* merge=tscn-merge`: the `.png` conflicts and
/// the work tree holds ours, as git leaves a binary file it cannot merge.
#[test]
fn git_merge_of_a_binary_file_under_a_broad_attribute_keeps_ours() {
    let t = common::TempRepo::new();
    common::assert_success(&t.run_bin(["install"]), "install");
    t.write(".gitattributes", "* merge=tscn-merge\n");
    t.write("icon.png", png(b"base"));
    t.commit_all("base");
    t.checkout_new("feature");
    t.write("icon.png", png(b"theirs"));
    t.commit_all("theirs");
    t.checkout("main");
    let mut ours = png(b"base");
    ours.splice(0..0, b"x\n".iter().copied());
    t.write("icon.png", &ours);
    t.commit_all("ours");
    let out = t.merge("feature");
    assert!(!out.status.success(), "{}", common::stdout(&out));
    assert_eq!(t.read("icon.png"), ours);
    let status = t.git_ok(["status", "--porcelain"]);
    assert!(status.contains("UU icon.png"), "{status}");
}

/// A Godot 4 scene: `Root`, `A` (unless `a` is false), `C`, then `extra`.
fn with_a(a: bool, extra: &str) -> String {
    let mut s = String::from(
        "[gd_scene format=3 uid=\"uid://b1timeout01\"]\n\n[node name=\"Root\" type=\"Node2D\"]\n",
    );
    if a {
        s += "\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(1, 1)\n";
    }
    s += "\n[node name=\"C\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(3, 3)\n";
    s + extra
}

/// Item 5: after `--timeout` (0: the line merge at once) a clean line merge that leaves a
/// dangling `parent=` (theirs deleted `A`, ours gave it a child) is a conflict, as after
/// every other fallback.
#[test]
fn a_broken_line_merge_after_timeout_is_a_conflict() {
    let child = "\n[node name=\"B\" type=\"Node2D\" parent=\"A\"]\n";
    let (base, ours, theirs) = (with_a(true, ""), with_a(true, child), with_a(false, ""));
    if let Some((git, code)) =
        common::git_merge_file(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())
    {
        assert_eq!(code, 0, "git's line merge is clean here");
        assert!(String::from_utf8_lossy(&git).contains("parent=\"A\""));
    }
    let (code, text, err) = merge(&base, &ours, &theirs, &["--timeout=0"]);
    assert_eq!(code, 1, "{err}\n{text}");
    assert!(err.contains("parent"), "{err}");
    // Without the time limit the structural merge finds the same conflict.
    let (code, _, err) = merge(&base, &ours, &theirs, &[]);
    assert_eq!(code, 1, "{err}");
}

/// Run the binary in `dir` with `args`: exit code and stderr.
fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(common::bin())
        .args(args)
        .current_dir(dir)
        .env_remove("TSCN_MERGE_FAVOR")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", common::stdout(&out), common::stderr(&out)),
    )
}

/// Item 7: marker-shaped lines inside a string are text. `solve` has nothing to solve
/// and writes nothing; `check` (which the pre-commit hook runs) accepts the scene, and a
/// string holding one `=======` line (a Markdown underline).
#[test]
fn marker_shaped_lines_in_a_string_are_not_markers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let scene = tutorial_scene("hello");
    std::fs::write(dir.path().join("t.tscn"), &scene).expect("write");
    let underline = tutorial_scene("Title\n=======\nbody");
    std::fs::write(dir.path().join("u.tscn"), &underline).expect("write");
    let (code, err) = run_in(dir.path(), &["solve", "t.tscn"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("nothing to solve"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("t.tscn")).unwrap(),
        scene
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no backup"
    );
    for f in ["t.tscn", "u.tscn"] {
        let (code, err) = run_in(dir.path(), &["check", f]);
        assert_eq!(code, 0, "{f}: {err}");
    }
    // A real marker outside the string is still found.
    let broken = scene.replace("[node name=\"Label\"", "=======\n[node name=\"Label\"");
    std::fs::write(dir.path().join("b.tscn"), broken).expect("write");
    let (code, err) = run_in(dir.path(), &["check", "b.tscn"]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("conflict marker"), "{err}");
}

/// Item 7: `solve --favor` resolves the file's real block (diff3 markers on the Label's
/// text) and keeps every line of the tutorial in the script's `source`.
#[test]
fn solve_favor_keeps_marker_shaped_lines_of_a_string() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marked = tutorial_scene("X").replace(
        "text = \"X\"\n",
        "<<<<<<< HEAD\ntext = \"ours\"\n||||||| base\ntext = \"base\"\n=======\ntext = \"theirs\"\n>>>>>>> feature\n",
    );
    for side in ["ours", "theirs"] {
        std::fs::write(dir.path().join("t.tscn"), &marked).expect("write");
        let (code, err) = run_in(
            dir.path(),
            &["solve", "--no-backup", &format!("--favor={side}"), "t.tscn"],
        );
        assert_eq!(code, 0, "{err}");
        let got = std::fs::read_to_string(dir.path().join("t.tscn")).unwrap();
        assert_eq!(got, tutorial_scene(side), "{err}");
    }
}

/// Item 7 for ConfigFiles: `merge --favor` of a `project.godot` resolves the real
/// conflict and leaves a string's marker-shaped lines alone.
#[test]
fn config_favor_keeps_marker_shaped_lines_of_a_string() {
    let cfg = |name: &str| {
        format!("config_version=5\n\n[application]\n\nconfig/name=\"{name}\"\nconfig/description=\"How a conflict looks:\n<<<<<<< x\na\n=======\nb\n>>>>>>> y\n\"\n")
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for (n, v) in [("b", "base"), ("o", "ours"), ("t", "theirs")] {
        std::fs::write(dir.path().join(n), cfg(v)).expect("write");
    }
    for side in ["ours", "theirs"] {
        let out = dir.path().join("out");
        let (code, err) = run_in(
            dir.path(),
            &[
                "merge",
                "-p",
                "project.godot",
                &format!("--favor={side}"),
                "-o",
                "out",
                "b",
                "o",
                "t",
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(std::fs::read_to_string(out).unwrap(), cfg(side), "{err}");
    }
}
