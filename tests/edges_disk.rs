//! Nothing lost at the edges, round two (issue 29): a full disk under `merge --git` and
//! `solve`, and `solve` facing an unmerged entry that is a symbolic link. Driven through
//! the binary; a full disk is a real write failure: the process's file-size limit
//! (`RLIMIT_FSIZE`, with `SIGXFSZ` ignored, so a write past it fails with `EFBIG` as a
//! full disk fails with `ENOSPC`), which needs no root and no mount.
#![cfg(unix)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

/// A Godot 4 scene: a root, `n` sprites, the first at `first`.
fn scene(n: usize, first: &str) -> String {
    let mut s = String::from(
        "[gd_scene format=3 uid=\"uid://b1disk0001\"]\n\n[node name=\"Root\" type=\"Node2D\"]\n",
    );
    for i in 0..n {
        let pos = if i == 0 {
            first.to_string()
        } else {
            format!("Vector2({i}, {i})")
        };
        s += &format!(
            "\n[node name=\"Sprite{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = {pos}\n"
        );
    }
    s
}

/// Run the binary with `args` in `dir`, every file it writes limited to `limit` bytes.
fn run_limited(dir: &Path, args: &[&std::ffi::OsStr], limit: u64) -> Output {
    let mut cmd = Command::new(common::bin());
    cmd.args(args)
        .current_dir(dir)
        .env_remove("TSCN_MERGE_FAVOR");
    // SAFETY: only async-signal-safe calls (setrlimit, signal) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: limit as libc::rlim_t,
                rlim_max: limit as libc::rlim_t,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.output().expect("run")
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Item 1: `merge --git` whose result (about 100 KB) does not fit: exit 2 and `%A` whole,
/// ours byte for byte or git's complete line merge, never part of a result; no
/// temporary file left.
#[test]
fn merge_git_on_a_full_disk_leaves_ours_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = scene(100, "Vector2(0, 0)");
    let ours = scene(100, "Vector2(7, 7)");
    let theirs = scene(1200, "Vector2(0, 0)");
    assert!(
        ours.len() < 12_000 && theirs.len() > 90_000,
        "{} {}",
        ours.len(),
        theirs.len()
    );
    for (n, t) in [("b", &base), ("o", &ours), ("t", &theirs)] {
        std::fs::write(dir.path().join(n), t).expect("write");
    }
    let args: Vec<&std::ffi::OsStr> = ["merge", "--git", "-p", "level.tscn", "b", "o", "t"]
        .iter()
        .map(std::ffi::OsStr::new)
        .collect();
    let out = run_limited(dir.path(), &args, 40_000);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let left = std::fs::read_to_string(dir.path().join("o")).expect("ours");
    let line_merge = common::git_merge_file(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let whole = left == ours || line_merge.is_some_and(|(m, _)| m == left.as_bytes());
    assert!(
        whole,
        "%A is {} bytes, ours {}: {err}",
        left.len(),
        ours.len()
    );
    assert!(err.contains("left as it was"), "{err}");
    assert_eq!(names(dir.path()), ["b", "o", "t"]);
    // With room, the same call merges cleanly.
    let out = run_limited(dir.path(), &args, 10_000_000);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let merged = std::fs::read_to_string(dir.path().join("o")).expect("ours");
    assert!(merged.contains("Vector2(7, 7)") && merged.contains("Sprite1199"));
}

/// Item 1 for `solve`: a backup that does not fit leaves no truncated `FILE.orig`, the
/// file as it was, exit 2; the next solve with room backs up to `FILE.orig` itself.
#[test]
fn solve_on_a_full_disk_leaves_no_truncated_backup() {
    let dir = tempfile::tempdir().expect("tempdir");
    // diff3 markers: ours moved Sprite5, theirs turned it; the structural merge takes both.
    let block = "<<<<<<< ours\nposition = Vector2(50, 5)\n||||||| base\nposition = Vector2(5, 5)\n=======\nposition = Vector2(5, 5)\nrotation = 1.0\n>>>>>>> theirs\n";
    let marked = scene(150, "Vector2(0, 0)").replace("position = Vector2(5, 5)\n", block);
    let file = dir.path().join("level.tscn");
    std::fs::write(&file, &marked).expect("write");
    assert!(marked.len() > 12_000);
    let args: Vec<&std::ffi::OsStr> = ["solve", "level.tscn"]
        .iter()
        .map(std::ffi::OsStr::new)
        .collect();
    let out = run_limited(dir.path(), &args, 8_000);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), marked);
    assert_eq!(names(dir.path()), ["level.tscn"], "{err}");
    let out = run_limited(dir.path(), &args, 10_000_000);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        names(dir.path()),
        ["level.tscn", "level.tscn.orig"],
        "{err}"
    );
    let orig = std::fs::read_to_string(dir.path().join("level.tscn.orig")).expect("orig");
    assert_eq!(orig, marked);
}

/// A name from raw bytes (Latin-1 `é` is the single byte 0xE9, not UTF-8).
fn latin1(bytes: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(bytes.to_vec())
}

/// Item 2: a scene named in Latin-1 (`%P`) merged from a branch named in Latin-1 (`%X`,
/// `%Y`) through a real `git merge`: the driver takes the bytes and merges.
#[test]
fn git_merge_with_latin1_path_and_branch_names() {
    let t = common::TempRepo::new();
    common::assert_success(&t.run_bin(["install"]), "install");
    let name = latin1(b"sc\xe9ne.tscn");
    let branch = latin1(b"caf\xe9");
    t.write(&name, scene(3, "Vector2(0, 0)"));
    t.commit_all("base");
    let mut b = vec![
        std::ffi::OsString::from("checkout"),
        "-q".into(),
        "-b".into(),
    ];
    b.push(branch.clone());
    t.git_ok(&b);
    t.write(
        &name,
        scene(3, "Vector2(0, 0)").replace("Vector2(2, 2)", "Vector2(9, 9)"),
    );
    t.commit_all("theirs");
    t.checkout("main");
    t.write(&name, scene(3, "Vector2(5, 5)"));
    t.commit_all("ours");
    let out = t.git([
        std::ffi::OsString::from("merge"),
        "--no-edit".into(),
        branch,
    ]);
    assert!(
        out.status.success(),
        "{}{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    let merged = String::from_utf8(t.read(&name)).expect("utf-8");
    assert!(
        merged.contains("Vector2(5, 5)") && merged.contains("Vector2(9, 9)"),
        "{merged}"
    );
}

/// Item 2: non-UTF-8 labels reach the markers of a real conflict, and a call the parser
/// must refuse (an option it does not know) still leaves git's line merge in `%A`.
#[test]
fn merge_git_takes_byte_labels_and_a_refused_call_leaves_markers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let w = |n: &str, s: &str| std::fs::write(dir.path().join(n), s).expect("write");
    let base = scene(2, "Vector2(0, 0)");
    let ours = scene(2, "Vector2(1, 1)");
    let theirs = scene(2, "Vector2(2, 2)");
    w("b", &base);
    w("o", &ours);
    w("t", &theirs);
    let run = |extra: &[std::ffi::OsString]| {
        Command::new(common::bin())
            .args(["merge", "--git", "-p"])
            .arg(latin1(b"sc\xe9ne.tscn"))
            .args(extra)
            .args(["--", "b", "o", "t"])
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .env_remove("TSCN_MERGE_FAVOR")
            .output()
            .expect("run")
    };
    let out = run(&[
        "-x".into(),
        latin1(b"caf\xe9"),
        "-y".into(),
        latin1(b"th\xe9"),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("o")).expect("ours");
    assert!(text.contains("<<<<<<< caf\u{FFFD}\n"), "{text}");
    assert!(text.contains(">>>>>>> th\u{FFFD}\n"), "{text}");
    w("o", &ours);
    let out = run(&["--option-of-a-later-version".into()]);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let text = std::fs::read_to_string(dir.path().join("o")).expect("ours");
    assert!(
        text.contains("<<<<<<< ours\n") && text.contains("Vector2(2, 2)"),
        "{text}"
    );
    assert!(err.contains("line merge was written instead"), "{err}");
}

/// Item 11: `solve` with no file named, where git left an unmerged entry that is a
/// symbolic link to a file outside the repository (which holds conflict markers): refused
/// with the link named, exit 2, the file outside untouched and no backup of it.
#[test]
fn solve_never_writes_through_an_unmerged_symbolic_link() {
    let t = common::TempRepo::new();
    let victim = t.scratch().join("victim.tscn");
    let block = "<<<<<<< ours\nposition = Vector2(50, 5)\n||||||| base\nposition = Vector2(5, 5)\n=======\nposition = Vector2(5, 5)\nrotation = 1.0\n>>>>>>> theirs\n";
    let marked = scene(6, "Vector2(0, 0)").replace("position = Vector2(5, 5)\n", block);
    std::fs::write(&victim, &marked).expect("victim");
    t.write("level.tscn", scene(2, "Vector2(0, 0)"));
    t.commit_all("base");
    t.checkout_new("feature");
    t.remove("level.tscn");
    std::os::unix::fs::symlink("other.tscn", t.abs("level.tscn")).expect("link");
    t.commit_all("theirs");
    t.checkout("main");
    t.remove("level.tscn");
    std::os::unix::fs::symlink(&victim, t.abs("level.tscn")).expect("link");
    t.commit_all("ours");
    assert!(!t.merge("feature").status.success());
    let out = t.run_bin(["solve"]);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("level.tscn") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), marked);
    assert_eq!(names(&t.scratch()), ["victim.tscn"]);
    assert!(!t.path().join(".git/tscn-merge/backup").exists());
}

/// A tmpfs of `size`, unmounted on drop; `None` when it cannot be mounted (not root).
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

/// Item 1 on a real full disk (a 100 KB tmpfs, where one can be mounted: root): the
/// result does not fit, `%A` stays whole, exit 2, no temporary file left.
#[test]
fn merge_git_on_a_full_tmpfs_leaves_ours_whole() {
    let Some(fs) = Tmpfs::mount("100k") else {
        eprintln!("no tmpfs could be mounted (not root): the RLIMIT_FSIZE test covers this");
        return;
    };
    let dir = fs.0.path();
    let base = scene(100, "Vector2(0, 0)");
    let ours = scene(100, "Vector2(7, 7)");
    let theirs = scene(700, "Vector2(0, 0)");
    for (n, t) in [("b", &base), ("o", &ours), ("t", &theirs)] {
        std::fs::write(dir.join(n), t).expect("write");
    }
    let out = Command::new(common::bin())
        .args(["merge", "--git", "-p", "level.tscn", "b", "o", "t"])
        .current_dir(dir)
        .env_remove("TSCN_MERGE_FAVOR")
        .output()
        .expect("run");
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("o")).expect("ours"), ours);
    assert_eq!(names(dir), ["b", "o", "t"], "{err}");
}
