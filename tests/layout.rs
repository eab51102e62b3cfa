//! The guide's layout rules, checked on the source tree of both crates (the binary's
//! `src/` and the library's `crates/gdscene/src/`): no file over 800 lines, and no function over 80 lines outside tests (a `#[cfg(test)]` module, a file
//! named `tests.rs`, or a file under a `tests/` folder).
//!
//! Functions are found the way the project's review hook finds them: a line that starts a
//! `fn` (optionally `pub`, `pub(crate)`, `const`, `unsafe`) and does not end with `;`
//! opens one, the next line holding only `}` at the same indentation closes it, and the
//! scan of a file stops at a line starting with `#[cfg(test)]`. This file decides nothing
//! about the code itself; it only reports where the rules are broken.

use std::path::{Path, PathBuf};

/// Most lines a source file may have.
const MAX_FILE_LINES: usize = 800;
/// Most lines a function outside tests may have, its signature and closing `}` counted.
const MAX_FN_LINES: usize = 80;

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether a file (path relative to the crate) holds only tests: named `tests.rs`, or
/// under a `tests/` folder.
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| n == "tests.rs")
        || rel
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == "tests"))
}

/// Leading whitespace, in characters.
fn indent(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count()
}

/// The name of the function `line` starts, if it starts one: indentation, then optionally
/// `pub ` or `pub(word) `, `const `, `unsafe `, then `fn NAME`.
fn fn_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start_matches(char::is_whitespace);
    if let Some(r) = rest.strip_prefix("pub ") {
        rest = r;
    } else if let Some(r) = rest.strip_prefix("pub(") {
        let close = r.find(") ")?;
        if close > 0 && r[..close].bytes().all(|b| b.is_ascii_lowercase()) {
            rest = &r[close + 2..];
        }
    }
    rest = rest.strip_prefix("const ").unwrap_or(rest);
    rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Functions over `max` lines in `text`, before its `#[cfg(test)]` line: (name, lines).
fn long_functions(text: &str, max: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, &str, usize)> = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        match fn_name(line) {
            Some(name) if !line.trim_end().ends_with(';') => open.push((indent(line), name, i)),
            _ if line.trim() == "}" && open.last().is_some_and(|o| o.0 == indent(line)) => {
                if let Some((_, name, start)) = open.pop() {
                    if i - start + 1 > max {
                        out.push((name.to_string(), i - start + 1));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The source folders of the workspace's crates, relative to its root.
const SOURCE_ROOTS: [&str; 2] = ["src", "crates/gdscene/src"];

/// Every break of the rules under the source folders, as `path: what` lines.
fn violations(max_file: usize, max_fn: usize) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let files = SOURCE_ROOTS.iter().flat_map(|r| rust_files(&root.join(r)));
    for path in files {
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
        let lines = text.lines().count();
        if lines > max_file {
            out.push(format!(
                "{}: {lines} lines (at most {max_file})",
                rel.display()
            ));
        }
        if !is_test_file(rel) {
            for (name, n) in long_functions(&text, max_fn) {
                out.push(format!(
                    "{}: fn {name}, {n} lines (at most {max_fn})",
                    rel.display()
                ));
            }
        }
    }
    out
}

#[test]
fn no_file_over_800_lines_and_no_function_over_80_outside_tests() {
    let found = violations(MAX_FILE_LINES, MAX_FN_LINES);
    assert!(
        found.is_empty(),
        "layout rules broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_function_rule_counts_as_the_review_hook_does() {
    let body = |n: usize| "    x();\n".repeat(n);
    // 1 + 79 + 1 = 81 lines: too long; 80 lines: fine.
    let text = format!(
        "pub(crate) fn long() {{\n{}}}\n\nfn fine() {{\n{}}}\n",
        body(79),
        body(78)
    );
    assert_eq!(long_functions(&text, 80), [("long".to_string(), 81)]);
    // Methods by their own indentation; a declaration ending in `;` opens nothing.
    let text = format!(
        "impl A {{\n    fn decl();\n    pub const unsafe fn m() {{\n{}    }}\n}}\n",
        body(80)
    );
    assert_eq!(long_functions(&text, 80), [("m".to_string(), 82)]);
    // Nothing after `#[cfg(test)]` counts.
    let text = format!(
        "#[cfg(test)]\nmod tests {{\nfn t() {{\n{}}}\n}}\n",
        body(100)
    );
    assert!(long_functions(&text, 80).is_empty());
    // Not functions: `pub(in x)` is not `pub(word) `, and `fn` needs a name.
    assert_eq!(fn_name("pub(crate) fn a_1(x: u8) {"), Some("a_1"));
    assert_eq!(fn_name("    pub fn b<T>() {"), Some("b"));
    assert_eq!(fn_name("let fn_x = 1;"), None);
    assert_eq!(fn_name("async fn c() {"), None);
}

#[test]
fn test_files_are_named_tests_or_sit_under_a_tests_folder() {
    assert!(is_test_file(Path::new("src/diff/tests.rs")));
    assert!(is_test_file(Path::new("src/grain/tests/corpus.rs")));
    assert!(!is_test_file(Path::new("src/model/mod.rs")));
    assert!(!is_test_file(Path::new("src/merge/tests_support.rs")));
}

#[test]
fn the_scan_sees_the_whole_source_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = rust_files(&root.join("crates/gdscene/src"));
    // The crate roots and files in folders two deep are all found.
    assert!(lib.iter().any(|p| p.ends_with("src/lib.rs")));
    assert!(lib.iter().any(|p| p.ends_with("src/syntax/splitter.rs")));
    assert!(lib.len() > 50, "only {} files found", lib.len());
    let bin = rust_files(&root.join("src"));
    assert!(bin.iter().any(|p| p.ends_with("src/main.rs")));
    assert!(bin.iter().any(|p| p.ends_with("src/install/links.rs")));
    // A limit below what the code holds is reported: the check can fail.
    let strict = violations(100, 10);
    assert!(
        strict
            .iter()
            .any(|v| v.starts_with("crates/gdscene/src/syntax/splitter.rs: ")),
        "{strict:?}"
    );
}
