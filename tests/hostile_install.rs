//! `install` / `uninstall` against what a cloned repository or a user's own config
//! may hold: a committed symbolic link for `.gitattributes`, values the user set
//! before, a home without config, and a repository without a commit identity.

mod common;

use common::{assert_success, stderr, stdout, TempRepo};
use std::path::Path;

fn run(t: &TempRepo, args: &[&str]) -> std::process::Output {
    t.run_bin(args)
}

#[test]
fn a_symlinked_gitattributes_is_refused_and_its_target_untouched() {
    let t = TempRepo::new();
    let outside = t.scratch().join("victim");
    std::fs::write(&outside, "precious\n").expect("write");
    std::os::unix::fs::symlink(&outside, t.abs(".gitattributes")).expect("symlink");
    t.commit_all("a committed link");
    let config_before = t.read(".git/config");
    for cmd in ["install", "uninstall"] {
        let out = run(&t, &[cmd]);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(&outside).expect("read"), b"precious\n");
    }
    assert_eq!(t.read(".git/config"), config_before, "nothing configured");
}

#[test]
fn a_global_attributes_file_outside_home_is_refused() {
    let t = TempRepo::new();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let target = elsewhere.path().join("attributes");
    t.git_ok([
        "config",
        "--global",
        "core.attributesFile",
        target.to_str().expect("utf-8"),
    ]);
    let out = run(&t, &["install", "--global"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert!(!target.exists());
    // A link from inside the config folder to outside is refused too.
    let link = t.xdg_config_home().join("git").join("attributes");
    std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    t.git_ok(["config", "--global", "--unset", "core.attributesFile"]);
    let out = run(&t, &["install", "--global"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!target.exists());
}

#[test]
fn a_value_the_user_set_is_kept_and_survives_uninstall() {
    let t = TempRepo::new();
    t.git_ok(["config", "diff.tscn-merge.textconv", "my-own"]);
    let before = t.read(".git/config");
    let out = run(&t, &["install"]);
    assert_success(&out, "install");
    assert!(
        stdout(&out).contains("diff.tscn-merge.textconv kept"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        t.config_get("diff.tscn-merge.textconv").as_deref(),
        Some("my-own")
    );
    // A second install keeps it as well.
    assert_success(&run(&t, &["install"]), "install again");
    assert_eq!(
        t.config_get("diff.tscn-merge.textconv").as_deref(),
        Some("my-own")
    );
    let out = run(&t, &["uninstall"]);
    assert_success(&out, "uninstall");
    assert_eq!(
        t.config_get("diff.tscn-merge.textconv").as_deref(),
        Some("my-own")
    );
    assert_eq!(
        String::from_utf8_lossy(&t.read(".git/config")),
        String::from_utf8_lossy(&before),
        "uninstall restores exactly what was there"
    );
}

#[test]
fn an_earlier_install_with_the_old_command_lines_is_upgraded_and_removed() {
    for old in ["textconv", "textconv --"] {
        let t = TempRepo::new();
        let old = format!("{} {old}", common::bin().display());
        t.git_ok(["config", "diff.tscn-merge.textconv", &old]);
        assert_success(&run(&t, &["install", "--diff"]), "install --diff");
        let tc = t.config_get("diff.tscn-merge.textconv").expect("set");
        assert!(tc.ends_with("/tscn-merge-textconv"), "{old}: {tc}");
        assert_success(&run(&t, &["uninstall"]), "uninstall");
        assert_eq!(t.config_get("diff.tscn-merge.textconv"), None, "{old}");
    }
}

fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("ls").flatten() {
        let p = e.path();
        out.push(p.display().to_string());
        if p.is_dir() {
            out.extend(tree(&p));
        }
    }
    out.sort();
    out
}

#[test]
fn a_global_uninstall_leaves_no_file_or_folder_install_created() {
    let t = TempRepo::new();
    std::fs::remove_dir(t.xdg_config_home()).expect("an empty home");
    let cmd = |args: &[&str]| {
        let out = t
            .command(common::bin())
            .env_remove("XDG_CONFIG_HOME")
            .args(args)
            .output()
            .expect("run");
        assert_success(&out, &format!("{args:?}"));
    };
    cmd(&["install", "--global"]);
    assert!(t.home().join(".gitconfig").exists());
    assert!(t.home().join(".config/git/attributes").exists());
    cmd(&["uninstall", "--global"]);
    assert_eq!(tree(t.home()), Vec::<String>::new());
}

fn scene(speed: u32) -> String {
    format!(
        "[gd_scene format=3]\n\n[ext_resource type=\"Script\" path=\"res://p.gd\" id=\"1_a\"]\n\n\
         [node name=\"Player\" type=\"Node2D\"]\nscript = ExtResource(\"1_a\")\n\
         a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 8\nspeed = {speed}\n"
    )
}

/// Commit two versions of `level.tscn` with an identity given on the command line only.
fn history(t: &TempRepo) {
    for speed in [1, 2] {
        t.write("level.tscn", scene(speed));
        t.git_ok(["add", "-A"]);
        t.git_ok([
            "-c",
            "user.name=A",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "-m",
            "x",
        ]);
    }
}

#[test]
fn hunk_headers_name_the_section_and_the_cache_stays_off() {
    let t = TempRepo::new();
    history(&t);
    assert_success(&run(&t, &["install"]), "install");
    assert_eq!(t.config_get("diff.tscn-merge.cachetextconv"), None);
    for args in [
        &["log", "-p"][..],
        &["diff", "--no-ext-diff", "HEAD~1", "HEAD"][..],
    ] {
        let out = t.git(args);
        assert_success(&out, &format!("git {args:?}"));
        let header = stdout(&out)
            .lines()
            .find(|l| l.starts_with("@@"))
            .unwrap_or_default()
            .to_string();
        assert!(
            header.contains("@@ [node name=\"Player\""),
            "{args:?}: {header}"
        );
    }
    let raw = t.git(["diff", "--no-ext-diff", "--no-textconv", "HEAD~1", "HEAD"]);
    assert!(
        stdout(&raw).contains("@@ [node name=\"Player\""),
        "{}",
        stdout(&raw)
    );
}

#[test]
fn without_an_identity_the_cache_stays_off_and_git_log_works() {
    let t = TempRepo::new();
    history(&t);
    t.git_ok(["config", "--unset", "user.name"]);
    t.git_ok(["config", "--unset", "user.email"]);
    let out = run(&t, &["install"]);
    assert_success(&out, "install");
    assert_ne!(
        t.config_get("diff.tscn-merge.cachetextconv").as_deref(),
        Some("true")
    );
    let log = t.git(["log", "-p"]);
    assert_success(&log, "git log -p without an identity");
    assert!(stdout(&log).contains("speed = 2"), "{}", stdout(&log));
    let with_empty = t.git(["-c", "user.name=", "-c", "user.email=", "log", "-p"]);
    assert_success(&with_empty, "git log -p with an empty identity");
}

// ----------------------------------------------------------------------------------------
// Everyday git with the default install (issue 25's bar)

/// One of the example scenes.
fn example(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/merge")
        .join(name);
    std::fs::read(&p).expect("example scene")
}

/// `git ARGS` with `input` on stdin.
fn git_with_input(t: &TempRepo, args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = t
        .command("git")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("git");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("wait")
}

#[test]
fn the_default_install_leaves_git_diff_a_patch_and_difftool_the_users() {
    let t = TempRepo::new();
    assert_success(&run(&t, &["install"]), "install");
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.write("level.tscn", example("ours.tscn"));
    let diff = t.git(["diff"]);
    assert_success(&diff, "git diff");
    assert!(
        stdout(&diff).starts_with("diff --git a/level.tscn"),
        "{}",
        stdout(&diff)
    );
    let check = git_with_input(&t, &["apply", "-R", "--check"], &diff.stdout);
    assert_success(&check, "git diff | git apply -R --check");
    let tool = t.git(["difftool", "-y", "-x", "echo T"]);
    assert_success(&tool, "git difftool -x");
    // `echo T` got git's arguments (the two files and the path): the user's tool ran.
    assert!(stdout(&tool).starts_with("T "), "{}", stdout(&tool));
    assert!(
        stdout(&tool).trim_end().ends_with(" level.tscn"),
        "{}",
        stdout(&tool)
    );
    // The semantic view, one word away.
    let scene = t.git(["scene-diff"]);
    assert_success(&scene, "git scene-diff");
    assert!(stdout(&scene).contains("Hitbox"), "{}", stdout(&scene));
}

#[test]
fn a_moved_binary_leaves_git_working_and_the_merge_says_why() {
    let t = TempRepo::new();
    let dir = t.scratch().join("bin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let copy = dir.join("tscn-merge");
    let st = std::process::Command::new("cp")
        .arg(common::bin())
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(st.success());
    let out = t.command(&copy).arg("install").output().expect("install");
    assert_success(&out, "install from a copy");
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.checkout_new("feature");
    t.write("level.tscn", example("theirs.tscn"));
    t.commit_all("theirs");
    t.checkout("main");
    t.write("level.tscn", example("ours.tscn"));
    t.commit_all("ours");
    std::fs::rename(&copy, dir.join("elsewhere")).expect("move the binary away");
    t.write("level.tscn", example("theirs.tscn"));
    for args in [&["diff"][..], &["diff", "HEAD~1", "HEAD"], &["log", "-p"]] {
        assert_success(&t.git(args), &format!("git {args:?} with the binary gone"));
    }
    t.git_ok(["checkout", "--", "level.tscn"]);
    let merge = t
        .command("git")
        .args(["merge", "--no-edit", "feature"])
        .env("PATH", t.path_without_tscn_merge())
        .output()
        .expect("merge");
    let err = stderr(&merge);
    assert!(
        err.contains("tscn-merge: not found") && err.contains("level.tscn"),
        "{err}"
    );
    let record = String::from_utf8(t.read(".git/tscn-merge/fallbacks")).expect("utf-8");
    assert!(record.contains("level.tscn"), "{record}");
    let doctor = run(&t, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", stdout(&doctor));
    assert!(
        stdout(&doctor).contains("is missing"),
        "{}",
        stdout(&doctor)
    );
    assert!(
        stdout(&doctor).contains("recent fallbacks"),
        "{}",
        stdout(&doctor)
    );
}

#[test]
fn without_tscn_merge_on_path_the_merge_is_still_structural_and_explained() {
    let t = TempRepo::new();
    assert_success(&run(&t, &["install"]), "install");
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.checkout_new("feature");
    t.write("level.tscn", example("theirs.tscn"));
    t.commit_all("theirs");
    t.checkout("main");
    t.write("level.tscn", example("ours.tscn"));
    t.commit_all("ours");
    let dir = t.scratch();
    for (name, text) in ["base", "ours", "theirs"].map(|n| (n, example(&format!("{n}.tscn")))) {
        std::fs::write(dir.join(format!("{name}.tscn")), text).expect("write");
    }
    let expected = dir.join("expected.tscn");
    let out = t
        .command(common::bin())
        .current_dir(&dir)
        .args([
            "merge",
            "-o",
            "expected.tscn",
            "base.tscn",
            "ours.tscn",
            "theirs.tscn",
        ])
        .output()
        .expect("merge");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let merge = t
        .command("git")
        .args(["merge", "--no-edit", "feature"])
        .env("PATH", t.path_without_tscn_merge())
        .output()
        .expect("merge");
    assert_success(&merge, "git merge with PATH lacking tscn-merge");
    assert_eq!(
        t.read("level.tscn"),
        std::fs::read(&expected).expect("read")
    );
    let err = stderr(&merge);
    assert!(
        err.contains("details: tscn-merge explain level.tscn"),
        "{err}"
    );
    let explained = run(&t, &["explain", "level.tscn"]);
    assert_success(&explained, "tscn-merge explain");
    let text = stdout(&explained);
    assert!(
        text.starts_with("=== level.tscn\n") && text.contains("structural merge"),
        "{text}"
    );
    assert_eq!(run(&t, &["explain", "other.tscn"]).status.code(), Some(1));
}

#[test]
fn uninstall_in_a_clone_keeps_the_committed_gitattributes_and_drops_the_cache_ref() {
    let t = TempRepo::new();
    assert_success(&run(&t, &["install"]), "install");
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("drivers");
    let clone = t.scratch().join("clone");
    let out = t
        .command("git")
        .arg("clone")
        .arg("-q")
        .arg(t.path())
        .arg(&clone)
        .output()
        .expect("clone");
    assert_success(&out, "git clone");
    let in_clone = |program: &Path, args: &[&str]| {
        let out = t
            .command(program)
            .current_dir(&clone)
            .args(args)
            .output()
            .expect("run");
        assert_success(&out, &format!("{args:?} in the clone"));
        stdout(&out)
    };
    let git = Path::new("git");
    in_clone(git, &["config", "user.name", "B"]);
    in_clone(git, &["config", "user.email", "b@example.com"]);
    let before = std::fs::read(clone.join(".gitattributes")).expect("committed");
    let report = in_clone(&common::bin(), &["install"]);
    assert!(report.contains("attributes already in"), "{report}");
    in_clone(
        git,
        &["update-ref", "refs/notes/textconv/tscn-merge", "HEAD"],
    );
    let report = in_clone(&common::bin(), &["uninstall"]);
    assert!(report.contains("attributes kept"), "{report}");
    assert_eq!(
        std::fs::read(clone.join(".gitattributes")).expect("kept"),
        before
    );
    assert_eq!(in_clone(git, &["status", "--porcelain"]), "");
    assert_eq!(
        in_clone(git, &["ls-files", ".gitattributes"]).trim(),
        ".gitattributes"
    );
    let refs = in_clone(git, &["for-each-ref", "refs/notes/"]);
    assert_eq!(refs, "", "the cache ref is removed");
}

#[test]
fn install_local_gives_a_branch_made_before_the_attributes_the_driver() {
    let t = TempRepo::new();
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.branch("old");
    assert_success(&run(&t, &["install"]), "install");
    t.commit_all("drivers");
    t.checkout("old");
    let attr = |t: &TempRepo| t.git_ok(["check-attr", "merge", "--", "level.tscn"]);
    assert!(attr(&t).ends_with(": unspecified\n"), "{}", attr(&t));
    let out = run(&t, &["install", "--local"]);
    assert_success(&out, "install --local");
    assert!(stdout(&out).contains("info/attributes"), "{}", stdout(&out));
    assert!(attr(&t).ends_with(": tscn-merge\n"), "{}", attr(&t));
    assert_eq!(t.git_ok(["status", "--porcelain"]), "", "nothing to commit");
    let info = String::from_utf8(t.read(".git/info/attributes")).expect("utf-8");
    assert!(info.contains("*.tscn merge=tscn-merge"), "{info}");
    assert_success(&run(&t, &["uninstall"]), "uninstall");
    assert_eq!(
        t.try_read(".git/info/attributes"),
        None,
        "install created it"
    );
    assert!(attr(&t).ends_with(": unspecified\n"), "{}", attr(&t));
}

#[test]
fn install_local_makes_a_cherry_pick_onto_an_old_branch_structural() {
    let t = TempRepo::new();
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    t.checkout_new("old");
    t.write("level.tscn", example("theirs.tscn"));
    t.commit_all("theirs");
    t.checkout("main");
    t.write("level.tscn", example("ours.tscn"));
    let ours = t.commit_all("ours");
    // main gets .gitattributes; `old` was made before it and has none.
    assert_success(&run(&t, &["install"]), "install");
    t.commit_all("drivers");
    t.checkout("old");
    let plain = t.git(["cherry-pick", &ours]);
    assert!(
        !plain.status.success(),
        "without the attributes git conflicts"
    );
    assert!(String::from_utf8_lossy(&t.read("level.tscn")).contains("<<<<<<<"));
    t.git_ok(["cherry-pick", "--abort"]);
    assert_success(&run(&t, &["install", "--local"]), "install --local");
    let picked = t.git(["cherry-pick", &ours]);
    assert_success(&picked, "git cherry-pick with .git/info/attributes");
    let merged = String::from_utf8(t.read("level.tscn")).expect("utf-8");
    assert!(
        merged.contains("name=\"Hitbox\"")
            && merged.contains("name=\"GroundSensor\"")
            && !merged.contains("<<<<<<<"),
        "{merged}"
    );
}

// ----------------------------------------------------------------------------------------
// Issue 36, items 1 to 3 and 15: the team's committed file, a copy of the repository, an
// older committed block, and what the user's PATH holds.

#[test]
fn the_moved_binary_tests_pass_with_tscn_merge_on_path() {
    let names = [
        "a_moved_binary_leaves_git_working_and_the_merge_says_why",
        "without_tscn_merge_on_path_the_merge_is_still_structural_and_explained",
    ];
    if let Err(out) = common::rerun_with_tscn_merge_on_path(&names) {
        panic!("with a tscn-merge on PATH:\n{out}");
    }
}

/// `git status --porcelain`.
fn status(t: &TempRepo) -> String {
    t.git_ok(["status", "--porcelain"])
}

#[test]
fn uninstall_after_the_team_step_keeps_the_committed_gitattributes() {
    // README's "Set up your team", step 1: install, commit .gitattributes. Once with a
    // .gitattributes install created, once with the team's own lines before it.
    for before in [None, Some("*.png binary\n")] {
        let t = TempRepo::new();
        if let Some(text) = before {
            t.write(".gitattributes", text);
            t.commit_all("init");
        }
        assert_success(&run(&t, &["install"]), "install");
        t.git_ok(["add", ".gitattributes"]);
        t.git_ok(["commit", "-q", "-m", "Merge Godot scenes with tscn-merge"]);
        let committed = t.read(".gitattributes");
        let out = run(&t, &["uninstall"]);
        assert_success(&out, "uninstall");
        let report = stdout(&out);
        assert_eq!(t.try_read(".gitattributes"), Some(committed), "{report}");
        assert_eq!(status(&t), "", "{report}");
        assert!(
            report.contains(".gitattributes kept: its tscn-merge block is committed"),
            "{report}"
        );
        assert_eq!(t.config_get("merge.tscn-merge.driver"), None, "{report}");
        // The next `git commit -a` takes nothing away from the team.
        let commit = t.git(["commit", "-a", "-q", "-m", "next"]);
        assert!(!commit.status.success(), "nothing to commit");
    }
}

#[test]
fn uninstall_in_a_copy_of_the_repository_leaves_the_original_alone() {
    let t = TempRepo::new();
    t.write("level.tscn", example("base.tscn"));
    t.commit_all("base");
    assert_success(&run(&t, &["install", "--diff"]), "install --diff");
    // The record names no absolute path: a copy's record names the copy's own places.
    let record = t.git_ok(["config", "--get-regexp", "^tscn-merge\\."]);
    assert!(record.contains("links:"), "{record}");
    for line in record.lines() {
        let value = line.split_once(' ').map_or("", |(_, v)| v);
        assert!(!Path::new(value).is_absolute(), "{line}");
    }
    let original = (t.read(".git/config"), t.read(".gitattributes"));
    let links = [
        t.config_get("diff.tscn-merge.command").expect("diff link"),
        t.config_get("diff.tscn-merge.textconv")
            .expect("textconv link"),
    ];
    let copy = t.scratch().join("copy");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(t.path())
        .arg(&copy)
        .status()
        .expect("cp -a");
    assert!(cp.success());
    let out = t
        .command(common::bin())
        .arg("uninstall")
        .current_dir(&copy)
        .output()
        .expect("uninstall in the copy");
    assert_success(&out, "uninstall in the copy");
    let report = stdout(&out);
    assert_eq!(t.read(".git/config"), original.0, "{report}");
    assert_eq!(t.read(".gitattributes"), original.1, "{report}");
    for link in &links {
        assert!(std::fs::read_link(link).is_ok(), "{link} kept: {report}");
    }
    // The copy's own block (install's uncommitted file there) is what went.
    assert!(!copy.join(".gitattributes").exists(), "{report}");
    let git_diff = t.git(["diff", "--stat"]);
    assert_success(&git_diff, "git diff in the original");
    // And the original still uninstalls in full.
    assert_success(&run(&t, &["uninstall"]), "uninstall in the original");
    assert!(t.try_read(".gitattributes").is_none());
    for link in &links {
        assert!(std::fs::symlink_metadata(link).is_err(), "{link}");
    }
}

#[test]
fn install_without_diff_in_a_copy_leaves_the_originals_links() {
    let t = TempRepo::new();
    assert_success(&run(&t, &["install", "--diff"]), "install --diff");
    let link = t.config_get("diff.tscn-merge.command").expect("diff link");
    let copy = t.scratch().join("copy");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(t.path())
        .arg(&copy)
        .status()
        .expect("cp -a");
    assert!(cp.success());
    let out = t
        .command(common::bin())
        .arg("install")
        .current_dir(&copy)
        .output()
        .expect("install in the copy");
    assert_success(&out, "install in the copy");
    assert!(
        std::fs::read_link(&link).is_ok(),
        "{link}: {}",
        stdout(&out)
    );
    assert_eq!(t.config_get("diff.tscn-merge.command"), Some(link));
}

#[test]
fn a_committed_older_block_is_touched_by_neither_install_nor_uninstall() {
    let t = TempRepo::new();
    let older = "*.png binary\n# >>> tscn-merge\n*.tscn merge=tscn-merge diff=tscn-merge\n\
                 *.tres merge=tscn-merge diff=tscn-merge\n# <<< tscn-merge\n";
    t.write(".gitattributes", older);
    t.commit_all("an older install, committed");
    let out = run(&t, &["install"]);
    assert_success(&out, "install");
    let report = stdout(&out);
    assert_eq!(t.read(".gitattributes"), older.as_bytes(), "{report}");
    assert_eq!(status(&t), "", "{report}");
    assert!(report.contains("committed"), "{report}");
    let out = run(&t, &["uninstall"]);
    assert_success(&out, "uninstall");
    assert_eq!(
        t.read(".gitattributes"),
        older.as_bytes(),
        "{}",
        stdout(&out)
    );
    assert_eq!(status(&t), "");
}
