//! Tests of the keyed model: kinds, headers, resources, node paths and keys, overrides.

use super::*;

const SCENE: &str = r#"[gd_scene load_steps=3 format=3 uid="uid://abc"]

[ext_resource type="Script" path="res://a.gd" id="1_x"]
[ext_resource type="PackedScene" uid="uid://enemy" path="res://enemy.tscn" id="2_y"]

[sub_resource type="CircleShape2D" id="CircleShape2D_a"]
radius = 4.0

[node name="Root" type="Node2D" unique_id=10]
script = ExtResource("1_x")

[node name="Enemy" parent="." unique_id=11 instance=ExtResource("2_y")]

[node name="Sprite" parent="Enemy" unique_id=5]
modulate = Color(1, 0, 0, 1)

[node name="Enemy2" parent="." unique_id=12 instance=ExtResource("2_y")]

[node name="Sprite" parent="Enemy2" unique_id=5]

[node name="Shape" type="CollisionShape2D" parent="."]
shape = SubResource("CircleShape2D_a")

[connection signal="hit" from="Enemy" to="." method="_on_hit"]

[editable path="Enemy"]
"#;

#[test]
fn keys_every_part() {
    let s = Scene::parse(SCENE.as_bytes()).unwrap();
    assert_eq!(s.kind, FileKind::Scene);
    assert_eq!(s.header.format, Some(3));
    assert_eq!(s.header.load_steps, Some(3));
    assert_eq!(s.header.uid.as_deref(), Some("uid://abc"));
    assert_eq!(s.ext_resources.len(), 2);
    assert_eq!(s.ext_resources[0].key(), "path:res://a.gd");
    assert_eq!(s.ext_resources[1].key(), "uid:uid://enemy");
    assert_eq!(s.sub_resources[0].id, "CircleShape2D_a");
    let paths: Vec<_> = s.nodes.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            ".",
            "Enemy",
            "Enemy/Sprite",
            "Enemy2",
            "Enemy2/Sprite",
            "Shape"
        ]
    );
    assert_eq!(s.nodes[1].instance(), Some("2_y"));
    // The two overrides share unique_id 5 but live in different instances.
    assert_eq!(
        s.nodes[2].key,
        NodeKey::UniqueId {
            scope: "Enemy".into(),
            id: 5
        }
    );
    assert_eq!(
        s.nodes[4].key,
        NodeKey::UniqueId {
            scope: "Enemy2".into(),
            id: 5
        }
    );
    assert_eq!(
        s.nodes[0].key,
        NodeKey::UniqueId {
            scope: SmallStr::new(),
            id: 10
        }
    );
    assert_eq!(s.nodes[5].key, NodeKey::Path("Shape".into()));
    assert_eq!(s.connections[0].key.signal, "hit");
    assert_eq!(s.editables[0].path, "Enemy");
    assert_eq!(s.expected_load_steps(), 4);
}

/// A scene parsed from a [`Source`] holds the caller's bytes, not a copy, and keys
/// them exactly as a scene parsed from a slice.
#[test]
fn a_scene_from_a_source_shares_its_bytes() {
    let src = Source::new(SCENE.as_bytes().to_vec());
    let shared = Scene::parse_source(&src).unwrap();
    assert_eq!(shared.doc.text.as_ptr(), src.as_ptr());
    let copied = Scene::parse(SCENE.as_bytes()).unwrap();
    assert_ne!(copied.doc.text.as_ptr(), SCENE.as_ptr());
    assert_eq!(format!("{:?}", shared.nodes), format!("{:?}", copied.nodes));
    assert_eq!(shared.doc.print(), SCENE);
    let bad = Source::new(b"[gd_scene format=3]\n\xff\n".to_vec());
    let e = Scene::parse_source(&bad).unwrap_err();
    assert!(e.to_string().contains("UTF-8"), "{e}");
}

#[test]
fn godot3_int_ids_and_spaced_refs() {
    let src = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://p.tscn\" type=\"PackedScene\" id=1]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"P\" parent=\".\" instance=ExtResource( 1 )]\n";
    let s = Scene::parse(src.as_bytes()).unwrap();
    assert!(s.is_godot3());
    assert_eq!(s.ext_resources[0].id, "1");
    assert_eq!(s.nodes[1].instance(), Some("1"));
    assert_eq!(s.nodes[1].path, "P");
}

#[test]
fn rejects_a_file_that_is_not_a_scene() {
    let e = Scene::parse(b"[remap]\npath=\"x\"\n").unwrap_err();
    assert!(e.to_string().contains("gd_scene"), "{e}");
}

/// Nodes built on two threads equal nodes built on one, keys included (override
/// entries are scoped by instances listed in either half).
#[test]
fn nodes_built_on_two_threads_equal_one_thread() {
    let mut text = String::from(
        "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1_e\"]\n\n[node name=\"Root\" type=\"Node\" unique_id=1]\n",
    );
    for i in 0..300 {
        text.push_str(&format!(
            "\n[node name=\"N{i}\" type=\"Node\" parent=\".\" unique_id={}]\n",
            i + 2
        ));
        if i % 50 == 7 {
            text.push_str(&format!("\n[node name=\"E{i}\" parent=\"N{i}\" unique_id={} instance=ExtResource(\"1_e\")]\n", 1000 + i));
        }
    }
    // Overrides of nodes inside the instances, at the end (in the second half).
    for i in (7..300).step_by(50) {
        text.push_str(&format!(
            "\n[node name=\"Inner\" parent=\"N{i}/E{i}\" unique_id=77]\nvisible = false\n"
        ));
    }
    let mut texts = vec![text];
    texts.extend(
        crate::test_support::corpus_texts(5)
            .into_iter()
            .map(|(_, t)| t),
    );
    assert!(texts.len() > 1000 || crate::test_support::shared_dir().is_none());
    for text in &texts {
        let Ok(doc) = Document::parse(text.as_bytes()) else {
            continue;
        };
        let one = Scene::from_document_with(doc.clone(), usize::MAX, None)
            .map(|s| format!("{:?}", s.nodes));
        let two = Scene::from_document_with(doc, 0, None).map(|s| format!("{:?}", s.nodes));
        match (one, two) {
            (Ok(a), Ok(b)) => assert!(a == b, "nodes differ:\n{text}"),
            (a, b) => assert_eq!(a.is_ok(), b.is_ok()),
        }
    }
}

/// A scene read following another (its sections and nodes copied where they are the
/// other's) is the scene read afresh, on one thread or two: corpus files with nodes
/// added, removed, renamed, reparented and given unique ids, read both ways round.
#[test]
fn reading_like_another_scene_equals_reading_afresh() {
    let texts = crate::test_support::corpus_texts(7);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let edits: [fn(&str) -> String; 5] = [
        |t| t.replacen("[node name=\"", "[node name=\"Renamed", 2),
        |t| t.replacen(" parent=\".\"", " parent=\"Gone\"", 1),
        |t| t.replacen("[node ", "[node unique_id=5 ", 3),
        |t| format!("{t}\n[node name=\"Extra\" type=\"Node\" parent=\".\"]\n"),
        |t| match t.match_indices("\n[node").nth(1) {
            Some((at, _)) => format!("{}{}", &t[..at], &t[at..].replacen("\n[node", "\n", 1)),
            None => t.to_string(),
        },
    ];
    let mut compared = 0;
    for (stored, text) in &texts {
        let Ok(original) = Scene::parse(text.as_bytes()) else {
            continue;
        };
        let edited = edits[(next() % 5) as usize](text);
        let Ok(changed) = Scene::parse(edited.as_bytes()) else {
            continue;
        };
        for (t, like) in [(&edited, &original), (text, &changed), (text, &original)] {
            let fresh = Scene::parse(t.as_bytes()).map(|s| format!("{s:?}"));
            let followed = Scene::parse_like(t.as_bytes(), like).map(|s| format!("{s:?}"));
            assert!(
                fresh.ok() == followed.ok(),
                "{stored}: reading like another differs"
            );
            let (doc, from) = Document::read_like(Text::from(t.to_string()), &like.doc)
                .unwrap_or_else(|e| panic!("{e}"));
            let copied = Copied {
                nodes: &like.nodes,
                from: &from,
            };
            let two = Scene::from_document_with(doc, 0, Some(copied)).map(|s| format!("{s:?}"));
            let fresh = Scene::parse(t.as_bytes()).map(|s| format!("{s:?}"));
            assert!(
                fresh.ok() == two.ok(),
                "{stored}: on two threads it differs"
            );
            compared += 1;
        }
    }
    assert!(
        compared > 1000 || crate::test_support::shared_dir().is_none(),
        "{compared}"
    );
}
