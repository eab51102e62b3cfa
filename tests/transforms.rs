//! Transforms by parts (issue 39.2): a Node3D's `transform` merges as its origin and its
//! basis, and the basis as its rotation and its scale, so one side's move and the other's
//! rotation (or one's rotation and the other's scale) merge clean with both; the same
//! part changed differently on both sides conflicts as before. `diff` says what changed
//! in the inspector's words.

mod common;

use gdscene::merge::Decision;

fn scene(transform: &str) -> String {
    format!(
        "[gd_scene format=3 uid=\"uid://t\"]\n\n[node name=\"Root\" type=\"Node3D\" unique_id=1]\n\n[node name=\"Crate\" type=\"MeshInstance3D\" parent=\".\" unique_id=2]\ntransform = {transform}\nvisible = true\n"
    )
}

const BASE: &str = "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3)";
const MOVED: &str = "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, -4.5)";
/// 30 degrees about y, as Godot 4.5+ writes it.
const TURNED: &str = "Transform3D(0.8660254, 0, 0.5, 0, 1, 0, -0.5, 0, 0.8660254, 1, 2, 3)";
const SCALED: &str = "Transform3D(1.5, 0, 0, 0, 1.5, 0, 0, 0, 1.5, 1, 2, 3)";

fn parts_said(m: &gdscene::merge::MergeOutcome) -> Vec<String> {
    m.decisions
        .iter()
        .filter_map(|d| match d {
            Decision::TransformMergedByParts { parts, .. } => Some(parts.join(", ")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_move_and_a_rotation_of_one_node3d_merge_with_both() {
    let want =
        "transform = Transform3D(0.8660254, 0, 0.5, 0, 1, 0, -0.5, 0, 0.8660254, 1, 2, -4.5)\n";
    for (o, t, said) in [
        (MOVED, TURNED, "origin from ours, basis from theirs"),
        (TURNED, MOVED, "origin from theirs, basis from ours"),
    ] {
        let m = common::merged(&scene(BASE), &scene(o), &scene(t));
        let text = common::text(&m);
        assert!(m.is_clean() && common::valid(&text), "{text}");
        assert!(text.contains(want), "{text}");
        assert_eq!(parts_said(&m), [said]);
    }
}

#[test]
fn a_rotation_and_a_scale_recompose_exactly() {
    let m = common::merged(&scene(BASE), &scene(TURNED), &scene(SCALED));
    let text = common::text(&m);
    assert!(m.is_clean(), "{text}");
    assert!(
        text.contains(
            "transform = Transform3D(1.299038, 0, 0.75, 0, 1.5, 0, -0.75, 0, 1.299038, 1, 2, 3)\n"
        ),
        "{text}"
    );
    assert_eq!(
        parts_said(&m),
        ["origin from ours, rotation from ours, scale from theirs"]
    );
}

#[test]
fn the_same_part_changed_differently_still_conflicts() {
    let other = "Transform3D(0, 0, 1, 0, 1, 0, -1, 0, 0, 1, 2, 3)";
    let m = common::merged(&scene(BASE), &scene(TURNED), &scene(other));
    assert!(!m.is_clean(), "{}", common::text(&m));
    common::assert_conflict(&m, &["Crate", "transform"]);
    // A sheared basis is not taken apart.
    let sheared = "Transform3D(1, 0.5, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3)";
    let m = common::merged(&scene(BASE), &scene(sheared), &scene(SCALED));
    assert!(!m.is_clean(), "{}", common::text(&m));
}

#[test]
fn godot3_transform_merges_by_parts_in_its_spelling() {
    let g3 = |t: &str| {
        format!("[gd_scene load_steps=1 format=2]\n\n[node name=\"Root\" type=\"Spatial\"]\n\n[node name=\"Crate\" type=\"MeshInstance\" parent=\".\"]\ntransform = {t}\n")
    };
    let base = "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, 3 )";
    let moved = "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 2, -4.5 )";
    let turned = "Transform( 0.866025, 0, 0.5, 0, 1, 0, -0.5, 0, 0.866025, 1, 2, 3 )";
    let m = common::merged(&g3(base), &g3(moved), &g3(turned));
    let text = common::text(&m);
    assert!(m.is_clean(), "{text}");
    assert!(
        text.contains(
            "transform = Transform( 0.866025, 0, 0.5, 0, 1, 0, -0.5, 0, 0.866025, 1, 2, -4.5 )\n"
        ),
        "{text}"
    );
}

#[test]
fn diff_says_moved_rotated_scaled() {
    let show = |a: &str, b: &str| {
        let (x, y) = (scene(a), scene(b));
        let (x, y) = (
            gdscene::model::Scene::parse(x.as_bytes()).unwrap(),
            gdscene::model::Scene::parse(y.as_bytes()).unwrap(),
        );
        let r = gdscene::diff::diff(&x, &y);
        gdscene::render::text::render(&r, &Default::default())
    };
    assert!(show(BASE, MOVED).contains("~ transform: moved by (0, 0, -7.5)\n"));
    assert!(show(BASE, TURNED).contains("~ transform: rotated by 30°\n"));
    let both = "Transform3D(1.5, 0, 0, 0, 1.5, 0, 0, 0, 1.5, 1, 2, -4.5)";
    let text = show(BASE, both);
    assert!(
        text.contains("~ transform: moved by (0, 0, -7.5), scaled by (1.5, 1.5, 1.5)\n"),
        "{text}"
    );
}
