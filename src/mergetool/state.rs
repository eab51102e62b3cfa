//! What the mergetool's page shows, as one JSON document: the scene tree of the result
//! with the conflicted nodes and resources marked and what each side did to each node
//! (added, removed, renamed, moved), and each conflict with its three sides and its
//! properties side by side. The page draws it; composing choices is `hunks`'s.

use super::hunks::{self, Merged};
use gdscene::diff::{diff_files, Subject};
use gdscene::model::Scene;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The page's document for the file `name`, merged into `merged` from `sides` (base,
/// ours, theirs).
pub fn state(name: &str, merged: &Merged, sides: &[String; 3]) -> Value {
    let names = hunks::resource_names(&[&sides[0], &sides[1], &sides[2]]);
    let format = sides[1]
        .lines()
        .next()
        .and_then(|l| hunks::attr(l, "format"))
        .and_then(|f| f.parse().ok())
        .unwrap_or(3);
    let conflicts: Vec<Value> = merged
        .conflicts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "index": i,
                "line": c.line,
                "place": place(&c.header),
                "node": hunks::node_path(&c.header),
                "rows": hunks::rows(c, &names, format),
                "ours": c.ours,
                "base": c.base,
                "theirs": c.theirs,
            })
        })
        .collect();
    json!({
        "file": name,
        "conflicts": conflicts,
        "tree": tree(merged, sides),
    })
}

/// A section header as a person names it: `node "Player/Sprite"`, `sub_resource
/// Animation "walk_1"`, `the file header`.
fn place(header: &str) -> String {
    if let Some(p) = hunks::node_path(header) {
        return format!("node \"{p}\"");
    }
    let kind = header
        .trim_start_matches('[')
        .split([' ', ']'])
        .next()
        .unwrap_or_default();
    match (kind, hunks::attr(header, "type"), hunks::attr(header, "id")) {
        ("", _, _) => "the top of the file".to_string(),
        (k, Some(t), Some(id)) => format!("{k} {t} \"{id}\""),
        (k, _, _) => k.to_string(),
    }
}

/// Nodes of the result's tree in file order (ours' order, then nodes only theirs has),
/// each with its depth, type, whether a conflict is in it, and what each side did.
fn tree(merged: &Merged, sides: &[String; 3]) -> Vec<Value> {
    let mut nodes: Vec<(String, Option<String>)> = Vec::new();
    for text in [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)] {
        for l in text.lines().filter(|l| l.starts_with("[node ")) {
            if let Some(p) = hunks::node_path(l) {
                if !nodes.iter().any(|(q, _)| *q == p) {
                    nodes.push((p, hunks::attr(l, "type").map(str::to_string)));
                }
            }
        }
    }
    let conflicted: Vec<String> = merged
        .conflicts
        .iter()
        .filter_map(|c| hunks::node_path(&c.header))
        .collect();
    let did = side_actions(sides);
    nodes
        .into_iter()
        .map(|(path, type_name)| {
            let depth = if path == "." {
                0
            } else {
                path.matches('/').count() + 1
            };
            json!({
                "path": path,
                "name": if path == "." { "(root)" } else { path.rsplit('/').next().unwrap_or(&path) },
                "type": type_name,
                "depth": depth,
                "conflict": conflicted.contains(&path),
                "did": did.get(&path).cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// Per node path, what ours and theirs did to it since the base (`ours: renamed`),
/// when the three sides parse.
fn side_actions(sides: &[String; 3]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let parse = |t: &str| {
        (!t.is_empty())
            .then(|| Scene::parse(t.as_bytes()).ok())
            .flatten()
    };
    let base = parse(&sides[0]);
    for (who, text) in [("ours", &sides[1]), ("theirs", &sides[2])] {
        let Some(side) = parse(text) else { continue };
        for ch in diff_files(base.as_ref(), Some(&side)).changes {
            let Subject::Node { path, .. } = &ch.subject else {
                continue;
            };
            let what = ch.detail.kind();
            if matches!(what, "added" | "removed" | "renamed" | "moved") {
                let entry = out.entry(path.clone()).or_default();
                let line = format!("{who}: {what}");
                if !entry.contains(&line) {
                    entry.push(line);
                }
            }
        }
    }
    out
}
