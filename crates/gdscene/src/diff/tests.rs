use super::nodes::lis_members;
use super::*;

pub(super) fn sc(t: &str) -> Scene {
    Scene::parse(t.as_bytes()).unwrap()
}

pub(super) fn d(a: &str, b: &str) -> DiffReport {
    diff(&sc(a), &sc(b))
}

pub(super) fn kinds(r: &DiffReport) -> Vec<String> {
    r.changes
        .iter()
        .map(|c| format!("{}:{}", c.subject.kind(), c.detail.kind()))
        .collect()
}

fn noise(r: &DiffReport) -> Vec<NoiseKind> {
    r.noise.iter().map(|n| n.kind).collect()
}

const BASE: &str = r#"[gd_scene load_steps=4 format=3 uid="uid://scene"]

[ext_resource type="Script" path="res://player.gd" id="1_aaaaa"]
[ext_resource type="Texture2D" uid="uid://tex" path="res://icon.png" id="2_bbbbb"]

[sub_resource type="CircleShape2D" id="CircleShape2D_x1"]
radius = 4.0

[sub_resource type="RectangleShape2D" id="RectangleShape2D_y1"]
size = Vector2(2, 3)

[node name="Root" type="Node2D"]
script = ExtResource("1_aaaaa")
speed = 10

[node name="Sprite" type="Sprite2D" parent="."]
texture = ExtResource("2_bbbbb")
position = Vector2(0.707107, 1)

[node name="Body" type="Area2D" parent="." groups=["a", "b"]]

[node name="Shape" type="CollisionShape2D" parent="Body"]
shape = SubResource("CircleShape2D_x1")

[node name="Box" type="CollisionShape2D" parent="Body"]
shape = SubResource("RectangleShape2D_y1")

[connection signal="body_entered" from="Body" to="." method="_on_body"]
"#;

#[test]
fn identical_files_have_no_changes_and_no_noise() {
    let r = d(BASE, BASE);
    assert!(r.is_empty(), "{r:?}");
    assert!(r.noise.is_empty(), "{:?}", r.noise);
}

#[test]
fn noise_ids_renamed_with_same_content() {
    let b = BASE
        .replace("1_aaaaa", "1_zzzzz")
        .replace("CircleShape2D_x1", "CircleShape2D_q9")
        .replace("RectangleShape2D_y1", "RectangleShape2D_w7");
    let r = d(BASE, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
    assert!(noise(&r).contains(&NoiseKind::IdRenamed), "{:?}", r.noise);
}

#[test]
fn noise_ids_swapped_between_two_subs_is_not_a_change() {
    // The two sub ids trade places and their order flips: content still matches.
    let b = BASE
        .replace("CircleShape2D_x1", "TMP")
        .replace("RectangleShape2D_y1", "CircleShape2D_x1")
        .replace("TMP", "RectangleShape2D_y1");
    let r = d(BASE, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
}

#[test]
fn noise_float_respelling() {
    let r = d(
        BASE,
        &BASE.replace("Vector2(0.707107, 1)", "Vector2(0.70710677, 1.0)"),
    );
    assert!(r.is_empty(), "{:?}", r.changes);
    assert_eq!(noise(&r), [NoiseKind::Respelled]);
}

#[test]
fn noise_load_steps() {
    let r = d(BASE, &BASE.replace("load_steps=4 ", ""));
    assert!(r.is_empty());
    assert_eq!(noise(&r), [NoiseKind::LoadSteps]);
}

#[test]
fn noise_uid_added_to_ext_resource() {
    let b = BASE.replace(
        "type=\"Script\" path=",
        "type=\"Script\" uid=\"uid://scr\" path=",
    );
    let r = d(BASE, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
    assert_eq!(noise(&r), [NoiseKind::UidAdded]);
}

#[test]
fn noise_unique_ids_added_by_a_resave() {
    let mut n = 0;
    let b: String = BASE
        .lines()
        .map(|l| {
            if l.starts_with("[node") {
                n += 1;
                format!("{} unique_id={}]\n", &l[..l.len() - 1], 100 + n)
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let r = d(BASE, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
    assert!(noise(&r).iter().all(|k| *k == NoiseKind::UniqueIdAdded));
    assert_eq!(r.noise.len(), 5);
}

#[test]
fn noise_resources_reordered() {
    let circle = "[sub_resource type=\"CircleShape2D\" id=\"CircleShape2D_x1\"]\nradius = 4.0\n\n";
    let rect = "[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_y1\"]\nsize = Vector2(2, 3)\n\n";
    let b = BASE
        .replace(circle, "")
        .replace(rect, &format!("{rect}{circle}"));
    assert_ne!(b, BASE);
    let r = d(BASE, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
    assert_eq!(noise(&r), [NoiseKind::Reordered]);
}

#[test]
fn property_added_removed_changed() {
    let b = BASE
        .replace("speed = 10\n", "speed = 12\njump = true\n")
        .replace("position = Vector2(0.707107, 1)\n", "");
    let r = d(BASE, &b);
    assert_eq!(
        kinds(&r),
        [
            "node:property_changed",
            "node:property_added",
            "node:property_removed"
        ]
    );
    match &r.changes[0].detail {
        Detail::PropertyChanged { key, old, new, .. } => assert_eq!(
            (key.as_str(), old.as_str(), new.as_str()),
            ("speed", "10", "12")
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&r.changes[0].subject, Subject::Node { path, .. } if path == "."));
    assert!(matches!(&r.changes[2].subject, Subject::Node { path, .. } if path == "Sprite"));
}

#[test]
fn vector_changes_are_per_component() {
    let r = d(
        BASE,
        &BASE.replace("Vector2(0.707107, 1)", "Vector2(0.707107, 5)"),
    );
    match &r.changes[0].detail {
        Detail::PropertyChanged {
            delta: Delta::Components(c),
            ..
        } => {
            assert_eq!(c, &[("y".to_string(), "1".to_string(), "5".to_string())])
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn packed_arrays_summarised() {
    let a = BASE.replace(
        "speed = 10",
        "pts = PackedVector2Array(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5)",
    );
    let b = BASE.replace(
        "speed = 10",
        "pts = PackedVector2Array(0, 0, 1, 9, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)",
    );
    let r = d(&a, &b);
    match &r.changes[0].detail {
        Detail::PropertyChanged {
            old,
            delta:
                Delta::Packed {
                    old_len,
                    new_len,
                    changed,
                    ..
                },
            ..
        } => {
            assert_eq!((*old_len, *new_len, *changed), (6, 7, 1));
            assert_eq!(old, "PackedVector2Array(6 elements)");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn long_values_are_shortened() {
    let long = "x".repeat(500);
    let r = d(
        BASE,
        &BASE.replace("speed = 10", &format!("speed = \"{long}\"")),
    );
    match &r.changes[0].detail {
        Detail::PropertyChanged { new, .. } => {
            assert!(new.len() <= VALUE_LIMIT + 3 && new.ends_with('…'))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn node_added_and_removed() {
    let b = BASE.replace(
        "[node name=\"Body\"",
        "[node name=\"Extra\" type=\"Node\" parent=\".\"]\nfoo = 1\n\n[node name=\"Body\"",
    );
    let b = b.replace("[node name=\"Box\" type=\"CollisionShape2D\" parent=\"Body\"]\nshape = SubResource(\"RectangleShape2D_y1\")\n", "");
    let r = d(BASE, &b);
    let k = kinds(&r);
    assert!(k.contains(&"node:added".to_string()), "{k:?}");
    assert!(k.contains(&"node:removed".to_string()), "{k:?}");
    // The rectangle is no longer used by anything, but the file still has it: no change.
    let added = r
        .changes
        .iter()
        .find(|c| c.detail.kind() == "added")
        .unwrap();
    assert!(
        matches!(&added.subject, Subject::Node { path, type_name: Some(t), .. } if path == "Extra" && t == "Node")
    );
    assert!(
        matches!(&added.detail, Detail::Added { properties } if properties == &[("foo".to_string(), "1".to_string())])
    );
}

#[test]
fn node_renamed_children_follow() {
    let b = BASE
        .replace("name=\"Body\"", "name=\"Hitbox\"")
        .replace("parent=\"Body\"", "parent=\"Hitbox\"")
        .replace("from=\"Body\"", "from=\"Hitbox\"");
    let r = d(BASE, &b);
    assert_eq!(kinds(&r), ["node:renamed"], "{:?}", r.changes);
    assert!(
        matches!(&r.changes[0].detail, Detail::Renamed { old, new } if old == "Body" && new == "Hitbox")
    );
}

#[test]
fn node_renamed_by_unique_id() {
    let a = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\" unique_id=1]\n\n[node name=\"A\" type=\"Node\" parent=\".\" unique_id=2]\nx = 1\n";
    let b = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\" unique_id=1]\n\n[node name=\"B\" type=\"Node\" parent=\".\" unique_id=2]\nx = 2\n";
    let r = d(a, b);
    assert_eq!(kinds(&r), ["node:renamed", "node:property_changed"]);
}

#[test]
fn node_moved() {
    let b = BASE.replace(
        "[node name=\"Box\" type=\"CollisionShape2D\" parent=\"Body\"]",
        "[node name=\"Box\" type=\"CollisionShape2D\" parent=\".\"]",
    );
    let r = d(BASE, &b);
    assert_eq!(kinds(&r), ["node:moved"], "{:?}", r.changes);
    assert!(
        matches!(&r.changes[0].detail, Detail::Moved { old_parent, new_parent } if old_parent == "Body" && new_parent == ".")
    );
}

#[test]
fn node_reordered() {
    let shape = "[node name=\"Shape\" type=\"CollisionShape2D\" parent=\"Body\"]\nshape = SubResource(\"CircleShape2D_x1\")\n\n";
    let b = BASE
        .replace(shape, "")
        .replace("\n[connection", &format!("\n{}[connection", shape));
    let r = d(BASE, &b);
    assert_eq!(kinds(&r), ["node:reordered"], "{:?}", r.changes);
}

#[test]
fn type_script_instance_changes() {
    let b = BASE
        .replace(
            "name=\"Sprite\" type=\"Sprite2D\"",
            "name=\"Sprite\" type=\"AnimatedSprite2D\"",
        )
        .replace("path=\"res://player.gd\"", "path=\"res://hero.gd\"");
    let r = d(BASE, &b);
    let k = kinds(&r);
    // A different script path is a different ext_resource: the node's script changes.
    assert!(k.contains(&"node:field_changed".to_string()), "{k:?}");
    let fields: Vec<&str> = r
        .changes
        .iter()
        .filter_map(|c| match &c.detail {
            Detail::Field { field, .. } => Some(field.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        fields.contains(&"script") && fields.contains(&"type"),
        "{fields:?}"
    );
    assert!(
        k.contains(&"ext_resource:added".to_string())
            && k.contains(&"ext_resource:removed".to_string()),
        "{k:?}"
    );
    let inst_a = "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n[ext_resource type=\"PackedScene\" path=\"res://f.tscn\" id=\"2\"]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"E\" parent=\".\" instance=ExtResource(\"1\")]\n";
    let inst_b = inst_a.replace("instance=ExtResource(\"1\")", "instance=ExtResource(\"2\")");
    let r = d(inst_a, &inst_b);
    assert!(r.changes.iter().any(|c| matches!(&c.detail, Detail::Field { field, new: Some(n), .. } if field == "instance" && n.contains("res://f.tscn"))), "{:?}", r.changes);
}

#[test]
fn groups_added_and_removed() {
    let r = d(
        BASE,
        &BASE.replace("groups=[\"a\", \"b\"]", "groups=[\"b\", \"c\"]"),
    );
    assert_eq!(kinds(&r), ["node:group_added", "node:group_removed"]);
}

#[test]
fn sub_resource_changed_lists_its_users() {
    let r = d(BASE, &BASE.replace("radius = 4.0", "radius = 5.0"));
    assert_eq!(kinds(&r), ["sub_resource:property_changed"]);
    assert!(
        matches!(&r.changes[0].subject, Subject::SubResource { users, .. } if users == &["Body/Shape".to_string()])
    );
}

#[test]
fn sub_resource_changed_and_renamed_matched_by_use() {
    let b = BASE
        .replace("radius = 4.0", "radius = 5.0")
        .replace("CircleShape2D_x1", "CircleShape2D_new");
    let r = d(BASE, &b);
    assert_eq!(
        kinds(&r),
        ["sub_resource:property_changed"],
        "{:?}",
        r.changes
    );
}

#[test]
fn ext_resource_moved_file_same_uid() {
    let r = d(BASE, &BASE.replace("res://icon.png", "res://art/icon.png"));
    assert_eq!(kinds(&r), ["ext_resource:field_changed"], "{:?}", r.changes);
    assert!(
        matches!(&r.changes[0].subject, Subject::ExtResource { users, .. } if users == &["Sprite".to_string()])
    );
}

#[test]
fn connections_and_editables() {
    let b = BASE.replace("method=\"_on_body\"]", "method=\"_on_hit\"]")
        + "\n[editable path=\"Body\"]\n";
    let r = d(BASE, &b);
    assert_eq!(
        kinds(&r),
        ["connection:added", "connection:removed", "editable:added"]
    );
    let b = BASE.replace("method=\"_on_body\"]", "method=\"_on_body\" flags=3]");
    let r = d(BASE, &b);
    assert_eq!(kinds(&r), ["connection:field_changed"]);
}

#[test]
fn header_format_change_is_a_change() {
    let r = d(BASE, &BASE.replace("format=3", "format=4"));
    assert_eq!(kinds(&r), ["header:field_changed"]);
}

#[test]
fn added_file_lists_everything() {
    let r = diff_files(None, Some(&sc(BASE)));
    let k = kinds(&r);
    assert_eq!(k.iter().filter(|x| *x == "node:added").count(), 5);
    assert!(k.contains(&"sub_resource:added".to_string()));
    assert!(!k.iter().any(|x| x.starts_with("header")));
    assert!(diff_files(Some(&sc(BASE)), None)
        .changes
        .iter()
        .all(|c| c.detail.kind() == "removed"));
}

#[test]
fn tres_main_resource_properties() {
    let a = "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nfoo = 1\n";
    let r = d(a, &a.replace("foo = 1", "foo = 2"));
    assert_eq!(kinds(&r), ["resource:property_changed"]);
}

#[test]
fn godot3_int_ids() {
    let a = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://p.gd\" type=\"Script\" id=1]\n\n[sub_resource type=\"CircleShape2D\" id=1]\nradius = 2.0\n\n[node name=\"R\" type=\"Node2D\"]\nscript = ExtResource( 1 )\n\n[node name=\"S\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource( 1 )\n";
    let b = a
        .replace("id=1]\nradius", "id=7]\nradius")
        .replace("SubResource( 1 )", "SubResource( 7 )");
    let r = d(a, &b);
    assert!(r.is_empty(), "{:?}", r.changes);
}

#[test]
fn lis_keeps_longest_run() {
    assert_eq!(lis_members(&[0, 2, 1, 3]), [true, false, true, true]);
    assert_eq!(lis_members(&[]), Vec::<bool>::new());
}

#[test]
fn int_becoming_float_is_a_change_not_a_respelling() {
    let a = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\ntarget = 1\nspeed = 2.0\nscale = 1.0\narr = [1, 2.5]\n";
    let b = a
        .replace("target = 1\n", "target = 1.0\n")
        .replace("speed = 2.0\n", "speed = 2\n")
        .replace("scale = 1.0\n", "scale = 1.00\n");
    let r = d(a, &b);
    assert_eq!(
        kinds(&r),
        ["node:property_changed", "node:property_changed"],
        "{:?}",
        r.changes
    );
    let keys: Vec<&str> = r
        .changes
        .iter()
        .filter_map(|c| match &c.detail {
            Detail::PropertyChanged { key, .. } => Some(key.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(keys, ["target", "speed"]);
    // `1.0` -> `1.00` is still only a re-spelling.
    assert_eq!(noise(&r), [NoiseKind::Respelled]);
}

/// A Godot 3 scene and its Godot 4 conversion: classes renamed, nodes named after their
/// class renamed with them.
const G3_SCENE: &str = r#"[gd_scene load_steps=2 format=2]

[ext_resource path="res://player.gd" type="Script" id=1]

[node name="World" type="Spatial"]

[node name="Sun" type="DirectionalLight" parent="."]
transform = Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 0 )
shadow_enabled = true

[node name="KinematicBody2D" type="KinematicBody2D" parent="."]
script = ExtResource( 1 )
speed = 200.0

[node name="Sprite" type="Sprite" parent="KinematicBody2D"]
"#;

const G4_SCENE: &str = r#"[gd_scene load_steps=2 format=3 uid="uid://b8v2wqj0w5c1x"]

[ext_resource type="Script" path="res://player.gd" id="1"]

[node name="World" type="Node3D"]

[node name="Sun" type="DirectionalLight3D" parent="."]
transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 0)
shadow_enabled = true

[node name="CharacterBody2D" type="CharacterBody2D" parent="."]
script = ExtResource("1")
speed = 200.0

[node name="Sprite" type="Sprite2D" parent="CharacterBody2D"]
"#;

fn type_change(r: &DiffReport, path: &str) -> Option<(String, String)> {
    r.changes
        .iter()
        .find_map(|c| match (&c.subject, &c.detail) {
            (Subject::Node { path: p, .. }, Detail::Field { field, old, new })
                if p == path && field == "type" =>
            {
                Some((old.clone()?, new.clone()?))
            }
            _ => None,
        })
}

#[test]
fn godot3_to_4_type_renames_are_type_changes_on_the_same_node() {
    let r = d(G3_SCENE, G4_SCENE);
    let nodes: Vec<String> = kinds(&r)
        .into_iter()
        .filter(|k| k.starts_with("node:"))
        .collect();
    assert!(
        !nodes
            .iter()
            .any(|k| k == "node:added" || k == "node:removed"),
        "{nodes:?}"
    );
    let t = |p: &str| type_change(&r, p);
    assert_eq!(t("."), Some(("Spatial".into(), "Node3D".into())));
    assert_eq!(
        t("Sun"),
        Some(("DirectionalLight".into(), "DirectionalLight3D".into()))
    );
    // Renamed with its class; its child follows.
    let body = "CharacterBody2D";
    assert_eq!(t(body), Some(("KinematicBody2D".into(), body.into())));
    assert_eq!(
        t("CharacterBody2D/Sprite"),
        Some(("Sprite".into(), "Sprite2D".into()))
    );
    assert!(r.changes.iter().any(|c| matches!(&c.detail,
        Detail::Renamed { old, new } if old == "KinematicBody2D" && new == body)));
}

#[test]
fn unrelated_type_at_another_name_is_still_removed_and_added() {
    let b = G3_SCENE.replace(
        "name=\"Sun\" type=\"DirectionalLight\"",
        "name=\"Moon\" type=\"OmniLight\"",
    );
    let r = d(G3_SCENE, &b);
    let mut k = kinds(&r);
    k.sort();
    assert_eq!(k, ["node:added", "node:removed"], "{:?}", r.changes);
}

/// Issue 12 §4, in the editor's style: one re-save renames every sub_resource id,
/// re-spells floats (`0.333333` -> `0.33333334`) and reorders the sub_resources. The
/// Gradient is used only by the GradientTexture2D.
const TORCH: &str = r#"[gd_scene load_steps=5 format=3 uid="uid://bq5lcy1c4l0xv"]

[ext_resource type="Script" path="res://torch.gd" id="1_k3x8w"]

[sub_resource type="CircleShape2D" id="CircleShape2D_8f2kq"]
radius = 12.0

[sub_resource type="Gradient" id="Gradient_p1t3r"]
offsets = PackedFloat32Array(0, 0.333333, 1)
colors = PackedColorArray(1, 0.6, 0.2, 1, 0.9, 0.3, 0.1, 0.666667, 0, 0, 0, 0)

[sub_resource type="GradientTexture2D" id="GradientTexture2D_w7m4n"]
gradient = SubResource("Gradient_p1t3r")
fill = 1
fill_from = Vector2(0.5, 0.5)
fill_to = Vector2(0.9, 0.1)

[node name="Torch" type="Node2D"]
script = ExtResource("1_k3x8w")

[node name="Light" type="PointLight2D" parent="."]
energy = 1.5
texture = SubResource("GradientTexture2D_w7m4n")

[node name="Area2D" type="Area2D" parent="."]

[node name="CollisionShape2D" type="CollisionShape2D" parent="Area2D"]
shape = SubResource("CircleShape2D_8f2kq")
"#;

const TORCH_RESAVED: &str = r#"[gd_scene load_steps=5 format=3 uid="uid://bq5lcy1c4l0xv"]

[ext_resource type="Script" path="res://torch.gd" id="1_k3x8w"]

[sub_resource type="Gradient" id="Gradient_x2v9c"]
offsets = PackedFloat32Array(0, 0.33333334, 1)
colors = PackedColorArray(1, 0.6, 0.2, 1, 0.9, 0.3, 0.1, 0.6666667, 0, 0, 0, 0)

[sub_resource type="GradientTexture2D" id="GradientTexture2D_d5h1j"]
gradient = SubResource("Gradient_x2v9c")
fill = 1
fill_from = Vector2(0.5, 0.5)
fill_to = Vector2(0.9, 0.1)

[sub_resource type="CircleShape2D" id="CircleShape2D_q4y6s"]
radius = 12.0

[node name="Torch" type="Node2D"]
script = ExtResource("1_k3x8w")

[node name="Light" type="PointLight2D" parent="."]
energy = 1.5
texture = SubResource("GradientTexture2D_d5h1j")

[node name="Area2D" type="Area2D" parent="."]

[node name="CollisionShape2D" type="CollisionShape2D" parent="Area2D"]
shape = SubResource("CircleShape2D_q4y6s")
"#;

#[test]
fn resave_renaming_respelling_and_reordering_at_once_is_no_change() {
    let r = d(TORCH, TORCH_RESAVED);
    assert!(r.is_empty(), "{:?}", r.changes);
    let n = noise(&r);
    for k in [
        NoiseKind::IdRenamed,
        NoiseKind::Respelled,
        NoiseKind::Reordered,
    ] {
        assert!(n.contains(&k), "{k:?} missing from {n:?}");
    }
    // A real edit of the Gradient behind the texture is still seen, on the Gradient.
    let edited = TORCH_RESAVED.replace("0.9, 0.3, 0.1", "0.2, 0.3, 0.9");
    let r = d(TORCH, &edited);
    assert_eq!(
        kinds(&r),
        ["sub_resource:property_changed"],
        "{:?}",
        r.changes
    );
}

/// Issue 29 §10: N siblings all replaced by N others (a regenerated level) cost N x N
/// likenesses to pair; the pairing stops at its budget, linear in the nodes, and the
/// nodes left are reported removed and added. A rename among few siblings is still seen.
#[test]
fn rename_pairing_is_bounded_on_replaced_siblings() {
    let level = |prefix: &str, n: usize, seed: usize| {
        let mut t =
            String::from("[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n");
        for i in 0..n {
            let v = (i * 7919 + seed) % 4096;
            t += &format!(
                "[node name=\"{prefix}{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({v}, {})\nrotation = {}.5\n\n",
                v / 3,
                v % 97
            );
        }
        t
    };
    let n = 800;
    let (a, b) = (sc(&level("Old", n, 1)), sc(&level("New", n, 2)));
    let mut d = context::Differ::new(&a, &b);
    matching::pair_nodes_by_key(&mut d);
    let spent = matching::pair_renamed_and_moved(&mut d);
    let nodes = a.nodes.len() + b.nodes.len();
    let bound =
        crate::model::likeness::BUDGET_BASE + crate::model::likeness::BUDGET_PER_NODE * nodes;
    assert!(spent <= bound, "{spent} likenesses for {nodes} nodes");
    assert!(spent > n, "the pairing compared candidates: {spent}");
    assert!(n * n > bound, "the case must be beyond the budget");
    let r = d_renamed(
        &level("Old", 3, 1),
        &level("Old", 3, 1).replace("Old1\"", "Hero\""),
    );
    assert!(r.contains("Renamed"), "{r}");
}

fn d_renamed(a: &str, b: &str) -> String {
    format!("{:?}", d(a, b).changes)
}
