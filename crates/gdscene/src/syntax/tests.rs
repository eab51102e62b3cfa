//! Tests of the splitter and the tree: sections, fields, properties, errors, escapes, and
//! the two-thread split agreeing with reading in one go.

use super::splitter::Splitter;
use super::*;

fn doc(s: &str) -> Document {
    Document::parse(s.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn body_end_is_after_the_last_own_line_before_trailing_trivia() {
    let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\na = 1 \t\r\n; note\n\n[node name=\"B\" parent=\".\"]\n\n\n[node name=\"C\" parent=\".\"]\nb = \"x\ny\" ; tail\n\n[node name=\"D\" parent=\".\"]\nc = 2";
    let d = Document::parse(src.as_bytes()).expect("parses");
    let own: Vec<&str> = d
        .sections
        .iter()
        .map(|s| &src[s.span.start()..s.body_end])
        .collect();
    assert_eq!(
        own,
        [
            "[gd_scene format=3]\n",
            "[node name=\"A\" type=\"Node\"]\na = 1 \t\r\n",
            "[node name=\"B\" parent=\".\"]\n",
            "[node name=\"C\" parent=\".\"]\nb = \"x\ny\"",
            "[node name=\"D\" parent=\".\"]\nc = 2",
        ]
    );
}

#[test]
fn splits_sections_fields_and_props() {
    let src = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Script\" path=\"res://a.gd\" id=\"1_x\"]\n\n[node name=\"A\" type=\"Node2D\"]\nposition = Vector2(1, 2)\nscript = ExtResource(\"1_x\")\n";
    let d = doc(src);
    assert_eq!(d.print(), src);
    assert_eq!(d.sections.len(), 3);
    assert_eq!(d.sections[0].tag.name, "gd_scene");
    assert_eq!(d.slice(&d.sections[0].tag.field("format").unwrap()), "3");
    let n = &d.sections[2];
    assert_eq!(n.props.len(), 2);
    assert_eq!(n.props[0].key, "position");
    assert_eq!(d.slice(&n.props[0].value), "Vector2(1, 2)");
    assert_eq!(d.slice(&n.props[1].line), "script = ExtResource(\"1_x\")\n");
}

#[test]
fn bracket_inside_multiline_string_is_not_a_section() {
    let src = "[gd_resource type=\"X\" format=3]\n\n[resource]\ntext = \"Intro\n[node name=\\\"fake\\\"]\"\nb = 1\n";
    let d = doc(src);
    assert_eq!(d.sections.len(), 2);
    assert_eq!(d.sections[1].props.len(), 2);
    assert_eq!(d.sections[1].props[1].key, "b");
}

#[test]
fn godot3_multiline_groups_and_spacing() {
    let src = "[gd_scene load_steps=2 format=2]\n\n[node name=\"E\" type=\"Area2D\" parent=\".\" groups=[\n\"enemy\",\n]]\nposition = Vector2( 1, 2 )\n";
    let d = doc(src);
    let t = &d.sections[1].tag;
    assert_eq!(d.slice(&t.field("groups").unwrap()), "[\n\"enemy\",\n]");
    assert_eq!(d.slice(&d.sections[1].props[0].value), "Vector2( 1, 2 )");
}

#[test]
fn nested_dicts_without_indentation_and_object_newline() {
    let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ndata = {\n\"k\": {\n\"x\": 1\n}\n}\nv = Object(RefCounted,\"script\":null)\n\n\nafter = 2\n";
    let d = doc(src);
    let p = &d.sections[1].props;
    assert_eq!(p.len(), 3);
    assert_eq!(d.slice(&p[0].value), "{\n\"k\": {\n\"x\": 1\n}\n}");
    assert_eq!(p[2].key, "after");
}

#[test]
fn keys_bare_with_spaces_quoted_and_two_on_a_line() {
    let src = "[gd_resource type=\"X\" format=3]\n[resource]\nmy prop = 1\n\"a=b\" = 2\nc = 1 d = 2\n0:0/0/physics = [1]\n";
    let d = doc(src);
    let keys: Vec<_> = d.sections[1].props.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["myprop", "a=b", "c", "d", "0:0/0/physics"]);
    assert_eq!(d.print(), src);
}

#[test]
fn comments_crlf_and_typed_containers() {
    let src = "[gd_scene format=3]\r\n\r\n; a comment\r\n[node name=\"A\" type=\"Node\"]\r\narr = [1, ; first\r\n2]\r\nt = Array[ExtResource(\"1\")]([SubResource(\"x\")])\r\nd = Dictionary[String, int]({\r\n\"a\": 1\r\n})\r\nn = -inf\r\nm = inf_neg\r\n";
    let d = doc(src);
    assert_eq!(d.print(), src);
    let p = &d.sections[1].props;
    assert_eq!(p.len(), 5);
    assert_eq!(
        d.slice(&p[1].value),
        "Array[ExtResource(\"1\")]([SubResource(\"x\")])"
    );
    assert_eq!(d.slice(&p[3].value), "-inf");
    assert!(d.uses_crlf());
}

#[test]
fn keyword_before_next_tag_is_not_a_typed_container() {
    let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nvisible = false\n[node name=\"B\" type=\"Node\" parent=\".\"]\n";
    let d = doc(src);
    assert_eq!(d.sections.len(), 3);
    assert_eq!(d.slice(&d.sections[1].props[0].value), "false");
}

#[test]
fn bom_is_kept_in_prefix() {
    let src = "\u{feff}[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n";
    let d = doc(src);
    assert!(d.has_bom());
    assert_eq!(d.print(), src);
    assert_eq!(d.prefix, 0..3);
}

#[test]
fn errors_are_located() {
    let e = Document::parse(b"[gd_scene format=3]\n\n[node name=\"A\nb = 1\n").unwrap_err();
    assert_eq!((e.line, e.column), (3, 12));
    assert!(e.expected.contains("closing `\"`"), "{e}");
    let e =
        Document::parse(b"[gd_scene format=3]\n[node name=\"A\"]\nno equals here\n").unwrap_err();
    assert_eq!(e.line, 3);
    // The message says what was expected there, after the location (issue 38).
    let first = e.to_string().lines().next().unwrap_or("").to_string();
    assert_eq!(first, "3:15: expected `=` after the property name", "{e}");
    let e = Document::parse(b"[gd_scene format=3]\n[node name\"A\"]\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("2:11: expected `=` after the field name"),
        "{e}"
    );
    let e = Document::parse(b"").unwrap_err();
    assert!(e.expected.contains("empty"));
    let e = Document::parse(b"[gd_scene]\n\xff\xfe").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.expected.contains("UTF-8"));
    let e = Document::parse(b"hello").unwrap_err();
    assert!(e.to_string().contains("^"));
}

#[test]
fn a_tag_without_its_bracket_is_named_where_the_next_tag_starts() {
    // Fields may span lines (Godot reads them so), so the error is found at the next `[`;
    // the message names the line of the tag that lost its `]`.
    let src = b"[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n\
                [node name=\"A\" type=\"Node\" parent=\".\"\nvisible = false\n\n\
                [node name=\"B\" type=\"Node\" parent=\".\"]\n";
    let e = Document::parse(src).unwrap_err();
    assert_eq!((e.line, e.column), (8, 1), "{e}");
    assert!(
        e.expected
            .contains("the tag opened on line 5 is not closed"),
        "{e}"
    );
    // On one line, no such guess.
    let e = Document::parse(b"[gd_scene format=3]\n[node name=\"A\" 5]\n").unwrap_err();
    assert_eq!(e.expected, "a field name or `]`", "{e}");
}

#[test]
fn long_lines_are_clipped_around_the_caret() {
    let mut s = String::from("[gd_scene format=3]\n[node name=\"A\"]\na = ");
    s.push_str(&"1, ".repeat(50_000));
    s.push_str(" @ ");
    s.push_str(&"2, ".repeat(50_000));
    let e = Document::parse(s.as_bytes()).unwrap_err();
    let shown = e.to_string();
    assert!(shown.len() < 600, "{} bytes", shown.len());
    assert!(e.line_text.ends_with('…'), "{}", e.line_text);
    assert_eq!(e.line, 3);
}

#[test]
fn deep_nesting_is_bounded() {
    let mut s = String::from("[gd_scene format=3]\n[node name=\"A\"]\na = ");
    s.push_str(&"[".repeat(100_000));
    let e = Document::parse(s.as_bytes()).unwrap_err();
    assert!(e.expected.contains("nesting"), "{e}");
}

#[test]
fn line_index_agrees_with_counting() {
    let t = "a\nbc\n\nd";
    let d = LineIndex::new(t);
    for off in 0..=t.len() {
        let want = t.as_bytes()[..off].iter().filter(|&&b| b == b'\n').count() + 1;
        assert_eq!(d.line(off), want, "offset {off}");
    }
}

#[test]
fn unescape_follows_the_engine() {
    assert_eq!(unescape(r#"a\"b\\c\n\t\a\v\0"#).unwrap(), "a\"b\\c\n\tav0");
    assert_eq!(unescape(r"\u00e9\U01F600").unwrap(), "é😀");
    assert_eq!(unescape(r"\ud83d\ude00").unwrap(), "😀");
    assert!(unescape(r"\ud83d").is_err());
    assert!(unescape(r"\u12").is_err());
}

/// Both ways of reading, as comparable text: sections, or the error's place and words.
fn both_ways(text: &str) -> (String, String) {
    let show = |r: Result<(Range<usize>, Vec<Section>), ParseError>| match r {
        Ok((prefix, sections)) => format!("{prefix:?} {sections:?}"),
        Err(e) => format!("error at {}: {}", e.offset, e.expected),
    };
    (
        show(Splitter::new(text).run_split(0)),
        show(Splitter::new(text).run_split(usize::MAX)),
    )
}

#[test]
fn split_on_two_threads_equals_reading_in_one_go() {
    let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n";
    let nodes = |n: usize| -> String {
        (0..n)
            .map(|i| format!("\n[node name=\"N{i}\" type=\"Node\" parent=\".\"]\nvalue = {i}\n"))
            .collect()
    };
    // A multi-line string right after the middle that holds a line starting with
    // `[`: the guessed cut is inside it, and the first half must read on.
    let tricky = format!(
        "{head}\n[node name=\"L\" type=\"Label\" parent=\".\"]\ntext = \"{}\n[fake]\nend\"\n{}",
        "x\n".repeat(200),
        nodes(3)
    );
    let cases = [
        format!("{head}{}", nodes(50)),
        tricky,
        // Errors in the second half, and in the first.
        format!(
            "{head}{}\n[node name=\"Bad\" parent=\".\"]\nv = Vector2(1, 2\n",
            nodes(50)
        ),
        format!(
            "{head}\n[node name=\"Bad\" parent=\".\"]\nv = (\n{}",
            nodes(50)
        ),
        format!("{head}{}\n[", nodes(5)),
        "[a]\n[".to_string(),
        "[gd_scene]".to_string(),
    ];
    for text in &cases {
        let (two, one) = both_ways(text);
        assert_eq!(two, one, "{text}");
    }
    // The first two are valid scenes (the second only read right in one go).
    for text in &cases[..2] {
        assert!(Document::parse(text.as_bytes()).is_ok(), "{text}");
    }
}

/// Mutated corpus files (truncated, bytes flipped, quotes, brackets and section
/// starts inserted anywhere): two-thread reading still equals one-thread reading,
/// errors included.
#[test]
fn split_on_two_threads_equals_reading_in_one_go_on_mutated_files() {
    let texts = crate::test_support::corpus_texts(41);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const INSERTS: &[&str] = &["\"", "\n[", "[", "]", "(", ")", ";", "\\", "\n", "{"];
    let mut cases = 0;
    for (stored, text) in &texts {
        for _ in 0..8 {
            let mut t = text.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % (t.len() + 1);
                let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                match next() % 3 {
                    0 => t.truncate(at),
                    1 => t.insert_str(at, INSERTS[(next() as usize) % INSERTS.len()]),
                    _ => {
                        let end = (at + 1 + (next() as usize) % 40).min(t.len());
                        if t.is_char_boundary(end) {
                            t.replace_range(at..end, "");
                        }
                    }
                }
            }
            let (two, one) = both_ways(&t);
            assert!(
                two == one,
                "{stored}: two-thread reading differs on a mutation"
            );
            cases += 1;
        }
    }
    assert!(
        cases > 1000 || crate::test_support::shared_dir().is_none(),
        "{cases} cases"
    );
}

#[test]
fn split_on_two_threads_equals_reading_in_one_go_on_the_corpus() {
    let texts = crate::test_support::corpus_texts(3);
    for (stored, text) in &texts {
        let (two, one) = both_ways(text);
        assert!(two == one, "{stored}: reading in two halves differs");
    }
    let files = texts.len();
    assert!(
        files > 2000 || crate::test_support::shared_dir().is_none(),
        "{files} corpus files read"
    );
}

/// Reading `text` afresh and reading it following `like`, as comparable text: the
/// sections, or the error's place and words.
fn fresh_and_like(text: &str, like: &Document) -> (String, String) {
    let show = |r: Result<Document, ParseError>| match r {
        Ok(d) => format!("{:?} {:?}", d.prefix, d.sections),
        Err(e) => format!("error at {}: {}", e.offset, e.expected),
    };
    (
        show(Document::from_text(text.to_string())),
        show(Document::from_text_like(text.to_string(), like)),
    )
}

/// Sections copied from a followed document read exactly as the same bytes read
/// afresh, wherever what follows them could change their reading: a comment or
/// trailing blanks at the end of the file, no newline at the end, a property line
/// after a copied section, sections inserted, removed, replaced and repeated.
#[test]
fn reading_like_another_equals_reading_afresh() {
    let like = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\na = 1\n\n[node name=\"A\" parent=\".\"]\nb = \"x\n[y]\"\n\n[node name=\"B\" parent=\".\"]\nc = 2 ; note";
    let d = doc(like);
    let cases = [
        like.to_string(),
        // The last section's comment ends the file there; here a section follows it.
        format!("{like}\n[node name=\"C\" parent=\".\"]\n"),
        format!("{like}[node name=\"C\" parent=\".\"]\n"),
        // A property line after a copied section: it belongs to that section.
        like.replace("\n\n[node name=\"A\"", "\nz = 9\n\n[node name=\"A\""),
        like.replace("a = 1\n\n", "a = 1\n\nz = 9\n"),
        // Removed, inserted, replaced, repeated sections.
        like.replace("[node name=\"A\" parent=\".\"]\nb = \"x\n[y]\"\n\n", ""),
        like.replace("[node name=\"B\"", "[node name=\"N\" parent=\".\"]\n\n[node name=\"B\""),
        like.replace("c = 2", "c = 3"),
        format!("{like}\n{}", &like[like.find("[node").unwrap_or(0)..]),
        // Trailing blanks without a newline, then another section.
        "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\na = 1  ".to_string(),
        "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\na = 1  [node name=\"S\" parent=\".\"]\n".to_string(),
        // Errors after copied sections.
        format!("{like}\n[node name=\"C\" parent=\".\"]\nv = (\n"),
        like.replace("c = 2 ; note", "c = \"open"),
    ];
    for text in &cases {
        let (fresh, followed) = fresh_and_like(text, &d);
        assert_eq!(fresh, followed, "{text}");
    }
    let tail = doc("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\na = 1  ");
    for text in &cases {
        let (fresh, followed) = fresh_and_like(text, &tail);
        assert_eq!(fresh, followed, "{text}");
    }
}

/// Corpus files read following a mutated copy of themselves, and mutated files read
/// following the original (truncated, bytes flipped, quotes, brackets, comments and
/// section starts inserted anywhere): the same tree or the same error as afresh.
#[test]
fn reading_like_another_equals_reading_afresh_on_mutated_files() {
    let texts = crate::test_support::corpus_texts(41);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const INSERTS: &[&str] = &["\"", "\n[", "[", "]", "(", ";", "\n", "x = 1\n", "; c"];
    let mut cases = 0;
    for (stored, text) in &texts {
        let Ok(original) = Document::parse(text.as_bytes()) else {
            continue;
        };
        for _ in 0..6 {
            let mut t = text.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % (t.len() + 1);
                let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                match next() % 3 {
                    0 => t.truncate(at),
                    1 => t.insert_str(at, INSERTS[(next() as usize) % INSERTS.len()]),
                    _ => {
                        let end = (at + 1 + (next() as usize) % 40).min(t.len());
                        if t.is_char_boundary(end) {
                            t.replace_range(at..end, "");
                        }
                    }
                }
            }
            let (fresh, followed) = fresh_and_like(&t, &original);
            assert!(
                fresh == followed,
                "{stored}: reading like the original differs"
            );
            if let Ok(mutated) = Document::parse(t.as_bytes()) {
                let (fresh, followed) = fresh_and_like(text, &mutated);
                assert!(
                    fresh == followed,
                    "{stored}: reading like a mutation differs"
                );
            }
            cases += 1;
        }
    }
    assert!(
        cases > 1000 || crate::test_support::shared_dir().is_none(),
        "{cases} cases"
    );
}
