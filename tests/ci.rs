//! `tscn-merge ci check` and `ci merge` end to end: a bare `origin` with `main` and a
//! pull-request branch `pr`, a fresh clone checked out at `pr` (no `install`, no git
//! identity of its own), real git, the built binary.

mod common;

use common::{assert_success, bin, stderr, stdout, TempRepo};
use std::path::PathBuf;
use std::process::Output;

fn example(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The developer's repository `t`, its bare `origin`, and a clone of origin at `pr`.
struct Pr {
    t: TempRepo,
    origin: PathBuf,
    clone: PathBuf,
}

/// Files at the fork point, then what `main` and `pr` each change on top.
fn setup(base: &[(&str, &str)], main: &[(&str, &str)], pr: &[(&str, &str)]) -> Pr {
    let t = TempRepo::new();
    let write = |files: &[(&str, &str)]| files.iter().for_each(|(p, s)| t.write(p, s));
    write(base);
    t.commit_all("base");
    t.checkout_new("pr");
    write(pr);
    t.commit_all("pr work");
    t.checkout("main");
    write(main);
    t.commit_all("main work");
    let origin = t.scratch().join("origin.git");
    let clone = t.scratch().join("clone");
    let in_scratch = |args: &[&str]| {
        let out = t
            .command("git")
            .current_dir(t.scratch())
            .args(args)
            .output()
            .unwrap();
        assert_success(&out, &format!("git {args:?}"));
    };
    in_scratch(&["init", "-q", "--bare", "-b", "main", "origin.git"]);
    t.git_ok(["remote", "add", "origin", origin.to_str().unwrap()]);
    t.git_ok(["push", "-q", "origin", "main", "pr"]);
    in_scratch(&["clone", "-q", "origin.git", "clone"]);
    let pr = Pr { t, origin, clone };
    pr.git_ok(&["checkout", "-q", "pr"]);
    pr
}

impl Pr {
    fn git(&self, args: &[&str]) -> Output {
        self.t
            .command("git")
            .current_dir(&self.clone)
            .args(args)
            .output()
            .unwrap()
    }

    fn git_ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert_success(&out, &format!("git {args:?}"));
        stdout(&out)
    }

    fn ci(&self, args: &[&str]) -> Output {
        self.t
            .command(bin())
            .current_dir(&self.clone)
            .arg("ci")
            .args(args)
            .output()
            .unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.clone.join(rel)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.clone.join(rel), text).unwrap();
    }

    /// `git rev-parse` in origin.
    fn origin_rev(&self, rev: &str) -> String {
        let out = self
            .t
            .command("git")
            .current_dir(&self.origin)
            .args(["rev-parse", rev])
            .output()
            .unwrap();
        stdout(&out).trim().to_string()
    }

    /// HEAD, index, work-tree status and these files' bytes: what must not change.
    fn snapshot(&self, files: &[&str]) -> (String, String, String, Vec<String>) {
        (
            self.git_ok(&["rev-parse", "HEAD"]),
            self.git_ok(&["ls-files", "-s"]),
            self.git_ok(&["status", "--porcelain", "--untracked-files=all"]),
            files.iter().map(|f| self.read(f)).collect(),
        )
    }

    /// Whether `check` finds `rel` valid.
    fn valid(&self, rel: &str) -> bool {
        let out = self
            .t
            .command(bin())
            .current_dir(&self.clone)
            .args(["check", rel])
            .output()
            .unwrap();
        out.status.code() == Some(0)
    }

    fn no_merge_in_progress(&self) -> bool {
        !self
            .git(&["rev-parse", "-q", "--verify", "MERGE_HEAD"])
            .status
            .success()
    }
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    )
}

/// The shipped example: both sides add `RectangleShape2D_abcde` and a node using it and
/// change `Camera2D`; git conflicts twice, tscn-merge resolves it.
fn resolvable() -> Pr {
    setup(
        &[
            ("scene.tscn", &example("base.tscn")),
            ("notes.txt", "one\ntwo\nthree\n"),
        ],
        &[("scene.tscn", &example("ours.tscn"))],
        &[("scene.tscn", &example("theirs.tscn"))],
    )
}

/// The shipped example plus `notes.txt`, which both sides change on one line: a conflict
/// outside the scenes, for git (or the user's own attributes) to settle.
fn resolvable_with_a_text_conflict() -> Pr {
    setup(
        &[
            ("scene.tscn", &example("base.tscn")),
            ("notes.txt", "one\ntwo\nthree\n"),
        ],
        &[
            ("scene.tscn", &example("ours.tscn")),
            ("notes.txt", "one\nTWO\nthree\n"),
        ],
        &[
            ("scene.tscn", &example("theirs.tscn")),
            ("notes.txt", "one\n2\nthree\n"),
        ],
    )
}

#[test]
fn git_conflicts_tscn_merge_resolves_are_merged_committed_and_pushed() {
    let p = resolvable();
    let head = p.git_ok(&["rev-parse", "HEAD"]).trim().to_string();
    let main = p.git_ok(&["rev-parse", "origin/main"]).trim().to_string();

    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        stdout(&check)
            .contains("scene.tscn: git conflicts here; tscn-merge ci merge can resolve it"),
        "{}",
        show(&check)
    );

    let out = p.ci(&["merge", "origin/main", "--push"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let parents = p.git_ok(&["rev-list", "--parents", "-n", "1", "HEAD"]);
    let parents: Vec<&str> = parents.split_whitespace().skip(1).collect();
    assert_eq!(parents, vec![head.as_str(), main.as_str()]);
    let merge = p.git_ok(&["rev-parse", "HEAD"]).trim().to_string();
    assert_eq!(
        p.origin_rev("refs/heads/pr"),
        merge,
        "pushed to the branch it came from"
    );
    assert_eq!(p.origin_rev("refs/heads/main"), main, "main untouched");
    let message = p.git_ok(&["log", "-1", "--format=%B"]);
    assert!(
        message.starts_with("Merge origin/main into pr"),
        "{message}"
    );
    assert!(
        message.contains("- scene.tscn: 2 git conflict(s) resolved"),
        "{message}"
    );
    assert_eq!(p.git_ok(&["status", "--porcelain"]), "");
    let scene = p.read("scene.tscn");
    assert!(p.valid("scene.tscn"), "{scene}");
    for both in [
        "\"Hitbox\"",
        "\"GroundSensor\"",
        "zoom = Vector2(2, 2)",
        "\"ShakeTimer\"",
        "position_smoothing_speed",
    ] {
        assert!(scene.contains(both), "{both} missing:\n{scene}");
    }
    // Nothing left to merge: a second run says so and changes nothing.
    let again = p.ci(&["merge", "origin/main"]);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert_eq!(p.git_ok(&["rev-parse", "HEAD"]).trim(), merge);
}

const PLAYER: &str = "[gd_scene format=3 uid=\"uid://cplayer\"]\n\n[node name=\"Player\" type=\"CharacterBody2D\"]\nspeed = 100.0\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n";

#[test]
fn a_true_conflict_commits_nothing_and_names_the_property() {
    let p = setup(
        &[("player.tscn", PLAYER)],
        &[("player.tscn", &PLAYER.replace("100.0", "250.0"))],
        &[("player.tscn", &PLAYER.replace("100.0", "300.0"))],
    );
    let before = p.snapshot(&["player.tscn"]);
    let pushed = p.origin_rev("refs/heads/pr");

    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        stdout(&check).contains("player.tscn: git conflicts here; tscn-merge leaves 1 conflict(s)"),
        "{}",
        show(&check)
    );
    assert!(
        stdout(&check).contains("speed: base 100.0 | ours 300.0 | theirs 250.0"),
        "{}",
        show(&check)
    );

    let out = p.ci(&["merge", "origin/main", "--push"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = stdout(&out);
    assert!(
        report.starts_with("## tscn-merge: `origin/main` into `pr` needs a person"),
        "{report}"
    );
    assert!(report.contains("### `player.tscn`"), "{report}");
    assert!(
        report.contains("- `node \"Player\" speed: base 100.0 | ours 300.0 | theirs 250.0`"),
        "{report}"
    );
    assert_eq!(p.snapshot(&["player.tscn"]), before, "the checkout changed");
    assert!(p.no_merge_in_progress());
    assert_eq!(p.origin_rev("refs/heads/pr"), pushed, "nothing pushed");
}

/// Base: Player with children Body and Camera (Godot 4.6 unique ids).
const RIG: &str = "[gd_scene format=3 uid=\"uid://crig\"]\n\n[node name=\"Player\" type=\"Node2D\" unique_id=1001]\n\n[node name=\"Body\" type=\"Node2D\" parent=\".\" unique_id=1002]\nposition = Vector2(1, 2)\n\n[node name=\"Camera\" type=\"Camera2D\" parent=\".\" unique_id=1003]\nzoom = Vector2(2, 2)\n";
const HAT: &str = "\n[node name=\"Hat\" type=\"Sprite2D\" parent=\"Body\" unique_id=1004]\n";

/// main renames Body to Torso; the pull request adds Hat under Body: git merges it
/// "cleanly" and Hat's parent is gone.
fn broken_by_git() -> Pr {
    setup(
        &[("rig.tscn", RIG)],
        &[("rig.tscn", &RIG.replace("name=\"Body\"", "name=\"Torso\""))],
        &[("rig.tscn", &format!("{RIG}{HAT}"))],
    )
}

#[test]
fn a_git_clean_merge_that_breaks_a_scene_fails_the_check_and_ci_merge_repairs_it() {
    let p = broken_by_git();
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    let text = stdout(&check);
    assert!(
        text.contains("rig.tscn:11: error: node \"Hat\" has parent \"Body\", which does not exist"),
        "{}",
        show(&check)
    );
    assert!(
        text.contains("hint: `tscn-merge ci merge origin/main`"),
        "{}",
        show(&check)
    );

    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let scene = p.read("rig.tscn");
    assert!(p.valid("rig.tscn"), "{scene}");
    assert!(
        scene.contains("[node name=\"Hat\" type=\"Sprite2D\" parent=\"Torso\""),
        "{scene}"
    );
    assert!(!scene.contains("name=\"Body\""), "{scene}");
}

#[test]
fn a_good_merge_passes_the_check() {
    let p = setup(
        &[
            ("rig.tscn", RIG),
            (
                "other.tres",
                "[gd_resource type=\"Resource\" format=3]\n\n[resource]\nvalue = 1\n",
            ),
        ],
        &[("rig.tscn", &RIG.replace("Vector2(1, 2)", "Vector2(5, 6)"))],
        &[
            (
                "rig.tscn",
                &format!("{RIG}{}", HAT.replace("\"Body\"", "\"Camera\"")),
            ),
            (
                "other.tres",
                "[gd_resource type=\"Resource\" format=3]\n\n[resource]\nvalue = 2\n",
            ),
        ],
    );
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(0), "{}", show(&check));
    assert!(
        stdout(&check).contains("2 scene and settings file(s) of the merge checked, 0 broken"),
        "{}",
        show(&check)
    );
}

#[test]
fn a_conflict_outside_the_scenes_is_reported() {
    let p = resolvable_with_a_text_conflict();
    let before = p.snapshot(&["scene.tscn", "notes.txt"]);
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        stdout(&check).contains("notes.txt: git conflicts here (not a Godot file tscn-merge merges): CONFLICT (content)"),
        "{}",
        show(&check)
    );

    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = stdout(&out);
    assert!(
        report.contains("| `scene.tscn` | 2 conflict(s) | 2 conflict(s),"),
        "{report}"
    );
    assert!(report.contains("### `notes.txt`"), "{report}");
    assert!(
        report.contains("- git: `CONFLICT (content): Merge conflict in notes.txt`"),
        "{report}"
    );
    assert!(!report.contains("### `scene.tscn`"), "{report}");
    assert_eq!(p.snapshot(&["scene.tscn", "notes.txt"]), before);
    assert!(p.no_merge_in_progress());
}

#[test]
fn a_dirty_checkout_is_refused_and_nothing_is_lost() {
    let p = resolvable();
    p.write("notes.txt", "my unsaved work\n");
    std::fs::write(p.clone.join("scratch.txt"), "untracked\n").unwrap();
    let before = p.snapshot(&["notes.txt", "scene.tscn", "scratch.txt"]);
    let out = p.ci(&["merge", "origin/main", "--push"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        stderr(&out).contains("uncommitted changes (notes.txt)"),
        "{}",
        show(&out)
    );
    assert_eq!(
        p.snapshot(&["notes.txt", "scene.tscn", "scratch.txt"]),
        before
    );
    assert!(p.no_merge_in_progress());
}

#[test]
fn a_base_that_names_nothing_is_an_error() {
    let p = resolvable();
    for cmd in ["check", "merge"] {
        let out = p.ci(&[cmd, "origin/nope"]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(stderr(&out).contains("origin/nope"), "{}", show(&out));
    }
}

#[test]
fn a_scene_one_side_deleted_and_the_other_changed_is_left_to_a_person() {
    let p = setup(
        &[("player.tscn", PLAYER), ("keep.tscn", RIG)],
        &[("player.tscn", &PLAYER.replace("100.0", "250.0"))],
        &[],
    );
    p.git_ok(&["rm", "-q", "player.tscn"]);
    p.git_ok(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "-m",
        "delete",
    ]);
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        stdout(&check).contains("player.tscn: git conflicts here; one side deleted the file"),
        "{}",
        show(&check)
    );
    let before = p.snapshot(&["keep.tscn"]);
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = stdout(&out);
    assert!(
        report.contains(
            "| `player.tscn` | conflict | not run (git decided) | a conflict git reports |"
        ),
        "{report}"
    );
    assert!(
        report.contains("- git: `CONFLICT (modify/delete): player.tscn"),
        "{report}"
    );
    assert_eq!(p.snapshot(&["keep.tscn"]), before);
    assert!(p.no_merge_in_progress());
}

#[test]
fn the_users_own_global_attributes_still_apply() {
    let p = resolvable_with_a_text_conflict();
    let attrs = p.t.xdg_config_home().join("git");
    std::fs::create_dir_all(&attrs).unwrap();
    std::fs::write(attrs.join("attributes"), "*.txt merge=union").unwrap();
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(p.read("notes.txt"), "one\n2\nTWO\nthree\n");
    assert!(p.valid("scene.tscn"));
}

#[test]
fn a_merge_that_outlasts_the_timeout_is_stopped_and_undone() {
    let p = setup(
        &[("notes.txt", "one\ntwo\nthree\n")],
        &[("notes.txt", "one\nTWO\nthree\n")],
        &[("notes.txt", "one\n2\nthree\n")],
    );
    p.write(".git/info/attributes", "*.txt merge=slow\n");
    p.git_ok(&["config", "merge.slow.driver", "sleep 30"]);
    let before = p.snapshot(&["notes.txt"]);
    let start = std::time::Instant::now();
    let out = p.ci(&["merge", "origin/main", "--timeout", "1"]);
    assert!(start.elapsed().as_secs() < 20, "not stopped in time");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("longer than 1 s"), "{}", show(&out));
    assert_eq!(p.snapshot(&["notes.txt"]), before);
    assert!(p.no_merge_in_progress());
}

/// A fake Godot 4 binary (a shell script speaking `check --godot`'s protocol): every
/// file whose `res://` path holds `bad` does not load, with an error line.
#[cfg(unix)]
fn fake_godot(p: &Pr) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = p.t.scratch().join("fake-godot");
    let script = r#"#!/bin/sh
if [ "$1" = --version ]; then echo "4.2.stable.fake"; exit 0; fi
while [ $# -gt 0 ]; do [ "$1" = --path ] && dir=$2; shift; done
n=0
tab=$(printf '\t')
while IFS="$tab" read -r kind path; do
  [ "$kind" = ph ] && continue
  echo "@@B $n"
  case "$path" in
    *bad*) echo "ERROR: fake parse error in $path" >&2; echo '@@R {"loaded":false}';;
    *) echo '@@R {"loaded":true}';;
  esac
  n=$((n + 1))
done < "$dir/__check/jobs.txt"
"#;
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `--godot` (issue 40 item 4): `ci check` loads every scene the merge lands in the
/// user's engine, `ci merge` every scene it merged; one the engine does not load is
/// broken, and keeps the merge from being committed.
#[test]
#[cfg(unix)]
fn ci_check_and_merge_load_the_scenes_in_godot_with_godot() {
    const S: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n";
    let p = setup(
        &[("project.godot", "config_version=5\n"), ("ok.tscn", S)],
        &[("main_bad.tscn", S)],
        &[
            ("pr_bad.tscn", S),
            ("ok.tscn", &S.replace("\"R\"", "\"Root\"")),
        ],
    );
    let fake = fake_godot(&p);
    let g = fake.to_str().unwrap();
    let check = p.ci(&["check", "origin/main", "--godot", g]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    let text = stdout(&check);
    assert!(
        text.contains("pr_bad.tscn:0: error: Godot 4.2.stable.fake does not load it: ERROR: fake parse error in res://pr_bad.tscn"),
        "{text}"
    );
    assert!(!text.contains("ok.tscn"), "{text}");
    assert!(
        text.contains("2 scene and settings file(s) of the merge checked, 1 broken"),
        "{text}"
    );
    // Without --godot the same merge is clean.
    assert_eq!(p.ci(&["check", "origin/main"]).status.code(), Some(0));
    // A binary that cannot run: exit 2.
    let none = p.t.scratch().join("no-godot");
    let out = p.ci(&["check", "origin/main", "--godot", none.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));

    let head = p.git_ok(&["rev-parse", "HEAD"]);
    let out = p.ci(&["merge", "origin/main", "--godot", g]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(stdout(&out).contains("main_bad.tscn"), "{}", show(&out));
    assert!(stdout(&out).contains("does not load it"), "{}", show(&out));
    assert_eq!(p.git_ok(&["rev-parse", "HEAD"]), head, "nothing committed");
}

/// A native Godot 4 for the test below: `$GODOT4`, else where
/// `scripts/install-godot4.sh` puts Debian's (not PATH).
fn godot4() -> Option<PathBuf> {
    let env = std::env::var_os("GODOT4")
        .filter(|g| !g.is_empty())
        .map(PathBuf::from);
    env.or_else(|| Some(PathBuf::from("/opt/godot4/bin/godot4")))
        .filter(|p| p.is_file())
}

/// `ci check --godot` and `ci merge --godot` with the real Godot 4. A scene our own check
/// reads but Godot refuses (no `Vector9` in Godot) is broken, with the engine's words:
/// added by the PR, `ci check` says so; added on main, `ci merge` commits nothing. Once
/// main drops it, the scene both sides changed is merged, loads, and is committed. A
/// scene git conflicts on is loaded as `ci merge` would resolve it.
#[test]
fn ci_check_and_merge_with_a_real_godot_4() {
    let Some(godot) = godot4() else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP ci --godot with Godot 4: no native Godot 4 (bash scripts/install-godot4.sh, or set GODOT4)"
        );
        return;
    };
    const BASE: &str = "[gd_scene load_steps=2 format=3 uid=\"uid://clevel\"]\n\n[ext_resource type=\"Script\" uid=\"uid://bplayer\" path=\"res://player.gd\" id=\"1_p\"]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"Player\" type=\"CharacterBody2D\" parent=\".\"]\nscript = ExtResource(\"1_p\")\nposition = Vector2(1, 2)\n";
    const BAD: &str =
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\nposition = Vector9(4, 2)\n";
    let main = format!("{BASE}\n[node name=\"Coin\" type=\"Area2D\" parent=\".\"]\n");
    let pr = BASE.replace("Vector2(1, 2)", "Vector2(10, 20)");
    let p = setup(
        &[
            ("project.godot", "config_version=5\n"),
            ("level.tscn", BASE),
        ],
        &[("level.tscn", &main), ("main_bad.tscn", BAD)],
        &[("level.tscn", &pr), ("pr_bad.tscn", BAD)],
    );
    let g = godot.to_str().unwrap();
    let check = p.ci(&["check", "origin/main", "--godot", g]);
    let text = stdout(&check);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        text.contains("pr_bad.tscn:0: error: Godot 4.") && text.contains("Parse Error"),
        "{}",
        show(&check)
    );
    // The engine's words, without where in its own source it said them.
    assert!(!text.contains(".cpp:"), "{}", show(&check));
    assert!(
        text.contains("level.tscn: git conflicts here; tscn-merge ci merge can resolve it"),
        "{}",
        show(&check)
    );
    let head = p.git_ok(&["rev-parse", "HEAD"]);
    let out = p.ci(&["merge", "origin/main", "--godot", g]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(stdout(&out).contains("main_bad.tscn"), "{}", show(&out));
    assert!(stdout(&out).contains("does not load it"), "{}", show(&out));
    assert_eq!(p.git_ok(&["rev-parse", "HEAD"]), head, "nothing committed");

    // Main drops its broken scene: the merged level loads in Godot and is committed.
    p.git_ok(&["checkout", "-q", "main"]);
    p.git_ok(&["rm", "-q", "main_bad.tscn"]);
    let me = ["-c", "user.name=Main", "-c", "user.email=main@example.com"];
    p.git_ok(&[&me[..], &["commit", "-q", "-m", "drop it"]].concat());
    p.git_ok(&["push", "-q", "origin", "main"]);
    p.git_ok(&["checkout", "-q", "pr"]);
    let out = p.ci(&["merge", "origin/main", "--godot", g]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_ne!(p.git_ok(&["rev-parse", "HEAD"]), head, "committed");
    let merged = p.read("level.tscn");
    assert!(
        merged.contains("Vector2(10, 20)") && merged.contains("name=\"Coin\""),
        "{merged}"
    );

    // A scene git conflicts on is loaded as ci merge would resolve it: here the PR's
    // side carries what Godot refuses, and so does the merge.
    let p = setup(
        &[
            ("project.godot", "config_version=5\n"),
            ("level.tscn", BASE),
        ],
        &[("level.tscn", &main)],
        &[(
            "level.tscn",
            &BASE.replace("Vector2(1, 2)", "Vector9(10, 20)"),
        )],
    );
    let check = p.ci(&["check", "origin/main", "--godot", g]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(
        stdout(&check).contains(
            "level.tscn: git conflicts here; tscn-merge ci merge resolves it, but Godot 4."
        ) && stdout(&check).contains("does not load it: ERROR: Parse Error"),
        "{}",
        show(&check)
    );
}

// ------------------------------------------------------------------ issue 36 (items 6, 9, 11, 14)

#[test]
fn a_stopped_merge_leaves_no_index_lock_behind() {
    let p = setup(
        &[("notes.txt", "one\ntwo\nthree\n")],
        &[("notes.txt", "one\nTWO\nthree\n")],
        &[("notes.txt", "one\n2\nthree\n")],
    );
    p.write(".git/info/attributes", "*.txt merge=slow\n");
    p.git_ok(&["config", "merge.slow.driver", "sleep 30"]);
    let before = p.snapshot(&["notes.txt"]);
    let out = p.ci(&["merge", "origin/main", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        !p.clone.join(".git/index.lock").exists(),
        "git was killed holding .git/index.lock: {}",
        show(&out)
    );
    // Every later git command that writes the index still works.
    p.git_ok(&["update-index", "--refresh"]);
    p.git_ok(&["reset", "-q"]);
    assert_eq!(p.snapshot(&["notes.txt"]), before);
    assert!(p.no_merge_in_progress());
}

const PROJECT: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Game\"\nrun/main_scene=\"res://a.tscn\"\n\n[autoload]\n\nA=\"*res://a.gd\"\n";

fn with_autoload(name: &str) -> String {
    PROJECT.replace(
        "A=\"*res://a.gd\"\n",
        &format!("A=\"*res://a.gd\"\n{name}=\"*res://{name}.gd\"\n"),
    )
}

#[test]
fn ci_check_predicts_that_ci_merge_resolves_a_project_godot() {
    let p = setup(
        &[("project.godot", PROJECT)],
        &[("project.godot", &with_autoload("Main"))],
        &[("project.godot", &with_autoload("Pr"))],
    );
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    let said = stdout(&check);
    assert!(
        said.contains("project.godot: git conflicts here; tscn-merge ci merge can resolve it"),
        "{said}"
    );
    assert!(
        said.contains("hint: `tscn-merge ci merge origin/main`"),
        "{said}"
    );
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let merged = p.read("project.godot");
    assert!(
        merged.contains("Pr=\"*res://Pr.gd\"\nMain=\"*res://Main.gd\"\n"),
        "{merged}"
    );
    let message = p.git_ok(&["log", "-1", "--format=%B"]);
    assert!(
        message.contains("- project.godot: 1 git conflict(s) resolved"),
        "{message}"
    );
}

#[test]
fn ci_check_predicts_that_a_settings_conflict_needs_a_person() {
    let set = |scene: &str| PROJECT.replace("res://a.tscn", scene);
    let p = setup(
        &[("project.godot", PROJECT)],
        &[("project.godot", &set("res://main.tscn"))],
        &[("project.godot", &set("res://pr.tscn"))],
    );
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    let said = stdout(&check);
    assert!(
        said.contains("project.godot: git conflicts here; tscn-merge leaves 1 conflict(s)"),
        "{said}"
    );
    assert!(said.contains("run/main_scene"), "{said}");
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(stdout(&out).contains("run/main_scene"), "{}", show(&out));
}

/// Code spans as CommonMark reads them on one line: the byte ranges inside a run of n
/// backticks and the next run of exactly n.
fn code_spans(line: &str) -> Vec<std::ops::Range<usize>> {
    let b = line.as_bytes();
    let runs: Vec<(usize, usize)> = {
        let (mut out, mut i) = (Vec::new(), 0);
        while i < b.len() {
            if b[i] == b'`' {
                let s = i;
                while i < b.len() && b[i] == b'`' {
                    i += 1;
                }
                out.push((s, i - s));
            } else {
                i += 1;
            }
        }
        out
    };
    let (mut spans, mut k) = (Vec::new(), 0);
    while k < runs.len() {
        let (s, n) = runs[k];
        match runs[k + 1..].iter().position(|&(_, m)| m == n) {
            Some(j) => {
                let (e, _) = runs[k + 1 + j];
                spans.push(s + n..e);
                k += j + 2;
            }
            None => k += 1,
        }
    }
    spans
}

/// Every occurrence of each of `payloads` in the Markdown `md` lies in a code span or a
/// fenced code block (where GitHub renders no HTML, link or @mention), and in a table
/// row no code span holds an unescaped `|` (GitHub splits cells first).
fn assert_inert(md: &str, payloads: &[&str]) {
    let mut fence: Option<String> = None;
    for line in md.lines() {
        let t = line.trim_start();
        let ticks: String = t.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(f) if ticks.len() >= f.len() && t[ticks.len()..].trim().is_empty() => {
                fence = None;
                continue;
            }
            Some(_) => continue,
            None if ticks.len() >= 3 => {
                fence = Some(ticks);
                continue;
            }
            None => {}
        }
        let spans = code_spans(line);
        for p in payloads {
            for (at, _) in line.match_indices(p) {
                assert!(
                    spans.iter().any(|s| s.start <= at && at + p.len() <= s.end),
                    "{p:?} outside a code span in:\n{line}\n---\n{md}"
                );
            }
        }
        if line.starts_with('|') {
            for s in &spans {
                let inner = &line.as_bytes()[s.clone()];
                for (i, &c) in inner.iter().enumerate() {
                    assert!(
                        c != b'|' || (i > 0 && inner[i - 1] == b'\\'),
                        "a cell split inside a code span:\n{line}"
                    );
                }
            }
        }
    }
    assert!(fence.is_none(), "a fence left open:\n{md}");
}

const HOSTILE: &[&str] = &[
    "<img src=x onerror=alert(1)>",
    "<h1>",
    "<!--",
    "[click](https://evil.example)",
    "@octocat",
];

#[test]
fn the_report_renders_no_value_as_markdown() {
    let value = "\"<img src=x onerror=alert(1)> <h1>big</h1> <!-- [click](https://evil.example) @octocat ``` | x\"";
    let scene = |v: &str| PLAYER.replace("speed = 100.0", &format!("label = {v}"));
    let p = setup(
        &[("a <!-- @octocat.tscn", &scene("\"base\""))],
        &[(
            "a <!-- @octocat.tscn",
            &scene(&value.replace("big", "ours")),
        )],
        &[("a <!-- @octocat.tscn", &scene(value))],
    );
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = stdout(&out);
    assert!(
        report.contains("<h1>ours</h1> <!-- [click]"),
        "the value is shown:\n{report}"
    );
    assert_inert(&report, HOSTILE);
    // The check's text, as the example workflows quote it.
    let check = p.ci(&["check", "origin/main"]);
    assert_eq!(check.status.code(), Some(1), "{}", show(&check));
    assert!(!stdout(&check)
        .lines()
        .any(|l| l.trim_start().starts_with("```")));
}

#[test]
fn ci_merge_prints_no_raw_escape_from_a_file_name() {
    let name = "sc\u{1b}]0;owned\u{7}ene.tscn";
    let p = setup(
        &[(name, &example("base.tscn"))],
        &[(name, &example("ours.tscn"))],
        &[(name, &example("theirs.tscn"))],
    );
    let out = p.ci(&["merge", "origin/main"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("Committed "), "{all}");
    assert!(all.contains("sc\\x1b]0;owned\\x07ene.tscn"), "{all}");
    assert!(
        !all.contains('\u{1b}') && !all.contains('\u{7}'),
        "raw: {all:?}"
    );
}
