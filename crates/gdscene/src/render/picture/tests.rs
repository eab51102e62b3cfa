//! Pictures drawn from small scenes: where a sprite lands, with which texture, what is
//! outlined, how tile maps are drawn with their atlas.

use super::*;

/// A 4 x 2 PNG header (the picture reads only the size; the bytes are embedded as they are).
fn png(w: u8, h: u8) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    b.extend_from_slice(&[0, 0, 0, w, 0, 0, 0, h]);
    b
}

fn scene(text: &str) -> Scene {
    Scene::parse(text.as_bytes()).expect("scene")
}

fn assets(files: &[(&str, Vec<u8>)]) -> BTreeMap<String, Vec<u8>> {
    files
        .iter()
        .map(|(p, b)| (p.to_string(), b.clone()))
        .collect()
}

const SPRITE: &str = "[gd_scene load_steps=2 format=3]\n\n\
[ext_resource type=\"Texture2D\" path=\"res://art/hero.png\" id=\"1_a\"]\n\n\
[node name=\"Level\" type=\"Node2D\"]\nposition = Vector2(100, 0)\n\n\
[node name=\"Hero\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(POS)\ntexture = ExtResource(\"1_a\")\n";

#[test]
fn a_sprite_is_drawn_with_its_texture_where_its_position_puts_it() {
    let s = scene(&SPRITE.replace("POS", "40, 30"));
    let a = assets(&[("res://art/hero.png", png(32, 16))]);
    let marks = Marks::default();
    let side = Side {
        scene: &s,
        path: "res://level.tscn",
        assets: &a,
        marks: &marks,
    };
    let p = draw(&[Some(side)], &Limits::default(), "t");
    let svg = &p.sides[0].as_ref().expect("picture").svg;
    // parent at (100, 0), child at (40, 30): the sprite's centre at (140, 30)
    assert!(
        svg.contains("data-node=\"Hero\" transform=\"matrix(1 0 0 1 140 30)\""),
        "{svg}"
    );
    assert!(
        svg.contains("<use href=\"#ts0\" x=\"-16\" y=\"-8\" width=\"32\" height=\"16\"/>"),
        "{svg}"
    );
    assert!(
        p.defs.contains("href=\"data:image/png;base64,"),
        "{}",
        p.defs
    );
}

#[test]
fn a_missing_texture_is_a_labelled_box() {
    let s = scene(&SPRITE.replace("POS", "0, 0"));
    let marks = Marks::default();
    let side = Side {
        scene: &s,
        path: "res://level.tscn",
        assets: &NoAssets,
        marks: &marks,
    };
    let p = draw_one(side, &Limits::default(), "t").expect("picture");
    assert!(p.svg.contains(">Hero</text>"), "{}", p.svg);
    assert!(
        p.notes.iter().any(|n| n.contains("res://art/hero.png")),
        "{:?}",
        p.notes
    );
}

#[test]
fn a_moved_sprite_is_outlined_as_changed_on_both_sides() {
    let (a, b) = (
        scene(&SPRITE.replace("POS", "0, 0")),
        scene(&SPRITE.replace("POS", "200, 0")),
    );
    let report = crate::diff::diff(&a, &b);
    let (mo, mn) = marks_of(&report);
    assert_eq!(mn.nodes.get("Hero"), Some(&Mark::Changed));
    let files = assets(&[("res://art/hero.png", png(32, 16))]);
    let p = draw(
        &[
            Some(Side {
                scene: &a,
                path: "res://l.tscn",
                assets: &files,
                marks: &mo,
            }),
            Some(Side {
                scene: &b,
                path: "res://l.tscn",
                assets: &files,
                marks: &mn,
            }),
        ],
        &Limits::default(),
        "m",
    );
    let (before, after) = (
        p.sides[0].as_ref().expect("before"),
        p.sides[1].as_ref().expect("after"),
    );
    assert!(
        before.svg.contains("matrix(1 0 0 1 100 0)"),
        "{}",
        before.svg
    );
    assert!(after.svg.contains("matrix(1 0 0 1 300 0)"), "{}", after.svg);
    assert!(
        after.svg.contains("class=\"mark changed\""),
        "{}",
        after.svg
    );
    // one view for both: the same viewBox
    let vb = |s: &str| {
        s.split("viewBox=\"")
            .nth(1)
            .map(|r| r[..r.find('"').unwrap_or(0)].to_string())
    };
    assert_eq!(vb(&before.svg), vb(&after.svg));
    assert_eq!(p.defs.matches("<image").count(), 1, "{}", p.defs);
}

#[test]
fn an_added_node_is_outlined_after_only() {
    let a = scene("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node2D\"]\n");
    let b = scene("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node2D\"]\n\n[node name=\"Box\" type=\"ColorRect\" parent=\".\"]\noffset_right = 50.0\noffset_bottom = 20.0\n");
    let (mo, mn) = marks_of(&crate::diff::diff(&a, &b));
    let p = draw(
        &[
            Some(Side {
                scene: &a,
                path: "res://l.tscn",
                assets: &NoAssets,
                marks: &mo,
            }),
            Some(Side {
                scene: &b,
                path: "res://l.tscn",
                assets: &NoAssets,
                marks: &mn,
            }),
        ],
        &Limits::default(),
        "m",
    );
    let after = &p.sides[1].as_ref().expect("after").svg;
    assert!(
        after.contains("data-mark=\"added\" data-node=\"Box\""),
        "{after}"
    );
    assert!(after.contains("width=\"50\" height=\"20\""), "{after}");
}

/// A Godot 4 tile set: 16 x 16 tiles in a 32 x 16 atlas with a 1 px margin.
const TILESET: &str = "[gd_resource type=\"TileSet\" load_steps=3 format=3]\n\n\
[ext_resource type=\"Texture2D\" path=\"res://tiles.png\" id=\"1\"]\n\n\
[sub_resource type=\"TileSetAtlasSource\" id=\"A\"]\ntexture = ExtResource(\"1\")\nmargins = Vector2i(1, 1)\n0:0/0 = 0\n1:0/0 = 0\n\n\
[resource]\nsources/0 = SubResource(\"A\")\n";

fn layer(bytes: &[u8]) -> String {
    let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
    format!("[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"TileSet\" path=\"res://set.tres\" id=\"1\"]\n\n\
[node name=\"L\" type=\"Node2D\"]\n\n[node name=\"Ground\" type=\"TileMapLayer\" parent=\".\"]\ntile_set = ExtResource(\"1\")\ntile_map_data = PackedByteArray({})\n", list.join(", "))
}

fn cell(x: i16, y: i16, ax: u16) -> Vec<u8> {
    [x as u16, y as u16, 0, ax, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

#[test]
fn a_tile_map_layer_is_drawn_with_its_atlas_and_changed_cells_outlined() {
    let mut old = vec![0u8, 0];
    old.extend(cell(0, 0, 0));
    old.extend(cell(1, 0, 0));
    let mut new = vec![0u8, 0];
    new.extend(cell(0, 0, 1));
    new.extend(cell(1, 0, 0));
    new.extend(cell(2, 0, 0));
    let (a, b) = (scene(&layer(&old)), scene(&layer(&new)));
    let files = assets(&[
        ("res://set.tres", TILESET.as_bytes().to_vec()),
        ("res://tiles.png", png(40, 20)),
    ]);
    let (mo, mn) = marks_of(&crate::diff::diff(&a, &b));
    let p = draw(
        &[
            Some(Side {
                scene: &a,
                path: "res://l.tscn",
                assets: &files,
                marks: &mo,
            }),
            Some(Side {
                scene: &b,
                path: "res://l.tscn",
                assets: &files,
                marks: &mn,
            }),
        ],
        &Limits::default(),
        "k",
    );
    assert!(p.defs.contains("viewBox=\"1 1 16 16\""), "{}", p.defs);
    assert!(p.defs.contains("viewBox=\"17 1 16 16\""), "{}", p.defs);
    let after = &p.sides[1].as_ref().expect("after").svg;
    assert_eq!(after.matches("<use href=\"#ks").count(), 3, "{after}");
    assert!(
        after.contains("class=\"cells-added\" d=\"M32 0h16v16h-16z\""),
        "{after}"
    );
    assert!(
        after.contains("class=\"cells-changed\" d=\"M0 0h16v16h-16z\""),
        "{after}"
    );
    let before = &p.sides[0].as_ref().expect("before").svg;
    assert!(!before.contains("cells-added"), "{before}");
}

#[test]
fn a_godot3_tile_map_is_drawn_from_its_tile_set_regions() {
    let set = "[gd_resource type=\"TileSet\" load_steps=2 format=2]\n\n[ext_resource path=\"res://t.png\" type=\"Texture\" id=1]\n\n\
[resource]\n0/name = \"solid\"\n0/texture = ExtResource( 1 )\n0/region = Rect2( 5, 5, 40, 40 )\n0/tile_mode = 0\n";
    let map = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://set.tres\" type=\"TileSet\" id=1]\n\n\
[node name=\"W\" type=\"Node2D\"]\n\n[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\ntile_set = ExtResource( 1 )\ncell_size = Vector2( 40, 40 )\nformat = 1\ntile_data = PoolIntArray( 0, 0, 0, 65537, 0, 0 )\n";
    let s = scene(map);
    let files = assets(&[
        ("res://set.tres", set.as_bytes().to_vec()),
        ("res://t.png", png(100, 50)),
    ]);
    let marks = Marks::default();
    let p = draw(
        &[Some(Side {
            scene: &s,
            path: "res://w.tscn",
            assets: &files,
            marks: &marks,
        })],
        &Limits::default(),
        "g",
    );
    assert!(p.defs.contains("viewBox=\"5 5 40 40\""), "{}", p.defs);
    let svg = &p.sides[0].as_ref().expect("picture").svg;
    assert!(
        svg.contains("x=\"40\" y=\"40\" width=\"40\" height=\"40\""),
        "{svg}"
    );
}

#[test]
fn limits_are_said() {
    let mut text = String::from("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node2D\"]\n");
    for i in 0..30 {
        text.push_str(&format!(
            "\n[node name=\"N{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({i}, 0)\n"
        ));
    }
    let s = scene(&text);
    let marks = Marks::default();
    let limits = Limits {
        nodes: 10,
        ..Limits::default()
    };
    let p = draw(
        &[Some(Side {
            scene: &s,
            path: "res://a.tscn",
            assets: &NoAssets,
            marks: &marks,
        })],
        &limits,
        "x",
    );
    let pic = p.sides[0].as_ref().expect("picture");
    assert!(
        pic.notes.iter().any(|n| n.contains("first 10 nodes")),
        "{:?}",
        pic.notes
    );
}

#[test]
fn a_3d_scene_is_seen_from_above() {
    let s = scene("[gd_scene format=3]\n\n[node name=\"W\" type=\"Node3D\"]\n\n[node name=\"Box\" type=\"MeshInstance3D\" parent=\".\"]\ntransform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 5, 3)\n");
    let marks = Marks::default();
    let p = draw(
        &[Some(Side {
            scene: &s,
            path: "res://a.tscn",
            assets: &NoAssets,
            marks: &marks,
        })],
        &Limits::default(),
        "x",
    );
    let pic = p.sides[0].as_ref().expect("picture");
    assert_eq!(pic.view, View::TopDown);
    assert!(pic.svg.contains("matrix(32 0 0 32 64 96)"), "{}", pic.svg);
}

#[test]
fn an_instanced_scene_is_mounted_where_it_sits() {
    let inner = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Texture2D\" path=\"res://e.png\" id=\"1\"]\n\n\
[node name=\"Enemy\" type=\"Node2D\"]\n\n[node name=\"Body\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(0, 10)\ntexture = ExtResource(\"1\")\n";
    let outer = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://enemy.tscn\" id=\"1\"]\n\n\
[node name=\"L\" type=\"Node2D\"]\n\n[node name=\"E\" parent=\".\" instance=ExtResource(\"1\")]\nposition = Vector2(50, 0)\n";
    let s = scene(outer);
    let files = assets(&[
        ("res://enemy.tscn", inner.as_bytes().to_vec()),
        ("res://e.png", png(8, 8)),
    ]);
    let marks = Marks::default();
    let p = draw(
        &[Some(Side {
            scene: &s,
            path: "res://l.tscn",
            assets: &files,
            marks: &marks,
        })],
        &Limits::default(),
        "x",
    );
    let svg = &p.sides[0].as_ref().expect("picture").svg;
    assert!(
        svg.contains("data-node=\"E/Body\" transform=\"matrix(1 0 0 1 50 10)\""),
        "{svg}"
    );
}
