//! `review` on an untrusted repository: file names, node names, values and resource
//! paths built to break out of Markdown code spans and table cells, to render as links
//! or HTML in a pull-request comment, to end a Mermaid label, or to drive the terminal
//! (escape sequences, line breaks). Each output must show them, literally, and obey none.

mod common;

use common::{stdout, TempRepo};

const FILE_MD: &str = "a`b|c[click](javascript:alert(1)) <img src=x onerror=alert(1)>.tscn";
const FILE_TERM: &str = "e\x1b[2Jvil\nline.tscn";
const ROOT: &str = "R`oo|t [a](http://evil.example)";
const CHILD: &str = "Ev\x1b[31mil``` | <img src=x>";
const VALUE: &str = "[click](http://evil.example) `` | <script>alert(1)</script>";

fn scene() -> String {
    format!(
        "[gd_scene load_steps=2 format=3]\n\n\
         [ext_resource type=\"Texture2D\" path=\"res://x](http://evil.example)|`.png\" id=\"1\"]\n\n\
         [node name=\"{ROOT}\" type=\"Node2D\"]\n\n\
         [node name=\"{CHILD}\" type=\"Sprite2D\" parent=\".\"]\n\
         texture = ExtResource(\"1\")\n\
         text = \"{VALUE}\"\n"
    )
}

/// A repository whose second commit adds both hostile files and renames a node.
fn hostile_repo() -> (TempRepo, String) {
    let t = TempRepo::new();
    t.write(
        FILE_MD,
        "[gd_scene format=3]\n\n[node name=\"Plain\" type=\"Node2D\"]\n",
    );
    let base = t.commit_all("base");
    t.write(FILE_MD, scene());
    t.write(FILE_TERM, scene());
    t.commit_all("hostile");
    (t, format!("{base}..HEAD"))
}

/// Split a Markdown line into (is_code, text) runs the way CommonMark finds code spans:
/// a run of n backticks opens a span that the next run of exactly n backticks closes.
fn spans(line: &str) -> Vec<(bool, String)> {
    let b = line.as_bytes();
    let run_at = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let (mut out, mut text, mut i) = (Vec::new(), String::new(), 0);
    while i < b.len() {
        let n = run_at(i);
        if n == 0 {
            let c = line[i..].chars().next().unwrap();
            text.push(c);
            i += c.len_utf8();
            continue;
        }
        let close = (i + n..b.len()).find(|&j| run_at(j) == n && (j == 0 || b[j - 1] != b'`'));
        match close {
            Some(j) => {
                out.push((false, std::mem::take(&mut text)));
                out.push((true, line[i + n..j].to_string()));
                i = j + n;
            }
            None => {
                text.push_str(&line[i..i + n]);
                i += n;
            }
        }
    }
    out.push((false, text));
    out
}

fn unescaped_pipes(line: &str) -> usize {
    let b = line.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] == b'|' && (i == 0 || b[i - 1] != b'\\'))
        .count()
}

/// A Mermaid label with each `#NNN;` entity replaced by `entity(character)`.
fn map_entities(label: &str, entity: fn(char) -> String) -> String {
    let mut out = String::new();
    let mut rest = label;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let code = after[..digits].parse::<u32>().ok().and_then(char::from_u32);
        rest = match (after[digits..].strip_prefix(';'), code) {
            (Some(r), Some(c)) => {
                out.push_str(&entity(c));
                r
            }
            _ => {
                out.push('#');
                after
            }
        };
    }
    out.push_str(rest);
    out
}

fn mermaid_decode(label: &str) -> String {
    map_entities(label, |c| c.to_string())
}

fn without_entities(label: &str) -> String {
    map_entities(label, |_| String::new())
}

#[test]
fn markdown_shows_hostile_names_literally() {
    let (t, range) = hostile_repo();
    let o = t.run_bin(["review", range.as_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let md = stdout(&o);
    assert!(!md.contains('\x1b'), "{md}");
    let mut in_mermaid = false;
    let mut code_texts = Vec::new();
    for line in md.lines() {
        if line.starts_with("```") {
            in_mermaid = line == "```mermaid";
            continue;
        }
        if in_mermaid {
            continue;
        }
        let is_row = line.starts_with("| ");
        if is_row {
            assert_eq!(unescaped_pipes(line), 4, "a cell broke out: {line}");
        }
        for (is_code, s) in spans(line) {
            if is_code {
                code_texts.push(if is_row { s.replace("\\|", "|") } else { s });
            } else {
                for bad in ["click", "evil", "<img", "<script", "](", "javascript"] {
                    assert!(!s.contains(bad), "{bad:?} outside a code span: {line}");
                }
            }
        }
    }
    let shown = |want: &str| code_texts.iter().any(|c| c.trim() == want);
    assert!(shown(FILE_MD), "{code_texts:?}");
    assert!(shown("e\\x1b[2Jvil\\nline.tscn"), "{code_texts:?}");
    assert!(
        code_texts.iter().any(|c| c.contains(VALUE)),
        "{code_texts:?}"
    );
    assert!(code_texts
        .iter()
        .any(|c| c.contains("res://x](http://evil.example)|`.png")));
    assert!(code_texts
        .iter()
        .any(|c| c.contains("Ev\\x1b[31mil``` | <img src=x>")));
}

#[test]
fn mermaid_labels_cannot_be_ended_or_turned_into_html() {
    let (t, range) = hostile_repo();
    let md = stdout(&t.run_bin(["review", range.as_str()]));
    let labels: Vec<&str> = md
        .lines()
        .filter_map(|l| {
            l.split_once("[\"")
                .and_then(|(_, rest)| rest.strip_suffix("\"]"))
        })
        .collect();
    assert!(labels.len() >= 4, "{md}");
    let mut names = Vec::new();
    for label in labels {
        let plain = label
            .replace("<br/><small>", "\u{0}")
            .replace("</small>", "");
        let bare = without_entities(&plain);
        for bad in ['"', '`', '<', '>', '&', ';', '\x1b', '\n'] {
            assert!(!bare.contains(bad), "{bad:?} in label {label}");
        }
        names.push(mermaid_decode(plain.split('\u{0}').next().unwrap()));
    }
    // The root is labelled with its own (hostile) name, not "(root)".
    assert!(names.iter().any(|n| n == ROOT), "{names:?}");
    assert!(
        names.iter().any(|n| n == "Ev\\x1b[31mil``` | <img src=x>"),
        "{names:?}"
    );
}

#[test]
fn text_output_runs_no_escape_sequence() {
    let (t, range) = hostile_repo();
    let plain = stdout(&t.run_bin([
        "review",
        range.as_str(),
        "--format",
        "text",
        "--color",
        "never",
    ]));
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(
        plain
            .lines()
            .any(|l| l == "=== e\\x1b[2Jvil\\nline.tscn (added)"),
        "{plain}"
    );
    assert!(plain.contains("Ev\\x1b[31mil"), "{plain}");
    // With colour, every escape sequence is one of ours: ESC [ digits m.
    let color = stdout(&t.run_bin([
        "review",
        range.as_str(),
        "--format",
        "text",
        "--color",
        "always",
    ]));
    for (i, _) in color.match_indices('\x1b') {
        let rest = &color[i + 1..];
        let sgr = rest
            .strip_prefix('[')
            .map(|r| r.chars().take_while(char::is_ascii_digit).count());
        assert!(
            matches!(sgr, Some(n) if n > 0 && rest[1 + n..].starts_with('m')),
            "foreign escape sequence at {i}: {:?}",
            &rest[..rest.len().min(12)]
        );
    }
    assert!(color.contains("\\x1b[2J"), "{color}");
}

#[test]
fn json_keeps_hostile_names_exact() {
    let (t, range) = hostile_repo();
    let o = t.run_bin(["review", range.as_str(), "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [FILE_MD, FILE_TERM]);
}
