//! Tile maps: Godot 3 TileMap cells, Godot 4 layers and TileMapLayer bytes, GridMap
//! cells, and the real Level1 TileMap merge.

use super::*;

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
