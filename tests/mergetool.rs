//! `tscn-merge mergetool` end to end: `git mergetool -t tscn-merge` on a real conflict,
//! the page driven in headless Chromium by Playwright (tests/browser), Save and Cancel;
//! the server's refusals over a plain TCP stream; and `review --format html` rendered
//! in Chromium. The browser tests skip (saying why) when Chromium or
//! tests/browser/node_modules is missing; `.ci/run` installs both.
//!
//! Screenshots go to a scratch folder, or to docs/img/ with `TSCN_MERGE_SCREENSHOTS=1`.

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

/// Where the Playwright scripts are, or why the browser tests cannot run here.
fn browser() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let chromium = std::env::var_os("CHROMIUM").map_or("/usr/bin/chromium".into(), PathBuf::from);
    if !chromium.is_file() {
        return Err(format!("no Chromium at {}", chromium.display()));
    }
    if !dir.join("node_modules/playwright-core").is_dir() {
        return Err("no tests/browser/node_modules (npm install in tests/browser)".into());
    }
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(dir),
        _ => Err("no node".into()),
    }
}

macro_rules! browser_or_skip {
    () => {
        match browser() {
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
    if std::env::var_os("TSCN_MERGE_SCREENSHOTS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
        std::fs::create_dir_all(&dir).expect("docs/img");
        dir.join(name)
    } else {
        repo.scratch().join(name)
    }
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
    let cmd = format!(
        "'{}' mergetool --no-browser --idle 60 --timeout 300 --git \"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\"",
        common::bin().display()
    );
    repo.git_ok(["config", "mergetool.tscn-merge.cmd", &cmd]);
    repo.git_ok(["config", "mergetool.tscn-merge.trustExitCode", "true"]);
    repo.git_ok(["config", "mergetool.keepBackup", "false"]);
    repo
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
    let mut cmd = repo.command("git");
    cmd.args(["mergetool", "-t", "tscn-merge", "--no-prompt", "level.tscn"]);
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
    let text = String::from_utf8(repo.read("level.tscn")).expect("utf-8");
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
    let text = String::from_utf8(repo.read("level.tscn")).expect("utf-8");
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
    let mut cmd = Command::new(common::bin());
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
