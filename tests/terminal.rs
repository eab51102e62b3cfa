//! What the binary does when a stream is a real terminal (a pseudo-terminal here):
//! `review` shows progress on a terminal's stderr unless `-q`, and `diff --color auto`
//! colours a terminal's stdout. The pipe side of both is in `tests/review.rs` and
//! `tests/diff.rs`.

mod common;

use common::{bin, TempRepo};
use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

/// A pseudo-terminal: the side we read, and the side a child writes to.
fn pty() -> (File, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two fresh descriptors, owned from here on.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are open and owned by nobody else.
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// Everything written to the terminal until the last writer closed it (Linux reports
/// that as EIO, which ends the read).
fn drain(mut master: File) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let (mut all, mut buf) = (Vec::new(), [0u8; 4096]);
        while let Ok(n @ 1..) = master.read(&mut buf) {
            all.extend_from_slice(&buf[..n]);
        }
        all
    })
}

/// Run `cmd` with stderr (`to_stderr`) or stdout on a terminal; returns (stdout or
/// stderr through a pipe, what reached the terminal).
fn on_terminal(mut cmd: Command, to_stderr: bool) -> (Vec<u8>, Vec<u8>) {
    let (master, slave) = pty();
    let reader = drain(master);
    let child = if to_stderr {
        cmd.stdout(Stdio::piped()).stderr(Stdio::from(slave))
    } else {
        cmd.stderr(Stdio::piped()).stdout(Stdio::from(slave))
    }
    .spawn()
    .expect("run");
    drop(cmd);
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    let piped = if to_stderr { out.stdout } else { out.stderr };
    (piped, reader.join().expect("reader"))
}

const SCENE: &str = "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\nspeed = 1\n";

fn repo_with_a_change() -> TempRepo {
    let t = TempRepo::new();
    t.write("level.tscn", SCENE);
    t.commit_all("add");
    t.write("level.tscn", SCENE.replace("speed = 1", "speed = 2"));
    t.commit_all("faster");
    t
}

#[test]
fn review_shows_progress_on_a_terminal_unless_quiet() {
    let t = repo_with_a_change();
    let review = |quiet: bool| {
        let mut cmd = t.command(bin());
        cmd.args(["review", "--format", "text", "HEAD~1..HEAD"]);
        if quiet {
            cmd.arg("-q");
        }
        on_terminal(cmd, true)
    };
    let (report, progress) = review(false);
    let progress = String::from_utf8_lossy(&progress);
    assert!(
        progress.contains("tscn-merge review: 1 commit in HEAD~1..HEAD")
            && progress.contains("tscn-merge review: 1/1 level.tscn"),
        "{progress:?}"
    );
    assert!(String::from_utf8_lossy(&report).contains("speed"));
    let (quiet_report, nothing) = review(true);
    assert_eq!(quiet_report, report);
    assert_eq!(String::from_utf8_lossy(&nothing), "");
}

#[test]
fn diff_colours_a_terminal_unless_no_color() {
    let t = repo_with_a_change();
    t.write("old.tscn", SCENE);
    t.write("new.tscn", SCENE.replace("speed = 1", "speed = 2"));
    let diff = |no_color: bool| {
        let mut cmd = t.command(bin());
        cmd.env_remove("NO_COLOR")
            .env_remove("GIT_PAGER_IN_USE")
            .env_remove("GIT_DIFF_PATH_COUNTER")
            .args(["diff", "old.tscn", "new.tscn"]);
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        String::from_utf8_lossy(&on_terminal(cmd, false).1).into_owned()
    };
    let coloured = diff(false);
    assert!(
        coloured.contains("speed") && coloured.contains("\x1b["),
        "{coloured:?}"
    );
    let plain = diff(true);
    assert!(
        plain.contains("speed") && !plain.contains("\x1b["),
        "{plain:?}"
    );
}
