//! The merge driver inside real `git merge` runs: `tscn-merge install`, two branches,
//! `git merge`, then the file, the exit status and `git status` are checked.

mod common;

use common::{assert_success, stderr, stdout, TempRepo};

fn example(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A repository with `scene.tscn` at `base` on main, `ours` committed on main and
/// `theirs` on branch `feature`, with the driver installed.
fn setup(base: &[u8], ours: &[u8], theirs: &[u8]) -> TempRepo {
    let t = TempRepo::new();
    assert_success(&t.run_bin(["install"]), "install");
    t.write("scene.tscn", base);
    t.commit_all("base");
    t.checkout_new("feature");
    t.write("scene.tscn", theirs);
    t.commit_all("theirs");
    t.checkout("main");
    t.write("scene.tscn", ours);
    t.commit_all("ours");
    t
}

fn status(t: &TempRepo) -> String {
    t.git_ok(["status", "--porcelain"])
}

#[test]
fn git_merge_resolves_colliding_ids_that_git_alone_cannot() {
    let (b, o, th) = (
        example("base.tscn"),
        example("ours.tscn"),
        example("theirs.tscn"),
    );
    // Without the driver git conflicts on this example.
    let plain = TempRepo::new();
    plain.write("scene.tscn", &b);
    plain.commit_all("base");
    plain.checkout_new("feature");
    plain.write("scene.tscn", &th);
    plain.commit_all("theirs");
    plain.checkout("main");
    plain.write("scene.tscn", &o);
    plain.commit_all("ours");
    assert!(
        !plain.merge("feature").status.success(),
        "the example should conflict for plain git"
    );

    let t = setup(&b, &o, &th);
    let out = t.merge("feature");
    assert_success(&out, "git merge with the driver");
    assert_eq!(status(&t), "", "work tree clean after the merge");
    let merged = t.read("scene.tscn");
    let text = String::from_utf8(merged).expect("utf-8");
    assert!(!text.contains("<<<<<<<"), "{text}");
    // The result is a valid scene.
    let check = t.run_bin(["check", "scene.tscn"]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    // Both sides' new sub_resources survived under distinct ids.
    let ids: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("[sub_resource"))
        .collect();
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(ids.len(), unique.len(), "{text}");
}

const BASE: &str = "[gd_scene load_steps=2 format=3 uid=\"uid://cbase\"]\n\n[ext_resource type=\"Script\" path=\"res://p.gd\" id=\"1_aaaaa\"]\n\n[node name=\"Player\" type=\"CharacterBody2D\"]\nscript = ExtResource(\"1_aaaaa\")\nspeed = 100\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n";

#[test]
fn true_conflicts_leave_small_markers_with_labels_and_exit_status_1() {
    let t = setup(
        BASE.as_bytes(),
        BASE.replace("speed = 100", "speed = 200").as_bytes(),
        BASE.replace("speed = 100", "speed = 300").as_bytes(),
    );
    t.git_ok(["config", "merge.conflictStyle", "diff3"]);
    let out = t.merge("feature");
    assert!(!out.status.success());
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    // One property line in markers, git's labels (HEAD, the base commit, the branch),
    // the base in between (diff3 style, from the repository's config).
    let start = text
        .find("<<<<<<< HEAD\nspeed = 200\n||||||| ")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        text[start..].contains("\nspeed = 100\n=======\nspeed = 300\n>>>>>>> feature\n"),
        "{text}"
    );
    assert_eq!(text.matches("<<<<<<<").count(), 1, "{text}");
    assert!(status(&t).contains("UU scene.tscn"), "{}", status(&t));
    // git reports the conflict and our short report names the property.
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("CONFLICT"), "{all}");
    assert!(all.contains("speed"), "{all}");
}

#[test]
fn marker_size_from_gitattributes_is_honoured() {
    let t = setup(
        BASE.as_bytes(),
        BASE.replace("speed = 100", "speed = 200").as_bytes(),
        BASE.replace("speed = 100", "speed = 300").as_bytes(),
    );
    let mut attrs = String::from_utf8(t.read(".gitattributes")).expect("utf-8");
    attrs.push_str("*.tscn conflict-marker-size=10\n");
    t.write(".gitattributes", attrs);
    t.commit_all("marker size");
    let out = t.merge("feature");
    assert!(!out.status.success());
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    assert!(
        text.contains("<<<<<<<<<< HEAD\n") && text.contains("\n>>>>>>>>>> feature\n"),
        "{text}"
    );
}

#[test]
fn clean_structural_merge_of_different_properties_and_nodes() {
    let ours = BASE.replace("speed = 100", "speed = 200")
        + "\n[node name=\"Camera\" type=\"Camera2D\" parent=\".\"]\n";
    let theirs = BASE.replace("speed = 100\n", "speed = 100\njump = 3\n")
        + "\n[node name=\"Label\" type=\"Label\" parent=\".\"]\n";
    let t = setup(BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = t.merge("feature");
    assert_success(&out, "git merge");
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    assert!(text.contains("speed = 200\njump = 3\n"), "{text}");
    assert!(
        text.contains("[node name=\"Camera\"") && text.contains("[node name=\"Label\""),
        "{text}"
    );
    assert_eq!(status(&t), "");
    // The merge commit exists and the history has both parents.
    assert_eq!(t.git_ok(["rev-list", "--count", "HEAD^@"]).trim(), "3");
}

#[test]
fn unparsable_side_falls_back_to_a_line_merge_like_git() {
    let ours = BASE.replace("speed = 100", "speed = \"oops");
    let theirs = BASE.replace("[node name=\"Sprite\"", "[node name=\"Sprite2\"");
    let t = setup(BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = t.merge("feature");
    // The line merge succeeds here (different lines), exactly as git merge-file would.
    let text = t.read("scene.tscn");
    let (git_text, git_code) =
        common::git_merge_file(BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes())
            .expect("git merge-file");
    assert_eq!(text, git_text);
    assert_eq!(out.status.success(), git_code == 0);
}

#[test]
/// `--timeout 0` means the line merge only; the timer path itself (a slow structural
/// merge overtaken by the limit) is not timed in tests.
fn timeout_zero_gives_the_line_merge_git_would() {
    let dir = tempfile::tempdir().expect("tmp");
    for n in ["base", "ours", "theirs"] {
        std::fs::write(
            dir.path().join(format!("{n}.tscn")),
            example(&format!("{n}.tscn")),
        )
        .expect("write");
    }
    let out = std::process::Command::new(common::bin())
        .args([
            "merge",
            "--timeout",
            "0",
            "base.tscn",
            "ours.tscn",
            "theirs.tscn",
        ])
        .current_dir(dir.path())
        .env_remove("TSCN_MERGE")
        .env_remove("TSCN_MERGE_FAVOR")
        .output()
        .expect("run");
    let (git_text, _) = common::git_merge_file(
        &example("base.tscn"),
        &example("ours.tscn"),
        &example("theirs.tscn"),
    )
    .expect("git merge-file");
    assert_eq!(out.stdout, git_text);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--timeout"), "{}", stderr(&out));
}

#[test]
fn git_merge_notes_when_both_sides_reordered_differently() {
    let scene = |names: [&str; 3]| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n");
        for n in names {
            s.push_str(&format!(
                "\n[node name=\"{n}\" type=\"Node\" parent=\".\"]\n"
            ));
        }
        s.into_bytes()
    };
    let t = setup(
        &scene(["A", "B", "C"]),
        &scene(["C", "A", "B"]),
        &scene(["B", "C", "A"]),
    );
    let out = t.merge("feature");
    assert_success(&out, "git merge with the driver");
    assert_eq!(t.read("scene.tscn"), scene(["C", "A", "B"]), "ours' order");
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains("note: both sides reordered the same nodes differently"),
        "{all}"
    );
}

#[test]
fn big_scenes_merge_in_git_with_mapped_inputs() {
    // Over 1 MiB, so the driver maps its three inputs and then writes the result over
    // one of them (`%A`): the result must be the merge, not bytes of the mapped file.
    let mut base = String::from(BASE);
    for i in 0..14_000 {
        base.push_str(&format!(
            "\n[node name=\"Item{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({i}, 8)\n"
        ));
    }
    assert!(base.len() > 1 << 20, "{}", base.len());
    let ours = base.replace("Vector2(10, 8)\n", "Vector2(10, 9)\n");
    let theirs = base.replace(
        "Vector2(13999, 8)\n",
        "Vector2(13999, 7)\nvisible = false\n",
    );
    let t = setup(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = t.merge("feature");
    assert_success(&out, "git merge");
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    let want = ours.replace(
        "Vector2(13999, 8)\n",
        "Vector2(13999, 7)\nvisible = false\n",
    );
    assert!(
        text == want,
        "the merge of a big scene differs from both sides' changes"
    );
    assert_eq!(status(&t), "");
}

/// `git merge feature` with extra environment and `-c` settings.
fn merge_with(t: &common::TempRepo, env: &[(&str, &str)], config: &[&str]) -> std::process::Output {
    let mut cmd = t.command("git");
    for c in config {
        cmd.args(["-c", c]);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(["merge", "--no-edit", "--no-ff", "feature"])
        .output()
        .expect("running git")
}

fn speed_conflict() -> common::TempRepo {
    setup(
        BASE.as_bytes(),
        BASE.replace("speed = 100", "speed = 200").as_bytes(),
        BASE.replace("speed = 100", "speed = 300").as_bytes(),
    )
}

#[test]
fn conflict_style_follows_git_config_and_dash_c() {
    let two_sided = "<<<<<<< HEAD\nspeed = 200\n=======\nspeed = 300\n>>>>>>> feature\n";
    // (repository config, -c override, base section expected)
    let cases: [(Option<&str>, Option<&str>, bool); 6] = [
        (None, None, false),
        (Some("diff3"), None, true),
        (Some("zdiff3"), None, true),
        (Some("merge"), None, false),
        (None, Some("merge.conflictStyle=diff3"), true),
        (Some("diff3"), Some("merge.conflictStyle=merge"), false),
    ];
    for (config, dash_c, base) in cases {
        let t = speed_conflict();
        if let Some(style) = config {
            t.git_ok(["config", "merge.conflictStyle", style]);
        }
        let out = merge_with(&t, &[], dash_c.as_slice());
        assert!(!out.status.success(), "{config:?} {dash_c:?}");
        let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
        assert_eq!(
            text.contains("\n||||||| "),
            base,
            "{config:?} {dash_c:?}\n{text}"
        );
        assert_eq!(
            text.contains(two_sided),
            !base,
            "{config:?} {dash_c:?}\n{text}"
        );
        assert_eq!(text.matches("<<<<<<<").count(), 1, "{text}");
    }
}

#[test]
fn favor_and_off_switches_reach_the_driver_through_the_environment() {
    let t = speed_conflict();
    let out = merge_with(&t, &[("TSCN_MERGE_FAVOR", "theirs")], &[]);
    assert_success(&out, "git merge with TSCN_MERGE_FAVOR=theirs");
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    assert!(
        text.contains("speed = 300\n") && !text.contains("<<<<<<<"),
        "{text}"
    );

    // Off: git's own line merge, which conflicts on the id collision the driver resolves.
    let (b, o, th) = (
        example("base.tscn"),
        example("ours.tscn"),
        example("theirs.tscn"),
    );
    let t = setup(&b, &o, &th);
    let out = merge_with(&t, &[("TSCN_MERGE", "off")], &[]);
    assert!(
        !out.status.success(),
        "TSCN_MERGE=off should leave git's conflict"
    );
    assert!(String::from_utf8_lossy(&t.read("scene.tscn")).contains("<<<<<<< HEAD"));
}

#[test]
fn a_clean_structural_merge_says_so_and_explains_on_request() {
    let (b, o, th) = (
        example("base.tscn"),
        example("ours.tscn"),
        example("theirs.tscn"),
    );
    let t = setup(&b, &o, &th);
    let out = t.merge("feature");
    assert_success(&out, "git merge with the driver");
    let err = stderr(&out);
    assert!(
        err.contains("tscn-merge: scene.tscn: ") && err.contains("resolved structurally"),
        "{err}"
    );
    assert!(
        !err.contains("renamed their"),
        "explained without being asked: {err}"
    );

    let t = setup(&b, &o, &th);
    t.git_ok(["config", "tscn-merge.explain", "true"]);
    let err = stderr(&t.merge("feature"));
    assert!(err.contains("scene.tscn: renamed their"), "{err}");
}

/// Both keys the driver reads from git, one in the repository's file and the other a `-c`
/// override, are honoured together, read with one `git config` run (counted in
/// `GIT_TRACE`, which git passes on to the driver and its own git).
#[test]
fn conflict_style_and_explain_are_read_together_with_one_git_config() {
    let cases = [
        ("tscn-merge.explain", "true", "merge.conflictStyle=diff3"),
        ("merge.conflictStyle", "diff3", "tscn-merge.explain=true"),
    ];
    for (key, value, dash_c) in cases {
        let t = speed_conflict();
        t.git_ok(["config", key, value]);
        let trace = t.scratch().join("trace");
        let trace_text = trace.to_str().expect("a UTF-8 temp path");
        let out = merge_with(&t, &[("GIT_TRACE", trace_text)], &[dash_c]);
        assert!(!out.status.success(), "{key} {dash_c}");
        let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
        assert!(
            text.contains("\n||||||| "),
            "no diff3 base: {key} {dash_c}\n{text}"
        );
        let err = stderr(&out);
        assert!(
            err.contains("scene.tscn: no automatic decisions were needed"),
            "not explained: {key} {dash_c}\n{err}"
        );
        let traced = std::fs::read_to_string(&trace).expect("reading GIT_TRACE's file");
        let runs = traced
            .lines()
            .filter(|l| l.contains("trace: built-in: git config"))
            .count();
        assert_eq!(runs, 1, "{key} {dash_c}\n{traced}");
    }
}

#[test]
fn both_branches_adding_the_scene_merge_structurally() {
    let t = common::TempRepo::new();
    assert_success(&t.run_bin(["install"]), "install");
    t.commit_all("driver installed");
    let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\nspeed = 1\n";
    t.checkout_new("feature");
    t.write(
        "scene.tscn",
        format!("{head}\n[node name=\"B\" type=\"Node\" parent=\".\"]\n"),
    );
    t.commit_all("theirs adds");
    t.checkout("main");
    t.write(
        "scene.tscn",
        format!("{head}\n[node name=\"A\" type=\"Node\" parent=\".\"]\n"),
    );
    t.commit_all("ours adds");
    let out = t.merge("feature");
    assert_success(&out, "add/add merge with the driver");
    let text = String::from_utf8(t.read("scene.tscn")).expect("utf-8");
    assert!(
        text.contains("[node name=\"A\"") && text.contains("[node name=\"B\""),
        "{text}"
    );
    assert_eq!(text.matches("[node name=\"Root\"").count(), 1, "{text}");
}
