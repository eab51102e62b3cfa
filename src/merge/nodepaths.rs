//! NodePath values that must follow a renamed or moved node.
//!
//! A `NodePath("../Player")` in a node's property is relative to the node that holds it.
//! When one side renames or moves a node and the other side writes a NodePath that names
//! it (or moves the holder), the text written by that side no longer reaches the node in
//! the merged scene. The merge knows every node's identity on each side and its path in
//! the result, so such a path can be recomputed: resolve it on the side it came from, find
//! the same node in the result, and write the path from the holder's new place to the
//! target's new place, the way Godot's `Node.get_path_to` spells it.
//!
//! Paths this cannot resolve are left exactly as written: absolute paths (`/root/...`),
//! scene-unique names (`%Name`), paths into instanced scenes, and paths that leave the scene.
//!
//! Where each node ends up is left to [`super::paths`].

use super::context::Ctx;
use super::matching::{B, O, T};
use super::nodes::MergedNode;
use super::paths::MergedPaths;
use super::sections::Line;
use super::Decision;

/// Resolve a relative node path (no subnames) against the scene path of the node that
/// holds it. Scene paths are `.` for the root, else `A/B` (as `parent=` spells them).
/// `None` when the path is absolute, uses a scene-unique name, or climbs above the root.
pub fn resolve(holder: &str, rel: &str) -> Option<String> {
    if rel.is_empty() || rel.starts_with('/') || rel.contains('%') {
        return None;
    }
    let mut parts: Vec<&str> = if holder == "." {
        Vec::new()
    } else {
        holder.split('/').collect()
    };
    for step in rel.split('/') {
        match step {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// The relative path from one scene path to another, as `Node.get_path_to` writes it:
/// up to the common ancestor with `..`, then down by name; `.` for the node itself.
pub fn relative(from: &str, to: &str) -> String {
    let split = |p: &str| -> Vec<String> {
        if p == "." {
            Vec::new()
        } else {
            p.split('/').map(str::to_string).collect()
        }
    };
    let (f, t) = (split(from), split(to));
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; f.len() - common];
    out.extend(t[common..].iter().map(String::as_str));
    if out.is_empty() {
        ".".to_string()
    } else {
        out.join("/")
    }
}

/// Each `NodePath("…")` in `text` outside other strings: the byte range of its body (the
/// text between the quotes) and the body. Bodies with escapes are skipped.
fn node_paths(text: &str) -> Vec<(usize, usize)> {
    const CTOR: &str = "NodePath(";
    let mut found = Vec::new();
    if !text.contains(CTOR) {
        return found;
    }
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 2,
                b'"' => {
                    in_str = false;
                    i += 1
                }
                _ => i += 1,
            }
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        if !text[i..].starts_with(CTOR) || (i > 0 && is_ident_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        // NodePath( spaces "body" ...
        let mut j = i + CTOR.len();
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if j >= b.len() || b[j] != b'"' {
            i += CTOR.len();
            continue;
        }
        let start = j + 1;
        let Some(len) = text[start..].find('"') else {
            break;
        };
        let end = start + len;
        i = end + 1;
        if !text[start..end].contains('\\') {
            found.push((start, end));
        }
    }
    found
}

/// The node path part of a NodePath body (without `:subnames`).
fn path_part(body: &str) -> (&str, &str) {
    match body.find(':') {
        Some(k) => body.split_at(k),
        None => (body, ""),
    }
}

/// Whether every NodePath in `text` that names a node of this scene, relative to
/// `holder`, reaches a node `locate` knows. A line written against a tree where its paths
/// do not resolve says nothing about which node it meant there.
pub fn resolves(text: &str, holder: &str, locate: &dyn Fn(&str) -> Option<String>) -> bool {
    node_paths(text).into_iter().all(|(start, end)| {
        let (path, _) = path_part(&text[start..end]);
        let names_a_scene_node = !(path.is_empty() || path.starts_with('/') || path.contains('%'));
        !names_a_scene_node || resolve(holder, path).is_some_and(|t| locate(&t).is_some())
    })
}

/// Rewrite every `NodePath("...")` in `text` (a property line or value) that was written
/// relative to `holder_src` on its side, so that it names the same node from `holder_out`
/// in the result. `locate` maps a node's scene path on the source side to its path in the
/// result (`None` when the node is not in the result, or not a node of this scene).
/// Returns `None` when nothing changes, so callers keep the original bytes.
pub fn rewrite(
    text: &str,
    holder_src: &str,
    holder_out: &str,
    locate: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (start, end) in node_paths(text) {
        let (path, subnames) = path_part(&text[start..end]);
        let Some(target_src) = resolve(holder_src, path) else {
            continue;
        };
        let Some(target_out) = locate(&target_src) else {
            continue;
        };
        if resolve(holder_out, path).as_deref() == Some(target_out.as_str()) {
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push_str(&relative(holder_out, &target_out));
        out.push_str(subnames);
        copied = end;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The scene paths of the nodes the `NodePath("…")` values in `text` name, relative to
/// `holder`: what a NodePath needs to stay in the scene (absolute, `%Unique` and paths
/// that leave the scene name none).
pub(super) fn named_nodes(text: &str, holder: &str) -> Vec<String> {
    node_paths(text)
        .into_iter()
        .filter_map(|(start, end)| resolve(holder, path_part(text.get(start..end)?).0))
        .collect()
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Rewrite the `NodePath("…")` values of node properties so that they still name the same
/// node when the merge gave it (or the node holding the value) another place than the side
/// the line came from had (see [`super::nodepaths`]). Lines that also hold resource
/// references are left alone: their ids are rewritten when printed.
pub(super) fn follow_node_paths(
    ctx: &mut Ctx,
    merged: &mut [Option<MergedNode>],
    paths: &MergedPaths,
) {
    let merged_path = paths.all();
    let sc = ctx.sc;
    let place_changed = |ident: usize| {
        let Some(mp) = merged_path.get(ident).and_then(Option::as_deref) else {
            return false;
        };
        [O, T]
            .iter()
            .any(|&s| ctx.id.node.at[ident][s].is_some_and(|i| sc[s].nodes[i].path.as_str() != mp))
    };
    if !(0..ctx.id.node.at.len()).any(place_changed) {
        return;
    }
    for (ident, m) in merged.iter_mut().enumerate() {
        let Some(out) = m.as_mut().map(|m| &mut m.out).filter(|o| o.whole.is_none()) else {
            continue;
        };
        let Some(holder_out) = merged_path.get(ident).and_then(Option::as_deref) else {
            continue;
        };
        let at = ctx.id.node.at[ident];
        let sec_of = |s: usize| at[s].map(|i| &sc[s].doc.sections[sc[s].nodes[i].section]);
        for line in out.lines.iter_mut() {
            let Line::Src((side, r)) = line else { continue };
            let side = *side;
            let text = sc[side].doc.slice(r);
            if !text.contains("NodePath(") || text.contains("Resource(") {
                continue;
            }
            let Some(key) = sec_of(side)
                .and_then(|sec| sec.props.iter().find(|p| p.line == *r))
                .map(|p| &p.key)
            else {
                continue;
            };
            // Read the line against the tree it was written in: base when the line is
            // base's (neither side changed it), else its own side, else a side with the
            // very same line (when its own side no longer has the node it names).
            for s in [B, side, O, T] {
                let same_line = s == side
                    || sec_of(s)
                        .and_then(|sec| sec.prop(key))
                        .is_some_and(|p| sc[s].doc.slice(&p.line) == text);
                let Some(hi) = at[s].filter(|_| same_line) else {
                    continue;
                };
                let holder_src = sc[s].nodes[hi].path.as_str();
                let (paths, of) = (&ctx.paths[s], &ctx.id.node.of[s]);
                let locate = |p: &str| -> Option<String> {
                    let &i = paths.get(p)?;
                    merged_path
                        .get(*of.get(i)?)?
                        .as_ref()
                        .map(|p| p.to_string())
                };
                if !resolves(text, holder_src, &locate) {
                    continue;
                }
                if let Some(mut new) = rewrite(text, holder_src, holder_out, &locate) {
                    if !new.ends_with('\n') {
                        new.push('\n');
                    }
                    ctx.decisions.push(Decision::NodePathFollowed {
                        node: holder_out.to_string(),
                        from: text.trim_end().to_string(),
                        to: new.trim_end().to_string(),
                    });
                    *line = Line::Lit(new);
                }
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_paths() {
        assert_eq!(resolve(".", "Player").as_deref(), Some("Player"));
        assert_eq!(resolve("Enemy", "../Player").as_deref(), Some("Player"));
        assert_eq!(resolve("A/B", "../../C/D").as_deref(), Some("C/D"));
        assert_eq!(resolve("A", "..").as_deref(), Some("."));
        assert_eq!(resolve("A", ".").as_deref(), Some("A"));
        assert_eq!(resolve(".", ".."), None, "above the root");
        assert_eq!(resolve(".", "/root/Main"), None, "absolute");
        assert_eq!(resolve(".", "%Health"), None, "scene-unique name");
        assert_eq!(resolve(".", ""), None, "empty path");
    }

    #[test]
    fn relative_paths_as_godot_writes_them() {
        assert_eq!(relative(".", "Player"), "Player");
        assert_eq!(relative("Enemy", "Player"), "../Player");
        assert_eq!(relative("A/B", "A/C/D"), "../C/D");
        assert_eq!(relative("A/B", "."), "../..");
        assert_eq!(relative("A", "A"), ".");
        assert_eq!(relative("A", "A/B"), "B");
    }

    fn renamed(p: &str) -> Option<String> {
        // Player was renamed Hero; everything else kept its place.
        Some(match p.strip_prefix("Player") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("Hero{rest}"),
            _ => p.to_string(),
        })
    }

    #[test]
    fn follows_a_rename_and_keeps_subnames() {
        let line = "target = NodePath(\"../Player/Sprite:modulate:a\")";
        assert_eq!(
            rewrite(line, "Enemy", "Enemy", &renamed).as_deref(),
            Some("target = NodePath(\"../Hero/Sprite:modulate:a\")")
        );
    }

    #[test]
    fn follows_a_moved_holder() {
        // Enemy moved under Group; its path to Player gains one step.
        let line = "target = NodePath(\"../Player\")";
        let locate = |p: &str| Some(p.to_string());
        assert_eq!(
            rewrite(line, "Enemy", "Group/Enemy", &locate).as_deref(),
            Some("target = NodePath(\"../../Player\")")
        );
    }

    #[test]
    fn rewrites_every_path_in_a_value() {
        let line = "targets = Array[NodePath]([NodePath(\"Player\"), NodePath(\"Other\")])";
        assert_eq!(
            rewrite(line, ".", ".", &renamed).as_deref(),
            Some("targets = Array[NodePath]([NodePath(\"Hero\"), NodePath(\"Other\")])")
        );
    }

    #[test]
    fn leaves_what_it_cannot_resolve() {
        let none = |_: &str| None;
        for line in [
            "a = NodePath(\"/root/Player\")",
            "a = NodePath(\"%Player\")",
            "a = NodePath(\"\")",
            "a = NodePath(\"../../..\")",
            "a = \"NodePath(\\\"Player\\\")\"",
            "a = MyNodePath(\"Player\")",
            "a = NodePath(\"Pla\\\"yer\")",
            "a = NodePath(\"unterminated",
        ] {
            assert_eq!(rewrite(line, "Enemy", "Enemy", &renamed), None, "{line}");
            assert_eq!(rewrite(line, "Enemy", "Moved/Enemy", &none), None, "{line}");
        }
        assert!(resolves("a = NodePath(\"/root/x\")", "Enemy", &none));
        assert!(
            !resolves("a = NodePath(\"../..\")", "Enemy", &renamed),
            "above the root"
        );
        assert!(!resolves("a = NodePath(\"../Player\")", "Enemy", &none));
        assert!(resolves("a = NodePath(\"../Player\")", "Enemy", &renamed));
        // A path that still reaches its node, however it is spelled, is kept as written.
        let line = "a = NodePath(\"./../Other\")";
        assert_eq!(rewrite(line, "Enemy", "Enemy", &renamed), None);
    }
}
