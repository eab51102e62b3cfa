//! CRLF line endings (a work tree checked out with `core.autocrlf=true`, Git for
//! Windows' default, or an editor that writes CRLF): every command that writes a scene
//! writes ours' line ending on every line (docs/install.md, src/io/eol.rs), and
//! `solve`, `check`, `diff` and the merge driver round-trip such work trees without
//! changing an ending or showing a difference that is not there.

mod common;

use common::{assert_success, stderr, stdout, TempRepo};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `text` with every LF made CRLF, as git writes a file under `core.autocrlf=true`.
fn crlf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    for &b in text {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

/// How many lines of `text` end in LF alone and how many in CRLF.
fn endings(text: &[u8]) -> (usize, usize) {
    let (mut lf, mut cr) = (0, 0);
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            if i > 0 && text[i - 1] == b'\r' {
                cr += 1;
            } else {
                lf += 1;
            }
        }
    }
    (lf, cr)
}

/// Panics unless every line of `text` ends in CRLF.
fn assert_all_crlf(text: &[u8], what: &str) {
    let (lf, cr) = endings(text);
    assert!(
        lf == 0 && cr > 0,
        "{what}: {lf} line(s) end in LF, {cr} in CRLF"
    );
}

fn example(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The binary run in `dir` with `args`.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(common::bin())
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("running tscn-merge")
}

/// `tscn-merge merge` of the three files in `dir` (names as given): stdout, exit code.
fn merge_in(dir: &Path, files: &[String], extra: &[&str]) -> (Vec<u8>, Option<i32>) {
    let mut args = vec!["merge"];
    args.extend_from_slice(extra);
    args.extend(files.iter().map(String::as_str));
    let out = run_in(dir, &args);
    (out.stdout, out.status.code())
}

/// The base, ours and theirs file names of a shared merge folder.
fn sides(dir: &Path) -> Vec<String> {
    ["base", "ours", "theirs"]
        .iter()
        .map(|s| {
            ["tscn", "tres", "escn"]
                .iter()
                .map(|e| format!("{s}.{e}"))
                .find(|f| dir.join(f).exists())
                .unwrap_or_else(|| panic!("{}: no {s}.*", dir.display()))
        })
        .collect()
}

/// Every shared real merge, with all three inputs converted to CRLF: the result's lines
/// all end in CRLF, and it is the LF merge's result with each LF made CRLF, exit code
/// included. Ours in LF and theirs in CRLF: the result is all LF, the LF merge's own.
#[test]
fn shared_real_merges_in_crlf_come_out_in_crlf_throughout() {
    let Some(root) = common::shared_dir().filter(|p| p.join("merges/SUMMARY.tsv").exists()) else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("merges"))
        .expect("merges")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 100, "only {} shared merges", dirs.len());
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let names = sides(dir);
        let (lf_out, lf_code) = merge_in(dir, &names, &[]);
        let work = scratch.path().join(i.to_string());
        std::fs::create_dir_all(&work).expect("mkdir");
        for n in &names {
            std::fs::write(
                work.join(n),
                crlf(&std::fs::read(dir.join(n)).expect("read")),
            )
            .expect("write");
        }
        let (out, code) = merge_in(&work, &names, &[]);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (lf, cr) = endings(&out);
        if lf > 0 {
            failures.push(format!("{name}: mixed, {lf} LF and {cr} CRLF line(s)"));
        } else if out != crlf(&lf_out) || code != lf_code {
            failures.push(format!(
                "{name}: not the LF result in CRLF (exit {code:?}, LF exit {lf_code:?})"
            ));
        }
        // Every fifth: ours as it was (LF), base and theirs in CRLF.
        if i % 5 == 0 {
            std::fs::copy(dir.join(&names[1]), work.join(&names[1])).expect("copy");
            let (out, code) = merge_in(&work, &names, &[]);
            if out != lf_out || code != lf_code {
                failures.push(format!(
                    "{name}: ours LF, theirs CRLF: not the LF result ({:?})",
                    endings(&out)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} merges:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

/// The line-merge fallback (`--timeout 0`) and its conflict markers follow ours' CRLF,
/// with `--git` writing over ours as with standard output.
#[test]
fn the_line_merge_fallback_and_its_markers_follow_ours_crlf() {
    let dir = tempfile::tempdir().expect("tempdir");
    let names: Vec<String> = ["base", "ours", "theirs"]
        .iter()
        .map(|s| format!("{s}.tscn"))
        .collect();
    for n in &names {
        std::fs::write(dir.path().join(n), crlf(&example(n))).expect("write");
    }
    let (out, code) = merge_in(dir.path(), &names, &["--timeout", "0"]);
    assert_eq!(code, Some(1), "the example conflicts for a line merge");
    assert!(String::from_utf8_lossy(&out).contains("<<<<<<< ours\r\n"));
    assert_all_crlf(&out, "line merge");
    let (_, code) = merge_in(
        dir.path(),
        &names,
        &["--git", "--style", "diff3", "--timeout", "0"],
    );
    assert_eq!(code, Some(1));
    let written = std::fs::read(dir.path().join("ours.tscn")).expect("read");
    assert!(written == out, "--git writes what standard output shows");
}

/// A scene with a string over three lines (an autocrlf checkout gives it CRLF inside the
/// string too) and a node for each side to change.
const SCENE: &str = "[gd_scene format=3 uid=\"uid://crlfscene\"]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"Label\" type=\"Label\" parent=\".\"]\ntext = \"first line\nsecond line\nthird line\"\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(1, 2)\n";

/// A repository whose work tree git checks out with CRLF (`core.autocrlf=true`): files
/// are written there in CRLF, as a Windows user's editor and git leave them.
fn autocrlf_repo() -> TempRepo {
    let t = TempRepo::new();
    t.git_ok(["config", "core.autocrlf", "true"]);
    t.git_ok(["config", "core.safecrlf", "false"]);
    t
}

/// The index's (or a commit's) blob of `rev:path`, as git stores it.
fn blob(t: &TempRepo, spec: &str) -> Vec<u8> {
    let out = t.git(["cat-file", "blob", spec]);
    assert_success(&out, spec);
    out.stdout
}

/// `SCENE` on main, ours and theirs changing different lines close together (git's line
/// merge conflicts, the structural merge does not), all written in CRLF.
fn diverged(t: &TempRepo) {
    t.write("scene.tscn", crlf(SCENE.as_bytes()));
    t.commit_all("base");
    t.checkout_new("feature");
    let theirs = SCENE.replace("Vector2(1, 2)", "Vector2(5, 6)\nrotation = 0.5");
    t.write("scene.tscn", crlf(theirs.as_bytes()));
    t.commit_all("theirs");
    t.checkout("main");
    let ours = SCENE.replace("Vector2(1, 2)", "Vector2(1, 2)\nscale = Vector2(2, 2)");
    t.write("scene.tscn", crlf(ours.as_bytes()));
    t.commit_all("ours");
}

#[test]
fn git_stores_lf_and_checks_out_crlf_in_these_repositories() {
    let t = autocrlf_repo();
    diverged(&t);
    assert_all_crlf(&t.read("scene.tscn"), "work tree");
    assert_eq!(endings(&blob(&t, "HEAD:scene.tscn")).1, 0, "blob has CRLF");
}

#[test]
fn the_merge_driver_round_trips_an_autocrlf_work_tree() {
    let t = autocrlf_repo();
    assert_success(&t.run_bin(["install"]), "install");
    diverged(&t);
    let out = t.merge("feature");
    assert_success(&out, "git merge with the driver");
    let file = t.read("scene.tscn");
    assert_all_crlf(&file, "merged work tree");
    assert_eq!(t.git_ok(["status", "--porcelain"]), "", "nothing spurious");
    let stored = blob(&t, "HEAD:scene.tscn");
    assert_eq!(file, crlf(&stored), "the work tree is the commit in CRLF");
    let text = String::from_utf8(stored).expect("utf-8");
    assert!(text.contains("scale = Vector2(2, 2)") && text.contains("rotation = 0.5"));
    assert!(
        text.contains("first line\nsecond line\nthird line"),
        "{text}"
    );
}

#[test]
fn solve_re_merges_git_s_crlf_markers_from_the_index_and_keeps_crlf() {
    let t = autocrlf_repo();
    diverged(&t);
    assert!(!t.merge("feature").status.success(), "git alone conflicts");
    let marked = t.read("scene.tscn");
    assert!(String::from_utf8_lossy(&marked).contains("<<<<<<< HEAD\r\n"));
    assert_all_crlf(&marked, "git's markers");
    let out = t.run_bin(["solve", "scene.tscn"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("re-merged from git's index stages"),
        "the file is git's line merge in CRLF: {}",
        stderr(&out)
    );
    let solved = t.read("scene.tscn");
    assert_all_crlf(&solved, "solved file");
    // The same as the merge driver's result, in CRLF.
    let lf: Vec<Vec<u8>> = [":1:scene.tscn", ":2:scene.tscn", ":3:scene.tscn"]
        .iter()
        .map(|s| blob(&t, s))
        .collect();
    let dir = t.scratch();
    let names: Vec<String> = ["b", "o", "t"]
        .iter()
        .map(|s| format!("{s}.tscn"))
        .collect();
    for (n, bytes) in names.iter().zip(&lf) {
        std::fs::write(dir.join(n), bytes).expect("write");
    }
    let (merged, code) = merge_in(&dir, &names, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(solved, crlf(&merged));
    // Staged, the blob is LF and the work tree has no difference from it.
    t.git_ok(["add", "scene.tscn"]);
    assert_eq!(endings(&blob(&t, ":scene.tscn")).1, 0);
    assert_eq!(t.git_ok(["status", "--porcelain"]), "M  scene.tscn\n");
    assert_eq!(t.git_ok(["diff"]), "");
}

#[test]
fn check_reads_crlf_as_it_reads_lf() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = SCENE.replace("parent=\".\"]\nposition", "parent=\"Nowhere\"]\nposition");
    for (name, text) in [("good", SCENE.to_string()), ("bad", broken)] {
        for (ending, bytes) in [
            ("lf", text.clone().into_bytes()),
            ("crlf", crlf(text.as_bytes())),
        ] {
            let sub = dir.path().join(ending);
            std::fs::create_dir_all(&sub).expect("mkdir");
            std::fs::write(sub.join(format!("{name}.tscn")), bytes).expect("write");
        }
        let lf = run_in(&dir.path().join("lf"), &["check", &format!("{name}.tscn")]);
        let cr = run_in(
            &dir.path().join("crlf"),
            &["check", &format!("{name}.tscn")],
        );
        assert_eq!(
            cr.status.code(),
            lf.status.code(),
            "{name}: {}",
            stdout(&cr)
        );
        assert_eq!(stdout(&cr), stdout(&lf), "{name}");
        assert_eq!(stderr(&cr), stderr(&lf), "{name}");
    }
    let bad = run_in(&dir.path().join("crlf"), &["check", "bad.tscn"]);
    assert_eq!(bad.status.code(), Some(1), "{}", stdout(&bad));
    let good = run_in(&dir.path().join("crlf"), &["check", "good.tscn"]);
    assert_eq!(good.status.code(), Some(0), "{}", stdout(&good));
}

#[test]
fn diff_sees_no_change_in_a_line_ending_and_the_same_change_in_crlf() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| dir.path().join(n).display().to_string();
    let changed = SCENE
        .replace("second line", "second line, edited")
        .replace("Vector2(1, 2)", "Vector2(3, 4)");
    std::fs::write(p("a.tscn"), SCENE).expect("write");
    std::fs::write(p("b.tscn"), &changed).expect("write");
    std::fs::write(p("a_crlf.tscn"), crlf(SCENE.as_bytes())).expect("write");
    std::fs::write(p("b_crlf.tscn"), crlf(changed.as_bytes())).expect("write");
    let same = run_in(dir.path(), &["diff", "a.tscn", "a_crlf.tscn"]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    // under the file's header line (issue 38)
    assert_eq!(
        stdout(&same),
        "a_crlf.tscn --- Godot scene\nNo semantic changes.\n"
    );
    let lf = run_in(dir.path(), &["diff", "a.tscn", "b.tscn"]);
    let cr = run_in(dir.path(), &["diff", "a_crlf.tscn", "b_crlf.tscn"]);
    assert_eq!(lf.status.code(), Some(1));
    assert_eq!(cr.status.code(), Some(1));
    assert_eq!(
        stdout(&cr)
            .replace("a_crlf.tscn", "a.tscn")
            .replace("b_crlf.tscn", "b.tscn"),
        stdout(&lf)
    );
    let mixed = run_in(dir.path(), &["diff", "a.tscn", "b_crlf.tscn"]);
    assert_eq!(
        stdout(&mixed).replace("b_crlf.tscn", "b.tscn"),
        stdout(&lf),
        "an LF side against a CRLF one"
    );
}

#[test]
fn git_diff_through_the_driver_shows_no_spurious_change_in_an_autocrlf_work_tree() {
    let t = autocrlf_repo();
    assert_success(&t.run_bin(["install", "--diff"]), "install --diff");
    t.write("scene.tscn", crlf(SCENE.as_bytes()));
    t.commit_all("base");
    // Rewritten as it was (an editor saving it): no difference.
    t.write("scene.tscn", crlf(SCENE.as_bytes()));
    let out = t.git(["diff", "--exit-code", "--", "scene.tscn"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A real change shows, and no line ending does.
    let changed = SCENE.replace("Vector2(1, 2)", "Vector2(3, 4)");
    t.write("scene.tscn", crlf(changed.as_bytes()));
    let diff = t.git_ok(["diff", "--", "scene.tscn"]);
    assert!(diff.contains("Vector2(3, 4)"), "{diff}");
    assert!(!diff.contains('\r'), "{diff:?}");
    assert!(!diff.contains("second line"), "only the change: {diff}");
}

/// Outside a repository, `solve` re-merges CRLF diff3 markers and writes CRLF back;
/// the backup is the file as it was, byte for byte.
#[test]
fn solve_from_crlf_markers_writes_crlf() {
    let dir = tempfile::tempdir().expect("tempdir");
    let names: Vec<String> = ["base", "ours", "theirs"]
        .iter()
        .map(|s| format!("{s}.tscn"))
        .collect();
    for n in &names {
        std::fs::write(dir.path().join(n), crlf(&example(n))).expect("write");
    }
    let (marked, _) = merge_in(dir.path(), &names, &["--timeout", "0"]);
    assert_all_crlf(&marked, "markers");
    std::fs::write(dir.path().join("scene.tscn"), &marked).expect("write");
    let out = run_in(dir.path(), &["solve", "scene.tscn"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let solved = std::fs::read(dir.path().join("scene.tscn")).expect("read");
    assert!(!String::from_utf8_lossy(&solved).contains("<<<<<<<"));
    assert_all_crlf(&solved, "solved");
    let backup = std::fs::read(dir.path().join("scene.tscn.orig")).expect("backup");
    assert!(backup == marked, "the backup is the file as it was");
}
