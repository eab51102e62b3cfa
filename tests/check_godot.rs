//! `tscn-merge check --godot [BINARY]` (issue 40 item 4): the user's own Godot loads the
//! files headless and `check` reports per file what the engine said. A fake binary (a
//! shell script speaking the checker's protocol) pins the arguments, the framing of the
//! engine's messages, the exit codes and a crash; Debian's `godot3-server` (the real
//! Godot 3 engine, as CI installs it) loads a valid scene and refuses a broken one.

mod common;

use common::{stderr, stdout, TempRepo};
use std::io::Write;
use std::path::{Path, PathBuf};

const SCENE4: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node2D\"]\n";

/// A fake Godot: `--version` prints `$version`; a run records its arguments in
/// `args.txt` beside it and answers every job of `jobs.txt` as the checker does: a path
/// with `bad` does not load (with an error line on stderr), one with `crash` kills the
/// engine, one with `quiet` prints nothing at all.
#[cfg(unix)]
fn fake_godot(repo: &TempRepo, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = repo.scratch().join("fake-godot");
    let log = repo.scratch().join("args.txt");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = --version ]; then echo "{version}"; exit 0; fi
printf '%s\n' "$@" >> '{log}'
while [ $# -gt 0 ]; do [ "$1" = --path ] && dir=$2; shift; done
n=0
tab=$(printf '\t')
while IFS="$tab" read -r kind path; do
  [ "$kind" = ph ] && continue
  case "$path" in *quiet*) exit 0;; esac
  echo "@@B $n"
  case "$path" in
    *bad*) echo "ERROR: fake parse error in $path" >&2; echo '@@R {{"loaded":false}}';;
    *crash*) kill -SEGV $$;;
    *) echo '@@R {{"loaded":true,"class":"PackedScene","nodes":1}}';;
  esac
  n=$((n + 1))
done < "$dir/__check/jobs.txt"
echo "@@DONE"
"#,
        log = log.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
fn args_of_fake(repo: &TempRepo) -> String {
    std::fs::read_to_string(repo.scratch().join("args.txt")).unwrap_or_default()
}

#[test]
#[cfg(unix)]
fn each_file_gets_what_the_engine_said_and_a_failure_exits_1() {
    let repo = TempRepo::new();
    let fake = fake_godot(&repo, "4.2.1.stable.fake");
    repo.write("game/project.godot", "config_version=5\n");
    repo.write("game/good.tscn", SCENE4);
    repo.write("game/levels/bad.tscn", SCENE4);
    let out = repo.run_bin([
        "check",
        "--godot",
        fake.to_str().unwrap(),
        "game/good.tscn",
        "game/levels/bad.tscn",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("game/good.tscn: godot: loads\n"), "{text}");
    assert!(text.contains("game/good.tscn: ok\n"), "{text}");
    assert!(
        text.contains("game/levels/bad.tscn: godot: does not load\n"),
        "{text}"
    );
    // The engine's own words, with the file's res:// path from its project.godot.
    assert!(
        text.contains(
            "game/levels/bad.tscn: godot: ERROR: fake parse error in res://levels/bad.tscn\n"
        ),
        "{text}"
    );
    assert!(!text.contains("game/levels/bad.tscn: ok"), "{text}");
    assert!(
        text.ends_with("2 files: 1 problem; Godot 4.2.1.stable.fake loaded 1 of 2\n"),
        "{text}"
    );
    // One engine start, headless, on a temporary project with the checker as the script.
    let args = args_of_fake(&repo);
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.len(), 5, "{args}");
    assert_eq!(lines[0], "--headless", "{args}");
    assert_eq!(lines[1], "--path", "{args}");
    assert!(lines[2].contains("tscn-merge-godot-"), "{args}");
    assert_eq!(lines[3..], ["--script", "res://__check/check.gd"], "{args}");
    // -q: the failure and the summary only.
    let out = repo.run_bin(["check", "-q", "--godot", fake.to_str().unwrap(), "game"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        !text.contains(": ok") && !text.contains("godot: loads"),
        "{text}"
    );
    assert!(
        text.contains("game/levels/bad.tscn: godot: does not load"),
        "{text}"
    );
    // --json: the engine's verdict per file.
    let out = repo.run_bin(["check", "--json", "--godot", fake.to_str().unwrap(), "game"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["exit"], 1);
    assert_eq!(doc["godot"]["version"], "4.2.1.stable.fake");
    let bad = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("bad.tscn"))
        .unwrap();
    assert_eq!(bad["godot"]["loaded"], false);
}

#[test]
#[cfg(unix)]
fn a_godot_3_binary_runs_without_headless_and_a_crash_is_that_files_alone() {
    let repo = TempRepo::new();
    let fake = fake_godot(&repo, "3.5.3.stable.fake");
    for f in ["a.tscn", "crash.tscn", "z.tscn"] {
        repo.write(f, SCENE4);
    }
    let out = repo.run_bin([
        "check",
        "--godot",
        fake.to_str().unwrap(),
        "a.tscn",
        "crash.tscn",
        "z.tscn",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("a.tscn: godot: loads"), "{text}");
    assert!(
        text.contains(
            "crash.tscn: godot: the engine stopped while loading this file (killed by a signal)"
        ),
        "{text}"
    );
    // The files after the crash are loaded by a second start.
    assert!(text.contains("z.tscn: godot: loads"), "{text}");
    let args = args_of_fake(&repo);
    assert_eq!(args.matches("--path").count(), 2, "{args}");
    assert!(!args.contains("--headless"), "{args}");
}

#[test]
#[cfg(unix)]
fn a_binary_that_cannot_run_exits_2() {
    let repo = TempRepo::new();
    repo.write("a.tscn", SCENE4);
    let missing = repo.scratch().join("no-such-godot");
    let out = repo.run_bin(["check", "--godot", missing.to_str().unwrap(), "a.tscn"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("cannot run the Godot binary"),
        "{}",
        stderr(&out)
    );
    // Something that is no Godot.
    let not = fake_godot(&repo, "hello");
    let out = repo.run_bin(["check", "--godot", not.to_str().unwrap(), "a.tscn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did not answer as Godot 3 or 4"),
        "{}",
        stderr(&out)
    );
    // A Godot that never runs the checker.
    let fake = fake_godot(&repo, "4.3.stable");
    repo.write("quiet.tscn", SCENE4);
    let out = repo.run_bin(["check", "--godot", fake.to_str().unwrap(), "quiet.tscn"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("did not run the checker"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[cfg(unix)]
fn godot_without_a_binary_takes_godot_from_the_environment_and_a_scene_stays_a_path() {
    let repo = TempRepo::new();
    let fake = fake_godot(&repo, "4.6.stable.fake");
    repo.write("a.tscn", SCENE4);
    // `check --godot a.tscn`: a.tscn is the file; the binary is $GODOT.
    let out = repo
        .command(common::bin())
        .current_dir(repo.path())
        .args(["check", "--godot", "a.tscn"])
        .env("GODOT", &fake)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_eq!(text, "a.tscn: godot: loads\na.tscn: ok\n1 file: 0 problems; Godot 4.6.stable.fake loaded 1 of 1\n");
    // Neither GODOT nor a godot on PATH: said, exit 2.
    let out = repo
        .command(common::bin())
        .current_dir(repo.path())
        .args(["check", "--godot"])
        .env_remove("GODOT")
        .env("PATH", repo.scratch())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no Godot binary found"),
        "{}",
        stderr(&out)
    );
}

/// Debian's Godot 3 headless engine: `$GODOT3`, else /usr/bin/godot3-server (not PATH).
fn godot3() -> Option<PathBuf> {
    let env = std::env::var_os("GODOT3")
        .filter(|g| !g.is_empty())
        .map(PathBuf::from);
    env.or_else(|| Some(PathBuf::from("/usr/bin/godot3-server")))
        .filter(|p| p.is_file())
}

#[test]
fn godot3_server_loads_a_valid_scene_and_reports_a_broken_one() {
    let Some(godot) = godot3() else {
        // Past cargo's output capture, so the skip is seen.
        let _ = writeln!(
            std::io::stderr(),
            "SKIP check --godot with Godot 3: no godot3-server (apt-get install godot3-server, or set GODOT3)"
        );
        return;
    };
    let repo = TempRepo::new();
    repo.write("proj/project.godot", "config_version=4\n");
    repo.write(
        "proj/ok.tscn",
        "[gd_scene load_steps=3 format=2]\n\n[ext_resource path=\"res://player.gd\" type=\"Script\" id=1]\n[ext_resource path=\"res://art/icon.png\" type=\"Texture\" id=2]\n\n[node name=\"Root\" type=\"Node2D\"]\nscript = ExtResource( 1 )\n\n[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 4, 2 )\ntexture = ExtResource( 2 )\n",
    );
    // Our parser reads it (values are decoded on demand); Godot 3 knows no Vector9.
    repo.write(
        "proj/broken.tscn",
        "[gd_scene format=2]\n\n[node name=\"Root\" type=\"Node2D\"]\nposition = Vector9( 4, 2 )\n",
    );
    let g = godot.to_str().unwrap();
    let out = repo.run_bin(["check", "--godot", g, "proj/ok.tscn"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("proj/ok.tscn: godot: loads"), "{text}");
    let out = repo.run_bin(["check", "--godot", g, "proj/broken.tscn", "proj/ok.tscn"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(
        text.contains("proj/broken.tscn: godot: does not load"),
        "{text}"
    );
    assert!(text.contains("proj/broken.tscn: godot: ERROR:"), "{text}");
    assert!(
        text.contains("Vector9"),
        "the engine's words name the bad constructor: {text}"
    );
    assert!(text.contains("proj/ok.tscn: godot: loads"), "{text}");
    assert!(text.contains("; Godot 3."), "{text}");
    assert!(Path::new(g).is_file());
}

/// A native Godot 4: `$GODOT4`, else where `scripts/install-godot4.sh` puts Debian's
/// (/opt/godot4/bin/godot4; not PATH), as CI installs it.
fn godot4() -> Option<PathBuf> {
    let env = std::env::var_os("GODOT4")
        .filter(|g| !g.is_empty())
        .map(PathBuf::from);
    env.or_else(|| Some(PathBuf::from("/opt/godot4/bin/godot4")))
        .filter(|p| p.is_file())
}

fn skip_godot4() {
    let _ = writeln!(
        std::io::stderr(),
        "SKIP check --godot with Godot 4: no native Godot 4 (bash scripts/install-godot4.sh, or set GODOT4)"
    );
}

/// The lines `check` printed about `file` past its verdict: what the engine said.
fn said_about<'a>(text: &'a str, file: &str) -> Vec<&'a str> {
    let prefix = format!("{file}: godot: ");
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .filter(|l| *l != "loads" && *l != "does not load")
        .collect()
}

#[test]
fn a_godot_4_binary_loads_a_valid_scene_and_reports_a_broken_one() {
    let Some(godot) = godot4() else {
        return skip_godot4();
    };
    let repo = TempRepo::new();
    repo.write("proj/project.godot", "config_version=5\n");
    // References by uid, to a script, a texture and a scene the project has (uid cache)
    // or not: the engine finds each and says nothing.
    repo.write(
        "proj/ok.tscn",
        "[gd_scene load_steps=4 format=3 uid=\"uid://cokscene\"]\n\n[ext_resource type=\"Script\" uid=\"uid://bplayer\" path=\"res://player.gd\" id=\"1_a\"]\n[ext_resource type=\"Texture2D\" uid=\"uid://bicon\" path=\"res://art/icon.png\" id=\"2_b\"]\n[ext_resource type=\"PackedScene\" uid=\"uid://ctiles\" path=\"res://tiles.tscn\" id=\"3_c\"]\n\n[node name=\"Root\" type=\"Node2D\"]\nscript = ExtResource(\"1_a\")\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(4, 2)\ntexture = ExtResource(\"2_b\")\n\n[node name=\"Tiles\" parent=\".\" instance=ExtResource(\"3_c\")]\n",
    );
    // A tile set whose atlas texture is missing here: the placeholder is large enough.
    repo.write(
        "proj/tiles.tres",
        "[gd_resource type=\"TileSet\" load_steps=3 format=3]\n\n[ext_resource type=\"Texture2D\" uid=\"uid://bicon\" path=\"res://art/icon.png\" id=\"1_t\"]\n\n[sub_resource type=\"TileSetAtlasSource\" id=\"TileSetAtlasSource_a\"]\ntexture = ExtResource(\"1_t\")\n0:0/0 = 0\n1:0/0 = 0\n\n[resource]\nsources/0 = SubResource(\"TileSetAtlasSource_a\")\n",
    );
    repo.write(
        "proj/export_presets.cfg",
        "[preset.0]\n\nname=\"Linux\"\nplatform=\"Linux\"\nrunnable=true\n",
    );
    repo.write(
        "broken/broken.tscn",
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\nposition = Vector9(4, 2)\n",
    );
    let g = godot.to_str().unwrap();
    let out = repo.run_bin(["check", "--godot", g, "proj"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    for f in [
        "proj/ok.tscn",
        "proj/tiles.tres",
        "proj/export_presets.cfg",
        "proj/project.godot",
    ] {
        assert!(
            text.contains(&format!("{f}: godot: loads\n")),
            "{f}: {text}"
        );
        // No "invalid UID" warning (the uid cache), no tile error (the placeholder).
        assert_eq!(said_about(&text, f), Vec::<&str>::new(), "{f}: {text}");
    }
    assert!(text.ends_with("loaded 4 of 4\n"), "{text}");
    assert!(text.contains("; Godot 4."), "{text}");

    let out = repo.run_bin(["check", "--godot", g, "broken/broken.tscn", "proj/ok.tscn"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains("proj/ok.tscn: godot: loads"), "{text}");
    assert!(
        text.contains("broken/broken.tscn: godot: does not load"),
        "{text}"
    );
    // The engine's words about the file, its line; not the checker's own call stack.
    let said = said_about(&text, "broken/broken.tscn");
    assert!(
        said.iter()
            .any(|l| l.contains("Parse Error") && l.contains("broken.tscn:4")),
        "{text}"
    );
    assert!(
        !text.contains("check.gd") && !text.contains("GDScript backtrace"),
        "{text}"
    );
    // --json: the version the binary gave, the verdict per file.
    let out = repo.run_bin(["check", "--json", "--godot", g, "broken"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["exit"], 1);
    assert!(doc["godot"]["version"].as_str().unwrap().starts_with("4."));
    assert_eq!(doc["files"][0]["godot"]["loaded"], false);
}
