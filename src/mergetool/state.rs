//! What the mergetool's page shows, as one JSON document: the file's outline (a scene's
//! tree with the nodes holding or using a conflict marked, and what each side did to
//! each node; a ConfigFile's sections with their conflicted keys), the sides' names as
//! git gives them, and each conflict with its three sides and its table (`rows`). The
//! page draws it; composing choices is `hunks`'s.

use super::hunks::{self, Merged};
use super::labels::Labels;
use super::rows;
use gdscene::diff::{diff_files, Subject};
use gdscene::model::Scene;
use gdscene::value::{scan_refs_in_text, RefKind};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The page's document for the file `name`, merged into `merged` from `sides` (base,
/// ours, theirs); `config` for a ConfigFile.
pub fn state(
    name: &str,
    merged: &Merged,
    sides: &[String; 3],
    config: bool,
    labels: &Labels,
) -> Value {
    let names = rows::resource_names(&[&sides[0], &sides[1], &sides[2]]);
    let format = sides[1]
        .lines()
        .next()
        .and_then(|l| hunks::attr(l, "format"))
        .and_then(|f| f.parse().ok())
        .unwrap_or(3);
    let root = root_name(merged);
    let users = if config {
        BTreeMap::new()
    } else {
        users_of(merged)
    };
    let conflicts: Vec<Value> = merged
        .conflicts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let section = merged.sections.get(c.section).map_or("", String::as_str);
            let rows = rows::rows(c, section, &names, format, config);
            let nodes: Vec<String> = match (hunks::node_path(&c.header), &users) {
                (Some(p), _) => vec![p],
                (None, u) => hunks::attr(&c.header, "id")
                    .and_then(|id| u.get(id))
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default(),
            };
            json!({
                "index": i,
                "line": c.line,
                "place": place(&c.header, root.as_deref(), config, &rows),
                "nodes": nodes,
                "rows": rows,
                "ours": c.ours,
                "base": c.base,
                "theirs": c.theirs,
            })
        })
        .collect();
    let tree = if config {
        config_tree(merged)
    } else {
        tree(merged, sides, &conflicts)
    };
    json!({
        "file": name,
        "kind": if config { "config" } else { "scene" },
        "labels": {"ours": labels.ours, "theirs": labels.theirs},
        "conflicts": conflicts,
        "tree": tree,
    })
}

/// The root node's name (from ours, else theirs).
fn root_name(merged: &Merged) -> Option<String> {
    [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)]
        .iter()
        .flat_map(|t| t.lines().filter(|l| l.starts_with("[node ")))
        .find(|l| hunks::attr(l, "parent").is_none())
        .and_then(|l| hunks::attr(l, "name").map(str::to_string))
}

/// A section header as a person names it: `node "Player"` (the root by its name),
/// `node "Player/Sprite"`, `sub_resource Animation "walk_1"`, `[application]
/// config/name`, `the top of the file`.
fn place(header: &str, root: Option<&str>, config: bool, rows: &[Value]) -> String {
    if config {
        let keys: Vec<&str> = rows.iter().filter_map(|r| r["key"].as_str()).collect();
        let keys = keys.join(", ");
        return match (header.is_empty(), keys.is_empty()) {
            (true, true) => "the top of the file".to_string(),
            (true, false) => keys,
            (false, true) => header.to_string(),
            (false, false) if keys.starts_with('[') => keys,
            (false, false) => format!("{header} {keys}"),
        };
    }
    if let Some(p) = hunks::node_path(header) {
        let shown = if p == "." { root.unwrap_or(".") } else { &p };
        return format!("node \"{shown}\"");
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

/// Per conflicted sub_resource's id, the nodes that use it, directly or through other resources (an
/// Animation through its AnimationLibrary to the AnimationPlayer), in either side's text.
fn users_of(merged: &Merged) -> BTreeMap<String, BTreeSet<String>> {
    // Who names each sub_resource: a node (by path) or another sub_resource (by id).
    let mut named_by: BTreeMap<String, BTreeSet<(bool, String)>> = BTreeMap::new();
    for text in [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)] {
        let mut at: Option<(bool, String)> = None;
        for l in text.lines() {
            if l.starts_with('[') && l.trim_end().ends_with(']') {
                at = match hunks::node_path(l) {
                    Some(p) => Some((true, p)),
                    None if l.starts_with("[sub_resource ") => {
                        hunks::attr(l, "id").map(|id| (false, id.to_string()))
                    }
                    None => None,
                };
                continue;
            }
            let Some(who) = &at else { continue };
            scan_refs_in_text(l, &mut |kind, id| {
                if kind == RefKind::Sub {
                    named_by
                        .entry(id.to_string())
                        .or_default()
                        .insert(who.clone());
                }
            });
        }
    }
    let wanted: BTreeSet<&str> = merged
        .conflicts
        .iter()
        .filter(|c| c.header.starts_with("[sub_resource "))
        .filter_map(|c| hunks::attr(&c.header, "id"))
        .collect();
    let mut out = BTreeMap::new();
    for id in named_by.keys().filter(|id| wanted.contains(id.as_str())) {
        let (mut nodes, mut seen, mut todo) = (BTreeSet::new(), BTreeSet::new(), vec![id.clone()]);
        while let Some(next) = todo.pop() {
            if !seen.insert(next.clone()) || seen.len() > 10_000 {
                continue;
            }
            for (is_node, who) in named_by.get(&next).into_iter().flatten() {
                if *is_node {
                    nodes.insert(who.clone());
                } else {
                    todo.push(who.clone());
                }
            }
        }
        out.insert(id.clone(), nodes);
    }
    out
}

/// Nodes of the result's tree in file order (ours' order, then nodes only theirs has),
/// each with its depth, type, the conflicts in it or in a resource it uses, and what
/// each side did.
fn tree(merged: &Merged, sides: &[String; 3], conflicts: &[Value]) -> Vec<Value> {
    let mut nodes: Vec<(String, Option<String>, String)> = Vec::new();
    let mut seen = BTreeSet::new();
    for text in [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)] {
        for l in text.lines().filter(|l| l.starts_with("[node ")) {
            if let Some(p) = hunks::node_path(l) {
                if seen.insert(p.clone()) {
                    let name = hunks::attr(l, "name").unwrap_or(&p).to_string();
                    nodes.push((p, hunks::attr(l, "type").map(str::to_string), name));
                }
            }
        }
    }
    let did = side_actions(sides);
    // Per node path, the conflicts in it or in a resource it uses, by index and place.
    let mut held: BTreeMap<&str, Vec<(&Value, &Value)>> = BTreeMap::new();
    for c in conflicts {
        for n in c["nodes"].as_array().into_iter().flatten() {
            let path = n.as_str().unwrap_or_default();
            held.entry(path)
                .or_default()
                .push((&c["index"], &c["place"]));
        }
    }
    nodes
        .into_iter()
        .map(|(path, type_name, name)| {
            let depth = if path == "." {
                0
            } else {
                path.matches('/').count() + 1
            };
            let (mut mine, mut uses) = (Vec::new(), Vec::new());
            for &(index, place) in held.get(path.as_str()).into_iter().flatten() {
                mine.push(index.clone());
                let direct = place.as_str().unwrap_or_default().starts_with("node ");
                if !direct && !uses.contains(place) {
                    uses.push(place.clone());
                }
            }
            json!({
                "path": path,
                "name": name,
                "type": type_name,
                "depth": depth,
                "conflicts": mine,
                "uses": uses,
                "did": did.get(&path).cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// A ConfigFile's sections in the result's order (ours', then theirs' new ones), each
/// followed by the keys of its conflicts.
fn config_tree(merged: &Merged) -> Vec<Value> {
    let mut sections: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for text in [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)] {
        for l in text
            .lines()
            .filter(|l| l.starts_with('[') && l.trim_end().ends_with(']'))
        {
            if seen.insert(l.trim().to_string()) {
                sections.push(l.trim().to_string());
            }
        }
    }
    if merged.conflicts.iter().any(|c| c.header.is_empty()) {
        sections.insert(0, String::new());
    }
    let mut by_header: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, c) in merged.conflicts.iter().enumerate() {
        by_header.entry(c.header.as_str()).or_default().push(i);
    }
    let mut out = Vec::new();
    for s in sections {
        let mine: Vec<usize> = by_header.get(s.as_str()).cloned().unwrap_or_default();
        let name = if s.is_empty() {
            "(top of the file)"
        } else {
            &s
        };
        out.push(json!({"path": s, "name": name, "type": null, "depth": 0,
            "conflicts": mine, "uses": [], "did": []}));
        for &i in &mine {
            let c = &merged.conflicts[i];
            let text = format!("{}{}", c.ours, c.theirs);
            let mut keys: Vec<String> = Vec::new();
            for l in text.lines() {
                if let Some(k) = hunks::key_of(l).filter(|k| !keys.iter().any(|x| x == k)) {
                    keys.push(k.to_string());
                }
            }
            for k in keys {
                out.push(json!({"path": format!("{s} {k}"), "name": k, "type": null,
                    "depth": 1, "conflicts": [i], "uses": [], "did": []}));
            }
        }
    }
    out
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
