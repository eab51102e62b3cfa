//! Tests of reading markers and of solving from them, both styles.

use super::*;
use crate::merge::merge;

fn parse(s: &str) -> Result<Marked, ParseError> {
    parse_markers(s.as_bytes(), 7)
}

#[test]
fn no_markers_is_one_text_piece() {
    let m = parse("a\nb\n").unwrap();
    assert_eq!(m.pieces, vec![Piece::Text(b"a\nb\n".to_vec())]);
    assert_eq!(m.block_count(), 0);
    assert!(parse_markers(b"", 7).unwrap().pieces.is_empty());
    assert!(find_markers(b"a\n", 7).unwrap().is_none());
    assert!(solve_markers(b"x = 1\n", 7).unwrap().is_none());
}

#[test]
fn diff3_block_and_sides() {
    let text = "top\n<<<<<<< HEAD\no1\no2\n||||||| base\nb\n=======\nt\n>>>>>>> feature\nend\n";
    let m = parse(text).unwrap();
    assert_eq!(m.block_count(), 1);
    assert!(m.has_base());
    let b = m.blocks().next().unwrap();
    assert_eq!(
        (b.line, b.ours_label.as_str(), b.theirs_label.as_str()),
        (2, "HEAD", "feature")
    );
    assert_eq!(b.base_label.as_deref(), Some("base"));
    assert_eq!(m.to_bytes(), text.as_bytes());
    let s = m.sides();
    assert_eq!(s.ours, b"top\no1\no2\nend\n");
    assert_eq!(s.base, b"top\nb\nend\n");
    assert_eq!(s.theirs, b"top\nt\nend\n");
}

#[test]
fn two_sided_block_has_no_base() {
    let m = parse("<<<<<<< a\no\n=======\nt\n>>>>>>> b\n").unwrap();
    assert!(!m.has_base());
    assert_eq!(m.sides().base, b"");
}

#[test]
fn marker_like_text_is_just_lines() {
    // Inside strings, not at the start, or of another size: plain lines.
    let text = "text = \"<<<<<<< not a marker\"\n  <<<<<<< indented\n<<<<<<<< eight\n=======\n>>>>>>> stray\n|||||||\n<<<<<<<x\n";
    let m = parse(text).unwrap();
    assert_eq!(m.block_count(), 0);
    assert_eq!(m.to_bytes(), text.as_bytes());
    // Inside a block, such lines belong to the side.
    let text = "<<<<<<< o\ns = \"\n<<<<<<<<\n=======x\n\"\n=======\nt\n>>>>>>> t\n";
    let m = parse(text).unwrap();
    assert_eq!(
        m.blocks().next().unwrap().ours,
        b"s = \"\n<<<<<<<<\n=======x\n\"\n"
    );
}

#[test]
fn crlf() {
    let text =
        "a\r\n<<<<<<< ours\r\no\r\n||||||| base\r\nb\r\n=======\r\nt\r\n>>>>>>> theirs\r\nz\r\n";
    let m = parse(text).unwrap();
    let b = m.blocks().next().unwrap();
    assert_eq!(b.ours_label, "ours");
    assert_eq!(b.theirs_label, "theirs");
    assert_eq!(b.ours, b"o\r\n");
    assert_eq!(b.base.as_deref(), Some(&b"b\r\n"[..]));
    assert_eq!(m.sides().theirs, b"a\r\nt\r\nz\r\n");
    assert_eq!(m.to_bytes(), text.as_bytes());
}

#[test]
fn missing_final_newline() {
    let text = "<<<<<<< o\nx\n=======\ny\n>>>>>>> t";
    let m = parse(text).unwrap();
    assert_eq!(m.blocks().next().unwrap().theirs_label, "t");
    assert_eq!(m.to_bytes(), text.as_bytes());
    let m = parse("a\n<<<<<<< o\nx\n=======\ny\n>>>>>>> t\nlast").unwrap();
    assert_eq!(m.sides().ours, b"a\nx\nlast");
    // Bare markers without labels.
    let m = parse("<<<<<<<\nx\n=======\ny\n>>>>>>>").unwrap();
    assert_eq!(m.block_count(), 1);
}

#[test]
fn errors() {
    let e = parse("a\n<<<<<<< o\nx\n=======\ny\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("never ends"), "{e}");
    assert!(parse("<<<<<<< o\nx\n").is_err());
    assert_eq!(parse("<<<<<<< o\n<<<<<<< p\n").unwrap_err().line, 2);
    assert_eq!(parse("<<<<<<< o\nx\n>>>>>>> t\n").unwrap_err().line, 3);
    assert!(parse("<<<<<<< o\n||||||| b\n||||||| b\n=======\n>>>>>>> t\n").is_err());
    assert!(parse("<<<<<<< o\n=======\n=======\n>>>>>>> t\n").is_err());
    assert!(solve_markers(b"<<<<<<< o\nx\n", 7).is_err());
}

#[test]
fn marker_sizes() {
    let ten = "<<<<<<<<<< o\nx\n||||||||||\nb\n==========\ny\n>>>>>>>>>> t\n";
    assert_eq!(parse_markers(ten.as_bytes(), 10).unwrap().block_count(), 1);
    // With size 7 these lines are not markers...
    assert_eq!(parse(ten).unwrap().block_count(), 0);
    // ...but the size is detected.
    let m = find_markers(ten.as_bytes(), 7).unwrap().unwrap();
    assert_eq!((m.marker_size, m.block_count()), (10, 1));
    // Size 0 means 7; short sizes are never guessed.
    assert_eq!(
        parse_markers(b"<<<<<<< o\n=======\n>>>>>>> t\n", 0)
            .unwrap()
            .block_count(),
        1
    );
    assert!(find_markers(b"<<< o\n===\n>>> t\n", 7).unwrap().is_none());
    // An inconsistent size is not taken.
    assert!(find_markers(b"<<<<<<<<< o\nx\n", 7).unwrap().is_none());
}

#[test]
fn never_panics_on_odd_input() {
    for s in [
        "",
        "\n",
        "<",
        "<<<<<<<",
        "<<<<<<<\r",
        "=======\n>>>>>>>",
        "<<<<<<< \n=======\n>>>>>>>",
        "\u{0}\u{ff}",
    ] {
        let _ = solve_markers(s.as_bytes(), 7);
        let _ = solve_markers(s.as_bytes(), 0);
        let _ = solve_markers(s.as_bytes(), usize::MAX);
    }
}

const BASE: &str = r#"[gd_scene format=3 uid="uid://c1"]

[node name="Root" type="Node2D"]

[node name="Player" type="CharacterBody2D" parent="."]
speed = 100
"#;

#[test]
fn diff3_markers_merge_like_the_driver() {
    let ours = format!("{BASE}jump = 5\n");
    let theirs = format!("{BASE}gravity = 9\n");
    let lm = crate::linemerge::merge_lines(
        BASE.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &MarkerOptions::default(),
    );
    assert_eq!(lm.conflicts, 1);
    let s = solve_markers(&lm.text, 7).unwrap().unwrap();
    assert_eq!(s.source, Source::Diff3Markers);
    let direct = merge(
        BASE.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &MergeOptions::default(),
    );
    assert!(direct.is_clean());
    assert_eq!(s.outcome.text, direct.text);
    assert_eq!((s.blocks, s.resolved_blocks), (1, 1));
}

#[test]
fn two_sided_both_added_and_kept() {
    // Block 1: both added a different node at the end: merged.
    let text = format!(
        "{BASE}<<<<<<< HEAD\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n=======\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n>>>>>>> other\n"
    );
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(s.source, Source::TwoSidedMarkers);
    assert!(
        s.outcome.is_clean(),
        "{}",
        String::from_utf8_lossy(&s.outcome.text)
    );
    let out = String::from_utf8(s.outcome.text).unwrap();
    assert!(
        out.contains("name=\"A\"") && out.contains("name=\"B\""),
        "{out}"
    );
    // Same property changed differently: kept as it was.
    let text = BASE.replace(
        "speed = 100\n",
        "<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n",
    );
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(s.outcome.conflict_count, 1);
    assert_eq!(s.outcome.text, text.as_bytes());
    // One side empty: could be a deletion, never merged.
    let text = BASE.replace(
        "speed = 100\n",
        "<<<<<<< HEAD\n=======\nspeed = 80\n>>>>>>> other\n",
    );
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(s.outcome.text, text.as_bytes());
    // A property only one side has, in a section that started before the block.
    let text = BASE.replace(
        "speed = 100\n",
        "<<<<<<< HEAD\nspeed = 100\njump = 2\n=======\nhp = 3\n>>>>>>> other\n",
    );
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(s.outcome.text, text.as_bytes());
}

#[test]
fn two_sided_partial() {
    let text = format!(
        "{}<<<<<<< HEAD\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n=======\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n>>>>>>> other\n",
        BASE.replace("speed = 100\n", "<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n")
    );
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(
        (s.blocks, s.resolved_blocks, s.outcome.conflict_count),
        (2, 1, 1)
    );
    let out = String::from_utf8(s.outcome.text).unwrap();
    assert!(
        out.contains("<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n"),
        "{out}"
    );
    assert!(
        out.contains("name=\"A\"") && out.contains("name=\"B\""),
        "{out}"
    );
    assert_eq!(out.matches("<<<<<<<").count(), 1, "{out}");
}

const MOVE_BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"X\" type=\"Sprite2D\" parent=\"A\"]\nframe = 1\n\n[node name=\"B\" type=\"Node2D\" parent=\".\"]\n";

/// Ours moves X from A to B and puts Z where it was; theirs changes X under A.
fn move_sides() -> (String, String) {
    let ours = MOVE_BASE.replace(
        "[node name=\"X\" type=\"Sprite2D\" parent=\"A\"]\nframe = 1\n",
        "[node name=\"Z\" type=\"Node\" parent=\"A\"]\n",
    ) + "\n[node name=\"X\" type=\"Sprite2D\" parent=\"B\"]\nframe = 1\n";
    let theirs = MOVE_BASE.replace("frame = 1", "frame = 2");
    (ours, theirs)
}

#[test]
fn two_sided_markers_never_leave_a_moved_node_at_two_paths() {
    let (ours, theirs) = move_sides();
    let opts = MarkerOptions {
        style: crate::linemerge::ConflictStyle::Merge,
        ..MarkerOptions::default()
    };
    let lm = crate::linemerge::merge_lines(
        MOVE_BASE.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &opts,
    );
    assert!(lm.conflicts > 0);
    let s = solve_markers(&lm.text, 7).unwrap().unwrap();
    assert_eq!(s.source, Source::TwoSidedMarkers);
    let out = String::from_utf8_lossy(&s.outcome.text).to_string();
    assert!(!s.outcome.is_clean(), "reported solved:\n{out}");
    assert!(out.contains("<<<<<<<"), "{out}");
    assert!(
        s.doubt.as_deref().is_some_and(|d| d.contains("\"A/X\"")),
        "{:?}",
        s.doubt
    );
    // The line merge (and so the input) has X under B already: nothing re-adds it
    // outside the markers.
    let scene_without_markers = out.lines().filter(|l| l.contains("name=\"X\"")).count();
    assert_eq!(
        scene_without_markers,
        lm.text
            .split(|&c| c == b'\n')
            .filter(|l| String::from_utf8_lossy(l).contains("name=\"X\""))
            .count()
    );
}

#[test]
fn diff3_markers_keep_a_node_both_sides_have_differently() {
    // The base section is empty and both sides have node "Button", compatibly: a
    // real "both added", or one side's move whose deletion git took outside the
    // block (or a side that had the node twice, as in a real merge where theirs
    // added a second "Button"). Merged, it would be called clean.
    let text = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"Lamp\" type=\"Node2D\" parent=\".\"]\n<<<<<<< ours\n\n[node name=\"Button\" type=\"Button\" parent=\".\"]\ntext = \"Shop\"\nz_index = 3\n||||||| base\n=======\n\n[node name=\"Button\" type=\"Button\" parent=\".\"]\nflat = true\n>>>>>>> theirs\n";
    let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
    assert_eq!(s.source, Source::Diff3Markers);
    assert_eq!(s.outcome.text, text.as_bytes());
    assert_eq!((s.resolved_blocks, s.outcome.conflict_count), (0, 1));
    assert!(
        s.doubt
            .as_deref()
            .is_some_and(|d| d.contains("both sides have node \"Button\"")),
        "{:?}",
        s.doubt
    );
    // Written the same on both sides: merged.
    let same = text.replace("flat = true", "text = \"Shop\"\nz_index = 3");
    let s = solve_markers(same.as_bytes(), 7).unwrap().unwrap();
    assert!(s.outcome.is_clean(), "{:?}", s.doubt);
}

#[test]
fn untouched_line_merge_is_recognised_and_edits_are_not() {
    let (ours, theirs) = move_sides();
    for style in [
        crate::linemerge::ConflictStyle::Merge,
        crate::linemerge::ConflictStyle::Diff3,
        crate::linemerge::ConflictStyle::ZDiff3,
    ] {
        let opts = MarkerOptions {
            ours: "HEAD".into(),
            base: "merged common ancestors".into(),
            theirs: "feature".into(),
            style,
            ..MarkerOptions::default()
        };
        let lm = crate::linemerge::merge_lines(
            MOVE_BASE.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &opts,
        );
        let (b, o, t) = (MOVE_BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        assert!(is_untouched_line_merge(&lm.text, b, o, t, 7), "{style:?}");
        let mut edited = lm.text.clone();
        edited.extend_from_slice(b"\n[node name=\"Mine\" type=\"Node\" parent=\".\"]\n");
        assert!(!is_untouched_line_merge(&edited, b, o, t, 7), "{style:?}");
        assert!(!is_untouched_line_merge(o, b, o, t, 7));
    }
}
