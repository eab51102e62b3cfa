//! `review REV_RANGE` end to end in temporary repositories: ranges, added, deleted and
//! renamed files, the three formats, the size budget, no progress on a pipe, and the
//! command lines of the CI recipes in `examples/ci/` and of `.pre-commit-hooks.yaml`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tscn-merge"))
}

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let r = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        r.git(&["init", "-q", "-b", "main"]);
        r
    }
    fn cmd(&self, exe: &Path) -> Command {
        let mut c = Command::new(exe);
        c.current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com");
        c
    }
    fn git(&self, args: &[&str]) -> String {
        let o = self.cmd(Path::new("git")).args(args).output().unwrap();
        assert!(
            o.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
    fn write(&self, name: &str, text: &str) {
        let p = self.dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    fn commit(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }
    fn review(&self, args: &[&str]) -> Output {
        self.cmd(&bin()).arg("review").args(args).output().unwrap()
    }
}

fn scene(speed: i64, extra: bool) -> String {
    let mut s =
        format!("[gd_scene format=3]\n\n[node name=\"Player\" type=\"Node2D\"]\nspeed = {speed}\n");
    if extra {
        s.push_str("\n[node name=\"Gun\" type=\"Sprite2D\" parent=\".\"]\n");
    }
    s
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn setup() -> Repo {
    let r = Repo::new();
    r.write("player.tscn", &scene(1, false));
    r.write(
        "old.tres",
        "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nfoo = 1\n",
    );
    r.write("notes.txt", "x\n");
    r.commit("base");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("player.tscn", &scene(2, true));
    r.git(&["rm", "-q", "old.tres"]);
    r.write("levels/new.tscn", &scene(5, false));
    r.write("notes.txt", "y\n");
    r.commit("feature work");
    r
}

#[test]
fn markdown_review_of_a_branch() {
    let r = setup();
    let o = r.review(&["main..feature"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let md = out(&o);
    assert!(
        md.starts_with("## Scene changes in `main..feature`"),
        "{md}"
    );
    assert!(md.contains("| `levels/new.tscn` | added |"), "{md}");
    assert!(md.contains("| `old.tres` | deleted |"), "{md}");
    assert!(
        md.contains("| `player.tscn` | modified | 1 node changed, 1 node added |"),
        "{md}"
    );
    assert!(md.contains("speed: 1 -> 2"), "{md}");
    assert!(md.contains("flowchart TD"), "{md}");
    assert!(!md.contains("notes.txt"), "{md}");
    // Short range: no progress on a non-terminal stderr.
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn json_and_text_review_and_three_dot_and_single_commit() {
    let r = setup();
    let o = r.review(&["main...feature", "--format", "json"]);
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["schema"], "tscn-merge/review");
    let files = j["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["levels/new.tscn", "old.tres", "player.tscn"]);
    assert_eq!(files[1]["status"], "deleted");
    assert_eq!(files[2]["diff"]["schema"], "tscn-merge/diff");
    assert_eq!(files[2]["diff"]["changes"].as_array().unwrap().len(), 2);
    let o = r.review(&["feature", "--format", "text", "--color", "never"]);
    let t = out(&o);
    assert!(t.starts_with("3 scene files changed in feature"), "{t}");
    assert!(
        t.contains("=== player.tscn (modified)") && t.contains("~ speed: 1 -> 2"),
        "{t}"
    );
    let o = r.review(&["main..main"]);
    assert!(out(&o).contains("No scene files changed."), "{}", out(&o));
    let o = r.review(&["nope..feature"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn no_progress_on_a_pipe_even_for_long_ranges() {
    let r = Repo::new();
    r.write("p.tscn", &scene(0, false));
    r.commit("c0");
    let base = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    for i in 1..=55 {
        r.write("p.tscn", &scene(i, false));
        r.commit(&format!("c{i}"));
    }
    for quiet in [false, true] {
        let range = format!("{base}..HEAD");
        let mut args = vec![range.as_str(), "--format", "json"];
        if quiet {
            args.push("-q");
        }
        let o = r.review(&args);
        assert_eq!(o.status.code(), Some(0));
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let j: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["files"][0]["diff"]["changes"][0]["new"], "55");
    }
}

/// A scene of a root and `n` children, child `i` with `speed = i + bump` (and a sprite
/// texture, so the file carries a resource).
fn big_scene(n: usize, bump: usize) -> String {
    let mut s = String::from(
        "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Texture2D\" path=\"res://icon.png\" id=\"1\"]\n\n[node name=\"Level\" type=\"Node2D\"]\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "\n[node name=\"Enemy{i}\" type=\"Sprite2D\" parent=\".\"]\ntexture = ExtResource(\"1\")\nspeed = {}\n",
            i + bump
        ));
    }
    s
}

/// The scene `big_scene(n, 0)` with the first `k` speeds changed.
fn edited_scene(n: usize, k: usize) -> String {
    let mut s = big_scene(n, 0);
    for i in (0..k).rev() {
        s = s.replace(
            &format!("\"Enemy{i}\" type=\"Sprite2D\" parent=\".\"]\ntexture = ExtResource(\"1\")\nspeed = {i}\n"),
            &format!("\"Enemy{i}\" type=\"Sprite2D\" parent=\".\"]\ntexture = ExtResource(\"1\")\nspeed = {}\n", i + 1000),
        );
    }
    s
}

#[test]
fn a_moved_scene_is_one_entry() {
    let r = Repo::new();
    r.write("scenes/old/level.tscn", &big_scene(12, 0));
    r.write("gone.tscn", &scene(1, false));
    r.commit("base");
    r.git(&["rm", "-q", "scenes/old/level.tscn", "gone.tscn"]);
    r.write("scenes/new/level.tscn", &edited_scene(12, 2));
    r.write("unrelated.tscn", &big_scene(3, 50));
    r.commit("move");
    let md = out(&r.review(&["HEAD~1..HEAD"]));
    assert!(
        md.contains("| `scenes/new/level.tscn` | moved from `scenes/old/level.tscn` (2 changes) | 2 nodes changed |"),
        "{md}"
    );
    assert!(
        md.contains("### `scenes/new/level.tscn`: moved from `scenes/old/level.tscn` (2 changes)"),
        "{md}"
    );
    assert!(!md.contains("| `scenes/old/level.tscn`"), "{md}");
    assert!(
        md.contains("speed: 0 -> 1000") && md.contains("speed: 1 -> 1001"),
        "{md}"
    );
    // A deletion and an unrelated addition stay what they are.
    assert!(md.contains("| `gone.tscn` | deleted |"), "{md}");
    assert!(md.contains("| `unrelated.tscn` | added |"), "{md}");
    let j: Value =
        serde_json::from_slice(&r.review(&["HEAD~1..HEAD", "--format", "json"]).stdout).unwrap();
    let moved = &j["files"][1];
    assert_eq!(moved["path"], "scenes/new/level.tscn");
    assert_eq!(moved["status"], "renamed");
    assert_eq!(moved["old_path"], "scenes/old/level.tscn");
    let sim = moved["similarity"].as_u64().unwrap();
    assert!((50..100).contains(&sim), "{sim}");
    assert_eq!(j["files"].as_array().unwrap().len(), 3);
    let t = out(&r.review(&["HEAD~1..HEAD", "--format", "text"]));
    assert!(
        t.contains("=== scenes/new/level.tscn (moved from scenes/old/level.tscn, 2 changes)"),
        "{t}"
    );
}

#[test]
fn added_and_deleted_files_are_summarised_as_such() {
    let r = Repo::new();
    r.write(
        "old.tres",
        "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nfoo = 1\n",
    );
    r.write("keep.txt", "x\n");
    r.commit("base");
    r.git(&["rm", "-q", "old.tres"]);
    r.write("enemies.tscn", &big_scene(13, 0));
    r.commit("add");
    let md = out(&r.review(&["HEAD~1..HEAD"]));
    assert!(
        md.contains("| `enemies.tscn` | added | new scene: 14 nodes, 1 resource |"),
        "{md}"
    );
    assert!(
        md.contains("| `old.tres` | deleted | deleted resource (`Theme`) |"),
        "{md}"
    );
    assert!(
        !md.contains("resource changed") && !md.contains("nodes changed"),
        "{md}"
    );
    // The new scene's tree is drawn with its root's name, its contents folded.
    assert!(
        md.contains("n0[\"Level<br/><small>Node2D</small>\"]"),
        "{md}"
    );
    assert!(md.contains("<details><summary>Contents</summary>"), "{md}");
    let t = out(&r.review(&["HEAD~1..HEAD", "--format", "text", "--color", "never"]));
    assert!(
        t.contains("=== enemies.tscn (added)\nnew scene: 14 nodes, 1 resource\n"),
        "{t}"
    );
    assert!(
        t.contains("=== old.tres (deleted)\ndeleted resource (Theme)\n"),
        "{t}"
    );
}

#[test]
fn the_root_of_a_diagram_is_named() {
    let r = setup();
    let md = out(&r.review(&["main..feature"]));
    assert!(
        md.contains("n0[\"Player<br/><small>Node2D</small>\"]"),
        "{md}"
    );
    assert!(
        !md.contains("#40;root#41;") && !md.contains("(root)\"]"),
        "{md}"
    );
}

fn fences_balanced(md: &str) -> bool {
    md.lines().filter(|l| l.starts_with("```")).count() % 2 == 0
}

/// 60 commits, each changing a different scene of 40 nodes (scene `i` gets `i % 40 + 1`
/// changed nodes): far more than a comment holds.
fn big_history() -> (Repo, String) {
    let r = Repo::new();
    for i in 0..60 {
        r.write(&format!("levels/level{i:02}.tscn"), &big_scene(40, 0));
    }
    r.commit("base");
    let base = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    for i in 0..60 {
        r.write(
            &format!("levels/level{i:02}.tscn"),
            &edited_scene(40, i % 40 + 1),
        );
        r.commit(&format!("edit {i}"));
    }
    (r, base)
}

#[test]
fn a_large_range_stays_under_the_size_budget() {
    let (r, base) = big_history();
    let range = format!("{base}..HEAD");
    let full = out(&r.review(&[&range, "--max-bytes", "0"]));
    assert!(full.len() > 100_000, "{}", full.len());
    assert_eq!(full.matches("\n### `levels/").count(), 60);
    for max in [65_000usize, 20_000] {
        let o = r.review(&[&range, "--max-bytes", &max.to_string()]);
        assert_eq!(o.status.code(), Some(0));
        let md = out(&o);
        assert!(md.len() <= max, "{} > {max}", md.len());
        assert!(fences_balanced(&md), "{md}");
        // Every file is still in the table.
        assert_eq!(md.matches("| `levels/level").count(), 60, "{md}");
        let shown: Vec<usize> = md
            .lines()
            .filter_map(|l| l.strip_prefix("### `levels/level"))
            .map(|l| l[..2].parse().unwrap())
            .collect();
        assert!(!shown.is_empty() && shown.len() < 60, "{}", shown.len());
        // The most changed files, most changed first.
        let weight = |i: usize| i % 40 + 1;
        let mut rank: Vec<usize> = (0..60).collect();
        rank.sort_by_key(|&i| (std::cmp::Reverse(weight(i)), i));
        assert_eq!(shown[..], rank[..shown.len()]);
        let note = format!("{} of 60 files shown in full", shown.len());
        assert!(md.contains(&note), "{md}");
        // The note says how to see everything: the same range without the limit.
        let again = format!("`tscn-merge review --max-bytes 0 {range}`");
        assert!(md.contains(&again), "{md}");
    }
    // Under the budget nothing is left out and no note is added.
    let small = out(&r.review(&["HEAD~1..HEAD"]));
    assert!(!small.contains("Size limit"), "{small}");
}

/// The `tscn-merge ...` lines of a recipe, as a shell would run them.
fn recipe_lines(file: &str, what: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("- ")
                .trim_start_matches("entry: ")
        })
        .filter(|l| l.starts_with(what))
        .map(String::from)
        .collect()
}

/// Run one recipe line with `sh` in the repository, the built binary first on PATH.
fn run_line(r: &Repo, line: &str, env: &[(&str, &str)]) -> Output {
    let dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = r.cmd(Path::new("sh"));
    c.arg("-c").arg(line).env("PATH", path);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn ci_recipes_review_the_pull_request_range() {
    let r = setup();
    // main moves on after the branch: only the branch's own changes belong to the review.
    r.git(&["checkout", "-q", "main"]);
    r.write("main-only.tscn", &scene(9, false));
    r.commit("main work");
    let base = r.git(&["rev-parse", "main"]).trim().to_string();
    let head = r.git(&["rev-parse", "feature"]).trim().to_string();
    let recipes = [
        (
            "examples/ci/github-actions.yml",
            [("BASE_SHA", &base), ("HEAD_SHA", &head)],
        ),
        (
            "examples/ci/gitlab-ci.yml",
            [
                ("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base),
                ("CI_COMMIT_SHA", &head),
            ],
        ),
    ];
    for (file, vars) in recipes {
        let lines = recipe_lines(file, "tscn-merge review");
        assert_eq!(lines.len(), 1, "{file}: {lines:?}");
        let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let o = run_line(&r, &lines[0], &env);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let md = std::fs::read_to_string(r.dir.path().join("review.md")).unwrap();
        assert!(
            md.contains("| `player.tscn` | modified | 1 node changed, 1 node added |"),
            "{md}"
        );
        assert!(md.contains("| `levels/new.tscn` | added |"), "{md}");
        assert!(!md.contains("main-only.tscn"), "{file}: {md}");
        std::fs::remove_file(r.dir.path().join("review.md")).unwrap();
    }
}

#[test]
fn the_pre_commit_hook_fails_on_broken_scenes() {
    let r = Repo::new();
    let entries = recipe_lines(".pre-commit-hooks.yaml", "tscn-merge check");
    assert!(!entries.is_empty());
    r.write("good.tscn", &scene(1, true));
    r.write(
        "broken.tscn",
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n<<<<<<< ours\nx = 1\n=======\nx = 2\n>>>>>>> theirs\n",
    );
    r.write(
        "dangling.tscn",
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nshape = SubResource(\"nope\")\n",
    );
    for entry in entries {
        // pre-commit appends the staged file names to `entry`.
        assert_eq!(
            run_line(&r, &format!("{entry} good.tscn"), &[])
                .status
                .code(),
            Some(0)
        );
        for bad in ["broken.tscn", "dangling.tscn"] {
            let o = run_line(&r, &format!("{entry} good.tscn {bad}"), &[]);
            assert_eq!(
                o.status.code(),
                Some(1),
                "{bad}: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}
