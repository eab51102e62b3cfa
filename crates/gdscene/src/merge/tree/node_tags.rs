//! A node's `[node ...]` line: its fields (name and parent apart) merged three-way when
//! both sides kept the node, and the line rebuilt in Godot's field order once the merged
//! name, parent path and fields differ from the side it is printed from. Which nodes
//! stay, and where, is left to [`crate::merge::tree::nodes`] and [`crate::merge::shared::merged::MergedPaths`].

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{field_text_cow, Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::{Chunk, Src, TagOut};
use crate::syntax::Section;
use crate::write::section::NODE_FIELDS;

/// The merged fields of a node both sides kept.
pub(in crate::merge) struct MergedFields<'a> {
    /// Each field: from a side, or `None` when the merge writes it (groups).
    pub(in crate::merge) list: Vec<(&'a str, Option<Src>)>,
    /// Groups the merge writes.
    pub(in crate::merge) groups: Option<String>,
    /// A field conflicted (already reported).
    pub(in crate::merge) conflict: bool,
}

/// Merge the fields of a node's tag, key by key in the order the sides first write
/// them; `unique_id` three-way, ours' when both changed it.
pub(in crate::merge) fn merge_fields<'a>(
    ctx: &mut Ctx<'a>,
    secs: [Option<usize>; 3],
    location: &dyn Fn() -> String,
) -> MergedFields<'a> {
    let sc = ctx.sc;
    let godot3 = sc[O].is_godot3();
    let mut m = MergedFields {
        list: Vec::new(),
        groups: None,
        conflict: false,
    };
    for key in field_keys(ctx, secs) {
        if key == "name" || key == "parent" {
            continue;
        }
        let v = |s: usize| {
            secs[s].and_then(|si| crate::merge::shared::context::field_src(sc[s], s, si, key))
        };
        let (fb, fo, ft) = (v(B), v(O), v(T));
        if key == "groups" {
            let (field, written) = ctx.merge_groups_field([&fb, &fo, &ft], godot3);
            if written.is_some() {
                m.groups = written;
            }
            m.list.push((key, field));
            continue;
        }
        // Two different new unique_ids for one node (and, for an entry inside an
        // instance both sides re-imported, two new id paths to it): ours', consistently.
        let p = match ctx.pick_same(&fb, &fo, &ft) {
            Pick::Conflict if key == "unique_id" => Pick::Ours,
            Pick::Conflict if key == "parent_id_path" => {
                let theirs = ft
                    .as_ref()
                    .map(|s| ctx.text(s).to_string())
                    .unwrap_or_default();
                let node = location()
                    .trim_start_matches("node ")
                    .trim_matches('"')
                    .to_string();
                ctx.decisions
                    .push(Decision::NodeIdPathOursKept { node, theirs });
                Pick::Ours
            }
            p => p,
        };
        match p {
            Pick::Ours => m.list.push((key, fo)),
            Pick::Theirs => m.list.push((key, ft)),
            Pick::Conflict => {
                m.conflict = true;
                ctx.value_conflict(location(), Some(format!("[node] {key}")), [&fb, &fo, &ft]);
                m.list.push((key, fo));
            }
        }
    }
    m
}

/// Every field key of the node on any side, in first-seen order.
fn field_keys<'a>(ctx: &Ctx<'a>, secs: [Option<usize>; 3]) -> Vec<&'a str> {
    let mut keys: Vec<&str> = Vec::new();
    for (s, sec) in secs.into_iter().enumerate() {
        if let Some(si) = sec {
            for f in &ctx.sec(s, si).tag.fields {
                if !keys.contains(&f.key.as_str()) {
                    keys.push(f.key.as_str());
                }
            }
        }
    }
    keys
}

/// Rebuild the tags of nodes whose fields, name or parent path in the result differ
/// from the side their tag is printed from.
pub(in crate::merge) fn rebuild(ctx: &Ctx, merged: &mut [Option<MergedNode>], paths: &MergedPaths) {
    for (ident, m) in merged.iter_mut().enumerate() {
        let Some(m) = m.as_mut() else { continue };
        if m.out.whole.is_some() || m.tag_conflict {
            continue;
        }
        let Some((side, fields)) = &m.fields else {
            continue;
        };
        let side = *side;
        let Some(si) = ctx.id.node.at[ident][side] else {
            continue;
        };
        let sec_index = printed_section(ctx, m, side, si);
        let sec = ctx.sec(side, sec_index);
        let want_parent = paths.parent_text(&m.parent);
        let cur_parent = sec
            .tag
            .field("parent")
            .map(|r| field_text_cow(&ctx.sc[side].doc, &r));
        if same_fields(sec, side, fields.as_deref())
            && want_parent == cur_parent
            && (fields.is_none() || same_name(ctx, sec, side, m.name))
        {
            continue;
        }
        let own;
        let fields: &[(&str, Option<Src>)] = match fields {
            Some(f) => f,
            None => {
                own = own_fields(sec, side);
                &own
            }
        };
        let list = tag_fields(m.name, fields, m.groups.as_deref(), want_parent.as_deref());
        m.out.tag = TagOut::Fields("node".into(), list);
        m.out.verbatim = None;
    }
}

/// The section node `si` of `side` is printed from: its origin's, which
/// [`crate::merge::tree::nodes`] took from that node (read there, not from the node
/// again: by this pass the nodes of a big scene are cold, and reading one cost a cache
/// miss per node).
fn printed_section(ctx: &Ctx, m: &MergedNode, side: usize, si: usize) -> usize {
    m.out
        .origin
        .get(side)
        .unwrap_or_else(|| ctx.sc[side].nodes[si].section)
}

/// Whether `name` is the name `side`'s tag writes. Asked only of a node whose fields are
/// `side`'s own (`(side, None)`): such a node is `side`'s node as it is, its name read
/// from this very tag, so the answer is yes unless the fields were merged (comparing
/// the name read it from a cold node: a cache miss for every node of a big scene).
fn same_name(ctx: &Ctx, sec: &Section, side: usize, name: &str) -> bool {
    let cur_name = sec
        .tag
        .field("name")
        .map(|r| field_text_cow(&ctx.sc[side].doc, &r))
        .unwrap_or_default();
    name == cur_name
}

/// Whether the fields (name and parent apart) are exactly the section's own.
fn same_fields(sec: &Section, side: usize, fields: Option<&[(&str, Option<Src>)]>) -> bool {
    let count = sec.tag.fields.len() + usize::from(sec.tag.field("parent").is_none());
    match fields {
        Some(fields) => {
            fields.len() + 2 == count
                && fields.iter().all(|(k, v)| match v {
                    Some((s, r)) => *s == side && sec.tag.field(k).as_ref() == Some(r),
                    None => false,
                })
        }
        None => {
            let own = sec
                .tag
                .fields
                .iter()
                .filter(|f| f.key != "name" && f.key != "parent");
            own.clone().count() + 2 == count
                && own
                    .into_iter()
                    .all(|f| sec.tag.field(&f.key) == Some(f.value.range()))
        }
    }
}

/// A side's tag fields, name and parent apart.
fn own_fields(sec: &Section, side: usize) -> Vec<(&str, Option<Src>)> {
    sec.tag
        .fields
        .iter()
        .filter(|f| f.key != "name" && f.key != "parent")
        .map(|f| (f.key.as_str(), Some((side, f.value.range()))))
        .collect()
}

/// The fields of a rebuilt `[node]` line, in Godot's order.
fn tag_fields(
    name: &str,
    fields: &[(&str, Option<Src>)],
    groups: Option<&str>,
    parent: Option<&str>,
) -> Vec<(String, Chunk)> {
    let quoted = |s: &str| Chunk::Lit(format!("\"{}\"", crate::write::c_escape(s)));
    let mut list: Vec<(String, Chunk)> = vec![("name".into(), quoted(name))];
    for (k, v) in fields {
        match v {
            Some(src) => list.push((k.to_string(), Chunk::Src(src.clone()))),
            None if *k == "groups" => {
                if let Some(text) = groups {
                    list.push((k.to_string(), Chunk::Lit(text.to_string())));
                }
            }
            None => {}
        }
    }
    if let Some(p) = parent {
        list.push(("parent".into(), quoted(p)));
    }
    list.sort_by_key(|(k, _)| {
        NODE_FIELDS
            .iter()
            .position(|f| f == k)
            .unwrap_or(NODE_FIELDS.len())
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scene;

    const BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"B\" type=\"Node2D\" parent=\"A\"]\nposition = Vector2(1, 2)\n\n[node name=\"C\" type=\"Node2D\" parent=\"A\"]\n";

    /// What [`rebuild`] no longer reads from the node: the section a node is printed
    /// from is its origin's, and a node with `side`'s own fields carries the name
    /// `side`'s tag writes. Checked on every node of merges that rename, move, add,
    /// escape a name and edit fields.
    #[test]
    fn a_printed_node_s_origin_and_name_are_its_side_s() {
        let renamed = BASE.replace("name=\"C\"", "name=\"C2\"");
        let escaped = BASE.replace("name=\"B\"", "name=\"B\\\"q\"");
        let moved = BASE.replace(
            "name=\"C\" type=\"Node2D\" parent=\"A\"",
            "name=\"C\" type=\"Node2D\" parent=\".\"",
        );
        let added = format!("{BASE}\n[node name=\"D\" type=\"Label\" parent=\"A\"]\n");
        let field = BASE.replace(
            "name=\"B\" type=\"Node2D\"",
            "name=\"B\" type=\"Node2D\" index=\"0\"",
        );
        let sides = [BASE.to_string(), renamed, escaped, moved, added, field];
        let mut own = 0;
        for o in &sides {
            for t in &sides {
                let s = [BASE, o.as_str(), t.as_str()]
                    .map(|x| Scene::parse(x.as_bytes()).expect("parses"));
                let sc = [&s[0], &s[1], &s[2]];
                let mut ctx = Ctx::new(sc, crate::merge::identity::match_all(sc));
                let nodes = crate::merge::tree::nodes::decide(&mut ctx);
                for (ident, m) in nodes.merged.iter().enumerate() {
                    let Some(m) = m.as_ref() else { continue };
                    let Some((side, fields)) = &m.fields else {
                        continue;
                    };
                    let Some(si) = ctx.id.node.at[ident][*side] else {
                        continue;
                    };
                    let sec = ctx.sc[*side].nodes[si].section;
                    assert_eq!(printed_section(&ctx, m, *side, si), sec);
                    if fields.is_none() {
                        own += 1;
                        assert!(
                            same_name(&ctx, ctx.sec(*side, sec), *side, m.name),
                            "{o}\n{t}"
                        );
                    }
                }
            }
        }
        assert!(own > 0);
    }
}
