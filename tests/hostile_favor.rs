//! `--favor` never writes a broken file as a clean result (issue 36, item 5): ours moves B
//! under A while theirs moves A under B. Taking either side everywhere would give a node
//! under its own child; the merge exits 1 and says so, `check` is never handed a file that
//! `merge` called clean, and the report stays short (the cycle once, not 8 KB of it).

mod common;

use common::{stderr, TempRepo};

const BASE: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\nv = 1\n\n[node name=\"X\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\nw = 2\n";
/// B moved under A.
const OURS: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\nv = 1\n\n[node name=\"X\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\"A\"]\nw = 2\n";
/// A moved under B.
const THEIRS: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"X\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\nw = 2\n\n[node name=\"A\" type=\"Node\" parent=\"B\"]\nv = 1\n";

fn valid(text: &[u8]) -> bool {
    gdscene::model::Scene::parse(text)
        .map(|s| !gdscene::check::is_broken(&gdscene::check::check(&s)))
        .unwrap_or(false)
}

#[test]
fn favor_on_crossed_moves_is_never_a_clean_broken_scene() {
    let t = TempRepo::new();
    t.write("b.tscn", BASE);
    t.write("o.tscn", OURS);
    t.write("t.tscn", THEIRS);
    for side in ["ours", "theirs"] {
        let out = t.run_bin(["merge", "--favor", side, "b.tscn", "o.tscn", "t.tscn"]);
        let err = stderr(&out);
        match out.status.code() {
            Some(0) => assert!(
                valid(&out.stdout),
                "exit 0 with a broken scene:\n{}",
                String::from_utf8_lossy(&out.stdout)
            ),
            Some(1) => assert!(err.contains("would leave a broken file"), "{err}"),
            c => panic!("exit {c:?}: {err}"),
        }
        assert!(err.len() < 2_000, "{} bytes of report:\n{err}", err.len());
    }
}

#[test]
fn favor_under_git_leaves_crossed_moves_unmerged() {
    let t = TempRepo::new();
    common::assert_success(&t.run_bin(["install"]), "install");
    t.write("s.tscn", BASE);
    t.commit_all("base");
    t.checkout_new("other");
    t.write("s.tscn", THEIRS);
    t.commit_all("theirs");
    t.checkout("main");
    t.write("s.tscn", OURS);
    t.commit_all("ours");
    let out = t
        .command("git")
        .env("TSCN_MERGE_FAVOR", "ours")
        .args(["merge", "other"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the merge must stop for a person");
    let unmerged = t.git_ok(["diff", "--name-only", "--diff-filter=U"]);
    assert_eq!(unmerged.trim(), "s.tscn");
}

#[test]
fn solve_favor_on_crossed_moves_leaves_the_conflict() {
    let t = TempRepo::new();
    let head = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n";
    let body = |s: &str| s[head.len()..].to_string();
    let marked = format!(
        "{head}<<<<<<< ours\n{}||||||| base\n{}=======\n{}>>>>>>> theirs\n",
        body(OURS),
        body(BASE),
        body(THEIRS)
    );
    let file = t.scratch().join("s.tscn");
    for side in ["ours", "theirs"] {
        std::fs::write(&file, &marked).unwrap();
        let out = t.run_bin([
            std::path::Path::new("solve"),
            std::path::Path::new("--favor"),
            std::path::Path::new(side),
            std::path::Path::new("--stdout"),
            &file,
        ]);
        let err = stderr(&out);
        match out.status.code() {
            Some(0) => assert!(valid(&out.stdout), "solved into a broken scene:\n{err}"),
            Some(1) => assert!(err.contains("would leave a broken file"), "{err}"),
            c => panic!("exit {c:?}: {err}"),
        }
        assert!(err.len() < 2_000, "{err}");
    }
}
