//! Paths read in the tree of the side that wrote them, and false identities (issue 12
//! §2): a NodePath keeps what its side meant unless the *other* side moved or renamed
//! its target; a connection's `from`/`to` into an instanced scene follows a move of an
//! ancestor; two nodes both sides added under one name with different `unique_id`s are
//! a conflict of the whole nodes. Scenes are written in the editor's 4.6 style.

mod common;
#[path = "common/resolve.rs"]
mod resolve;

use common::{merged, run, text, valid};
use gdscene::merge::Decision;
use resolve::{resolve_all, Side};

const SPECTATOR: &str = r#"[gd_scene format=3 uid="uid://qb615fcqh8x0"]

[ext_resource type="Script" uid="uid://wq3v75egxo18" path="res://spectator.gd" id="1_ktigi"]
[ext_resource type="PackedScene" uid="uid://cn6s3kxlkt6ml" path="res://main.tscn" id="2_1qy5m"]

[node name="Spectator" type="Node2D" unique_id=1285989616]
script = ExtResource("1_ktigi")

[node name="HMDView" type="ColorRect" parent="." unique_id=301545676]
offset_right = 40.0
offset_bottom = 40.0

[node name="UI" type="VBoxContainer" parent="." unique_id=1509190389]
offset_right = 40.0
offset_bottom = 40.0

[node name="VRSubViewport" type="SubViewport" parent="." unique_id=2043879756]

[node name="Main" parent="VRSubViewport" unique_id=408253849 instance=ExtResource("2_1qy5m")]

[connection signal="session_begun" from="VRSubViewport/Main/StartVR" to="." method="_on_main_session_begun"]
"#;

/// The fuzz find of seed 20261130 (spectator.tscn), made small: ours moves UI under
/// HMDView; theirs moves VRSubViewport under UI and the editor rewrites the connection
/// from `StartVR`, a node inside the instanced `Main`. Disjoint edits: clean, one
/// connection, from the place both moves give it.
#[test]
fn connection_into_an_instance_follows_a_moved_ancestor() {
    let ours = SPECTATOR.replace(
        "[node name=\"UI\" type=\"VBoxContainer\" parent=\".\"",
        "[node name=\"UI\" type=\"VBoxContainer\" parent=\"HMDView\"",
    );
    let theirs = SPECTATOR
        .replace(
            "[node name=\"VRSubViewport\" type=\"SubViewport\" parent=\".\"",
            "[node name=\"VRSubViewport\" type=\"SubViewport\" parent=\"UI\"",
        )
        .replace(
            "parent=\"VRSubViewport\" unique_id",
            "parent=\"UI/VRSubViewport\" unique_id",
        )
        .replace("from=\"VRSubViewport/Main", "from=\"UI/VRSubViewport/Main");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let m = merged(SPECTATOR, o, t);
        let t = text(&m);
        assert!(m.is_clean(), "{t}");
        assert!(
            !m.decisions
                .iter()
                .any(|d| matches!(d, Decision::FellBack { .. })),
            "{:?}",
            m.decisions
        );
        assert_eq!(t.matches("[connection").count(), 1, "{t}");
        assert!(
            t.contains("from=\"HMDView/UI/VRSubViewport/Main/StartVR\""),
            "{t}"
        );
        assert!(valid(&t), "{t}");
    }
}

const TURRET: &str = r#"[gd_scene format=3 uid="uid://cw1turret7k2"]

[node name="Root" type="Node2D" unique_id=1817215490]

[node name="A" type="Node2D" parent="." unique_id=305613386]

[node name="B" type="Node2D" parent="A" unique_id=1162343012]

[node name="H" type="RemoteTransform2D" parent="A/B" unique_id=2079811356]
remote_path = NodePath("../../T")

[node name="T" type="Marker2D" parent="A" unique_id=880021641]

[node name="T" type="Marker2D" parent="." unique_id=1554034877]

[node name="X" type="Node2D" parent="." unique_id=421390255]
position = Vector2(1, 0)
"#;

/// Ours moves `A/B/H` to `A/H` and keeps `NodePath("../../T")`, which from there names
/// `Root/T` (in base it named `A/T`). Theirs only moves X. Read in ours' tree, the path
/// is ours' meaning and its target did not move on theirs: ours' text stays, as
/// merge(base, ours, base) keeps it; with the sides swapped too.
#[test]
fn a_path_is_read_in_the_tree_of_the_side_that_kept_it() {
    let ours = TURRET.replace(
        "[node name=\"H\" type=\"RemoteTransform2D\" parent=\"A/B\"",
        "[node name=\"H\" type=\"RemoteTransform2D\" parent=\"A\"",
    );
    let theirs = TURRET.replace("position = Vector2(1, 0)", "position = Vector2(5, 0)");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let m = merged(TURRET, o, t);
        let t = text(&m);
        assert!(m.is_clean(), "{t}");
        assert!(
            t.contains("parent=\"A\" unique_id=2079811356]\nremote_path = NodePath(\"../../T\")\n"),
            "{t}"
        );
        assert!(t.contains("position = Vector2(5, 0)"), "{t}");
        assert!(
            !m.decisions
                .iter()
                .any(|d| matches!(d, Decision::NodePathFollowed { .. })),
            "{:?}",
            m.decisions
        );
    }
}

/// Ours moves H to `A/H` and the editor rewrites its path to `../T` (still `A/T`);
/// theirs renames `A/T` to `Goal` and X's path to it. The path ours wrote names a node
/// the other side renamed: it follows the rename, from H's new place.
#[test]
fn only_a_target_the_other_side_moved_is_followed() {
    let base = TURRET.replace(
        "position = Vector2(1, 0)",
        "position = Vector2(1, 0)\nlook_at = NodePath(\"../A/T\")",
    );
    let ours = base
        .replace(
            "[node name=\"H\" type=\"RemoteTransform2D\" parent=\"A/B\"",
            "[node name=\"H\" type=\"RemoteTransform2D\" parent=\"A\"",
        )
        .replace("NodePath(\"../../T\")", "NodePath(\"../T\")");
    let theirs = base
        .replace(
            "[node name=\"T\" type=\"Marker2D\" parent=\"A\"",
            "[node name=\"Goal\" type=\"Marker2D\" parent=\"A\"",
        )
        .replace("NodePath(\"../A/T\")", "NodePath(\"../A/Goal\")");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let m = merged(&base, o, t);
        let t = text(&m);
        assert!(m.is_clean(), "{t}");
        assert!(
            t.contains("parent=\"A\" unique_id=2079811356]\nremote_path = NodePath(\"../Goal\")\n"),
            "{t}"
        );
        assert!(t.contains("look_at = NodePath(\"../A/Goal\")"), "{t}");
        assert!(
            m.decisions
                .iter()
                .any(|d| matches!(d, Decision::NodePathFollowed { node, .. } if node == "A/H")),
            "{:?}",
            m.decisions
        );
    }
}

const COIN: &str = r#"[gd_scene format=3 uid="uid://daf24t18h3n5e"]

[ext_resource type="Script" uid="uid://b4j8f10agdcvu" path="res://scripts/coin.gd" id="1_4bks0"]
[ext_resource type="Texture2D" uid="uid://84t7yee808cn" path="res://assets/items/button.png" id="2_u2mam"]

[sub_resource type="CircleShape2D" id="CircleShape2D_5w0o8"]
radius = 46.72

[node name="Coin" type="Area2D" unique_id=1095254317 groups=["coins"]]
collision_layer = 2
script = ExtResource("1_4bks0")

[node name="Sprite2D" type="Sprite2D" parent="." unique_id=494313994]
unique_name_in_owner = true
texture = ExtResource("2_u2mam")

[node name="CollisionShape2D" type="CollisionShape2D" parent="." unique_id=450096059]
shape = SubResource("CircleShape2D_5w0o8")
"#;

/// Ours' Glow: a PointLight2D with a child and its own gradient texture.
const OURS_GLOW: &str = r#"
[node name="Glow" type="PointLight2D" parent="." unique_id=1735201154]
texture = SubResource("GradientTexture2D_q1w2e")
energy = 0.6

[node name="Flicker" type="Timer" parent="Glow" unique_id=1830164907]
wait_time = 0.2
"#;

/// Theirs' Glow: a Sprite2D with a child of its own.
const THEIRS_GLOW: &str = r#"
[node name="Glow" type="Sprite2D" parent="." unique_id=297045361]
modulate = Color(1, 1, 0.6, 0.5)
texture = ExtResource("2_u2mam")

[node name="Pulse" type="AnimationPlayer" parent="Glow" unique_id=1249770212]
"#;

/// Godot 4.6: both sides add a node "Glow" under the root with different unique_ids and
/// different children; ours also adds a sub_resource for it and changes the radius,
/// theirs changes the coin's collision_layer. One structural hunk
/// holds each side's whole node (no line fallback); every other change is merged; each
/// resolution (`--favor ours`, `--favor theirs`) is a valid scene holding that side's
/// subtree and the other side's other changes.
#[test]
fn rival_nodes_are_one_whole_node_conflict() {
    let ours = COIN
        .replace("radius = 46.72", "radius = 40.0")
        .replace(
            "[node name=\"Coin\"",
            "[sub_resource type=\"GradientTexture2D\" id=\"GradientTexture2D_q1w2e\"]\nwidth = 128\n\n[node name=\"Coin\"",
        )
        + OURS_GLOW;
    let theirs = COIN.replace("collision_layer = 2", "collision_layer = 6") + THEIRS_GLOW;
    let m = merged(COIN, &ours, &theirs);
    let t = text(&m);
    assert_eq!(m.conflict_count, 1, "{t}");
    assert!(
        m.decisions
            .iter()
            .any(|d| matches!(d, Decision::RivalNodesConflict { node, ours_nodes: 1, theirs_nodes: 1 } if node == "Glow")),
        "{:?}",
        m.decisions
    );
    let hunk = &t[t.find("<<<<<<<").expect("a hunk")..];
    let (ours_part, theirs_part) = hunk.split_once("=======").expect("two parts");
    assert!(
        ours_part.contains("unique_id=1735201154") && ours_part.contains("[node name=\"Flicker\""),
        "{t}"
    );
    assert!(
        theirs_part.contains("unique_id=297045361") && theirs_part.contains("[node name=\"Pulse\""),
        "{t}"
    );
    assert!(
        !ours_part.contains("Pulse") && !theirs_part.contains("Flicker"),
        "{t}"
    );
    assert!(
        t.contains("radius = 40.0") && t.contains("collision_layer = 6"),
        "{t}"
    );

    let dir = tempfile::tempdir().expect("a temporary folder");
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).expect("written");
        p
    };
    let (b, o, th) = (
        write("base.tscn", COIN),
        write("ours.tscn", &ours),
        write("theirs.tscn", &theirs),
    );
    let (code, _) = run(&[
        "merge".as_ref(),
        b.as_os_str(),
        o.as_os_str(),
        th.as_os_str(),
    ]);
    assert_eq!(code, 1, "conflicts left");
    for (favor, kept, gone) in [("ours", "Flicker", "Pulse"), ("theirs", "Pulse", "Flicker")] {
        let out = dir.path().join(format!("{favor}.tscn"));
        let (code, _) = run(&[
            "merge".as_ref(),
            "--favor".as_ref(),
            favor.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            b.as_os_str(),
            o.as_os_str(),
            th.as_os_str(),
        ]);
        assert_eq!(code, 0, "--favor {favor}");
        let resolved = std::fs::read_to_string(&out).expect("written");
        assert!(
            resolved.contains(kept) && !resolved.contains(gone),
            "{resolved}"
        );
        assert_eq!(
            resolved.matches("[node name=\"Glow\"").count(),
            1,
            "{resolved}"
        );
        assert!(
            resolved.contains("radius = 40.0") && resolved.contains("collision_layer = 6"),
            "{resolved}"
        );
        let (code, report) = run(&["check".as_ref(), out.as_os_str()]);
        assert_eq!(code, 0, "check --favor {favor}: {report}\n{resolved}");
    }
}

/// An instance's override entries (`[node ... parent="Hand/Mesh/Armature" index="0"]`,
/// no type of their own) follow the instance one side renamed: the other side's edit of
/// an override two levels down lands on the renamed path, with no second copy of the
/// entry at the old path (which would be a dangling `parent=`).
#[test]
fn override_entries_follow_a_renamed_instance() {
    let base = r#"[gd_scene load_steps=2 format=3]

[ext_resource type="PackedScene" path="res://hand.tscn" id="1_hand"]

[node name="Root" type="Node3D"]

[node name="Hand" parent="." instance=ExtResource("1_hand")]

[node name="Mesh" parent="Hand" index="0"]
visible = false

[node name="Skeleton" parent="Hand/Mesh/Armature" index="0"]
bones/1/rotation = Quaternion(0, 0, 0, 1)
"#;
    let ours = base.replace("Quaternion(0, 0, 0, 1)", "Quaternion(0, 0, 0.5, 0.8660254)");
    let theirs = base
        .replace(r#"name="Hand" parent"#, r#"name="Grip" parent"#)
        .replace(r#"parent="Hand"#, r#"parent="Grip"#);
    let m = merged(base, &ours, &theirs);
    let out = text(&m);
    assert!(m.conflicts.is_empty(), "{out}");
    assert!(valid(&out), "{out}");
    assert!(
        out.contains(
            "[node name=\"Skeleton\" parent=\"Grip/Mesh/Armature\" index=\"0\"]\nbones/1/rotation = Quaternion(0, 0, 0.5, 0.8660254)"
        ),
        "{out}"
    );
    assert!(!out.contains("parent=\"Hand"), "{out}");
}

const INHERITED_LEVEL: &str = r#"[gd_scene format=3 uid="uid://c4level00001"]

[ext_resource type="PackedScene" uid="uid://c4templ00001" path="res://template.tscn" id="1_tmpl"]

[node name="Level" instance=ExtResource("1_tmpl")]

[node name="Door" parent="Props" index="2"]
position = Vector2(64, 32)

[node name="Lamp" parent="Props" index="3"]
energy = 2.0
"#;

/// Issue 30 §6: ours deletes an override entry of an inherited scene while theirs' only
/// change to it is its `index=` (the template gained a node before it). The index of an
/// entry that is gone is moot: the deletion wins, explained; theirs' shift of the next
/// entry stays. An edit of the entry besides its index is still a delete/modify conflict.
#[test]
fn an_override_entry_deleted_against_an_index_shift_is_deleted() {
    let door = "[node name=\"Door\" parent=\"Props\" index=\"2\"]\nposition = Vector2(64, 32)\n\n";
    let ours = INHERITED_LEVEL.replace(door, "");
    let theirs = INHERITED_LEVEL
        .replace("index=\"3\"]", "index=\"4\"]")
        .replace("index=\"2\"]", "index=\"3\"]");
    for (o, t, side) in [(&ours, &theirs, "theirs"), (&theirs, &ours, "ours")] {
        let m = merged(INHERITED_LEVEL, o, t);
        let out = text(&m);
        assert!(m.is_clean(), "{out}");
        assert!(valid(&out), "{out}");
        assert!(!out.contains("name=\"Door\""), "{out}");
        assert!(
            out.contains("[node name=\"Lamp\" parent=\"Props\" index=\"4\"]"),
            "{out}"
        );
        assert!(
            m.decisions.iter().any(|d| matches!(d,
                Decision::ReindexedEntryDeleted { node, side: s } if node.contains("Props/Door") && *s == side)),
            "{:?}",
            m.decisions
        );
    }
    let edited = theirs.replace("Vector2(64, 32)", "Vector2(80, 32)");
    let m = merged(INHERITED_LEVEL, &ours, &edited);
    assert!(!m.is_clean(), "{}", text(&m));
    common::assert_conflict(&m, &["Props/Door"]);
}

const HUD: &str = r#"[gd_scene format=3 uid="uid://c8hudscene01"]

[node name="Hud" type="Control" unique_id=1211430100]

[node name="Score" type="Label" parent="." unique_id=52001938]
text = "0"
"#;

/// Issue 29 §8 = 30 §3: ours adds a Sprite2D and theirs a Label, both given
/// `unique_id=777` (hand-edited, or copied from another file). They are two nodes: both
/// stay whole (no Sprite2D carrying the Label's `text`), theirs' with a fresh id in
/// Godot's shape, explained.
#[test]
fn two_new_nodes_with_one_unique_id_are_two_nodes() {
    let ours = format!(
        "{HUD}\n[node name=\"Icon\" type=\"Sprite2D\" parent=\".\" unique_id=777]\nposition = Vector2(8, 8)\n"
    );
    let theirs = format!(
        "{HUD}\n[node name=\"Title\" type=\"Label\" parent=\".\" unique_id=777]\ntext = \"Hello\"\n"
    );
    let m = merged(HUD, &ours, &theirs);
    let out = text(&m);
    assert!(m.is_clean(), "{out}");
    assert!(valid(&out), "{out}");
    assert!(
        out.contains(
            "[node name=\"Icon\" type=\"Sprite2D\" parent=\".\" unique_id=777]\nposition = Vector2(8, 8)\n"
        ),
        "{out}"
    );
    let title = out
        .split("\n\n")
        .find(|s| s.starts_with("[node name=\"Title\" type=\"Label\" parent=\".\" unique_id="))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(title.lines().nth(1), Some("text = \"Hello\""), "{out}");
    assert_eq!(out.matches("unique_id=777]").count(), 1, "{out}");
    let new = m
        .decisions
        .iter()
        .find_map(|d| match d {
            Decision::NodeUniqueIdRenamed {
                node,
                from: 777,
                to,
            } if node == "Title" => Some(*to),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{:?}", m.decisions));
    assert!(new > 0 && new <= i64::from(i32::MAX), "{new}");
    assert!(title.contains(&format!("unique_id={new}]")), "{out}");
}

/// The same id on two different nodes added under one name: rivals, one whole-node
/// hunk (no `[node]` line hunk with both nodes' properties merged outside it), each
/// side's resolution a valid scene with that side's node.
#[test]
fn two_new_nodes_with_one_unique_id_and_one_name_are_rivals() {
    let ours = format!(
        "{HUD}\n[node name=\"Badge\" type=\"Sprite2D\" parent=\".\" unique_id=777]\nposition = Vector2(8, 8)\n"
    );
    let theirs = format!(
        "{HUD}\n[node name=\"Badge\" type=\"Label\" parent=\".\" unique_id=777]\ntext = \"Hello\"\n"
    );
    let m = merged(HUD, &ours, &theirs);
    let out = text(&m);
    assert!(!m.is_clean(), "{out}");
    assert_eq!(m.conflict_count, 1, "{out}");
    for (side, keep, gone) in [
        (Side::Ours, "position = Vector2(8, 8)", "text = \"Hello\""),
        (Side::Theirs, "text = \"Hello\"", "position = Vector2(8, 8)"),
    ] {
        let r = resolve_all(&out, side);
        assert!(valid(&r), "{side:?}: {r}");
        assert!(r.contains(keep) && !r.contains(gone), "{side:?}: {r}");
        assert_eq!(r.matches("name=\"Badge\"").count(), 1, "{r}");
    }
}

const TWO_GROUPS: &str = r#"[gd_scene format=3 uid="uid://b1fused0000a"]

[node name="Root" type="Node2D"]

[node name="X" type="Node2D" parent="."]
position = Vector2(10, 20)

[node name="Kid" type="Label" parent="X"]
text = "x kid"

[node name="Z" type="Node2D" parent="."]
rotation = 1.5

[node name="Other" type="Sprite2D" parent="Z"]
"#;

/// A merged text resolved to one side: valid, with one node named `Y` under the root.
fn one_y_per_side(out: &str) -> [String; 2] {
    [Side::Ours, Side::Theirs].map(|side| {
        let r = resolve_all(out, side);
        assert!(valid(&r), "{side:?}: {r}");
        assert_eq!(r.matches("[node name=\"Y\"").count(), 1, "{side:?}: {r}");
        r
    })
}

/// Issue 29 §3: no `unique_id` (Godot 4.5), ours renames X to Y and theirs renames Z to
/// Y. Two base nodes arrive at one path: a conflict of the nodes, never one node `Y`
/// with X's position, Z's rotation and both nodes' children. Each side's resolution is
/// that side's scene.
#[test]
fn two_nodes_renamed_onto_one_path_conflict() {
    let ours = TWO_GROUPS
        .replace("name=\"X\"", "name=\"Y\"")
        .replace("parent=\"X\"", "parent=\"Y\"");
    let theirs = TWO_GROUPS
        .replace("name=\"Z\"", "name=\"Y\"")
        .replace("parent=\"Z\"", "parent=\"Y\"");
    let m = merged(TWO_GROUPS, &ours, &theirs);
    let out = text(&m);
    assert!(!m.is_clean(), "{out}");
    common::assert_conflict(&m, &["node \"Y\"", "two nodes arrive"]);
    assert!(
        m.decisions
            .iter()
            .any(|d| matches!(d, Decision::NodesAtOnePathConflict { node, .. } if node == "Y")),
        "{:?}",
        m.decisions
    );
    let [o, t] = one_y_per_side(&out);
    assert!(
        o.contains("[node name=\"Y\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(10, 20)\n"),
        "{o}"
    );
    assert!(
        o.contains("[node name=\"Z\"") && !o.contains("[node name=\"X\""),
        "{o}"
    );
    assert!(
        t.contains("[node name=\"Y\" type=\"Node2D\" parent=\".\"]\nrotation = 1.5\n"),
        "{t}"
    );
    assert!(
        t.contains("[node name=\"X\"") && !t.contains("[node name=\"Z\""),
        "{t}"
    );
    assert!(
        t.contains("[node name=\"Kid\" type=\"Label\" parent=\"X\"]"),
        "{t}"
    );
    assert!(
        o.contains("[node name=\"Other\" type=\"Sprite2D\" parent=\"Z\"]"),
        "{o}"
    );
}

/// Issue 29 §3, second shape: ours renames X to Y where theirs adds a new Y (with a
/// child). A base node and a new one at one path: ours' resolution holds X renamed,
/// theirs' holds X and theirs' new Y with its child.
#[test]
fn a_node_renamed_onto_a_path_the_other_side_added_conflicts() {
    let ours = TWO_GROUPS
        .replace("name=\"X\"", "name=\"Y\"")
        .replace("parent=\"X\"", "parent=\"Y\"");
    let theirs = format!(
        "{TWO_GROUPS}\n[node name=\"Y\" type=\"Node2D\" parent=\".\"]\nscale = Vector2(2, 2)\n\n[node name=\"New\" type=\"Node\" parent=\"Y\"]\n"
    );
    for (o, t, mine) in [(&ours, &theirs, 0), (&theirs, &ours, 1)] {
        let m = merged(TWO_GROUPS, o, t);
        let out = text(&m);
        assert!(!m.is_clean(), "{out}");
        common::assert_conflict(&m, &["node \"Y\"", "two nodes arrive"]);
        let resolved = one_y_per_side(&out);
        let (renamed, added) = (&resolved[mine], &resolved[1 - mine]);
        assert!(
            renamed.contains(
                "[node name=\"Y\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(10, 20)\n"
            ) && !renamed.contains("scale = Vector2(2, 2)")
                && !renamed.contains("name=\"New\""),
            "{renamed}"
        );
        assert!(
            added.contains("[node name=\"X\"")
                && added.contains(
                    "[node name=\"Y\" type=\"Node2D\" parent=\".\"]\nscale = Vector2(2, 2)\n"
                )
                && added.contains("[node name=\"New\" type=\"Node\" parent=\"Y\"]"),
            "{added}"
        );
    }
}

/// Both sides renamed X to Y alike: one node, merged as before (no conflict).
#[test]
fn one_node_renamed_alike_on_both_sides_stays_one() {
    let ours = TWO_GROUPS
        .replace("name=\"X\"", "name=\"Y\"")
        .replace("parent=\"X\"", "parent=\"Y\"");
    let theirs = ours.replace("rotation = 1.5", "rotation = 2.0");
    let m = merged(TWO_GROUPS, &ours, &theirs);
    let out = text(&m);
    assert!(m.is_clean(), "{out}");
    assert!(valid(&out), "{out}");
    assert_eq!(out.matches("[node name=\"Y\"").count(), 1, "{out}");
    assert!(out.contains("rotation = 2.0"), "{out}");
}

const ARMATURE: &str = r#"[gd_scene format=3 uid="uid://c5player0001"]

[ext_resource type="PackedScene" uid="uid://c5model00001" path="res://models/player.glb" id="1_model"]

[node name="World" type="Node3D" unique_id=1400000001]

[node name="Player" parent="." unique_id=1400000002 instance=ExtResource("1_model")]

[node name="Skeleton3D" parent="Player/Armature" parent_id_path=PackedInt32Array(1400000002, 516373001) unique_id=616373002]
bones/0/rotation = Quaternion(0, 0, 0, 1)

[node name="Light" type="OmniLight3D" parent="." unique_id=1400000003]
omni_range = 5.0
"#;

/// Issue 30 §2: both sides re-imported the model (Godot 4.6 before 4.6.3), so the
/// override entry `Player/Armature/Skeleton3D` got a new `unique_id` and
/// `parent_id_path` on each. It is the entry at that path inside the instance: one node,
/// its ids merged as fields (both changed: ours', consistently), theirs' pose kept.
/// Two new entries of one name in two new instances stay a whole-node conflict.
#[test]
fn an_override_entry_both_reimports_renumbered_is_one_entry() {
    let ours = ARMATURE
        .replace(
            "516373001) unique_id=616373002",
            "711111111) unique_id=722222222",
        )
        .replace("omni_range = 5.0", "omni_range = 8.0");
    let theirs = ARMATURE
        .replace(
            "516373001) unique_id=616373002",
            "833333333) unique_id=844444444",
        )
        .replace("Quaternion(0, 0, 0, 1)", "Quaternion(0, 0.5, 0, 0.8660254)");
    let m = merged(ARMATURE, &ours, &theirs);
    let out = text(&m);
    assert!(m.is_clean(), "{out}");
    assert!(valid(&out), "{out}");
    assert!(
        out.contains(
            "[node name=\"Skeleton3D\" parent=\"Player/Armature\" parent_id_path=PackedInt32Array(1400000002, 711111111) unique_id=722222222]\nbones/0/rotation = Quaternion(0, 0.5, 0, 0.8660254)\n"
        ),
        "{out}"
    );
    assert_eq!(out.matches("name=\"Skeleton3D\"").count(), 1, "{out}");
    assert!(out.contains("omni_range = 8.0"), "{out}");
    // Only theirs re-imported (and changed nothing else): theirs' ids, ours' edit.
    let reimported = ARMATURE.replace(
        "516373001) unique_id=616373002",
        "833333333) unique_id=844444444",
    );
    let posed = ARMATURE.replace("Quaternion(0, 0, 0, 1)", "Quaternion(1, 0, 0, 0)");
    let m = merged(ARMATURE, &posed, &reimported);
    let out = text(&m);
    assert!(m.is_clean(), "{out}");
    assert!(
        out.contains("833333333) unique_id=844444444]\nbones/0/rotation = Quaternion(1, 0, 0, 0)"),
        "{out}"
    );

    // Two placements of the model, each with its own entry: two nodes, one conflict.
    let place = |uid: &str, sk: &str| {
        format!(
            "{ARMATURE}\n[node name=\"Ghost\" parent=\".\" unique_id={uid} instance=ExtResource(\"1_model\")]\n\n[node name=\"Skeleton3D\" parent=\"Ghost/Armature\" parent_id_path=PackedInt32Array({uid}, 5) unique_id={sk}]\nbones/0/rotation = Quaternion(0, 0, 0, 1)\n"
        )
    };
    let m = merged(ARMATURE, &place("91", "92"), &place("93", "94"));
    let out = text(&m);
    assert!(!m.is_clean(), "{out}");
    common::assert_conflict(&m, &["Ghost", "both sides added"]);
    for side in [Side::Ours, Side::Theirs] {
        let r = resolve_all(&out, side);
        assert!(valid(&r), "{side:?}: {r}");
        assert_eq!(r.matches("parent=\"Ghost/Armature\"").count(), 1, "{r}");
    }
}

/// Issue 29 §3 with `unique_id`s (Godot 4.6): the ids keep the two nodes apart, and
/// their meeting at one path is the same conflict (not a clean-looking line merge with
/// two nodes named `Y`).
#[test]
fn two_nodes_with_unique_ids_renamed_onto_one_path_conflict() {
    let base = TWO_GROUPS
        .replace("type=\"Node2D\"]", "type=\"Node2D\" unique_id=10]")
        .replace(
            "name=\"X\" type=\"Node2D\" parent=\".\"]",
            "name=\"X\" type=\"Node2D\" parent=\".\" unique_id=11]",
        )
        .replace("parent=\"X\"]", "parent=\"X\" unique_id=12]")
        .replace(
            "name=\"Z\" type=\"Node2D\" parent=\".\"]",
            "name=\"Z\" type=\"Node2D\" parent=\".\" unique_id=13]",
        )
        .replace("parent=\"Z\"]", "parent=\"Z\" unique_id=14]");
    assert_eq!(base.matches("unique_id=").count(), 5, "{base}");
    let ours = base
        .replace("name=\"X\"", "name=\"Y\"")
        .replace("parent=\"X\"", "parent=\"Y\"");
    let theirs = base
        .replace("name=\"Z\"", "name=\"Y\"")
        .replace("parent=\"Z\"", "parent=\"Y\"");
    let m = merged(&base, &ours, &theirs);
    let out = text(&m);
    assert!(!m.is_clean(), "{out}");
    assert!(out.contains("<<<<<<<"), "{out}");
    common::assert_conflict(&m, &["node \"Y\"", "two nodes arrive"]);
    let [o, t] = one_y_per_side(&out);
    assert!(
        o.contains("position = Vector2(10, 20)") && o.contains("[node name=\"Z\""),
        "{o}"
    );
    assert!(
        t.contains("rotation = 1.5") && t.contains("[node name=\"X\""),
        "{t}"
    );
}

/// A scene in Godot 4 (`format=3`, no `unique_id`) or Godot 3 (`format=2`) spelling:
/// the Godot 4 text with `offset_` read as Godot 3's `margin_`, `Sprite2D` as `Sprite`.
fn spelled(godot4: &str, godot3: bool) -> String {
    if !godot3 {
        return godot4.to_string();
    }
    godot4
        .replace("format=3", "load_steps=1 format=2")
        .replace("offset_", "margin_")
        .replace("Sprite2D", "Sprite")
}

/// Whether a merge took the line merge rather than its own result.
fn fell_back(m: &gdscene::merge::MergeOutcome) -> bool {
    m.decisions
        .iter()
        .any(|d| matches!(d, Decision::FellBack { .. }))
}

const DEBUG_HUD: &str = r#"[gd_scene format=3]

[node name="Main" type="Control"]
layout_mode = 3
anchors_preset = 15

[node name="DebugInfo" type="Label" parent="."]
offset_right = 40.0
offset_bottom = 23.0
theme_override_colors/font_color = Color(1, 1, 0, 1)
text = "debug"

[node name="Button" type="Button" parent="."]
offset_right = 8.0
text = "Go"
"#;

/// Issue 30 §5: one side renames `DebugInfo` to `DebugLabel` and widens it, the other
/// makes it taller (the lines touch: git conflicts). `diff` calls it a rename (three of
/// four properties alike), and so does the merge now: one Label carrying both edits,
/// clean, in either direction, Godot 3 and Godot 4 spellings (it was a 36-line
/// delete-against-edit hunk, and taking theirs left two Labels).
#[test]
fn a_node_renamed_and_edited_carries_the_other_sides_edit() {
    for godot3 in [false, true] {
        let base = spelled(DEBUG_HUD, godot3);
        let renamed = base
            .replace("name=\"DebugInfo\"", "name=\"DebugLabel\"")
            .replace("right = 40.0", "right = 120.0");
        let taller = base.replace("bottom = 23.0", "bottom = 30.0");
        let old = gdscene::model::Scene::parse(base.as_bytes()).unwrap();
        let new = gdscene::model::Scene::parse(renamed.as_bytes()).unwrap();
        let shown = format!("{:?}", gdscene::diff::diff(&old, &new).changes);
        assert!(
            shown.contains("Renamed") && !shown.contains("Removed"),
            "{shown}"
        );
        for (o, t) in [(&renamed, &taller), (&taller, &renamed)] {
            let m = merged(&base, o, t);
            let out = text(&m);
            assert!(m.is_clean() && !fell_back(&m), "godot3={godot3}\n{out}");
            assert!(valid(&out), "{out}");
            assert_eq!(out.matches("type=\"Label\"").count(), 1, "{out}");
            let at = out.find("[node name=\"DebugLabel\"").expect(&out);
            let node = &out[at..out[at..].find("\n\n").map_or(out.len(), |e| at + e)];
            assert!(node.contains("right = 120.0"), "{out}");
            assert!(node.contains("bottom = 30.0"), "{out}");
        }
    }
}

const MENU: &str = r#"[gd_scene format=3]

[node name="Main" type="Control"]

[node name="Scroll" type="ScrollContainer" parent="."]
offset_right = 40.0
offset_bottom = 40.0

[node name="VBoxContainer" type="VBoxContainer" parent="Scroll"]

[node name="Banners" type="MarginContainer" parent="Scroll/VBoxContainer"]

[node name="Label" type="Label" parent="Scroll/VBoxContainer"]
text = "Places"

[node name="Side" type="PanelContainer" parent="."]

[node name="VBoxContainer" type="VBoxContainer" parent="Side"]

[node name="Label" type="Label" parent="Side/VBoxContainer"]
text = "Side"
"#;

/// Issue 30 §4: one side renames the container `Scroll` to `Content` and resizes it
/// (nothing of its own is left alike), keeping its subtree; it also adds a popup with a
/// `VBoxContainer` of its own, so the child's name says nothing. The grandchild
/// `Banners`, which kept its name and place below it, is the evidence: the rename is
/// followed and the other side's new child of `Scroll/VBoxContainer` lands under
/// `Content/VBoxContainer`, clean (it was a delete-against-add conflict).
#[test]
fn a_renamed_container_is_known_by_the_subtree_it_kept() {
    for godot3 in [false, true] {
        let base = spelled(MENU, godot3);
        let renamed = base
            .replace("name=\"Scroll\"", "name=\"Content\"")
            .replace("parent=\"Scroll", "parent=\"Content")
            .replace("right = 40.0\noffset_bottom = 40.0", "right = 300.0\noffset_bottom = 200.0")
            .replace("right = 40.0\nmargin_bottom = 40.0", "right = 300.0\nmargin_bottom = 200.0")
            + "\n[node name=\"Popup\" type=\"PanelContainer\" parent=\".\"]\n\n[node name=\"VBoxContainer\" type=\"VBoxContainer\" parent=\"Popup\"]\n";
        assert!(renamed.contains("= 300.0"), "{renamed}");
        let added = base.replace(
            "[node name=\"Side\"",
            "[node name=\"Footer\" type=\"Label\" parent=\"Scroll/VBoxContainer\"]\ntext = \"More\"\n\n[node name=\"Side\"",
        );
        for (o, t) in [(&renamed, &added), (&added, &renamed)] {
            let m = merged(&base, o, t);
            let out = text(&m);
            assert!(m.is_clean() && !fell_back(&m), "godot3={godot3}\n{out}");
            assert!(valid(&out), "{out}");
            assert!(
                out.contains(
                    "[node name=\"Footer\" type=\"Label\" parent=\"Content/VBoxContainer\"]"
                ),
                "{out}"
            );
            assert!(
                !out.contains("\"Scroll\"") && !out.contains("\"Scroll/"),
                "{out}"
            );
            assert_eq!(out.matches("name=\"Banners\"").count(), 1, "{out}");
        }
    }
}

const LEVEL: &str = r#"[gd_scene format=3]

[node name="Level" type="Node2D"]

[node name="Background" type="Sprite2D" parent="."]
position = Vector2(0, 0)

[node name="Player" type="Sprite2D" parent="."]
position = Vector2(10, 10)
z_index = 2
modulate = Color(1, 0.5, 0.5, 1)

[node name="HUD" type="CanvasLayer" parent="."]
"#;

/// Issue 30 §8: one side renames `Player` to `Hero` (and moves it a little), the other
/// inserts `Shadow` just before it. Sibling order is 2D draw order: the shadow stays
/// before the player in the result, whichever side is ours, Godot 3 and 4 spellings
/// (the inserted node used to land after the renamed one).
#[test]
fn a_node_inserted_before_a_renamed_sibling_stays_before_it() {
    for godot3 in [false, true] {
        let base = spelled(LEVEL, godot3);
        let renamed = base
            .replace("name=\"Player\"", "name=\"Hero\"")
            .replace("Vector2(10, 10)", "Vector2(12, 10)");
        let sprite = if godot3 { "Sprite" } else { "Sprite2D" };
        let inserted = base.replace(
            "[node name=\"Player\"",
            &format!("[node name=\"Shadow\" type=\"{sprite}\" parent=\".\"]\nposition = Vector2(10, 12)\n\n[node name=\"Player\""),
        );
        for (o, t) in [(&renamed, &inserted), (&inserted, &renamed)] {
            let m = merged(&base, o, t);
            let out = text(&m);
            assert!(m.is_clean(), "godot3={godot3}\n{out}");
            assert!(valid(&out), "{out}");
            let names: Vec<&str> = out
                .lines()
                .filter_map(|l| l.strip_prefix("[node name=\""))
                .map(|l| &l[..l.find('"').unwrap()])
                .collect();
            assert_eq!(
                names,
                ["Level", "Background", "Shadow", "Hero", "HUD"],
                "{out}"
            );
        }
    }
}
