//! Pictures of scenes in `review --format html` and `diff --format html`, end to end:
//! real git, real PNG textures in the repository, the page rendered in headless
//! Chromium (tests/browser/pictures.mjs) and the screen's pixels read where the scene
//! puts a sprite or a tile. The browser part skips (saying why) without Chromium or
//! tests/browser/node_modules; the HTML assertions run everywhere.
//!
//! Screenshots go to a scratch folder, or to docs/img/ with `TSCN_MERGE_SCREENSHOTS=1`.

#[path = "common/browser.rs"]
mod browser;
mod common;

use common::TempRepo;
use std::path::{Path, PathBuf};
use std::process::Command;

macro_rules! browser_or_skip {
    () => {
        match browser::browser() {
            Ok(d) => d,
            Err(why) => {
                eprintln!("SKIP (browser part): {why}");
                return;
            }
        }
    };
}

/// Where a screenshot goes.
fn shot(repo: &TempRepo, name: &str) -> PathBuf {
    browser::shot(&repo.scratch(), name)
}

/// `node tests/browser/pictures.mjs PAGE PROBES SHOT`, its JSON line.
fn probe(dir: &Path, page: &Path, probes: &serde_json::Value, png: &Path) -> serde_json::Value {
    let out = Command::new("node")
        .current_dir(dir)
        .arg("pictures.mjs")
        .arg(page)
        .arg(probes.to_string())
        .arg(png)
        .output()
        .expect("node");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("");
    let v: serde_json::Value = serde_json::from_str(line)
        .unwrap_or_else(|_| panic!("{text}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["ok"], true, "{v}");
    v
}

// ---- a real PNG, made here: stored deflate blocks, CRC-32 and Adler-32 ----

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for b in data {
        c ^= *b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A `w` x `h` RGBA PNG whose pixel (x, y) is `px(x, y)`.
fn png(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let mut raw = Vec::new();
    for y in 0..h {
        raw.push(0);
        for x in 0..w {
            raw.extend_from_slice(&px(x, y));
        }
    }
    let mut z = vec![0x78, 0x01];
    let chunks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, c) in chunks.iter().enumerate() {
        z.push(u8::from(i + 1 == chunks.len()));
        z.extend_from_slice(&(c.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(c.len() as u16)).to_le_bytes());
        z.extend_from_slice(c);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for x in &raw {
        a = (a + *x as u32) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    for (kind, data) in [(&b"IHDR"[..], ihdr), (b"IDAT", z), (b"IEND", Vec::new())] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(&data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    }
    out
}

const RED: [u8; 4] = [230, 30, 30, 255];
const BLUE: [u8; 4] = [30, 60, 230, 255];

/// A colour read from the screen is `want` (give or take the browser's smoothing).
fn near(got: &serde_json::Value, want: [u8; 4]) -> bool {
    let got: Vec<i64> = got
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_i64()).collect())
        .unwrap_or_default();
    got.len() == 4
        && got
            .iter()
            .zip(want)
            .take(3)
            .all(|(g, w)| (g - w as i64).abs() <= 40)
}

const PROJECT: &str = "config_version=5\n\n[application]\n\nconfig/name=\"Pictures\"\n";

/// The level: a 16 x 16 red hero at `hero`, and (when `coin`) a blue coin at (40, 80).
fn level(hero: &str, coin: bool) -> String {
    let mut s = format!(
        "[gd_scene load_steps=3 format=3]\n\n\
         [ext_resource type=\"Texture2D\" path=\"res://art/hero.png\" id=\"1_h\"]\n\
         [ext_resource type=\"Texture2D\" path=\"res://art/coin.png\" id=\"2_c\"]\n\n\
         [node name=\"Level\" type=\"Node2D\"]\n\n\
         [node name=\"Hero\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({hero})\nscale = Vector2(2, 2)\ntexture = ExtResource(\"1_h\")\n"
    );
    if coin {
        s.push_str("\n[node name=\"Coin\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(40, 80)\ntexture = ExtResource(\"2_c\")\n");
    }
    s
}

/// A repository whose last commit moves the hero from (100, 50) to (300, 50) and adds a
/// coin; the textures are real PNGs in `art/`.
fn moved_sprite() -> TempRepo {
    let r = TempRepo::new();
    r.write("game/project.godot", PROJECT);
    r.write("game/art/hero.png", png(16, 16, |_, _| RED));
    r.write("game/art/coin.png", png(8, 8, |_, _| BLUE));
    r.write("game/level.tscn", level("100, 50", false));
    r.commit_all("level");
    r.write("game/level.tscn", level("300, 50", true));
    r.commit_all("move the hero, add a coin");
    r
}

/// The bar of issue 38: a review page of a commit that moves a Sprite2D shows the scene
/// before and after, the sprite drawn with its own texture where its position puts it
/// (red pixels on the screen there, ground where it is not), the added node outlined.
#[test]
fn review_html_draws_a_moved_sprite_with_its_texture_on_each_side() {
    let r = moved_sprite();
    let out = r.run_bin(["review", "--format", "html", "HEAD~1..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let html = common::stdout(&out);
    assert_eq!(html.matches("<svg class=\"scene\"").count(), 2, "{html}");
    assert!(html.contains("href=\"data:image/png;base64,"), "{html}");
    assert!(
        html.contains("data-mark=\"added\" data-node=\"Coin\""),
        "{html}"
    );
    assert!(
        !html.contains("<script") && !html.contains("https://"),
        "{html}"
    );
    let dir = browser_or_skip!();
    let page = r.scratch().join("review.html");
    std::fs::write(&page, &html).expect("write");
    // The hero is 16 px scaled by 2: 32 x 32 centred on its position.
    let probes = serde_json::json!([
        {"picture": 0, "x": 100, "y": 50}, {"picture": 0, "x": 300, "y": 50},
        {"picture": 1, "x": 300, "y": 50}, {"picture": 1, "x": 100, "y": 50},
        {"picture": 1, "x": 40, "y": 80}, {"picture": 1, "x": 310, "y": 60},
    ]);
    let v = probe(&dir, &page, &probes, &shot(&r, "review-pictures.png"));
    assert_eq!(v["pictures"], 2, "{v}");
    assert_eq!(v["labels"], serde_json::json!(["before", "after"]), "{v}");
    assert_eq!(v["images"], 2, "each texture embedded once: {v}");
    let p = &v["probes"];
    assert!(near(&p[0], RED), "before: the hero at (100, 50): {v}");
    assert!(!near(&p[1], RED), "before: nothing at (300, 50): {v}");
    assert!(near(&p[2], RED), "after: the hero at (300, 50): {v}");
    assert!(!near(&p[3], RED), "after: nothing left at (100, 50): {v}");
    assert!(near(&p[4], BLUE), "after: the new coin at (40, 80): {v}");
    assert!(
        near(&p[5], RED),
        "after: the hero's scaled corner at (310, 60): {v}"
    );
    let marks = v["marks"].as_array().expect("marks");
    let coin = marks
        .iter()
        .find(|m| m["node"] == "Coin")
        .expect("Coin outlined");
    assert_eq!(
        (coin["picture"].as_i64(), coin["mark"].as_str()),
        (Some(1), Some("added")),
        "{v}"
    );
    assert_eq!(
        coin["stroke"], "rgb(45, 164, 78)",
        "the page's 'painted' green: {v}"
    );
    assert!(
        marks
            .iter()
            .any(|m| m["node"] == "Hero" && m["mark"] == "changed" && m["picture"] == 0),
        "{v}"
    );
    assert_eq!(v["scripts"], 0);
}

/// A Godot 4 tile set: 8 x 8 tiles in a 16 x 8 atlas, red on the left, blue on the right.
const TILESET: &str = "[gd_resource type=\"TileSet\" load_steps=3 format=3]\n\n\
[ext_resource type=\"Texture2D\" path=\"res://tiles.png\" id=\"1\"]\n\n\
[sub_resource type=\"TileSetAtlasSource\" id=\"A\"]\ntexture = ExtResource(\"1\")\ntexture_region_size = Vector2i(8, 8)\n0:0/0 = 0\n1:0/0 = 0\n\n\
[resource]\ntile_size = Vector2i(8, 8)\nsources/0 = SubResource(\"A\")\n";

/// A `TileMapLayer` whose cells are `(x, y, atlas x)`.
fn tile_layer(cells: &[(i16, i16, u16)]) -> String {
    let mut bytes = vec![0u8, 0];
    for (x, y, ax) in cells {
        for v in [*x as u16, *y as u16, 0, *ax, 0, 0] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
    format!(
        "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"TileSet\" path=\"res://set.tres\" id=\"1\"]\n\n\
         [node name=\"World\" type=\"Node2D\"]\n\n[node name=\"Ground\" type=\"TileMapLayer\" parent=\".\"]\n\
         tile_set = ExtResource(\"1\")\ntile_map_data = PackedByteArray({})\n",
        list.join(", ")
    )
}

/// `diff --format html PATH` (the work tree against HEAD) draws a tile map with its
/// atlas: each cell shows its own tile, a painted cell is outlined.
#[test]
fn diff_html_draws_a_tile_map_with_its_atlas() {
    let r = TempRepo::new();
    r.write("project.godot", PROJECT);
    r.write(
        "tiles.png",
        png(16, 8, |x, _| if x < 8 { RED } else { BLUE }),
    );
    r.write("set.tres", TILESET);
    r.write("world.tscn", tile_layer(&[(0, 0, 0), (1, 0, 1)]));
    r.commit_all("world");
    r.write("world.tscn", tile_layer(&[(0, 0, 0), (1, 0, 1), (2, 0, 0)]));
    let out = r.run_bin(["diff", "--format", "html", "world.tscn"]);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    let html = common::stdout(&out);
    assert_eq!(html.matches("<svg class=\"scene\"").count(), 2, "{html}");
    assert!(
        html.contains("class=\"cells-added\" d=\"M16 0h8v8h-8z\""),
        "{html}"
    );
    // the change itself, part by part, not the whole array twice
    assert!(html.contains("1 cell painted at (2, 0)"), "{html}");
    assert!(!html.contains("PackedByteArray("), "{html}");
    let dir = browser_or_skip!();
    let page = r.scratch().join("diff.html");
    std::fs::write(&page, &html).expect("write");
    let probes = serde_json::json!([
        {"picture": 1, "x": 4, "y": 4}, {"picture": 1, "x": 12, "y": 4}, {"picture": 1, "x": 20, "y": 4},
        {"picture": 0, "x": 4, "y": 4}, {"picture": 0, "x": 20, "y": 4},
    ]);
    let v = probe(&dir, &page, &probes, &shot(&r, "diff-tiles.png"));
    let p = &v["probes"];
    // the painted cell is red under the faint green of its outline
    let reddish =
        |c: &serde_json::Value| c[0].as_i64().unwrap_or(0) > c[1].as_i64().unwrap_or(255) + 80;
    assert!(
        near(&p[0], RED) && near(&p[1], BLUE) && reddish(&p[2]),
        "after: {v}"
    );
    assert!(near(&p[3], RED) && !near(&p[4], RED), "before: {v}");
}

/// A Godot 3 `TileMap` with `cells` (x, y, tile id), no tile set in the repository.
fn godot3_map(cells: &[(i32, i32, i32)]) -> String {
    let ints: Vec<String> = cells
        .iter()
        .flat_map(|(x, y, id)| {
            [
                ((y << 16) | (x & 0xffff)).to_string(),
                id.to_string(),
                "0".into(),
            ]
        })
        .collect();
    format!(
        "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://tiles.tres\" type=\"TileSet\" id=1]\n\n\
         [node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\n\
         tile_set = ExtResource( 1 )\ncell_size = Vector2( 32, 32 )\nformat = 1\ntile_data = PoolIntArray( {} )\n",
        ints.join(", ")
    )
}

/// Issue 38: a Godot 3 `TileMap` change of 895 cells erased and 2 changed (too big for the
/// cell grid) still gets a picture in `review --format html`: the map before and after,
/// every erased and changed cell outlined, none left out.
#[test]
fn review_html_pictures_a_large_godot3_tile_map_change() {
    let r = TempRepo::new();
    let all: Vec<(i32, i32, i32)> = (0..1000).map(|i| (i % 40, i / 40, 0)).collect();
    r.write("level.tscn", godot3_map(&all));
    r.commit_all("map");
    let mut kept: Vec<(i32, i32, i32)> = all[895..].to_vec();
    kept[0].2 = 1;
    kept[1].2 = 1;
    r.write("level.tscn", godot3_map(&kept));
    r.commit_all("erase");
    let out = r.run_bin(["review", "--format", "html", "HEAD~1..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let html = common::stdout(&out);
    assert!(html.contains("895 cells erased"), "{html}");
    assert_eq!(html.matches("<svg class=\"scene\"").count(), 2, "{html}");
    let before = &html[html.find("aria-label=\"before\"").expect("before")..];
    let before = &before[..before.find("</svg>").expect("end")];
    // 895 cells of a 40-wide map: 22 whole rows and a run of 15 cells, one path.
    let removed = before
        .split("class=\"cells-removed\" d=\"")
        .nth(1)
        .expect("erased cells outlined");
    let runs = removed[..removed.find('"').unwrap_or(0)]
        .matches('M')
        .count();
    assert_eq!(runs, 23, "{removed}");
    assert!(before.contains("class=\"cells-changed\""), "{before}");
}

/// Issue 38: a value with exactly one changed part is shown as that part in HTML (one
/// added animation key on its time line), not as the whole value on both sides.
#[test]
fn html_shows_a_value_with_one_changed_part_as_that_part() {
    let anim = |times: &str, values: &str| {
        format!(
            "[gd_scene load_steps=2 format=3]\n\n[sub_resource type=\"Animation\" id=\"Animation_a\"]\nresource_name = \"walk\"\nlength = 1.0\n\
             tracks/0/type = \"value\"\ntracks/0/imported = false\ntracks/0/enabled = true\ntracks/0/path = NodePath(\"Sprite:position\")\n\
             tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/keys = {{\n\"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({}),\n\"update\": 0,\n\"values\": [{values}]\n}}\n\n\
             [node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n\n\
             [node name=\"Player\" type=\"AnimationPlayer\" parent=\".\"]\nlibraries = {{\n\"\": SubResource(\"Animation_a\")\n}}\n",
            vec!["1"; times.split(',').count()].join(", ")
        )
    };
    let r = TempRepo::new();
    r.write("a.tscn", anim("0", "Vector2(0, 0)"));
    r.commit_all("one key");
    r.write("a.tscn", anim("0, 0.5", "Vector2(0, 0), Vector2(10, 0)"));
    let text = common::stdout(&r.run_bin(["diff", "a.tscn"]));
    let out = r.run_bin(["diff", "--format", "html", "a.tscn"]);
    let html = common::stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert!(
        html.contains("<svg class=\"timeline\""),
        "text: {text}\nhtml: {html}"
    );
    assert!(html.contains("time 0.5"), "{html}");
    assert!(
        !html.contains("<td class=\"before\">1 track</td>"),
        "{html}"
    );
}
