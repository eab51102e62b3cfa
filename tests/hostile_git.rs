//! The edges of the binary where git or the system hands it something unusual: a path
//! that starts with `-`, a signal in the middle of writing, an input that shrinks while
//! it is read, and the mode of the files it writes.

mod common;

use common::{assert_success, bin, stderr, stdout, TempRepo};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output};

fn example(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `tscn-merge merge -o OUT` of the three example sides: the structural result.
fn structural_result(dir: &Path) -> Vec<u8> {
    let names = ["base.tscn", "ours.tscn", "theirs.tscn"];
    for n in names {
        std::fs::write(dir.join(n), example(n)).expect("write");
    }
    let out = Command::new(bin())
        .current_dir(dir)
        .args(["merge", "-o", "expected.tscn"])
        .args(names)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::read(dir.join("expected.tscn")).expect("read")
}

const DASHED: &str = "-Game.tscn";

/// A repository holding `-Game.tscn` (base, ours on main, theirs on `feature`), the
/// drivers installed.
fn dashed_repo() -> TempRepo {
    let t = TempRepo::new();
    assert_success(&t.run_bin(["install", "--diff"]), "install --diff");
    t.write(DASHED, example("base.tscn"));
    t.commit_all("base");
    t.checkout_new("feature");
    t.write(DASHED, example("theirs.tscn"));
    t.commit_all("theirs");
    t.checkout("main");
    t.write(DASHED, example("ours.tscn"));
    t.commit_all("ours");
    t
}

#[test]
fn a_path_starting_with_a_dash_merges_structurally_in_git() {
    let t = dashed_repo();
    let expected = structural_result(&t.scratch());
    let out = t.merge("feature");
    assert_success(&out, "git merge of -Game.tscn");
    let merged = t.read(DASHED);
    assert_eq!(
        String::from_utf8_lossy(&merged),
        String::from_utf8_lossy(&expected),
        "the driver's structural result, not ours unchanged"
    );
    assert_ne!(merged, example("ours.tscn"));
}

#[test]
fn a_path_starting_with_a_dash_diffs_in_git() {
    let t = dashed_repo();
    t.write(DASHED, example("theirs.tscn"));
    let ext = t.git(["diff"]);
    assert_success(&ext, "git diff (external diff)");
    assert!(
        stdout(&ext).contains("diff --tscn-merge a/-Game.tscn b/-Game.tscn"),
        "{}{}",
        stdout(&ext),
        stderr(&ext)
    );
    for args in [
        &["diff", "--no-ext-diff"][..],
        &["log", "-p", "-1", "--", DASHED][..],
    ] {
        let out = t.git(args);
        assert_success(&out, &format!("git {args:?} (textconv)"));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
    // The textconv projection drops re-save noise such as `load_steps`; the raw file has it.
    let raw = t.git(["cat-file", "blob", "HEAD:-Game.tscn"]);
    assert!(stdout(&raw).contains("load_steps="), "{}", stdout(&raw));
    let tc = t.git(["cat-file", "--textconv", "HEAD:-Game.tscn"]);
    assert_success(&tc, "git cat-file --textconv");
    assert!(
        !stdout(&tc).contains("load_steps=") && stdout(&tc).contains("[node name=\"Player\""),
        "{}",
        stdout(&tc)
    );
}

/// A scene of about `mb` megabytes: one huge packed array and a node that uses it.
fn big_scene(mb: usize, speed: u32) -> Vec<u8> {
    let mut s = String::from("[gd_scene load_steps=2 format=3]\n\n");
    s.push_str(
        "[sub_resource type=\"ArrayMesh\" id=\"ArrayMesh_big\"]\ndata = PackedFloat32Array(",
    );
    let mut i = 0u64;
    while s.len() < mb << 20 {
        s.push_str(&format!("{}.{}, ", i % 1000, i % 7));
        i += 1;
    }
    s.push_str("0)\n\n[node name=\"Root\" type=\"Node3D\"]\n");
    s.push_str(&format!("speed = {speed}\n"));
    s.push_str("\n[node name=\"Mesh\" type=\"MeshInstance3D\" parent=\".\"]\n");
    s.push_str("mesh = SubResource(\"ArrayMesh_big\")\n");
    s.into_bytes()
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("ls")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tscn-merge-"))
        .collect()
}

#[test]
fn sigterm_while_writing_leaves_no_temp_file_and_ours_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (base, ours) = (big_scene(20, 1), big_scene(20, 1));
    let mut theirs = big_scene(20, 2);
    theirs.extend_from_slice(b"\n[node name=\"Extra\" type=\"Node\" parent=\".\"]\n");
    std::fs::write(d.join("base.tscn"), &base).expect("write");
    std::fs::write(d.join("theirs.tscn"), &theirs).expect("write");
    let mut caught = 0;
    for _ in 0..10 {
        std::fs::write(d.join("ours.tscn"), &ours).expect("write");
        let mut child = Command::new(bin())
            .current_dir(d)
            .args(["merge", "--git", "base.tscn", "ours.tscn", "theirs.tscn"])
            .spawn()
            .expect("spawn");
        let mut seen = false;
        while child.try_wait().expect("wait").is_none() {
            if !temp_files(d).is_empty() {
                // SAFETY: sends a signal to our own child.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                seen = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let status = child.wait().expect("wait");
        assert_eq!(temp_files(d), Vec::<String>::new(), "{status:?}");
        let now = std::fs::read(d.join("ours.tscn")).expect("read");
        assert!(now == ours || now == theirs, "ours is whole: old or merged");
        if seen && status.signal() == Some(libc::SIGTERM) {
            caught += 1;
        }
    }
    assert!(caught > 0, "never caught the merge while it wrote");
}

/// Run `tscn-merge ARGS` in `d`, truncate `d/victim` to 10 bytes `delay_ms` after the
/// start, and return what the run gave; a death by signal fails the test.
fn truncated_while_running(d: &Path, args: &[&str], victim: &str, delay_ms: u64) -> Output {
    let child = Command::new(bin())
        .current_dir(d)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(delay_ms));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(d.join(victim))
        .expect("open");
    f.set_len(10).expect("truncate");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.code().is_some(),
        "{args:?}: killed by signal {:?} after {delay_ms} ms",
        out.status.signal()
    );
    out
}

#[test]
fn an_input_shrinking_while_read_is_no_signal_death() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (base, ours, theirs) = (big_scene(8, 1), big_scene(8, 2), big_scene(8, 3));
    std::fs::write(d.join("base.tscn"), &base).expect("write");
    std::fs::write(d.join("ours.tscn"), &ours).expect("write");
    let args = [
        "merge",
        "-o",
        "out.tscn",
        "base.tscn",
        "ours.tscn",
        "theirs.tscn",
    ];
    for delay_ms in [0u64, 1, 2, 5, 10, 20, 40, 80] {
        std::fs::write(d.join("theirs.tscn"), &theirs).expect("write");
        truncated_while_running(d, &args, "theirs.tscn", delay_ms);
    }
}

/// `merge` maps its big inputs (`src/io/mapped.rs`): a truncation while it reads them is
/// an error naming the file, with no temporary file left and OURS untouched.
#[test]
fn a_merge_input_shrinking_while_read_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (base, ours, theirs) = (many_nodes(12, 1), many_nodes(12, 2), many_nodes(12, 3));
    std::fs::write(d.join("base.tscn"), &base).expect("write");
    let args = ["merge", "--git", "base.tscn", "ours.tscn", "theirs.tscn"];
    let mut named = 0;
    for delay_ms in [0u64, 5, 10, 20, 30, 40, 60, 80, 120] {
        std::fs::write(d.join("ours.tscn"), &ours).expect("write");
        std::fs::write(d.join("theirs.tscn"), &theirs).expect("write");
        let out = truncated_while_running(d, &args, "theirs.tscn", delay_ms);
        assert_eq!(temp_files(d), Vec::<String>::new(), "after {delay_ms} ms");
        if stderr(&out).contains("theirs.tscn: changed while it was read") {
            assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            assert!(
                std::fs::read(d.join("ours.tscn")).expect("read") == ours,
                "ours untouched"
            );
            named += 1;
        }
    }
    assert!(
        named > 0,
        "never caught the merge while it read the mapped file"
    );
}

/// A scene of about `mb` MB of nodes: slow enough to read that a truncation lands
/// while it is read.
fn many_nodes(mb: usize, speed: u32) -> Vec<u8> {
    let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n");
    s.push_str(&format!("speed = {speed}\n"));
    let mut i = 0u64;
    while s.len() < mb << 20 {
        s.push_str(&format!(
            "\n[node name=\"N{i}\" type=\"Node3D\" parent=\".\"]\nposition = Vector3({i}, 0, 1)\n"
        ));
        i += 1;
    }
    s.into_bytes()
}

/// `diff` maps a big side (`src/io/mapped.rs`): a truncation while it reads is a SIGBUS
/// that must end as an error naming the file, not a death.
#[test]
fn a_diff_side_shrinking_while_read_is_an_error_naming_it_not_a_signal_death() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (old, new) = (many_nodes(12, 1), many_nodes(12, 2));
    std::fs::write(d.join("old.tscn"), &old).expect("write");
    let mut named = 0;
    for delay_ms in [0u64, 2, 5, 10, 15, 20, 30, 40, 60, 80] {
        std::fs::write(d.join("new.tscn"), &new).expect("write");
        let args = ["diff", "old.tscn", "new.tscn"];
        let out = truncated_while_running(d, &args, "new.tscn", delay_ms);
        if stderr(&out).contains("new.tscn: changed while it was read") {
            assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
            named += 1;
        }
    }
    assert!(
        named > 0,
        "never caught the diff while it read the mapped file"
    );
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o7777
}

#[test]
fn written_files_follow_the_umask_and_git_keeps_ours_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for n in ["base.tscn", "ours.tscn", "theirs.tscn"] {
        std::fs::write(d.join(n), example(n)).expect("write");
    }
    let run = |umask: &str, args: &str| {
        let out = Command::new("sh")
            .current_dir(d)
            .arg("-c")
            .arg(format!(
                "umask {umask}; exec \"$0\" merge {args} base.tscn ours.tscn theirs.tscn"
            ))
            .arg(bin())
            .output()
            .expect("run");
        assert!(out.status.code().is_some_and(|c| c < 2), "{}", stderr(&out));
    };
    run("022", "-o new.tscn");
    assert_eq!(mode(&d.join("new.tscn")), 0o644);
    run("002", "-o new2.tscn");
    assert_eq!(mode(&d.join("new2.tscn")), 0o664);
    std::fs::set_permissions(d.join("ours.tscn"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    run("077", "--git");
    assert_eq!(mode(&d.join("ours.tscn")), 0o755);
}

#[test]
fn an_output_that_is_no_regular_file_is_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for n in ["base.tscn", "ours.tscn", "theirs.tscn"] {
        std::fs::write(d.join(n), example(n)).expect("write");
    }
    // `-o /dev/null` as root used to rename a regular file over /dev/null; a FIFO
    // shows the same without touching the system.
    let fifo = d.join("out.fifo");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("c string");
    // SAFETY: a valid C string path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read fifo"))
    };
    let out = Command::new(bin())
        .current_dir(d)
        .args([
            "merge",
            "-o",
            "out.fifo",
            "base.tscn",
            "ours.tscn",
            "theirs.tscn",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got = reader.join().expect("reader");
    assert_eq!(got, structural_result(&t_scratch(d)));
    let meta = std::fs::symlink_metadata(&fifo).expect("stat");
    assert!(meta.file_type().is_fifo(), "still a FIFO");
    assert_eq!(temp_files(d), Vec::<String>::new());
}

fn t_scratch(d: &Path) -> std::path::PathBuf {
    let p = d.join("scratch");
    std::fs::create_dir_all(&p).expect("mkdir");
    p
}

#[test]
fn a_failure_after_reading_leaves_the_line_merge_in_ours_with_git() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let side = |speed: u32| {
        format!("[gd_scene format=3]\n\n[node name=\"Player\" type=\"Node2D\"]\nspeed = {speed}\n")
    };
    std::fs::write(d.join("base.tscn"), side(100)).expect("write");
    std::fs::write(d.join("ours.tscn"), side(200)).expect("write");
    std::fs::write(d.join("theirs.tscn"), side(300)).expect("write");
    // A closed stderr makes the conflict report fail (a panic in eprintln!) after the
    // inputs were read: git would then take OURS unchanged as the result.
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills both descriptors; each is owned exactly once.
    let (read, write) = unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "pipe");
        use std::os::fd::FromRawFd;
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(read);
    let status = Command::new(bin())
        .current_dir(d)
        .args([
            "merge",
            "--git",
            "--path=-p.tscn",
            "--",
            "base.tscn",
            "ours.tscn",
            "theirs.tscn",
        ])
        .stderr(std::process::Stdio::from(write))
        .status()
        .expect("run");
    assert_eq!(status.code(), Some(1), "{status:?}");
    let merged =
        String::from_utf8(std::fs::read(d.join("ours.tscn")).expect("read")).expect("utf-8");
    assert!(merged.contains("<<<<<<< ours\nspeed = 200\n"), "{merged}");
    assert!(merged.contains("speed = 300\n>>>>>>> theirs\n"), "{merged}");
}
