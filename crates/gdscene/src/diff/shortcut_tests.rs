//! Tests of the diff's shortcuts: each fast path (bytes the reading copied, parents
//! found near, partners found in step) agrees with the slow path it stands for.

use super::nodes::lis_members;
use super::tests::{d, kinds, sc};
use super::*;

/// Two versions of a scene, the new one read following the old (its unchanged sections
/// copied, as the command line reads them).
fn d_like(a: &str, b: &str) -> DiffReport {
    let old = sc(a);
    let new = Scene::parse_like(b.as_bytes(), &old).unwrap();
    diff(&old, &new)
}

/// The unchanged fast path (bytes copied by the reading, references not scanned when
/// every label agrees) reports what comparing and scanning reports: a node copied byte
/// for byte whose reference now names another file, or whose parent was renamed, or
/// whose reordering among siblings, is still a change.
#[test]
fn copied_nodes_agree_with_compared_nodes() {
    let old = "[gd_scene format=3]\n\n\
        [ext_resource type=\"Texture2D\" path=\"res://a.png\" id=\"1_a\"]\n\n\
        [node name=\"R\" type=\"Node2D\"]\n\n\
        [node name=\"P\" type=\"Node2D\" parent=\".\"]\n\n\
        [node name=\"S\" type=\"Sprite2D\" parent=\"P\"]\ntexture = ExtResource(\"1_a\")\n\n\
        [node name=\"T\" type=\"Node2D\" parent=\".\"]\n\n\
        [node name=\"U\" type=\"Node2D\" parent=\".\"]\n";
    let edits = [
        ("res://a.png", "res://b.png"),
        ("name=\"P\"", "name=\"Q\""),
        ("[node name=\"T\" type=\"Node2D\" parent=\".\"]\n\n", ""),
    ];
    for (from, to) in edits {
        let mut new = old.replacen(from, to, 1);
        if from.starts_with("[node name=\"T\"") {
            new.push_str("\n[node name=\"T\" type=\"Node2D\" parent=\".\"]\n");
        }
        let (fast, slow) = (d_like(old, &new), d(old, &new));
        let nodes = fast.changes.iter().filter(|c| c.subject.kind() == "node");
        assert!(nodes.count() > 0, "{from}: {:?}", kinds(&fast));
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{from}");
    }
    assert!(d_like(old, old).changes.is_empty());
}

/// Parents found near the node agree with the lookup by path when a name holds a `/`
/// (two paths alike without being namesakes under one parent).
#[test]
fn slash_in_a_name_keeps_the_first_parent() {
    let t = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
        [node name=\"A/B\" type=\"Node\" parent=\".\"]\n\n\
        [node name=\"A\" type=\"Node\" parent=\".\"]\n\n\
        [node name=\"B\" type=\"Node\" parent=\"A\"]\n\n\
        [node name=\"C\" type=\"Node\" parent=\"A/B\"]\n";
    let scene = sc(t);
    let side = side::Side::new(&scene);
    assert_eq!(side.parent_of[4], Some(1));
    assert_eq!(side.node_at("A/B"), Some(1));
}

/// The reorder pass skips groups already in order: for those the longest run kept in
/// order is every child (a sequence with a repeat is not in order and is not skipped).
#[test]
fn in_order_siblings_are_all_kept() {
    for seq in [vec![0], vec![0, 1, 2], vec![3, 7, 9, 40], vec![2, 5]] {
        assert!(seq.windows(2).all(|w| w[0] < w[1]));
        assert!(lis_members(&seq).into_iter().all(|k| k), "{seq:?}");
    }
    let repeat = [1, 1];
    assert!(!repeat.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(lis_members(&repeat), vec![false, true]);
}

/// Children written under `parent="."` swapped are reordered; written under `parent=""`
/// they never were (their parent text is read, not taken from the paired parent).
#[test]
fn reorder_reads_a_parent_written_empty() {
    let scene = |first: &str, second: &str, parent: &str| {
        format!(
            "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
             [node name=\"{first}\" type=\"Node\" parent=\"{parent}\"]\n\n\
             [node name=\"{second}\" type=\"Node\" parent=\"{parent}\"]\n"
        )
    };
    let dot = d(&scene("A", "B", "."), &scene("B", "A", "."));
    assert!(
        kinds(&dot).contains(&"node:reordered".to_string()),
        "{dot:?}"
    );
    let empty = d(&scene("A", "B", ""), &scene("B", "A", ""));
    assert!(
        !kinds(&empty).contains(&"node:reordered".to_string()),
        "{empty:?}"
    );
}

/// Pairing by path finds the next new node without writing its path only when no two
/// new nodes share a path: with twins, the old node pairs with the first of them, as the
/// lookup by path says, not with the one that follows its predecessor's partner.
#[test]
fn pairing_by_path_near_agrees_with_the_lookup() {
    let node = |n: &str, p: &str| format!("[node name=\"{n}\" type=\"Node\" parent=\"{p}\"]\n\n");
    let head = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n";
    let old = format!(
        "{head}{}{}{}",
        node("P", "."),
        node("A", "P"),
        node("X", "P")
    );
    let twins = format!(
        "{head}{}{}{}{}",
        node("P", "."),
        node("X", "P"),
        node("A", "P"),
        node("X", "P")
    );
    let plain = format!(
        "{head}{}{}{}",
        node("P", "."),
        node("A", "P"),
        node("X", "P")
    );
    for (new, want) in [(&twins, [0, 1, 3, 2]), (&plain, [0, 1, 2, 3])] {
        let (o, n) = (sc(&old), sc(new));
        let mut d = context::Differ::new(&o, &n);
        matching::pair_nodes_by_key(&mut d);
        assert_eq!(d.node_pair, want.map(Some).to_vec(), "{new}");
    }
}

/// Pairing by unique_id takes the node after the last partner only when no two new
/// nodes share a key: with two, the old node pairs with the first, as the lookup says.
#[test]
fn pairing_by_id_in_step_agrees_with_the_lookup() {
    let node = |n: &str, p: &str, id: u32| {
        format!("[node name=\"{n}\" type=\"Node\" parent=\"{p}\" unique_id={id}]\n\n")
    };
    let head = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\" unique_id=1]\n\n";
    let old = format!("{head}{}{}", node("A", ".", 2), node("B", ".", 5));
    let twins = format!(
        "{head}{}{}{}",
        node("X", ".", 5),
        node("A", ".", 2),
        node("B", ".", 5)
    );
    let plain = format!("{head}{}{}", node("A", ".", 2), node("B", ".", 5));
    for (new, want) in [(&twins, [0, 2, 1]), (&plain, [0, 1, 2])] {
        let (o, n) = (sc(&old), sc(new));
        let mut d = context::Differ::new(&o, &n);
        matching::pair_nodes_by_key(&mut d);
        assert_eq!(d.node_pair, want.map(Some).to_vec(), "{new}");
    }
}
