//! The command-line edge of `solve`, `check` and `diff`: output to a reader that is gone
//! (stdout or stderr a closed pipe) ends quietly with the usual exit code, output to a
//! full disk is `cannot write to standard output` and exit 2, never a panic (exit 101);
//! and names a repository controls reach the terminal spelled out, not obeyed.

mod common;

use common::{bin, closed_pipe, dev_full, TempRepo};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scene with one diff3 block that solves cleanly: ours sets speed, theirs jump.
const MARKED: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n<<<<<<< ours\nspeed = 250.0\njump = 10.0\n||||||| base\nspeed = 200.0\njump = 10.0\n=======\nspeed = 200.0\njump = 12.0\n>>>>>>> theirs\n";

fn marked_in(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("m.tscn");
    std::fs::write(&p, MARKED).expect("write");
    p
}

/// One command's stdout closed, then full: the closed pipe keeps the exit code and the
/// messages of a normal run; the full disk is exit 2 and says what it could not write.
fn stdout_edge(what: &str, make: &dyn Fn() -> Command) {
    let normal = make().output().expect("run");
    assert!(!normal.stdout.is_empty(), "{what} prints something");
    let closed = make()
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    assert_eq!(
        closed.status.code(),
        normal.status.code(),
        "{what} | closed: {closed:?}"
    );
    assert_eq!(
        text(&closed.stderr),
        text(&normal.stderr),
        "{what} | closed"
    );
    let full = make()
        .stdout(dev_full())
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    assert_eq!(full.status.code(), Some(2), "{what} >/dev/full: {full:?}");
    let err = text(&full.stderr);
    assert!(
        err.contains("tscn-merge: error: cannot write to standard output: No space left"),
        "{what} >/dev/full: {err}"
    );
}

/// Runs a command with stderr a closed pipe; stdout is captured.
fn stderr_closed(mut cmd: Command) -> Output {
    cmd.stdout(Stdio::piped())
        .stderr(closed_pipe())
        .output()
        .expect("run")
}

#[test]
fn solve_stdout_survives_a_closed_pipe_and_reports_a_full_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = marked_in(dir.path());
    stdout_edge("solve --stdout", &|| {
        let mut c = Command::new(bin());
        c.arg("solve").arg("--stdout").arg(&m);
        c
    });
    assert_eq!(
        std::fs::read_to_string(&m).expect("read"),
        MARKED,
        "untouched"
    );
}

#[test]
fn solve_with_nothing_unmerged_survives_a_closed_pipe_and_a_full_disk() {
    let t = TempRepo::new();
    t.write(
        "level.tscn",
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n",
    );
    t.commit_all("base");
    let t = &t;
    stdout_edge("solve (nothing unmerged)", &|| {
        let mut c = t.command(bin());
        c.arg("solve");
        c
    });
}

#[test]
fn diff_and_textconv_name_standard_output_on_a_full_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("a.tscn"),
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n",
    )
    .expect("write");
    std::fs::write(d.join("b.tscn"), "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"Hat\" type=\"Node\" parent=\".\"]\n").expect("write");
    for args in [
        &["diff", "a.tscn", "b.tscn"][..],
        &["diff", "--format=markdown", "a.tscn", "b.tscn"],
        &["textconv", "b.tscn"],
    ] {
        stdout_edge(&args.join(" "), &|| {
            let mut c = Command::new(bin());
            c.current_dir(d).args(args);
            c
        });
    }
}

#[test]
fn a_closed_stderr_is_no_panic_and_the_work_is_done() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = marked_in(dir.path());
    // check: markers are errors (on stdout since issue 38), exit 1.
    let out = stderr_closed({
        let mut c = Command::new(bin());
        c.arg("check").arg(&m);
        c
    });
    assert_eq!(out.status.code(), Some(1), "check 2>closed: {out:?}");
    // solve: messages on stderr, the file still solved and backed up.
    let out = stderr_closed({
        let mut c = Command::new(bin());
        c.arg("solve").arg(&m);
        c
    });
    assert_eq!(out.status.code(), Some(0), "solve 2>closed: {out:?}");
    let solved = std::fs::read_to_string(&m).expect("read");
    assert!(
        solved.contains("speed = 250.0")
            && solved.contains("jump = 12.0")
            && !solved.contains("<<<<<<<"),
        "{solved}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m.tscn.orig")).expect("backup"),
        MARKED
    );
    // An error: exit 2 even with nowhere to say it.
    let out = stderr_closed({
        let mut c = Command::new(bin());
        c.current_dir(dir.path())
            .args(["diff", "missing.tscn", "m.tscn"]);
        c
    });
    assert_eq!(
        out.status.code(),
        Some(2),
        "diff of a missing file 2>closed: {out:?}"
    );
    // textconv of a broken file: the warning is lost, the bytes are not.
    std::fs::write(dir.path().join("broken.tscn"), "[gd_scene format=3\n").expect("write");
    let out = stderr_closed({
        let mut c = Command::new(bin());
        c.current_dir(dir.path()).args(["textconv", "broken.tscn"]);
        c
    });
    assert_eq!(out.status.code(), Some(0), "textconv 2>closed: {out:?}");
    assert_eq!(out.stdout, b"[gd_scene format=3\n");
}

#[test]
fn check_spells_out_hidden_characters_in_names_and_messages_but_json_keeps_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let evil = "evil\x1b[2J\u{202e}.tscn";
    std::fs::write(
        d.join(evil),
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n",
    )
    .expect("write");
    let orphan = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"A\x1b[31m\" type=\"Node\" parent=\"Gone\u{200b}\u{202e}\"]\n";
    std::fs::write(d.join("orphan.tscn"), orphan).expect("write");
    let run = |args: &[&str]| {
        Command::new(bin())
            .current_dir(d)
            .args(args)
            .output()
            .expect("run")
    };
    let out = run(&["check", evil, "orphan.tscn"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    // Since issue 38 the problems are on stdout too, then the summary.
    assert!(so.starts_with("evil\\x1b[2J\\u{202e}.tscn: ok\n"), "{so}");
    assert!(
        so.contains("A\\x1b[31m") && so.contains("Gone\\u{200b}\\u{202e}"),
        "{so}"
    );
    assert!(so.ends_with("\n2 files: 1 problem\n"), "{so}");
    assert!(se.is_empty(), "{se}");
    for s in [&so, &se] {
        assert!(
            !s.contains(['\x1b', '\u{202e}', '\u{200b}']),
            "raw hidden character: {s:?}"
        );
    }
    let out = run(&["check", "--json", evil, "orphan.tscn"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["files"][0]["file"], evil);
    let msg = doc["files"][1]["problems"][0]["message"]
        .as_str()
        .expect("message");
    assert!(
        msg.contains("A\x1b[31m") && msg.contains("Gone\u{200b}\u{202e}"),
        "{msg:?}"
    );
}

#[test]
fn diff_markdown_names_the_mermaid_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("a.tscn"),
        "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n",
    )
    .expect("write");
    std::fs::write(d.join("b.tscn"), "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"Hat\" type=\"Sprite2D\" parent=\".\"]\n").expect("write");
    let out = Command::new(bin())
        .current_dir(d)
        .args(["diff", "--format=markdown", "a.tscn", "b.tscn"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let md = text(&out.stdout);
    assert!(md.contains("```mermaid"), "{md}");
    assert!(md.contains("[\"Level"), "root named: {md}");
    assert!(!md.contains("(root)"), "{md}");
}

/// `merge --explain` and the conflict report, and `solve --explain`, with stderr a
/// closed pipe: no panic (exit 101); the exit code and the written result are those of a
/// run whose stderr is read.
#[test]
fn explain_and_conflict_reports_survive_a_closed_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let scene = |speed: &str| {
        format!("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\nspeed = {speed}\n")
    };
    for (name, speed) in [("base", "1.0"), ("ours", "2.0"), ("theirs", "3.0")] {
        std::fs::write(d.join(format!("{name}.tscn")), scene(speed)).expect("write");
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/merge");
    let sides = |dir: &Path| ["base", "ours", "theirs"].map(|n| dir.join(format!("{n}.tscn")));
    // A clean merge with decisions to explain, then one with a conflict to report.
    for (inputs, code) in [(sides(&example), 0), (sides(d), 1)] {
        for explain in ["--explain", "--explain=json"] {
            let run = |out: &str, closed: bool| {
                let mut c = Command::new(bin());
                c.arg("merge")
                    .arg(explain)
                    .arg("-o")
                    .arg(d.join(out))
                    .args(&inputs);
                let o = if closed {
                    stderr_closed(c)
                } else {
                    c.output().expect("run")
                };
                (
                    o.status.code(),
                    std::fs::read(d.join(out)).expect("result"),
                    o,
                )
            };
            let (want_code, want, normal) = run("read.tscn", false);
            assert_eq!(want_code, Some(code), "{normal:?}");
            assert!(!normal.stderr.is_empty(), "something to say on stderr");
            let (got_code, got, closed) = run("closed.tscn", true);
            assert_eq!(got_code, want_code, "merge {explain} 2>closed: {closed:?}");
            assert_eq!(got, want, "merge {explain} 2>closed wrote another result");
        }
    }
    let m = marked_in(d);
    let out = stderr_closed({
        let mut c = Command::new(bin());
        c.args(["solve", "--explain"]).arg(&m);
        c
    });
    assert_eq!(
        out.status.code(),
        Some(0),
        "solve --explain 2>closed: {out:?}"
    );
    let solved = std::fs::read_to_string(&m).expect("read");
    assert!(
        solved.contains("speed = 250.0") && solved.contains("jump = 12.0"),
        "{solved}"
    );
}
