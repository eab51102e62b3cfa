//! The workspace's shape (docs/architecture.md), held against the code: a pure library
//! crate (`crates/gdscene`) that starts no process, opens no socket and runs no git, and
//! a binary whose `cli/` only parses arguments and dispatches; no import circle between
//! the top-level folders of either crate, nor between the files of any folder (a
//! folder's `mod.rs` declares its files and is left out of that count; the merge's stage
//! folders keep their own rule, `tests/merge_stages.rs`); every folder
//! opens with a `//!` doc saying what it decides. Text-level, as a reviewer reads the
//! code (`tests/common/imports.rs`); comments and test modules are not code.

#[path = "common/imports.rs"]
mod imports;

use imports::{code_of, find_cycle, folder_graph, folders, read_tree, top_level_graph, SourceFile};
use std::path::Path;

/// Folders whose files may import each other: the merge's stage folders, whose own rule
/// (`tests/merge_stages.rs`: stages import only earlier stages) governs between them.
const FILES_MAY_CIRCLE: [&str; 5] = [
    "merge/identity",
    "merge/values",
    "merge/tree",
    "merge/ids",
    "merge/output",
];

/// The library's sources.
const LIBRARY: &str = "crates/gdscene/src";
/// The binary's sources.
const BINARY: &str = "src";
/// Most lines the binary's `cli/` may hold: clap's definitions and the dispatch.
const MAX_CLI_LINES: usize = 2_500;
/// What the library's code must never name: processes, sockets, git, the terminal's
/// standard streams (the binary prints; the library returns text).
const NOT_IN_LIBRARY: [&str; 8] = [
    "std::process",
    "std::net",
    "Command::new",
    "TcpListener",
    "TcpStream",
    "gix::",
    "println!",
    "eprintln!",
];

fn sources(root: &str) -> Vec<SourceFile> {
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join(root))
}

/// Every break of the house's rules in one crate's files, one line each.
fn problems(crate_name: &str, files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = find_cycle(&top_level_graph(files)) {
        out.push(format!(
            "{crate_name}: import circle between folders: {}",
            c.join(" -> ")
        ));
    }
    for folder in folders(files) {
        let mut graph = folder_graph(files, &folder);
        graph.remove("mod");
        graph.values_mut().for_each(|e| {
            e.remove("mod");
        });
        let exempt =
            FILES_MAY_CIRCLE.contains(&folder.join("/").as_str()) && crate_name == "gdscene";
        if let Some(c) = find_cycle(&graph).filter(|_| !exempt) {
            let at = if folder.is_empty() {
                "the crate root".into()
            } else {
                folder.join("/")
            };
            out.push(format!(
                "{crate_name}: import circle between the files of {at}: {}",
                c.join(" -> ")
            ));
        }
        if !folder.is_empty() {
            let doc = files
                .iter()
                .find(|(p, _)| *p == format!("{}/mod.rs", folder.join("/")))
                .is_some_and(|(_, t)| t.trim_start().starts_with("//!"));
            if !doc {
                out.push(format!(
                    "{crate_name}: {}/mod.rs does not open with a //! doc",
                    folder.join("/")
                ));
            }
        }
    }
    out
}

/// Whether a file holds only tests (named `tests.rs`, or under a `tests/` folder): a
/// test may print, run git or read the corpus.
fn is_test_file(path: &str) -> bool {
    path == "tests.rs"
        || path.ends_with("/tests.rs")
        || path.starts_with("tests/")
        || path.contains("/tests/")
}

/// The library files that name what the library must not, as `path: name` lines.
fn impure(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for (path, text) in files.iter().filter(|(p, _)| !is_test_file(p)) {
        let code = code_of(text);
        for name in NOT_IN_LIBRARY.iter().filter(|n| code.contains(**n)) {
            out.push(format!("{path}: {name}"));
        }
    }
    out
}

#[test]
fn the_library_starts_no_process_opens_no_socket_and_runs_no_git() {
    let files = sources(LIBRARY);
    assert!(
        files.len() > 100,
        "only {} library files found",
        files.len()
    );
    let found = impure(&files);
    assert!(
        found.is_empty(),
        "the library must stay pure:\n{}",
        found.join("\n")
    );
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gdscene/Cargo.toml"),
    )
    .expect("the library's manifest");
    for dependency in ["gix", "anyhow", "clap", "tempfile", "libc"] {
        assert!(
            !manifest
                .lines()
                .any(|l| l.starts_with(&format!("{dependency} "))),
            "the library depends on {dependency}"
        );
    }
}

#[test]
fn neither_crate_has_an_import_circle_and_every_folder_says_what_it_decides() {
    let mut found = problems("gdscene", &sources(LIBRARY));
    found.extend(problems("tscn-merge", &sources(BINARY)));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_binarys_cli_only_parses_and_dispatches() {
    let cli: usize = sources(BINARY)
        .iter()
        .filter(|(p, _)| p.starts_with("cli/"))
        .map(|(_, t)| t.lines().count())
        .sum();
    assert!(cli > 0, "no src/cli/ found");
    assert!(
        cli <= MAX_CLI_LINES,
        "src/cli/ holds {cli} lines (at most {MAX_CLI_LINES})"
    );
}

#[test]
fn the_checks_see_a_circle_an_impure_library_and_a_missing_doc() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let good = vec![
        file("main.rs", "mod a;\nmod b;\n"),
        file("a/mod.rs", "//! a\nmod x;\nmod y;\nuse crate::b::thing;\n"),
        file("a/x.rs", "use super::y::f;\nuse super::Shared;\n"),
        file("a/y.rs", "// crate::a::x\npub fn f() {}\n"),
        file(
            "b/mod.rs",
            "//! b\npub fn thing() {}\n#[cfg(test)]\nmod tests {\n    use crate::a::x;\n}\n",
        ),
    ];
    assert_eq!(problems("t", &good), Vec::<String>::new());
    // A folder naming another that names it back.
    let mut circle = good.clone();
    circle[4].1 = format!("use crate::a::x::g;\n{}", circle[4].1);
    let found = problems("t", &circle);
    assert!(
        found.iter().any(|p| p.contains("between folders")),
        "{found:?}"
    );
    // Two files of one folder naming each other (through `super::` or `crate::`).
    let mut files = good.clone();
    files[3].1.push_str("use crate::a::x::h;\n");
    let found = problems("t", &files);
    assert!(found.iter().any(|p| p.contains("files of a")), "{found:?}");
    // A folder without its doc.
    let mut undocumented = good;
    undocumented[1].1 = "mod x;\nmod y;\n".into();
    assert_eq!(
        problems("t", &undocumented),
        vec!["t: a/mod.rs does not open with a //! doc".to_string()]
    );
    // A process started from library code, but not from a test module or a comment.
    let lib = vec![
        file("lib.rs", "// std::process is the binary's\n#[cfg(test)]\nmod tests {\n    use std::process::Command;\n}\n"),
        file("m.rs", "fn f() { let _ = std::process::Command::new(\"git\"); }\n"),
        file("m/tests.rs", "fn t() { println!(\"a test may print\"); }\n"),
    ];
    assert_eq!(
        impure(&lib),
        vec![
            "m.rs: std::process".to_string(),
            "m.rs: Command::new".to_string()
        ]
    );
}
