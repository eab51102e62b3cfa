//! Malformed values (not the grain's, never a panic) and changes described at the
//! grain.

use super::*;

#[test]
fn malformed_values_are_not_mine_and_never_panic() {
    let kinds = [
        ctx("TileMap", "tile_data", 2),
        ctx("TileMap", "layer_3/tile_data", 3),
        ctx("TileMapLayer", "tile_map_data", 4),
        ctx("GridMap", "data", 3),
        ctx("Animation", "tracks/0/keys", 3),
        ctx("SpriteFrames", "animations", 3),
        ctx("Node", "__meta__", 2),
    ];
    // Unreadable for every kind.
    let broken = [
        "",
        "PoolIntArray( 1, 2",
        "{ \"a\" }",
        "{\"a\": \"unterminated}",
        "[[[[",
        "]]",
        "\"\\",
        "{;}",
        "nan",
    ];
    // Readable values, but not the layout of any grain kind (a dictionary is one for __meta__).
    let wrong = [
        "PackedInt32Array(1, 2, 3, 4, 5)",
        "PackedByteArray(\"AAEC\")",
        "PackedByteArray(1, 0, 1)",
        "{\n\"cells\": 3\n}",
        "{\n\"times\": PackedFloat32Array(0, 1),\n\"values\": [1]\n}",
        "[{\n\"frames\": []\n}]",
        "Vector2(1, 2)",
    ];
    for c in &kinds {
        for b in broken.iter().chain(if c.key == "__meta__" {
            &[][..]
        } else {
            &wrong[..]
        }) {
            assert_eq!(
                merge_property(c, Some(b), b, b),
                Grain::NotMine,
                "{c:?} {b:?}"
            );
            assert_eq!(
                merge_property(c, None, "[]", b),
                Grain::NotMine,
                "{c:?} {b:?}"
            );
        }
    }
    assert_eq!(
        merge_property(
            &ctx("Node2D", "position", 3),
            None,
            "Vector2(1, 2)",
            "Vector2(1, 3)"
        ),
        Grain::NotMine
    );
}

/// The lines `describe_change` gives, as text.
fn describe_lines(c: &PropertyContext, old: &str, new: &str) -> Option<Vec<String>> {
    describe_change(c, old, new).map(|d| d.changes.iter().map(ToString::to_string).collect())
}

#[test]
fn changes_are_described_at_the_grain() {
    let mut c = ctx("TileMap", "tile_data", 2);
    c.tile_format = Some(1);
    let lines = describe_lines(
        &c,
        G3_BASE,
        "PoolIntArray( 0, 1, 0, 65537, 3, 0, 131074, 3, 0, 65536, 4, 0 )",
    )
    .unwrap_or_default();
    assert_eq!(
        lines,
        vec![
            "2 cells painted in (1, 1)-(2, 2)",
            "1 cell erased at (1, 0)",
            "1 cell changed at (0, 1)"
        ]
    );
    let k = ctx("Animation", "tracks/0/keys", 3);
    let lines = describe_lines(
        &k,
        &keys4("0, 0.2", "1, 1", "Vector2(0, 0), Vector2(0, -10)"),
        &keys4("0.2, 0.4", "1, 1", "Vector2(0, -12), Vector2(1, 1)"),
    )
    .unwrap_or_default();
    assert_eq!(
        lines,
        vec![
            "time 0: removed Vector2(0, 0)",
            "time 0.2: Vector2(0, -10) -> Vector2(0, -12)",
            "time 0.4: added Vector2(1, 1)"
        ]
    );
    let d = ctx("Node", "__meta__", 3);
    let lines =
        describe_lines(&d, "{\n\"a\": 1\n}", "{\n\"a\": 2,\n\"b\": 3\n}").unwrap_or_default();
    assert_eq!(lines, vec!["\"a\": 1 -> 2", "\"b\": added 3"]);
    let s = ctx("SpriteFrames", "animations", 3);
    let lines = describe_lines(
        &s,
        &format!("[{}]", anim4("a", "", "5.0")),
        &format!("[{}, {}]", anim4("a", "", "6.0"), anim4("b", "", "5.0")),
    )
    .unwrap_or_default();
    assert_eq!(
        lines,
        vec![
            "animation \"a\" \"speed\": 5.0 -> 6.0",
            "animation \"b\": added"
        ]
    );
    assert_eq!(describe_lines(&c, "junk(", G3_BASE), None);
}
