//! The merge's stage folders stay a pipeline: `src/merge/` is read, the paths each file
//! names into another stage (`crate::merge::<stage>::…`, `super::super::<stage>`) are
//! collected, and the test fails on an import circle between folders, on a stage that
//! imports a later stage (or the merge's root, which imports every stage), and on a
//! folder whose `mod.rs` does not open with a `//!` doc. Code inside `#[cfg(test)]`
//! modules and comments are not imports. docs/architecture.md describes the stages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The stages in pipeline order: each may import only those before it. `decisions` is
/// the root file holding `Decision`; `shared` holds the types every stage speaks.
const STAGES: &[&str] = &[
    "decisions",
    "shared",
    "identity",
    "values",
    "tree",
    "ids",
    "output",
];

/// The merge's root module (`src/merge/mod.rs`), which declares and runs every stage.
const ROOT: &str = "mod";

/// One source file: its path under `src/merge/` (with `/`) and its text.
type SourceFile = (String, String);

/// Every `.rs` file under `dir`, by path relative to it, in sorted order.
fn read_tree(dir: &Path) -> Vec<SourceFile> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root).expect("under root");
                let rel = rel.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&p).expect("readable source");
                out.push((rel, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// The stage a file belongs to: its folder, else its name (`decisions`), else the root.
fn unit_of(path: &str) -> String {
    match path.split_once('/') {
        Some((folder, _)) => folder.to_string(),
        None => path.trim_end_matches(".rs").to_string(),
    }
}

/// The text that counts as code: up to the first `#[cfg(test)]` module, comment lines
/// dropped.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines[i + 1..]
                .iter()
                .map(|l| l.trim_start())
                .find(|l| !l.is_empty())
                .is_some_and(|l| l.starts_with("mod ") || l.starts_with("pub mod "))
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The first path segments after each `prefix` in `code` (`a` of `prefix a::b`, and each
/// top-level name of a group `prefix {a::x, b}`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| ident(c) || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // The group's top-level items, split at commas outside nested braces.
            let mut depth = 0usize;
            let mut items = vec![String::new()];
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => items.push(String::new()),
                    _ => {}
                }
                if let Some(last) = items.last_mut() {
                    last.push(c);
                }
            }
            for item in items {
                let item = item.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
                let name: String = item.chars().take_while(|&c| ident(c)).collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|&c| ident(c)).collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// Which stages each stage's code names, by stage (the root's edges to every stage it
/// declares included). A name that is neither a folder nor a root file is the root's
/// (a re-export such as `crate::merge::Decision`).
fn stage_graph(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let units: BTreeSet<String> = files.iter().map(|(p, _)| unit_of(p)).collect();
    let resolve = |name: &str| {
        if units.contains(name) && name != ROOT {
            name.to_string()
        } else {
            ROOT.to_string()
        }
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in files {
        if path == "tests.rs" {
            continue;
        }
        let from = unit_of(path);
        let code = code_of(text);
        let mut named = names_after(&code, "crate::merge::");
        let in_folder = path.contains('/');
        if in_folder && path.ends_with("/mod.rs") {
            named.extend(names_after(&code, "super::"));
        } else if in_folder {
            named.extend(names_after(&code, "super::super::"));
        }
        let edges = graph.entry(from.clone()).or_default();
        for n in named {
            let to = resolve(&n);
            if to != from {
                edges.insert(to);
            }
        }
    }
    let stages: Vec<String> = units.iter().filter(|u| *u != ROOT).cloned().collect();
    graph.entry(ROOT.to_string()).or_default().extend(stages);
    graph
}

/// An import circle in the graph, as the stages along it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| p == n).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

/// Everything wrong with the stage layout of these files, one line each.
fn problems(files: &[SourceFile]) -> Vec<String> {
    let graph = stage_graph(files);
    let mut out = Vec::new();
    if let Some(c) = find_cycle(&graph) {
        out.push(format!("import circle between stages: {}", c.join(" -> ")));
    }
    for (from, tos) in &graph {
        if from == ROOT {
            continue;
        }
        let Some(fi) = STAGES.iter().position(|s| s == from) else {
            out.push(format!("stage `{from}` is not listed in STAGES"));
            continue;
        };
        for to in tos {
            match STAGES.iter().position(|s| s == to) {
                Some(ti) if ti < fi => {}
                _ => out.push(format!(
                    "`{from}` imports `{to}`, which is not an earlier stage"
                )),
            }
        }
    }
    let folders: BTreeSet<&str> = files
        .iter()
        .filter_map(|(p, _)| p.split_once('/').map(|(f, _)| f))
        .collect();
    for folder in folders {
        let doc = files
            .iter()
            .find(|(p, _)| *p == format!("{folder}/mod.rs"))
            .map(|(_, t)| t.trim_start().starts_with("//!"));
        match doc {
            Some(true) => {}
            Some(false) => out.push(format!("{folder}/mod.rs does not open with a //! doc")),
            None => out.push(format!("{folder}/ has no mod.rs")),
        }
    }
    out
}

fn merge_sources() -> Vec<SourceFile> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/merge");
    read_tree(&dir)
}

#[test]
fn merge_stages_import_only_earlier_stages() {
    let files = merge_sources();
    let graph = stage_graph(&files);
    // The stages the pipeline is made of are all there.
    for s in STAGES {
        assert!(graph.contains_key(*s), "no stage `{s}` under src/merge/");
    }
    let found = problems(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_back_import_a_circle_and_a_missing_doc() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let good = vec![
        file("mod.rs", "mod shared;\nmod tree;\n"),
        file("decisions.rs", "//! d\n"),
        file("shared/mod.rs", "//! s\nuse crate::merge::decisions::Decision;\n"),
        file(
            "tree/mod.rs",
            "//! t\nmod nodes;\nuse super::{shared::x, decisions};\n",
        ),
        file(
            "tree/nodes.rs",
            "use crate::merge::shared::context::{Ctx, Pick};\n// crate::merge::output::print\n#[cfg(test)]\nmod tests {\n    use crate::merge::output::print;\n}\n",
        ),
        file("output/mod.rs", "//! o\nuse crate::merge::{tree::nodes, shared};\n"),
    ];
    assert_eq!(problems(&good), Vec::<String>::new());
    // A stage importing a later one closes a circle through it.
    let mut back = good.clone();
    back[3]
        .1
        .push_str("use crate::merge::output::print::Printer;\n");
    let found = problems(&back);
    assert!(
        found
            .iter()
            .any(|p| p.contains("circle") && p.contains("output"))
            && found.iter().any(|p| p.contains("`tree` imports `output`")),
        "{found:?}"
    );
    // Going through the root's re-exports is importing the root.
    let mut root = good.clone();
    root[3]
        .1
        .push_str("use crate::merge::{Decision, shared};\n");
    assert!(problems(&root)
        .iter()
        .any(|p| p.contains("`tree` imports `mod`")));
    // A folder's mod.rs opens with its doc.
    let mut undocumented = good;
    undocumented[3].1 = "mod nodes;\n".into();
    assert_eq!(
        problems(&undocumented),
        vec!["tree/mod.rs does not open with a //! doc".to_string()]
    );
}
