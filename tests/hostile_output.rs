//! Every command's standard output when nobody reads it (`| head -1` already gone) or
//! when it cannot be written (`>/dev/full`): a closed pipe ends the command quietly
//! with the exit status it would have had; a full disk is a message and exit 2.
//! Never a panic (exit 101).

mod common;

use common::{assert_success, bin, closed_pipe, dev_full, TempRepo};
use std::process::{Command, Output, Stdio};

fn run_into(mut cmd: Command, out: Stdio) -> Output {
    cmd.stdout(out)
        .stderr(Stdio::piped())
        .output()
        .expect("run")
}

/// Checks one command: its status with a normal stdout, then closed and full.
fn check_command(what: &str, make: &dyn Fn() -> Command) {
    let normal = make().output().expect("run");
    let code = normal.status.code();
    assert!(matches!(code, Some(0 | 1)), "{what}: {normal:?}");
    assert!(!normal.stdout.is_empty(), "{what} prints something");
    let closed = run_into(make(), closed_pipe());
    assert_eq!(closed.status.code(), code, "{what} | closed: {closed:?}");
    assert_eq!(
        String::from_utf8_lossy(&closed.stderr),
        String::from_utf8_lossy(&normal.stderr),
        "{what} | closed: no message of its own"
    );
    let full = run_into(make(), dev_full());
    assert_eq!(full.status.code(), Some(2), "{what} >/dev/full: {full:?}");
    let err = String::from_utf8_lossy(&full.stderr);
    assert!(
        err.contains("No space left on device"),
        "{what} >/dev/full: {err}"
    );
    assert!(!err.contains("panicked"), "{what} >/dev/full: {err}");
}

fn example(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn file_commands_end_quietly_on_a_closed_pipe_and_fail_on_a_full_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().to_path_buf();
    for n in ["base.tscn", "ours.tscn", "theirs.tscn"] {
        std::fs::write(d.join(n), example(n)).expect("write");
    }
    std::fs::write(d.join("broken.tscn"), "[gd_scene format=3\nnot a scene\n").expect("write");
    let cases: [(&str, &[&str]); 7] = [
        ("check", &["check", "base.tscn", "ours.tscn"]),
        ("check --json", &["check", "--json", "base.tscn"]),
        ("merge", &["merge", "base.tscn", "ours.tscn", "theirs.tscn"]),
        ("diff", &["diff", "base.tscn", "theirs.tscn"]),
        (
            "diff --format=json",
            &["diff", "--format=json", "base.tscn", "theirs.tscn"],
        ),
        ("textconv", &["textconv", "ours.tscn"]),
        ("textconv of a broken file", &["textconv", "broken.tscn"]),
    ];
    for (what, args) in cases {
        check_command(what, &|| {
            let mut c = Command::new(bin());
            c.current_dir(&d).args(args);
            c
        });
    }
}

#[test]
fn repository_commands_end_quietly_on_a_closed_pipe_and_fail_on_a_full_disk() {
    let t = TempRepo::new();
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.write("level.tscn", example("theirs.tscn"));
    t.commit_all("theirs");
    let t = &t;
    let cmd = |args: &'static [&'static str]| {
        move || {
            let mut c = t.command(bin());
            c.args(args);
            c
        }
    };
    check_command("review", &cmd(&["review", "HEAD~1..HEAD"]));
    check_command("install", &cmd(&["install"]));
    check_command("uninstall", &cmd(&["uninstall"]));
    assert_success(&t.run_bin(["install"]), "install");
    check_command("install again", &cmd(&["install"]));
}
