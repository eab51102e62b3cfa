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
