//! Reading a crate's imports from its sources, for the tests that hold the house's shape
//! (`tests/merge_stages.rs`: the merge's stages; `tests/house.rs`: the workspace's
//! folders): the files, the code that counts (comments and test modules aside), the
//! module paths each file names, and circles in the graph they make. Text-level, as a
//! reviewer reads the code: it decides nothing about the code itself.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One source file: its path under the folder read (with `/`) and its text.
pub type SourceFile = (String, String);

/// Every `.rs` file under `dir`, by path relative to it, in sorted order.
pub fn read_tree(dir: &Path) -> Vec<SourceFile> {
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

/// The text that counts as code: up to the first `#[cfg(test)]` module, comment lines
/// dropped.
pub fn code_of(text: &str) -> String {
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
pub fn names_after(code: &str, prefix: &str) -> Vec<String> {
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

/// An import circle in the graph, as the units along it, if there is one.
pub fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

/// The module path a file declares (`ci/merge.rs` -> `ci::merge`, `ci/mod.rs` -> `ci`,
/// `lib.rs`/`main.rs` -> the crate root, empty), as segments.
pub fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The paths after each `prefix` in `code`, as segments: `prefix a::b::C` gives
/// `[a, b, C]`, and a group `prefix a::{b::c, d}` gives `[a, b, c]` and `[a, d]` (one
/// level of braces).
pub fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let segments = |s: &str| -> (Vec<String>, usize) {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let name: String = s[at..].chars().take_while(|&c| ident(c)).collect();
            if name.is_empty() {
                break;
            }
            at += name.len();
            out.push(name);
            match s[at..].strip_prefix("::") {
                Some(_) => at += 2,
                None => break,
            }
        }
        (out, at)
    };
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| ident(c) || c == ':') {
            continue;
        }
        let (head, used) = segments(rest);
        match rest[used..].strip_prefix('{') {
            Some(group) => {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let (tail, _) = segments(item.trim());
                    out.push(head.iter().cloned().chain(tail).collect());
                }
            }
            None if !head.is_empty() => out.push(head),
            None => {}
        }
    }
    out
}

/// The crate-level module paths `code` (of the file at `path`) names, as segments from the
/// crate root: each `crate::a::b` and each `super::…` climbed from the file's own module
/// (`super::x::y` from `ci/merge.rs` is `[ci, x, y]`).
pub fn named_modules(path: &str, code: &str) -> Vec<Vec<String>> {
    let here = module_of(path);
    let mut out = paths_after(code, "crate::");
    for up in 1..=here.len() {
        let prefix = "super::".repeat(up);
        // `super::super::x` also reads as `super::` followed by `super`: skip those.
        for p in paths_after(code, &prefix) {
            if p.first().is_some_and(|s| s == "super") || p.is_empty() {
                continue;
            }
            out.push(here[..here.len() - up].iter().cloned().chain(p).collect());
        }
    }
    out
}

/// The import graph between the top-level modules of a crate (its folders and root
/// files), from every file's [`named_modules`]; a module importing itself is no edge.
pub fn top_level_graph(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let tops: BTreeSet<String> = files
        .iter()
        .filter_map(|(p, _)| module_of(p).first().cloned())
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in files {
        let Some(from) = module_of(path).first().cloned() else {
            continue;
        };
        let edges = graph.entry(from.clone()).or_default();
        for m in named_modules(path, &code_of(text)) {
            if let Some(to) = m.first().filter(|t| tops.contains(*t) && **t != from) {
                edges.insert(to.clone());
            }
        }
    }
    graph
}

/// The import graph between the files of one folder (`folder`: module segments, empty for
/// the crate root): its children (a file `x.rs` or a folder `x/`) and the folder's own
/// `mod.rs`, named `mod`. The `mod.rs` declares every child, so it imports each; a child
/// that names an item of `mod.rs` (`super::Scope`) imports `mod`; a child naming a
/// sibling (`super::links::…`, `crate::install::links`) imports that sibling.
pub fn folder_graph(files: &[SourceFile], folder: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let n = folder.len();
    let under = |m: &[String]| m.len() > n && m[..n] == *folder;
    let children: BTreeSet<String> = files
        .iter()
        .map(|(p, _)| module_of(p))
        .filter(|m| under(m))
        .map(|m| m[n].clone())
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("mod".into(), children.clone());
    for (path, text) in files {
        let m = module_of(path);
        if !under(&m) {
            continue;
        }
        let from = m[n].clone();
        let edges = graph.entry(from.clone()).or_default();
        for named in named_modules(path, &code_of(text)) {
            if !under(&named) && named.len() != n + 1 {
                continue;
            }
            if named.len() > n && named[..n] == *folder {
                let to = if children.contains(&named[n]) {
                    named[n].clone()
                } else {
                    "mod".into()
                };
                if to != from {
                    edges.insert(to);
                }
            }
        }
    }
    graph
}

/// Every folder of the crate (module segments), the crate root first.
pub fn folders(files: &[SourceFile]) -> BTreeSet<Vec<String>> {
    files
        .iter()
        .filter(|(p, _)| p.ends_with("/mod.rs") || !p.contains('/'))
        .map(|(p, _)| {
            let m = module_of(p);
            if p.contains('/') {
                m
            } else {
                Vec::new()
            }
        })
        .collect()
}
