//! Nothing lost behind references (issue 12 §1 and §3): when one side deletes a node or
//! the property that holds a sub_resource, or a node that a NodePath or a connection
//! names, and the other side edits that resource or writes that path or connection, the
//! merge conflicts (as git does) instead of dropping the edit as unused. Only the merge's
//! own orphans are dropped, each listed as a decision; a sub_resource a side added while
//! leaving it unused stays. Scenes are written in the editor's own style.

mod common;

use common::{assert_conflict, merged, text};
use gdscene::merge::{merge, Decision, MergeOptions};

const HITBOX_BASE: &str = r#"[gd_scene load_steps=2 format=3 uid="uid://b1x2y3z4a5b6c"]

[sub_resource type="CircleShape2D" id="CircleShape2D_k3m2p"]
radius = 12.0

[node name="Player" type="CharacterBody2D"]

[node name="Hitbox" type="Area2D" parent="."]

[node name="CollisionShape2D" type="CollisionShape2D" parent="Hitbox"]
shape = SubResource("CircleShape2D_k3m2p")

[node name="Sprite2D" type="Sprite2D" parent="."]
"#;

const HITBOX_DELETED: &str = r#"[gd_scene format=3 uid="uid://b1x2y3z4a5b6c"]

[node name="Player" type="CharacterBody2D"]

[node name="Sprite2D" type="Sprite2D" parent="."]
"#;

#[test]
fn deleted_node_against_its_edited_shape_conflicts() {
    let theirs = HITBOX_BASE.replace("radius = 12.0", "radius = 20.0");
    let m = merged(HITBOX_BASE, HITBOX_DELETED, &theirs);
    assert!(!m.is_clean(), "the radius edit was dropped:\n{}", text(&m));
    assert_conflict(
        &m,
        &["CollisionShape2D", "CircleShape2D_k3m2p", "CircleShape2D"],
    );
    let out = text(&m);
    assert!(out.contains("radius = 20.0"), "{out}");
    assert!(
        out.contains("[sub_resource type=\"CircleShape2D\" id=\"CircleShape2D_k3m2p\"]"),
        "{out}"
    );
    // Both ways round.
    let m = merged(HITBOX_BASE, &theirs, HITBOX_DELETED);
    assert_conflict(&m, &["CollisionShape2D", "CircleShape2D_k3m2p"]);
}

#[test]
fn deleted_node_with_an_unedited_shape_goes_and_the_drop_is_explained() {
    let theirs = HITBOX_BASE.replace(
        "[node name=\"Sprite2D\" type=\"Sprite2D\" parent=\".\"]\n",
        "[node name=\"Sprite2D\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(0, -8)\n",
    );
    let m = merged(HITBOX_BASE, HITBOX_DELETED, &theirs);
    assert!(m.is_clean(), "{:#?}", m.conflicts);
    let out = text(&m);
    assert!(!out.contains("CircleShape2D"), "{out}");
    assert!(out.contains("position = Vector2(0, -8)"), "{out}");
    let dropped = m.decisions.iter().any(|d| {
        matches!(d, Decision::UnusedResourceDropped { section: "sub_resource", id } if id == "CircleShape2D_k3m2p")
    });
    assert!(dropped, "{:#?}", m.decisions);
}

const LIBRARY_BASE: &str = r#"[gd_scene load_steps=4 format=3 uid="uid://c8d7e6f5a4b3x"]

[sub_resource type="Animation" id="Animation_i2d1e"]
resource_name = "idle"
length = 0.5

[sub_resource type="Animation" id="Animation_j7u3p"]
resource_name = "jump"
length = 0.6
tracks/0/type = "value"
tracks/0/imported = false
tracks/0/enabled = true
tracks/0/path = NodePath("Sprite2D:position")
tracks/0/interp = 1
tracks/0/loop_wrap = true
tracks/0/keys = {
"times": PackedFloat32Array(0, 0.3),
"transitions": PackedFloat32Array(1, 1),
"update": 0,
"values": [Vector2(0, 0), Vector2(0, -16)]
}

[sub_resource type="AnimationLibrary" id="AnimationLibrary_m4n1q"]
_data = {
&"idle": SubResource("Animation_i2d1e"),
&"jump": SubResource("Animation_j7u3p")
}

[node name="Player" type="CharacterBody2D"]

[node name="Sprite2D" type="Sprite2D" parent="."]

[node name="AnimationPlayer" type="AnimationPlayer" parent="."]
libraries = {
&"": SubResource("AnimationLibrary_m4n1q")
}
"#;

#[test]
fn animation_removed_from_a_library_against_its_edited_keys_conflicts() {
    let ours = LIBRARY_BASE
        .replace("load_steps=4", "load_steps=3")
        .replace(",\n&\"jump\": SubResource(\"Animation_j7u3p\")", "");
    let start = ours
        .find("[sub_resource type=\"Animation\" id=\"Animation_j7u3p\"]")
        .unwrap();
    let end = ours
        .find("[sub_resource type=\"AnimationLibrary\"")
        .unwrap();
    let ours = format!("{}{}", &ours[..start], &ours[end..]);
    let theirs = LIBRARY_BASE.replace("Vector2(0, -16)]", "Vector2(0, -24)]");
    let m = merged(LIBRARY_BASE, &ours, &theirs);
    assert!(!m.is_clean(), "the key edit was dropped:\n{}", text(&m));
    assert_conflict(&m, &["AnimationLibrary_m4n1q", "_data", "Animation_j7u3p"]);
    let out = text(&m);
    assert!(out.contains("Vector2(0, -24)"), "{out}");
    assert!(out.contains("id=\"Animation_j7u3p\"]"), "{out}");
}

const GODOT3_BASE: &str = r#"[gd_scene load_steps=3 format=2]

[sub_resource type="Animation" id=1]
resource_name = "idle"
length = 0.5

[sub_resource type="Animation" id=2]
resource_name = "jump"
length = 0.6
tracks/0/type = "value"
tracks/0/path = NodePath("Sprite:position")
tracks/0/interp = 1
tracks/0/loop_wrap = true
tracks/0/imported = false
tracks/0/enabled = true
tracks/0/keys = {
"times": PoolRealArray( 0, 0.3 ),
"transitions": PoolRealArray( 1, 1 ),
"update": 0,
"values": [ Vector2( 0, 0 ), Vector2( 0, -16 ) ]
}

[node name="Player" type="KinematicBody2D"]

[node name="Sprite" type="Sprite" parent="."]

[node name="AnimationPlayer" type="AnimationPlayer" parent="."]
anims/idle = SubResource( 1 )
anims/jump = SubResource( 2 )
"#;

const GODOT3_TRACK: &str = r#"tracks/1/type = "value"
tracks/1/path = NodePath("Sprite:modulate")
tracks/1/interp = 1
tracks/1/loop_wrap = true
tracks/1/imported = false
tracks/1/enabled = true
tracks/1/keys = {
"times": PoolRealArray( 0 ),
"transitions": PoolRealArray( 1 ),
"update": 0,
"values": [ Color( 1, 1, 1, 1 ) ]
}
"#;

#[test]
fn godot3_animation_removed_from_a_player_against_a_new_track_conflicts() {
    let start = GODOT3_BASE
        .find("[sub_resource type=\"Animation\" id=2]")
        .unwrap();
    let end = GODOT3_BASE.find("[node name=\"Player\"").unwrap();
    let ours = format!("{}{}", &GODOT3_BASE[..start], &GODOT3_BASE[end..])
        .replace("load_steps=3", "load_steps=2")
        .replace("anims/jump = SubResource( 2 )\n", "");
    let theirs = GODOT3_BASE.replace(
        "Vector2( 0, -16 ) ]\n}\n",
        &format!("Vector2( 0, -16 ) ]\n}}\n{GODOT3_TRACK}"),
    );
    let m = merged(GODOT3_BASE, &ours, &theirs);
    assert!(!m.is_clean(), "the new track was dropped:\n{}", text(&m));
    assert_conflict(&m, &["AnimationPlayer", "anims/jump", "sub_resource \"2\""]);
    assert!(
        text(&m).contains("tracks/1/path = NodePath(\"Sprite:modulate\")"),
        "{}",
        text(&m)
    );
}

const HURTBOX_BASE: &str = r#"[gd_scene load_steps=2 format=3 uid="uid://d1e2f3a4b5c6x"]

[ext_resource type="Script" uid="uid://bq4x1y2z3w4v5" path="res://player.gd" id="1_p4k2m"]

[node name="Player" type="CharacterBody2D"]
script = ExtResource("1_p4k2m")

[node name="Hurtbox" type="Area2D" parent="."]

[node name="Sprite2D" type="Sprite2D" parent="."]
"#;

#[test]
fn connection_from_a_deleted_node_conflicts() {
    let ours = HURTBOX_BASE.replace(
        "[node name=\"Hurtbox\" type=\"Area2D\" parent=\".\"]\n\n",
        "",
    );
    let theirs = format!(
        "{HURTBOX_BASE}\n[connection signal=\"area_entered\" from=\"Hurtbox\" to=\".\" method=\"_on_hurtbox_area_entered\"]\n"
    );
    let m = merged(HURTBOX_BASE, &ours, &theirs);
    assert!(
        !m.is_clean(),
        "the connection was merged against a deleted node:\n{}",
        text(&m)
    );
    assert_conflict(&m, &["Hurtbox", "area_entered"]);
}

const HERO_BASE: &str = r#"[gd_scene format=3 uid="uid://e5f6a7b8c9d0x"]

[node name="Main" type="Node2D"]

[node name="Hero" type="CharacterBody2D" parent="."]

[node name="Rig" type="RemoteTransform2D" parent="."]
"#;

#[test]
fn node_path_to_a_deleted_node_conflicts() {
    let ours = HERO_BASE.replace(
        "[node name=\"Hero\" type=\"CharacterBody2D\" parent=\".\"]\n\n",
        "",
    );
    let set = HERO_BASE.replace(
        "[node name=\"Rig\" type=\"RemoteTransform2D\" parent=\".\"]\n",
        "[node name=\"Rig\" type=\"RemoteTransform2D\" parent=\".\"]\nremote_path = NodePath(\"../Hero\")\n",
    );
    let added = format!(
        "{HERO_BASE}\n[node name=\"Follow\" type=\"RemoteTransform2D\" parent=\".\"]\nremote_path = NodePath(\"../Hero\")\n"
    );
    for theirs in [set, added] {
        let m = merged(HERO_BASE, &ours, &theirs);
        assert!(
            !m.is_clean(),
            "a NodePath to nothing merged clean:\n{}",
            text(&m)
        );
        assert_conflict(&m, &["Hero", "remote_path"]);
    }
}

#[test]
fn sub_resource_a_side_added_unused_stays() {
    let theirs = HITBOX_BASE
        .replace("load_steps=2", "load_steps=3")
        .replace(
            "[node name=\"Player\"",
            "[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_q8w2e\"]\nsize = Vector2(8, 8)\n\n[node name=\"Player\"",
        );
    let ours = HITBOX_BASE.replace(
        "[node name=\"Sprite2D\" type=\"Sprite2D\" parent=\".\"]\n",
        "[node name=\"Sprite2D\" type=\"Sprite2D\" parent=\".\"]\nvisible = false\n",
    );
    let m = merged(HITBOX_BASE, &ours, &theirs);
    assert!(m.is_clean(), "{:#?}", m.conflicts);
    let out = text(&m);
    assert!(
        out.contains("id=\"RectangleShape2D_q8w2e\"]\nsize = Vector2(8, 8)"),
        "{out}"
    );
    assert!(out.contains("visible = false"), "{out}");
}

/// The real merges of issue 12: git conflicts on both, and so must we.
#[test]
fn real_deletes_against_edited_built_in_resources_conflict() {
    let Some(shared) = common::shared_dir() else {
        eprintln!("skipped: no shared folder");
        return;
    };
    let cases = [
        (
            "GDQuest__godot-platformer-2d__54d20956d7__hook!-full-game__src__Game.tscn",
            "InfoLabel2",
            "GDScript",
        ),
        (
            "schnuet__ld-game-2020-4__d1208378a4__objects__stations__StomachStation.tscn",
            "AnimatedSprite",
            "SpriteFrames",
        ),
    ];
    for (dir, node, kind) in cases {
        let d = shared.join("merges").join(dir);
        let Ok(base) = std::fs::read(d.join("base.tscn")) else {
            eprintln!("skipped: no shared merges at {}", d.display());
            return;
        };
        let read = |f: &str| std::fs::read(d.join(f)).unwrap_or_default();
        let m = merge(
            &base,
            &read("ours.tscn"),
            &read("theirs.tscn"),
            &MergeOptions::default(),
        );
        assert_conflict(&m, &[node, kind]);
    }
}
