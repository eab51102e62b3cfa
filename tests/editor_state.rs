//! Saved editor state is no conflict (issue 39.1): bone poses, an animated sprite's frame,
//! AnimationTree parameters, blend shapes and values an AnimationPlayer track drives,
//! changed differently by both sides, take the scene's RESET animation value, else ours';
//! `--state=conflict` (or `TSCN_MERGE_STATE=conflict`) gives the hunk back.

mod common;

use gdscene::merge::{merge, Decision, MergeOptions, MergeOutcome};

fn run(base: &str, ours: &str, theirs: &str, opts: &MergeOptions) -> (MergeOutcome, String) {
    let out = merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), opts);
    let text = String::from_utf8_lossy(&out.text).into_owned();
    (out, text)
}

fn default_run(base: &str, ours: &str, theirs: &str) -> (MergeOutcome, String) {
    run(base, ours, theirs, &MergeOptions::default())
}

fn state_conflicts() -> MergeOptions {
    MergeOptions {
        saved_state_conflicts: true,
        ..MergeOptions::default()
    }
}

/// The `SavedStateKept` decisions: (node, keys, from).
fn kept(out: &MergeOutcome) -> Vec<(String, Vec<String>, &'static str)> {
    out.decisions
        .iter()
        .filter_map(|d| match d {
            Decision::SavedStateKept {
                node, keys, from, ..
            } => Some((node.clone(), keys.clone(), *from)),
            _ => None,
        })
        .collect()
}

const RIG: &str = r#"[gd_scene format=3 uid="uid://rig"]

[ext_resource type="PackedScene" uid="uid://model" path="res://reindeer.glb" id="1_m"]

[node name="Reindeer" type="Node3D" unique_id=10]

[node name="Model" parent="." unique_id=11 instance=ExtResource("1_m")]

[node name="Skeleton3D" parent="Model/metarig" index="0"]
bones/0/position = Vector3(0, 1.0475996, -0.6243254)
bones/7/rotation = Quaternion(-0.40708232, -0.017657515, -0.0461936, 0.9120518)
bones/8/rotation = Quaternion(-0.08152698, 0.0057096905, -0.006462828, 0.9966338)

[node name="Label" type="Label3D" parent="." unique_id=12]
text = "hi"
"#;

/// Both sides saved the rig in another pose: ours' pose stays, no hunk, one decision
/// naming the bones; theirs' real edit (the label) lands.
#[test]
fn bone_poses_both_sides_saved_keep_ours() {
    let ours = RIG
        .replace("0.9120518)", "0.98991114)")
        .replace("-0.6243254)", "-0.5)");
    let theirs = RIG
        .replace("0.9120518)", "0.90835)")
        .replace("0.9966338)", "0.99638)")
        .replace("-0.6243254)", "-0.7)")
        .replace("text = \"hi\"", "text = \"hello\"");
    let (out, t) = default_run(RIG, &ours, &theirs);
    assert!(out.is_clean(), "{t}");
    assert!(t.contains("0.98991114)") && t.contains("-0.5)"), "{t}");
    assert!(t.contains("0.99638)"), "theirs' one-sided pose change: {t}");
    assert!(t.contains("text = \"hello\""), "{t}");
    let k = kept(&out);
    assert_eq!(k.len(), 1, "{:?}", out.decisions);
    assert_eq!(k[0].0, "node \"Model/metarig/Skeleton3D\"");
    assert_eq!(k[0].1, ["bones/0/position", "bones/7/rotation"]);
    assert_eq!(k[0].2, "ours");
    let (strict, t) = run(RIG, &ours, &theirs, &state_conflicts());
    assert!(!strict.is_clean(), "{t}");
    common::assert_conflict(&strict, &["Skeleton3D", "bones/7/rotation"]);
}

const SPRITES: &str = r#"[gd_scene format=3 uid="uid://lvl"]

[ext_resource type="PackedScene" uid="uid://bot" path="res://flyer_bot.tscn" id="1_b"]
[ext_resource type="Texture2D" uid="uid://sheet" path="res://sheet.png" id="2_s"]

[node name="Level" type="Node2D" unique_id=1]

[node name="FlyerBot" parent="." unique_id=2 instance=ExtResource("1_b")]
position = Vector2(-477, 718)

[node name="AnimatedSprite2D" parent="FlyerBot" index="1"]
frame_progress = 0.7011954

[node name="Coin" type="AnimatedSprite2D" parent="." unique_id=3]
frame = 2
frame_progress = 0.3178083

[node name="Sheet" type="Sprite2D" parent="." unique_id=4]
texture = ExtResource("2_s")
hframes = 4
frame = 1
"#;

/// An animated sprite's frame is state (typed, or an override entry inside an instance);
/// a Sprite2D's `frame` picks a cell of its sheet, a real edit that conflicts.
#[test]
fn animated_frames_are_state_a_sprite_sheet_frame_is_not() {
    let ours = SPRITES
        .replace("0.7011954", "0.1618217")
        .replace(
            "frame = 2\nframe_progress = 0.3178083",
            "frame = 3\nframe_progress = 0.77841824",
        )
        .replace("frame = 1\n", "frame = 2\n");
    let theirs = SPRITES
        .replace("0.7011954", "0.5")
        .replace(
            "frame = 2\nframe_progress = 0.3178083",
            "frame = 0\nframe_progress = 0.50837183",
        )
        .replace("frame = 1\n", "frame = 3\n");
    let (out, t) = default_run(SPRITES, &ours, &theirs);
    assert_eq!(out.conflicts.len(), 1, "{t}");
    common::assert_conflict(&out, &["Sheet", "frame"]);
    assert!(t.contains("frame_progress = 0.1618217"), "{t}");
    assert!(t.contains("frame = 3\nframe_progress = 0.77841824"), "{t}");
    let nodes: Vec<String> = kept(&out).into_iter().map(|k| k.0).collect();
    assert_eq!(
        nodes,
        ["node \"FlyerBot/AnimatedSprite2D\"", "node \"Coin\""],
        "{:?}",
        out.decisions
    );
}

/// A node one side deleted whose only change on the other side is its saved frame is
/// deleted: the other side changed nothing a person set.
#[test]
fn a_deleted_node_whose_frame_alone_changed_is_deleted() {
    let ours = SPRITES.replace("0.7011954", "0.1618217");
    let theirs = SPRITES.replace(
        "[node name=\"AnimatedSprite2D\" parent=\"FlyerBot\" index=\"1\"]\nframe_progress = 0.7011954\n\n",
        "",
    );
    let (out, t) = default_run(SPRITES, &ours, &theirs);
    assert!(out.is_clean(), "{t}");
    assert!(!t.contains("AnimatedSprite2D\" parent=\"FlyerBot\""), "{t}");
    let (strict, t) = run(SPRITES, &ours, &theirs, &state_conflicts());
    assert!(!strict.is_clean(), "{t}");
}

const ANIMATED: &str = r#"[gd_scene format=3 uid="uid://door"]

[sub_resource type="Animation" id="Animation_reset"]
length = 0.001
tracks/0/type = "value"
tracks/0/imported = false
tracks/0/enabled = true
tracks/0/path = NodePath("Door:modulate")
tracks/0/interp = 1
tracks/0/loop_wrap = true
tracks/0/keys = {
"times": PackedFloat32Array(0),
"transitions": PackedFloat32Array(1),
"update": 0,
"values": [Color(1, 1, 1, 1)]
}

[sub_resource type="Animation" id="Animation_open"]
resource_name = "open"
tracks/0/type = "value"
tracks/0/imported = false
tracks/0/enabled = true
tracks/0/path = NodePath("Door:modulate")
tracks/0/interp = 1
tracks/0/loop_wrap = true
tracks/0/keys = {
"times": PackedFloat32Array(0, 1),
"transitions": PackedFloat32Array(1, 1),
"update": 0,
"values": [Color(1, 1, 1, 1), Color(1, 1, 1, 0)]
}
tracks/1/type = "value"
tracks/1/imported = false
tracks/1/enabled = true
tracks/1/path = NodePath("Door:position:y")
tracks/1/interp = 1
tracks/1/loop_wrap = true
tracks/1/keys = {
"times": PackedFloat32Array(0, 1),
"transitions": PackedFloat32Array(1, 1),
"update": 0,
"values": [0.0, -40.0]
}

[sub_resource type="AnimationLibrary" id="AnimationLibrary_d"]
_data = {
&"RESET": SubResource("Animation_reset"),
&"open": SubResource("Animation_open")
}

[node name="Room" type="Node2D" unique_id=1]

[node name="Door" type="Sprite2D" parent="." unique_id=2]
modulate = Color(1, 1, 1, 0.5)
position = Vector2(10, -20)
flip_h = true

[node name="Player" type="AnimationPlayer" parent="." unique_id=3]
libraries = {
&"": SubResource("AnimationLibrary_d")
}
"#;

/// Values an AnimationPlayer's track drives, saved mid-animation by both sides: the
/// RESET animation's value at time 0 where it has one (`modulate`), else ours'
/// (`position`, driven through its `y`); a property no track drives conflicts.
#[test]
fn animated_values_take_the_reset_value_else_ours() {
    let ours = ANIMATED
        .replace("Color(1, 1, 1, 0.5)", "Color(1, 1, 1, 0.25)")
        .replace("Vector2(10, -20)", "Vector2(10, -30)")
        .replace("flip_h = true", "flip_h = false");
    let theirs = ANIMATED
        .replace("Color(1, 1, 1, 0.5)", "Color(1, 1, 1, 0.75)")
        .replace("Vector2(10, -20)", "Vector2(10, -35)")
        .replace("flip_h = true\n", "");
    let (out, t) = default_run(ANIMATED, &ours, &theirs);
    assert_eq!(out.conflicts.len(), 1, "{t}");
    common::assert_conflict(&out, &["Door", "flip_h"]);
    assert!(t.contains("modulate = Color(1, 1, 1, 1)\n"), "{t}");
    assert!(t.contains("position = Vector2(10, -30)\n"), "{t}");
    let k = kept(&out);
    assert!(
        k.contains(&("node \"Door\"".into(), vec!["modulate".into()], "RESET")),
        "{k:?}"
    );
    assert!(
        k.contains(&("node \"Door\"".into(), vec!["position".into()], "ours")),
        "{k:?}"
    );
}

/// One side's change of saved state is that side's, as for any property.
#[test]
fn state_one_side_changed_is_that_sides() {
    let theirs = ANIMATED.replace("Color(1, 1, 1, 0.5)", "Color(1, 1, 1, 0.75)");
    let ours = ANIMATED.replace("flip_h = true", "flip_h = false");
    let (out, t) = default_run(ANIMATED, &ours, &theirs);
    assert!(out.is_clean(), "{t}");
    assert!(
        t.contains("Color(1, 1, 1, 0.75)") && t.contains("flip_h = false"),
        "{t}"
    );
    assert!(kept(&out).is_empty(), "{:?}", out.decisions);
}

/// AnimationTree parameters and blend shape weights are state too.
#[test]
fn tree_parameters_and_blend_shapes_are_state() {
    let base = r#"[gd_scene format=3]

[node name="Root" type="Node3D"]

[node name="Tree" type="AnimationTree" parent="."]
parameters/blend_position = Vector2(0.1, 0.2)

[node name="Face" type="MeshInstance3D" parent="."]
blend_shapes/Smile = 0.0
"#;
    let ours = base
        .replace("Vector2(0.1, 0.2)", "Vector2(0.5, 0.2)")
        .replace("Smile = 0.0", "Smile = 0.5");
    let theirs = base
        .replace("Vector2(0.1, 0.2)", "Vector2(0.3, 0.9)")
        .replace("Smile = 0.0", "Smile = 1.0");
    let (out, t) = default_run(base, &ours, &theirs);
    assert!(out.is_clean(), "{t}");
    assert!(
        t.contains("Vector2(0.5, 0.2)") && t.contains("Smile = 0.5"),
        "{t}"
    );
    assert_eq!(kept(&out).len(), 2, "{:?}", out.decisions);
}

/// The binary: `--state=conflict` and `TSCN_MERGE_STATE=conflict` leave the hunk.
#[test]
fn the_binary_restores_hunks_on_request() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ours = RIG.replace("0.9120518)", "0.98991114)");
    let theirs = RIG.replace("0.9120518)", "0.90835)");
    let files: Vec<std::path::PathBuf> = [("b", RIG), ("o", &ours), ("t", &theirs)]
        .iter()
        .map(|(n, text)| {
            let p = dir.path().join(format!("{n}.tscn"));
            std::fs::write(&p, text).expect("written");
            p
        })
        .collect();
    let merge = |extra: &[&str], env: Option<&str>| {
        let mut cmd = std::process::Command::new(common::bin());
        cmd.arg("merge").arg("-q").args(extra).args(&files);
        cmd.env_remove("TSCN_MERGE_STATE");
        if let Some(v) = env {
            cmd.env("TSCN_MERGE_STATE", v);
        }
        cmd.output().expect("runs").status.code()
    };
    assert_eq!(merge(&[], None), Some(0));
    assert_eq!(merge(&["--state=conflict"], None), Some(1));
    assert_eq!(merge(&[], Some("conflict")), Some(1));
    assert_eq!(merge(&["--state=resolve"], Some("conflict")), Some(0));
}
