//! `check` for ConfigFile-format files: syntax, repeated sections, repeated keys within a
//! section, and conflict markers left outside strings. Problems use the scene check's
//! [`Problem`] so the command line reports both alike.

use super::model::sections;
use super::syntax::Document;
use crate::check::{Problem, Severity};
use crate::syntax::string_open_after;

/// Validate a ConfigFile text: `Err` when it does not parse (and holds no markers; markers
/// are reported as problems, since they are what broke the parse), else the problems.
pub fn check_config(text: &str) -> Result<Vec<Problem>, super::ConfigError> {
    // A byte order mark belongs at the start (and only there): not part of the first key.
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let markers = marker_lines(text);
    let doc = match Document::parse(text) {
        Ok(d) => d,
        Err(_) if !markers.is_empty() => return Ok(markers.into_iter().map(marker).collect()),
        Err(e) => return Err(e),
    };
    let mut out: Vec<Problem> = markers.into_iter().map(marker).collect();
    let mut seen_sections: Vec<(&str, usize)> = Vec::new();
    for s in sections(&doc) {
        if !s.name.is_empty() {
            if let Some((_, first)) = seen_sections.iter().find(|(n, _)| *n == s.name) {
                out.push(error(s.line, format!("section `[{}]` repeated (first at line {first}); Godot merges them, the last value of a key wins", s.name)));
            }
            seen_sections.push((s.name, s.line));
        }
        if s.name.contains(BOM) {
            out.push(error(s.line, format!("section `[{}]` holds a byte order mark (U+FEFF), which belongs only at the very start of the file: the engine reads it as part of the name", s.name)));
        }
        let mut keys: Vec<(&str, usize)> = Vec::new();
        for (_, e) in s.entries() {
            if e.key.contains(BOM) {
                out.push(error(e.line, format!("key `{}` holds a byte order mark (U+FEFF), which belongs only at the very start of the file: the engine reads it as part of the key, so `{}` is not set", e.key, e.key.replace(BOM, ""))));
            }
            if let Some((_, first)) = keys.iter().find(|(k, _)| *k == e.key) {
                out.push(error(e.line, format!("key `{}` repeated in {} (first at line {first}); the engine keeps only the last", e.key, where_(s.name))));
            }
            keys.push((&e.key, e.line));
        }
    }
    out.sort_by_key(|p| p.line);
    Ok(out)
}

/// The byte order mark, as a character.
const BOM: char = '\u{feff}';

fn where_(section: &str) -> String {
    if section.is_empty() {
        "the lines before the first section".into()
    } else {
        format!("`[{section}]`")
    }
}

fn error(line: usize, message: String) -> Problem {
    Problem {
        severity: Severity::Error,
        line,
        message,
    }
}

fn marker(line: usize) -> Problem {
    error(
        line,
        "leftover conflict markers: this line is a git conflict marker".into(),
    )
}

/// 1-based lines that are git conflict markers and do not lie inside a string.
pub fn marker_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_string = false;
    for (i, line) in text.split('\n').enumerate() {
        let l = line.strip_suffix('\r').unwrap_or(line).as_bytes();
        if !in_string && is_marker(l) {
            out.push(i + 1);
            continue;
        }
        in_string = string_open_after(l, in_string);
    }
    out
}

fn is_marker(line: &[u8]) -> bool {
    [b'<', b'|', b'=', b'>'].iter().any(|&m| {
        let n = line.iter().take_while(|&&b| b == m).count();
        n >= 7 && (n == line.len() || (m != b'=' && line[n] == b' '))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_and_sections_are_errors() {
        let p = check_config("[a]\nk=1\nk=2\n\n[b]\n\n[a]\n").unwrap();
        let lines: Vec<usize> = p.iter().map(|p| p.line).collect();
        assert_eq!(lines, [3, 7], "{p:?}");
        assert!(p[0].message.contains("key `k` repeated"));
        assert!(p[1].message.contains("section `[a]` repeated"));
        assert!(check_config("[a]\nk=1\n\n[b]\nk=1\n").unwrap().is_empty());
    }

    #[test]
    fn a_byte_order_mark_after_the_start_is_an_error() {
        assert!(check_config("\u{feff}config_version=5\n\n[a]\nk=1\n")
            .unwrap()
            .is_empty());
        let p = check_config("[a]\nk=1\n\u{feff}config_version=5\n").unwrap();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].line, 3);
        assert!(p[0].message.contains("byte order mark"), "{p:?}");
    }

    #[test]
    fn markers_count_outside_strings_only() {
        let t = "[a]\n<<<<<<< ours\nk=1\n=======\nk=2\n>>>>>>> theirs\n";
        let p = check_config(t).unwrap();
        assert_eq!(p.iter().map(|p| p.line).collect::<Vec<_>>(), [2, 4, 6]);
        let s = "[a]\nk=\"text\n=======\nmore\"\n";
        assert!(check_config(s).unwrap().is_empty());
        assert!(check_config("[a]\nk=\n").is_err());
    }
}
