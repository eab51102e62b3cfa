//! Issue 29.12: repository text (node names, values, file names, the offending line of a
//! file that does not parse) reaches the terminal spelled out, never obeyed: the merge's
//! stderr conflict report and `--explain` text, textconv's and diff's "cannot parse"
//! warnings, `diff --git-external`'s header, the binary-file line. One function
//! (`render::escape::visible`) for every printer. Driven through the binary.

mod common;

use std::process::{Command, Output};

/// A Godot 4 scene with a node named `Evil\x1b[2J` whose `text` is `text`.
fn scene(text: &str) -> String {
    format!(
        "[gd_scene format=3 uid=\"uid://b1escape001\"]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"Evil\x1b[2J\" type=\"Label\" parent=\".\"]\ntext = \"{text}\"\n"
    )
}

/// Run the binary in a fresh folder holding `files`.
fn run(files: &[(&str, &[u8])], args: &[&std::ffi::OsStr]) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    for (n, b) in files {
        std::fs::write(dir.path().join(n), b).expect("write");
    }
    Command::new(common::bin())
        .args(args)
        .current_dir(dir.path())
        .env_remove("TSCN_MERGE_FAVOR")
        .env("NO_COLOR", "1")
        .output()
        .expect("run")
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(std::ffi::OsString::from).collect()
}

/// No raw escape or bell byte, and the escape spelled out.
fn assert_spelled_out(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !bytes.contains(&0x1b) && !bytes.contains(&0x07),
        "{what}: {text:?}"
    );
    assert!(text.contains("\\x1b"), "{what}: {text:?}");
}

/// The merge's conflict report and `--explain` text: node name and values spelled out.
#[test]
fn merge_report_and_explain_escape_names_and_values() {
    let (b, o, t) = (
        scene("base"),
        scene("ours\x1b]0;pwned\x07"),
        scene("theirs"),
    );
    let files = [
        ("b.tscn", b.as_bytes()),
        ("o.tscn", o.as_bytes()),
        ("t.tscn", t.as_bytes()),
    ];
    let args = os(&[
        "merge",
        "--explain",
        "-o",
        "out.tscn",
        "b.tscn",
        "o.tscn",
        "t.tscn",
    ]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = run(&files, &refs);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert_spelled_out(&out.stderr, "merge stderr");
    assert!(common::stderr(&out).contains("Evil\\x1b[2J"));
}

/// textconv's warning and diff's error for a file that does not parse quote the
/// offending line spelled out.
#[test]
fn cannot_parse_warnings_escape_the_offending_line() {
    let broken = b"[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nx = (\x1b[2J\n";
    let ok = scene("a");
    let files = [("bad.tscn", &broken[..]), ("ok.tscn", ok.as_bytes())];
    let out = run(
        &files,
        &[std::ffi::OsStr::new("textconv"), "bad.tscn".as_ref()],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_spelled_out(&out.stderr, "textconv stderr");
    let out = run(
        &files,
        &["diff".as_ref(), "ok.tscn".as_ref(), "bad.tscn".as_ref()],
    );
    assert_spelled_out(&out.stderr, "diff stderr");
}

/// `diff --git-external` with a newline in the file name: one header line, the newline
/// spelled out; nothing forged on a line of its own.
#[test]
fn git_external_header_escapes_the_file_name() {
    let (a, c) = (scene("a"), scene("c"));
    let files = [("a.tscn", a.as_bytes()), ("c.tscn", c.as_bytes())];
    let name = "x.tscn\ndiff --tscn-merge a/forged b/forged";
    let args = os(&[
        "diff",
        "--git-external",
        name,
        "a.tscn",
        "1111",
        "100644",
        "c.tscn",
        "2222",
        "100644",
    ]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = run(&files, &refs);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let text = common::stdout(&out);
    let headers = text
        .lines()
        .filter(|l| l.starts_with("diff --tscn-merge"))
        .count();
    assert_eq!(headers, 1, "{text}");
    assert!(
        text.starts_with("diff --tscn-merge a/x.tscn\\ndiff"),
        "{text}"
    );
}

/// The binary-file line names the path (git's `%P`) spelled out.
#[test]
fn binary_file_line_escapes_the_path() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\n".to_vec();
    let mut theirs = png.clone();
    theirs.extend_from_slice(b"more\n");
    let files = [("b", &png[..]), ("o", &png[..]), ("t", &theirs[..])];
    let args = os(&["merge", "--git", "-p", "icon\x1b[2J.png", "b", "o", "t"]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = run(&files, &refs);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert_spelled_out(&out.stderr, "binary stderr");
}

/// A ConfigFile conflict report (`project.godot`) shows its values spelled out too.
#[test]
fn config_conflict_report_escapes_values() {
    let cfg = |v: &str| format!("config_version=5\n\n[application]\n\nconfig/name=\"{v}\"\n");
    let (b, o, t) = (cfg("base"), cfg("ours\x1b[2J"), cfg("theirs"));
    let files = [
        ("b", b.as_bytes()),
        ("o", o.as_bytes()),
        ("t", t.as_bytes()),
    ];
    let args = os(&["merge", "-p", "project.godot", "-o", "out", "b", "o", "t"]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let out = run(&files, &refs);
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
    assert_spelled_out(&out.stderr, "config merge stderr");
}
