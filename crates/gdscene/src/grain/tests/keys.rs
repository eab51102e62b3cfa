//! Animation keys: value, method, bezier, audio, animation and transform tracks merged
//! by time in both dialects, a key changed differently named by its time.

use super::*;

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

/// Godot keeps two keys at one time (a jump: the value before and after the instant).
/// Each side changing one of them keeps both keys, each with its side's change, in the
/// order the track had them (issue 39.4); before, the two became one key.
#[test]
fn two_keys_at_one_time_stay_two_keys() {
    let c = ctx("Animation", "tracks/0/keys", 3);
    let base = keys4("0, 0.5, 0.5, 1", "1, 1, 1, 1", "0.0, 1.0, 2.0, 3.0");
    let ours = keys4("0, 0.5, 0.5, 1", "1, 1, 1, 1", "0.0, 1.5, 2.0, 3.0");
    let theirs = keys4("0, 0.5, 0.5, 1", "1, 1, 1, 1", "0.0, 1.0, 2.5, 3.0");
    let out = both_ways(&c, &base, &ours, &theirs, |a, b| a == b);
    assert_eq!(
        out,
        keys4("0, 0.5, 0.5, 1", "1, 1, 1, 1", "0.0, 1.5, 2.5, 3.0")
    );
    // Flat tracks too (a position_3d key at one time twice).
    let p = PropertyContext {
        track_type: Some("position_3d"),
        ..ctx("Animation", "tracks/0/keys", 3)
    };
    let base = "PackedFloat32Array(0, 1, 0, 0, 0, 0.5, 1, 1, 1, 1, 0.5, 1, 2, 2, 2)";
    let ours = "PackedFloat32Array(0, 1, 0, 0, 0, 0.5, 1, 7, 1, 1, 0.5, 1, 2, 2, 2)";
    let theirs = "PackedFloat32Array(0, 1, 0, 0, 0, 0.5, 1, 1, 1, 1, 0.5, 1, 2, 9, 2)";
    let out = both_ways(&p, base, ours, theirs, |a, b| a == b);
    assert_eq!(
        out,
        "PackedFloat32Array(0, 1, 0, 0, 0, 0.5, 1, 7, 1, 1, 0.5, 1, 2, 9, 2)"
    );
}
