//! Unit tests of the grain merges, one file a subject: each value kind in both
//! directions, Godot 3 and 4 spellings, conflicts named, round trips over the corpus, the
//! real Level1 TileMap merge. This file holds the helpers they share.

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

mod corpus;
mod describe;
mod dicts;
mod frames;
mod keys;
mod tiles;
mod tracks;

const G3_BASE: &str = "PoolIntArray( 0, 1, 0, 1, 1, 0, 65536, 2, 0 )";

fn keys3(times: &str, transitions: &str, values: &str) -> String {
    format!("{{\n\"times\": PoolRealArray( {times} ),\n\"transitions\": PoolRealArray( {transitions} ),\n\"update\": 0,\n\"values\": [ {values} ]\n}}")
}

fn keys4(times: &str, transitions: &str, values: &str) -> String {
    format!("{{\n\"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({transitions}),\n\"update\": 0,\n\"values\": [{values}]\n}}")
}

fn anim3(name: &str, frames: &str, speed: &str) -> String {
    format!("{{\n\"frames\": [ {frames} ],\n\"loop\": true,\n\"name\": \"{name}\",\n\"speed\": {speed}\n}}")
}

fn anim4(name: &str, frames: &str, speed: &str) -> String {
    format!("{{\n\"frames\": [{frames}],\n\"loop\": true,\n\"name\": &\"{name}\",\n\"speed\": {speed}\n}}")
}
