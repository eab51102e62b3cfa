//! Conflict hunks carry everything their choice decides: resolving every hunk of a
//! conflicted merge to ours (or to theirs), as `git checkout --ours/--theirs` or a
//! GUI's "use mine/theirs" does, gives a valid scene with the side's nodes. Crafted
//! scenes in the editor's style (Godot 3 and Godot 4.6), merged by the binary.

mod common;
#[path = "common/resolve.rs"]
mod resolve;

use gdscene::check::{check, check_markers, is_broken};
use gdscene::model::Scene;
use resolve::{resolve_all, Side};
use std::process::Command;

/// Merge with the binary (`-o`), returning the exit code and the output text.
fn merge(base: &str, ours: &str, theirs: &str) -> (i32, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, t: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, t).expect("write");
        f
    };
    let (b, o, t) = (
        p("base.tscn", base),
        p("ours.tscn", ours),
        p("theirs.tscn", theirs),
    );
    let out = dir.path().join("out.tscn");
    let st = Command::new(common::bin())
        .arg("merge")
        .arg("-o")
        .arg(&out)
        .args([&b, &o, &t])
        .status()
        .expect("run");
    (
        st.code().unwrap_or(-1),
        std::fs::read_to_string(&out).expect("output"),
    )
}

/// The node paths of a valid scene (panics with the problems when it is not valid).
fn valid_nodes(text: &str) -> Vec<String> {
    assert!(
        check_markers(text.as_bytes()).is_empty(),
        "markers left:\n{text}"
    );
    let s = Scene::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let p = check(&s);
    assert!(!is_broken(&p), "{p:?}\n{text}");
    s.nodes.iter().map(|n| n.path.to_string()).collect()
}

const G3_BASE: &str = r#"[gd_scene load_steps=2 format=2]

[sub_resource type="RectangleShape2D" id=1]
extents = Vector2( 8, 8 )

[node name="Level" type="Node2D"]

[node name="A" type="Node2D" parent="."]
position = Vector2( 10, 10 )

[node name="A2" type="Area2D" parent="A"]

[node name="Shape" type="CollisionShape2D" parent="A/A2"]
shape = SubResource( 1 )

[node name="B" type="Node2D" parent="."]
"#;

const G3_THEIRS: &str = r#"[gd_scene format=2]

[node name="Level" type="Node2D"]

[node name="B" type="Node2D" parent="."]
visible = false
"#;

/// Ours changes `A`, theirs deletes it (and so its child `A2`) and hides `B`.
#[test]
fn godot3_keeping_ours_after_delete_against_modify_keeps_the_subtree() {
    let ours = G3_BASE.replace(
        "position = Vector2( 10, 10 )",
        "position = Vector2( 20, 10 )",
    );
    let (code, text) = merge(G3_BASE, &ours, G3_THEIRS);
    assert_eq!(code, 1, "{text}");
    let o = resolve_all(&text, Side::Ours);
    assert_eq!(
        valid_nodes(&o),
        [".", "A", "A/A2", "A/A2/Shape", "B"],
        "{o}"
    );
    assert!(
        o.contains("position = Vector2( 20, 10 )") && o.contains("visible = false"),
        "{o}"
    );
    let t = resolve_all(&text, Side::Theirs);
    assert_eq!(valid_nodes(&t), [".", "B"], "{t}");
    assert!(t.contains("visible = false"), "{t}");
    // The shape only `A/A2/Shape` uses goes with the subtree: a hunk of its own in the
    // sub_resource area, kept by ours' resolution and gone from theirs'.
    assert!(
        o.contains("[sub_resource type=\"RectangleShape2D\" id=1]"),
        "{o}"
    );
    assert!(!t.contains("[sub_resource"), "{t}");
    assert_eq!(text.matches("<<<<<<< ").count(), 2, "{text}");
}

const G46_BASE: &str = r#"[gd_scene format=3 uid="uid://c8x1v2k3m4n5p"]

[node name="World" type="Node2D" unique_id=1294051873]

[node name="Hero" type="CharacterBody2D" parent="." unique_id=771203492]
speed = 100.0

[node name="Sprite2D" type="Sprite2D" parent="Hero" unique_id=1620488355]

[node name="Hat" type="Sprite2D" parent="Hero/Sprite2D" unique_id=402918337]

[connection signal="ready" from="Hero/Sprite2D" to="." method="_on_sprite_ready"]
"#;

/// `Hero` renamed `Knight` on ours and `Paladin` on theirs (which also changes
/// `speed`): each side's resolution names the children's parent as that side does.
#[test]
fn godot46_rename_conflict_spells_children_per_side() {
    let side = |name: &str| G46_BASE.replace("\"Hero", &format!("\"{name}"));
    let theirs = side("Paladin").replace("speed = 100.0", "speed = 120.0");
    let (code, text) = merge(G46_BASE, &side("Knight"), &theirs);
    assert_eq!(code, 1, "{text}");
    let o = resolve_all(&text, Side::Ours);
    assert_eq!(
        valid_nodes(&o),
        [".", "Knight", "Knight/Sprite2D", "Knight/Sprite2D/Hat"],
        "{o}"
    );
    assert!(
        o.contains("from=\"Knight/Sprite2D\"") && o.contains("speed = 120.0"),
        "{o}"
    );
    let t = resolve_all(&text, Side::Theirs);
    let want = [".", "Paladin", "Paladin/Sprite2D", "Paladin/Sprite2D/Hat"];
    assert_eq!(valid_nodes(&t), want, "{t}");
    assert!(t.contains("from=\"Paladin/Sprite2D\""), "{t}");
}

/// The same delete-against-modify in Godot 4.6 spelling, with diff3 markers of size 9
/// resolved by the helper.
#[test]
fn godot46_delete_against_modify_with_wide_markers() {
    let base = G46_BASE;
    let ours = base.replace("speed = 100.0", "speed = 90.0");
    let cut = base.find("[node name=\"Hero\"").unwrap_or(0);
    let theirs = format!(
        "{}[node name=\"Sign\" type=\"Label\" parent=\".\" unique_id=55501]\n",
        &base[..cut]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, t: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, t).expect("write");
        f
    };
    let (b, o, t) = (p("b.tscn", base), p("o.tscn", &ours), p("t.tscn", &theirs));
    let out = Command::new(common::bin())
        .args(["merge", "-l", "9"])
        .args([&b, &o, &t])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("<<<<<<<<< "), "{text}");
    let o = resolve_all(&text, Side::Ours);
    assert_eq!(
        valid_nodes(&o),
        [".", "Hero", "Hero/Sprite2D", "Hero/Sprite2D/Hat", "Sign"],
        "{o}"
    );
    let t = resolve_all(&text, Side::Theirs);
    assert_eq!(valid_nodes(&t), [".", "Sign"], "{t}");
}

/// `merge --explain=json` over three texts with `args`: exit code, result and the
/// decisions' kinds and messages.
fn explained(
    base: &str,
    ours: &str,
    theirs: &str,
    args: &[&str],
) -> (i32, String, Vec<(String, String)>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, t: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, t).expect("write");
        f
    };
    let (b, o, t) = (p("b.tscn", base), p("o.tscn", ours), p("t.tscn", theirs));
    let out = Command::new(common::bin())
        .args(["merge", "--explain=json"])
        .args(args)
        .args([&b, &o, &t])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let json = &err[err.find('{').unwrap_or(0)..err.rfind('}').map_or(0, |k| k + 1)];
    let doc: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {err}"));
    let decisions = doc["decisions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["kind"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text, decisions)
}

/// Both branches add the scene (git passes an empty base): the stand-in base is a
/// decision `--explain` shows.
#[test]
fn add_add_merge_is_explained() {
    let ours = G46_BASE.replace(
        "[connection",
        "[node name=\"Post\" type=\"Label\" parent=\".\" unique_id=55502]\n\n[connection",
    );
    let theirs = G46_BASE.replace(
        "[connection",
        "[node name=\"Sign\" type=\"Label\" parent=\".\" unique_id=55501]\n\n[connection",
    );
    let (code, text, decisions) = explained("", &ours, &theirs, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("name=\"Post\"") && text.contains("name=\"Sign\""),
        "{text}"
    );
    let stand_in = decisions.iter().find(|(k, _)| k == "add_add_stand_in_base");
    let (_, message) = stand_in.unwrap_or_else(|| panic!("{decisions:?}"));
    assert!(message.contains("[gd_scene format=3]"), "{message}");
    // A merge with a real base has no such decision.
    let (_, _, decisions) = explained(G46_BASE, &ours, &theirs, &[]);
    assert!(
        decisions.iter().all(|(k, _)| k != "add_add_stand_in_base"),
        "{decisions:?}"
    );
}

/// Every hunk `--favor` resolves is a decision, naming its side and what it kept.
#[test]
fn favored_hunks_are_explained() {
    let ours = G46_BASE.replace("speed = 100.0", "speed = 90.0").replace(
        "parent=\"Hero/Sprite2D\" unique_id=402918337]\n",
        "parent=\"Hero/Sprite2D\" unique_id=402918337]\nscale = Vector2(2, 2)\n",
    );
    let theirs = G46_BASE.replace("speed = 100.0", "speed = 110.0").replace(
        "parent=\"Hero/Sprite2D\" unique_id=402918337]\n",
        "parent=\"Hero/Sprite2D\" unique_id=402918337]\nscale = Vector2(3, 3)\n",
    );
    let (code, plain, decisions) = explained(G46_BASE, &ours, &theirs, &[]);
    assert_eq!(code, 1, "{plain}");
    assert!(
        decisions.iter().all(|(k, _)| k != "hunk_favored"),
        "{decisions:?}"
    );
    let hunks = plain.lines().filter(|l| l.starts_with("<<<<<<<")).count();
    assert_eq!(hunks, 2, "{plain}");
    let (code, text, decisions) = explained(G46_BASE, &ours, &theirs, &["--favor=theirs"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("speed = 110.0") && text.contains("Vector2(3, 3)"),
        "{text}"
    );
    let favored: Vec<&String> = decisions
        .iter()
        .filter(|(k, _)| k == "hunk_favored")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(favored.len(), hunks, "{decisions:?}");
    assert!(
        favored[0].contains("to theirs") && favored[0].contains("speed = 110.0"),
        "{favored:?}"
    );
}

const G46_SHAPE: &str = r#"[gd_scene format=3 uid="uid://c8x1v2k3m4n5p"]

[sub_resource type="CircleShape2D" id="CircleShape2D_k2m4p"]
radius = 8.0

[node name="World" type="Node2D" unique_id=1294051873]

[node name="Hero" type="CharacterBody2D" parent="." unique_id=771203492]
speed = 100.0
jump = 300.0

[node name="Body" type="CollisionShape2D" parent="Hero" unique_id=1620488355]
shape = SubResource("CircleShape2D_k2m4p")
"#;

/// The stderr report lists conflicts in file order (the sub_resource before the node
/// that holds it, though the merge finds it later), and the count is of hunks as
/// written: two neighbouring property conflicts are one hunk, as git joins them.
#[test]
fn conflicts_are_reported_in_file_order_and_counted_as_hunks() {
    let side = |speed: &str, jump: &str, radius: &str| {
        G46_SHAPE
            .replace("speed = 100.0", &format!("speed = {speed}"))
            .replace("jump = 300.0", &format!("jump = {jump}"))
            .replace("radius = 8.0", &format!("radius = {radius}"))
    };
    let (ours, theirs) = (side("90.0", "310.0", "9.0"), side("110.0", "320.0", "7.0"));
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str, t: &str| {
        let f = dir.path().join(n);
        std::fs::write(&f, t).expect("write");
        f
    };
    let (b, o, t) = (
        p("b.tscn", G46_SHAPE),
        p("o.tscn", &ours),
        p("t.tscn", &theirs),
    );
    let out = Command::new(common::bin())
        .args(["merge", "--explain=json"])
        .args([&b, &o, &t])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let hunks = text.lines().filter(|l| l.starts_with("<<<<<<<")).count();
    assert_eq!(hunks, 2, "{text}");
    assert!(err.contains(": 2 conflict(s), over 3 parts"), "{err}");
    let at = |what: &str| err.find(what).unwrap_or_else(|| panic!("{what} in {err}"));
    let report = &err[at(" over 3 parts")..];
    let pos = |what: &str| {
        report
            .find(what)
            .unwrap_or_else(|| panic!("{what} in {report}"))
    };
    assert!(
        pos("radius") < pos("speed") && pos("speed") < pos("jump"),
        "{report}"
    );
    // --explain=json: the same count, the reports in the same order.
    let json = &err[at("{")..err.rfind('}').map_or(0, |k| k + 1)];
    let doc: serde_json::Value = serde_json::from_str(json).expect("json");
    assert_eq!(doc["conflicts"], 2, "{json}");
    let props: Vec<&str> = doc["conflict_reports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["property"].as_str())
        .collect();
    assert_eq!(props, ["radius", "speed", "jump"], "{json}");
}

/// Merge and resolve every hunk to each side: (ours' resolution, theirs'), after
/// asserting that the merge conflicted.
fn both_resolutions(base: &str, ours: &str, theirs: &str) -> (String, String) {
    let (code, text) = merge(base, ours, theirs);
    assert_eq!(code, 1, "{text}");
    (
        resolve_all(&text, Side::Ours),
        resolve_all(&text, Side::Theirs),
    )
}

const G46_TREE: &str = r#"[gd_scene format=3 uid="uid://b3t8kq2m1x7yr"]

[node name="Main" type="Control" unique_id=1110001]

[node name="Client" type="Node" parent="." unique_id=1110002]

[node name="Panel" type="Panel" parent="." unique_id=1110003]

[node name="Grid" type="VBoxContainer" parent="Panel" unique_id=1110004]

[node name="Box" type="MarginContainer" parent="Panel/Grid" unique_id=1110005]
layout_mode = 2

[node name="Header" type="Label" parent="Panel/Grid/Box" unique_id=1110006]
text = "News"
"#;

/// Ours moves `Box` (with its child) under `Client`, which theirs deletes; `Client`
/// comes back as a conflict, and `Box` must sit where each side's part can reach its
/// parent: theirs' `Panel/Grid` comes after `Client` in the file.
#[test]
fn a_node_moved_under_a_deleted_node_resolves_to_either_side() {
    let ours = G46_TREE
        .replace(
            "parent=\"Panel/Grid\" unique_id=1110005",
            "parent=\"Client\" unique_id=1110005",
        )
        .replace("parent=\"Panel/Grid/Box\"", "parent=\"Client/Box\"");
    let cut = G46_TREE.find("[node name=\"Client\"").unwrap_or(0);
    let end = G46_TREE.find("[node name=\"Panel\"").unwrap_or(0);
    let theirs = format!("{}{}", &G46_TREE[..cut], &G46_TREE[end..]).replace("News", "Today");
    let (o, t) = both_resolutions(G46_TREE, &ours, &theirs);
    let want_o = [
        ".",
        "Client",
        "Client/Box",
        "Client/Box/Header",
        "Panel",
        "Panel/Grid",
    ];
    let mut got_o = valid_nodes(&o);
    got_o.sort();
    assert_eq!(got_o, want_o, "{o}");
    assert!(o.contains("text = \"Today\""), "{o}");
    let mut got_t = valid_nodes(&t);
    got_t.sort();
    assert_eq!(
        got_t,
        [
            ".",
            "Panel",
            "Panel/Grid",
            "Panel/Grid/Box",
            "Panel/Grid/Box/Header"
        ],
        "{t}"
    );
}

/// Ours renames `Panel` to `Frame` and deletes `Box`; theirs edits `Header` under it.
/// The hunk carries theirs' `Box` and `Header`, spelled under `Frame` as the rest of
/// the result names it.
#[test]
fn a_carried_subtree_is_spelled_under_a_renamed_ancestor() {
    let cut = G46_TREE.find("[node name=\"Box\"").unwrap_or(0);
    let ours = G46_TREE[..cut]
        .replace("\"Panel", "\"Frame")
        .trim_end()
        .to_string()
        + "\n";
    let theirs = G46_TREE.replace("News", "Today");
    let (o, t) = both_resolutions(G46_TREE, &ours, &theirs);
    assert_eq!(
        valid_nodes(&o),
        [".", "Client", "Frame", "Frame/Grid"],
        "{o}"
    );
    assert_eq!(
        valid_nodes(&t),
        [
            ".",
            "Client",
            "Frame",
            "Frame/Grid",
            "Frame/Grid/Box",
            "Frame/Grid/Box/Header"
        ],
        "{t}"
    );
    assert!(t.contains("text = \"Today\""), "{t}");
}

/// Both sides move `Header` (ours under `Grid`, theirs to the root) and theirs renames
/// `Grid`: the `[node]` line conflicts, and ours' part names `Grid` as the result does.
#[test]
fn a_conflicting_node_line_names_its_parent_as_the_result_does() {
    let move_to =
        |p: &str| G46_TREE.replace("parent=\"Panel/Grid/Box\"", &format!("parent=\"{p}\""));
    let ours = move_to("Panel/Grid");
    let theirs = move_to(".")
        .replace("name=\"Grid\"", "name=\"List\"")
        .replace("parent=\"Panel/Grid\"", "parent=\"Panel/List\"");
    let (o, t) = both_resolutions(G46_TREE, &ours, &theirs);
    let o_nodes = valid_nodes(&o);
    assert!(o_nodes.contains(&"Panel/List/Header".to_string()), "{o}");
    let t_nodes = valid_nodes(&t);
    assert!(t_nodes.contains(&"Header".to_string()), "{t}");
    assert!(t_nodes.contains(&"Panel/List/Box".to_string()), "{t}");
}

const G3_SHAPES: &str = r#"[gd_scene load_steps=2 format=2]

[sub_resource type="RectangleShape2D" id=1]
extents = Vector2( 8, 8 )

[node name="Level" type="Node2D"]

[node name="A" type="Area2D" parent="."]

[node name="Shape" type="CollisionShape2D" parent="A"]
shape = SubResource( 1 )

[node name="B" type="Area2D" parent="."]
"#;

/// Ours deletes `A` and gives `B` a new shape under id 1; theirs edits `A`'s shape. The
/// hunk carries theirs' shape, renamed to id 2 (ours keeps 1): theirs' resolution has
/// it under its new id, ours' has only ours' shape.
#[test]
fn a_carried_sub_resource_renamed_by_the_merge_sits_inside_its_hunk() {
    let ours = r#"[gd_scene load_steps=2 format=2]

[sub_resource type="CircleShape2D" id=1]
radius = 4.0

[node name="Level" type="Node2D"]

[node name="B" type="Area2D" parent="."]

[node name="Round" type="CollisionShape2D" parent="B"]
shape = SubResource( 1 )
"#;
    let theirs = G3_SHAPES.replace("Vector2( 8, 8 )", "Vector2( 9, 9 )");
    let (code, text) = merge(G3_SHAPES, ours, &theirs);
    assert_eq!(code, 1, "{text}");
    let o = resolve_all(&text, Side::Ours);
    assert_eq!(valid_nodes(&o), [".", "B", "B/Round"], "{o}");
    assert_eq!(o.matches("[sub_resource").count(), 1, "{o}");
    let t = resolve_all(&text, Side::Theirs);
    assert_eq!(
        valid_nodes(&t),
        [".", "A", "A/Shape", "B", "B/Round"],
        "{t}"
    );
    assert!(
        t.contains("[sub_resource type=\"RectangleShape2D\" id=2]\nextents = Vector2( 9, 9 )"),
        "{t}"
    );
    assert!(t.contains("shape = SubResource( 2 )"), "{t}");
    assert_eq!(t.matches("[sub_resource").count(), 2, "{t}");
}

const G3_LINES: &str = r#"[gd_scene format=2]

[node name="Screen" type="Node2D"]

[node name="Back" type="ColorRect" parent="."]

[node name="Lines" type="VBoxContainer" parent="."]

[node name="Line1" type="HBoxContainer" parent="Lines"]

[node name="Label" type="Label" parent="Lines/Line1"]
text = "One"

[node name="Line2" type="HBoxContainer" parent="Lines"]

[node name="Label" type="Label" parent="Lines/Line2"]
text = "Two"
"#;

/// Without unique_ids, theirs moves `Lines` under `Back`; ours edits the second
/// `Label` (a name that recurs). The `Label`s move with `Lines`: the edit lands on the
/// moved node, cleanly, with no second `Lines/Line2/Label` brought back.
#[test]
fn descendants_with_recurring_names_follow_a_moved_node() {
    let theirs = G3_LINES
        .replace(
            "[node name=\"Lines\" type=\"VBoxContainer\" parent=\".\"]",
            "[node name=\"Lines\" type=\"VBoxContainer\" parent=\"Back\"]",
        )
        .replace("parent=\"Lines", "parent=\"Back/Lines");
    let ours = G3_LINES.replace("text = \"Two\"", "text = \"Deux\"");
    let (code, text) = merge(G3_LINES, &ours, &theirs);
    assert_eq!(code, 0, "{text}");
    let nodes = valid_nodes(&text);
    assert_eq!(
        nodes,
        [
            ".",
            "Back",
            "Back/Lines",
            "Back/Lines/Line1",
            "Back/Lines/Line1/Label",
            "Back/Lines/Line2",
            "Back/Lines/Line2/Label"
        ],
        "{text}"
    );
    assert!(text.contains("text = \"Deux\""), "{text}");
}
