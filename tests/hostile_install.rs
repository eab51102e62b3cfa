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
        assert_success(&run(&t, &["install"]), "install");
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
fn hunk_headers_name_the_section_and_the_cache_is_on_with_an_identity() {
    let t = TempRepo::new();
    history(&t);
    assert_success(&run(&t, &["install"]), "install");
    assert_eq!(
        t.config_get("diff.tscn-merge.cachetextconv").as_deref(),
        Some("true")
    );
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
