//! Unit tests of the grain merges: each value kind in both directions, Godot 3 and 4
//! spellings, conflicts named, round trips over the corpus, the real Level1 TileMap merge.

use super::*;
use crate::test_support::{corpus_texts, shared_dir};
use crate::value::{outline, parse, PackedElems, Value};

fn ctx<'a>(owner: &'a str, key: &'a str, format: u8) -> PropertyContext<'a> {
    PropertyContext {
        owner_type: owner,
        key,
        file_format: format,
        tile_format: None,
        track_type: None,
    }
}

fn merged(out: GrainOutcome) -> String {
    match out {
        Grain::Merged(s) => {
            assert!(parse(&s).is_ok(), "merged value does not re-parse: {s}");
            s
        }
        other => panic!("expected a merge, got {other:?}"),
    }
}

fn conflicts(out: GrainOutcome) -> Vec<GrainConflict> {
    match out {
        Grain::Conflict(c) => c,
        other => panic!("expected conflicts, got {other:?}"),
    }
}

/// Merge both ways round: the result must not depend on which side is ours (up to order,
/// which `same` decides).
fn both_ways(
    c: &PropertyContext,
    base: &str,
    a: &str,
    b: &str,
    same: impl Fn(&str, &str) -> bool,
) -> String {
    let x = merged(merge_property(c, Some(base), a, b));
    let y = merged(merge_property(c, Some(base), b, a));
    assert!(same(&x, &y), "ours/theirs swapped differ:\n{x}\n{y}");
    x
}

fn ints(text: &str) -> Vec<i64> {
    match parse(text) {
        Ok(Value::Packed(p)) => match p.elements() {
            Ok(PackedElems::Ints(v)) => v,
            other => panic!("not ints: {other:?}"),
        },
        other => panic!("not packed: {other:?}"),
    }
}

/// Cells of an int tile array as sorted triples/pairs, so orders can be compared.
fn cell_set(text: &str, stride: usize) -> Vec<Vec<i64>> {
    let mut v: Vec<Vec<i64>> = ints(text).chunks(stride).map(|c| c.to_vec()).collect();
    v.sort();
    v
}

// ---- tile maps ----

const G3_BASE: &str = "PoolIntArray( 0, 1, 0, 1, 1, 0, 65536, 2, 0 )";

#[test]
fn godot3_tilemap_cells_from_both_sides_apply_in_map_order() {
    let mut c = ctx("TileMap", "tile_data", 2);
    c.tile_format = Some(1);
    // ours paints (-1, 0); theirs erases (1, 0) and repaints (0, 1) with a flipped tile.
    let ours = "PoolIntArray( 0, 1, 0, 1, 1, 0, 65535, 3, 0, 65536, 2, 0 )";
    let theirs = "PoolIntArray( 0, 1, 0, 65536, 536870914, 0 )";
    let out = both_ways(&c, G3_BASE, ours, theirs, |a, b| a == b);
    assert_eq!(
        out,
        "PoolIntArray( 65535, 3, 0, 0, 1, 0, 65536, 536870914, 0 )"
    );
    // (-1, -1) packs to -1 and sorts first (row -1).
    let up = merged(merge_property(
        &c,
        Some(G3_BASE),
        "PoolIntArray( 0, 1, 0, 1, 1, 0, 65536, 2, 0, -1, 4, 0 )",
        G3_BASE,
    ));
    assert!(up.starts_with("PoolIntArray( -1, 4, 0, 0, 1, 0"), "{up}");
}

#[test]
fn godot3_tilemap_same_cell_both_sides_conflicts_naming_it() {
    let mut c = ctx("TileMap", "tile_data", 2);
    c.tile_format = Some(1);
    let ours = "PoolIntArray( 0, 1, 0, 1, 5, 0, 65536, 2, 0 )";
    let theirs = "PoolIntArray( 0, 1, 0, 1, 6, 0, 65536, 2, 0 )";
    for (a, b) in [(ours, theirs), (theirs, ours)] {
        let cs = conflicts(merge_property(&c, Some(G3_BASE), a, b));
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].at, ConflictAt::Cell(vec![1, 0]));
        assert_eq!(cs[0].base.as_deref(), Some("tile 1 autotile (0, 0)"));
        assert!(
            cs[0].to_string().starts_with("cell (1, 0): base tile 1"),
            "{}",
            cs[0]
        );
    }
    // The same change on both sides is no conflict.
    assert_eq!(merged(merge_property(&c, Some(G3_BASE), ours, ours)), ours);
}

#[test]
fn godot3_tilemap_without_format_has_two_ints_per_cell() {
    let c = ctx("TileMap", "tile_data", 2);
    let base = "PoolIntArray( 0, 1, 1, 1 )";
    let out = both_ways(
        &c,
        base,
        "PoolIntArray( 0, 1, 1, 1, 2, 7 )",
        "PoolIntArray( 0, 4, 1, 1 )",
        |a, b| a == b,
    );
    assert_eq!(out, "PoolIntArray( 0, 4, 1, 1, 2, 7 )");
}

#[test]
fn godot4_layer_cells_keep_file_order_and_append_new_cells() {
    let c = ctx("TileMap", "layer_0/tile_data", 3);
    let base = "PackedInt32Array(65537, 0, 0, 0, 0, 0)";
    let ours = "PackedInt32Array(65537, 0, 0, 0, 0, 0, 3, 65536, 0)";
    let theirs = "PackedInt32Array(65537, 1, 0, 0, 0, 0, 2, 65536, 0)";
    let out = merged(merge_property(&c, Some(base), ours, theirs));
    assert_eq!(
        out,
        "PackedInt32Array(65537, 1, 0, 0, 0, 0, 3, 65536, 0, 2, 65536, 0)"
    );
    let swapped = merged(merge_property(&c, Some(base), theirs, ours));
    assert_eq!(cell_set(&out, 3), cell_set(&swapped, 3));
    let cs = conflicts(merge_property(
        &c,
        Some(base),
        "PackedInt32Array(65537, 2, 0, 0, 0, 0)",
        theirs,
    ));
    assert_eq!(cs[0].at, ConflictAt::Cell(vec![1, 1]));
    assert_eq!(
        cs[0].ours.as_deref(),
        Some("source 2 atlas (0, 0) alternative 0")
    );
}

fn layer_bytes(cells: &[[i16; 6]]) -> Vec<u8> {
    let mut v = vec![0u8, 0];
    for c in cells {
        for x in c {
            v.extend_from_slice(&x.to_le_bytes());
        }
    }
    v
}

fn b64(cells: &[[i16; 6]]) -> String {
    format!(
        "PackedByteArray(\"{}\")",
        crate::value::packed_base64_encode(&layer_bytes(cells))
    )
}

#[test]
fn tilemaplayer_bytes_merge_cell_by_cell_in_base64_and_decimal() {
    let c = ctx("TileMapLayer", "tile_map_data", 4);
    let a = [0, 0, 1, 0, 0, 0];
    let b = [-1, 2, 1, 3, 0, 0];
    let d = [5, 5, 0, 1, 1, 0];
    let b2 = [-1, 2, 1, 4, 0, 0];
    let out = merged(merge_property(
        &c,
        Some(&b64(&[a, b])),
        &b64(&[a, b, d]),
        &b64(&[b2]),
    ));
    assert_eq!(out, b64(&[b2, d]));
    let swapped = merged(merge_property(
        &c,
        Some(&b64(&[a, b])),
        &b64(&[b2]),
        &b64(&[a, b, d]),
    ));
    assert_eq!(swapped, b64(&[b2, d]));
    // format=3 decimal spelling stays decimal.
    let dec = |cells: &[[i16; 6]]| {
        let items: Vec<String> = layer_bytes(cells).iter().map(|x| x.to_string()).collect();
        format!("PackedByteArray({})", items.join(", "))
    };
    let c3 = ctx("TileMapLayer", "tile_map_data", 3);
    assert_eq!(
        merged(merge_property(
            &c3,
            Some(&dec(&[a])),
            &dec(&[a, d]),
            &dec(&[])
        )),
        dec(&[d])
    );
    let cs = conflicts(merge_property(&c, Some(&b64(&[b])), &b64(&[b2]), &b64(&[])));
    assert_eq!(cs[0].at, ConflictAt::Cell(vec![-1, 2]));
    assert_eq!(cs[0].theirs.as_deref(), Some("empty"));
}

#[test]
fn gridmap_cells_merge_in_both_dialects() {
    let g3 = ctx("GridMap", "data", 2);
    let base = "{\n\"cells\": PoolIntArray( 0, 0, 1, 1, 0, 2 )\n}";
    let ours = "{\n\"cells\": PoolIntArray( 0, 0, 1, 1, 0, 2, 65535, 1, 3 )\n}";
    let theirs = "{\n\"cells\": PoolIntArray( 0, 0, 9 )\n}";
    let out = both_ways(&g3, base, ours, theirs, |a, b| a == b);
    assert_eq!(out, "{\n\"cells\": PoolIntArray( 0, 0, 9, 65535, 1, 3 )\n}");
    let g4 = ctx("GridMap", "data", 3);
    let base4 = "{\n\"cells\": PackedInt32Array(0, 0, 1)\n}";
    let out4 = merged(merge_property(
        &g4,
        Some(base4),
        "{\n\"cells\": PackedInt32Array(0, 0, 1, 5, 0, 2)\n}",
        "{\n\"cells\": PackedInt32Array(0, 0, 1, 3, 0, 2)\n}",
    ));
    assert_eq!(
        out4,
        "{\n\"cells\": PackedInt32Array(0, 0, 1, 5, 0, 2, 3, 0, 2)\n}"
    );
    let cs = conflicts(merge_property(
        &g4,
        Some(base4),
        "{\n\"cells\": PackedInt32Array(0, 0, 2)\n}",
        "{\n\"cells\": PackedInt32Array(0, 0, 3)\n}",
    ));
    assert_eq!(cs[0].at, ConflictAt::Cell(vec![0, 0]));
    let cs = conflicts(merge_property(
        &g4,
        Some(base4),
        "{\n\"cells\": PackedInt32Array(0, 1, 2)\n}",
        "{\n\"cells\": PackedInt32Array(0, 1, 3)\n}",
    ));
    assert_eq!(cs[0].at, ConflictAt::Cell(vec![0, 0, 1]));
}

/// The first `tile_data` (and its node's `format`) of each TileMap in a Godot 3 file.
fn tilemaps(text: &str) -> Vec<(Option<i64>, String)> {
    let Ok(sections) = outline(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in sections {
        let get = |k: &str| {
            s.props
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, r)| text[r.clone()].to_string())
        };
        if let Some(data) = get("tile_data") {
            out.push((get("format").and_then(|f| f.trim().parse().ok()), data));
        }
    }
    out
}

#[test]
fn real_level1_tilemaps_merge_to_the_committed_cells() {
    let Some(root) = shared_dir() else { return };
    let dir = root
        .join("merges/GDQuest__godot-platformer-2d__f92db19323__game__src__Levels__Level1.tscn");
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap_or_default();
    let [b, o, t, r] =
        ["base.tscn", "ours.tscn", "theirs.tscn", "result.tscn"].map(|n| tilemaps(&read(n)));
    assert_eq!(b.len(), 2, "two TileMaps in base");
    assert!(o.len() == 2 && t.len() == 2 && r.len() == 2);
    for i in 0..2 {
        let mut c = ctx("TileMap", "tile_data", 2);
        c.tile_format = o[i].0;
        assert!(
            i == 1 || o[i].1 != t[i].1,
            "TileMap 0: both sides changed it"
        );
        let x = merged(merge_property(&c, Some(&b[i].1), &o[i].1, &t[i].1));
        let y = merged(merge_property(&c, Some(&b[i].1), &t[i].1, &o[i].1));
        assert_eq!(
            cell_set(&x, 3),
            cell_set(&r[i].1, 3),
            "TileMap {i}: cells differ from the result"
        );
        assert_eq!(x, r[i].1, "TileMap {i}: not in the editor's order/spelling");
        assert_eq!(y, r[i].1, "TileMap {i}: swapped sides differ");
    }
}

// ---- Animation keys ----

fn keys3(times: &str, transitions: &str, values: &str) -> String {
    format!("{{\n\"times\": PoolRealArray( {times} ),\n\"transitions\": PoolRealArray( {transitions} ),\n\"update\": 0,\n\"values\": [ {values} ]\n}}")
}

fn keys4(times: &str, transitions: &str, values: &str) -> String {
    format!("{{\n\"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({transitions}),\n\"update\": 0,\n\"values\": [{values}]\n}}")
}

#[test]
fn value_track_keys_at_different_times_merge_sorted_in_both_dialects() {
    for (format, keys) in [(2u8, keys3 as fn(&str, &str, &str) -> String), (3, keys4)] {
        let c = ctx("Animation", "tracks/0/keys", format);
        let v = |x: i32| {
            if format == 2 {
                format!("Vector2( 0, {x} )")
            } else {
                format!("Vector2(0, {x})")
            }
        };
        let base = keys("0, 1", "1, 1", &format!("{}, {}", v(0), v(-10)));
        let ours = keys(
            "0, 0.5, 1",
            "1, 1, 1",
            &format!("{}, {}, {}", v(0), v(-5), v(-10)),
        );
        let theirs = keys(
            "0, 1, 1.5",
            "1, 1, 1",
            &format!("{}, {}, {}", v(0), v(-12), v(3)),
        );
        let out = both_ways(&c, &base, &ours, &theirs, |a, b| a == b);
        let want = keys(
            "0, 0.5, 1, 1.5",
            "1, 1, 1, 1",
            &format!("{}, {}, {}, {}", v(0), v(-5), v(-12), v(3)),
        );
        assert_eq!(out, want);
    }
}

#[test]
fn same_key_time_changed_differently_conflicts_with_its_time() {
    let c = ctx("Animation", "tracks/2/keys", 3);
    let base = keys4("0, 0.2", "1, 1", "Vector2(0, 0), Vector2(0, -10)");
    let ours = keys4("0, 0.2", "1, 1", "Vector2(0, 0), Vector2(0, -12)");
    let theirs = keys4("0, 0.2", "1, 1", "Vector2(0, 0), Vector2(0, -14)");
    for (a, b) in [(&ours, &theirs), (&theirs, &ours)] {
        let cs = conflicts(merge_property(&c, Some(&base), a, b));
        assert_eq!(cs.len(), 1);
        assert_eq!(
            cs[0].at,
            ConflictAt::Key {
                track: None,
                time: "0.2".to_string()
            }
        );
        assert_eq!(cs[0].base.as_deref(), Some("Vector2(0, -10)"));
    }
    // A transition change counts as a change of the key.
    let t = keys4("0, 0.2", "1, 0.5", "Vector2(0, 0), Vector2(0, -10)");
    let cs = conflicts(merge_property(&c, Some(&base), &ours, &t));
    assert_eq!(
        cs[0].theirs.as_deref(),
        Some("Vector2(0, -10) (transition 0.5)")
    );
}

#[test]
fn method_bezier_audio_and_animation_tracks_merge_by_time() {
    let c = ctx("Animation", "tracks/0/keys", 3);
    // Method track: dictionaries per key.
    let m = |t: &str, v: &str| {
        format!("{{\n\"times\": PackedFloat32Array({t}),\n\"transitions\": PackedFloat32Array({}),\n\"values\": [{v}]\n}}", vec!["1"; t.split(',').count()].join(", "))
    };
    let call = |name: &str| format!("{{\n\"args\": [],\n\"method\": &\"{name}\"\n}}");
    let out = both_ways(
        &c,
        &m("0", &call("a")),
        &m("0, 1", &format!("{}, {}", call("a"), call("b"))),
        &m("0, 2", &format!("{}, {}", call("a"), call("c"))),
        |a, b| a == b,
    );
    assert_eq!(
        out,
        m(
            "0, 1, 2",
            &format!("{}, {}, {}", call("a"), call("b"), call("c"))
        )
    );
    // Bezier: five points and one handle mode per key.
    let bz = |t: &str, p: &str, h: &str| {
        format!("{{\n\"handle_modes\": PackedInt32Array({h}),\n\"points\": PackedFloat32Array({p}),\n\"times\": PackedFloat32Array({t})\n}}")
    };
    let out = both_ways(
        &c,
        &bz("0", "1, -0.25, 0, 0.25, 0", "0"),
        &bz("0, 1", "1, -0.25, 0, 0.25, 0, 2, -0.25, 0, 0.25, 0", "0, 0"),
        &bz("0, 3", "1, -0.25, 0, 0.25, 0, 7, -0.25, 0, 0.25, 0", "0, 1"),
        |a, b| a == b,
    );
    assert_eq!(
        out,
        bz(
            "0, 1, 3",
            "1, -0.25, 0, 0.25, 0, 2, -0.25, 0, 0.25, 0, 7, -0.25, 0, 0.25, 0",
            "0, 0, 1"
        )
    );
    // Animation track (Godot 3): clip names per key.
    let an = |t: &str, c: &str| {
        format!("{{\n\"clips\": PoolStringArray( {c} ),\n\"times\": PoolRealArray( {t} )\n}}")
    };
    let c3 = ctx("Animation", "tracks/0/keys", 2);
    let out = both_ways(
        &c3,
        &an("0", "\"idle\""),
        &an("0, 1", "\"idle\", \"run\""),
        &an("0.5", "\"jump\""),
        |a, b| a == b,
    );
    assert_eq!(out, an("0.5, 1", "\"jump\", \"run\""));
    // Audio track: one clip dictionary per key.
    let au =
        |t: &str, s: &str| format!("{{\n\"clips\": [{s}],\n\"times\": PackedFloat32Array({t})\n}}");
    let clip = |id: &str| {
        format!("{{\n\"end_offset\": 0.0,\n\"start_offset\": 0.0,\n\"stream\": ExtResource(\"{id}\")\n}}")
    };
    let out = both_ways(
        &c,
        &au("", ""),
        &au("0", &clip("1")),
        &au("2", &clip("2")),
        |a, b| a == b,
    );
    assert_eq!(out, au("0, 2", &format!("{}, {}", clip("1"), clip("2"))));
}

#[test]
fn flat_transform_and_3d_tracks_merge_by_time() {
    let mut c = ctx("Animation", "tracks/0/keys", 3);
    c.track_type = Some("position_3d");
    let base = "PackedFloat32Array(0, 1, 0, 0, 0)";
    let out = both_ways(
        &c,
        base,
        "PackedFloat32Array(0, 1, 0, 0, 0, 1, 1, 2, 0, 0)",
        "PackedFloat32Array(0, 1, 0, 5, 0)",
        |a, b| a == b,
    );
    assert_eq!(out, "PackedFloat32Array(0, 1, 0, 5, 0, 1, 1, 2, 0, 0)");
    c.track_type = Some("transform");
    c.file_format = 2;
    let key = |t: &str, x: &str| format!("{t}, 1, {x}, 0, 0, 0, 0, 0, 1, 1, 1, 1");
    let p = |ks: &[String]| format!("PoolRealArray( {} )", ks.join(", "));
    let out = both_ways(
        &c,
        &p(&[key("0", "0")]),
        &p(&[key("0", "0"), key("2", "4")]),
        &p(&[key("0", "0"), key("1", "3")]),
        |a, b| a == b,
    );
    assert_eq!(out, p(&[key("0", "0"), key("1", "3"), key("2", "4")]));
    // Without the track type a flat array is not ours to merge.
    c.track_type = None;
    assert_eq!(merge_property(&c, Some(base), base, base), Grain::NotMine);
}

// ---- tracks as a set ----

fn track(n: usize, ty: &str, path: &str, keys: &str) -> Vec<(String, String)> {
    vec![
        (format!("tracks/{n}/type"), format!("\"{ty}\"")),
        (format!("tracks/{n}/imported"), "false".to_string()),
        (format!("tracks/{n}/enabled"), "true".to_string()),
        (format!("tracks/{n}/path"), format!("NodePath(\"{path}\")")),
        (format!("tracks/{n}/interp"), "1".to_string()),
        (format!("tracks/{n}/keys"), keys.to_string()),
    ]
}

fn tracks_merged(out: Grain<Vec<(String, String)>>) -> Vec<(String, String)> {
    match out {
        Grain::Merged(v) => v,
        other => panic!("expected merged tracks, got {other:?}"),
    }
}

#[test]
fn tracks_match_by_path_and_type_and_renumber_added_ones() {
    let c = ctx("Animation", "tracks", 3);
    let k1 = keys4("0", "1", "1");
    let k2 = keys4("0, 1", "1, 1", "1, 2");
    let base = [track(0, "value", "Sprite:frame", &k1)].concat();
    // Ours adds keys to the frame track; theirs adds a position track in front of it.
    let ours = [track(0, "value", "Sprite:frame", &k2)].concat();
    let theirs = [
        track(0, "value", "Sprite:position", &k1),
        track(1, "value", "Sprite:frame", &k1),
    ]
    .concat();
    let out = tracks_merged(merge_tracks(&c, &base, &ours, &theirs));
    let want = [
        track(0, "value", "Sprite:frame", &k2),
        track(1, "value", "Sprite:position", &k1),
    ]
    .concat();
    assert_eq!(out, want);
    let swapped = tracks_merged(merge_tracks(&c, &base, &theirs, &ours));
    let want = [
        track(0, "value", "Sprite:position", &k1),
        track(1, "value", "Sprite:frame", &k2),
    ]
    .concat();
    assert_eq!(swapped, want);
    // Both sides add a track: both kept, ours first.
    let a = [
        track(0, "value", "Sprite:frame", &k1),
        track(1, "value", "A:x", &k1),
    ]
    .concat();
    let b = [
        track(0, "value", "Sprite:frame", &k1),
        track(1, "method", ".", &k1),
    ]
    .concat();
    let out = tracks_merged(merge_tracks(&c, &base, &a, &b));
    assert_eq!(out.len(), 18);
    assert_eq!(
        out[6],
        ("tracks/1/type".to_string(), "\"value\"".to_string())
    );
    assert_eq!(
        out[12],
        ("tracks/2/type".to_string(), "\"method\"".to_string())
    );
}

#[test]
fn tracks_conflicts_name_the_track_and_key() {
    let c = ctx("Animation", "tracks", 3);
    let base = track(0, "value", "Sprite:frame", &keys4("0", "1", "1"));
    let ours = track(0, "value", "Sprite:frame", &keys4("0", "1", "2"));
    let theirs = track(0, "value", "Sprite:frame", &keys4("0", "1", "3"));
    match merge_tracks(&c, &base, &ours, &theirs) {
        Grain::Conflict(cs) => assert_eq!(
            cs[0].at,
            ConflictAt::Key {
                track: Some("\"value\" Sprite:frame".to_string()),
                time: "0".to_string()
            }
        ),
        other => panic!("{other:?}"),
    }
    // Deleted on one side, changed on the other.
    match merge_tracks(&c, &base, &ours, &[]) {
        Grain::Conflict(cs) => assert_eq!(
            cs[0].at,
            ConflictAt::Track("\"value\" Sprite:frame".to_string())
        ),
        other => panic!("{other:?}"),
    }
    // Deleted on one side, untouched on the other: gone.
    assert_eq!(
        tracks_merged(merge_tracks(&c, &base, &base, &[])),
        Vec::new()
    );
    // Other properties are not ours.
    let stray = vec![("length".to_string(), "1.0".to_string())];
    assert_eq!(merge_tracks(&c, &base, &stray, &theirs), Grain::NotMine);
}

// ---- SpriteFrames ----

fn anim3(name: &str, frames: &str, speed: &str) -> String {
    format!("{{\n\"frames\": [ {frames} ],\n\"loop\": true,\n\"name\": \"{name}\",\n\"speed\": {speed}\n}}")
}

fn anim4(name: &str, frames: &str, speed: &str) -> String {
    format!("{{\n\"frames\": [{frames}],\n\"loop\": true,\n\"name\": &\"{name}\",\n\"speed\": {speed}\n}}")
}

#[test]
fn spriteframes_merge_per_animation_in_both_dialects() {
    let c3 = ctx("SpriteFrames", "animations", 2);
    let arr3 = |items: &[String]| format!("[ {} ]", items.join(", "));
    let base = arr3(&[anim3("idle", "ExtResource( 1 )", "5.0")]);
    let ours = arr3(&[
        anim3("idle", "ExtResource( 1 )", "8.0"),
        anim3("run", "ExtResource( 2 )", "5.0"),
    ]);
    let theirs = arr3(&[
        anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "5.0"),
        anim3("jump", "ExtResource( 4 )", "5.0"),
    ]);
    let out = merged(merge_property(&c3, Some(&base), &ours, &theirs));
    assert_eq!(
        out,
        arr3(&[
            anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "8.0"),
            anim3("run", "ExtResource( 2 )", "5.0"),
            anim3("jump", "ExtResource( 4 )", "5.0")
        ])
    );
    let swapped = merged(merge_property(&c3, Some(&base), &theirs, &ours));
    assert_eq!(
        swapped,
        arr3(&[
            anim3("idle", "ExtResource( 1 ), ExtResource( 3 )", "8.0"),
            anim3("jump", "ExtResource( 4 )", "5.0"),
            anim3("run", "ExtResource( 2 )", "5.0")
        ])
    );

    let c4 = ctx("SpriteFrames", "animations", 3);
    let f = |id: &str| format!("{{\n\"duration\": 1.0,\n\"texture\": ExtResource(\"{id}\")\n}}");
    let arr4 = |items: &[String]| format!("[{}]", items.join(", "));
    let base = arr4(&[anim4("default", &f("1"), "5.0")]);
    let a = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("2")), "5.0")]);
    let b = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("3")), "5.0")]);
    let cs = conflicts(merge_property(&c4, Some(&base), &a, &b));
    assert_eq!(
        cs[0].at,
        ConflictAt::Entry("animation \"default\" frame 1".to_string())
    );
    // Frames added at different places merge as a sequence; a removal meets an addition.
    let three = |x: &str, y: &str, z: &str| format!("{}, {}, {}", f(x), f(y), f(z));
    let base = arr4(&[anim4("default", &three("1", "2", "3"), "5.0")]);
    let a = arr4(&[anim4("default", &format!("{}, {}", f("1"), f("3")), "5.0")]);
    let b = arr4(&[anim4(
        "default",
        &format!("{}, {}", f("4"), three("1", "2", "3")),
        "5.0",
    )]);
    let want = arr4(&[anim4("default", &three("4", "1", "3"), "5.0")]);
    assert_eq!(merged(merge_property(&c4, Some(&base), &a, &b)), want);
    assert_eq!(merged(merge_property(&c4, Some(&base), &b, &a)), want);
    let cs = conflicts(merge_property(&c4, Some(&base), &a, "[]"));
    assert_eq!(cs[0].at, ConflictAt::Animation("default".to_string()));
    assert_eq!(merged(merge_property(&c4, Some(&base), &base, "[]")), "[]");
}

// ---- dictionaries ----

#[test]
fn dictionaries_merge_key_by_key_and_stay_sorted() {
    let c3 = ctx("Node2D", "__meta__", 2);
    let base = "{\n\"_edit_lock_\": true\n}";
    let out = both_ways(
        &c3,
        base,
        "{\n\"_edit_group_\": true,\n\"_edit_lock_\": true\n}",
        "{\n\"_edit_lock_\": true,\n\"_edit_pinned_properties_\": [  ]\n}",
        |a, b| a == b,
    );
    assert_eq!(
        out,
        "{\n\"_edit_group_\": true,\n\"_edit_lock_\": true,\n\"_edit_pinned_properties_\": [  ]\n}"
    );
    assert_eq!(
        merged(merge_property(&c3, Some(base), "{\n\n}", base)),
        "{\n\n}"
    );
    let c4 = ctx("AnimationLibrary", "_data", 3);
    let base = "{\n&\"RESET\": SubResource(\"Animation_a\")\n}";
    let ours =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"walk\": SubResource(\"Animation_w\")\n}";
    let theirs =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"idle\": SubResource(\"Animation_i\")\n}";
    let out = both_ways(&c4, base, ours, theirs, |a, b| a == b);
    assert_eq!(out, "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"idle\": SubResource(\"Animation_i\"),\n&\"walk\": SubResource(\"Animation_w\")\n}");
    let clash =
        "{\n&\"RESET\": SubResource(\"Animation_a\"),\n&\"walk\": SubResource(\"Animation_x\")\n}";
    let cs = conflicts(merge_property(&c4, Some(base), ours, clash));
    assert_eq!(cs[0].at, ConflictAt::Entry("&\"walk\"".to_string()));
    assert_eq!(cs[0].base, None);
    assert!(
        cs[0]
            .to_string()
            .contains("ours SubResource(\"Animation_w\")"),
        "{}",
        cs[0]
    );
    // Both sides added the property: an empty base.
    assert_eq!(merged(merge_property(&c4, None, ours, theirs)), out);
}

// ---- malformed input, descriptions ----

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

// ---- corpus round trips ----

fn decoded(text: &str) -> Option<String> {
    match parse(text).ok()? {
        Value::String(s) | Value::StringName(s) => Some(s),
        Value::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

/// Every grain value of every sampled corpus file merged with itself (and itself as base)
/// comes back byte for byte; every Animation's `tracks/*` set likewise.
#[test]
fn corpus_values_merged_with_themselves_are_unchanged() {
    let mut seen = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut failures = Vec::new();
    for (name, text) in corpus_texts(2) {
        let Ok(sections) = outline(&text) else {
            continue;
        };
        let field = |s: &crate::value::OutlineSection, k: &str| {
            s.fields
                .iter()
                .find(|(n, _)| n == k)
                .and_then(|(_, r)| decoded(&text[r.clone()]))
        };
        let Some(head) = sections.first() else {
            continue;
        };
        let format: u8 = field(head, "format")
            .and_then(|f| f.parse().ok())
            .unwrap_or(3);
        let file_type = field(head, "type").unwrap_or_default();
        for s in &sections {
            let owner = match s.name.as_str() {
                "resource" => file_type.clone(),
                _ => field(s, "type").unwrap_or_default(),
            };
            let prop = |k: &str| {
                s.props
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, r)| &text[r.clone()])
            };
            let mut tracks = Vec::new();
            for (key, range) in &s.props {
                let v = &text[range.clone()];
                if key.starts_with("tracks/") {
                    tracks.push((key.clone(), v.to_string()));
                }
                let type_key = key.strip_suffix("/keys").map(|t| format!("{t}/type"));
                let track_type = type_key.as_deref().and_then(prop).and_then(decoded);
                let c = PropertyContext {
                    owner_type: &owner,
                    key,
                    file_format: format,
                    tile_format: prop("format").and_then(|f| f.trim().parse().ok()),
                    track_type: track_type.as_deref(),
                };
                let Some(kind) = kind_of(&c) else { continue };
                if kind == Kind::Dict && !v.trim_start().starts_with('{') {
                    continue;
                }
                let slot = seen.entry(format!("{kind:?}")).or_default();
                slot.0 += 1;
                match merge_property(&c, Some(v), v, v) {
                    Grain::Merged(m) if m == v => {}
                    Grain::NotMine => slot.1 += 1,
                    other => failures.push(format!("{name} {key}: {v:?} => {other:?}")),
                }
            }
            if owner == "Animation" && !tracks.is_empty() {
                let c = ctx("Animation", "tracks", format);
                match merge_tracks(&c, &tracks, &tracks, &tracks) {
                    Grain::Merged(m) if m == tracks => {}
                    other => failures.push(
                        format!("{name} tracks: {other:?}")
                            .chars()
                            .take(300)
                            .collect(),
                    ),
                }
            }
        }
    }
    eprintln!("grain corpus round trip (kind: values, not mine): {seen:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for (kind, (n, not_mine)) in &seen {
        if kind != "Dict" {
            assert_eq!(
                *not_mine, 0,
                "{kind}: {not_mine} of {n} values not recognised"
            );
        }
    }
}

/// A section's identity, its type and its properties (key, value text).
type SectionProps = (String, String, Vec<(String, String)>);

/// Section identity across the three sides of a real merge: tag plus name/parent/id/type.
fn section_props(text: &str) -> Vec<SectionProps> {
    let Ok(sections) = outline(text) else {
        return Vec::new();
    };
    let file_type = sections
        .first()
        .and_then(|h| h.fields.iter().find(|(n, _)| n == "type"))
        .and_then(|(_, r)| decoded(&text[r.clone()]))
        .unwrap_or_default();
    sections
        .iter()
        .map(|s| {
            let f = |k: &str| {
                s.fields
                    .iter()
                    .find(|(n, _)| n == k)
                    .map_or("", |(_, r)| &text[r.clone()])
            };
            let id = format!("{} {} {} {}", s.name, f("name"), f("parent"), f("id"));
            let ty = if s.name == "resource" {
                file_type.clone()
            } else {
                decoded(f("type")).unwrap_or_default()
            };
            let props = s
                .props
                .iter()
                .map(|(k, r)| (k.clone(), text[r.clone()].to_string()))
                .collect();
            (id, ty, props)
        })
        .collect()
}

/// Every grain value both sides of a real merge changed merges or conflicts without
/// panicking, and a merged value that the human result also holds is compared with it.
#[test]
fn real_merges_grain_values_merge_or_conflict() {
    let Some(root) = shared_dir() else { return };
    let Ok(dirs) = std::fs::read_dir(root.join("merges")) else {
        return;
    };
    let (mut tried, mut merged_n, mut same_as_result, mut conflicted) = (0, 0, 0, 0);
    for dir in dirs.flatten() {
        let find = |stem: &str| {
            std::fs::read_dir(dir.path())
                .ok()?
                .flatten()
                .find(|e| e.file_name().to_string_lossy().starts_with(stem))
                .and_then(|e| std::fs::read_to_string(e.path()).ok())
        };
        let (Some(b), Some(o), Some(t), Some(r)) =
            (find("base"), find("ours"), find("theirs"), find("result"))
        else {
            continue;
        };
        let format = if o.lines().next().is_some_and(|l| l.contains("format=2")) {
            2
        } else {
            3
        };
        let [bs, os, ts, rs] = [&b, &o, &t, &r].map(|x| section_props(x));
        for (id, ty, oprops) in &os {
            let side = |s: &Vec<SectionProps>| s.iter().find(|x| &x.0 == id).map(|x| x.2.clone());
            let (Some(bp), Some(tp)) = (side(&bs), side(&ts)) else {
                continue;
            };
            let rp = side(&rs).unwrap_or_default();
            for (key, ov) in oprops {
                let get = |p: &[(String, String)], k: &str| {
                    p.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
                };
                let (Some(bv), Some(tv)) = (get(&bp, key), get(&tp, key)) else {
                    continue;
                };
                if *ov == tv || *ov == bv || tv == bv {
                    continue;
                }
                let type_key = key.strip_suffix("/keys").map(|t| format!("{t}/type"));
                let track_type = type_key
                    .and_then(|k| get(oprops, &k))
                    .and_then(|v| decoded(&v));
                let c = PropertyContext {
                    owner_type: ty,
                    key,
                    file_format: format,
                    tile_format: get(oprops, "format").and_then(|f| f.trim().parse().ok()),
                    track_type: track_type.as_deref(),
                };
                tried += 1;
                match merge_property(&c, Some(&bv), ov, &tv) {
                    Grain::Merged(m) => {
                        merged_n += 1;
                        assert!(parse(&m).is_ok());
                        if get(&rp, key).is_some_and(|rv| rv == m) {
                            same_as_result += 1;
                        }
                    }
                    Grain::Conflict(cs) => {
                        conflicted += 1;
                        assert!(!cs.is_empty() && cs.iter().all(|c| !c.to_string().is_empty()));
                    }
                    Grain::NotMine => {}
                }
            }
        }
    }
    eprintln!("real merges: {tried} values changed on both sides, {merged_n} merged ({same_as_result} equal to the human result), {conflicted} conflicts");
    assert!(
        merged_n >= 1 && same_as_result >= 1,
        "the Level1 TileMap at least merges to the result"
    );
}
