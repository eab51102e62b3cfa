//! `tscn-merge doctor` in real repositories: exit 0 on a good setup, 1 naming the
//! problem (and its fix) on each broken one.

mod common;

use common::{assert_success, stdout, TempRepo};

fn doctor(t: &TempRepo) -> (i32, String) {
    let out = t.run_bin(["doctor"]);
    (out.status.code().unwrap_or(-1), stdout(&out))
}

/// A repository with the driver installed and `.gitattributes` committed.
fn good() -> TempRepo {
    let t = TempRepo::new();
    assert_success(&t.run_bin(["install"]), "install");
    t.write(
        "level.tscn",
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n",
    );
    t.commit_all("drivers");
    t
}

#[test]
fn a_good_setup_is_all_good() {
    let t = good();
    let (code, out) = doctor(&t);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("all good\n"), "{out}");
    assert!(out.contains("*.tscn merge=tscn-merge, from"), "{out}");
    assert!(out.contains(".gitattributes"), "{out}");
    assert!(!out.contains("problem"), "{out}");
}

#[test]
fn no_install_is_a_problem_with_its_fix() {
    let t = TempRepo::new();
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no merge driver configured"), "{out}");
    assert!(out.contains("fix: tscn-merge install"), "{out}");
    assert!(out.contains("*.tscn has no merge attribute"), "{out}");
}

#[test]
fn attributes_lost_are_named() {
    let t = good();
    t.write(".gitattributes", "");
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("*.tres has no merge attribute"), "{out}");
}

#[test]
fn a_branch_without_the_attributes_is_named_until_install_local() {
    let t = TempRepo::new();
    t.write("level.tscn", "x\n");
    t.commit_all("base");
    t.branch("before-tscn-merge");
    assert_success(&t.run_bin(["install"]), "install");
    t.commit_all("drivers");
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("before-tscn-merge"), "{out}");
    assert!(out.contains("tscn-merge install --local"), "{out}");
    assert_success(&t.run_bin(["install", "--local"]), "install --local");
    let (code, out) = doctor(&t);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("info/attributes"), "{out}");
}

#[test]
fn the_cache_ref_of_an_earlier_version_is_named() {
    let t = good();
    t.git_ok(["update-ref", "refs/notes/textconv/tscn-merge", "HEAD"]);
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("git update-ref -d refs/notes/textconv/tscn-merge"),
        "{out}"
    );
}

#[test]
fn a_driver_of_an_earlier_version_is_named() {
    let t = good();
    let old = format!(
        "s=%S; x=%X; y=%Y; exe={}; if [ -x \"$exe\" ]; then \"$exe\" merge --git -- %O %A %B; else git merge-file %A %O %B; fi",
        common::bin().display()
    );
    t.git_ok(["config", "merge.tscn-merge.driver", &old]);
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("not what this version writes"), "{out}");
}

#[test]
fn a_missing_binary_is_named() {
    let t = good();
    let driver = t.config_get("merge.tscn-merge.driver").expect("driver");
    let gone = driver.replace(
        common::bin().to_str().expect("utf-8"),
        "/nonexistent/tscn-merge",
    );
    t.git_ok(["config", "merge.tscn-merge.driver", &gone]);
    let (code, text) = doctor(&t);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("the driver's binary (/nonexistent/tscn-merge) is missing"),
        "{text}"
    );
}

#[test]
fn install_diff_with_its_binary_gone_is_named() {
    let t = TempRepo::new();
    let copy = t.scratch().join("tscn-merge");
    let st = std::process::Command::new("cp")
        .arg(common::bin())
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(st.success());
    let out = t
        .command(&copy)
        .args(["install", "--diff"])
        .output()
        .expect("install");
    assert_success(&out, "install --diff from a copy");
    t.commit_all("drivers");
    std::fs::remove_file(&copy).expect("remove the binary");
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("which is gone: git diff and git log -p die"),
        "{out}"
    );
    assert!(out.contains("is missing"), "{out}");
}

#[test]
fn the_missing_binary_tests_pass_with_tscn_merge_on_path() {
    let names = [
        "install_diff_with_its_binary_gone_is_named",
        "a_missing_binary_is_named",
    ];
    if let Err(out) = common::rerun_with_tscn_merge_on_path(&names) {
        panic!("with a tscn-merge on PATH:\n{out}");
    }
}

#[test]
fn an_uncommitted_gitattributes_is_named_not_the_branches() {
    let t = TempRepo::new();
    t.write("level.tscn", "x\n");
    t.commit_all("base");
    t.branch("feature");
    assert_success(&t.run_bin(["install"]), "install");
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("problem: .gitattributes marks scenes for tscn-merge but is not committed"),
        "{out}"
    );
    assert!(out.contains("fix: git add"), "{out}");
    assert!(!out.contains("branch(es) without"), "{out}");
    // Committed, the branches made before it are the problem left.
    t.commit_all("drivers");
    let (code, out) = doctor(&t);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("branch(es) without tscn-merge in their .gitattributes: feature"),
        "{out}"
    );
    assert!(!out.contains("not committed"), "{out}");
}

#[test]
fn the_fix_for_an_uncommitted_gitattributes_works_from_a_sub_folder() {
    let t = TempRepo::new();
    t.write("scenes/levels/level.tscn", "x\n");
    t.commit_all("base");
    assert_success(&t.run_bin(["install"]), "install");
    let sub = t.abs("scenes/levels");
    let out = t
        .command(common::bin())
        .arg("doctor")
        .current_dir(&sub)
        .output()
        .unwrap();
    let report = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    let fix = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("fix: git add "))
        .unwrap_or_else(|| panic!("{report}"));
    let path = fix.split(" && ").next().unwrap();
    assert_eq!(path, "../../.gitattributes", "{report}");
    let add = t
        .command("git")
        .args(["add", "--", path])
        .current_dir(&sub)
        .output()
        .unwrap();
    assert_success(&add, &format!("git add {path} in scenes/levels"));
    assert_eq!(
        t.git_ok(["diff", "--cached", "--name-only"]),
        ".gitattributes\n"
    );
}
