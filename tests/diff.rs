//! Semantic diff: golden outputs on real file pairs, the JSON schema, every clean merge
//! scenario, the command line, and git integration (external diff, textconv, difftool).

mod common;

use gdscene::diff::{diff, diff_files};
use gdscene::model::Scene;
use gdscene::render::{json, markdown, text, Options};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// ----------------------------------------------------------------------------------------
// Helpers (local: tests/common has no TempRepo in this tree)

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("corpus/INDEX.tsv").exists())
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tscn-merge"))
}

fn parse(path: &Path) -> Scene {
    Scene::parse(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A minimal JSON Schema validator: type (string or list), required, properties, enum, items.
fn validate(schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let ok = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            _ => false,
        });
        if !ok {
            errs.push(format!("{at}: expected {types:?}, got {v}"));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        if !allowed.contains(v) {
            errs.push(format!("{at}: {v} not in {allowed:?}"));
        }
    }
    if let (Some(Value::Array(req)), Some(obj)) = (schema.get("required"), v.as_object()) {
        for r in req.iter().filter_map(Value::as_str) {
            if !obj.contains_key(r) {
                errs.push(format!("{at}: missing {r}"));
            }
        }
    }
    if let (Some(Value::Object(props)), Some(obj)) = (schema.get("properties"), v.as_object()) {
        for (k, sub) in props {
            if let Some(x) = obj.get(k) {
                validate(sub, x, &format!("{at}.{k}"), errs);
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            validate(items, x, &format!("{at}[{i}]"), errs);
        }
    }
}

fn schema() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diff-json-schema.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn assert_valid(v: &Value, what: &str) {
    let mut errs = Vec::new();
    validate(&schema(), v, "$", &mut errs);
    assert!(errs.is_empty(), "{what}: {errs:#?}");
}

fn golden(name: &str, actual: &str) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/diff")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&p, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&p)
        .unwrap_or_else(|_| panic!("missing golden {}; run with UPDATE_GOLDEN=1", p.display()));
    assert!(
        expected == actual,
        "golden {name} differs:\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

// ----------------------------------------------------------------------------------------
// The validator itself can fail

#[test]
fn validator_rejects_bad_documents() {
    let mut errs = Vec::new();
    validate(
        &schema(),
        &serde_json::json!({"schema": "other", "version": 1, "changes": []}),
        "$",
        &mut errs,
    );
    assert!(errs.iter().any(|e| e.contains("missing noise")), "{errs:?}");
    assert!(errs.iter().any(|e| e.contains("not in")), "{errs:?}");
    let mut errs = Vec::new();
    let bad = serde_json::json!({"schema": "tscn-merge/diff", "version": 1, "noise": [],
        "changes": [{"kind": "exploded", "subject": {"kind": "node", "path": 3}}]});
    validate(&schema(), &bad, "$", &mut errs);
    assert_eq!(errs.len(), 2, "{errs:?}");
}

// ----------------------------------------------------------------------------------------
// Golden outputs on real pairs

fn render_all(name: &str, old: Option<&Scene>, new: Option<&Scene>) {
    let r = diff_files(old, new);
    let opts = Options {
        color: false,
        show_noise: true,
        show_state: false,
    };
    golden(&format!("{name}.txt"), &text::render(&r, &opts));
    golden(
        &format!("{name}.md"),
        &markdown::render(
            name,
            &r,
            &Options {
                color: false,
                show_noise: false,
                show_state: false,
            },
        ),
    );
    let j = json::render(&r);
    assert_valid(&j, name);
    golden(&format!("{name}.json"), &json::to_string(&j));
}

fn corpus_pair(root: &Path, original: &str) -> (PathBuf, PathBuf) {
    let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r.len() > 8 && r[3] == original)
        .collect();
    let head = rows.iter().find(|r| r[2] == "head").expect("head");
    let mut hist: Vec<&Vec<&str>> = rows.iter().filter(|r| r[2] != "head").collect();
    hist.sort_by_key(|r| r[8]);
    let h = hist.first().expect("hist");
    (
        root.join("corpus").join(h[8]),
        root.join("corpus").join(head[8]),
    )
}

#[test]
fn golden_corpus_history_pairs() {
    let Some(root) = shared() else {
        return eprintln!("skipped: shared not found");
    };
    for (name, original) in [
        ("corpus-fabrik_ik", "3d/ik/fabrik_ik.tscn"),
        ("corpus-level1", "src/scenes/levels/Level 1.tscn"),
        (
            "corpus-fray_hammerman",
            "scenes/game_elements/characters/npcs/npc_prop/fray_hammerman.tscn",
        ),
    ] {
        let (old, new) = corpus_pair(&root, original);
        render_all(name, Some(&parse(&old)), Some(&parse(&new)));
    }
}

#[test]
fn golden_merge_scenarios() {
    let Some(root) = shared() else {
        return eprintln!("skipped: shared not found");
    };
    for (name, dir) in [
        (
            "merge-player-ours",
            "GDQuest__godot-platformer-2d__2162f42b16__hook!-full-game__src__Player__Player.tscn",
        ),
        (
            "merge-openrpg-game",
            "GDQuest__godot-open-rpg__18f41c6b71__godot__Game.tscn",
        ),
        (
            "merge-localmap",
            "GDQuest__godot-open-rpg__843c07caf9__godot__local_map__LocalMap.tscn",
        ),
    ] {
        let d = root.join("merges").join(dir);
        let ext = dir.rsplit('.').next().unwrap();
        let base = parse(&d.join(format!("base.{ext}")));
        let ours = parse(&d.join(format!("ours.{ext}")));
        render_all(name, Some(&base), Some(&ours));
    }
}

#[test]
fn golden_added_file() {
    let Some(root) = shared() else {
        return eprintln!("skipped: shared not found");
    };
    let d = root.join("merges/GDQuest__godot-platformer-2d__2162f42b16__hook!-full-game__src__Player__Player.tscn");
    render_all("added-file", None, Some(&parse(&d.join("base.tscn"))));
}

// ----------------------------------------------------------------------------------------
// Every merge scenario: base vs ours, base vs theirs

#[test]
fn every_merge_scenario_diffs_and_validates() {
    let Some(root) = shared() else {
        return eprintln!("skipped: shared not found");
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("merges"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 100, "{}", dirs.len());
    let find = |d: &Path, stem: &str| -> Option<PathBuf> {
        std::fs::read_dir(d)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_stem().is_some_and(|s| s == stem))
    };
    let schema = schema();
    let (mut runs, mut with_changes, mut resaves) = (0, 0, 0);
    for d in &dirs {
        let Some(base) = find(d, "base").and_then(|p| Scene::parse(&std::fs::read(p).ok()?).ok())
        else {
            continue;
        };
        for side in ["ours", "theirs"] {
            let Some(other) =
                find(d, side).and_then(|p| Scene::parse(&std::fs::read(p).ok()?).ok())
            else {
                continue;
            };
            let r = diff(&base, &other);
            let j = json::render(&r);
            let mut errs = Vec::new();
            validate(&schema, &j, "$", &mut errs);
            assert!(errs.is_empty(), "{}/{side}: {errs:?}", d.display());
            let opts = Options {
                color: true,
                show_noise: true,
                show_state: false,
            };
            assert!(!text::render(&r, &opts).is_empty());
            assert!(markdown::render("x", &r, &opts).starts_with("### "));
            // Diffing a file with itself is always clean.
            assert!(
                diff(&other, &other).changes.is_empty(),
                "{}/{side} against itself",
                d.display()
            );
            runs += 1;
            with_changes += usize::from(!r.changes.is_empty());
            resaves += usize::from(r.changes.is_empty());
        }
    }
    assert!(runs >= 250, "{runs}");
    assert!(with_changes > runs / 2, "{with_changes} of {runs}");
    eprintln!("{runs} diffs, {with_changes} with changes, {resaves} clean");
}

// ----------------------------------------------------------------------------------------
// Command line

const SCENE: &str = "[gd_scene load_steps=3 format=3 uid=\"uid://t\"]\n\n[ext_resource type=\"Script\" path=\"res://player.gd\" id=\"1_abcde\"]\n\n[sub_resource type=\"CircleShape2D\" id=\"CircleShape2D_aaaaa\"]\nradius = 4.0\n\n[node name=\"Player\" type=\"Node2D\"]\nscript = ExtResource(\"1_abcde\")\nspeed = 10\nposition = Vector2(0.707107, 2)\n\n[node name=\"Shape\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"CircleShape2D_aaaaa\")\n";

fn resaved() -> String {
    SCENE
        .replace("load_steps=3 ", "")
        .replace("1_abcde", "1_qwert")
        .replace("CircleShape2D_aaaaa", "CircleShape2D_zzzzz")
        .replace("0.707107", "0.70710677")
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn cli_exit_codes_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tscn");
    let b = dir.path().join("b.tscn");
    let c = dir.path().join("c.tscn");
    std::fs::write(&a, SCENE).unwrap();
    std::fs::write(&b, resaved()).unwrap();
    std::fs::write(&c, SCENE.replace("speed = 10", "speed = 12")).unwrap();
    let o = run(Command::new(bin()).arg("diff").arg(&a).arg(&b));
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // the file's header line, as difftastic writes it, then the verdict
    let out = stdout(&o);
    let (head, body) = out.split_once('\n').unwrap_or_default();
    assert!(head.ends_with("b.tscn --- Godot scene"), "{out}");
    assert!(body.starts_with("No semantic changes."), "{out}");
    let o = run(Command::new(bin())
        .args(["diff", "--show-noise"])
        .arg(&a)
        .arg(&b));
    assert!(
        stdout(&o).contains("id_renamed") && stdout(&o).contains("load_steps"),
        "{}",
        stdout(&o)
    );
    let o = run(Command::new(bin())
        .arg("diff")
        .arg(&a)
        .arg(&c)
        .env_remove("NO_COLOR"));
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("~ speed: 10 -> 12"), "{out}");
    assert!(!out.contains('\x1b'), "piped output must be plain: {out:?}");
    let o = run(Command::new(bin())
        .args(["diff", "--color", "always"])
        .arg(&a)
        .arg(&c));
    assert!(stdout(&o).contains("\x1b[33m"), "{}", stdout(&o));
    let o = run(Command::new(bin())
        .args(["diff", "--format", "json"])
        .arg(&a)
        .arg(&c));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_valid(&j, "cli json");
    assert_eq!(j["changes"][0]["kind"], "property_changed");
    assert_eq!(j["changes"][0]["subject"]["path"], ".");
    let o = run(Command::new(bin())
        .args(["diff", "--format", "json"])
        .arg(&a)
        .arg(&b));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["changes"], serde_json::json!([]));
    assert_eq!(j["schema"], "tscn-merge/diff");
    let o = run(Command::new(bin())
        .args(["diff", "--format", "markdown"])
        .arg(&a)
        .arg(&c));
    assert!(
        stdout(&o).contains("```mermaid\nflowchart TD"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("classDef changed"), "{}", stdout(&o));
}

#[test]
fn cli_reports_parse_errors_with_position() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tscn");
    let bad = dir.path().join("bad.tscn");
    std::fs::write(&a, SCENE).unwrap();
    std::fs::write(
        &bad,
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nx = Vector2(1,\n",
    )
    .unwrap();
    let o = run(Command::new(bin()).arg("diff").arg(&a).arg(&bad));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.tscn: 4:12:"), "{err}");
    let o = run(Command::new(bin())
        .arg("diff")
        .arg(&a)
        .arg(dir.path().join("missing.tscn")));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn git_external_arguments_and_dev_null() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.tscn");
    let c = dir.path().join("c.tscn");
    std::fs::write(&a, SCENE).unwrap();
    std::fs::write(&c, SCENE.replace("speed = 10", "speed = 12")).unwrap();
    let o = run(Command::new(bin())
        .args(["diff", "--git-external", "lvl/p.tscn"])
        .arg(&a)
        .args(["1111", "100644"])
        .arg(&c)
        .args(["2222", "100644"]));
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.starts_with("diff --tscn-merge a/lvl/p.tscn b/lvl/p.tscn\n"),
        "{out}"
    );
    assert!(out.contains("speed: 10 -> 12"), "{out}");
    let o = run(Command::new(bin())
        .args(["diff", "--git-external", "p.tscn", "/dev/null", ".", "."])
        .arg(&c)
        .args(["2222", "100644"]));
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("2 nodes added"), "{}", stdout(&o));
}

// ----------------------------------------------------------------------------------------
// git end to end

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let r = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        r.git(&["init", "-q", "-b", "main"]);
        let o = run(r.cmd(&bin()).args(["install", "--diff"]));
        assert!(
            o.status.success(),
            "install: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        r
    }
    fn cmd(&self, exe: &Path) -> Command {
        let mut c = Command::new(exe);
        c.current_dir(self.dir.path())
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_PAGER", "cat")
            .env_remove("GIT_EXTERNAL_DIFF")
            .env_remove("NO_COLOR");
        c
    }
    fn git(&self, args: &[&str]) -> String {
        let o = run(self.cmd(Path::new("git")).args(args));
        assert!(
            o.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        stdout(&o)
    }
    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join(name), text).unwrap();
    }
    fn commit(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }
}

#[test]
fn git_diff_log_and_difftool_use_the_drivers() {
    let r = Repo::new();
    r.write("player.tscn", SCENE);
    r.commit("add");
    // A resave that only renamed ids and respelled floats.
    r.write("player.tscn", &resaved());
    let ext = r.git(&["diff"]);
    assert!(
        ext.contains("diff --tscn-merge a/player.tscn b/player.tscn"),
        "{ext}"
    );
    assert!(ext.contains("No semantic changes."), "{ext}");
    // textconv hides the resave noise but keeps the file's own sub_resource ids, so
    // the renamed one is the only change it shows.
    let textconv = r.git(&["diff", "--no-ext-diff"]);
    let changed: Vec<&str> = textconv
        .lines()
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+'))
                && !l.starts_with("--- ")
                && !l.starts_with("+++ ")
        })
        .collect();
    assert_eq!(changed.len(), 4, "{textconv}");
    assert!(
        changed.iter().all(|l| l.contains("CircleShape2D_")),
        "textconv should hide all but the id rename: {textconv}"
    );
    r.commit("resave");
    // A real change.
    r.write(
        "player.tscn",
        &resaved().replace("speed = 10", "speed = 12"),
    );
    let ext = r.git(&["diff"]);
    assert!(ext.contains("~ speed: 10 -> 12"), "{ext}");
    r.commit("faster");
    let log = r.git(&["log", "-p", "-1"]);
    assert!(log.contains("-speed = 10\n+speed = 12\n"), "{log}");
    assert!(
        !log.contains("1_qwert") && log.contains("ExtResource(res://player.gd)"),
        "ids resolved in textconv: {log}"
    );
    let wd = r.git(&["log", "-p", "-1", "--word-diff"]);
    assert!(wd.contains("[-10-]{+12+}"), "{wd}");
    let tool = r.git(&[
        "difftool",
        "--no-prompt",
        "--tool=tscn-merge",
        "HEAD~2",
        "HEAD",
    ]);
    assert!(tool.contains("~ speed: 10 -> 12"), "{tool}");
    assert!(!tool.contains("id_renamed"), "{tool}");
    // Added file through the external diff (/dev/null on the old side).
    r.write("enemy.tscn", SCENE);
    r.git(&["add", "enemy.tscn"]);
    let ext = r.git(&["diff", "--cached"]);
    assert!(
        ext.contains("diff --tscn-merge a/enemy.tscn") && ext.contains("2 nodes added"),
        "{ext}"
    );
}

// ----------------------------------------------------------------------------------------
// Colour under git's pager; difftool on files that are not scenes

/// `tscn-merge diff ARGS OLD NEW` (speed 10 -> 12) in a repository whose git config has
/// `config`, stdout a pipe, with `env` set and the test's own colour variables removed.
fn diff_in_repo(config: &[(&str, &str)], env: &[(&str, &str)], args: &[&str]) -> String {
    let t = common::TempRepo::new();
    for (k, v) in config {
        t.git_ok(["config", k, v]);
    }
    t.write("a.tscn", SCENE);
    t.write("b.tscn", SCENE.replace("speed = 10", "speed = 12"));
    let mut cmd = t.command(bin());
    for k in ["NO_COLOR", "GIT_PAGER_IN_USE", "GIT_DIFF_PATH_COUNTER"] {
        cmd.env_remove(k);
    }
    cmd.envs(env.iter().copied()).arg("diff").args(args);
    let o = run(cmd.args(["a.tscn", "b.tscn"]));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

fn coloured(s: &str) -> bool {
    s.contains("\x1b[")
}

#[test]
fn colour_under_git_pager_follows_git_colour_config() {
    let pager = [("GIT_PAGER_IN_USE", "true")];
    assert!(!coloured(&diff_in_repo(&[], &[], &[])), "a pipe: no colour");
    assert!(
        coloured(&diff_in_repo(&[], &pager, &[])),
        "git's default is auto"
    );
    let ui_never = [("color.ui", "never")];
    assert!(!coloured(&diff_in_repo(&ui_never, &pager, &[])));
    let diff_never = [("color.ui", "always"), ("color.diff", "never")];
    assert!(!coloured(&diff_in_repo(&diff_never, &pager, &[])));
    let diff_auto = [("color.ui", "never"), ("color.diff", "auto")];
    assert!(coloured(&diff_in_repo(&diff_auto, &pager, &[])));
}

#[test]
fn colour_flag_wins_and_no_color_turns_auto_off() {
    let pager_no_color = [("GIT_PAGER_IN_USE", "true"), ("NO_COLOR", "1")];
    assert!(!coloured(&diff_in_repo(&[], &pager_no_color, &[])));
    let pager = [("GIT_PAGER_IN_USE", "true")];
    assert!(!coloured(&diff_in_repo(&[], &pager, &["--color", "never"])));
    assert!(coloured(&diff_in_repo(
        &[],
        &[("NO_COLOR", "1")],
        &["--color", "always"]
    )));
}

#[test]
fn git_diff_under_the_pager_is_coloured_unless_git_says_never() {
    let t = common::TempRepo::new();
    common::assert_success(&t.run_bin(["install", "--diff"]), "install --diff");
    t.write("p.tscn", SCENE);
    t.commit_all("add");
    t.write("p.tscn", SCENE.replace("speed = 10", "speed = 12"));
    let git_diff = |extra: &[&str]| {
        let mut cmd = t.command("git");
        cmd.env_remove("NO_COLOR").env("GIT_PAGER_IN_USE", "true");
        let o = run(cmd.args(extra).arg("diff"));
        common::assert_success(&o, "git diff");
        stdout(&o)
    };
    let out = git_diff(&[]);
    assert!(out.contains("12") && coloured(&out), "{out:?}");
    let out = git_diff(&["-c", "color.ui=never"]);
    assert!(out.contains("12") && !coloured(&out), "{out:?}");
}

/// `git scene-diff` (the difftool `install` sets up) names the file of each block in a
/// header, as difftastic does, and passes over files Godot does not read as text (a
/// script, a note, a sound) without a word; the README's manual route (no `--name`)
/// does the same.
#[test]
fn scene_diff_names_each_file_and_skips_the_others_quietly() {
    let t = common::TempRepo::new();
    common::assert_success(&t.run_bin(["install"]), "install");
    t.write("level.tscn", SCENE);
    t.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"A\"\n",
    );
    t.write("player.gd", "extends Node\n");
    t.write("notes.txt", "one\ntwo\n");
    t.write("sfx/oi.wav", b"RIFF\0\0\0\0WAVEfmt \x01\x02");
    t.commit_all("add");
    t.write("level.tscn", SCENE.replace("speed = 10", "speed = 12"));
    t.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"B\"\n",
    );
    t.write("player.gd", "extends Node2D\n");
    t.write("notes.txt", "one\nthree\n");
    t.write("sfx/oi.wav", b"RIFF\0\0\0\x01WAVEfmt \x01\x03");
    t.commit_all("change");
    let mut git = t.command("git");
    git.env_remove("NO_COLOR").env_remove("GIT_PAGER_IN_USE");
    let o = run(git.args(["scene-diff", "HEAD~1", "HEAD"]));
    let (out, err) = (stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(o.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.contains("level.tscn --- 1/5 --- Godot scene\n"),
        "{out}"
    );
    assert!(out.contains("speed: 10 -> 12"), "{out}");
    assert!(
        out.contains("project.godot --- 4/5 --- Godot project settings\n"),
        "{out}"
    );
    assert!(out.contains("config/name: \"A\" -> \"B\""), "{out}");
    for other in [
        "player.gd",
        "notes.txt",
        "oi.wav",
        "note:",
        "line diff",
        "`",
    ] {
        assert!(!out.contains(other), "{other} in {out}");
    }
    // The manual route of the README: no --name, the same files skipped.
    let cmd = format!("'{}' diff \"$LOCAL\" \"$REMOTE\"", bin().display());
    t.git_ok(["config", "difftool.tscn-merge.cmd", &cmd]);
    let o = run(t.command("git").args([
        "difftool",
        "--no-prompt",
        "--tool=tscn-merge",
        "HEAD~1",
        "HEAD",
    ]));
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("speed: 10 -> 12"),
        "{out}"
    );
    assert!(
        !out.contains("-two") && !out.contains("Binary files") && !out.contains("extends"),
        "{out}"
    );
}

/// `tscn-merge diff` with no argument: every scene and config file of the work tree
/// that differs from HEAD, each under its header; nothing else.
#[test]
fn diff_with_no_argument_lists_the_changed_godot_files_of_the_work_tree() {
    let t = common::TempRepo::new();
    t.write("a.tscn", SCENE);
    t.write("b.tscn", SCENE);
    t.write("gone.tscn", SCENE);
    t.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"A\"\n",
    );
    t.write("player.gd", "extends Node\n");
    t.commit_all("add");
    let o = t.run_bin(["diff"]);
    assert_eq!(
        (o.status.code(), stdout(&o)),
        (Some(0), String::new()),
        "nothing changed"
    );
    t.write("b.tscn", SCENE.replace("speed = 10", "speed = 12"));
    t.remove("gone.tscn");
    t.write(
        "project.godot",
        "config_version=5\n\n[application]\n\nconfig/name=\"B\"\n",
    );
    t.write("player.gd", "extends Node2D\n");
    let o = t.run_bin(["diff"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", common::stderr(&o));
    let heads: Vec<&str> = out.lines().filter(|l| l.contains(" --- ")).collect();
    assert_eq!(
        heads,
        [
            "b.tscn --- 1/3 --- Godot scene",
            "gone.tscn --- 2/3 --- Godot scene",
            "project.godot --- 3/3 --- Godot project settings"
        ],
        "{out}"
    );
    assert!(
        out.contains("speed: 10 -> 12") && out.contains("config/name"),
        "{out}"
    );
    // a.tscn did not change; player.gd is not Godot's text (gone.tscn names it, though)
    assert!(
        !out.contains("a.tscn ---") && !out.contains("extends Node2D"),
        "{out}"
    );
    let o = t.run_bin(["diff", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("name a file"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn diff_of_two_files_that_are_not_scenes_is_a_line_diff() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, "one\ntwo\n").unwrap();
    std::fs::write(&b, "one\nthree\n").unwrap();
    let o = run(Command::new(bin())
        .env_remove("GIT_DIFF_PATH_COUNTER")
        .arg("diff")
        .arg(&a)
        .arg(&b));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("line diff follows") && stdout(&o).contains("+three"));
    let o = run(Command::new(bin()).arg("diff").arg(&a).arg(&a));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
}

/// Issue 30 §12: a node renamed, and the editor rewrote the animation track that named it
/// (`Player:position` -> `Hero:position`): the track is one track whose path changed,
/// not one removed and one added. Godot 4 (an AnimationLibrary) and Godot 3 (`anims/`).
#[test]
fn a_track_path_that_followed_a_rename_is_a_changed_track() {
    let godot4 = r#"[gd_scene load_steps=3 format=3]

[sub_resource type="Animation" id="Animation_walk"]
resource_name = "walk"
length = 1.0
tracks/0/type = "value"
tracks/0/path = NodePath("Player:position")
tracks/0/keys = {
"times": PackedFloat32Array(0, 1),
"transitions": PackedFloat32Array(1, 1),
"update": 0,
"values": [Vector2(0, 0), Vector2(10, 0)]
}

[sub_resource type="AnimationLibrary" id="AnimationLibrary_1"]
_data = {
&"walk": SubResource("Animation_walk")
}

[node name="Level" type="Node2D"]

[node name="Player" type="Sprite2D" parent="."]
position = Vector2(1, 1)

[node name="AnimationPlayer" type="AnimationPlayer" parent="."]
libraries = {
&"": SubResource("AnimationLibrary_1")
}
"#;
    let godot3 = godot4
        .replace("load_steps=3 format=3", "load_steps=2 format=2")
        .replace("Sprite2D", "Sprite")
        .replace("\"Animation_walk\"", "1")
        .replace(
            "[sub_resource type=\"AnimationLibrary\" id=\"AnimationLibrary_1\"]\n_data = {\n&\"walk\": SubResource(1)\n}\n\n",
            "",
        )
        .replace(
            "libraries = {\n&\"\": SubResource(\"AnimationLibrary_1\")\n}",
            "anims/walk = SubResource( 1 )",
        );
    assert!(
        godot3.contains("anims/walk") && !godot3.contains("Library"),
        "{godot3}"
    );
    for old in [godot4, godot3.as_str()] {
        let new = old.replace("name=\"Player\"", "name=\"Hero\"").replace(
            "NodePath(\"Player:position\")",
            "NodePath(\"Hero:position\")",
        );
        let r = diff(
            &Scene::parse(old.as_bytes()).unwrap(),
            &Scene::parse(new.as_bytes()).unwrap(),
        );
        let shown = text::render(&r, &Options::default());
        assert!(
            !shown.contains("removed") && !shown.contains("added"),
            "{shown}"
        );
        assert!(
            shown.contains("Player:position") && shown.contains("Hero:position"),
            "{shown}"
        );
    }
}

/// A Skeleton3D saved in another pose is one line in the text and Markdown diffs
/// (`Skeleton3D pose re-saved, 3 bones`, issue 39.1), every pose with `--show-state`;
/// the JSON keeps every change, and other changes of the node stay listed.
#[test]
fn a_re_saved_pose_is_one_line_unless_asked() {
    let scene = |pose: &str, extra: &str| {
        format!("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Skeleton3D\" type=\"Skeleton3D\" parent=\".\"]\nbones/0/rotation = Quaternion(0, 0, 0, {pose})\nbones/1/rotation = Quaternion(0, 0, 0, {pose})\nbones/1/position = Vector3(0, {pose}, 0)\nbones/2/scale = Vector3(1, 1, 1)\n{extra}")
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.tscn"), dir.path().join("b.tscn"));
    std::fs::write(&a, scene("1", "")).unwrap();
    std::fs::write(&b, scene("0.5", "motion_scale = 2.0\n")).unwrap();
    let text = stdout(&run(Command::new(bin()).arg("diff").arg(&a).arg(&b)));
    assert!(
        text.contains("~ Skeleton3D pose re-saved, 2 bones\n"),
        "{text}"
    );
    assert!(text.contains("+ motion_scale = 2.0"), "{text}");
    assert!(!text.contains("bones/"), "{text}");
    let md = stdout(&run(Command::new(bin())
        .args(["diff", "--format", "markdown"])
        .arg(&a)
        .arg(&b)));
    assert!(
        md.contains("Skeleton3D pose re-saved, 2 bones") && !md.contains("bones/"),
        "{md}"
    );
    let all = stdout(&run(Command::new(bin())
        .args(["diff", "--show-state"])
        .arg(&a)
        .arg(&b)));
    assert_eq!(all.matches("bones/").count(), 3, "{all}");
    let json = stdout(&run(Command::new(bin())
        .args(["diff", "--format", "json"])
        .arg(&a)
        .arg(&b)));
    assert_eq!(json.matches("\"key\": \"bones/").count(), 3, "{json}");
}
