//! Value-level merges through the whole merge: tile map cells, Animation tracks and keys,
//! and the real merge `Level1.tscn` whose tile maps git cannot merge.

mod common;

use gdscene::merge::{merge, MergeOptions};

/// A Godot 3 scene with one TileMap (`format = 1`: three ints per cell).
fn tilemap3(cells: &str) -> String {
    format!(
        "[gd_scene format=2]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n\
         [node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\n\
         cell_size = Vector2( 16, 16 )\nformat = 1\ntile_data = PoolIntArray( {cells} )\n"
    )
}

fn run(b: &str, o: &str, t: &str) -> gdscene::merge::MergeOutcome {
    merge(
        b.as_bytes(),
        o.as_bytes(),
        t.as_bytes(),
        &MergeOptions::default(),
    )
}

#[test]
fn tile_cells_changed_on_both_sides_merge_cell_by_cell() {
    let base = tilemap3("0, 1, 0, 1, 2, 0");
    let ours = tilemap3("0, 3, 0, 1, 2, 0, 2, 1, 0");
    let theirs = tilemap3("0, 1, 0, 1, 5, 0");
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{}", String::from_utf8_lossy(&r.text));
    assert_eq!(
        String::from_utf8_lossy(&r.text),
        tilemap3("0, 3, 0, 1, 5, 0, 2, 1, 0")
    );
}

#[test]
fn same_cell_changed_differently_is_a_conflict_naming_the_cell() {
    let base = tilemap3("0, 1, 0, 1, 2, 0");
    let ours = tilemap3("0, 3, 0, 1, 2, 0");
    let theirs = tilemap3("0, 4, 0, 1, 2, 0");
    let r = run(&base, &ours, &theirs);
    assert_eq!(r.conflict_count, 1);
    let prop = r.conflicts[0].property.clone().unwrap_or_default();
    assert!(
        prop.contains("tile_data") && prop.contains("cell (0, 0)"),
        "{prop}"
    );
    let text = String::from_utf8_lossy(&r.text);
    assert!(
        text.contains("<<<<<<< ours\ntile_data = PoolIntArray( 0, 3, 0, 1, 2, 0 )\n"),
        "{text}"
    );
}

/// A Godot 4 Animation resource with one value track, keys as given.
fn animation(times: &str, values: &str, n: usize) -> String {
    format!(
        "[gd_scene format=3]\n\n[sub_resource type=\"Animation\" id=\"Animation_au0a2\"]\n\
         length = 1.0\ntracks/0/type = \"value\"\ntracks/0/imported = false\n\
         tracks/0/enabled = true\ntracks/0/path = NodePath(\"Sprite:position\")\n\
         tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/keys = {{\n\
         \"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({}),\n\
         \"update\": 0,\n\"values\": [{values}]\n}}\n\n\
         [node name=\"Root\" type=\"Node2D\"]\n",
        vec!["1"; n].join(", ")
    )
}

#[test]
fn animation_keys_added_on_both_sides_merge_by_time() {
    let base = animation("0", "Vector2(0, 0)", 1);
    let ours = animation("0, 0.5", "Vector2(0, 0), Vector2(5, 0)", 2);
    let theirs = animation("0, 1", "Vector2(0, 0), Vector2(9, 9)", 2);
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{}", String::from_utf8_lossy(&r.text));
    let want = animation(
        "0, 0.5, 1",
        "Vector2(0, 0), Vector2(5, 0), Vector2(9, 9)",
        3,
    );
    assert_eq!(String::from_utf8_lossy(&r.text), want);
}

#[test]
fn animation_key_changed_differently_is_a_conflict_naming_the_key() {
    let base = animation("0", "Vector2(0, 0)", 1);
    let ours = animation("0", "Vector2(1, 0)", 1);
    let theirs = animation("0", "Vector2(2, 0)", 1);
    let r = run(&base, &ours, &theirs);
    assert!(!r.is_clean());
    let prop = r.conflicts[0].property.clone().unwrap_or_default();
    assert!(prop.contains("tracks/0/keys"), "{prop}");
    assert!(
        prop.contains("track \"value\" Sprite:position, key at time 0"),
        "{prop}"
    );
    assert_eq!(r.conflicts[0].ours.as_deref(), Some("Vector2(1, 0)"));
    assert_eq!(r.conflicts[0].theirs.as_deref(), Some("Vector2(2, 0)"));
}

/// A Godot 3 AnimationPlayer scene: `anims/walk` is a sub_resource Animation whose tracks
/// are as given (`(path, times, values)`, one key per time).
fn player3(tracks: &[(&str, &str, &str)]) -> String {
    let mut anim = String::from("[sub_resource type=\"Animation\" id=1]\nlength = 1.0\n");
    for (i, (path, times, values)) in tracks.iter().enumerate() {
        let n = times.split(',').count();
        anim.push_str(&format!(
            "tracks/{i}/type = \"value\"\ntracks/{i}/path = NodePath(\"{path}\")\n\
             tracks/{i}/interp = 1\ntracks/{i}/loop_wrap = true\ntracks/{i}/imported = false\n\
             tracks/{i}/enabled = true\ntracks/{i}/keys = {{\n\"times\": PoolRealArray( {times} ),\n\
             \"transitions\": PoolRealArray( {} ),\n\"update\": 0,\n\"values\": [ {values} ]\n}}\n",
            vec!["1"; n].join(", ")
        ));
    }
    format!(
        "[gd_scene load_steps=2 format=2]\n\n{anim}\n[node name=\"Root\" type=\"Node2D\"]\n\n\
         [node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\n\n\
         [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]\n\
         anims/walk = SubResource( 1 )\n"
    )
}

#[test]
fn godot3_track_conflict_names_the_track_and_key_time_after_a_reorder() {
    let base = player3(&[
        ("Sprite:position", "0", "Vector2( 0, 0 )"),
        ("Sprite:modulate", "0", "1"),
    ]);
    // Theirs reorders the tracks; both change the position key at time 0 differently.
    let ours = player3(&[
        ("Sprite:position", "0", "Vector2( 1, 0 )"),
        ("Sprite:modulate", "0", "1"),
    ]);
    let theirs = player3(&[
        ("Sprite:modulate", "0", "1"),
        ("Sprite:position", "0", "Vector2( 2, 0 )"),
    ]);
    let r = run(&base, &ours, &theirs);
    assert!(!r.is_clean());
    let named: Vec<String> = r
        .conflicts
        .iter()
        .filter_map(|c| c.property.clone())
        .filter(|p| p.contains("key at time 0"))
        .collect();
    assert_eq!(named.len(), 1, "{:?}", r.conflicts);
    assert!(
        named[0].contains("track \"value\" Sprite:position"),
        "{named:?}"
    );
}

/// The real merge: both sides painted the level's tile maps; git conflicts. Merged cell
/// by cell the tile maps are exactly the committed result's, and the only conflict left
/// is the real one: both sides added a `Heatmap` node with different scripts.
#[test]
fn real_level1_tile_maps_merge_to_the_committed_cells() {
    let Some(root) = common::shared_dir() else {
        eprintln!("skipped: shared folder not found");
        return;
    };
    let dir = root
        .join("merges/GDQuest__godot-platformer-2d__f92db19323__game__src__Levels__Level1.tscn");
    let read = |n: &str| std::fs::read(dir.join(n)).expect("merge file");
    let r = merge(
        &read("base.tscn"),
        &read("ours.tscn"),
        &read("theirs.tscn"),
        &MergeOptions::default(),
    );
    let tiles = |b: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| l.starts_with("tile_data = "))
            .map(str::to_string)
            .collect()
    };
    let human = tiles(&read("result.tscn"));
    assert!(!human.is_empty());
    assert_eq!(tiles(&r.text), human);
    assert_eq!(r.conflicts.len(), 1, "{:?}", r.conflicts);
    assert!(
        r.conflicts[0].location.contains("Heatmap"),
        "{:?}",
        r.conflicts[0]
    );
    assert_eq!(r.conflicts[0].property.as_deref(), Some("script"));
}

/// Real merges git conflicts on only because both sides' editors re-laid out Controls
/// under containers (or one side re-laid out nodes the other deleted).
const LAYOUT_CHURN: &[&str] = &[
    "RodZill4__material-maker__2b46a6936d__material_maker__main_window.tscn",
    "RodZill4__material-maker__8bbd4fcf7e__material_maker__main_window.tscn",
    "RodZill4__material-maker__be87850e00__material_maker__windows__preferences__preferences.tscn",
    "mbrlabs__Lorien__a22b3ca691__lorien__Main.tscn",
];

/// Whether a line is one the merge may legitimately not copy as is: container layout,
/// resource ids (renumbered), the header's resource count.
fn may_differ(line: &str) -> bool {
    let key = line.split(" = ").next().unwrap_or("");
    ["margin_", "rect_position", "rect_size"]
        .iter()
        .any(|k| key.starts_with(k))
        || line.contains("Resource")
        || line.contains(" id=")
        || line.starts_with("[gd_scene")
}

/// Lines one side has that neither base nor the other side has.
fn one_sided(side: &str, base: &str, other: &str) -> Vec<String> {
    let (b, o): (
        std::collections::HashSet<&str>,
        std::collections::HashSet<&str>,
    ) = (base.lines().collect(), other.lines().collect());
    side.lines()
        .filter(|l| !b.contains(l) && !o.contains(l) && !may_differ(l))
        .map(str::to_string)
        .collect()
}

#[test]
fn real_layout_churn_merges_are_clean_valid_and_keep_one_sided_changes() {
    let Some(root) = common::shared_dir() else {
        eprintln!("skipped: shared folder not found");
        return;
    };
    for id in LAYOUT_CHURN {
        let dir = root.join("merges").join(id);
        let read = |n: &str| std::fs::read_to_string(dir.join(n)).expect("merge file");
        let (b, o, t) = (read("base.tscn"), read("ours.tscn"), read("theirs.tscn"));
        let r = run(&b, &o, &t);
        assert!(r.is_clean(), "{id}: {:?}", r.conflicts);
        let text = String::from_utf8_lossy(&r.text).to_string();
        let scene = gdscene::model::Scene::parse(text.as_bytes()).expect("parses");
        let problems = gdscene::check::check(&scene);
        assert!(!gdscene::check::is_broken(&problems), "{id}: {problems:?}");
        let result: std::collections::HashSet<&str> = text.lines().collect();
        for line in one_sided(&o, &b, &t).iter().chain(&one_sided(&t, &b, &o)) {
            assert!(result.contains(line.as_str()), "{id}: lost `{line}`");
        }
        let churn = r.decisions.iter().any(|d| {
            matches!(
                d,
                gdscene::merge::Decision::ChurnOursKept { .. }
                    | gdscene::merge::Decision::ChurnedNodeDeleted { .. }
            )
        });
        assert!(churn, "{id}: no churn decision for --explain");
        let strict = MergeOptions {
            no_layout_policy: true,
            ..MergeOptions::default()
        };
        let off = merge(b.as_bytes(), o.as_bytes(), t.as_bytes(), &strict);
        assert!(
            !off.is_clean(),
            "{id}: the policy turned off still settles it"
        );
    }
}

/// A Godot 3 VBoxContainer with one Button, the Button's margins and folding as given.
fn vbox(margin_bottom: &str, folded: bool) -> String {
    let fold = if folded {
        "editor/display_folded = true\n"
    } else {
        ""
    };
    format!(
        "[gd_scene format=2]\n\n[node name=\"Box\" type=\"VBoxContainer\"]\n\
         margin_right = 40.0\nmargin_bottom = 40.0\n\n\
         [node name=\"Button\" type=\"Button\" parent=\".\"]\n{fold}\
         margin_right = 12.0\nmargin_bottom = {margin_bottom}\n"
    )
}

#[test]
fn layout_under_a_container_changed_on_both_sides_keeps_ours() {
    let r = run(
        &vbox("20.0", false),
        &vbox("22.0", false),
        &vbox("24.0", true),
    );
    assert!(r.is_clean(), "{}", String::from_utf8_lossy(&r.text));
    assert_eq!(String::from_utf8_lossy(&r.text), vbox("22.0", true));
    let explained: Vec<String> = r.decisions.iter().map(|d| d.to_string()).collect();
    assert!(
        explained.iter().any(|d| d.contains("margin_bottom")),
        "{explained:?}"
    );
}

#[test]
fn layout_outside_a_container_still_conflicts() {
    let plain = |v: &str| vbox(v, false).replace("VBoxContainer", "Control");
    let r = run(&plain("20.0"), &plain("22.0"), &plain("24.0"));
    assert_eq!(r.conflict_count, 1);
}

// ---- readable changes: diff, review and the JSON document at the value's grain ----

/// `tscn-merge diff --format FORMAT OLD NEW` on two texts; the output.
fn diff_of(old: &str, new: &str, format: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("old.tscn"), dir.path().join("new.tscn"));
    std::fs::write(&a, old).expect("write");
    std::fs::write(&b, new).expect("write");
    let out = std::process::Command::new(common::bin())
        .args(["diff", "--color", "never", "--format", format])
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run diff");
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    common::stdout(&out)
}

/// A Godot 4.0-4.2 scene with one TileMap layer (three ints per cell).
fn tilemap4(cells: &str) -> String {
    format!(
        "[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n\
         [node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\n\
         format = 2\nlayer_0/tile_data = PackedInt32Array({cells})\n"
    )
}

/// Cell `(x, y)` as the packed coordinate int of an int tile array.
fn at(x: i32, y: i32) -> i64 {
    ((((y as u16 as u32) << 16) | (x as u16 as u32)) as i32) as i64
}

#[test]
fn diff_shows_tile_cells_painted_erased_and_changed_in_both_spellings() {
    let g3 = |cells: &[(i32, i32, i64)]| {
        let v: Vec<String> = cells
            .iter()
            .map(|(x, y, t)| format!("{}, {t}, 0", at(*x, *y)))
            .collect();
        tilemap3(&v.join(", "))
    };
    let g4 = |cells: &[(i32, i32, i64)]| {
        let v: Vec<String> = cells
            .iter()
            .map(|(x, y, t)| format!("{}, {t}, 0", at(*x, *y)))
            .collect();
        tilemap4(&v.join(", "))
    };
    let old = [(0, 0, 1), (1, 0, 1), (2, 0, 1)];
    let new = [(0, 0, 1), (1, 0, 7), (0, 1, 1), (1, 1, 1), (2, 1, 1)];
    for (name, a, b) in [
        ("godot 3", g3(&old), g3(&new)),
        ("godot 4", g4(&old), g4(&new)),
    ] {
        let text = diff_of(&a, &b, "text");
        for want in [
            "3 cells painted in (0, 1)-(2, 1)",
            "1 cell erased at (2, 0)",
            "1 cell changed at (1, 0)",
        ] {
            assert!(text.contains(want), "{name}: no `{want}` in\n{text}");
        }
        let md = diff_of(&a, &b, "markdown");
        assert!(
            md.contains("```text\n    #~-\n    +++\n    ```"),
            "{name}:\n{md}"
        );
    }
}

#[test]
fn diff_draws_no_picture_of_a_large_tile_change() {
    let row = |n: i32| {
        let v: Vec<String> = (0..n).map(|x| format!("{}, 1, 0", at(x * 2, 0))).collect();
        tilemap3(&v.join(", "))
    };
    let md = diff_of(&row(2), &row(20), "markdown");
    assert!(md.contains("18 cells painted in (4, 0)-(38, 0)"), "{md}");
    assert!(!md.contains("```text"), "{md}");
}

#[test]
fn diff_shows_animation_keys_by_time_in_both_spellings() {
    let old4 = animation("0, 0.2", "Vector2(0, 0), Vector2(0, -10)", 2);
    let new4 = animation(
        "0, 0.2, 0.5",
        "Vector2(0, 0), Vector2(0, -12), Vector2(3, 3)",
        3,
    );
    let g3 = |times: &str, values: &str, n: usize| {
        format!(
            "[gd_scene load_steps=2 format=2]\n\n[sub_resource type=\"Animation\" id=1]\n\
             tracks/0/type = \"value\"\ntracks/0/path = NodePath(\"Sprite:position\")\n\
             tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/imported = false\n\
             tracks/0/enabled = true\ntracks/0/keys = {{\n\"times\": PoolRealArray( {times} ),\n\
             \"transitions\": PoolRealArray( {} ),\n\"update\": 0,\n\"values\": [ {values} ]\n}}\n\n\
             [node name=\"Root\" type=\"Node2D\"]\n",
            vec!["1"; n].join(", ")
        )
    };
    let old3 = g3("0, 0.2", "Vector2( 0, 0 ), Vector2( 0, -10 )", 2);
    let new3 = g3(
        "0, 0.2, 0.5",
        "Vector2( 0, 0 ), Vector2( 0, -12 ), Vector2( 3, 3 )",
        3,
    );
    for (name, a, b) in [("godot 4", old4, new4), ("godot 3", old3, new3)] {
        let text = diff_of(&a, &b, "text");
        let track = "track \"value\" Sprite:position";
        for want in [
            format!("{track} time 0.2: Vector2(0, -10) -> Vector2(0, -12)"),
            format!("{track} time 0.5: added Vector2(3, 3)"),
        ] {
            let want = if name == "godot 3" {
                want.replace("Vector2(", "Vector2( ").replace(")", " )")
            } else {
                want
            };
            assert!(text.contains(&want), "{name}: no `{want}` in\n{text}");
        }
        assert!(!text.contains("tracks/0/keys"), "{name}:\n{text}");
    }
}

#[test]
fn diff_names_tracks_added_and_removed_by_path_not_index() {
    let with_tracks = |paths: &[&str]| {
        let mut s =
            "[gd_resource type=\"Animation\" format=3]\n\n[resource]\nlength = 1.0\n".to_string();
        for (i, p) in paths.iter().enumerate() {
            s.push_str(&format!(
                "tracks/{i}/type = \"value\"\ntracks/{i}/path = NodePath(\"{p}\")\n\
                 tracks/{i}/keys = {{\n\"times\": PackedFloat32Array(0),\n\
                 \"transitions\": PackedFloat32Array(1),\n\"update\": 0,\n\"values\": [1.0]\n}}\n"
            ));
        }
        s
    };
    let text = diff_of(
        &with_tracks(&["A:modulate", "B:scale", "C:rotation"]),
        &with_tracks(&["B:scale", "C:rotation", "D:skew"]),
        "text",
    );
    assert!(
        text.contains("track \"value\" A:modulate: removed"),
        "{text}"
    );
    assert!(text.contains("track \"value\" D:skew: added"), "{text}");
    assert!(text.contains("tracks: 2 changes"), "{text}");
    assert!(
        !text.contains("B:scale"),
        "renumbered, not changed:\n{text}"
    );
    let json = diff_of(
        &with_tracks(&["A:modulate"]),
        &with_tracks(&["A:modulate", "D:skew"]),
        "json",
    );
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let part = &v["changes"][0]["parts"][0];
    assert_eq!(part["part"], "track", "{json}");
    assert_eq!(part["change"], "added", "{json}");
    assert_eq!(part["at"], "track \"value\" D:skew", "{json}");
}

#[test]
fn diff_shows_sprite_frames_per_animation_and_frame_with_textures_named() {
    let frames = |list: &str, speed: &str| {
        format!(
            "[gd_resource type=\"SpriteFrames\" load_steps=4 format=3]\n\n\
             [ext_resource type=\"Texture2D\" path=\"res://a.png\" id=\"1_aaaaa\"]\n\
             [ext_resource type=\"Texture2D\" path=\"res://b.png\" id=\"2_bbbbb\"]\n\
             [ext_resource type=\"Texture2D\" path=\"res://c.png\" id=\"3_ccccc\"]\n\n\
             [resource]\nanimations = [{{\n\"frames\": [{list}],\n\"loop\": true,\n\
             \"name\": &\"run\",\n\"speed\": {speed}\n}}]\n"
        )
    };
    let f = |id: &str| format!("{{\n\"duration\": 1.0,\n\"texture\": ExtResource(\"{id}\")\n}}");
    let old = frames(&format!("{}, {}", f("1_aaaaa"), f("2_bbbbb")), "5.0");
    let new = frames(
        &format!("{}, {}, {}", f("1_aaaaa"), f("3_ccccc"), f("2_bbbbb")),
        "8.0",
    );
    let text = diff_of(&old, &new, "text");
    assert!(text.contains("animation \"run\" frame 1: added"), "{text}");
    assert!(text.contains("res://c.png"), "{text}");
    assert!(
        text.contains("animation \"run\" \"speed\": 5.0 -> 8.0"),
        "{text}"
    );
}

#[test]
fn diff_shows_a_small_change_inside_a_long_string_where_it_is() {
    let script = |line: &str| {
        let body: Vec<String> = (0..40).map(|i| format!("var v{i} = {i}")).collect();
        let mut body = body.join("\n");
        body.push_str(&format!("\n{line}\n"));
        format!(
            "[gd_scene load_steps=2 format=3]\n\n[sub_resource type=\"GDScript\" id=\"GDScript_x1\"]\n\
             script/source = \"extends Node\n{body}\"\n\n\
             [node name=\"Root\" type=\"Node\"]\nscript = SubResource(\"GDScript_x1\")\n"
        )
    };
    let text = diff_of(&script("func a(): pass"), &script("func b(): pass"), "text");
    assert!(
        text.contains("line 42: func a(): pass -> func b(): pass"),
        "{text}"
    );
}

// ---- Animation track paths follow renamed and moved nodes ----

/// A Godot 4 scene: an AnimationPlayer whose library holds one Animation with a track on
/// `TRACK_PATH`, keys as given; the animated Sprite2D is `SPRITE` under `PARENT`.
fn player4(track_path: &str, times: &str, values: &str, sprite: &str, parent: &str) -> String {
    let n = times.split(',').count();
    let holder = if parent == "." {
        String::new()
    } else {
        format!("[node name=\"{parent}\" type=\"Node2D\" parent=\".\"]\n\n")
    };
    format!(
        "[gd_scene load_steps=3 format=3]\n\n\
         [sub_resource type=\"Animation\" id=\"Animation_walk1\"]\nresource_name = \"walk\"\n\
         length = 1.0\ntracks/0/type = \"value\"\ntracks/0/imported = false\n\
         tracks/0/enabled = true\ntracks/0/path = NodePath(\"{track_path}\")\n\
         tracks/0/interp = 1\ntracks/0/loop_wrap = true\ntracks/0/keys = {{\n\
         \"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({}),\n\
         \"update\": 0,\n\"values\": [{values}]\n}}\n\n\
         [sub_resource type=\"AnimationLibrary\" id=\"AnimationLibrary_lib01\"]\n\
         _data = {{\n&\"walk\": SubResource(\"Animation_walk1\")\n}}\n\n\
         [node name=\"Root\" type=\"Node2D\"]\n\n{holder}\
         [node name=\"{sprite}\" type=\"Sprite2D\" parent=\"{parent}\"]\n\n\
         [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]\n\
         libraries = {{\n&\"\": SubResource(\"AnimationLibrary_lib01\")\n}}\n",
        vec!["1"; n].join(", ")
    )
}

#[test]
fn godot4_track_path_follows_a_rename_while_the_other_side_adds_a_key() {
    let base = player4("Sprite:position", "0", "Vector2(0, 0)", "Sprite", ".");
    let ours = player4(
        "Sprite:position",
        "0, 0.5",
        "Vector2(0, 0), Vector2(4, 0)",
        "Sprite",
        ".",
    );
    let theirs = player4("Sprite:position", "0", "Vector2(0, 0)", "Body", ".");
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{:?}", r.conflicts);
    let want = player4(
        "Body:position",
        "0, 0.5",
        "Vector2(0, 0), Vector2(4, 0)",
        "Body",
        ".",
    );
    assert_eq!(String::from_utf8_lossy(&r.text), want);
    let explained: Vec<String> = r.decisions.iter().map(|d| d.to_string()).collect();
    assert!(
        explained.iter().any(|d| d.contains("Body:position")),
        "{explained:?}"
    );
    // And the other way round: ours renames, theirs adds the key.
    let r = run(&base, &theirs, &ours);
    assert!(r.is_clean(), "{:?}", r.conflicts);
    assert_eq!(String::from_utf8_lossy(&r.text), want);
}

#[test]
fn godot4_track_path_follows_a_move_under_a_new_parent() {
    let base = player4("Sprite:position", "0", "Vector2(0, 0)", "Sprite", ".");
    let ours = player4(
        "Sprite:position",
        "0, 1",
        "Vector2(0, 0), Vector2(1, 1)",
        "Sprite",
        ".",
    );
    let theirs = player4("Sprite:position", "0", "Vector2(0, 0)", "Sprite", "Pivot");
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{:?}", r.conflicts);
    let text = String::from_utf8_lossy(&r.text);
    assert!(
        text.contains("tracks/0/path = NodePath(\"Pivot/Sprite:position\")"),
        "{text}"
    );
}

#[test]
fn godot3_track_path_follows_a_rename_while_the_other_side_adds_a_key() {
    let base = player3(&[("Sprite:position", "0", "Vector2( 0, 0 )")]);
    let ours = player3(&[(
        "Sprite:position",
        "0, 0.5",
        "Vector2( 0, 0 ), Vector2( 4, 0 )",
    )]);
    let theirs = player3(&[("Sprite:position", "0", "Vector2( 0, 0 )")]).replace(
        "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]",
        "[node name=\"Body\" type=\"Sprite\" parent=\".\"]",
    );
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{:?}", r.conflicts);
    let text = String::from_utf8_lossy(&r.text);
    assert!(
        text.contains("tracks/0/path = NodePath(\"Body:position\")"),
        "{text}"
    );
    assert!(text.contains("Vector2( 4, 0 )"), "{text}");
    assert!(
        text.contains("[node name=\"Body\" type=\"Sprite\" parent=\".\"]"),
        "{text}"
    );
}

#[test]
fn track_paths_of_an_unmoved_node_or_an_absolute_path_stay_as_written() {
    let base = player4("/root/Sprite:position", "0", "Vector2(0, 0)", "Sprite", ".");
    let ours = player4(
        "/root/Sprite:position",
        "0, 1",
        "Vector2(0, 0), Vector2(1, 1)",
        "Sprite",
        ".",
    );
    let theirs = player4("/root/Sprite:position", "0", "Vector2(0, 0)", "Body", ".");
    let r = run(&base, &ours, &theirs);
    let text = String::from_utf8_lossy(&r.text);
    assert!(
        text.contains("NodePath(\"/root/Sprite:position\")"),
        "{text}"
    );
}

#[test]
fn diff_shows_a_small_change_inside_a_long_nested_array_where_it_is() {
    let scene = |y: &str| {
        let mut pts: Vec<String> = (0..30).map(|i| format!("{i}, 0")).collect();
        pts[7] = format!("7, {y}");
        format!(
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\
             data = [{{\n\"points\": PackedVector2Array({}),\n\"closed\": true\n}}]\n",
            pts.join(", ")
        )
    };
    let text = diff_of(&scene("0"), &scene("5"), "text");
    assert!(
        text.contains("data: element 0 \"points\" element 15: 0 -> 5"),
        "{text}"
    );
}

/// `player4`'s scene with a second AnimationPlayer, under its own parent, playing the
/// same library (so the Animation is read from two roots).
fn shared_player4(track_path: &str, times: &str, values: &str, sprite: &str) -> String {
    player4(track_path, times, values, sprite, ".")
        + "\n[node name=\"Other\" type=\"Node2D\" parent=\".\"]\n\n\
           [node name=\"AnimationPlayer2\" type=\"AnimationPlayer\" parent=\"Other\"]\n\
           libraries = {\n&\"\": SubResource(\"AnimationLibrary_lib01\")\n}\n"
}

#[test]
fn track_paths_of_an_animation_two_players_share_stay_as_written() {
    let base = shared_player4("Sprite:position", "0", "Vector2(0, 0)", "Sprite");
    let ours = shared_player4(
        "Sprite:position",
        "0, 0.5",
        "Vector2(0, 0), Vector2(4, 0)",
        "Sprite",
    );
    let theirs = shared_player4("Sprite:position", "0", "Vector2(0, 0)", "Body");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = run(&base, o, t);
        let text = String::from_utf8_lossy(&r.text);
        // Read from `Other`, a rewrite for the first player would change what the second
        // one animates: the path is left as both sides wrote it.
        assert!(
            text.contains("tracks/0/path = NodePath(\"Sprite:position\")"),
            "{text}"
        );
        assert!(text.contains("PackedFloat32Array(0, 0.5)"), "{text}");
    }
}

#[test]
fn track_paths_stay_as_written_when_one_side_moves_the_player() {
    let base = player4("Sprite:position", "0", "Vector2(0, 0)", "Sprite", ".");
    let ours = player4(
        "Sprite:position",
        "0, 0.5",
        "Vector2(0, 0), Vector2(4, 0)",
        "Sprite",
        ".",
    );
    // Theirs moves the player under a new node and keeps its paths: in theirs' tree they
    // are read from that node, so the merge keeps theirs' text (as merge(base, theirs,
    // base) would), and ours' key still lands.
    let moved = |s: &str| {
        s.replace(
            "[node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]",
            "[node name=\"Rig\" type=\"Node2D\" parent=\".\"]\n\n\
             [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\"Rig\"]",
        )
    };
    let theirs = moved(&base);
    let r = run(&base, &ours, &theirs);
    assert!(r.is_clean(), "{:?}", r.conflicts);
    assert_eq!(String::from_utf8_lossy(&r.text), moved(&ours));
}

/// A Godot 4 scene with an AnimatedSprite2D whose SpriteFrames (a sub_resource) has the
/// animations given as (name, ext_resource ids of its frames), textures as (id, path).
fn sprite4(exts: &[(&str, &str)], anims: &[(&str, &[&str])]) -> String {
    let mut s = format!(
        "[gd_scene load_steps={} format=3 uid=\"uid://cspr1te\"]\n\n",
        exts.len() + 2
    );
    for (id, path) in exts {
        s.push_str(&format!(
            "[ext_resource type=\"Texture2D\" path=\"{path}\" id=\"{id}\"]\n"
        ));
    }
    let frame =
        |id: &&str| format!("{{\n\"duration\": 1.0,\n\"texture\": ExtResource(\"{id}\")\n}}");
    let anim: Vec<String> = anims
        .iter()
        .map(|(name, frames)| {
            let f: Vec<String> = frames.iter().map(frame).collect();
            format!(
                "{{\n\"frames\": [{}],\n\"loop\": true,\n\"name\": &\"{name}\",\n\"speed\": 5.0\n}}",
                f.join(", ")
            )
        })
        .collect();
    s.push_str(&format!(
        "\n[sub_resource type=\"SpriteFrames\" id=\"SpriteFrames_h3k2p\"]\nanimations = [{}]\n\n\
         [node name=\"Hero\" type=\"AnimatedSprite2D\"]\nsprite_frames = SubResource(\"SpriteFrames_h3k2p\")\n",
        anim.join(", ")
    ));
    s
}

/// The same in Godot 3: integer ids, `Texture`, spaced brackets, `name` a String.
fn sprite3(exts: &[(&str, &str)], anims: &[(&str, &[&str])]) -> String {
    let mut s = format!("[gd_scene load_steps={} format=2]\n\n", exts.len() + 2);
    for (id, path) in exts {
        s.push_str(&format!(
            "[ext_resource path=\"{path}\" type=\"Texture\" id={id}]\n"
        ));
    }
    let anim: Vec<String> = anims
        .iter()
        .map(|(name, frames)| {
            let f: Vec<String> = frames.iter().map(|id| format!("ExtResource( {id} )")).collect();
            format!(
                "{{\n\"frames\": [ {} ],\n\"loop\": true,\n\"name\": \"{name}\",\n\"speed\": 5.0\n}}",
                f.join(", ")
            )
        })
        .collect();
    s.push_str(&format!(
        "\n[sub_resource type=\"SpriteFrames\" id=1]\nanimations = [ {} ]\n\n\
         [node name=\"Hero\" type=\"AnimatedSprite\"]\nframes = SubResource( 1 )\n",
        anim.join(", ")
    ));
    s
}

/// The id the result gives the ext_resource of `path`.
fn ext_id_of(text: &str, path: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("[ext_resource") && l.contains(&format!("path=\"{path}\"")))
        .unwrap_or_else(|| panic!("no ext_resource {path} in\n{text}"));
    let id = line.split(" id=").nth(1).unwrap_or_default();
    id.trim_end_matches(']').trim_matches('"').to_string()
}

/// A scene from its first sub_resource on.
fn body(s: &str) -> String {
    s[s.find("[sub_resource").unwrap_or(0)..].to_string()
}

#[test]
fn sprite_frames_with_textures_merge_per_animation_after_an_id_collision() {
    type Build = fn(&[(&str, &str)], &[(&str, &[&str])]) -> String;
    let spellings: [(Build, &str, &str); 2] =
        [(sprite4, "1_aaaaa", "2_bbbbb"), (sprite3, "1", "2")];
    for (build, a, b) in spellings {
        let at = (a, "res://a.png");
        let base = build(&[at], &[("idle", &[a]), ("run", &[a])]);
        let ours = build(
            &[at, (b, "res://b.png")],
            &[("idle", &[a, b]), ("run", &[a])],
        );
        let theirs = build(
            &[at, (b, "res://c.png")],
            &[("idle", &[a]), ("run", &[b, a])],
        );
        for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
            let r = run(&base, o, t);
            let text = String::from_utf8_lossy(&r.text).to_string();
            assert!(r.is_clean(), "{text}");
            let bid = ext_id_of(&text, "res://b.png");
            let cid = ext_id_of(&text, "res://c.png");
            assert_ne!(bid, cid, "{text}");
            let want = build(&[], &[("idle", &[a, &bid]), ("run", &[&cid, a])]);
            assert_eq!(body(&text), body(&want), "{text}");
        }
    }
}

/// An Animation with one audio track, clips as (time, ext id), streams as (id, path):
/// Godot 4 when `godot4`, else Godot 3.
fn audio(godot4: bool, exts: &[(&str, &str)], clips: &[(&str, &str)]) -> String {
    let (head, ty, arr) = match godot4 {
        true => ("format=3", "AudioStream", "PackedFloat32Array"),
        false => ("format=2", "AudioStream", "PoolRealArray"),
    };
    let mut s = format!("[gd_scene load_steps={} {head}]\n\n", exts.len() + 2);
    for (id, path) in exts {
        let id = if godot4 {
            format!("\"{id}\"")
        } else {
            id.to_string()
        };
        s.push_str(&format!(
            "[ext_resource type=\"{ty}\" path=\"{path}\" id={id}]\n"
        ));
    }
    let sp = if godot4 { "" } else { " " };
    let re = |id: &str| match godot4 {
        true => format!("ExtResource(\"{id}\")"),
        false => format!("ExtResource( {id} )"),
    };
    let clip: Vec<String> = clips
        .iter()
        .map(|(_, id)| {
            format!(
                "{{\n\"end_offset\": 0.0,\n\"start_offset\": 0.0,\n\"stream\": {}\n}}",
                re(id)
            )
        })
        .collect();
    let times: Vec<&str> = clips.iter().map(|(t, _)| *t).collect();
    let (id, r) = if godot4 {
        ("\"Animation_k2p4q\"", "SubResource(\"Animation_k2p4q\")")
    } else {
        ("1", "SubResource( 1 )")
    };
    s.push_str(&format!(
        "\n[sub_resource type=\"Animation\" id={id}]\nlength = 2.0\n\
         tracks/0/type = \"audio\"\ntracks/0/path = NodePath(\"Sfx\")\n\
         tracks/0/keys = {{\n\"clips\": [{sp}{}{sp}],\n\"times\": {arr}({sp}{}{sp})\n}}\n\n\
         [node name=\"Root\" type=\"Node2D\"]\n\n\
         [node name=\"Sfx\" type=\"AudioStreamPlayer\" parent=\".\"]\n\n\
         [node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]\n\
         anims/door = {r}\n",
        clip.join(", "),
        times.join(", ")
    ));
    s
}

#[test]
fn audio_track_clips_naming_streams_merge_by_time_after_an_id_collision() {
    for godot4 in [true, false] {
        let (a, b, c) = match godot4 {
            true => ("1_aaaaa", "2_bbbbb", "2_bbbbb"),
            false => ("1", "2", "2"),
        };
        let base = audio(godot4, &[(a, "res://a.ogg")], &[("0", a)]);
        let ours = audio(
            godot4,
            &[(a, "res://a.ogg"), (b, "res://b.ogg")],
            &[("0", a), ("0.5", b)],
        );
        let theirs = audio(
            godot4,
            &[(a, "res://a.ogg"), (c, "res://c.ogg")],
            &[("0", a), ("1", c)],
        );
        for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
            let r = run(&base, o, t);
            let text = String::from_utf8_lossy(&r.text).to_string();
            assert!(r.is_clean(), "{text}");
            let (b, c) = (
                ext_id_of(&text, "res://b.ogg"),
                ext_id_of(&text, "res://c.ogg"),
            );
            assert_ne!(b, c, "{text}");
            let want = audio(godot4, &[], &[("0", a), ("0.5", &b), ("1", &c)]);
            assert_eq!(body(&text), body(&want), "{text}");
        }
    }
}

/// Textures a.png to d.png as Godot 4 or Godot 3 ext_resources.
fn textures(godot4: bool, names: &str) -> Vec<(String, String)> {
    names
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let id = match godot4 {
                true => format!("{}_{c}{c}{c}{c}{c}", i + 1),
                false => (i + 1).to_string(),
            };
            (id, format!("res://{c}.png"))
        })
        .collect()
}

/// A SpriteFrames scene with one animation "run" whose frames are the textures named
/// (`"cab"`: c.png, a.png, b.png), given each texture's id.
fn run_frames(
    godot4: bool,
    exts: &[(String, String)],
    frames: &str,
    ids: &dyn Fn(char) -> String,
) -> String {
    let e: Vec<(&str, &str)> = exts.iter().map(|(i, p)| (i.as_str(), p.as_str())).collect();
    let f: Vec<String> = frames.chars().map(ids).collect();
    let f: Vec<&str> = f.iter().map(String::as_str).collect();
    match godot4 {
        true => sprite4(&e, &[("run", &f)]),
        false => sprite3(&e, &[("run", &f)]),
    }
}

/// Merge `run` frames (base, ours, theirs: textures named per frame) in both directions and
/// check the result's frames are `want` with the result's ids; each side's ext_resources
/// are the textures it uses.
fn frames_merge_both_ways(godot4: bool, [b, o, t]: [&str; 3], want: &str) {
    let side = |frames: &str| {
        let mut names: Vec<char> = frames.chars().collect();
        names.sort();
        names.dedup();
        let all = textures(godot4, "abcd");
        let exts: Vec<(String, String)> = all
            .into_iter()
            .filter(|(_, p)| names.iter().any(|c| p == &format!("res://{c}.png")))
            .collect();
        let of = |c: char| {
            let i = (c as u8 - b'a') as usize;
            textures(godot4, "abcd")[i].0.clone()
        };
        run_frames(godot4, &exts, frames, &of)
    };
    let (base, ours, theirs) = (side(b), side(o), side(t));
    for (x, y) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = run(&base, x, y);
        let text = String::from_utf8_lossy(&r.text).to_string();
        assert!(r.is_clean(), "{text}");
        let of = |c: char| ext_id_of(&text, &format!("res://{c}.png"));
        assert_eq!(
            body(&text),
            body(&run_frames(godot4, &[], want, &of)),
            "{text}"
        );
    }
}

#[test]
fn sprite_frames_added_at_different_places_merge_as_a_sequence() {
    for godot4 in [true, false] {
        frames_merge_both_ways(godot4, ["ab", "cab", "abd"], "cabd");
    }
}

#[test]
fn sprite_frame_removed_on_one_side_and_added_on_the_other_merge_as_a_sequence() {
    for godot4 in [true, false] {
        frames_merge_both_ways(godot4, ["abc", "ac", "abcd"], "acd");
        // Repeated textures are frames like any other.
        frames_merge_both_ways(godot4, ["aba", "abba", "abad"], "abbad");
    }
}

#[test]
fn the_same_sprite_frame_changed_differently_on_both_sides_conflicts() {
    for godot4 in [true, false] {
        let exts = textures(godot4, "abcd");
        let id = |c: char| exts[(c as u8 - b'a') as usize].0.clone();
        let scene = |f: &str| run_frames(godot4, &exts, f, &id);
        for (o, t) in [("ac", "ad"), ("ad", "ac")] {
            let r = run(&scene("ab"), &scene(o), &scene(t));
            assert!(!r.is_clean(), "{}", String::from_utf8_lossy(&r.text));
            let prop = r.conflicts[0].property.clone().unwrap_or_default();
            assert!(prop.contains("animation \"run\" frame 1"), "{prop}");
            let ours = r.conflicts[0].ours.clone().unwrap_or_default();
            assert!(ours.contains(&format!("res://{}.png", &o[1..])), "{ours}");
        }
    }
}

/// A Godot 4 scene: a unique `Label` (under `Panel`, named `label`) and a `Button`
/// holding the lines given; `unique` marks the label `unique_name_in_owner`.
fn unique4(label: &str, unique: bool, button: &str) -> String {
    let flag = if unique {
        "unique_name_in_owner = true\n"
    } else {
        ""
    };
    format!(
        "[gd_scene format=3 uid=\"uid://cuniq1\"]\n\n[node name=\"Main\" type=\"Control\"]\n\n\
         [node name=\"Panel\" type=\"Panel\" parent=\".\"]\n\n\
         [node name=\"{label}\" type=\"Label\" parent=\"Panel\"]\n{flag}text = \"Hi\"\n\n\
         [node name=\"Icon\" type=\"TextureRect\" parent=\"Panel/{label}\"]\n\n\
         [node name=\"Button\" type=\"Button\" parent=\".\"]\n{button}"
    )
}

#[test]
fn unique_name_paths_follow_a_rename_of_their_node() {
    let paths = "shortcut_context = NodePath(\"%Label\")\nfocus_next = NodePath(\"%Label/Icon\")\n\
                 focus_previous = NodePath(\"%Label:text\")\n";
    let renamed =
        "shortcut_context = NodePath(\"%Title\")\nfocus_next = NodePath(\"%Title/Icon\")\n\
                   focus_previous = NodePath(\"%Title:text\")\n";
    let base = unique4("Label", true, "");
    let ours = unique4("Title", true, "");
    let theirs = unique4("Label", true, paths);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = run(&base, o, t);
        let text = String::from_utf8_lossy(&r.text).to_string();
        assert!(r.is_clean(), "{text}");
        assert_eq!(text, unique4("Title", true, renamed));
        let said = r
            .decisions
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>();
        assert!(said.iter().any(|d| d.contains("%Title/Icon")), "{said:?}");
    }
}

#[test]
fn percent_paths_stay_as_written_when_the_node_is_not_unique_or_not_renamed() {
    let paths = "shortcut_context = NodePath(\"%Label\")\n";
    // Not marked unique: `%Label` never named it, and is not made to.
    let base = unique4("Label", false, "");
    let r = run(
        &base,
        &unique4("Title", false, ""),
        &unique4("Label", false, paths),
    );
    assert_eq!(
        String::from_utf8_lossy(&r.text),
        unique4("Title", false, paths)
    );
    // A path to a unique node neither side renamed is kept byte for byte.
    let base = unique4("Label", true, "");
    let other = "shortcut_context = NodePath(\"%Label\")\nfocus_next = NodePath(\"Panel\")\n";
    let with_text = unique4("Label", true, paths).replace("text = \"Hi\"", "text = \"Yo\"");
    let r = run(&base, &with_text, &unique4("Label", true, other));
    let want = unique4("Label", true, other).replace("text = \"Hi\"", "text = \"Yo\"");
    assert_eq!(String::from_utf8_lossy(&r.text), want);
}

/// The hunks of a text with diff3 markers: (ours part, theirs part).
fn hunks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut part: Option<usize> = None;
    let (mut o, mut t) = (String::new(), String::new());
    for line in text.lines() {
        match (line.get(..7), part) {
            (Some("<<<<<<<"), _) => part = Some(0),
            (Some("|||||||"), _) => part = Some(1),
            (Some("======="), _) => part = Some(2),
            (Some(">>>>>>>"), _) => {
                out.push((std::mem::take(&mut o), std::mem::take(&mut t)));
                part = None;
            }
            (_, Some(0)) => o.push_str(&format!("{line}\n")),
            (_, Some(2)) => t.push_str(&format!("{line}\n")),
            _ => {}
        }
    }
    out
}

#[test]
fn track_clash_markers_pair_the_same_track_when_theirs_numbered_tracks_otherwise() {
    // Godot 3 and 4 spellings: theirs reorders the tracks and both change one key.
    let four = |s: String| {
        s.replace("format=2", "format=3")
            .replace("PoolRealArray( 0 )", "PackedFloat32Array(0)")
            .replace("PoolRealArray( 1 )", "PackedFloat32Array(1)")
            .replace("Vector2( ", "Vector2(")
            .replace(", 0 )", ", 0)")
            .replace("\"Sprite\" type=\"Sprite\"", "\"Sprite\" type=\"Sprite2D\"")
    };
    for godot4 in [false, true] {
        let spell = |s: String| if godot4 { four(s) } else { s };
        let (pos, modulate) = ("Sprite:position", "Sprite:modulate");
        let base = spell(player3(&[
            (pos, "0", "Vector2( 0, 0 )"),
            (modulate, "0", "1"),
        ]));
        let ours = spell(player3(&[
            (pos, "0", "Vector2( 1, 0 )"),
            (modulate, "0", "1"),
        ]));
        let theirs = spell(player3(&[
            (modulate, "0", "1"),
            (pos, "0", "Vector2( 2, 0 )"),
        ]));
        for (o, t, mine, other) in [
            (&ours, &theirs, "1, 0", "2, 0"),
            (&theirs, &ours, "2, 0", "1, 0"),
        ] {
            let r = run(&base, o, t);
            let text = String::from_utf8_lossy(&r.text).to_string();
            let h = hunks(&text);
            assert_eq!(h.len(), 1, "{text}");
            let (ho, ht) = &h[0];
            let n = |part: &str| part.split('/').nth(1).map(str::to_string);
            assert!(ho.contains(mine) && ht.contains(other), "{text}");
            assert_eq!(n(ho), n(ht), "{text}");
            // The other track is not inside the hunk, and its lines come once.
            assert!(!ho.contains(modulate) && !ht.contains(modulate), "{text}");
            assert_eq!(text.matches(modulate).count(), 1, "{text}");
            let prop = r.conflicts[0].property.clone().unwrap_or_default();
            assert!(
                prop.contains("Sprite:position") && prop.contains("time 0"),
                "{prop}"
            );
        }
    }
}

// ---- Track paths of shared Animations, moved players and %UniqueName steps ----

/// A scene playing one Animation `walk` with a track on each path given (one key each),
/// in Godot 4 (an AnimationLibrary) or Godot 3 (`anims/walk`) spelling. `nodes` are the
/// node sections after the root (`node`); `PLAYS` in them stands for the line that makes
/// a player play the Animation.
fn anim_scene(godot4: bool, tracks: &[&str], nodes: &str) -> String {
    let (head, times, values, anim, plays) = if godot4 {
        (
            "[gd_scene load_steps=3 format=3]",
            "PackedFloat32Array(0)",
            "[0]",
            "[sub_resource type=\"Animation\" id=\"Animation_walk1\"]\nresource_name = \"walk\"\n",
            "libraries = {\n&\"\": SubResource(\"AnimationLibrary_lib01\")\n}\n",
        )
    } else {
        (
            "[gd_scene load_steps=2 format=2]",
            "PoolRealArray( 0 )",
            "[ 0 ]",
            "[sub_resource type=\"Animation\" id=1]\n",
            "anims/walk = SubResource( 1 )\n",
        )
    };
    let mut out = format!("{head}\n\n{anim}length = 1.0\n");
    for (i, path) in tracks.iter().enumerate() {
        out.push_str(&format!(
            "tracks/{i}/type = \"value\"\ntracks/{i}/path = NodePath(\"{path}\")\n\
             tracks/{i}/interp = 1\ntracks/{i}/keys = {{\n\"times\": {times},\n\
             \"transitions\": {},\n\"update\": 0,\n\"values\": {values}\n}}\n",
            times.replace('0', "1")
        ));
    }
    if godot4 {
        out.push_str(
            "\n[sub_resource type=\"AnimationLibrary\" id=\"AnimationLibrary_lib01\"]\n\
             _data = {\n&\"walk\": SubResource(\"Animation_walk1\")\n}\n",
        );
    }
    out + "\n[node name=\"Root\" type=\"Node2D\"]\n\n" + &nodes.replace("PLAYS", plays)
}

/// A node section (`AnimationPlayer*` names are players), its lines as given.
fn node(name: &str, parent: &str, lines: &str) -> String {
    let ty = if name.starts_with("AnimationPlayer") {
        "AnimationPlayer"
    } else {
        "Node2D"
    };
    format!("[node name=\"{name}\" type=\"{ty}\" parent=\"{parent}\"]\n{lines}\n")
}

/// The `tracks/N/path` values of a merged scene, in order.
fn track_paths(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("tracks/") && l.contains("/path = NodePath(\""))
        .filter_map(|l| l.split('"').nth(1).map(str::to_string))
        .collect()
}

/// Merge both ways round: each result's text and its `--explain` lines.
fn both_ways(base: &str, a: &str, b: &str) -> Vec<(String, Vec<String>)> {
    [(a, b), (b, a)]
        .into_iter()
        .map(|(o, t)| {
            let r = run(base, o, t);
            assert!(r.is_clean(), "{:?}", r.conflicts);
            let said = r.decisions.iter().map(|d| d.to_string()).collect();
            (String::from_utf8_lossy(&r.text).to_string(), said)
        })
        .collect()
}

#[test]
fn track_paths_of_a_shared_animation_follow_when_every_player_reaches_the_same_node() {
    for godot4 in [true, false] {
        // Two players play `walk`: one from its parent (the root), the other from the
        // root through `root_node`. Both read `Sprite` as the same node.
        let nodes = |sprite: &str| {
            node(sprite, ".", "")
                + "\n"
                + &node("AnimationPlayer", ".", "PLAYS")
                + "\n"
                + &node("Other", ".", "")
                + "\n"
                + &node(
                    "AnimationPlayer2",
                    "Other",
                    "root_node = NodePath(\"../..\")\nPLAYS",
                )
        };
        let base = anim_scene(godot4, &["Sprite:position"], &nodes("Sprite"));
        let ours = anim_scene(
            godot4,
            &["Sprite:position", "Sprite:scale"],
            &nodes("Sprite"),
        );
        let theirs = anim_scene(godot4, &["Sprite:position"], &nodes("Body"));
        for (text, said) in both_ways(&base, &ours, &theirs) {
            assert_eq!(
                track_paths(&text),
                ["Body:position", "Body:scale"],
                "{text}"
            );
            assert!(said.iter().any(|d| d.contains("Body:scale")), "{said:?}");
        }
    }
}

#[test]
fn track_paths_two_players_read_as_different_nodes_stay_as_written_and_are_explained() {
    for godot4 in [true, false] {
        // The second player reads `Sprite` from `Other`, which has a `Sprite` of its own.
        let nodes = |sprite: &str| {
            node(sprite, ".", "")
                + "\n"
                + &node("AnimationPlayer", ".", "PLAYS")
                + "\n"
                + &node("Other", ".", "")
                + "\n"
                + &node("Sprite", "Other", "")
                + "\n"
                + &node("AnimationPlayer2", "Other", "PLAYS")
        };
        let base = anim_scene(godot4, &["Sprite:position"], &nodes("Sprite"));
        let ours = anim_scene(
            godot4,
            &["Sprite:position", "Sprite:scale"],
            &nodes("Sprite"),
        );
        let theirs = anim_scene(godot4, &["Sprite:position"], &nodes("Body"));
        for (text, said) in both_ways(&base, &ours, &theirs) {
            assert_eq!(
                track_paths(&text),
                ["Sprite:position", "Sprite:scale"],
                "{text}"
            );
            assert!(
                said.iter().any(|d| d.contains("kept a NodePath")
                    && d.contains("AnimationPlayer, Other/AnimationPlayer2")
                    && d.contains("Sprite:scale")),
                "{said:?}"
            );
        }
    }
}

#[test]
fn track_paths_of_a_moved_player_are_read_where_each_side_wrote_them() {
    for godot4 in [true, false] {
        let nodes = |sprite: &str, player_parent: &str| {
            node(sprite, ".", "")
                + "\n"
                + &node("Rig", ".", "")
                + "\n"
                + &node("AnimationPlayer", player_parent, "PLAYS")
        };
        let base = anim_scene(godot4, &["Sprite:position"], &nodes("Sprite", "."));
        // Ours moves the player under Rig and writes its path from there.
        let ours = anim_scene(godot4, &["../Sprite:position"], &nodes("Sprite", "Rig"));
        // Theirs adds a track, read from the player's old place.
        let theirs = anim_scene(
            godot4,
            &["Sprite:position", "Sprite:scale"],
            &nodes("Sprite", "."),
        );
        for (text, _) in both_ways(&base, &ours, &theirs) {
            let mut got = track_paths(&text);
            got.sort();
            assert_eq!(got, ["../Sprite:position", "../Sprite:scale"], "{text}");
        }
        // Theirs also renames the Sprite (its own new track names it so).
        let theirs = anim_scene(
            godot4,
            &["Sprite:position", "Body:scale"],
            &nodes("Body", "."),
        );
        for (text, _) in both_ways(&base, &ours, &theirs) {
            let mut got = track_paths(&text);
            got.sort();
            assert_eq!(got, ["../Body:position", "../Body:scale"], "{text}");
        }
    }
}

#[test]
fn unique_name_track_paths_follow_a_rename_of_their_node() {
    const UNIQUE: &str = "unique_name_in_owner = true\n";
    // The player sits under UI and reads from there; `%` steps start and end paths.
    let nodes = |sprite: &str, hud: &str, label: &str| {
        node(sprite, ".", &format!("{UNIQUE}position = Vector2(1, 2)\n"))
            + "\n"
            + &node(hud, ".", &format!("{UNIQUE}z_index = 3\n"))
            + "\n"
            + &node(label, hud, "visible = false\n")
            + "\n"
            + &node("UI", ".", "")
            + "\n"
            + &node("AnimationPlayer", "UI", "PLAYS")
    };
    let tracks = ["%Sprite:frame", "../%Hud/Label:text", "%Hud:visible"];
    let base = anim_scene(true, &tracks, &nodes("Sprite", "Hud", "Label"));
    let ours = anim_scene(true, &tracks, &nodes("Hero", "Overlay", "Caption"));
    let mut more = tracks.to_vec();
    more.push("%Sprite:scale");
    let theirs = anim_scene(true, &more, &nodes("Sprite", "Hud", "Label"));
    for (text, said) in both_ways(&base, &ours, &theirs) {
        assert_eq!(
            track_paths(&text),
            [
                "%Hero:frame",
                "../%Overlay/Caption:text",
                "%Overlay:visible",
                "%Hero:scale"
            ],
            "{text}"
        );
        assert!(said.iter().any(|d| d.contains("%Hero:scale")), "{said:?}");
    }
}

#[test]
fn unique_name_steps_in_the_middle_of_a_property_path_follow_a_rename() {
    let paths = "focus_next = NodePath(\"../%Label/Icon\")\nfocus_previous = NodePath(\"./../%Label:text\")\n";
    let renamed = "focus_next = NodePath(\"../%Title/Icon\")\nfocus_previous = NodePath(\"./../%Title:text\")\n";
    let base = unique4("Label", true, "");
    let ours = unique4("Title", true, "");
    let theirs = unique4("Label", true, paths);
    for (text, _) in both_ways(&base, &ours, &theirs) {
        assert_eq!(text, unique4("Title", true, renamed));
    }
}

#[test]
fn unique_name_steps_read_inside_an_instanced_scene_stay_as_written() {
    // `Inst/%Label` looks in the instanced scene's unique names, not this scene's: this
    // scene's `Label` renamed is not what it names.
    let with_instance = |label: &str, button: &str| {
        unique4(label, true, button)
            .replace(
                "[gd_scene format=3 uid=\"uid://cuniq1\"]\n",
                "[gd_scene load_steps=2 format=3 uid=\"uid://cuniq1\"]\n\n\
                 [ext_resource type=\"PackedScene\" path=\"res://inner.tscn\" id=\"1_in\"]\n",
            )
            .replace(
                "[node name=\"Button\"",
                "[node name=\"Inst\" parent=\".\" instance=ExtResource(\"1_in\")]\n\n\
                 [node name=\"Button\"",
            )
    };
    let paths =
        "focus_next = NodePath(\"../Inst/%Label\")\nfocus_previous = NodePath(\"%Label\")\n";
    let want = "focus_next = NodePath(\"../Inst/%Label\")\nfocus_previous = NodePath(\"%Title\")\n";
    let base = with_instance("Label", "");
    let ours = with_instance("Title", "");
    let theirs = with_instance("Label", paths);
    for (text, _) in both_ways(&base, &ours, &theirs) {
        assert_eq!(text, with_instance("Title", want));
    }
}
