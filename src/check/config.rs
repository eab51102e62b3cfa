//! `check` of ConfigFile-format files (`project.godot`, `*.import`, ...): which status and
//! exit code a file's bytes get. The checking itself is `gdscene::config::check`'s.

use gdscene::config::Document;

/// What `check` found in one ConfigFile's bytes: (status, exit code, problems, error).
pub type Checked = (
    &'static str,
    i32,
    Vec<gdscene::check::Problem>,
    Option<String>,
);

/// `check` of one ConfigFile's bytes: valid 0, broken or not parsable 1, 3
/// (`--roundtrip`) printing does not give the bytes back.
pub fn check_bytes(bytes: Vec<u8>, roundtrip: bool) -> Checked {
    match String::from_utf8(bytes) {
        Err(_) => (
            "unparsable",
            1,
            Vec::new(),
            Some("1:1: expected UTF-8 text".to_string()),
        ),
        Ok(t) => check_text(&t, roundtrip),
    }
}

fn check_text(t: &str, roundtrip: bool) -> Checked {
    match gdscene::config::check::check_config(t) {
        Err(e) => ("unparsable", 1, Vec::new(), Some(e.to_string())),
        Ok(p) if !p.is_empty() => ("broken", 1, p, None),
        Ok(p) if roundtrip && Document::parse(t).map(|d| d.print()).ok().as_deref() != Some(t) => {
            ("roundtrip-mismatch", 1, p, Some("printing the parsed file does not reproduce its bytes (a tscn-merge bug: please report it)".into()))
        }
        Ok(p) => ("valid", 0, p, None),
    }
}
