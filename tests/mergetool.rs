//! `tscn-merge mergetool` end to end: `git mergetool -t tscn-merge` on a real conflict,
//! the page driven in headless Chromium by Playwright (tests/browser), Save and Cancel;
//! the server's refusals over a plain TCP stream; and `review --format html` rendered
//! in Chromium. The browser tests skip (saying why) when Chromium or
//! tests/browser/node_modules is missing; `.ci/run` installs both.
//!
//! Screenshots go to a scratch folder, or to docs/img/ with `TSCN_MERGE_SCREENSHOTS=1`.
//! Every result a test saves is read through [`saved`], which keeps a copy at
//! `$TSCN_MERGETOOL_SAVES/<test>/<file>` when that is set: tests/engine.rs runs these
//! tests so and loads each copy in the real Godot 4.6 engine.
//! `TSCN_MERGE_TEST_BIN` runs the mergetool of another build (to see a test fail on the
//! build before a fix); by default the one cargo built.

#[path = "common/browser.rs"]
mod browser;
mod common;

use common::TempRepo;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BASE: &str = "[gd_scene load_steps=2 format=3]\n\n\
[ext_resource type=\"Texture2D\" path=\"res://icon.png\" id=\"1_a\"]\n\n\
[node name=\"Level\" type=\"Node2D\"]\n\n\
[node name=\"Player\" type=\"Sprite2D\" parent=\".\"]\n\
position = Vector2(10, 20)\nmodulate = Color(1, 1, 1, 1)\ntexture = ExtResource(\"1_a\")\n\n\
[node name=\"Door\" type=\"Node2D\" parent=\".\"]\nrotation = 0.5\n";

/// `BASE` with the three values of both conflicts set to `pos`, `color`, `rot`.
fn side(pos: &str, color: &str, rot: &str) -> String {
    BASE.replace("Vector2(10, 20)", pos)
        .replace("Color(1, 1, 1, 1)", color)
        .replace("rotation = 0.5", &format!("rotation = {rot}"))
}

/// The binary whose mergetool is tested: `TSCN_MERGE_TEST_BIN`, else the one cargo built.
fn tool() -> PathBuf {
    std::env::var_os("TSCN_MERGE_TEST_BIN").map_or_else(common::bin, PathBuf::from)
}

macro_rules! browser_or_skip {
    () => {
        match browser::browser() {
            Ok(d) => d,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        }
    };
}

/// Where a screenshot goes.
fn shot(repo: &TempRepo, name: &str) -> PathBuf {
    browser::shot(&repo.scratch(), name)
}

/// A repository whose `git merge` left `level.tscn` conflicted, with the mergetool set up.
fn conflicted() -> TempRepo {
    let repo = TempRepo::new();
    repo.write("level.tscn", BASE);
    repo.commit_all("base");
    repo.checkout_new("theirs");
    repo.write(
        "level.tscn",
        side("Vector2(30, 40)", "Color(0, 0, 1, 1)", "2.0"),
    );
    repo.commit_all("theirs");
    repo.checkout("main");
    repo.write(
        "level.tscn",
        side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "1.0"),
    );
    repo.commit_all("ours");
    assert!(
        !repo.merge("theirs").status.success(),
        "the merge conflicts"
    );
    set_up_mergetool(&repo);
    repo
}

/// `git mergetool -t tscn-merge` runs this build's mergetool without a browser.
fn set_up_mergetool(repo: &TempRepo) {
    let cmd = format!(
        "'{}' mergetool --no-browser --idle 60 --timeout 300 --git \"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\"",
        tool().display()
    );
    repo.git_ok(["config", "mergetool.tscn-merge.cmd", &cmd]);
    repo.git_ok(["config", "mergetool.tscn-merge.trustExitCode", "true"]);
    repo.git_ok(["config", "mergetool.keepBackup", "false"]);
}

/// Start a process whose stderr announces the page; its address and the process.
fn started(mut cmd: Command) -> (Child, String, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let err = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = String::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(l) => {
                if let Some(at) = l.find("http://127.0.0.1:") {
                    let url = l[at..].split_whitespace().next().unwrap_or_default();
                    return (child, url.to_string(), rx);
                }
                seen.push_str(&l);
                seen.push('\n');
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no address announced; stderr so far:\n{seen}");
            }
        }
    }
}

fn git_mergetool(repo: &TempRepo) -> (Child, String, mpsc::Receiver<String>) {
    git_mergetool_on(repo, "level.tscn")
}

fn git_mergetool_on(repo: &TempRepo, file: &str) -> (Child, String, mpsc::Receiver<String>) {
    let mut cmd = repo.command("git");
    cmd.args(["mergetool", "-t", "tscn-merge", "--no-prompt", file]);
    started(cmd)
}

/// Run a Playwright script; its JSON line.
fn node(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new("node")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{e}: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["ok"], true, "{v}");
    v
}

fn finished(mut child: Child, rx: mpsc::Receiver<String>) -> (i32, String) {
    let code = child.wait().expect("wait").code().unwrap_or(-1);
    let rest: Vec<String> = rx.try_iter().collect();
    (code, rest.join("\n"))
}

/// The bytes the mergetool saved at `path`; with `TSCN_MERGETOOL_SAVES` set, a copy
/// kept at `$TSCN_MERGETOOL_SAVES/<test>/<file name>` for the engine (tests/engine.rs).
fn saved(test: &str, path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("the saved file");
    if let Some(root) = std::env::var_os("TSCN_MERGETOOL_SAVES") {
        let dir = PathBuf::from(root).join(test);
        std::fs::create_dir_all(&dir).expect("a folder for the saved copy");
        let name = path.file_name().expect("a file name");
        std::fs::write(dir.join(name), &bytes).expect("a copy of the saved result");
    }
    bytes
}

fn unmerged(repo: &TempRepo) -> String {
    repo.git_ok(["diff", "--name-only", "--diff-filter=U"])
}

#[test]
fn git_mergetool_saves_the_choices_made_in_the_browser() {
    let dir = browser_or_skip!();
    let repo = conflicted();
    let (child, url, rx) = git_mergetool(&repo);
    let png = shot(&repo, "mergetool.png");
    let v = node(
        &dir,
        &["mergetool.mjs", "resolve", &url, &png.to_string_lossy()],
    );
    assert!(
        v["status"].as_str().unwrap_or_default().contains("valid"),
        "{v}"
    );
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "git mergetool: {err}");
    assert_eq!(unmerged(&repo), "", "git still sees a conflict");
    let text = saved("browser_choices", &repo.abs("level.tscn"));
    let text = String::from_utf8(text).expect("utf-8");
    for want in [
        "position = Vector2(11, 21)",
        "modulate = Color(1, 0, 0, 1)",
        "rotation = 2.0",
    ] {
        assert!(text.contains(want), "no {want} in\n{text}");
    }
    assert!(
        !text.contains("<<<<<<<") && !text.contains("Vector2(30, 40)"),
        "{text}"
    );
    let check = repo.run_bin(["check", "level.tscn"]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stderr(&check));
    assert!(png.is_file());
}

#[test]
fn the_keyboard_alone_resolves_and_saves() {
    let dir = browser_or_skip!();
    let repo = conflicted();
    let (child, url, rx) = git_mergetool(&repo);
    node(&dir, &["mergetool.mjs", "keys", &url]);
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "git mergetool: {err}");
    let text = String::from_utf8(saved("keyboard", &repo.abs("level.tscn"))).expect("utf-8");
    assert!(text.contains("position = Vector2(11, 21)") && text.contains("rotation = 2.0"));
    assert_eq!(unmerged(&repo), "");
}

#[test]
fn cancel_leaves_the_file_byte_identical_and_unresolved() {
    let dir = browser_or_skip!();
    let repo = conflicted();
    let before = repo.read("level.tscn");
    let (child, url, rx) = git_mergetool(&repo);
    node(&dir, &["mergetool.mjs", "cancel", &url]);
    let (code, err) = finished(child, rx);
    assert_ne!(code, 0, "git mergetool: {err}");
    assert_eq!(repo.read("level.tscn"), before);
    assert_eq!(unmerged(&repo).trim(), "level.tscn");
}

#[test]
fn a_choice_that_breaks_the_scene_shows_the_reason_and_cannot_be_saved() {
    let dir = browser_or_skip!();
    let repo = conflicted();
    let before = repo.read("level.tscn");
    let (child, url, rx) = git_mergetool(&repo);
    let png = shot(&repo, "mergetool-broken.png");
    let v = node(
        &dir,
        &["mergetool.mjs", "broken", &url, &png.to_string_lossy()],
    );
    let status = v["status"].as_str().unwrap_or_default();
    assert!(status.contains("does not parse"), "{v}");
    assert!(status.contains("closing bracket"), "{v}");
    assert!(status.contains("in conflict 2"), "{v}");
    assert_eq!(v["marked"], true, "{v}");
    assert_eq!(v["save_disabled"], true, "{v}");
    let (code, _) = finished(child, rx);
    assert_ne!(code, 0);
    assert_eq!(repo.read("level.tscn"), before);
}

/// One raw HTTP request; the status code of the answer.
fn status_of(port: &str, request: &str) -> u16 {
    let mut s = TcpStream::connect(format!("127.0.0.1:{port}")).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).ok();
    s.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"))
}

#[test]
fn requests_without_the_token_or_from_another_origin_are_refused() {
    let repo = TempRepo::new();
    let dir = repo.scratch();
    let files: Vec<PathBuf> = ["base", "ours", "theirs", "merged"]
        .iter()
        .map(|n| dir.join(format!("{n}.tscn")))
        .collect();
    let ours = side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "1.0");
    for (f, text) in files.iter().zip([
        BASE.to_string(),
        ours.clone(),
        side("Vector2(30, 40)", "Color(0, 0, 1, 1)", "2.0"),
        "conflicted\n".to_string(),
    ]) {
        std::fs::write(f, text).expect("write");
    }
    let mut cmd = Command::new(tool());
    cmd.args(["mergetool", "--no-browser", "--git"])
        .args(&files);
    let (child, url, rx) = started(cmd);
    let rest = url.trim_start_matches("http://127.0.0.1:");
    let (port, path) = rest.split_once('/').expect("port/token/");
    let token = path.trim_end_matches('/');
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let get = |path: &str, extra: &str| {
        status_of(port, &format!("GET {path} HTTP/1.1\r\n{host}{extra}\r\n"))
    };
    assert_eq!(get("/", ""), 403);
    assert_eq!(get("/api/state", ""), 403);
    assert_eq!(get(&format!("/{}x/api/state", token), ""), 403);
    assert_eq!(
        get(
            &format!("/{token}/api/state"),
            "Origin: http://evil.example\r\n"
        ),
        403
    );
    let wrong_host = format!("GET /{token}/api/state HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n");
    assert_eq!(status_of(port, &wrong_host), 403);
    let own = format!("Origin: http://127.0.0.1:{port}\r\n");
    assert_eq!(get(&format!("/{token}/api/state"), &own), 200);
    assert_eq!(get(&format!("/{token}/"), ""), 200);
    assert_eq!(get(&format!("/{token}/../etc/passwd"), ""), 404);
    let body = r#"{"choices":[{"side":"ours"},{"side":"ours"}]}"#;
    let save = format!(
        "POST /{token}/api/save HTTP/1.1\r\n{host}Origin: http://evil.example\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(status_of(port, &save), 403);
    let cancel =
        format!("POST /{token}/api/cancel HTTP/1.1\r\n{host}{own}Content-Length: 0\r\n\r\n");
    assert_eq!(status_of(port, &cancel), 200);
    let (code, _) = finished(child, rx);
    assert_eq!(code, 1);
    assert_eq!(
        std::fs::read_to_string(&files[3]).expect("read"),
        "conflicted\n"
    );
}

/// Cell `(x, y)` as the packed coordinate int of a Godot 4 tile array.
fn at(x: i32, y: i32) -> i64 {
    ((((y as u16 as u32) << 16) | (x as u16 as u32)) as i32) as i64
}

/// A level with a tile map holding `cells` (x, y, tile) and an animation of `keys`.
fn level(cells: &[(i32, i32, i64)], times: &str, values: &str) -> String {
    let data: Vec<String> = cells
        .iter()
        .map(|(x, y, t)| format!("{}, {t}, 0", at(*x, *y)))
        .collect();
    let n = times.split(',').count();
    format!(
        "[gd_scene load_steps=3 format=3]\n\n\
         [sub_resource type=\"Animation\" id=\"Animation_walk1\"]\nresource_name = \"walk\"\n\
         length = 1.0\ntracks/0/type = \"value\"\ntracks/0/imported = false\n\
         tracks/0/enabled = true\ntracks/0/path = NodePath(\"Player:position\")\n\
         tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/keys = {{\n\
         \"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({}),\n\
         \"update\": 0,\n\"values\": [{values}]\n}}\n\n\
         [sub_resource type=\"AnimationLibrary\" id=\"AnimationLibrary_lib01\"]\n\
         _data = {{\n&\"walk\": SubResource(\"Animation_walk1\")\n}}\n\n\
         [node name=\"Level\" type=\"Node2D\"]\n\n\
         [node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\nformat = 2\n\
         layer_0/tile_data = PackedInt32Array({})\n\n\
         [node name=\"Player\" type=\"Sprite2D\" parent=\".\"]\n\n\
         [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]\n\
         libraries = {{\n&\"\": SubResource(\"AnimationLibrary_lib01\")\n}}\n",
        vec!["1"; n].join(", "),
        data.join(", ")
    )
}

#[test]
fn review_html_of_a_tile_map_and_animation_change_renders_in_chromium() {
    let repo = TempRepo::new();
    let old: Vec<(i32, i32, i64)> = (0..8)
        .flat_map(|x| (0..3).map(move |y| (x, y, 1)))
        .collect();
    let mut new: Vec<(i32, i32, i64)> = old
        .iter()
        .filter(|&&(x, y, _)| (x, y) != (7, 2) && (x, y) != (6, 2))
        .map(|&(x, y, t)| (x, y, if y == 1 && (2..5).contains(&x) { 7 } else { t }))
        .collect();
    new.extend((0..8).map(|x| (x, 3, 2)));
    repo.write(
        "level.tscn",
        level(&old, "0, 0.5", "Vector2(0, 0), Vector2(0, -10)"),
    );
    repo.commit_all("old");
    repo.write(
        "level.tscn",
        level(
            &new,
            "0, 0.5, 0.8",
            "Vector2(0, 0), Vector2(0, -12), Vector2(4, 4)",
        ),
    );
    repo.commit_all("new");
    let out = repo.run_bin(["review", "--format", "html", "HEAD~1..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let html = common::stdout(&out);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg class=\"cells\""), "{html}");
    assert!(html.contains("<svg class=\"timeline\""), "{html}");
    assert!(
        !html.contains("<script") && !html.contains("https://"),
        "{html}"
    );
    let dir = browser_or_skip!();
    let page = repo.scratch().join("review.html");
    std::fs::write(&page, &html).expect("write");
    let png = shot(&repo, "review-html.png");
    let v = node(
        &dir,
        &[
            "review.mjs",
            &page.to_string_lossy(),
            &png.to_string_lossy(),
        ],
    );
    assert_eq!(v["cells"]["painted"], 8, "{v}");
    assert_eq!(v["cells"]["erased"], 2, "{v}");
    assert_eq!(v["cells"]["changed"], 3, "{v}");
    assert_eq!(v["keys"], 2, "{v}");
    assert!(
        v["picture_box"]["width"].as_f64().unwrap_or(0.0) > 50.0,
        "{v}"
    );
    assert_eq!(v["scripts"], 0);
}

/// A repository whose `git merge feature` left `file` conflicted (through the driver
/// when `driver`), with the mergetool set up.
fn conflicted_file(file: &str, base: &str, ours: &str, theirs: &str, driver: bool) -> TempRepo {
    let repo = TempRepo::new();
    if driver {
        common::assert_success(&repo.run_bin(["install"]), "install");
        let attrs =
            String::from_utf8(repo.try_read(".gitattributes").unwrap_or_default()).expect("utf-8");
        repo.write(
            ".gitattributes",
            format!("{attrs}{file} merge=tscn-merge\n"),
        );
    }
    repo.write(file, base);
    repo.commit_all("base");
    repo.checkout_new("feature");
    repo.write(file, theirs);
    repo.commit_all("theirs");
    repo.checkout("main");
    repo.write(file, ours);
    repo.commit_all("ours");
    assert!(
        !repo.merge("feature").status.success(),
        "the merge conflicts"
    );
    set_up_mergetool(&repo);
    repo
}

const PROJECT: &str = "; Engine configuration file.\nconfig_version=5\n\n[application]\n\n\
config/name=\"Game\"\nrun/main_scene=\"res://main.tscn\"\n\
config/features=PackedStringArray(\"4.3\", \"Forward Plus\")\n\n[display]\n\n\
window/size/viewport_width=1280\nwindow/size/viewport_height=720\n";

/// project.godot with ours' and theirs' edits: both change the name and the width
/// (conflicts), ours adds an autoload and theirs changes the height (clean).
fn projects() -> (String, String) {
    let ours = PROJECT
        .replace("\"Game\"", "\"Game (ours)\"")
        .replace("1280", "1920")
        .replace("[display]", "[autoload]\n\nA=\"*res://a.gd\"\n\n[display]");
    let theirs = PROJECT
        .replace("\"Game\"", "\"Game (theirs)\"")
        .replace("1280", "1600")
        .replace("720", "900");
    (ours, theirs)
}

#[test]
fn git_mergetool_saves_a_project_godot_conflict_by_the_config_rules() {
    let dir = browser_or_skip!();
    let (ours, theirs) = projects();
    let repo = conflicted_file("project.godot", PROJECT, &ours, &theirs, true);
    let (child, url, rx) = git_mergetool_on(&repo, "project.godot");
    let png = shot(&repo, "mergetool-config.png");
    let v = node(
        &dir,
        &["mergetool.mjs", "config", &url, &png.to_string_lossy()],
    );
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "git mergetool: {err}\n{v}");
    assert_eq!(v["outline"], "Sections", "{v}");
    // A ConfigFile has no picture: no Pictures panel.
    assert_eq!(v["pictures"], false, "{v}");
    assert!(
        v["status"].as_str().unwrap_or_default().contains("valid"),
        "{v}"
    );
    // A key table per conflict, and the keys in the outline.
    assert_eq!(
        v["keys"],
        serde_json::json!([["config/name"], ["window/size/viewport_width"]]),
        "{v}"
    );
    let tree = v["tree"].to_string();
    assert!(
        tree.contains("[application]") && tree.contains("config/name"),
        "{v}"
    );
    // Ours for the name, theirs for the width; the clean changes of both sides kept, as
    // the config merge keeps them.
    let want = PROJECT
        .replace("\"Game\"", "\"Game (ours)\"")
        .replace("1280", "1600")
        .replace("720", "900")
        .replace("[display]", "[autoload]\n\nA=\"*res://a.gd\"\n\n[display]");
    assert_eq!(
        String::from_utf8(saved("project_godot", &repo.abs("project.godot"))).expect("utf-8"),
        want
    );
    assert_eq!(unmerged(&repo), "");
    let check = repo.run_bin(["check", "project.godot"]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stderr(&check));
}

/// A raw request with a body; the status and the body of the answer.
fn http(port: &str, token: &str, method: &str, route: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(format!("127.0.0.1:{port}")).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let req = format!(
        "{method} /{token}/{route} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok());
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string());
    (code.unwrap_or(0), body.unwrap_or_default())
}

/// Port and token of a page address.
fn port_token(url: &str) -> (String, String) {
    let rest = url.trim_start_matches("http://127.0.0.1:");
    let (port, path) = rest.split_once('/').expect("port/token/");
    (port.to_string(), path.trim_end_matches('/').to_string())
}

/// `mergetool --git` on files written to a scratch folder (`merged` may sit in a
/// subfolder); the process, its address, the merged file's path.
fn mergetool_on_files(
    repo: &TempRepo,
    ext: &str,
    [base, ours, theirs, merged]: [&[u8]; 4],
    extra: &[&str],
) -> (Child, String, mpsc::Receiver<String>, PathBuf) {
    let dir = repo.scratch();
    let files: Vec<PathBuf> = ["base", "ours", "theirs", "out/merged"]
        .iter()
        .map(|n| dir.join(format!("{n}.{ext}")))
        .collect();
    std::fs::create_dir_all(dir.join("out")).expect("mkdir");
    for (f, text) in files.iter().zip([base, ours, theirs, merged]) {
        std::fs::write(f, text).expect("write");
    }
    let mut cmd = Command::new(tool());
    cmd.current_dir(&dir)
        .args(["mergetool", "--git"])
        .args(extra)
        .args(&files);
    let (child, url, rx) = started(cmd);
    (child, url, rx, files[3].clone())
}

#[test]
fn a_config_conflict_is_checked_as_a_config_file_and_saved_with_its_clean_changes() {
    let repo = TempRepo::new();
    let (ours, theirs) = projects();
    let sides = [
        PROJECT.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        b"x\n",
    ];
    let (child, url, rx, merged) = mergetool_on_files(&repo, "godot", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    let (code, state) = http(&port, &token, "GET", "api/state", "");
    assert_eq!(code, 200);
    let state: serde_json::Value = serde_json::from_str(&state).expect("json");
    assert_eq!(state["kind"], "config", "{state}");
    assert_eq!(
        state["conflicts"].as_array().map(Vec::len),
        Some(2),
        "{state}"
    );
    assert_eq!(
        state["conflicts"][0]["rows"][0]["key"], "config/name",
        "{state}"
    );
    let both = r#"{"choices":[{"side":"theirs"},{"side":"ours"}]}"#;
    let (code, verdict) = http(&port, &token, "POST", "api/check", both);
    assert_eq!(
        (code, verdict.contains("\"ok\":true")),
        (200, true),
        "{verdict}"
    );
    let (code, answer) = http(&port, &token, "POST", "api/save", both);
    assert_eq!(code, 200, "{answer}");
    let (code, _) = finished(child, rx);
    assert_eq!(code, 0);
    let want = PROJECT
        .replace("\"Game\"", "\"Game (theirs)\"")
        .replace("1280", "1920")
        .replace("720", "900")
        .replace("[display]", "[autoload]\n\nA=\"*res://a.gd\"\n\n[display]");
    let text = saved("config_api", &merged);
    assert_eq!(String::from_utf8(text).expect("utf-8"), want);
}

/// The animation of `level`, with the keys (times, values) of its one track.
fn animated(times: &str, values: &str) -> String {
    let n = times.split(',').count();
    format!(
        "[gd_scene load_steps=3 format=3]\n\n\
         [sub_resource type=\"Animation\" id=\"Animation_walk1\"]\nresource_name = \"walk\"\n\
         length = 1.0\ntracks/0/type = \"value\"\ntracks/0/imported = false\n\
         tracks/0/enabled = true\ntracks/0/path = NodePath(\"Sprite:position\")\n\
         tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/keys = {{\n\
         \"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({}),\n\
         \"update\": 0,\n\"values\": [{values}]\n}}\n\n\
         [sub_resource type=\"AnimationLibrary\" id=\"AnimationLibrary_lib01\"]\n\
         _data = {{\n&\"walk\": SubResource(\"Animation_walk1\")\n}}\n\n\
         [node name=\"Player\" type=\"Node2D\"]\n\n\
         [node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n\n\
         [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]\n\
         libraries = {{\n&\"\": SubResource(\"AnimationLibrary_lib01\")\n}}\n",
        vec!["1"; n].join(", ")
    )
}

#[test]
fn git_mergetool_shows_animation_keys_on_a_time_line_and_saves_them() {
    let dir = browser_or_skip!();
    let base = animated("0, 0.5", "Vector2(0, 0), Vector2(0, -10)");
    // Ours adds a key at 0.25, theirs one at 0.8; both move the key at 0.5.
    let ours = animated(
        "0, 0.25, 0.5",
        "Vector2(0, 0), Vector2(2, -5), Vector2(0, -12)",
    );
    let theirs = animated(
        "0, 0.5, 0.8",
        "Vector2(0, 0), Vector2(0, -14), Vector2(4, 4)",
    );
    let repo = conflicted_file("level.tscn", &base, &ours, &theirs, true);
    let (child, url, rx) = git_mergetool(&repo);
    let png = shot(&repo, "mergetool-keys.png");
    let v = node(
        &dir,
        &["mergetool.mjs", "animation", &url, &png.to_string_lossy()],
    );
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "git mergetool: {err}\n{v}");
    // A time line per side, each key at its time with the time written.
    assert_eq!(
        v["lines"],
        serde_json::json!(["Base", "Ours (main)", "Theirs (feature)"]),
        "{v}"
    );
    let dots = v["dots"].as_array().expect("dots");
    let at = |t: &str, class: &str| dots.iter().filter(|d| d[0] == t && d[1] == class).count();
    assert_eq!(
        (
            at("0.5", "changed"),
            at("0.25", "added"),
            at("0.8", "added")
        ),
        (2, 1, 1),
        "{v}"
    );
    assert_eq!(dots.len(), 2 + 3 + 3, "{v}");
    // The key table, sorted by time, with each side's value.
    assert_eq!(
        v["times"],
        serde_json::json!(["0", "0.25", "0.5", "0.8"]),
        "{v}"
    );
    let half = v["table"][3].to_string();
    assert!(
        half.contains("Vector2(0, -12)") && half.contains("Vector2(0, -14)"),
        "{v}"
    );
    // The AnimationPlayer is marked in the tree, until its conflicts are resolved.
    let tree = v["tree"].to_string();
    assert!(tree.contains("⚠ AnimationPlayer (AnimationPlayer)"), "{v}");
    assert!(
        tree.contains("conflict in its sub_resource Animation"),
        "{v}"
    );
    let after = v["tree_after"].to_string();
    assert!(
        after.contains("✓ AnimationPlayer") && !after.contains('⚠'),
        "{v}"
    );
    // Theirs everywhere is theirs, byte for byte, and valid.
    let text = saved("animation", &repo.abs("level.tscn"));
    assert_eq!(String::from_utf8(text).expect("utf-8"), theirs);
    assert_eq!(unmerged(&repo), "");
    let check = repo.run_bin(["check", "level.tscn"]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stderr(&check));
}

const ROOTED: &str = "[gd_scene format=3]\n\n[node name=\"Player\" type=\"CharacterBody2D\"]\n\
modulate = Color(1, 1, 1, 1)\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n\
position = Vector2(0, 0)\n";

#[test]
fn sides_carry_branch_names_the_root_its_name_and_marks_clear_once_resolved() {
    let dir = browser_or_skip!();
    let side = |c: &str, p: &str| {
        ROOTED
            .replace("Color(1, 1, 1, 1)", c)
            .replace("Vector2(0, 0)", p)
    };
    let ours = side("Color(1, 0, 0, 1)", "Vector2(1, 1)");
    let theirs = side("Color(0, 0, 1, 1)", "Vector2(2, 2)");
    let repo = conflicted_file("level.tscn", ROOTED, &ours, &theirs, false);
    let (child, url, rx) = git_mergetool(&repo);
    let v = node(&dir, &["mergetool.mjs", "names", &url]);
    let (code, _) = finished(child, rx);
    assert_ne!(code, 0, "cancelled");
    let headings = v["headings"].to_string();
    assert!(
        headings.contains("node \\\"Player\\\"") && !headings.contains("node \\\".\\\""),
        "{v}"
    );
    assert_eq!(
        v["columns"],
        serde_json::json!(["Property", "Base", "Ours (main)", "Theirs (feature)"]),
        "{v}"
    );
    assert!(v["buttons"].to_string().contains("Use ours (main)"), "{v}");
    let tree = v["tree"].to_string();
    assert!(
        tree.contains("⚠ Player (CharacterBody2D)") && !tree.contains("(root)"),
        "{v}"
    );
    let after = v["tree_after"].to_string();
    assert!(
        after.contains("✓ Player") && after.contains("✓ Sprite") && !after.contains('⚠'),
        "{v}"
    );
    // Cancelled is no success: not in the "ok" green.
    assert_ne!(v["cancel_class"], "ok", "{v}");
    assert_ne!(v["cancel_colour"], "rgb(218, 251, 225)", "{v}");
}

#[test]
fn save_answers_after_the_write_and_a_failed_write_keeps_the_choices() {
    let dir = browser_or_skip!();
    let repo = TempRepo::new();
    let ours = side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(30, 40)", "Color(0, 0, 1, 1)", "2.0");
    let sides = [BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes(), b"x\n"];
    let extra = ["--no-browser", "--idle", "60", "--timeout", "300"];
    let (child, url, rx, merged) = mergetool_on_files(&repo, "tscn", sides, &extra);
    let folder = merged
        .parent()
        .expect("folder")
        .to_string_lossy()
        .into_owned();
    let v = node(&dir, &["mergetool.mjs", "failsave", &url, &folder]);
    let status = v["status"].as_str().unwrap_or_default();
    assert!(
        status.contains("Not saved") && status.contains("choices are kept"),
        "{v}"
    );
    assert!(status.contains("cannot"), "the reason: {v}");
    assert_eq!(
        (v["save_disabled"].clone(), v["pressed"].clone()),
        (false.into(), 2.into()),
        "{v}"
    );
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "{err}");
    let text = saved("failed_write_retried", &merged);
    assert_eq!(String::from_utf8(text).expect("utf-8"), ours);
}

/// Whether the server closes a connection that sends a byte every `every`, and when.
fn cut_off_after(port: &str, every: Duration, within: Duration) -> Option<Duration> {
    let mut s = TcpStream::connect(format!("127.0.0.1:{port}")).expect("connect");
    s.set_read_timeout(Some(every)).ok();
    let start = std::time::Instant::now();
    let request = b"GET /nothing-yet HTTP/1.1\r\n";
    let mut buf = [0u8; 512];
    for i in 0.. {
        if start.elapsed() > within {
            return None;
        }
        if s.write_all(&request[i % request.len()..][..1]).is_err() {
            return Some(start.elapsed());
        }
        match s.read(&mut buf) {
            Ok(_) => return Some(start.elapsed()),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return Some(start.elapsed()),
        }
    }
    None
}

#[test]
fn slow_clients_cannot_lock_the_page_out_and_each_request_has_one_deadline() {
    let repo = TempRepo::new();
    let ours = side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(30, 40)", "Color(0, 0, 1, 1)", "2.0");
    let sides = [BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes(), b"x\n"];
    let (child, url, rx, _) = mergetool_on_files(&repo, "tscn", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    // 40 clients, no token, each sending a byte every two seconds.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut slow: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(format!("127.0.0.1:{port}")).expect("connect"))
        .collect();
    let trickle = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                for s in &mut slow {
                    let _ = s.write_all(b"G");
                }
                std::thread::sleep(Duration::from_secs(2));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let asked = std::time::Instant::now();
    let (code, _) = http(&port, &token, "GET", "api/state", "");
    assert_eq!(code, 200, "the page's request is answered");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    trickle.join().expect("trickle");
    // One deadline for the whole request: a byte a second does not stretch it.
    let cut = cut_off_after(&port, Duration::from_secs(1), Duration::from_secs(25));
    let cut = cut.expect("the server closed the slow request");
    assert!(
        cut >= Duration::from_secs(8) && cut <= Duration::from_secs(16),
        "{cut:?}"
    );
    assert_eq!(http(&port, &token, "POST", "api/cancel", "").0, 200);
    assert_eq!(finished(child, rx).0, 1);
}

#[test]
fn both_sides_adding_the_file_merge_with_the_drivers_empty_base_rule() {
    let repo = TempRepo::new();
    let root = "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n";
    let ours = format!(
        "{root}modulate = Color(1, 0, 0, 1)\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n"
    );
    let theirs = format!(
        "{root}modulate = Color(0, 0, 1, 1)\n\n[node name=\"B\" type=\"Sprite2D\" parent=\".\"]\n"
    );
    let sides = [&b""[..], ours.as_bytes(), theirs.as_bytes(), b"x\n"];
    let (child, url, rx, merged) = mergetool_on_files(&repo, "tscn", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    let (_, state) = http(&port, &token, "GET", "api/state", "");
    let state: serde_json::Value = serde_json::from_str(&state).expect("json");
    let conflicts = state["conflicts"].as_array().expect("conflicts");
    assert_eq!(conflicts.len(), 1, "one property hunk: {state}");
    assert_eq!(conflicts[0]["rows"][0]["key"], "modulate", "{state}");
    let (code, answer) = http(
        &port,
        &token,
        "POST",
        "api/save",
        r#"{"choices":[{"side":"ours"}]}"#,
    );
    assert_eq!(code, 200, "{answer}");
    assert_eq!(finished(child, rx).0, 0);
    let text = String::from_utf8(saved("both_added", &merged)).expect("utf-8");
    assert!(text.contains("modulate = Color(1, 0, 0, 1)"), "{text}");
    assert!(
        text.contains("[node name=\"A\"") && text.contains("[node name=\"B\""),
        "theirs' node kept:\n{text}"
    );
}

#[test]
fn crlf_files_keep_crlf_on_every_line() {
    let repo = TempRepo::new();
    let crlf = |t: &str| t.replace('\n', "\r\n");
    let ours = crlf(&side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "0.5"));
    let theirs = crlf(&side("Vector2(30, 40)", "Color(1, 1, 1, 1)", "2.0"));
    let base = crlf(BASE);
    let sides = [
        base.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        b"x\r\n",
    ];
    let (child, url, rx, merged) = mergetool_on_files(&repo, "tscn", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    let (_, state) = http(&port, &token, "GET", "api/state", "");
    let state: serde_json::Value = serde_json::from_str(&state).expect("json");
    let n = state["conflicts"].as_array().map_or(0, Vec::len);
    assert_eq!(n, 1, "{state}");
    let (code, answer) = http(
        &port,
        &token,
        "POST",
        "api/save",
        r#"{"choices":[{"side":"ours"}]}"#,
    );
    assert_eq!(code, 200, "{answer}");
    assert_eq!(finished(child, rx).0, 0);
    let text = saved("crlf", &merged);
    let bare = text
        .windows(2)
        .filter(|w| w[1] == b'\n' && w[0] != b'\r')
        .count();
    assert_eq!(
        bare + usize::from(text.first() == Some(&b'\n')),
        0,
        "{}",
        String::from_utf8_lossy(&text)
    );
    let want = crlf(&side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "2.0"));
    assert_eq!(String::from_utf8(text).expect("utf-8"), want);
}

#[cfg(unix)]
#[test]
fn the_token_never_reaches_a_command_line() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TempRepo::new();
    let dir = repo.scratch();
    let args = dir.join("browser-args");
    let script = dir.join("browser.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{0}.tmp' && mv '{0}.tmp' '{0}'\n",
            args.display()
        ),
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let ours = side("Vector2(11, 21)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(30, 40)", "Color(0, 0, 1, 1)", "2.0");
    let files: Vec<PathBuf> = ["base", "ours", "theirs", "merged"]
        .iter()
        .map(|n| dir.join(format!("{n}.tscn")))
        .collect();
    for (f, t) in files.iter().zip([BASE, &ours, &theirs, "x\n"]) {
        std::fs::write(f, t).expect("write");
    }
    let mut cmd = Command::new(tool());
    cmd.env("BROWSER", &script)
        .args(["mergetool", "--git"])
        .args(&files);
    let (child, url, rx) = started(cmd);
    let (port, token) = port_token(&url);
    let start = std::time::Instant::now();
    while !args.is_file() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let given = std::fs::read_to_string(&args).expect("the browser was started");
    assert!(
        !given.contains(&token),
        "the token on the browser's command line: {given}"
    );
    let address = given.lines().next().unwrap_or_default().to_string();
    let page = PathBuf::from(address.strip_prefix("file://").expect("a file address"));
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&page), 0o600, "{}", page.display());
    assert_eq!(mode(page.parent().expect("folder")), 0o700);
    assert!(std::fs::read_to_string(&page).expect("read").contains(&url));
    match browser::browser() {
        Ok(dir) => {
            let v = node(&dir, &["launch-page.mjs", &address]);
            assert!(
                v["url"].as_str().unwrap_or_default().starts_with(&url),
                "{v}"
            );
        }
        Err(why) => {
            eprintln!("skipped the browser part: {why}");
            assert_eq!(http(&port, &token, "POST", "api/cancel", "").0, 200);
        }
    }
    assert_eq!(finished(child, rx).0, 1);
    assert!(!page.exists(), "the launch page is removed at the end");
}

#[test]
fn a_scene_conflict_shows_ours_theirs_and_the_choices_drawn_side_by_side() {
    let dir = browser_or_skip!();
    // Each side moves the Player somewhere else: left and up, right and down.
    let ours = side("Vector2(-300, -200)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(400, 300)", "Color(0, 0, 1, 1)", "2.0");
    let repo = conflicted_file("level.tscn", BASE, &ours, &theirs, false);
    let (child, url, rx) = git_mergetool(&repo);
    let shot = shot(&repo, "mergetool-pictures.png");
    let shot = shot.to_str().expect("utf-8 path");
    let v = node(&dir, &["mergetool.mjs", "pictures", &url, shot, "Player"]);
    let (code, _) = finished(child, rx);
    assert_ne!(code, 0, "cancelled");
    assert_eq!(v["summary"], "Pictures", "{v}");
    assert_eq!(v["open"], true, "{v}");
    assert_eq!(
        v["captions"],
        serde_json::json!([
            "Ours (main)",
            "Theirs (feature)",
            "Your choices (2 open, drawn as ours)"
        ]),
        "{v}"
    );
    let pics = v["pictures"].as_array().expect("pictures");
    assert_eq!(pics.len(), 3, "three <svg> pictures: {v}");
    let labels: Vec<_> = pics.iter().map(|p| p["label"].as_str()).collect();
    assert_eq!(
        labels,
        [Some("ours"), Some("theirs"), Some("choices")],
        "{v}"
    );
    let at = |k: usize, i: usize| pics[k]["at"][i].as_f64().expect("the Player is drawn");
    // One shared view: ours' Player up and left of theirs'.
    assert!(
        at(0, 0) + 0.3 < at(1, 0) && at(0, 1) + 0.3 < at(1, 1),
        "{v}"
    );
    assert!(
        pics.iter().all(|p| p["w"].as_f64().unwrap_or(0.0) > 50.0),
        "{v}"
    );
    // Nothing chosen yet: the choices drawn as ours.
    assert!((at(2, 0) - at(0, 0)).abs() < 0.01 && (at(2, 1) - at(0, 1)).abs() < 0.01);
    // The conflicted nodes outlined on every picture.
    for p in pics {
        let marks = p["marks"].to_string();
        assert!(marks.contains("Player") && marks.contains("Door"), "{v}");
    }
    assert_eq!(
        (v["shown_closed"].as_bool(), v["shown_reopened"].as_bool()),
        (Some(false), Some(true)),
        "{v}"
    );
}

#[test]
fn the_picture_of_the_choices_follows_each_choice() {
    let dir = browser_or_skip!();
    let ours = side("Vector2(-300, -200)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(400, 300)", "Color(0, 0, 1, 1)", "2.0");
    let repo = conflicted_file("level.tscn", BASE, &ours, &theirs, false);
    let (child, url, rx) = git_mergetool(&repo);
    let shot = shot(&repo, "mergetool-choices.png");
    let shot = shot.to_str().expect("utf-8 path");
    let v = node(&dir, &["mergetool.mjs", "follow", &url, shot, "Player"]);
    let (code, err) = finished(child, rx);
    assert_eq!(code, 0, "saved: {err}\n{v}");
    // Where the Player stands in ours, theirs and the choices' picture, at a moment.
    let at = |when: &str, k: usize| -> (f64, f64) {
        let p = &v[when][k]["at"];
        let f = |i: usize| {
            p[i].as_f64()
                .unwrap_or_else(|| panic!("{when}: no Player in {k}: {v}"))
        };
        (f(0), f(1))
    };
    let near = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 0.01 && (a.1 - b.1).abs() < 0.01;
    let marks = |when: &str| v[when][2]["marks"].clone();
    // Nothing chosen: ours' Player, both conflicts outlined.
    assert!(near(at("before", 2), at("before", 0)), "{v}");
    assert!(!near(at("before", 0), at("before", 1)), "{v}");
    assert_eq!(
        marks("before"),
        serde_json::json!(["Door", "Player"]),
        "{v}"
    );
    // Theirs for the Player's conflict: the Player moves to theirs' place, only the
    // Door's conflict is still outlined, and the picture's pixels changed.
    assert!(near(at("one", 2), at("one", 1)), "{v}");
    assert_eq!(marks("one"), serde_json::json!(["Door"]), "{v}");
    assert_eq!(v["pixels_changed"], true, "{v}");
    assert_eq!(
        v["one"][2]["caption"],
        "Your choices (1 open, drawn as ours)"
    );
    // Both chosen: nothing outlined, the Player still where theirs has it.
    assert!(near(at("both", 2), at("both", 1)), "{v}");
    assert_eq!(marks("both"), serde_json::json!([]), "{v}");
    // Ours' and theirs' pictures stay as they were.
    assert!(near(at("both", 0), at("before", 0)) && near(at("both", 1), at("before", 1)));
    let text = saved("picture_follows_choices", &repo.abs("level.tscn"));
    let text = String::from_utf8(text).expect("utf-8");
    assert!(
        text.contains("Vector2(400, 300)") && text.contains("rotation = 1.0"),
        "{text}"
    );
}

/// The `transform` of the drawing of node `name` in an `<svg>` (not its outline).
fn drawn_at(svg: &str, name: &str) -> Option<String> {
    let at = svg.find(&format!("<g data-node=\"{name}\" transform=\""))?;
    let rest = &svg[at..];
    let start = rest.find("transform=\"")? + "transform=\"".len();
    Some(rest[start..][..rest[start..].find('"')?].to_string())
}

#[test]
fn the_picture_route_draws_the_choices_sent_and_none_for_a_config_file() {
    let repo = TempRepo::new();
    let ours = side("Vector2(-300, -200)", "Color(1, 0, 0, 1)", "1.0");
    let theirs = side("Vector2(400, 300)", "Color(0, 0, 1, 1)", "2.0");
    let sides = [BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes(), b"x\n"];
    let (child, url, rx, _) = mergetool_on_files(&repo, "tscn", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    let picture = |choices: &str| {
        let (code, body) = http(&port, &token, "POST", "api/picture", choices);
        assert_eq!(code, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).expect("json");
        let svg = |k: usize| {
            v["sides"][k]["svg"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        let player = |k: usize| drawn_at(&svg(k), "Player").expect("the Player drawn");
        (v["open"].clone(), [player(0), player(1), player(2)], svg(2))
    };
    let (open, at, svg) = picture(r#"{"choices":[null,null]}"#);
    assert_eq!(open, 2);
    let outlined = "data-mark=\"changed\" data-node=\"Player\"";
    assert!(svg.contains(outlined), "open: outlined: {svg}");
    assert_ne!(at[0], at[1], "ours and theirs move the Player apart");
    assert_eq!(at[2], at[0], "nothing chosen: drawn as ours");
    let (open, at, svg) = picture(r#"{"choices":[{"side":"theirs"},null]}"#);
    assert_eq!((open, &at[2]), (1.into(), &at[1]), "theirs' Player");
    assert!(
        !svg.contains("data-mark=\"changed\" data-node=\"Player\""),
        "{svg}"
    );
    assert!(
        svg.contains("data-node=\"Door\""),
        "the Door's conflict still open: {svg}"
    );
    let typed = r#"{"choices":[{"side":"typed","text":"position = Vector2(1,"},null]}"#;
    let (code, body) = http(&port, &token, "POST", "api/picture", typed);
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    assert_eq!((code, v["sides"][2].is_null()), (200, true), "{v}");
    assert_eq!(http(&port, &token, "POST", "api/picture", "{}").0, 400);
    assert_eq!(http(&port, &token, "GET", "api/picture", "").0, 405);
    assert_eq!(http(&port, &token, "POST", "api/cancel", "").0, 200);
    assert_eq!(finished(child, rx).0, 1);
    // A ConfigFile has no picture.
    let repo = TempRepo::new();
    let (ours, theirs) = projects();
    let sides = [
        PROJECT.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        b"x\n",
    ];
    let (child, url, rx, _) = mergetool_on_files(&repo, "godot", sides, &["--no-browser"]);
    let (port, token) = port_token(&url);
    let body = r#"{"choices":[null,null]}"#;
    assert_eq!(http(&port, &token, "POST", "api/picture", body).0, 404);
    assert_eq!(http(&port, &token, "POST", "api/cancel", "").0, 200);
    assert_eq!(finished(child, rx).0, 1);
}
