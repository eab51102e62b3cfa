//! Which node is which when nodes are renamed, moved or removed without a shared
//! `unique_id`: the pairing is the same whichever side is ours (the merge's symmetry
//! law), two nodes arriving at one path are a conflict of the nodes in both directions,
//! even when one of them carries a `unique_id` and the other does not, and a rename that
//! is a guess among alike nodes is not followed. The fuzz finds of seed 20261130, made
//! small.

mod common;
#[path = "common/resolve.rs"]
mod resolve;

use common::{merged, run, text, valid};
use resolve::{resolve_all, Side};

/// A Godot 4.6 scene some of whose nodes carry a `unique_id` (added in 4.6) and some
/// not (kept from 4.5): threadbare's filling_barrel.tscn.
const MIXED: &str = r#"[gd_scene format=3 uid="uid://bmixed0000001"]

[node name="Barrel" type="StaticBody2D" unique_id=1861594411]
collision_layer = 16

[node name="Glow" type="AnimatedSprite2D" parent="."]
visible = false
offset = Vector2(0, -21)

[node name="Shape" type="CollisionShape2D" parent="." unique_id=320042935]
rotation = -1.5708

[node name="Audio" type="AudioStreamPlayer2D" parent="." unique_id=960362575]
bus = &"SFX"
"#;

/// Issue 29 §3 with mixed nodes: ours renames `Shape` (with a `unique_id`) to `Y` and
/// theirs renames `Glow` (without one) to `Y`. Two base nodes arrive at one path: a
/// conflict of the whole nodes in both directions (it was clean one way, with `Glow`
/// taking `Shape`'s place and `Shape` re-added under a fresh id), and each side's
/// resolution that side's scene.
#[test]
fn a_node_with_a_unique_id_and_one_without_renamed_onto_one_path_conflict() {
    let ours = MIXED.replace("name=\"Shape\"", "name=\"Y\"");
    let theirs = MIXED.replace("name=\"Glow\"", "name=\"Y\"");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let m = merged(MIXED, o, t);
        let out = text(&m);
        assert!(!m.is_clean(), "{out}");
        common::assert_conflict(&m, &["node \"Y\"", "two nodes arrive"]);
        for (side, own) in [(Side::Ours, o), (Side::Theirs, t)] {
            let r = resolve_all(&out, side);
            assert!(valid(&r), "{side:?}: {r}");
            assert_eq!(r.matches("[node ").count(), own.matches("[node ").count());
            assert_eq!(r.matches("[node name=\"Y\"").count(), 1, "{side:?}: {r}");
            // The side's Y is the side's node, with its own id or none.
            let y = own
                .split("\n\n")
                .find(|s| s.starts_with("[node name=\"Y\""))
                .expect("the side has Y");
            assert!(r.contains(y), "{side:?}: {y}\n{r}");
        }
    }
}

/// The same through the binary: exit 1 (conflicts) both ways, and the report names the
/// two nodes arriving at `Y`.
#[test]
fn the_binary_reports_both_directions_of_the_mixed_rename_onto_one_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).expect("written");
        p
    };
    let b = write("base.tscn", MIXED);
    let o = write("ours.tscn", &MIXED.replace("name=\"Shape\"", "name=\"Y\""));
    let t = write("theirs.tscn", &MIXED.replace("name=\"Glow\"", "name=\"Y\""));
    for (x, y) in [(&o, &t), (&t, &o)] {
        let out = dir.path().join("out.tscn");
        let (code, _) = run(&[
            "merge".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            b.as_os_str(),
            x.as_os_str(),
            y.as_os_str(),
        ]);
        assert_eq!(code, 1, "conflicts both ways");
        let merged = std::fs::read_to_string(&out).expect("the result");
        assert!(merged.contains("<<<<<<<"), "{merged}");
    }
}

/// GWJ-43's AudioManager.tscn: two ambient players alike in every property, animated by
/// tracks that name them.
const AMBIENT: &str = r#"[gd_scene load_steps=2 format=2]

[sub_resource type="Animation" id=1]
resource_name = "Fade"
tracks/0/type = "value"
tracks/0/path = NodePath("Ambiant/Forest:volume_db")
tracks/0/keys = {
"times": PoolRealArray( 0, 1 ),
"values": [ 6.0, -42.0 ]
}
tracks/1/type = "value"
tracks/1/path = NodePath("Ambiant/Cavern:volume_db")
tracks/1/keys = {
"times": PoolRealArray( 0, 1 ),
"values": [ -42.0, -6.0 ]
}

[node name="AudioManager" type="Node"]

[node name="Ambiant" type="Node" parent="."]

[node name="Forest" type="AudioStreamPlayer" parent="Ambiant"]
bus = "Amb"

[node name="Cavern" type="AudioStreamPlayer" parent="Ambiant"]
bus = "Amb"

[node name="Underwater" type="AudioStreamPlayer" parent="Ambiant"]
volume_db = -42.0
bus = "Amb"

[node name="Fader" type="AnimationPlayer" parent="."]
anims/Fade = SubResource( 1 )
"#;

/// Ours removes `Forest` and renames `Cavern` to `Dunes`; the two were alike in every
/// property, so which one `Dunes` is would be a guess: it is not followed as a rename
/// (the merge had paired the removed `Forest` with `Dunes` and rewritten the untouched
/// Animation's tracks of `Forest` to `Dunes`). Theirs' disjoint edit: the Animation
/// comes out as both sides left it, both ways, and the merge is the same both ways.
#[test]
fn a_rename_among_alike_nodes_is_not_guessed() {
    let ours = AMBIENT
        .replace(
            "[node name=\"Forest\" type=\"AudioStreamPlayer\" parent=\"Ambiant\"]\nbus = \"Amb\"\n\n",
            "",
        )
        .replace("name=\"Cavern\"", "name=\"Dunes\"");
    assert_ne!(ours, AMBIENT.replace("name=\"Cavern\"", "name=\"Dunes\""));
    let theirs = AMBIENT.replace("volume_db = -42.0\nbus", "volume_db = -40.0\nbus");
    let animation =
        &AMBIENT[AMBIENT.find("[sub_resource").unwrap()..AMBIENT.find("[node").unwrap()];
    let mut outs = Vec::new();
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let m = merged(AMBIENT, o, t);
        let out = text(&m);
        assert!(m.is_clean(), "{:#?}\n{out}", m.conflicts);
        assert!(
            out.contains(animation),
            "the Animation is untouched:\n{out}"
        );
        assert!(
            out.contains("[node name=\"Dunes\"") && !out.contains("[node name=\"Forest\""),
            "{out}"
        );
        assert!(out.contains("volume_db = -40.0"), "{out}");
        outs.push(out);
    }
    assert_eq!(outs[0], outs[1]);
}

/// material-maker's start.tscn: spacers alike in every property.
const SPACERS: &str = r#"[gd_scene load_steps=1 format=3 uid="uid://duji76be1f1bq"]

[node name="Start" type="Panel"]

[node name="Box" type="VBoxContainer" parent="."]
alignment = 1

[node name="Space1" type="Control" parent="Box"]
custom_minimum_size = Vector2(0, 40)
layout_mode = 2
size_flags_stretch_ratio = 2.0

[node name="Icon" type="TextureRect" parent="Box"]
layout_mode = 2

[node name="Space2" type="Control" parent="Box"]
custom_minimum_size = Vector2(0, 40)
layout_mode = 2
size_flags_stretch_ratio = 2.0

[node name="Title" type="Label" parent="Box"]
text = "Material Maker"
"#;

/// Ours removes `Space1` and renames `Space2` to `Gap`; theirs moves `Space1` out of the
/// box. Which spacer `Gap` is cannot be told (they were alike in every property), and the
/// answer must not depend on which side is ours (it was clean one way, a conflict the
/// other, as the rule "the other side still has the node" was read before the other
/// side's moves were followed): both ways the same outcome, ours' removal of `Space1`
/// against theirs' move of it a conflict.
#[test]
fn a_removal_beside_an_alike_rename_against_a_move_is_the_same_both_ways() {
    let ours = SPACERS
        .replace(
            "[node name=\"Space1\" type=\"Control\" parent=\"Box\"]\ncustom_minimum_size = Vector2(0, 40)\nlayout_mode = 2\nsize_flags_stretch_ratio = 2.0\n\n",
            "",
        )
        .replace("name=\"Space2\"", "name=\"Gap\"");
    let theirs = SPACERS.replace(
        "name=\"Space1\" type=\"Control\" parent=\"Box\"",
        "name=\"Space1\" type=\"Control\" parent=\".\"",
    );
    let a = merged(SPACERS, &ours, &theirs);
    let b = merged(SPACERS, &theirs, &ours);
    assert_eq!(a.is_clean(), b.is_clean(), "{}\n{}", text(&a), text(&b));
    assert!(!a.is_clean(), "{}", text(&a));
    common::assert_conflict(&a, &["Space1"]);
    common::assert_conflict(&b, &["Space1"]);
    assert_eq!(a.conflicts.len(), b.conflicts.len());
}

/// escoria's button.tscn: ours moves `Shape` under `Line`; theirs removes `Shape` and
/// adds `Pad`, a collision shape alike enough to be `Shape` renamed and edited (its
/// `shape` reference, half its properties). Whether theirs' `Pad` is `Shape` must not
/// depend on which side is ours: the merge is clean one way exactly when it is the other,
/// with the same nodes.
#[test]
fn a_likeness_pairing_against_a_move_is_the_same_both_ways() {
    let base = r#"[gd_scene load_steps=3 format=3 uid="uid://doggmnegv5kfg"]

[sub_resource type="RectangleShape2D" id="1"]
size = Vector2(57, 59)

[node name="Button" type="Area2D"]

[node name="Line" type="Line2D" parent="."]
points = PackedVector2Array(2, 4, 2, 53)

[node name="Shape" type="CollisionShape2D" parent="."]
position = Vector2(26, 29)
shape = SubResource("1")
"#;
    let ours = base.replace(
        "name=\"Shape\" type=\"CollisionShape2D\" parent=\".\"",
        "name=\"Shape\" type=\"CollisionShape2D\" parent=\"Line\"",
    );
    let theirs = base
        .replace("load_steps=3", "load_steps=4")
        .replace(
            "[node name=\"Button\"",
            "[sub_resource type=\"RectangleShape2D\" id=\"R_2\"]\nsize = Vector2(10, 2)\n\n[node name=\"Button\"",
        )
        .replace(
            "[node name=\"Shape\" type=\"CollisionShape2D\" parent=\".\"]\nposition = Vector2(26, 29)\nshape = SubResource(\"1\")\n",
            "[node name=\"Pad\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"R_2\")\n",
        );
    let a = merged(base, &ours, &theirs);
    let b = merged(base, &theirs, &ours);
    assert_eq!(a.is_clean(), b.is_clean(), "{}\n{}", text(&a), text(&b));
    let names = |m: &gdscene::merge::MergeOutcome| {
        let out = text(m);
        let mut v: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("[node name="))
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    if a.is_clean() {
        assert_eq!(names(&a), names(&b));
    } else {
        assert_eq!(a.conflicts.len(), b.conflicts.len());
    }
}

/// `diff --format json`'s changes of `old` -> `new`, as (kind, path, old name) triples.
fn diff_changes(old: &str, new: &str) -> Vec<(String, String, String)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("old.tscn"), dir.path().join("new.tscn"));
    std::fs::write(&a, old).expect("written");
    std::fs::write(&b, new).expect("written");
    let args = ["diff".as_ref(), "--format".as_ref(), "json".as_ref()];
    let (code, out) = run(&[&args[..], &[a.as_os_str(), b.as_os_str()]].concat());
    assert_eq!(code, 1, "changes: exit 1\n{out}");
    let j: serde_json::Value = serde_json::from_str(&out).expect("json");
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let changes = j["changes"].as_array().expect("changes");
    let triple = |c: &serde_json::Value| (s(&c["kind"]), s(&c["subject"]["path"]), s(&c["old"]));
    changes.iter().map(triple).collect()
}

/// Issue 30.5: `diff` pairs by the merge's rule. `Space1` removed and `Space2` renamed to
/// `Gap`, the two alike in every property: which spacer `Gap` is would be a guess, so
/// `diff` shows no rename but a removal and an addition (it showed `Space1` renamed to
/// `Gap`, the first of equals, a rename the merge does not follow); with `Space1` unlike
/// `Space2`, `Gap` is clearly `Space2` and `diff` shows the rename.
#[test]
fn diff_shows_a_rename_only_where_the_merge_follows_one() {
    let space1 = "[node name=\"Space1\" type=\"Control\" parent=\"Box\"]\ncustom_minimum_size = Vector2(0, 40)\nlayout_mode = 2\nsize_flags_stretch_ratio = 2.0\n\n";
    let tied = SPACERS
        .replace(space1, "")
        .replace("name=\"Space2\"", "name=\"Gap\"");
    assert_ne!(tied, SPACERS.replace("name=\"Space2\"", "name=\"Gap\""));
    let changes = diff_changes(SPACERS, &tied);
    let kinds = |cs: &[(String, String, String)], k: &str| {
        cs.iter().filter(|c| c.0 == k).cloned().collect::<Vec<_>>()
    };
    assert!(kinds(&changes, "renamed").is_empty(), "{changes:#?}");
    let removed = kinds(&changes, "removed");
    let added = kinds(&changes, "added");
    assert_eq!(removed.len(), 2, "Space1 and Space2 removed: {changes:#?}");
    assert_eq!(added.len(), 1, "Gap added: {changes:#?}");
    assert_eq!(added[0].1, "Box/Gap", "{changes:#?}");

    // Space1 no longer alike Space2: Gap is Space2, renamed.
    let unlike = SPACERS.replace(
        "custom_minimum_size = Vector2(0, 40)\nlayout_mode = 2\nsize_flags_stretch_ratio = 2.0\n\n[node name=\"Icon\"",
        "custom_minimum_size = Vector2(0, 8)\nlayout_mode = 1\n\n[node name=\"Icon\"",
    );
    assert_ne!(unlike, SPACERS);
    let space1 = "[node name=\"Space1\" type=\"Control\" parent=\"Box\"]\ncustom_minimum_size = Vector2(0, 8)\nlayout_mode = 1\n\n";
    let clear = unlike
        .replace(space1, "")
        .replace("name=\"Space2\"", "name=\"Gap\"");
    assert_ne!(clear, unlike.replace("name=\"Space2\"", "name=\"Gap\""));
    let changes = diff_changes(&unlike, &clear);
    let renamed = kinds(&changes, "renamed");
    assert_eq!(renamed.len(), 1, "{changes:#?}");
    assert_eq!(renamed[0].1, "Box/Gap", "{changes:#?}");
    assert_eq!(renamed[0].2, "Space2", "{changes:#?}");
    assert_eq!(
        kinds(&changes, "removed").len(),
        1,
        "Space1 removed: {changes:#?}"
    );
}
