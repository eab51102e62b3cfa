//! Tests of the line merge: the rules one by one, then property tests. They check results
//! only; how the steps split the work is the modules' business. The black-box comparisons
//! with `git merge-file` (real merges in all three styles, random triples) run git, so
//! they live with the binary's whole-program tests (`tests/linemerge_git.rs`).

use super::*;

fn m(base: &str, ours: &str, theirs: &str) -> LineMerge {
    merge_lines(
        base.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &MarkerOptions::default(),
    )
}

fn ms(base: &str, ours: &str, theirs: &str, style: ConflictStyle) -> LineMerge {
    let opts = MarkerOptions {
        style,
        ..MarkerOptions::default()
    };
    merge_lines(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), &opts)
}

fn text(l: &LineMerge) -> String {
    String::from_utf8_lossy(&l.text).into_owned()
}

// ---------------------------------------------------------------- unit rules

#[test]
fn ids_are_equal_exactly_for_equal_lines_past_the_interners_first_size() {
    // Base is short, so the interner grows while ours' 5,000 distinct lines come in.
    let ours: String = (0..10_000).map(|i| format!("l{}\n", i % 5_000)).collect();
    let theirs = "l7\nx\nl7";
    let f = lines::Files::new(b"l1\nl2\n", ours.as_bytes(), theirs.as_bytes());
    let all: Vec<(&[u8], u32)> = [&f.b, &f.o, &f.t]
        .iter()
        .flat_map(|l| (0..l.len()).map(move |i| (l.line(i), l.ids[i])))
        .collect();
    assert_eq!(f.texts.len(), 5_002, "distinct lines");
    for &(text, id) in &all {
        assert_eq!(f.texts[id as usize], text);
    }
    assert_eq!(f.o.ids[1], f.b.ids[0]);
    assert_eq!(f.o.ids[7], f.o.ids[5_007]);
    assert_ne!(
        f.t.ids[0], f.t.ids[2],
        "a last line without newline differs"
    );
}

#[test]
fn linemerge_one_side_changes() {
    let r = m("a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\n");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nB\nc\n", 0));
    let r = m("a\nb\nc\n", "a\nb\nc\n", "a\nb\nC\n");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nb\nC\n", 0));
}

#[test]
fn linemerge_both_sides_distant_changes() {
    let r = m("1\n2\n3\n4\n5\n", "one\n2\n3\n4\n5\n", "1\n2\n3\n4\nfive\n");
    assert_eq!(
        (text(&r).as_str(), r.conflicts),
        ("one\n2\n3\n4\nfive\n", 0)
    );
}

#[test]
fn linemerge_both_same_change_taken_once() {
    let r = m("a\nb\nc\n", "a\nX\nc\n", "a\nX\nc\n");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nX\nc\n", 0));
    let r = m("a\nb\nc\nd\ne\n", "a\nX\nc\nd\nE\n", "a\nX\nc\nd\ne\n");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nX\nc\nd\nE\n", 0));
}

#[test]
fn linemerge_both_different_diff3() {
    let r = m("a\nb\nc\n", "a\nO\nc\n", "a\nT\nc\n");
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\nO\n||||||| base\nb\n=======\nT\n>>>>>>> theirs\nc\n"
    );
}

#[test]
fn linemerge_both_different_merge_style() {
    let r = ms("a\nb\nc\n", "a\nO\nc\n", "a\nT\nc\n", ConflictStyle::Merge);
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\nO\n=======\nT\n>>>>>>> theirs\nc\n"
    );
}

#[test]
fn linemerge_adjacent_changes_conflict_like_git() {
    // ours edits line 2, theirs edits line 3: git treats touching changes as a conflict.
    let r = m("1\n2\n3\n4\n", "1\nTWO\n3\n4\n", "1\n2\nTHREE\n4\n");
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "1\n<<<<<<< ours\nTWO\n3\n||||||| base\n2\n3\n=======\n2\nTHREE\n>>>>>>> theirs\n4\n"
    );
}

#[test]
fn linemerge_insert_at_same_spot() {
    let r = m("a\nb\n", "a\nX\nb\n", "a\nY\nb\n");
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\nX\n||||||| base\n=======\nY\n>>>>>>> theirs\nb\n"
    );
    // same insertion on both sides: clean
    let r = m("a\nb\n", "a\nX\nb\n", "a\nX\nb\n");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nX\nb\n", 0));
}

#[test]
fn linemerge_deletion_vs_edit() {
    let r = m("a\nb\nc\n", "a\nc\n", "a\nB\nc\n");
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\n||||||| base\nb\n=======\nB\n>>>>>>> theirs\nc\n"
    );
}

#[test]
fn linemerge_zealous_shrinks_only_in_merge_style() {
    let base = "a\nb\nz\n";
    let ours = "a\nX\nY1\nz\n";
    let theirs = "a\nX\nY2\nz\n";
    // diff3: one big conflict (git does not refine diff3)
    let r = ms(base, ours, theirs, ConflictStyle::Diff3);
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\nX\nY1\n||||||| base\nb\n=======\nX\nY2\n>>>>>>> theirs\nz\n"
    );
    // merge: the common X moves out
    let r = ms(base, ours, theirs, ConflictStyle::Merge);
    assert_eq!(
        text(&r),
        "a\nX\n<<<<<<< ours\nY1\n=======\nY2\n>>>>>>> theirs\nz\n"
    );
    // zdiff3: common start/end trimmed, base kept whole
    let r = ms(base, ours, theirs, ConflictStyle::ZDiff3);
    assert_eq!(
        text(&r),
        "a\nX\n<<<<<<< ours\nY1\n||||||| base\nb\n=======\nY2\n>>>>>>> theirs\nz\n"
    );
}

#[test]
fn linemerge_no_trailing_newline() {
    // one side changes the unterminated last line
    let r = m("a\nb", "a\nB", "a\nb");
    assert_eq!((text(&r).as_str(), r.conflicts), ("a\nB", 0));
    // conflict on the unterminated last line: newline added before markers
    let r = m("a\nb", "a\nO", "a\nT");
    assert_eq!(
        text(&r),
        "a\n<<<<<<< ours\nO\n||||||| base\nb\n=======\nT\n>>>>>>> theirs\n"
    );
    // adding the final newline on one side is a change
    let r = m("a\nc\nb", "a\nc\nb\n", "x\nc\nb");
    assert_eq!((text(&r).as_str(), r.conflicts), ("x\nc\nb\n", 0));
    // ... which touches an edit of the line before: conflict, as in git
    let r = m("a\nb", "a\nb\n", "x\nb");
    assert_eq!(
        text(&r),
        "<<<<<<< ours\na\nb\n||||||| base\na\nb\n=======\nx\nb\n>>>>>>> theirs\n"
    );
}

#[test]
fn linemerge_crlf_preserved() {
    let r = m("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "a\r\nb\r\nC\r\n");
    // touching changes: conflict; markers get CRLF like the content
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "a\r\n<<<<<<< ours\r\nB\r\nc\r\n||||||| base\r\nb\r\nc\r\n=======\r\nb\r\nC\r\n>>>>>>> theirs\r\n"
    );
    let r = m(
        "a\r\nb\r\nc\r\nd\r\n",
        "A\r\nb\r\nc\r\nd\r\n",
        "a\r\nb\r\nc\r\nD\r\n",
    );
    assert_eq!(
        (text(&r).as_str(), r.conflicts),
        ("A\r\nb\r\nc\r\nD\r\n", 0)
    );
}

#[test]
fn linemerge_invalid_utf8_preserved() {
    let base: &[u8] = b"a\n\xff\xfe\nc\n\x00\n";
    let ours: &[u8] = b"a\n\xff\xfe\nc\xc3\n\x00\n";
    let theirs: &[u8] = b"\x80\n\xff\xfe\nc\n\x00\n";
    let r = merge_lines(base, ours, theirs, &MarkerOptions::default());
    assert_eq!(r.conflicts, 0);
    assert_eq!(r.text, b"\x80\n\xff\xfe\nc\xc3\n\x00\n".to_vec());
}

#[test]
fn linemerge_empty_inputs() {
    assert_eq!(
        m("", "", ""),
        LineMerge {
            text: vec![],
            conflicts: 0
        }
    );
    assert_eq!(text(&m("", "x\n", "")), "x\n");
    assert_eq!(text(&m("", "", "y\n")), "y\n");
    let r = m("", "x\n", "y\n");
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        text(&r),
        "<<<<<<< ours\nx\n||||||| base\n=======\ny\n>>>>>>> theirs\n"
    );
    // both delete everything
    assert_eq!(
        m("a\n", "", ""),
        LineMerge {
            text: vec![],
            conflicts: 0
        }
    );
}

#[test]
fn linemerge_marker_size_and_labels() {
    let opts = MarkerOptions {
        marker_size: 10,
        ours: "HEAD".into(),
        base: "merged common ancestors".into(),
        theirs: "feature/x".into(),
        style: ConflictStyle::Diff3,
    };
    let r = merge_lines(b"a\n", b"b\n", b"c\n", &opts);
    assert_eq!(
        String::from_utf8(r.text).unwrap(),
        "<<<<<<<<<< HEAD\nb\n|||||||||| merged common ancestors\na\n==========\nc\n>>>>>>>>>> feature/x\n"
    );
}

#[test]
fn linemerge_write_conflict_alone() {
    let mut out = Vec::new();
    let opts = MarkerOptions {
        style: ConflictStyle::Merge,
        ..Default::default()
    };
    write_conflict(&mut out, b"b\n", b"o", b"t\n", &opts);
    assert_eq!(
        out,
        b"<<<<<<< ours\no\n=======\nt\n>>>>>>> theirs\n".to_vec()
    );
    let mut out = Vec::new();
    write_conflict(
        &mut out,
        b"b\r\n",
        b"o\r\n",
        b"t\r\n",
        &MarkerOptions::default(),
    );
    assert_eq!(
        out,
        b"<<<<<<< ours\r\no\r\n||||||| base\r\nb\r\n=======\r\nt\r\n>>>>>>> theirs\r\n".to_vec()
    );
}

#[test]
fn linemerge_hunks_concatenate_to_merge() {
    let base = "a\nb\nc\nd\ne\nf\n";
    let ours = "a\nB\nc\nd\ne\nF\n";
    let theirs = "a\nb\nc\nD\ne\nG\n";
    let hunks = merge_hunks(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let mut out = Vec::new();
    let mut n = 0;
    for h in &hunks {
        match h {
            Hunk::Stable(s) | Hunk::Clean(s) => out.extend_from_slice(s),
            Hunk::Conflict { base, ours, theirs } => {
                n += 1;
                write_conflict(&mut out, base, ours, theirs, &MarkerOptions::default());
            }
        }
    }
    let r = m(base, ours, theirs);
    assert_eq!((out, n), (r.text, r.conflicts));
    assert!(matches!(hunks[0], Hunk::Stable(b"a\n")));
    assert!(matches!(hunks[1], Hunk::Clean(b"B\n")));
}

// ------------------------------------------------------------------ proptest

mod props {
    use super::*;
    use proptest::prelude::*;

    fn lines() -> impl Strategy<Value = Vec<u8>> {
        // few distinct lines so that diffs are ambiguous; some CRLF, bad UTF-8, no final newline
        let line = prop_oneof![
            Just(b"a\n".to_vec()),
            Just(b"b\n".to_vec()),
            Just(b"c\n".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"x\r\n".to_vec()),
            Just(b"\xff\n".to_vec()),
            Just(b"d".to_vec()),
        ];
        proptest::collection::vec(line, 0..12).prop_map(|v| v.concat())
    }

    fn style() -> impl Strategy<Value = ConflictStyle> {
        prop_oneof![
            Just(ConflictStyle::Merge),
            Just(ConflictStyle::Diff3),
            Just(ConflictStyle::ZDiff3)
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn linemerge_prop_identities(b in lines(), x in lines(), y in lines(), st in style()) {
            let opts = MarkerOptions { style: st, ..MarkerOptions::default() };
            prop_assert_eq!(merge_lines(&b, &x, &b, &opts), LineMerge { text: x.clone(), conflicts: 0 });
            prop_assert_eq!(merge_lines(&b, &b, &x, &opts), LineMerge { text: x.clone(), conflicts: 0 });
            prop_assert_eq!(merge_lines(&b, &x, &x, &opts), LineMerge { text: x.clone(), conflicts: 0 });
            prop_assert_eq!(merge_lines(&x, &x, &x, &opts), LineMerge { text: x.clone(), conflicts: 0 });
            // never panics, hunks agree with the rendered merge
            let r = merge_lines(&b, &x, &y, &opts);
            let hunks = merge_hunks_styled(&b, &x, &y, st);
            let n = hunks.iter().filter(|h| matches!(h, Hunk::Conflict { .. })).count();
            prop_assert_eq!(n, r.conflicts);
            if r.conflicts == 0 {
                let flat: Vec<u8> = hunks.iter().flat_map(|h| match h {
                    Hunk::Stable(s) | Hunk::Clean(s) => s.to_vec(),
                    Hunk::Conflict { .. } => Vec::new(),
                }).collect();
                prop_assert_eq!(flat, r.text);
            }
        }

        #[test]
        fn linemerge_prop_random_bytes_no_panic(b in proptest::collection::vec(any::<u8>(), 0..64),
                                                 x in proptest::collection::vec(any::<u8>(), 0..64),
                                                 y in proptest::collection::vec(any::<u8>(), 0..64),
                                                 st in style()) {
            let opts = MarkerOptions { style: st, marker_size: 0, ..MarkerOptions::default() };
            let _ = merge_lines(&b, &x, &y, &opts);
        }
    }
}
