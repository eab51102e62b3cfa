//! The merge's stage folders stay a pipeline: `src/merge/` is read, the paths each file
//! names into another stage (`crate::merge::<stage>::…`, `super::super::<stage>`) are
//! collected, and the test fails on an import circle between folders, on a stage that
//! imports a later stage (or the merge's root, which imports every stage), and on a
//! folder whose `mod.rs` does not open with a `//!` doc. Code inside `#[cfg(test)]`
//! modules and comments are not imports. docs/architecture.md describes the stages.

#[path = "common/imports.rs"]
mod imports;

use imports::{code_of, find_cycle, names_after, read_tree, SourceFile};
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

/// The stage a file belongs to: its folder, else its name (`decisions`), else the root.
fn unit_of(path: &str) -> String {
    match path.split_once('/') {
        Some((folder, _)) => folder.to_string(),
        None => path.trim_end_matches(".rs").to_string(),
    }
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gdscene/src/merge");
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
