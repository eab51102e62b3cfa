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
//! scene-unique names (`%Name`, [`crate::merge::values::unique_paths`]'), paths into instanced scenes,
//! and paths that leave the scene.
//!
//! Where each node ends up is left to [`crate::merge::shared::merged::MergedPaths`].

use crate::merge::decisions::Decision;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::Line;
use memchr::memmem::Finder;
use std::sync::LazyLock;

/// The search for `NodePath(`, built once: asked of every property line of a big scene,
/// where `str::contains` would build a searcher per line.
static NODE_PATH_CALL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"NodePath("));

/// The search for `Resource(`, the call `ExtResource(` and `SubResource(` share.
static RESOURCE_CALL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"Resource("));

/// Whether `text` spells `NodePath(` (as `text.contains("NodePath(")`).
pub(in crate::merge) fn has_node_path_call(text: &str) -> bool {
    NODE_PATH_CALL.find(text.as_bytes()).is_some()
}

/// Whether `text` spells `Resource(` (as `text.contains("Resource(")`).
pub(in crate::merge) fn has_resource_call(text: &str) -> bool {
    RESOURCE_CALL.find(text.as_bytes()).is_some()
}

/// Where each side's node sections lie (the first one's start to the last one's end)
/// and whether that stretch spells `NodePath(`, one search each: a node's line taken
/// from inside a stretch that spells none holds no NodePath for [`follow_node_paths`]
/// to follow (a side's resources, mesh data mostly, are not searched).
pub(in crate::merge) struct NodePathSides {
    /// Each side's stretch of node sections.
    span: [std::ops::Range<usize>; 3],
    /// Whether it spells `NodePath(`.
    spells: [bool; 3],
}

impl NodePathSides {
    /// The three sides' stretches, searched.
    pub(in crate::merge) fn of(ctx: &Ctx) -> Self {
        // Sections lie in file order: the first and last node sections bound the rest.
        let span = ctx.sc.map(|sc| {
            let first = sc.nodes.iter().map(|n| n.section).min();
            let last = sc.nodes.iter().map(|n| n.section).max();
            let at = |i: Option<usize>| i.and_then(|i| sc.doc.sections.get(i));
            match (at(first), at(last)) {
                (Some(a), Some(b)) => a.span.range().start..b.span.range().end,
                _ => 0..0,
            }
        });
        let spells = [0, 1, 2].map(|s| {
            has_node_path_call(
                ctx.sc[s]
                    .doc
                    .text
                    .get(span[s].clone())
                    .unwrap_or("NodePath("),
            )
        });
        NodePathSides { span, spells }
    }

    /// Whether the line at `r` of `side` may spell `NodePath(`: false only inside a
    /// stretch that spells none.
    pub(in crate::merge) fn may_hold(&self, side: usize, r: &std::ops::Range<usize>) -> bool {
        let span = &self.span[side];
        self.spells[side] || !(span.start <= r.start && r.end <= span.end)
    }

    /// Whether some line of a merged node may spell `NodePath(` (range checks only).
    fn any_in(&self, merged: &[Option<MergedNode>]) -> bool {
        let outs = merged.iter().flatten().map(|m| &m.out);
        outs.filter(|o| o.whole.is_none())
            .flat_map(|o| &o.lines)
            .any(|l| matches!(l, Line::Src((side, r)) if self.may_hold(*side, r)))
    }
}

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
pub(in crate::merge) fn node_paths(text: &str) -> Vec<(usize, usize)> {
    const CTOR: &str = "NodePath(";
    let mut found = Vec::new();
    if !has_node_path_call(text) {
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
pub(in crate::merge) fn path_part(body: &str) -> (&str, &str) {
    match body.find(':') {
        Some(k) => body.split_at(k),
        None => (body, ""),
    }
}

/// Rewrite the `NodePath("…")` values of `text`, read from `holder_src`, to reach the
/// same nodes (moved by `locate` to their place in the result) from `holder_out`: for
/// values read in one tree only (its tests). `None` when nothing changes.
#[cfg(test)]
pub fn rewrite(
    text: &str,
    holder_src: &str,
    holder_out: &str,
    locate: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let targets: Vec<Option<String>> = node_paths(text)
        .into_iter()
        .map(|(start, end)| locate(&resolve(holder_src, path_part(&text[start..end]).0)?))
        .collect();
    rewrite_to(text, holder_out, &targets)
}

/// Rewrite the `NodePath("…")` values of `text` so that the k-th names `targets[k]` (a
/// scene path in the result) from `holder_out`; `None` targets, and paths that already
/// reach their target however they are spelled, stay as written. `None` when nothing
/// changes.
fn rewrite_to(text: &str, holder_out: &str, targets: &[Option<String>]) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for ((start, end), target) in node_paths(text).into_iter().zip(targets) {
        let Some(target_out) = target else { continue };
        let (path, subnames) = path_part(&text[start..end]);
        if resolve(holder_out, path).as_deref() == Some(target_out.as_str()) {
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push_str(&relative(holder_out, target_out));
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
pub(in crate::merge) fn named_nodes(text: &str, holder: &str) -> Vec<String> {
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
/// the line came from had (see [`crate::merge::values::nodepaths`]). Lines that also hold resource
/// references are left alone: their ids are rewritten when printed.
pub(in crate::merge) fn follow_node_paths(
    ctx: &mut Ctx,
    merged: &mut [Option<MergedNode>],
    paths: &MergedPaths,
) {
    // No node's line spells a NodePath: none to follow (nor places to compare).
    let sides = NodePathSides::of(ctx);
    if !sides.any_in(merged) {
        return;
    }
    crate::merge::values::unique_paths::follow_unique_names(ctx, merged, paths, &sides);
    if !any_place_changed(ctx, paths) {
        return;
    }
    for (ident, m) in merged.iter_mut().enumerate() {
        let Some(out) = m.as_mut().map(|m| &mut m.out).filter(|o| o.whole.is_none()) else {
            continue;
        };
        let Some(holder_out) = paths.get(ident) else {
            continue;
        };
        for line in out.lines.iter_mut() {
            let Line::Src((side, r)) = line else { continue };
            if !sides.may_hold(*side, r) {
                continue;
            }
            let text = ctx.sc[*side].doc.slice(r);
            if !has_node_path_call(text) || has_resource_call(text) {
                continue;
            }
            let Some(targets) = merged_targets(ctx, ident, (*side, r), paths) else {
                continue;
            };
            if let Some(mut new) = rewrite_to(text, holder_out, &targets) {
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
        }
    }
}

/// Whether any node's place in the result differs from its place on ours or theirs
/// (else every NodePath still reads as written).
fn any_place_changed(ctx: &Ctx, paths: &MergedPaths) -> bool {
    let sc = ctx.sc;
    (0..ctx.id.node.at.len()).any(|ident| {
        let Some(mp) = paths.get(ident) else {
            return false;
        };
        [O, T]
            .iter()
            .any(|&s| ctx.id.node.at[ident][s].is_some_and(|i| sc[s].nodes[i].path.as_str() != mp))
    })
}

/// Where each `NodePath` of a property line of node `ident` must point in the result
/// (its scene path there; `None`: keep it as written), or `None` when no path needs it.
///
/// A path is read in the tree of the side that wrote it. Each side holding this very
/// line reads it from its own place of the holder; the node it names there is its
/// *meaning* on that side. Meanings merge three-way, like any value: a side that keeps
/// base's meaning yields to the other; both sides holding the line with different
/// meanings, and base too, keep base's. So a path one side moved its holder or target
/// under keeps that side's meaning, and only a target the *other* side moved or renamed
/// is followed. The rule reads the same with the sides swapped.
fn merged_targets(
    ctx: &Ctx,
    ident: usize,
    (side, r): (usize, &std::ops::Range<usize>),
    paths: &MergedPaths,
) -> Option<Vec<Option<String>>> {
    let sc = ctx.sc;
    let at = ctx.id.node.at[ident];
    let text = sc[side].doc.slice(r);
    let sec_of = |s: usize| at[s].map(|i| &sc[s].doc.sections[sc[s].nodes[i].section]);
    let key = &sec_of(side)?.props.iter().find(|p| p.line == *r)?.key;
    let meanings = [B, O, T].map(|s| {
        let holds = s == side
            || sec_of(s)
                .and_then(|sec| sec.prop(key))
                .is_some_and(|p| sc[s].doc.slice(&p.line) == text);
        let holder = at[s].filter(|_| holds)?;
        Some(meanings_on(ctx, s, sc[s].nodes[holder].path.as_str(), text))
    });
    let n = node_paths(text).len();
    let targets: Vec<Option<String>> = (0..n)
        .map(|k| {
            let m = meanings
                .each_ref()
                .map(|v| v.as_ref().map(|v| v.get(k).copied().flatten()));
            let target = merge_meaning(m)?;
            paths.get(target).map(str::to_string)
        })
        .collect();
    targets.iter().any(Option::is_some).then_some(targets)
}

/// The node identity each `NodePath` of `text` names on `side`, read from `holder` (its
/// path there); `None` for a path that names no node of that side.
fn meanings_on(ctx: &Ctx, side: usize, holder: &str, text: &str) -> Vec<Option<usize>> {
    node_paths(text)
        .into_iter()
        .map(|(start, end)| {
            let target = resolve(holder, path_part(&text[start..end]).0)?;
            let &i = ctx.paths[side].get(target.as_str())?;
            ctx.id.node.of[side].get(i).copied()
        })
        .collect()
}

/// The three-way merge of one path's meaning (base, ours, theirs; the outer `None`: the
/// side does not hold the line). `None`: keep the path as written.
pub(in crate::merge) fn merge_meaning(m: [Option<Option<usize>>; 3]) -> Option<usize> {
    match m {
        [_, Some(o), None] => o,
        [_, None, Some(t)] => t,
        [_, Some(o), Some(t)] if o == t => o,
        [Some(b), Some(o), Some(t)] if o == b => t,
        [Some(b), Some(o), Some(t)] if t == b => o,
        [Some(b), Some(_), Some(_)] => b,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line the stretches pass over spells no `NodePath(`; node lines of a scene
    /// whose nodes spell none are passed over, a resource's line outside the stretch
    /// is not.
    #[test]
    fn the_node_stretches_pass_over_only_lines_without_node_paths() {
        use crate::merge::identity::match_all;
        use crate::model::Scene;
        let with = "[gd_scene format=3]\n\n[sub_resource type=\"Animation\" id=\"a\"]\ntracks/0/path = NodePath(\"A\")\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\nx = 1\ntarget = NodePath(\"..\")\n";
        let without = with.replace("target = NodePath(\"..\")", "target = 2");
        for (text, spells) in [(with, true), (without.as_str(), false)] {
            let Ok(sc) = Scene::parse(text.as_bytes()) else {
                panic!("the test scene parses");
            };
            let ctx = Ctx::new([&sc, &sc, &sc], match_all([&sc, &sc, &sc]));
            let sides = NodePathSides::of(&ctx);
            let mut passed = 0;
            for sec in &sc.doc.sections {
                for p in &sec.props {
                    let r = p.line.range();
                    let line = sc.doc.slice(&r);
                    if !sides.may_hold(O, &r) {
                        assert!(!line.contains("NodePath("), "{line}");
                        passed += 1;
                    } else {
                        assert!(spells || line.contains("NodePath("), "{line}");
                    }
                }
            }
            assert_eq!(passed, if spells { 0 } else { 2 });
        }
    }

    /// The prebuilt searches answer as `str::contains` does, on every way a line can
    /// spell, split or miss the words.
    #[test]
    fn the_prebuilt_searches_agree_with_contains() {
        let texts = [
            "",
            "NodePath(",
            "target = NodePath(\"../Player\")\n",
            "p = NodePath (\"x\")",
            "NodePath",
            "x = ExtResource(\"1_a\")",
            "x = [NodePath(\"%A\"), SubResource(\"x1\")]",
            "Resource (",
            "aNodePath(Resource(",
            "NodePat(h Resourc(e",
        ];
        for t in texts {
            assert_eq!(has_node_path_call(t), t.contains("NodePath("), "{t}");
            assert_eq!(has_resource_call(t), t.contains("Resource("), "{t}");
        }
    }

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
        // A path that still reaches its node, however it is spelled, is kept as written.
        let line = "a = NodePath(\"./../Other\")";
        assert_eq!(rewrite(line, "Enemy", "Enemy", &renamed), None);
    }
}
