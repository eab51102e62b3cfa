//! `tscn-merge install` / `uninstall` end to end, and the installed merge
//! driver inside real `git merge` runs.

mod common;

use common::{assert_success, bin, stdout, TempRepo};
use std::path::Path;

const KEYS: [&str; 10] = [
    "merge.tscn-merge.name",
    "merge.tscn-merge.driver",
    "diff.tscn-merge.command",
    "diff.tscn-merge.textconv",
    "diff.tscn-merge.cachetextconv",
    "diff.tscn-merge.xfuncname",
    "difftool.tscn-merge.cmd",
    "mergetool.tscn-merge.cmd",
    "mergetool.tscn-merge.trustExitCode",
    "alias.scene-diff",
];

fn bin_str() -> String {
    bin().to_str().expect("binary path is UTF-8").to_string()
}

/// `git check-attr <attr>` value for `path`.
fn attr(t: &TempRepo, name: &str, path: &str) -> String {
    let out = t.git_ok(["check-attr", name, "--", path]);
    out.trim_end().rsplit(": ").next().unwrap().to_string()
}

fn install(t: &TempRepo, args: &[&str]) -> String {
    let mut all = vec!["install"];
    all.extend_from_slice(args);
    let out = t.run_bin(&all);
    assert_success(&out, "tscn-merge install");
    stdout(&out)
}

fn uninstall(t: &TempRepo, args: &[&str]) -> String {
    let mut all = vec!["uninstall"];
    all.extend_from_slice(args);
    let out = t.run_bin(&all);
    assert_success(&out, "tscn-merge uninstall");
    stdout(&out)
}

#[test]
fn install_is_idempotent_and_uninstall_restores_bytes() {
    let t = TempRepo::new();
    // A pre-existing unrelated attribute, without final newline.
    t.write(".gitattributes", "*.png binary");
    t.write("sub/dir/keep.txt", "x\n");
    t.commit_all("init");
    let config_path = t.abs(".git/config");
    let config_before = std::fs::read(&config_path).unwrap();
    let attrs_before = t.read(".gitattributes");

    // Installing from a subdirectory still targets the work tree root.
    let out = t
        .command(bin())
        .arg("install")
        .current_dir(t.abs("sub/dir"))
        .output()
        .unwrap();
    assert_success(&out, "install from a subdirectory");
    assert!(
        stdout(&out).contains("merge.tscn-merge.driver"),
        "{}",
        stdout(&out)
    );
    assert!(!t.abs("sub/dir/.gitattributes").exists());

    let exe = bin_str();
    assert_eq!(
        t.config_get("merge.tscn-merge.name").unwrap(),
        "tscn-merge: structural merge for Godot scenes"
    );
    let driver = t.config_get("merge.tscn-merge.driver").unwrap();
    assert!(
        driver.contains(&format!(
            "; exe={exe}; if [ -x \"$exe\" ]; then \"$exe\" merge --git --path=%P"
        )),
        "{driver}"
    );
    assert!(
        driver.contains("elif command -v tscn-merge >/dev/null 2>&1; then tscn-merge merge"),
        "{driver}"
    );
    assert!(
        driver.ends_with(
            "; git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L -- %A %O %B; fi"
        ),
        "{driver}"
    );
    // By default git diff stays git's: no external diff, textconv or cache.
    for key in [
        "diff.tscn-merge.command",
        "diff.tscn-merge.textconv",
        "diff.tscn-merge.cachetextconv",
    ] {
        assert_eq!(t.config_get(key), None, "{key}");
    }
    assert!(t.config_get("diff.tscn-merge.xfuncname").is_some());
    assert_eq!(
        t.config_get("alias.scene-diff").unwrap(),
        "difftool --no-prompt --tool=tscn-merge"
    );
    assert_eq!(
        t.config_get("difftool.tscn-merge.cmd").unwrap(),
        format!("{exe} diff --name=\"$MERGED\" -- \"$LOCAL\" \"$REMOTE\"")
    );
    assert_eq!(
        t.config_get("mergetool.tscn-merge.cmd").unwrap(),
        format!("{exe} mergetool --git -- \"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\"")
    );
    assert_eq!(
        t.config_get("mergetool.tscn-merge.trustExitCode").unwrap(),
        "true"
    );
    for path in ["a.tscn", "dir/b.tres", "c.escn"] {
        assert_eq!(attr(&t, "merge", path), "tscn-merge", "{path}");
        assert_eq!(attr(&t, "diff", path), "tscn-merge", "{path}");
    }
    assert_eq!(attr(&t, "binary", "x.png"), "set");
    assert_eq!(attr(&t, "merge", "x.gd"), "unspecified");
    let attrs = String::from_utf8(t.read(".gitattributes")).unwrap();
    assert!(
        attrs.starts_with("*.png binary\n# >>> tscn-merge\n"),
        "{attrs}"
    );

    // Twice = once.
    let config_once = std::fs::read(&config_path).unwrap();
    let attrs_once = t.read(".gitattributes");
    let again = install(&t, &[]);
    assert!(again.contains("already"), "{again}");
    assert_eq!(std::fs::read(&config_path).unwrap(), config_once);
    assert_eq!(t.read(".gitattributes"), attrs_once);

    let report = uninstall(&t, &[]);
    assert!(
        report.contains("merge.tscn-merge.driver removed"),
        "{report}"
    );
    assert_eq!(
        String::from_utf8(std::fs::read(&config_path).unwrap()).unwrap(),
        String::from_utf8(config_before.clone()).unwrap()
    );
    assert_eq!(t.read(".gitattributes"), attrs_before);
    for key in KEYS {
        assert_eq!(t.config_get(key), None, "{key}");
    }

    assert!(!t.home().join(".local").exists(), "no link by default");

    // Uninstalling again changes nothing and does not fail.
    uninstall(&t, &[]);
    assert_eq!(std::fs::read(&config_path).unwrap(), config_before);
    assert_eq!(t.read(".gitattributes"), attrs_before);
}

#[test]
fn uninstall_removes_a_created_attributes_file_and_keeps_foreign_keys() {
    let t = TempRepo::new();
    // The user's own key in our section survives, and so does the section.
    t.git_ok(["config", "merge.tscn-merge.recursive", "binary"]);
    let config_before = t.read(".git/config");
    assert!(t.try_read(".gitattributes").is_none());

    install(&t, &[]);
    assert!(t.try_read(".gitattributes").is_some());
    let report = uninstall(&t, &[]);
    assert!(report.contains("section merge.tscn-merge kept"), "{report}");
    assert!(
        t.try_read(".gitattributes").is_none(),
        "created file is removed again"
    );
    assert_eq!(t.read(".git/config"), config_before);
    assert_eq!(
        t.config_get("merge.tscn-merge.recursive").unwrap(),
        "binary"
    );
}

#[test]
fn global_install_uses_home_config_and_default_attributes_file() {
    let t = TempRepo::new();
    let gitconfig = t.home().join(".gitconfig");
    std::fs::write(&gitconfig, "[core]\n\tpager = cat\n").unwrap();
    let gitconfig_before = std::fs::read(&gitconfig).unwrap();
    let local_before = t.read(".git/config");
    let attributes = t.xdg_config_home().join("git").join("attributes");

    install(&t, &["--global"]);
    let global = std::fs::read_to_string(&gitconfig).unwrap();
    assert!(global.starts_with("[core]\n\tpager = cat\n"), "{global}");
    assert!(global.contains("[merge \"tscn-merge\"]"), "{global}");
    let driver = t.git_ok(["config", "--global", "--get", "merge.tscn-merge.driver"]);
    assert!(driver.contains(&bin_str()), "{driver}");
    assert!(std::fs::read_to_string(&attributes)
        .unwrap()
        .contains("*.tscn merge=tscn-merge"));
    assert_eq!(attr(&t, "merge", "level.tscn"), "tscn-merge");
    assert_eq!(attr(&t, "diff", "theme.tres"), "tscn-merge");
    // Nothing local was touched.
    assert_eq!(t.read(".git/config"), local_before);
    assert!(t.try_read(".gitattributes").is_none());

    install(&t, &["--global"]);
    let report = uninstall(&t, &["--global"]);
    assert!(report.contains("removed"), "{report}");
    assert_eq!(std::fs::read(&gitconfig).unwrap(), gitconfig_before);
    assert!(!attributes.exists());
    assert_eq!(attr(&t, "merge", "level.tscn"), "unspecified");
}

#[test]
fn global_install_honours_core_attributes_file() {
    let t = TempRepo::new();
    let custom = t.home().join("my attrs");
    std::fs::write(&custom, "*.bin binary\n").unwrap();
    t.git_ok([
        "config",
        "--global",
        "core.attributesFile",
        custom.to_str().unwrap(),
    ]);
    let gitconfig = t.home().join(".gitconfig");
    let gitconfig_before = std::fs::read(&gitconfig).unwrap();

    install(&t, &["--global"]);
    assert!(std::fs::read_to_string(&custom)
        .unwrap()
        .contains("# >>> tscn-merge"));
    assert_eq!(attr(&t, "merge", "a.escn"), "tscn-merge");
    assert!(!t.xdg_config_home().join("git").join("attributes").exists());

    uninstall(&t, &["--global"]);
    assert_eq!(std::fs::read(&custom).unwrap(), b"*.bin binary\n");
    assert_eq!(std::fs::read(&gitconfig).unwrap(), gitconfig_before);
}

fn lines(changed: &[(usize, &str)]) -> String {
    (1..=10)
        .map(|i| match changed.iter().find(|(n, _)| *n == i) {
            Some((_, s)) => format!("{s}\n"),
            None => format!("line {i}\n"),
        })
        .collect()
}

/// base, then branch `clean` (touches only line 2), branch `conflict` (line
/// 5), and main (lines 5 and 9). Scene files only, `.gitattributes` committed.
fn merge_history(t: &TempRepo) {
    t.write("level.tscn", lines(&[]));
    t.commit_all("base");
    t.checkout_new("clean");
    t.write("level.tscn", lines(&[(2, "clean two")]));
    t.commit_all("clean");
    t.checkout("main");
    t.checkout_new("conflict");
    t.write("level.tscn", lines(&[(5, "theirs five")]));
    t.commit_all("theirs");
    t.checkout("main");
    t.write("level.tscn", lines(&[(5, "ours five"), (9, "ours nine")]));
    t.commit_all("ours");
}

/// Replace the absolute binary path stored in the driver by a missing one.
fn break_driver_path(t: &TempRepo) {
    let driver = t.config_get("merge.tscn-merge.driver").unwrap();
    let broken = driver.replace(&bin_str(), "/nonexistent/dir/tscn-merge");
    assert_ne!(broken, driver, "driver must name the binary: {driver}");
    t.git_ok(["config", "merge.tscn-merge.driver", &broken]);
}

#[test]
fn driver_falls_back_to_git_merge_file_when_binary_is_missing() {
    // Same history twice: with the (broken) driver, and with no driver.
    let with = TempRepo::new();
    install(&with, &[]);
    break_driver_path(&with);
    let plain = TempRepo::new();
    plain.write(".gitattributes", with.read(".gitattributes"));
    merge_history(&with);
    merge_history(&plain);

    let clean = with.merge("clean");
    assert_success(&clean, "non-conflicting merge through the fallback");
    assert_eq!(
        String::from_utf8(with.read("level.tscn")).unwrap(),
        lines(&[(2, "clean two"), (5, "ours five"), (9, "ours nine")])
    );
    assert!(
        common::stderr(&clean)
            .contains("tscn-merge: not found (at /nonexistent/dir/tscn-merge or on PATH)"),
        "never silent: {}",
        common::stderr(&clean)
    );
    let record = String::from_utf8(with.read(".git/tscn-merge/fallbacks")).unwrap();
    assert!(
        record.contains("level.tscn: tscn-merge not found"),
        "{record}"
    );
    assert_success(&plain.merge("clean"), "plain merge");
    assert_eq!(with.read("level.tscn"), plain.read("level.tscn"));

    let conflict = with.merge("conflict");
    assert_eq!(
        conflict.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&conflict.stdout)
    );
    let text = String::from_utf8(with.read("level.tscn")).unwrap();
    let (ours, theirs) = if git_has_labels() {
        ("HEAD", "conflict")
    } else {
        ("ours", "theirs")
    };
    let hunk = format!("<<<<<<< {ours}\nours five\n=======\ntheirs five\n>>>>>>> {theirs}\n");
    assert!(text.contains(&hunk), "{text}");
    assert!(
        text.contains("clean two\n") && text.contains("ours nine\n"),
        "{text}"
    );
    assert_eq!(plain.merge("conflict").status.code(), Some(1));
    if git_has_labels() {
        // Exactly what git's own merge leaves.
        assert_eq!(with.read("level.tscn"), plain.read("level.tscn"));
    }
    let unmerged = with.git_ok(["ls-files", "-u"]);
    assert_eq!(unmerged.lines().count(), 3, "{unmerged}");
}

/// A stand-in for the binary: records its arguments, writes `FAKE` into the
/// `%A` file (second-to-last argument) and reports conflicts with status 1.
const FAKE_DRIVER: &str = r#"#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/args.txt"
n=0
for a in "$@"; do
  n=$((n + 1))
  if [ "$n" -eq $(($# - 1)) ]; then ours=$a; fi
done
printf 'FAKE\n' > "$ours"
exit 1
"#;

#[test]
fn driver_runs_the_installed_binary_from_a_path_with_spaces() {
    use std::os::unix::fs::PermissionsExt;
    let t = TempRepo::new();
    let dir = t.scratch().join("my tools");
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("tscn-merge");
    install_executable(&bin(), &copy);
    let out = t
        .command(&copy)
        .args(["install", "--diff"])
        .output()
        .unwrap();
    assert_success(&out, "install from a copy in a directory with a space");
    let driver = t.config_get("merge.tscn-merge.driver").unwrap();
    let quoted = format!("; exe='{}';", copy.display());
    assert!(driver.contains(&quoted), "{driver}");
    let diff_link = t.config_get("diff.tscn-merge.command").unwrap();
    assert!(diff_link.ends_with("/tscn-merge-diff"), "{diff_link}");
    assert_eq!(std::fs::read_link(&diff_link).unwrap(), copy);

    let fake = t.scratch().join("fake-driver");
    std::fs::write(&fake, FAKE_DRIVER).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    install_executable(&fake, &copy);
    let scene = "scenes/my level.tscn";
    t.write(scene, lines(&[]));
    t.commit_all("base");
    t.checkout_new("other");
    t.write(scene, lines(&[(5, "theirs")]));
    t.commit_all("theirs");
    t.checkout("main");
    t.write(scene, lines(&[(5, "ours")]));
    t.commit_all("ours");

    let merge = t.merge("other");
    assert_eq!(merge.status.code(), Some(1));
    // Status 1 from the driver is a conflict, not a reason to fall back.
    assert_eq!(t.read(scene), b"FAKE\n");
    let args = std::fs::read_to_string(dir.join("args.txt")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args.len(), 11, "{args:?}");
    let path_arg = format!("--path={scene}");
    assert_eq!(&args[..4], ["merge", "--git", &path_arg, "--marker-size=7"]);
    assert!(args[4].starts_with("--base-label="), "{args:?}");
    if git_has_labels() {
        assert_eq!(&args[5..7], ["--ours-label=HEAD", "--theirs-label=other"]);
    } else {
        assert_eq!(
            &args[4..7],
            [
                "--base-label=base",
                "--ours-label=ours",
                "--theirs-label=theirs"
            ]
        );
    }
    assert_eq!(args[7], "--", "{args:?}");
    for temp in &args[8..] {
        assert!(temp.starts_with(".merge_file_"), "{args:?}");
    }
}

#[test]
fn on_path_install_records_the_path_entry_and_merges_off_path() {
    let t = TempRepo::new();
    let path_dir = t.scratch().join("bin");
    std::fs::create_dir_all(&path_dir).unwrap();
    std::os::unix::fs::symlink(bin(), path_dir.join("tscn-merge")).unwrap();
    let search = format!(
        "{}:{}",
        path_dir.display(),
        t.path_without_tscn_merge().to_string_lossy()
    );
    let out = t
        .command("tscn-merge")
        .args(["install", "--diff"])
        .env("PATH", &search)
        .output()
        .unwrap();
    assert_success(&out, "install from PATH");
    let driver = t.config_get("merge.tscn-merge.driver").unwrap();
    let entry = path_dir.join("tscn-merge");
    assert!(
        driver.contains(&format!("; exe={}; if [ -x", entry.display())),
        "the PATH entry, not its target, so an upgrade there is followed: {driver}"
    );
    let link = t.config_get("diff.tscn-merge.textconv").unwrap();
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        path_dir.join("tscn-merge"),
        "the link follows the binary on PATH"
    );

    // Off PATH, merges still work.
    merge_history(&t);
    let merge = t
        .command("git")
        .args(["merge", "--no-edit", "--no-ff", "clean"])
        .env("PATH", t.path_without_tscn_merge())
        .output()
        .unwrap();
    assert_success(&merge, "clean merge off PATH");
    assert!(
        !common::stderr(&merge).contains("not found"),
        "the recorded path is used: {}",
        common::stderr(&merge)
    );
    assert_eq!(
        String::from_utf8(t.read("level.tscn")).unwrap(),
        lines(&[(2, "clean two"), (5, "ours five"), (9, "ours nine")])
    );
}

/// git 2.44 and later substitute %S, %X and %Y in merge driver commands;
/// with older git the driver falls back to the labels base/ours/theirs.
fn git_has_labels() -> bool {
    let out = std::process::Command::new("git")
        .arg("--version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().trim_start_matches("git version ");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 44)
}

/// Copy an executable through `cp`, so that no write descriptor to `to` ever lives in
/// this (multi-threaded) test process: a sibling test's fork would inherit it until its
/// exec, and running `to` meanwhile fails with "Text file busy" (ETXTBSY).
fn install_executable(from: &std::path::Path, to: &std::path::Path) {
    let _ = std::fs::remove_file(to);
    let st = std::process::Command::new("cp")
        .arg("--")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp {} {}", from.display(), to.display());
}

/// git starts a textconv command without a shell unless it holds one of these
/// (`run-command.c`, `prepare_shell_cmd`).
const SHELL_METACHARACTERS: &str = "|&;<>()$`\\\"' \t\n*?[#~=%";

const LINKED_SCENE: &str = "[gd_scene load_steps=2 format=3]\n\n\
    [ext_resource type=\"Script\" path=\"res://p.gd\" id=\"1_ab\"]\n\n\
    [node name=\"P\" type=\"Node2D\"]\nscript = ExtResource(\"1_ab\")\nspeed = 1\n";

/// The `+`/`-` lines of a patch, headers left out.
fn changed_lines(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_textconv_link_runs_without_a_shell_even_for_a_dashed_name_and_goes_with_uninstall() {
    let t = TempRepo::new();
    install(&t, &["--diff"]);
    let link = t.config_get("diff.tscn-merge.textconv").unwrap();
    assert!(link.ends_with("/tscn-merge-textconv"), "{link}");
    assert!(
        !link.contains(|c| SHELL_METACHARACTERS.contains(c)),
        "{link}"
    );
    t.write("-x.tscn", LINKED_SCENE);
    t.commit_all("add");
    t.write("-x.tscn", LINKED_SCENE.replace("speed = 1", "speed = 2"));
    // The work tree file reaches textconv by its own name, `-x.tscn`.
    let worktree = t.git_ok([
        "-c",
        "diff.tscn-merge.cachetextconv=false",
        "diff",
        "--no-ext-diff",
    ]);
    assert_eq!(
        changed_lines(&worktree),
        ["-speed = 1", "+speed = 2"],
        "{worktree}"
    );
    t.commit_all("faster");
    let log = t.git_ok([
        "-c",
        "diff.tscn-merge.cachetextconv=false",
        "log",
        "-p",
        "--format=",
    ]);
    assert!(log.contains("+script = ExtResource(res://p.gd)"), "{log}");
    assert!(!log.contains("load_steps"), "projected: {log}");
    uninstall(&t, &[]);
    assert!(!Path::new(&link).exists() && std::fs::symlink_metadata(&link).is_err());
    assert!(!t.home().join(".local").exists(), "no folder left behind");
}

#[test]
fn each_repository_has_its_own_link_and_a_foreign_file_is_kept() {
    let (a, b) = (TempRepo::new(), TempRepo::new());
    let home = a.home().to_path_buf();
    let in_home = |t: &TempRepo, args: &[&str]| {
        let out = t
            .command(bin())
            .args(args)
            .env("HOME", &home)
            .output()
            .unwrap();
        assert_success(&out, &format!("{args:?}"));
        stdout(&out)
    };
    in_home(&a, &["install", "--diff"]);
    in_home(&b, &["install", "--diff"]);
    let (la, lb) = (
        a.config_get("diff.tscn-merge.textconv").unwrap(),
        b.config_get("diff.tscn-merge.textconv").unwrap(),
    );
    assert_ne!(la, lb);
    in_home(&a, &["uninstall"]);
    assert!(std::fs::symlink_metadata(&la).is_err());
    assert_eq!(
        std::fs::read_link(&lb).unwrap(),
        bin().canonicalize().unwrap()
    );
    in_home(&b, &["uninstall"]);
    // `.local/share` may hold the user's own data: only tscn-merge's folder goes.
    assert!(
        !home.join(".local/share/tscn-merge").exists(),
        "both links and their folders gone"
    );

    // A file of the user's where the link would go is left alone: the shell command is used.
    // (Written only where no link is left: through one it would overwrite the binary.)
    assert!(std::fs::symlink_metadata(&lb).is_err(), "{lb} is gone");
    std::fs::create_dir_all(Path::new(&lb).parent().unwrap()).unwrap();
    std::fs::write(&lb, "mine\n").unwrap();
    let report = in_home(&b, &["install", "--diff"]);
    assert!(report.contains("is not tscn-merge's"), "{report}");
    assert_eq!(
        b.config_get("diff.tscn-merge.textconv").unwrap(),
        format!("{} textconv --", bin_str())
    );
    in_home(&b, &["uninstall"]);
    assert_eq!(std::fs::read(&lb).unwrap(), b"mine\n");
}

#[test]
fn the_external_diff_link_runs_without_a_shell_and_prints_what_the_old_command_did() {
    let t = TempRepo::new();
    let report = install(&t, &["--diff"]);
    let link = t.config_get("diff.tscn-merge.command").unwrap();
    assert!(link.ends_with("/tscn-merge-diff"), "{link}\n{report}");
    assert!(
        !link.contains(|c| SHELL_METACHARACTERS.contains(c)),
        "{link}"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        bin().canonicalize().unwrap()
    );
    t.write("-x.tscn", LINKED_SCENE);
    t.commit_all("add");
    t.write("-x.tscn", LINKED_SCENE.replace("speed = 1", "speed = 2"));
    let old_command = format!(
        "diff.tscn-merge.command={} diff --git-external --",
        bin_str()
    );
    let old = t.git_ok(["-c", &old_command, "diff"]);
    assert_eq!(t.git_ok(["diff"]), old);
    assert!(
        old.contains("diff --tscn-merge a/-x.tscn b/-x.tscn"),
        "{old}"
    );
    assert!(old.contains("speed"), "{old}");

    // A rename: git passes nine arguments, the new path and a header among them.
    t.commit_all("faster");
    t.git_ok(["mv", "--", "-x.tscn", "-y.tscn"]);
    t.write("-y.tscn", LINKED_SCENE.replace("speed = 1", "speed = 3"));
    t.commit_all("moved");
    let moved = t.git_ok(["diff", "-M", "HEAD~1", "HEAD"]);
    assert_eq!(
        moved,
        t.git_ok(["-c", &old_command, "diff", "-M", "HEAD~1", "HEAD"])
    );
    assert!(moved.contains("a/-x.tscn b/-y.tscn"), "{moved}");

    uninstall(&t, &[]);
    assert!(std::fs::symlink_metadata(&link).is_err(), "{link}");
    assert!(!t.home().join(".local").exists(), "no folder left behind");
}

#[test]
fn a_foreign_file_where_the_diff_link_goes_leaves_the_shell_command_and_says_why() {
    let t = TempRepo::new();
    install(&t, &["--diff"]);
    let link = t.config_get("diff.tscn-merge.command").unwrap();
    uninstall(&t, &[]);
    // Written only where no link is left: through one it would overwrite the binary.
    assert!(std::fs::symlink_metadata(&link).is_err(), "{link} is gone");
    std::fs::create_dir_all(Path::new(&link).parent().unwrap()).unwrap();
    std::fs::write(&link, "mine\n").unwrap();
    let report = install(&t, &["--diff"]);
    assert!(
        report.contains("external diff link not made:")
            && report.contains("is not tscn-merge's; git runs"),
        "{report}"
    );
    assert_eq!(
        t.config_get("diff.tscn-merge.command").unwrap(),
        format!("{} diff --git-external --", bin_str())
    );
    uninstall(&t, &[]);
    assert_eq!(std::fs::read(&link).unwrap(), b"mine\n");
}

#[test]
fn started_as_tscn_merge_diff_every_argument_is_a_path_or_value() {
    let t = TempRepo::new();
    let link = t.scratch().join("tscn-merge-diff");
    std::os::unix::fs::symlink(bin(), &link).unwrap();
    t.write("-x.tscn", LINKED_SCENE);
    t.write("--help", LINKED_SCENE.replace("speed = 1", "speed = 2"));
    let hex = "0".repeat(40);
    let args = [
        "--help", "-x.tscn", &hex, "100644", "--help", &hex, "100644",
    ];
    let out = t.command(&link).args(args).output().unwrap();
    assert_success(&out, "tscn-merge-diff");
    let shown = stdout(&out);
    assert!(
        shown.starts_with("diff --tscn-merge a/--help b/--help\n"),
        "{shown}"
    );
    assert!(shown.contains("speed"), "{shown}");
    let mut old = vec!["diff", "--git-external", "--"];
    old.extend(args);
    assert_eq!(stdout(&t.run_bin(&old)), shown);
    let short = t.command(&link).arg("-x.tscn").output().unwrap();
    assert_eq!(short.status.code(), Some(2));
    assert!(common::stderr(&short).contains("seven arguments"));
}

// ----------------------------------------------------------------------------------------
// Issue 36, items 15 and 16: what the user's PATH holds, and what install and uninstall
// say and take back.

#[test]
fn the_missing_binary_tests_pass_with_tscn_merge_on_path() {
    let names = [
        "driver_falls_back_to_git_merge_file_when_binary_is_missing",
        "on_path_install_records_the_path_entry_and_merges_off_path",
        "install_is_idempotent_and_uninstall_restores_bytes",
    ];
    if let Err(out) = common::rerun_with_tscn_merge_on_path(&names) {
        panic!("with a tscn-merge on PATH:\n{out}");
    }
}

#[test]
fn a_missing_shared_folder_is_a_skip_line_past_the_capture() {
    if std::env::var_os("TSCN_SKIP_PROBE").is_some() {
        // The child: nothing is there, and the test says so.
        assert_eq!(common::shared_dir(), None);
        return;
    }
    let nowhere = tempfile::tempdir().unwrap().path().join("no-shared");
    let name = "a_missing_shared_folder_is_a_skip_line_past_the_capture";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact"])
        .env("TSCN_SKIP_PROBE", "1")
        .env("TSCN_SHARED", &nowhere)
        .output()
        .unwrap();
    assert_success(&out, "the probe");
    let err = common::stderr(&out);
    assert!(
        err.contains(&format!(
            "SKIP {name}: the shared test material is not there"
        )),
        "{err}"
    );
}

#[test]
fn uninstall_refuses_install_only_options_and_changes_nothing() {
    let t = TempRepo::new();
    install(&t, &["--diff"]);
    let config = t.read(".git/config");
    let attrs = t.read(".gitattributes");
    let link = t.config_get("diff.tscn-merge.command").unwrap();
    for option in ["--diff", "--local"] {
        let out = t.run_bin(["uninstall", option]);
        assert_eq!(out.status.code(), Some(2), "uninstall {option}");
        assert!(common::stderr(&out).contains(option), "{option}");
        assert_eq!(t.read(".git/config"), config, "{option}");
        assert_eq!(t.read(".gitattributes"), attrs, "{option}");
        assert!(std::fs::read_link(&link).is_ok(), "{option}");
    }
}

#[test]
fn install_after_install_diff_removes_the_diff_links() {
    let t = TempRepo::new();
    install(&t, &["--diff"]);
    let links = [
        t.config_get("diff.tscn-merge.command").unwrap(),
        t.config_get("diff.tscn-merge.textconv").unwrap(),
    ];
    for link in &links {
        assert!(std::fs::read_link(link).is_ok(), "{link}");
    }
    let report = install(&t, &[]);
    for link in &links {
        assert!(std::fs::symlink_metadata(link).is_err(), "{link}\n{report}");
        assert!(report.contains(&format!("removed {link}")), "{report}");
    }
    assert_eq!(t.config_get("diff.tscn-merge.command"), None);
    assert!(
        !t.home().join(".local").exists(),
        "no folder left: {report}"
    );
    // What is left for uninstall is what the last install made.
    uninstall(&t, &[]);
    assert!(t.try_read(".gitattributes").is_none());
    for key in KEYS {
        assert_eq!(t.config_get(key), None, "{key}");
    }
    let record = t.git(["config", "--get-regexp", "^tscn-merge\\."]);
    assert_eq!(stdout(&record), "", "no record left");
}

/// The `git add ...` command of install's "commit the attributes" step.
fn git_add_step(report: &str) -> Option<String> {
    let at = report.find("git add ")?;
    let rest = &report[at + "git add ".len()..];
    Some(rest.split(" && ").next()?.to_string())
}

#[test]
fn install_from_a_sub_folder_prints_a_git_add_that_works_there() {
    let t = TempRepo::new();
    t.write("scenes/levels/keep.txt", "x\n");
    t.commit_all("init");
    let sub = t.abs("scenes/levels");
    let out = t
        .command(bin())
        .arg("install")
        .current_dir(&sub)
        .output()
        .unwrap();
    assert_success(&out, "install in a sub-folder");
    let report = stdout(&out);
    let path = git_add_step(&report).unwrap_or_else(|| panic!("{report}"));
    let add = t
        .command("git")
        .args(["add", "--", &path])
        .current_dir(&sub)
        .output()
        .unwrap();
    assert_success(&add, &format!("git add {path} in scenes/levels"));
    assert_eq!(
        t.git_ok(["diff", "--cached", "--name-only"]),
        ".gitattributes\n"
    );
}

#[test]
fn install_where_the_attributes_are_committed_does_not_ask_to_commit_them() {
    let t = TempRepo::new();
    let first = install(&t, &[]);
    assert!(git_add_step(&first).is_some(), "{first}");
    t.commit_all("Merge Godot scenes with tscn-merge");
    let again = install(&t, &[]);
    assert_eq!(git_add_step(&again), None, "{again}");
    assert!(again.contains("committed"), "{again}");
    // A teammate's clone: the same.
    let clone = t.scratch().join("clone");
    let out = t
        .command("git")
        .args(["clone", "-q"])
        .arg(t.path())
        .arg(&clone)
        .output()
        .unwrap();
    assert_success(&out, "git clone");
    let out = t
        .command(bin())
        .arg("install")
        .current_dir(&clone)
        .output()
        .unwrap();
    assert_success(&out, "install in the clone");
    assert_eq!(git_add_step(&stdout(&out)), None, "{}", stdout(&out));
}

/// `uninstall` (without `--global`) in a repository where only the global install is:
/// it says there is nothing to take back here and names `uninstall --global`, instead of
/// "a committed .gitattributes is the team's" about a file that is not there; nothing
/// is changed, the global install included.
#[test]
fn uninstall_without_a_local_install_says_so_and_names_the_global_one() {
    let t = TempRepo::new();
    t.write(
        "level.tscn",
        "[gd_scene format=3]\n\n[node name=\"L\" type=\"Node2D\"]\n",
    );
    t.commit_all("one");
    install(&t, &["--global"]);
    let gitconfig = t.home().join(".gitconfig");
    let (global_before, local_before) = (std::fs::read(&gitconfig).unwrap(), t.read(".git/config"));
    let report = uninstall(&t, &[]);
    assert!(!report.contains("committed"), "{report}");
    assert!(report.contains("nothing to uninstall"), "{report}");
    assert!(report.contains("tscn-merge uninstall --global"), "{report}");
    assert_eq!(std::fs::read(&gitconfig).unwrap(), global_before);
    assert_eq!(t.read(".git/config"), local_before);
    assert!(t.try_read(".gitattributes").is_none());
    assert_eq!(attr(&t, "merge", "level.tscn"), "tscn-merge");
}

/// A committed `.gitattributes` checked out with `core.autocrlf=true` has CRLF lines:
/// `install` adds its block with CRLF too (no "LF will be replaced by CRLF" from every
/// later `git diff` and `git add`), and `uninstall` leaves the file byte for byte.
#[test]
fn install_in_a_crlf_work_tree_writes_the_block_with_crlf() {
    let t = TempRepo::new();
    t.write(".gitattributes", "*.png binary\n*.gd text eol=lf\n");
    t.commit_all("attributes");
    t.git_ok(["config", "core.autocrlf", "true"]);
    t.remove(".gitattributes");
    t.git_ok(["checkout", "--", ".gitattributes"]);
    let before = t.read(".gitattributes");
    assert!(before.ends_with(b"eol=lf\r\n"), "{before:?}");
    install(&t, &[]);
    let text = String::from_utf8(t.read(".gitattributes")).unwrap();
    assert!(text.contains("*.tscn merge=tscn-merge"), "{text}");
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "{text:?}"
    );
    let diff = t.git(["diff", "--stat"]);
    assert!(
        !common::stderr(&diff).contains("will be replaced"),
        "{}",
        common::stderr(&diff)
    );
    assert_eq!(attr(&t, "merge", "level.tscn"), "tscn-merge");
    install(&t, &[]);
    uninstall(&t, &[]);
    assert_eq!(t.read(".gitattributes"), before);
}
