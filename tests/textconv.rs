//! textconv as git uses it: the file's own ids kept, one output line per input line (on
//! every corpus file), and `git blame` / `git log -p` / `git log -S` through the driver
//! in a real repository.

mod common;

use common::{stdout, TempRepo};
use gdscene::model::id_text;
use gdscene::syntax::Document;
use gdscene::textconv::textconv;
use std::path::{Path, PathBuf};

const SCENE: &str = r#"[gd_scene load_steps=3 format=3 uid="uid://b1"]

[ext_resource type="Script" path="res://player.gd" id="1_abcde"]

[sub_resource type="RectangleShape2D" id="RectangleShape2D_sfy7j"]
size = Vector2(20, 10)

[node name="Player" type="CharacterBody2D" unique_id=11]
script = ExtResource("1_abcde")
speed = 10
jump = 4.5

[node name="Shape" type="CollisionShape2D" parent="." unique_id=12]
shape = SubResource("RectangleShape2D_sfy7j")
"#;

fn project(text: &str) -> String {
    textconv(&Document::parse(text.as_bytes()).expect("parses"))
}

/// Every `SubResource(...)` argument in `text`, as the loader reads the id.
fn sub_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("SubResource(") {
        rest = &rest[at + "SubResource(".len()..];
        let end = rest.find(')').unwrap_or(rest.len());
        out.push(id_text(&rest[..end]));
    }
    out
}

#[test]
fn keeps_the_files_own_sub_resource_ids() {
    let t = project(SCENE);
    assert!(
        t.contains("[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_sfy7j\"]\n"),
        "{t}"
    );
    assert!(
        t.contains("shape = SubResource(\"RectangleShape2D_sfy7j\")\n"),
        "{t}"
    );
    assert!(t.contains("script = ExtResource(res://player.gd)\n"), "{t}");
    assert_eq!(sub_refs(&t), sub_refs(SCENE));
}

/// Where the projection of `text` breaks the line-for-line promise, if anywhere: each
/// tag and each property starts the same line it started in the input, with the same
/// text before it (indentation, key, `=`).
fn line_mismatch(text: &str) -> Option<String> {
    let doc = Document::parse(text.as_bytes()).ok()?;
    let out = textconv(&doc);
    let lines: Vec<&str> = out.split('\n').collect();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    if lines.len() != starts.len() {
        return Some(format!("{} lines in, {} out", starts.len(), lines.len()));
    }
    // The line holding `offset`, and the input's text from that line's start to `end`.
    let locate = |offset: usize, end: usize| {
        let line = starts.partition_point(|&s| s <= offset) - 1;
        (line, &text[starts[line]..end])
    };
    for s in &doc.sections {
        let (at, _) = locate(s.tag.span.start(), s.tag.span.start());
        let tag = format!("[{}", s.tag.name);
        if !lines[at].trim_start_matches('\u{feff}').starts_with(&tag) {
            return Some(format!("line {}: {tag}... became {}", at + 1, lines[at]));
        }
        for p in &s.props {
            let (at, before) = locate(p.line.start(), p.value.start());
            if !lines[at].starts_with(before) {
                return Some(format!("line {}: {before} became {}", at + 1, lines[at]));
            }
        }
    }
    if sub_refs(&out) != sub_refs(text) {
        return Some("SubResource ids changed".into());
    }
    None
}

#[test]
fn one_line_per_input_line_on_the_example() {
    assert_eq!(line_mismatch(SCENE), None);
    assert_eq!(project(SCENE).lines().count(), SCENE.lines().count());
}

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).expect("INDEX.tsv");
    let mut lines = index.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = head.iter().position(|h| *h == "stored_as").expect("column");
    lines
        .filter_map(|l| l.split('\t').nth(col))
        .map(|s| root.join("corpus").join(s))
        .collect()
}

#[test]
fn corpus_keeps_every_line_and_every_sub_resource_id() {
    let Some(root) = common::shared_dir().filter(|p| p.join("corpus/INDEX.tsv").exists()) else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let files = corpus_files(&root);
    assert!(files.len() > 9000, "only {} files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if let Some(why) = line_mismatch(&text) {
            bad.push(format!("{}: {why}", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "{} files: {:#?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
}

/// A repository with the drivers installed from the built binary.
fn repo_with_drivers() -> TempRepo {
    let t = TempRepo::new();
    let o = t.run_bin(["install", "--diff"]);
    common::assert_success(&o, "install --diff");
    t
}

#[test]
fn git_blame_through_textconv_keeps_each_line_with_its_commit() {
    let t = repo_with_drivers();
    t.write("player.tscn", SCENE);
    let first = t.commit_all("add player");
    // A resave (load_steps dropped, ids renumbered, floats respelled) plus one change.
    let second_text = SCENE
        .replace("load_steps=3 ", "")
        .replace("1_abcde", "1_xyzzy")
        .replace("unique_id=11", "unique_id=99")
        .replace("jump = 4.5", "jump = 4.50000001")
        .replace("speed = 10", "speed = 12");
    t.write("player.tscn", &second_text);
    let second = t.commit_all("faster");
    let blame = t.git_ok(["blame", "--textconv", "--root", "-l", "-s", "player.tscn"]);
    let lines: Vec<&str> = blame.lines().collect();
    assert_eq!(lines.len(), second_text.lines().count(), "{blame}");
    for l in &lines {
        let owner = if l.contains("speed = 12") {
            &second
        } else {
            &first
        };
        assert!(l.starts_with(owner.as_str()), "{l}\n{blame}");
    }
}

#[test]
fn git_log_shows_only_real_changes_and_finds_ids() {
    let t = repo_with_drivers();
    t.write("player.tscn", SCENE);
    t.commit_all("add player");
    t.write(
        "player.tscn",
        SCENE
            .replace("load_steps=3 ", "")
            .replace("1_abcde", "1_xyzzy")
            .replace("speed = 10", "speed = 12"),
    );
    t.commit_all("faster");
    let log = t.git_ok(["log", "-p", "-1", "--format="]);
    let changed: Vec<&str> = log
        .lines()
        .filter(|l| (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("---"))
        .filter(|l| !l.starts_with("+++"))
        .collect();
    assert_eq!(changed, ["-speed = 10", "+speed = 12"], "{log}");
    // The id is in the file, so a search for it finds the commit that added it.
    let found = t.git_ok(["log", "-S", "RectangleShape2D_sfy7j", "--format=%s"]);
    assert_eq!(found.trim(), "add player");
    let found = t.git_ok(["log", "-S", "speed = 12", "--format=%s"]);
    assert_eq!(found.trim(), "faster");
}

#[test]
fn a_file_that_does_not_parse_is_shown_as_is() {
    let t = TempRepo::new();
    t.write("broken.tscn", "[gd_scene format=3]\nx = (\n");
    let o = t.run_bin(["textconv", "broken.tscn"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "[gd_scene format=3]\nx = (\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("shown as is"));
}

#[test]
fn started_as_tscn_merge_textconv_every_argument_is_a_file() {
    let t = TempRepo::new();
    let link = t.scratch().join("tscn-merge-textconv");
    std::os::unix::fs::symlink(common::bin(), &link).expect("symlink");
    t.write("-x.tscn", SCENE);
    t.write("--help", SCENE);
    for name in ["-x.tscn", "--help"] {
        let o = t.command(&link).arg(name).output().expect("run");
        assert_eq!(o.status.code(), Some(0), "{name}: {}", common::stderr(&o));
        assert_eq!(stdout(&o), project(SCENE), "{name}");
    }
    // `textconv -- FILE` (the command through the shell) reads the same.
    let o = t.run_bin(["textconv", "--", "-x.tscn"]);
    assert_eq!(stdout(&o), project(SCENE));
    let none = t.command(&link).output().expect("run");
    assert_eq!(none.status.code(), Some(2));
    assert!(common::stderr(&none).contains("takes the file"));
    let missing = t.command(&link).arg("-nope.tscn").output().expect("run");
    assert_eq!(missing.status.code(), Some(2));
    assert!(common::stderr(&missing).contains("-nope.tscn"));
}
