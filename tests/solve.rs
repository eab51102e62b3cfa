//! `tscn-merge solve` end to end: conflicts left by git without the driver (merge,
//! rebase), files with diff3, two-sided and resized markers outside any repository.

mod common;

use common::{assert_success, stderr, stdout, TempRepo};
use std::path::{Path, PathBuf};
use std::process::Output;

const BASE: &str = r#"[gd_scene load_steps=2 format=3 uid="uid://b4k2x7q1m3n5p"]

[ext_resource type="Script" path="res://player/player.gd" id="1_p7x2k"]

[node name="Player" type="CharacterBody2D"]
script = ExtResource("1_p7x2k")
speed = 200.0

[node name="Sprite" type="Sprite2D" parent="."]
position = Vector2(0, -16)
"#;

/// Ours: a hitbox shape and a node using it, and a faster player.
const OURS: &str = r#"[gd_scene load_steps=3 format=3 uid="uid://b4k2x7q1m3n5p"]

[ext_resource type="Script" path="res://player/player.gd" id="1_p7x2k"]

[sub_resource type="RectangleShape2D" id="RectangleShape2D_8f3kd"]
size = Vector2(16, 32)

[node name="Player" type="CharacterBody2D"]
script = ExtResource("1_p7x2k")
speed = 250.0

[node name="Sprite" type="Sprite2D" parent="."]
position = Vector2(0, -16)

[node name="Hitbox" type="CollisionShape2D" parent="."]
shape = SubResource("RectangleShape2D_8f3kd")
"#;

/// Theirs: a different shape under the same id, a node using it, and a moved sprite.
const THEIRS: &str = r#"[gd_scene load_steps=3 format=3 uid="uid://b4k2x7q1m3n5p"]

[ext_resource type="Script" path="res://player/player.gd" id="1_p7x2k"]

[sub_resource type="RectangleShape2D" id="RectangleShape2D_8f3kd"]
size = Vector2(12, 4)

[node name="Player" type="CharacterBody2D"]
script = ExtResource("1_p7x2k")
speed = 200.0

[node name="Sprite" type="Sprite2D" parent="."]
position = Vector2(0, -20)

[node name="Feet" type="CollisionShape2D" parent="."]
position = Vector2(0, 14)
shape = SubResource("RectangleShape2D_8f3kd")
"#;

const SCENE: &str = "scenes/player.tscn";

fn has_markers(b: &[u8]) -> bool {
    String::from_utf8_lossy(b)
        .lines()
        .any(|l| l.starts_with("<<<<<<<"))
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// main: BASE then OURS; branch other: THEIRS. Returns the repo with `git merge
/// other` done (no driver installed: git leaves markers).
fn conflicted_merge(style: Option<&str>) -> TempRepo {
    let t = TempRepo::new();
    if let Some(s) = style {
        t.git_ok(["config", "merge.conflictStyle", s]);
    }
    t.write(SCENE, BASE);
    t.commit_all("base");
    t.checkout_new("other");
    t.write(SCENE, THEIRS);
    t.commit_all("theirs: feet");
    t.checkout("main");
    t.write(SCENE, OURS);
    t.commit_all("ours: hitbox");
    let out = t.merge("other");
    assert!(
        !out.status.success(),
        "git must conflict without the driver"
    );
    assert!(has_markers(&t.read(SCENE)));
    t
}

/// `tscn-merge merge` over three files, stdout.
fn merge_bytes(t: &TempRepo, base: &[u8], ours: &[u8], theirs: &[u8]) -> Vec<u8> {
    let dir = t.scratch();
    let paths: Vec<PathBuf> = ["b.tscn", "o.tscn", "t.tscn"]
        .iter()
        .map(|n| dir.join(n))
        .collect();
    for (p, bytes) in paths.iter().zip([base, ours, theirs]) {
        std::fs::write(p, bytes).unwrap();
    }
    let out = t.run_bin([Path::new("merge"), &paths[0], &paths[1], &paths[2]]);
    assert_eq!(code(&out), 0, "merge must be clean: {}", stderr(&out));
    out.stdout
}

fn stage(t: &TempRepo, n: u8, path: &str) -> Vec<u8> {
    t.command("git")
        .args(["show", &format!(":{n}:{path}")])
        .output()
        .unwrap()
        .stdout
}

/// The merged scene is a valid scene with both sides' work.
fn assert_both_sides(text: &[u8]) {
    let s = String::from_utf8_lossy(text);
    assert!(!has_markers(text), "{s}");
    for want in [
        "name=\"Hitbox\"",
        "name=\"Feet\"",
        "speed = 250.0",
        "Vector2(0, -20)",
        "Vector2(16, 32)",
        "Vector2(12, 4)",
    ] {
        assert!(s.contains(want), "missing {want} in\n{s}");
    }
    // Two distinct shapes: their id was renamed and Feet follows it.
    assert_eq!(s.matches("[sub_resource").count(), 2, "{s}");
    let check = gdscene::model::Scene::parse(text).expect("the result parses");
    assert!(
        !gdscene::check::is_broken(&gdscene::check::check(&check)),
        "{s}"
    );
}

#[test]
fn merge_without_driver_then_solve_from_index_stages() {
    let t = conflicted_merge(None);
    let conflicted = t.read(SCENE);
    let expected = merge_bytes(
        &t,
        &stage(&t, 1, SCENE),
        &stage(&t, 2, SCENE),
        &stage(&t, 3, SCENE),
    );
    let out = t.run_bin(["solve", SCENE]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("index stages"), "{err}");
    assert!(err.contains("git add"), "{err}");
    assert_eq!(t.read(SCENE), expected);
    assert_both_sides(&expected);
    // The backup is under .git, never in the work tree where `git add -A` takes it.
    assert_eq!(
        t.read(format!(".git/tscn-merge/backup/{SCENE}.orig")),
        conflicted
    );
    assert!(t.try_read(format!("{SCENE}.orig")).is_none());
    let untracked = t.git_ok(["status", "--porcelain", "--untracked-files=all"]);
    assert!(!untracked.contains(".orig"), "{untracked}");
    // Not added for the user.
    let status = t.git_ok(["status", "--porcelain", "--", SCENE]);
    assert!(status.starts_with("UU"), "{status}");
    // Solving again: the markers are gone, nothing to do, nothing touched.
    let again = t.run_bin(["solve", SCENE]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(
        stderr(&again).contains("nothing to solve"),
        "{}",
        stderr(&again)
    );
    assert_eq!(t.read(SCENE), expected);
    t.git_ok(["add", SCENE]);
    t.git_ok(["commit", "-q", "--no-edit"]);
}

#[test]
fn solve_from_a_subdirectory_with_explain() {
    let t = conflicted_merge(Some("diff3"));
    let out = t
        .command(common::bin())
        .args(["solve", "--explain", "player.tscn"])
        .current_dir(t.abs("scenes"))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("renamed their sub_resource"),
        "{}",
        stderr(&out)
    );
    assert_both_sides(&t.read(SCENE));
}

#[test]
fn rebase_with_two_conflicting_commits() {
    let t = TempRepo::new();
    t.write(SCENE, BASE);
    t.commit_all("base");
    t.checkout_new("feature");
    // Commit 1: the hitbox; commit 2: a faster player.
    let hitbox = OURS.replace("speed = 250.0", "speed = 200.0");
    t.write(SCENE, &hitbox);
    t.commit_all("feature: hitbox");
    t.write(SCENE, OURS);
    t.commit_all("feature: speed");
    t.checkout("main");
    // main: the feet, then a slower player.
    t.write(SCENE, THEIRS);
    t.commit_all("main: feet");
    t.write(
        SCENE,
        THEIRS.replace("speed = 200.0", "speed = 200.0\njump_velocity = -400.0"),
    );
    t.commit_all("main: jump");
    t.checkout("feature");
    let out = t.git(["rebase", "main"]);
    assert!(!out.status.success(), "the first pick must conflict");
    let mut stops = 0;
    loop {
        assert!(has_markers(&t.read(SCENE)));
        let solved = t.run_bin(["solve", "--no-backup", SCENE]);
        assert_eq!(code(&solved), 0, "{}", stderr(&solved));
        assert!(t.try_read(format!("{SCENE}.orig")).is_none());
        stops += 1;
        t.git_ok(["add", SCENE]);
        let cont = t.git(["-c", "core.editor=true", "rebase", "--continue"]);
        if cont.status.success() {
            break;
        }
        assert!(stops < 2, "{}", String::from_utf8_lossy(&cont.stderr));
    }
    assert_eq!(stops, 2, "both picks stop with a conflict");
    let text = t.read(SCENE);
    assert_both_sides(&text);
    assert!(String::from_utf8_lossy(&text).contains("jump_velocity = -400.0"));
    assert_eq!(t.git_ok(["rev-list", "--count", "main..HEAD"]).trim(), "2");
}

/// Run `git merge-file -p` with extra flags on the three versions in scratch; returns
/// the marked text.
fn merge_file(t: &TempRepo, flags: &[&str]) -> Vec<u8> {
    merge_file_of(t, [OURS, BASE, THEIRS], flags)
}

/// [`merge_file`] of other texts: ours, base, theirs.
fn merge_file_of(t: &TempRepo, sides: [&str; 3], flags: &[&str]) -> Vec<u8> {
    let dir = t.scratch();
    for (n, s) in ["o", "b", "t"].into_iter().zip(sides) {
        std::fs::write(dir.join(n), s).unwrap();
    }
    let mut args = vec![
        "merge-file",
        "-p",
        "-L",
        "HEAD",
        "-L",
        "base",
        "-L",
        "other",
    ];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["o", "b", "t"]);
    let out = t
        .command("git")
        .args(&args)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(code(&out) > 0, "git merge-file must conflict");
    assert!(!out.stdout.is_empty());
    out.stdout
}

/// A folder that is not in any repository, with `name` holding `bytes`.
fn outside(t: &TempRepo, name: &str, bytes: &[u8]) -> PathBuf {
    let p = t.scratch().join("loose").join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

fn solve_at(t: &TempRepo, args: &[&str], file: &Path) -> Output {
    let mut cmd = t.command(common::bin());
    cmd.arg("solve")
        .args(args)
        .arg(file)
        .current_dir(file.parent().unwrap());
    // Make sure no repository is found above the scratch folder.
    cmd.env("GIT_CEILING_DIRECTORIES", t.scratch().parent().unwrap());
    cmd.output().unwrap()
}

#[test]
fn diff3_markers_outside_a_repository() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--diff3"]);
    let file = outside(&t, "player.tscn", &marked);
    let out = solve_at(&t, &[], &file);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("diff3 markers"), "{}", stderr(&out));
    let solved = std::fs::read(&file).unwrap();
    assert_eq!(
        solved,
        merge_bytes(&t, BASE.as_bytes(), OURS.as_bytes(), THEIRS.as_bytes())
    );
    assert_both_sides(&solved);
    assert_eq!(
        std::fs::read(file.with_extension("tscn.orig")).unwrap(),
        marked
    );
}

/// zdiff3 moves the lines both sides share out of a block, so a base rebuilt from the
/// markers alone wrongly holds them: here the base seems to have the shape already.
/// The result must stay safe (the disagreement is reported, both nodes kept); inside
/// a repository the index stages give the exact base instead.
#[test]
fn zdiff3_markers_are_approximate_but_safe() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--zdiff3"]);
    let file = outside(&t, "player.tscn", &marked);
    let out = solve_at(&t, &["--no-backup"], &file);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("size: base (absent) | ours Vector2(16, 32) | theirs Vector2(12, 4)"),
        "{}",
        stderr(&out)
    );
    let r = String::from_utf8(std::fs::read(&file).unwrap()).unwrap();
    assert!(
        r.contains("name=\"Hitbox\"")
            && r.contains("name=\"Feet\"")
            && r.contains("Vector2(0, -20)"),
        "{r}"
    );
    assert!(!file.with_extension("tscn.orig").exists());
    // In a repository the stages are used: clean.
    let t = conflicted_merge(Some("zdiff3"));
    let out = t.run_bin(["solve", SCENE]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_both_sides(&t.read(SCENE));
}

#[test]
fn two_sided_markers_are_handled_safely() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &[]);
    assert!(!String::from_utf8_lossy(&marked).contains("|||||||"));
    let file = outside(&t, "player.tscn", &marked);
    let out = solve_at(&t, &[], &file);
    let err = stderr(&out);
    assert!(
        err.contains("only the conflicted hunks can be re-merged"),
        "{err}"
    );
    let result = std::fs::read(&file).unwrap();
    match code(&out) {
        0 => assert_both_sides(&result),
        1 => {
            // Every kept block is byte for byte one of the input's blocks, and every
            // line of the input is still there.
            assert!(has_markers(&result));
            let r = String::from_utf8_lossy(&result);
            for line in String::from_utf8_lossy(&marked).lines() {
                if !line.starts_with("[gd_scene") {
                    assert!(r.contains(line), "lost {line:?}:\n{r}");
                }
            }
        }
        c => panic!("exit {c}: {err}"),
    }
}

#[test]
fn two_sided_markers_both_added_nodes() {
    let t = TempRepo::new();
    // Both appended a node; one property changed differently on each side.
    let marked = format!(
        "{}\n<<<<<<< HEAD\n[node name=\"Gun\" type=\"Node2D\" parent=\".\"]\n=======\n[node name=\"Hat\" type=\"Sprite2D\" parent=\"Sprite\"]\n>>>>>>> other\n",
        BASE.replace("speed = 200.0\n", "<<<<<<< HEAD\nspeed = 250.0\n=======\nspeed = 150.0\n>>>>>>> other\n")
    );
    let file = outside(&t, "player.tscn", marked.as_bytes());
    let out = solve_at(&t, &[], &file);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 of 2 block(s) re-merged"),
        "{}",
        stderr(&out)
    );
    let r = String::from_utf8(std::fs::read(&file).unwrap()).unwrap();
    assert!(
        r.contains("<<<<<<< HEAD\nspeed = 250.0\n=======\nspeed = 150.0\n>>>>>>> other\n"),
        "{r}"
    );
    assert!(
        r.contains("name=\"Gun\"") && r.contains("name=\"Hat\""),
        "{r}"
    );
    assert_eq!(r.matches("<<<<<<<").count(), 1, "{r}");
    assert_eq!(
        std::fs::read(file.with_extension("tscn.orig")).unwrap(),
        marked.as_bytes()
    );
}

#[test]
fn no_conflict_is_nothing_to_solve() {
    let t = TempRepo::new();
    let file = outside(&t, "player.tscn", BASE.as_bytes());
    let out = solve_at(&t, &[], &file);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to solve"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&file).unwrap(), BASE.as_bytes());
    assert!(!file.with_extension("tscn.orig").exists());
    // Same in a repository for a clean, tracked file.
    t.write(SCENE, BASE);
    t.commit_all("base");
    let out = t.run_bin(["solve", SCENE]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(t.read(SCENE), BASE.as_bytes());
    assert!(t.try_read(format!("{SCENE}.orig")).is_none());
}

#[test]
fn stdout_prints_and_leaves_the_file() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--diff3"]);
    let file = outside(&t, "player.tscn", &marked);
    let out = solve_at(&t, &["--stdout", "--explain=json"], &file);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        out.stdout,
        merge_bytes(&t, BASE.as_bytes(), OURS.as_bytes(), THEIRS.as_bytes())
    );
    assert_eq!(std::fs::read(&file).unwrap(), marked);
    assert!(!file.with_extension("tscn.orig").exists());
    let err = stderr(&out);
    assert!(err.contains("\"schema\": \"tscn-merge/explain\""), "{err}");
    assert!(err.contains("\"id_renamed\""), "{err}");
}

#[test]
fn marker_size_ten() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--diff3", "--marker-size=10"]);
    assert!(String::from_utf8_lossy(&marked).contains("<<<<<<<<<< HEAD"));
    let expected = merge_bytes(&t, BASE.as_bytes(), OURS.as_bytes(), THEIRS.as_bytes());
    for flags in [&["-l", "10"][..], &[][..]] {
        let file = outside(&t, "player.tscn", &marked);
        let out = solve_at(&t, flags, &file);
        assert_eq!(code(&out), 0, "{flags:?}: {}", stderr(&out));
        assert_eq!(std::fs::read(&file).unwrap(), expected, "{flags:?}");
    }
}

#[test]
fn remaining_conflicts_exit_one_with_minimal_markers() {
    let t = TempRepo::new();
    let dir = t.scratch();
    let ours = BASE.replace("speed = 200.0", "speed = 250.0");
    let theirs = BASE.replace("speed = 200.0", "speed = 150.0");
    for (n, s) in [("o", ours.as_str()), ("b", BASE), ("t", theirs.as_str())] {
        std::fs::write(dir.join(n), s).unwrap();
    }
    let out = t
        .command("git")
        .args([
            "merge-file",
            "-p",
            "--diff3",
            "--marker-size=9",
            "o",
            "b",
            "t",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    let file = outside(&t, "player.tscn", &out.stdout);
    let out = solve_at(&t, &["-l", "9"], &file);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("conflict(s) remain"),
        "{}",
        stderr(&out)
    );
    let r = String::from_utf8(std::fs::read(&file).unwrap()).unwrap();
    assert!(
        r.contains("<<<<<<<<< ") && r.contains("speed = 250.0") && r.contains("speed = 150.0"),
        "{r}"
    );
}

#[test]
fn errors_exit_two() {
    let t = TempRepo::new();
    let missing = t.scratch().join("nope.tscn");
    let out = solve_at(&t, &[], &missing);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
    // A directory is not readable as a file.
    let dir = t.scratch().join("dir.tscn");
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(code(&solve_at(&t, &[], &dir)), 2);
    // An unterminated block.
    let bad = b"[gd_scene format=3]\n<<<<<<< HEAD\nx = 1\n=======\n";
    let file = outside(&t, "bad.tscn", bad);
    let out = solve_at(&t, &[], &file);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("never ends"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&file).unwrap(), bad);
    // Other files are still solved; the exit code is the worst.
    let good = outside(&t, "good.tscn", &merge_file(&t, &["--diff3"]));
    let out = t
        .command(common::bin())
        .arg("solve")
        .arg(&missing)
        .arg(&good)
        .env("GIT_CEILING_DIRECTORIES", t.scratch().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(!has_markers(&std::fs::read(&good).unwrap()));
}

#[test]
fn git_status_after_solve_is_still_unmerged_until_added() {
    let t = conflicted_merge(Some("diff3"));
    let out = t.run_bin(["solve", "--no-backup", SCENE]);
    assert_success(&out, "solve");
    assert!(t.try_read(format!("{SCENE}.orig")).is_none());
    assert!(t
        .git_ok(["diff", "--name-only", "--diff-filter=U"])
        .contains(SCENE));
}

#[test]
fn no_file_argument_solves_every_unmerged_scene_of_the_repository() {
    let t = conflicted_merge(None);
    let expected = merge_bytes(
        &t,
        &stage(&t, 1, SCENE),
        &stage(&t, 2, SCENE),
        &stage(&t, 3, SCENE),
    );
    let out = t.run_bin(["solve"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(t.read(SCENE), expected);
    // Once added, nothing is unmerged any more.
    t.git_ok(["add", SCENE]);
    let again = t.run_bin(["solve"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(
        stdout(&again).contains("nothing to solve"),
        "{}",
        stdout(&again)
    );
}

/// A conflicted merge where the user then resolved part of the file by hand: `solve`
/// keeps every edit (it works from the file's markers, not from the index stages).
#[test]
fn hand_edits_in_a_conflicted_file_are_kept() {
    for style in ["diff3", "merge"] {
        let t = conflicted_merge(Some(style));
        let mut edited = t.read(SCENE);
        edited.extend_from_slice(
            b"\n[node name=\"Handmade\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(7, 7)\n",
        );
        t.write(SCENE, &edited);
        let out = t.run_bin(["solve", "--no-backup", SCENE]);
        let err = stderr(&out);
        assert!(code(&out) <= 1, "{style}: {err}");
        assert!(err.contains("edited since git left it"), "{style}: {err}");
        let r = String::from_utf8_lossy(&t.read(SCENE)).to_string();
        assert!(
            r.contains(
                "[node name=\"Handmade\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(7, 7)"
            ),
            "{style}: the hand-added node is lost:\n{r}"
        );
        if style == "diff3" {
            assert_eq!(code(&out), 0, "{err}");
            assert_both_sides(&t.read(SCENE));
        }
    }
}

/// Markers that can no longer be read in an unmerged file: refused, file untouched.
#[test]
fn a_broken_marker_in_an_unmerged_file_is_refused() {
    let t = conflicted_merge(Some("diff3"));
    let text = String::from_utf8(t.read(SCENE)).unwrap();
    let broken: String = text
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("======="))
        .collect();
    t.write(SCENE, &broken);
    let out = t.run_bin(["solve", "--no-backup", SCENE]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("git checkout --merge"),
        "{}",
        stderr(&out)
    );
    assert_eq!(t.read(SCENE), broken.as_bytes());
}

#[test]
fn backups_are_never_overwritten() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--diff3"]);
    let file = outside(&t, "player.tscn", &marked);
    let orig = file.with_extension("tscn.orig");
    std::fs::write(&orig, b"my own backup").unwrap();
    for n in 1..=2 {
        std::fs::write(&file, &marked).unwrap();
        let out = solve_at(&t, &[], &file);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let numbered = file.with_extension(format!("tscn.orig.{n}"));
        assert_eq!(std::fs::read(&numbered).unwrap(), marked, "backup {n}");
        assert!(
            stderr(&out).contains(&format!("player.tscn.orig.{n}")),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read(&orig).unwrap(), b"my own backup");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_written_through() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--diff3"]);
    let target = outside(&t, "real.tscn", &marked);
    let link = target.with_file_name("link.tscn");
    std::os::unix::fs::symlink("real.tscn", &link).unwrap();
    let out = solve_at(&t, &[], &link);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let expected = merge_bytes(&t, BASE.as_bytes(), OURS.as_bytes(), THEIRS.as_bytes());
    assert_eq!(std::fs::read(&target).unwrap(), expected);
    assert_eq!(
        std::fs::read(target.with_file_name("link.tscn.orig")).unwrap(),
        marked
    );
}

const THEME_BASE: &str = r#"[gd_resource type="Theme" load_steps=3 format=3 uid="uid://c8theme"]

[sub_resource type="StyleBoxFlat" id="StyleBoxFlat_panel"]
bg_color = Color(0.8, 0.8, 0.8, 1)
border_width_left = 2
corner_radius_top_left = 4

[sub_resource type="StyleBoxFlat" id="StyleBoxFlat_scroll"]
bg_color = Color(0.5, 0.5, 0.5, 1)
border_width_left = 5

[resource]
Panel/styles/panel = SubResource("StyleBoxFlat_panel")
VScrollBar/styles/scroll = SubResource("StyleBoxFlat_scroll")
"#;

/// A theme both sides restyled (git conflicts on neighbouring lines and on the lines
/// both appended): solving its diff3 markers gives exactly the direct merge, theirs'
/// new scroll style included.
#[test]
fn theme_with_diff3_markers_solves_like_the_direct_merge() {
    let ours = THEME_BASE
        .replace(
            "bg_color = Color(0.8, 0.8, 0.8, 1)",
            "bg_color = Color(0.9, 0.9, 0.9, 1)",
        )
        .replace("load_steps=3", "load_steps=4")
        .replace(
            "[resource]\n",
            "[sub_resource type=\"StyleBoxEmpty\" id=\"StyleBoxEmpty_focus\"]\n\n[resource]\n",
        )
        + "LineEdit/styles/focus = SubResource(\"StyleBoxEmpty_focus\")\n";
    let theirs = THEME_BASE
        .replace("border_width_left = 2", "border_width_left = 3")
        .replace(
            "bg_color = Color(0.5, 0.5, 0.5, 1)\nborder_width_left = 5",
            "bg_color = Color(0.13, 0.13, 0.13, 1)\nborder_width_top = 20\nexpand_margin_top = 20.0",
        )
        + "HSeparator/constants/separation = 4\n";
    let lm = gdscene::linemerge::merge_lines(
        THEME_BASE.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &gdscene::linemerge::MarkerOptions::default(),
    );
    assert!(lm.conflicts >= 2, "{}", String::from_utf8_lossy(&lm.text));
    let direct = gdscene::merge::merge(
        THEME_BASE.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &gdscene::merge::MergeOptions::default(),
    );
    assert!(direct.is_clean());
    let s = gdscene::solve::solve_markers(&lm.text, 7).unwrap().unwrap();
    assert_eq!(s.doubt, None);
    assert_eq!(
        String::from_utf8_lossy(&s.outcome.text),
        String::from_utf8_lossy(&direct.text)
    );
    let r = String::from_utf8_lossy(&direct.text);
    assert!(
        r.contains("border_width_top = 20") && r.contains("Color(0.9, 0.9, 0.9, 1)"),
        "{r}"
    );
}

/// Every real merge whose `git merge-file --diff3` output has markers: solving those
/// markers gives exactly what `merge` gives on base/ours/theirs, or leaves markers, or
/// (where `merge` chose an id or a place from parts of the sides the markers do not
/// show) the same scene per the semantic diff. Never a different clean result.
#[test]
fn solving_real_diff3_markers_equals_the_direct_merge_or_leaves_markers() {
    let Some(dir) = common::shared_dir().map(|d| d.join("merges")) else {
        eprintln!("skipped: no shared merges");
        return;
    };
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let side = |d: &Path, stem: &str| -> Vec<u8> {
        let e = std::fs::read_dir(d)
            .unwrap()
            .filter_map(|e| e.ok())
            .find(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{stem}."))
            })
            .unwrap_or_else(|| panic!("{stem} in {}", d.display()));
        std::fs::read(e.path()).unwrap()
    };
    let (mut equal, mut kept, mut same_scene, mut different) = (0, 0, 0, Vec::new());
    for d in &folders {
        let marked = side(d, "git_diff3");
        let Some(s) = gdscene::solve::solve_markers(&marked, 7).unwrap() else {
            continue;
        };
        let direct = gdscene::merge::merge(
            &side(d, "base"),
            &side(d, "ours"),
            &side(d, "theirs"),
            &gdscene::merge::MergeOptions::default(),
        );
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        if s.outcome.text == direct.text {
            equal += 1;
        } else if !s.outcome.is_clean() {
            kept += 1;
        } else {
            let semantic = match (
                gdscene::model::Scene::parse(&s.outcome.text),
                gdscene::model::Scene::parse(&direct.text),
            ) {
                (Ok(a), Ok(b)) => direct.is_clean() && gdscene::diff::diff(&b, &a).is_empty(),
                _ => false,
            };
            if semantic {
                same_scene += 1;
            } else {
                different.push(name);
            }
        }
    }
    eprintln!(
        "diff3 markers: {equal} equal to the direct merge, {kept} leave markers, {same_scene} the same scene, {} different",
        different.len()
    );
    assert!(
        different.is_empty(),
        "solve differs from merge: {different:#?}"
    );
    assert!(
        equal + kept + same_scene >= 59,
        "{equal} {kept} {same_scene}"
    );
    assert!(equal >= 30, "{equal}");
}

/// main and other change the player's speed differently: a conflict no merge removes.
fn speed_conflict(style: Option<&str>) -> TempRepo {
    let t = TempRepo::new();
    if let Some(s) = style {
        t.git_ok(["config", "merge.conflictStyle", s]);
    }
    t.write(SCENE, BASE);
    t.commit_all("base");
    t.checkout_new("other");
    t.write(SCENE, BASE.replace("speed = 200.0", "speed = 150.0"));
    t.commit_all("theirs: slower");
    t.checkout("main");
    t.write(SCENE, BASE.replace("speed = 200.0", "speed = 250.0"));
    t.commit_all("ours: faster");
    assert!(!t.merge("other").status.success());
    t
}

/// Solve `SCENE` (with `env` set) and say whether the conflict left has a base section.
fn solved_with_base(t: &TempRepo, args: &[&str], env: Option<(&str, &str)>) -> bool {
    // Start from git's line merge each time (solve leaves the file unmerged).
    t.git_ok(["checkout", "--merge", "--", SCENE]);
    let mut cmd = t.command(common::bin());
    cmd.args(["solve", "--no-backup"]).args(args).arg(SCENE);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = String::from_utf8(t.read(SCENE)).unwrap();
    assert!(
        text.contains("speed = 250.0") && text.contains("speed = 150.0"),
        "{text}"
    );
    text.lines().any(|l| l.starts_with("|||||||"))
}

#[test]
fn solve_writes_markers_in_the_configured_conflict_style() {
    // The repository's merge.conflictStyle, as `merge --git` reads it.
    let t = speed_conflict(Some("diff3"));
    assert!(solved_with_base(&t, &[], None));
    // `--style` overrides it.
    assert!(!solved_with_base(&t, &["--style=merge"], None));
    // `git -c merge.conflictStyle=merge` reaches solve run as a git alias or hook.
    let merge_style = ("GIT_CONFIG_PARAMETERS", "'merge.conflictStyle'='merge'");
    assert!(!solved_with_base(&t, &[], Some(merge_style)));
    // Unset: git's default style, which has no base section.
    let t = speed_conflict(None);
    assert!(!solved_with_base(&t, &[], None));
    let diff3 = ("GIT_CONFIG_PARAMETERS", "'merge.conflictStyle'='diff3'");
    assert!(solved_with_base(&t, &[], Some(diff3)));
    assert!(solved_with_base(&t, &["--style=zdiff3"], None));
}

/// Both branches add the scene (git's add/add: no stage 1): `solve` merges the index
/// stages against an empty base as the merge driver does, so the two additions merge
/// (the shared nodes once, each side's node and shape, the colliding id renamed).
#[test]
fn add_add_from_index_stages_merges_against_an_empty_base() {
    let t = TempRepo::new();
    t.write("README.md", "game\n");
    t.commit_all("start");
    t.checkout_new("other");
    t.write(SCENE, THEIRS.replace("Vector2(0, -20)", "Vector2(0, -16)"));
    t.commit_all("theirs: adds the player with feet");
    t.checkout("main");
    t.write(SCENE, OURS.replace("speed = 250.0", "speed = 200.0"));
    t.commit_all("ours: adds the player with a hitbox");
    assert!(!t.merge("other").status.success(), "add/add must conflict");
    assert!(stage(&t, 1, SCENE).is_empty(), "no base stage");
    let out = t.run_bin(["solve", "--explain", SCENE]);
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(err.contains("index stages"), "{err}");
    assert!(err.contains("stand-in base"), "{err}");
    let text = t.read(SCENE);
    let s = String::from_utf8_lossy(&text);
    assert!(!has_markers(&text), "{s}");
    assert!(
        s.contains("name=\"Hitbox\"") && s.contains("name=\"Feet\""),
        "{s}"
    );
    assert_eq!(s.matches("[node name=\"Player\"").count(), 1, "{s}");
    assert_eq!(s.matches("[sub_resource").count(), 2, "{s}");
    let scene = gdscene::model::Scene::parse(&text).expect("parses");
    assert!(
        !gdscene::check::is_broken(&gdscene::check::check(&scene)),
        "{s}"
    );
}

/// `solve --style` on the solve-from-markers path (a file outside any repository): the
/// conflict left (both sides changed `speed`) is written in the style asked for.
#[test]
fn solve_from_markers_writes_the_style_asked_for() {
    let t = TempRepo::new();
    let theirs = THEIRS.replace("speed = 200.0", "speed = 300.0");
    let marked = merge_file_of(&t, [OURS, BASE, &theirs], &["--diff3"]);
    let file = outside(&t, "player.tscn", &marked);
    for (style, base_part) in [("merge", false), ("diff3", true), ("zdiff3", true)] {
        let out = solve_at(&t, &["--stdout", "--style", style], &file);
        let text = stdout(&out);
        assert_eq!(code(&out), 1, "{style}: {}", stderr(&out));
        assert!(
            text.contains("<<<<<<< HEAD\nspeed = 250.0\n"),
            "{style}: {text}"
        );
        assert_eq!(
            text.contains("||||||| base\nspeed = 200.0\n"),
            base_part,
            "{style}: {text}"
        );
        assert!(
            text.contains("=======\nspeed = 300.0\n>>>>>>> other\n"),
            "{style}: {text}"
        );
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        marked,
        "--stdout leaves the file"
    );
}

#[test]
fn favor_resolves_what_is_left_to_one_side() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &["--zdiff3"]);
    let mut results = Vec::new();
    for side in ["ours", "theirs"] {
        let file = outside(&t, &format!("{side}.tscn"), &marked);
        let out = solve_at(&t, &["--no-backup", "--favor", side], &file);
        assert_eq!(code(&out), 0, "{side}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("resolved in favour of {side} (--favor)")),
            "{err}"
        );
        let solved = std::fs::read(&file).unwrap();
        assert!(
            !has_markers(&solved),
            "{}",
            String::from_utf8_lossy(&solved)
        );
        results.push(solved);
    }
    assert_ne!(results[0], results[1], "each side wins its conflicts");
}

#[test]
fn the_hint_for_two_sided_markers_never_discards_resolved_hunks() {
    let t = TempRepo::new();
    let marked = merge_file(&t, &[]);
    let file = outside(&t, "player.tscn", &marked);
    let out = solve_at(&t, &["--no-backup"], &file);
    let err = stderr(&out);
    assert!(!err.contains("checkout --conflict"), "{err}");
}

// ------------------------------------------------ Godot's settings files (issue 36, item 4)

const PROJECT: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Game\"\n\n[autoload]\n\nA=\"*res://a.gd\"\n";

/// project.godot line-merged by git (no driver): each branch added an autoload.
fn conflicted_project(style: Option<&str>) -> TempRepo {
    let t = TempRepo::new();
    if let Some(s) = style {
        t.git_ok(["config", "merge.conflictStyle", s]);
    }
    t.write("project.godot", PROJECT);
    t.write(
        "icon.png.import",
        "[remap]\n\nimporter=\"texture\"\n\n[params]\n\ncompress/mode=0\nmipmaps/generate=false\n",
    );
    t.commit_all("base");
    t.checkout_new("other");
    t.write(
        "project.godot",
        PROJECT.replace(
            "A=\"*res://a.gd\"\n",
            "A=\"*res://a.gd\"\nTheirs=\"*res://theirs.gd\"\n",
        ),
    );
    t.write(
        "icon.png.import",
        "[remap]\n\nimporter=\"texture\"\n\n[params]\n\ncompress/mode=2\nmipmaps/generate=false\n",
    );
    t.commit_all("theirs");
    t.checkout("main");
    t.write(
        "project.godot",
        PROJECT.replace(
            "A=\"*res://a.gd\"\n",
            "A=\"*res://a.gd\"\nOurs=\"*res://ours.gd\"\n",
        ),
    );
    t.write(
        "icon.png.import",
        "[remap]\n\nimporter=\"texture\"\n\n[params]\n\ncompress/mode=0\nmipmaps/generate=true\n",
    );
    t.commit_all("ours");
    let out = t.merge("other");
    assert!(
        !out.status.success(),
        "git must conflict without the driver"
    );
    assert!(has_markers(&t.read("project.godot")));
    assert!(has_markers(&t.read("icon.png.import")));
    t
}

fn both_autoloads(t: &TempRepo) {
    let p = String::from_utf8(t.read("project.godot")).unwrap();
    assert!(!has_markers(p.as_bytes()), "{p}");
    assert!(
        p.contains("A=\"*res://a.gd\"\nOurs=\"*res://ours.gd\"\nTheirs=\"*res://theirs.gd\"\n"),
        "both autoloads, ours first:\n{p}"
    );
}

#[test]
fn solve_favor_on_a_line_merged_project_godot_keeps_both_autoloads() {
    for favor in ["ours", "theirs"] {
        let t = conflicted_project(None);
        let out = t.run_bin(["solve", "--favor", favor, "project.godot"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        both_autoloads(&t);
        // And an .import sidecar the same way: both settings, by key.
        let out = t.run_bin(["solve", "icon.png.import"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let i = String::from_utf8(t.read("icon.png.import")).unwrap();
        assert!(
            i.contains("compress/mode=2\nmipmaps/generate=true\n"),
            "{i}"
        );
    }
}

#[test]
fn solve_without_a_file_finds_unmerged_settings_files_too() {
    let t = conflicted_project(None);
    t.write("notes.txt", "x\n");
    let out = t.run_bin(["solve"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        !stdout(&out).contains("nothing to solve"),
        "{}",
        stdout(&out)
    );
    both_autoloads(&t);
    let i = String::from_utf8(t.read("icon.png.import")).unwrap();
    assert!(!has_markers(i.as_bytes()), "{i}");
}

#[test]
fn solve_reads_diff3_markers_of_a_project_godot_by_section_and_key() {
    let t = conflicted_project(Some("diff3"));
    // Edited since git left it (a comment added at the top): solved from its markers.
    let mut text = b"; edited\n".to_vec();
    text.extend(t.read("project.godot"));
    t.write("project.godot", &text);
    let out = t.run_bin(["solve", "project.godot"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("by section and key"),
        "{}",
        stderr(&out)
    );
    let p = String::from_utf8(t.read("project.godot")).unwrap();
    assert!(p.starts_with("; edited\n"), "{p}");
    assert!(
        p.contains("Ours=\"*res://ours.gd\"\nTheirs=\"*res://theirs.gd\"\n"),
        "{p}"
    );
}

#[test]
fn solve_leaves_two_sided_markers_of_a_settings_file_for_a_person() {
    let t = conflicted_project(None);
    let mut text = b"; edited\n".to_vec();
    text.extend(t.read("project.godot"));
    t.write("project.godot", &text);
    let out = t.run_bin(["solve", "project.godot"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("no base section"), "{}", stderr(&out));
    assert_eq!(t.read("project.godot"), text, "untouched");
}

/// A repository whose git folder is elsewhere, named by `GIT_DIR` and `GIT_WORK_TREE`
/// (a dotfiles-style setup, or git's own environment in a hook): `solve` finds it as git
/// does, from a sub-folder too, instead of "not inside a git repository".
#[test]
fn solve_with_git_dir_and_git_work_tree() {
    let t = conflicted_merge(None);
    let git_dir = t.scratch().join("elsewhere.git");
    std::fs::rename(t.abs(".git"), &git_dir).unwrap();
    let run = |args: &[&str], program: &Path| {
        t.command(program)
            .args(args)
            .current_dir(t.abs("scenes"))
            .env("GIT_DIR", &git_dir)
            .env("GIT_WORK_TREE", t.path())
            .output()
            .unwrap()
    };
    let out = run(&["solve"], &common::bin());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_both_sides(&t.read(SCENE));
    assert!(git_dir
        .join(format!("tscn-merge/backup/{SCENE}.orig"))
        .is_file());
    assert!(t.try_read(".git").is_none() && !t.abs(".git").exists());
    let status = run(
        &["status", "--porcelain", "--", "player.tscn"],
        Path::new("git"),
    );
    assert!(stdout(&status).starts_with("UU"), "{}", stdout(&status));
}

/// What a user exported for their own merges (README: `TSCN_MERGE=off`,
/// `TSCN_MERGE_FAVOR=theirs`, `TSCN_MERGE_TIMEOUT`) changes no test: these pass again in
/// a child process with all of them set.
#[test]
fn the_users_own_tscn_merge_variables_change_no_test() {
    let names = [
        "merge_without_driver_then_solve_from_index_stages",
        "remaining_conflicts_exit_one_with_minimal_markers",
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
        out.status.success() && stdout(&out).contains("2 passed"),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}
