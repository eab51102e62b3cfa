//! Unit tests of the merge rules, one per rule.

use super::*;

fn m(base: &str, ours: &str, theirs: &str) -> MergeOutcome {
    merge(
        base.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &MergeOptions::default(),
    )
}

fn text(o: &MergeOutcome) -> &str {
    std::str::from_utf8(&o.text).expect("utf-8")
}

const BASE: &str = r#"[gd_scene load_steps=2 format=3 uid="uid://base"]

[ext_resource type="Script" path="res://player.gd" id="1_abcde"]

[node name="Player" type="CharacterBody2D"]
script = ExtResource("1_abcde")
speed = 100

[node name="Sprite" type="Sprite2D" parent="."]
position = Vector2(1, 2)

[node name="Camera" type="Camera2D" parent="."]
"#;

#[test]
fn one_side_unchanged_gives_the_other_side_bytes() {
    let ours = BASE.replace("speed = 100", "speed = 200");
    let r = m(BASE, &ours, BASE);
    assert_eq!(text(&r), ours);
    assert_eq!(r.method, Method::Trivial);
}

#[test]
fn different_properties_of_one_node_merge_cleanly() {
    let ours = BASE.replace("speed = 100", "speed = 200");
    let theirs = BASE.replace(
        "script = ExtResource(\"1_abcde\")\n",
        "script = ExtResource(\"1_abcde\")\njump = 5\n",
    );
    let r = m(BASE, &ours, &theirs);
    assert!(r.is_clean(), "{}", text(&r));
    assert_eq!(r.method, Method::Structural);
    assert!(text(&r).contains("speed = 200\n"));
    assert!(text(&r).contains("jump = 5\n"));
}

#[test]
fn same_property_changed_differently_conflicts_on_one_line() {
    let ours = BASE.replace("speed = 100", "speed = 200");
    let theirs = BASE.replace("speed = 100", "speed = 300");
    let r = m(BASE, &ours, &theirs);
    assert_eq!(r.conflict_count, 1);
    let t = text(&r);
    assert!(t.contains("<<<<<<< ours\nspeed = 200\n||||||| base\nspeed = 100\n=======\nspeed = 300\n>>>>>>> theirs\n"), "{t}");
    assert_eq!(r.conflicts[0].property.as_deref(), Some("speed"));
    assert_eq!(r.conflicts[0].location, "node \"Player\"");
}

#[test]
fn float_respelling_is_not_a_change() {
    let base = BASE.replace("Vector2(1, 2)", "Vector2(0.707107, 2)");
    let ours = base
        .replace("Vector2(0.707107, 2)", "Vector2(0.70710677, 2)")
        .replace("speed = 100", "speed = 150");
    let theirs = base.replace("speed = 100\n", "speed = 100\njump = 1\n");
    let r = m(&base, &ours, &theirs);
    assert!(r.is_clean(), "{}", text(&r));
}

#[test]
fn colliding_sub_resource_ids_are_renamed_with_their_references() {
    let base = BASE.to_string();
    let add = |shape: &str, node: &str| {
        base.replace(
            "[node name=\"Player\"",
            &format!("[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_abcde\"]\nsize = {shape}\n\n[node name=\"Player\""),
        )
        .replace("load_steps=2", "load_steps=3")
            + &format!("\n[node name=\"{node}\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"RectangleShape2D_abcde\")\n")
    };
    let ours = add("Vector2(1, 1)", "HitBox");
    let theirs = add("Vector2(5, 5)", "HurtBox");
    let r = m(&base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert_eq!(t.matches("[sub_resource").count(), 2, "{t}");
    assert!(t.contains("[gd_scene load_steps=4 format=3"), "{t}");
    let renamed = r.decisions.iter().find_map(|d| match d {
        Decision::IdRenamed { to, .. } => Some(to.clone()),
        _ => None,
    });
    let new_id = renamed.expect("an id was renamed");
    assert!(new_id.starts_with("RectangleShape2D_"));
    assert!(
        t.contains(&format!(
            "[sub_resource type=\"RectangleShape2D\" id=\"{new_id}\"]\nsize = Vector2(5, 5)"
        )),
        "{t}"
    );
    assert!(t.contains(&format!("[node name=\"HurtBox\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"{new_id}\")")), "{t}");
    assert!(t.contains("[node name=\"HitBox\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"RectangleShape2D_abcde\")"));
}

#[test]
fn same_resource_added_twice_becomes_one() {
    let add = |b: &str, node: &str| {
        b.replace(
            "[ext_resource type=\"Script\" path=\"res://player.gd\" id=\"1_abcde\"]\n",
            "[ext_resource type=\"Script\" path=\"res://player.gd\" id=\"1_abcde\"]\n[ext_resource type=\"Texture2D\" path=\"res://icon.png\" id=\"2_xyz\"]\n",
        )
        .replace("load_steps=2", "load_steps=3")
            + &format!("\n[node name=\"{node}\" type=\"Sprite2D\" parent=\".\"]\ntexture = ExtResource(\"2_xyz\")\n")
    };
    let ours = add(BASE, "A");
    let mut theirs = add(BASE, "B");
    theirs = theirs.replace("2_xyz", "2_qqq");
    let r = m(BASE, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert_eq!(t.matches("res://icon.png").count(), 1, "{t}");
    assert!(
        t.contains(
            "[node name=\"B\" type=\"Sprite2D\" parent=\".\"]\ntexture = ExtResource(\"2_xyz\")"
        ),
        "{t}"
    );
}

#[test]
fn rename_plus_edit_follows_the_node_through_unique_id() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n\n[node name=\"Old\" type=\"Sprite2D\" parent=\".\" unique_id=2]\nposition = Vector2(0, 0)\n\n[node name=\"Child\" type=\"Node2D\" parent=\"Old\" unique_id=3]\n";
    let ours = base
        .replace("name=\"Old\"", "name=\"New\"")
        .replace("parent=\"Old\"", "parent=\"New\"");
    let theirs = base.replace("position = Vector2(0, 0)", "position = Vector2(5, 5)")
        + "\n[node name=\"Added\" type=\"Node\" parent=\"Old\" unique_id=4]\n";
    let r = m(base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(t.contains("[node name=\"New\" type=\"Sprite2D\" parent=\".\" unique_id=2]\nposition = Vector2(5, 5)"), "{t}");
    assert!(
        t.contains("[node name=\"Added\" type=\"Node\" parent=\"New\" unique_id=4]"),
        "{t}"
    );
    assert!(r
        .decisions
        .iter()
        .any(|d| matches!(d, Decision::NodeRenameFollowed { .. })));
}

#[test]
fn move_plus_edit_follows_the_node() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\" unique_id=2]\n\n[node name=\"B\" type=\"Node2D\" parent=\".\" unique_id=3]\n\n[node name=\"S\" type=\"Sprite2D\" parent=\"A\" unique_id=4]\nz_index = 1\n";
    let ours = base.replace(
        "[node name=\"S\" type=\"Sprite2D\" parent=\"A\"",
        "[node name=\"S\" type=\"Sprite2D\" parent=\"B\"",
    );
    let theirs = base.replace("z_index = 1", "z_index = 7");
    let r = m(base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(
        t.contains("[node name=\"S\" type=\"Sprite2D\" parent=\"B\" unique_id=4]\nz_index = 7"),
        "{t}"
    );
}

#[test]
fn reorder_plus_insert_is_clean() {
    let ours = BASE.replace(
        "[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(1, 2)\n\n[node name=\"Camera\" type=\"Camera2D\" parent=\".\"]\n",
        "[node name=\"Camera\" type=\"Camera2D\" parent=\".\"]\n\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(1, 2)\n",
    );
    let theirs = format!("{BASE}\n[node name=\"Label\" type=\"Label\" parent=\".\"]\n");
    let r = m(BASE, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    let (c, s, l) = (
        t.find("\"Camera\"").unwrap(),
        t.find("\"Sprite\"").unwrap(),
        t.find("\"Label\"").unwrap(),
    );
    assert!(c < s && s < l, "{t}");
}

#[test]
fn delete_against_modify_conflicts_on_the_whole_section() {
    let ours = BASE.replace(
        "\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(1, 2)\n",
        "",
    );
    let theirs = BASE.replace("position = Vector2(1, 2)", "position = Vector2(9, 9)");
    let r = m(BASE, &ours, &theirs);
    assert_eq!(r.conflict_count, 1, "{}", text(&r));
    assert!(text(&r).contains("=======\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(9, 9)\n>>>>>>> theirs"), "{}", text(&r));
    // Delete against an unchanged node: deleted, clean.
    let theirs2 = BASE.replace("speed = 100", "speed = 1");
    let r = m(BASE, &ours, &theirs2);
    assert!(r.is_clean());
    assert!(!text(&r).contains("Sprite"));
}

#[test]
fn connections_and_editables_merge_as_sets() {
    let base = format!("{BASE}\n[connection signal=\"a\" from=\".\" to=\".\" method=\"_a\"]\n");
    let ours = format!("{base}[connection signal=\"b\" from=\".\" to=\".\" method=\"_b\"]\n");
    let theirs =
        format!("{base}[connection signal=\"c\" from=\"Sprite\" to=\".\" method=\"_c\"]\n");
    let r = m(&base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(t.ends_with("[connection signal=\"a\" from=\".\" to=\".\" method=\"_a\"]\n[connection signal=\"b\" from=\".\" to=\".\" method=\"_b\"]\n[connection signal=\"c\" from=\"Sprite\" to=\".\" method=\"_c\"]\n"), "{t}");
}

#[test]
fn godot3_renumbered_sub_resources_match_by_content_and_use() {
    let base = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"CircleShape2D\" id=1]\nradius = 4.0\n\n[sub_resource type=\"RectangleShape2D\" id=2]\nextents = Vector2( 1, 1 )\n\n[node name=\"R\" type=\"Node2D\"]\n\n[node name=\"C\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource( 1 )\n\n[node name=\"D\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource( 2 )\n";
    // Theirs re-saved with the ids swapped, and changed the rectangle.
    let theirs = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"RectangleShape2D\" id=1]\nextents = Vector2( 3, 3 )\n\n[sub_resource type=\"CircleShape2D\" id=2]\nradius = 4.0\n\n[node name=\"R\" type=\"Node2D\"]\n\n[node name=\"C\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource( 2 )\n\n[node name=\"D\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource( 1 )\n";
    let ours = base.replace("radius = 4.0", "radius = 8.0");
    let r = m(base, &ours, theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(
        t.contains("[sub_resource type=\"CircleShape2D\" id=1]\nradius = 8.0"),
        "{t}"
    );
    assert!(
        t.contains("[sub_resource type=\"RectangleShape2D\" id=2]\nextents = Vector2( 3, 3 )"),
        "{t}"
    );
    assert!(
        t.contains("shape = SubResource( 1 )\n\n[node name=\"D\""),
        "{t}"
    );
}

#[test]
fn format_raised_to_4_when_theirs_needs_it() {
    let ours = BASE.replace("speed = 100", "speed = 2");
    let theirs = BASE.replace("format=3", "format=4").replace(
        "speed = 100\n",
        "speed = 100\ndata = PackedByteArray(\"AAAA\")\n",
    );
    let r = m(BASE, &ours, &theirs);
    assert!(r.is_clean(), "{}", text(&r));
    assert!(
        text(&r).starts_with("[gd_scene load_steps=2 format=4 uid=\"uid://base\"]"),
        "{}",
        text(&r)
    );
}

#[test]
fn broken_input_falls_back_to_the_line_merge() {
    let ours = BASE.replace("speed = 100", "speed = \"unterminated");
    let r = m(BASE, &ours, &BASE.replace("Vector2(1, 2)", "Vector2(3, 4)"));
    assert!(matches!(r.method, Method::LineFallback(_)));
}

#[test]
fn groups_merge_as_sets() {
    let base = BASE.replace(
        "[node name=\"Camera\" type=\"Camera2D\" parent=\".\"]",
        "[node name=\"Camera\" type=\"Camera2D\" parent=\".\" groups=[\"a\"]]",
    );
    let ours = base.replace("groups=[\"a\"]", "groups=[\"a\", \"b\"]");
    let theirs = base.replace("groups=[\"a\"]", "groups=[\"a\", \"c\"]");
    let r = m(&base, &ours, &theirs);
    assert!(r.is_clean(), "{}", text(&r));
    assert!(
        text(&r).contains("groups=[\"a\", \"b\", \"c\"]"),
        "{}",
        text(&r)
    );
}

#[test]
fn override_inside_a_renamed_instance_follows_it_and_can_be_removed() {
    let base = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://ui.tscn\" id=\"1\"]\n\n[node name=\"Root\" type=\"Node\" unique_id=1]\n\n[node name=\"Ui\" parent=\".\" unique_id=2 instance=ExtResource(\"1\")]\n\n[node name=\"Button\" parent=\"Ui/Frame/Box\" index=\"1\" unique_id=7]\ntext = \"Run\"\n\n[node name=\"Label\" parent=\"Ui/Frame\" unique_id=8]\ntext = \"a\"\n";
    let ours = base
        .replace("name=\"Ui\"", "name=\"Panel\"")
        .replace("parent=\"Ui/", "parent=\"Panel/");
    // Theirs removes one override and edits the other.
    let theirs = base
        .replace("\n[node name=\"Button\" parent=\"Ui/Frame/Box\" index=\"1\" unique_id=7]\ntext = \"Run\"\n", "")
        .replace("text = \"a\"", "text = \"b\"");
    let r = m(base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(!t.contains("Button"), "{t}");
    assert!(
        t.contains("[node name=\"Label\" parent=\"Panel/Frame\" unique_id=8]\ntext = \"b\""),
        "{t}"
    );
}

#[test]
fn overrides_without_unique_id_follow_a_moved_instance() {
    // Gem is matched by unique_id; its override entries have none and follow it by
    // (parent identity, name).
    let base = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://gem.tscn\" id=\"1\"]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n\n[node name=\"Body\" type=\"Node2D\" parent=\".\" unique_id=2]\n\n[node name=\"Gem\" parent=\".\" unique_id=3 instance=ExtResource(\"1\")]\n\n[node name=\"Area\" parent=\"Gem\" index=\"1\"]\nmonitoring = false\n\n[node name=\"Shape\" type=\"CollisionShape2D\" parent=\"Gem/Area\" unique_id=4]\n\n[editable path=\"Gem\"]\n";
    let theirs = base
        .replace(
            "[node name=\"Gem\" parent=\".\"",
            "[node name=\"Gem\" parent=\"Body\"",
        )
        .replace("parent=\"Gem", "parent=\"Body/Gem")
        .replace("path=\"Gem\"", "path=\"Body/Gem\"");
    let ours = base.replace("monitoring = false", "monitoring = true");
    let r = m(base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert!(
        t.contains("[node name=\"Area\" parent=\"Body/Gem\" index=\"1\"]\nmonitoring = true"),
        "{t}"
    );
    assert!(
        t.contains(
            "[node name=\"Shape\" type=\"CollisionShape2D\" parent=\"Body/Gem/Area\" unique_id=4]"
        ),
        "{t}"
    );
    assert!(t.contains("[editable path=\"Body/Gem\"]"), "{t}");
}

const NODEPATH_BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n\n[node name=\"Player\" type=\"Node2D\" parent=\".\" unique_id=2]\n\n[node name=\"Enemy\" type=\"Node2D\" parent=\".\" unique_id=3]\nspeed = 1\n";

#[test]
fn nodepath_written_on_one_side_follows_a_rename_on_the_other() {
    let ours = NODEPATH_BASE.replace("name=\"Player\"", "name=\"Hero\"");
    let theirs = NODEPATH_BASE.replace(
        "speed = 1\n",
        "speed = 1\ntarget = NodePath(\"../Player:position\")\nroot = NodePath(\"..\")\n",
    );
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = m(NODEPATH_BASE, o, t);
        let out = text(&r);
        assert!(r.is_clean(), "{out}");
        assert!(
            out.contains("target = NodePath(\"../Hero:position\")\n"),
            "{out}"
        );
        // A path that still reaches its node is kept as written.
        assert!(out.contains("root = NodePath(\"..\")\n"), "{out}");
        assert!(r
            .decisions
            .iter()
            .any(|d| matches!(d, Decision::NodePathFollowed { node, .. } if node == "Enemy")));
    }
}

#[test]
fn nodepath_follows_its_holder_moved_by_the_other_side() {
    // Theirs moves Enemy under a new Group; ours gives Enemy a path to Player.
    let theirs = NODEPATH_BASE.replace(
        "[node name=\"Enemy\" type=\"Node2D\" parent=\".\" unique_id=3]",
        "[node name=\"Group\" type=\"Node2D\" parent=\".\" unique_id=4]\n\n[node name=\"Enemy\" type=\"Node2D\" parent=\"Group\" unique_id=3]",
    );
    let ours = NODEPATH_BASE.replace(
        "speed = 1\n",
        "speed = 1\ntarget = NodePath(\"../Player\")\n",
    );
    let r = m(NODEPATH_BASE, &ours, &theirs);
    let out = text(&r);
    assert!(r.is_clean(), "{out}");
    assert!(out.contains("parent=\"Group\" unique_id=3]"), "{out}");
    assert!(
        out.contains("target = NodePath(\"../../Player\")\n"),
        "{out}"
    );
}

#[test]
fn nodepaths_are_untouched_when_no_node_changed_place() {
    let ours = NODEPATH_BASE.replace(
        "speed = 1\n",
        "speed = 1\ntarget = NodePath(\"../Missing\")\n",
    );
    let theirs = NODEPATH_BASE.replace(
        "type=\"Node2D\" parent=\".\" unique_id=2]",
        "type=\"Node2D\" parent=\".\" unique_id=2]\nvisible = false",
    );
    let r = m(NODEPATH_BASE, &ours, &theirs);
    assert!(r.is_clean(), "{}", text(&r));
    assert!(text(&r).contains("target = NodePath(\"../Missing\")\n"));
    assert!(!r
        .decisions
        .iter()
        .any(|d| matches!(d, Decision::NodePathFollowed { .. })));
}

#[test]
fn both_sides_reordering_differently_keeps_ours_and_says_so() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n\n[node name=\"C\" type=\"Node\" parent=\".\"]\n";
    let node = |n: &str| format!("[node name=\"{n}\" type=\"Node\" parent=\".\"]\n");
    let order = |v: [&str; 3]| {
        format!(
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n{}",
            v.map(node).join("\n")
        )
    };
    let (ours, theirs) = (order(["C", "A", "B"]), order(["B", "C", "A"]));
    let r = m(base, &ours, &theirs);
    let t = text(&r);
    assert!(r.is_clean(), "{t}");
    assert_eq!(t, ours, "ours' order is kept");
    assert!(r
        .decisions
        .iter()
        .any(|d| matches!(d, Decision::OrderConflictOursKept)));
    // A reorder on one side while the other adds a node is no disagreement.
    let added = format!("{base}\n{}", node("D"));
    for (o, th) in [(&ours, &added), (&added, &theirs)] {
        let r = m(base, o, th);
        assert!(r.is_clean(), "{}", text(&r));
        assert_eq!(r.method, Method::Structural);
        assert!(!r
            .decisions
            .iter()
            .any(|d| matches!(d, Decision::OrderConflictOursKept)));
    }
}

/// `shorten` of a long value is the start of all its words joined by single spaces, cut
/// to `max` characters with an ellipsis; it stops joining once the text is surely too long.
#[test]
fn shorten_cuts_long_values_as_the_whole_join_would() {
    let long: String = (0..100_000)
        .map(|i| format!("\tvar v{i} = é{i}\n"))
        .collect();
    for max in [0usize, 1, 5, 40, 77] {
        let joined = long.split_whitespace().collect::<Vec<_>>().join(" ");
        let cut: String = joined.chars().take(max.saturating_sub(1)).collect();
        assert_eq!(shorten(&long, max), format!("{cut}…"), "max {max}");
    }
    assert_eq!(shorten("  a \n b  ", 10), "a b");
    assert_eq!(shorten(&"x".repeat(50), 10), format!("{}…", "x".repeat(9)));
}

/// The validating parse copies the sections the result shares with ours, and still
/// refuses a broken result: a section made to run on, a duplicate node, a dangling
/// reference, a string left open, all after sections copied from ours.
#[test]
fn validation_following_ours_still_refuses_a_broken_result() {
    let ours = Scene::parse(BASE.as_bytes()).expect("parses");
    let ok = validates_owned(BASE.to_string(), &ours, Default::default(), false);
    assert_eq!(ok.as_deref(), Ok(BASE));
    let broken = [
        format!("{BASE}[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\"]\n"),
        format!("{BASE}\n[node name=\"X\" type=\"Node\" parent=\"Nowhere\"]\n"),
        BASE.replace("ExtResource(\"1_abcde\")", "ExtResource(\"9_gone\")"),
        format!("{BASE}\n[node name=\"Y\" type=\"Node\" parent=\".\"]\nt = \"open\n"),
        BASE.replace(
            "[node name=\"Camera\"",
            "<<<<<<< ours\n[node name=\"Camera\"",
        ),
    ];
    for text in broken {
        assert!(
            validates_owned(text.clone(), &ours, Default::default(), false).is_err(),
            "{text}"
        );
    }
}
