//! `review REV_RANGE` end to end in temporary repositories: ranges, added and deleted
//! files, the three formats, and progress only when the range is long.

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
fn long_ranges_report_progress_on_stderr() {
    let r = Repo::new();
    r.write("p.tscn", &scene(0, false));
    r.commit("c0");
    let base = r.git(&["rev-parse", "HEAD"]).trim().to_string();
    for i in 1..=55 {
        r.write("p.tscn", &scene(i, false));
        r.commit(&format!("c{i}"));
    }
    let o = r.review(&[&format!("{base}..HEAD"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("55 commits"), "{err}");
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["files"][0]["diff"]["changes"][0]["new"], "55");
}
