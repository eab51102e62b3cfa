//! The conflict promise on crafted shapes: a conflicted structural merge, every hunk
//! resolved to ours or every hunk resolved to theirs (as `git checkout --ours` /
//! `--theirs` of each hunk would), gives a valid scene, and each resolution is that
//! side's intent (its nodes where it put them). Each case is checked in both directions
//! (ours and theirs swapped). The generated law is `tests/laws.rs`'s; these are the
//! shapes that broke it.

mod common;
#[path = "common/resolve.rs"]
mod resolve;

use gdscene::merge::{MergeOutcome, Method};
use resolve::{resolve_all, Side};

/// The structural merge of a triple, conflicted, and each side's resolution; panics
/// with the text unless the merge stayed structural and both resolutions pass `check`.
fn resolutions(base: &str, ours: &str, theirs: &str) -> (MergeOutcome, String, String) {
    let m = common::merged(base, ours, theirs);
    let text = common::text(&m);
    assert!(
        matches!(m.method, Method::Structural),
        "fell back ({:?}):\n{text}",
        m.method
    );
    assert!(!m.is_clean(), "expected a conflict:\n{text}");
    let [o, t] = [Side::Ours, Side::Theirs].map(|s| resolve_all(&text, s));
    for (side, r) in [("ours", &o), ("theirs", &t)] {
        assert!(
            common::valid(r),
            "{side}' resolution is broken:\n{r}\n---\n{text}"
        );
    }
    (m, o, t)
}

/// Both directions: (ours' resolution, theirs' resolution) of merge(b, x, y), and the
/// same pair of merge(b, y, x) with the sides swapped back (x's side first).
fn both_ways(b: &str, x: &str, y: &str) -> [(String, String); 2] {
    let (_, xo, yt) = resolutions(b, x, y);
    let (_, yo, xt) = resolutions(b, y, x);
    [(xo, yt), (xt, yo)]
}

/// The `[node]` line of the node named `name`, if exactly one such node has that parent.
fn has_node(text: &str, name: &str, parent: &str) -> bool {
    let line = format!("[node name=\"{name}\" type=\"Node2D\" parent=\"{parent}\"]");
    text.lines().filter(|l| *l == line).count() == 1
}

const BASE_MOVE: &str = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="A" type="Node2D" parent="."]

[node name="C" type="Node2D" parent="A"]

[node name="D" type="Node2D" parent="A"]

[node name="R" type="Node2D" parent="."]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="R"]
"#;

/// X deletes A; Y moves R (kept by both) under A/C, and renames A/D. A's conflict
/// carries C inside its hunk, so R's parent is printed only in Y's part: X's part must
/// keep R where X has it, Y's part under A/C (never R at the root, Y's move lost).
#[test]
fn a_node_moved_under_a_deleted_node_hangs_per_side() {
    let x = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="R" type="Node2D" parent="."]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="R"]
"#;
    let y = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="A" type="Node2D" parent="."]

[node name="C" type="Node2D" parent="A"]

[node name="D2" type="Node2D" parent="A"]

[node name="R" type="Node2D" parent="A/C"]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="A/C/R"]
"#;
    for (xr, yr) in both_ways(BASE_MOVE, x, y) {
        assert!(has_node(&xr, "R", ".") && has_node(&xr, "E", "R"), "{xr}");
        assert!(!xr.contains("\"A\""), "{xr}");
        assert!(
            has_node(&yr, "R", "A/C") && has_node(&yr, "E", "A/C/R"),
            "{yr}"
        );
        assert!(has_node(&yr, "D2", "A"), "{yr}");
    }
}

/// The same with a node of R's name at the root (so a lost move collides with it) and
/// the other side renaming an unrelated container: the merge stays structural (no
/// fallback to a line merge that cannot follow the rename).
#[test]
fn a_move_under_a_deleted_node_never_collides_at_the_root() {
    let base = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="P" type="Node2D" parent="."]
position = Vector2(5, 5)

[node name="R" type="Node2D" parent="."]

[node name="L" type="Node2D" parent="."]

[node name="Hot" type="Node2D" parent="."]

[node name="A" type="Node2D" parent="Hot"]

[node name="C" type="Node2D" parent="Hot/A"]

[node name="R" type="Node2D" parent="Hot"]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="Hot/R"]
"#;
    // Renames P to P2, deletes Hot/A.
    let x = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="P2" type="Node2D" parent="."]
position = Vector2(5, 5)

[node name="R" type="Node2D" parent="."]

[node name="L" type="Node2D" parent="."]

[node name="Hot" type="Node2D" parent="."]

[node name="R" type="Node2D" parent="Hot"]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="Hot/R"]
"#;
    // Moves L under P, Hot/R under Hot/A/C.
    let y = r#"[gd_scene format=3]

[node name="Root" type="Node2D"]

[node name="P" type="Node2D" parent="."]
position = Vector2(5, 5)

[node name="L" type="Node2D" parent="P"]

[node name="R" type="Node2D" parent="."]

[node name="Hot" type="Node2D" parent="."]

[node name="A" type="Node2D" parent="Hot"]

[node name="C" type="Node2D" parent="Hot/A"]

[node name="R" type="Node2D" parent="Hot/A/C"]
position = Vector2(1, 2)

[node name="E" type="Node2D" parent="Hot/A/C/R"]
"#;
    for (xr, yr) in both_ways(base, x, y) {
        for r in [&xr, &yr] {
            // Both sides' edits that do not conflict are in each resolution.
            assert!(has_node(r, "L", "P2") && has_node(r, "R", "."), "{r}");
        }
        assert!(
            has_node(&xr, "R", "Hot") && has_node(&xr, "E", "Hot/R"),
            "{xr}"
        );
        assert!(has_node(&yr, "R", "Hot/A/C"), "{yr}");
        assert!(has_node(&yr, "E", "Hot/A/C/R"), "{yr}");
    }
}

/// X adds M with `unique_id=7`; Y re-identifies N (a re-save) from 5 to 7. Whichever
/// side is ours, no two nodes share an id: the new node keeps 7 only when it is ours'
/// (else it gets a fresh id), and N keeps 5 when the 7 came from theirs.
#[test]
fn a_reidentified_node_never_takes_an_id_a_new_node_holds() {
    let base = r#"[gd_scene format=3 uid="uid://b1"]

[node name="Root" type="Node2D" unique_id=100]

[node name="N" type="Node2D" parent="." unique_id=5]
position = Vector2(1, 1)

[node name="K" type="Node2D" parent="." unique_id=6]
"#;
    let x = format!("{base}\n[node name=\"M\" type=\"Node2D\" parent=\".\" unique_id=7]\n");
    let y = base.replace("unique_id=5", "unique_id=7");
    for (o, t) in [(x.as_str(), y.as_str()), (y.as_str(), x.as_str())] {
        let m = common::merged(base, o, t);
        let text = common::text(&m);
        assert!(
            m.is_clean() && matches!(m.method, Method::Structural),
            "{text}"
        );
        assert!(common::valid(&text), "{text}");
        assert_eq!(text.matches("unique_id=7]").count(), 1, "{text}");
        assert!(text.contains("[node name=\"M\""), "{text}");
    }
    let m = common::merged(base, &x, &y);
    assert!(common::text(&m).contains("name=\"N\" type=\"Node2D\" parent=\".\" unique_id=5]"));
    let said = m
        .decisions
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>();
    assert!(
        said.iter()
            .any(|d| d.contains("unique_id=7") && d.contains("keeps ours' unique_id=5")),
        "{said:?}"
    );
}

/// X re-identifies N from 5 to 7; Y changes P and adds M under it with `unique_id=7`,
/// while X deletes P: M is printed in the hunk's Y part only. Resolving to either side
/// leaves no id twice (theirs' part writes a fresh id for M when Y is theirs).
#[test]
fn a_new_node_inside_a_hunk_never_repeats_an_id_outside_it() {
    let base = r#"[gd_scene format=3 uid="uid://b1"]

[node name="Root" type="Node2D" unique_id=100]

[node name="N" type="Node2D" parent="." unique_id=5]
position = Vector2(1, 1)

[node name="P" type="Node2D" parent="." unique_id=6]
position = Vector2(2, 2)
"#;
    let x = r#"[gd_scene format=3 uid="uid://b1"]

[node name="Root" type="Node2D" unique_id=100]

[node name="N" type="Node2D" parent="." unique_id=7]
position = Vector2(1, 1)
"#;
    let y = format!(
        "{}\n[node name=\"M\" type=\"Node2D\" parent=\"P\" unique_id=7]\n",
        base.replace("(2, 2)", "(3, 3)")
    );
    for (xr, yr) in both_ways(base, x, &y) {
        assert!(
            xr.contains("name=\"N\"") && !xr.contains("name=\"P\""),
            "{xr}"
        );
        assert!(yr.contains("name=\"M\"") && yr.contains("(3, 3)"), "{yr}");
    }
}

/// Both sides re-imported the model above an override entry, each giving it a new
/// `parent_id_path`: ours' is kept, and `--explain` says so with theirs'.
#[test]
fn both_sides_changing_an_id_path_keep_ours_and_say_so() {
    let base = r#"[gd_scene format=3 uid="uid://b1"]

[ext_resource type="PackedScene" uid="uid://m1" path="res://model.glb" id="1_m"]

[node name="Root" type="Node3D" unique_id=100]

[node name="Player" parent="." unique_id=200 instance=ExtResource("1_m")]

[node name="Skeleton3D" parent="Player/Armature" parent_id_path=PackedInt32Array(200, 11) index="0" unique_id=300]
bone_0 = 0
"#;
    let o = base
        .replace("(200, 11)", "(200, 12)")
        .replace("bone_0 = 0", "bone_0 = 0\nbone_1 = 1");
    let t = base
        .replace("(200, 11)", "(200, 13)")
        .replace("bone_0 = 0", "bone_0 = 0\nbone_2 = 2");
    let m = common::merged(base, &o, &t);
    let text = common::text(&m);
    assert!(m.is_clean() && common::valid(&text), "{text}");
    assert!(
        text.contains("PackedInt32Array(200, 12)") && text.contains("bone_2 = 2"),
        "{text}"
    );
    let said = m
        .decisions
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>();
    assert!(
        said.iter()
            .any(|d| d.contains("parent_id_path") && d.contains("PackedInt32Array(200, 13)")),
        "{said:?}"
    );
}

/// X deletes node N, the mesh and noise texture N's resources use and every use of them
/// (the `shadow_mesh` of an ArrayMesh, a `shader_parameter/` of a material, both still
/// used by M, whose X side now uses others); Y edits N and both resources. The hunk that
/// carries N may hold a resource only when every use of it goes with it: the ArrayMesh
/// and the material stay outside (M uses them on Y's side), so the mesh and the texture
/// they use stay outside too, and resolving every hunk to X leaves no `SubResource` naming
/// nothing (before, the mesh and texture were in the hunk, their uses outside).
#[test]
fn a_hunk_holds_a_resource_only_with_every_use_of_it() {
    let base = r#"[gd_scene format=3]

[sub_resource type="BoxMesh" id="BoxMesh_a"]
size = Vector3(1, 1, 1)

[sub_resource type="NoiseTexture2D" id="NoiseTexture2D_n"]
width = 64

[sub_resource type="ArrayMesh" id="ArrayMesh_s"]
shadow_mesh = SubResource("BoxMesh_a")

[sub_resource type="ShaderMaterial" id="ShaderMaterial_m"]
shader_parameter/noise = SubResource("NoiseTexture2D_n")
shader_parameter/strength = 1.0

[node name="Root" type="Node3D"]

[node name="N" type="MeshInstance3D" parent="."]
mesh = SubResource("ArrayMesh_s")
material_override = SubResource("ShaderMaterial_m")

[node name="M" type="MeshInstance3D" parent="."]
mesh = SubResource("ArrayMesh_s")
material_override = SubResource("ShaderMaterial_m")
"#;
    let x = r#"[gd_scene format=3]

[sub_resource type="SphereMesh" id="SphereMesh_q"]

[sub_resource type="StandardMaterial3D" id="StandardMaterial3D_w"]

[node name="Root" type="Node3D"]

[node name="M" type="MeshInstance3D" parent="."]
mesh = SubResource("SphereMesh_q")
material_override = SubResource("StandardMaterial3D_w")
"#;
    let y = base
        .replace("size = Vector3(1, 1, 1)", "size = Vector3(2, 2, 2)")
        .replace("width = 64", "width = 128")
        .replace(
            "material_override = SubResource(\"ShaderMaterial_m\")\n\n[node name=\"M\"",
            "material_override = SubResource(\"ShaderMaterial_m\")\nvisible = false\n\n[node name=\"M\"",
        );
    for (xr, yr) in both_ways(base, x, &y) {
        assert!(!xr.contains("name=\"N\""), "{xr}");
        assert!(
            yr.contains("visible = false") && yr.contains("Vector3(2, 2, 2)"),
            "{yr}"
        );
    }
}

/// One side deletes an instanced `Tower` and renames its sibling `Tower2` (same
/// `unique_id`) onto the freed name; the other changes both (issue 39.3). The nodes
/// meeting at `Tower` are a structural conflict, never a line-merge fallback: each
/// resolution holds every `unique_id` once, and each side's towers where it put them.
#[test]
fn a_rename_onto_a_deleted_siblings_name_conflicts_as_nodes() {
    let base = r#"[gd_scene format=3 uid="uid://abc"]

[ext_resource type="PackedScene" uid="uid://t1" path="res://tower.tscn" id="1_a"]

[node name="Root" type="Node2D" unique_id=100]

[node name="Tower" parent="." unique_id=1 instance=ExtResource("1_a")]
position = Vector2(10, 0)

[node name="Tower2" parent="." unique_id=2 instance=ExtResource("1_a")]
position = Vector2(20, 0)
"#;
    let x = r#"[gd_scene format=3 uid="uid://abc"]

[ext_resource type="PackedScene" uid="uid://t1" path="res://tower.tscn" id="1_a"]

[node name="Root" type="Node2D" unique_id=100]

[node name="Tower" parent="." unique_id=2 instance=ExtResource("1_a")]
position = Vector2(20, 0)
"#;
    let y = base
        .replace("(10, 0)", "(11, 0)")
        .replace("(20, 0)", "(22, 0)");
    let once = |r: &str| {
        ["unique_id=1 ", "unique_id=2 "]
            .iter()
            .all(|id| r.matches(id).count() <= 1)
    };
    for (xr, yr) in both_ways(base, x, &y) {
        assert!(once(&xr) && once(&yr), "{xr}\n---\n{yr}");
        // X's side: one Tower, the renamed Tower2 (with Y's clean move of it).
        assert!(
            xr.contains("[node name=\"Tower\" parent=\".\" unique_id=2"),
            "{xr}"
        );
        assert!(
            !xr.contains("Tower2") && !xr.contains("unique_id=1 "),
            "{xr}"
        );
        // Y's side: both towers, both moved.
        assert!(yr.contains("(11, 0)") && yr.contains("(22, 0)"), "{yr}");
        assert!(yr.contains("name=\"Tower2\""), "{yr}");
    }
}
