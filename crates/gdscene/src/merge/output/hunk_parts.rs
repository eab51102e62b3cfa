//! What a side's part of a hunk prints in place of that side's own bytes, and which
//! nodes must wait before they are printed. A side's sections inside a whole-section
//! hunk (delete against modify, rival nodes, a restored parent) and a side's `[node]`
//! line in a tag conflict are taken from that side, but their `name=`/`parent=` spell
//! paths of that side's tree: here they are respelled as the rest of the result is
//! spelled in that side's part (the spellings come from [`crate::merge::output::spelling`]), so that
//! picking the side gives parents that exist. A node whose parent differs between the
//! parts (it hangs under a node the other side deleted or moved) waits until every
//! part's parent is printed. Deciding what conflicts is left to [`crate::merge::tree::nodes`];
//! printing to [`crate::merge::output::print`].

use crate::merge::shared::context::{Ctx, ParentRef};
use crate::merge::shared::idents::{O, T};
use crate::merge::shared::merged::{node_at_section, printed_in, MergedNode};
use crate::merge::shared::sections::TagFields;
use crate::model::join_path;

/// What the parts of the hunks print differently from the sides' bytes.
#[derive(Default)]
pub(in crate::merge) struct HunkParts {
    /// `[node]` and `[sub_resource]` tags whose fields are written differently.
    pub(in crate::merge) fields: TagFields,
    /// By node identity: the nodes printed before it in the result (its parent), in
    /// ours' part and in theirs' part; empty when no part's parent differs.
    pub(in crate::merge) waits: Vec<[Option<usize>; 3]>,
}

impl HunkParts {
    /// Respell the hunks' parts and list the waits, given each side's spelling of
    /// every node's path (`spelled`, by identity) and its place in that side's part.
    pub(in crate::merge) fn of<'a>(
        ctx: &Ctx<'a>,
        merged: &[Option<MergedNode<'a>>],
        spelled: &[Vec<String>; 3],
        place: &dyn Fn(usize, &MergedNode<'a>, usize) -> (ParentRef, &'a str),
    ) -> HunkParts {
        let mut parts = HunkParts {
            fields: ctx.hunk_fields.clone(),
            waits: Vec::new(),
        };
        let printed_in = printed_in(ctx, merged);
        let printer = |p: usize| printed_in.get(&p).copied().unwrap_or(p);
        parts.waits = vec![[None; 3]; merged.len()];
        for (x, m) in merged.iter().enumerate() {
            let Some(m) = m else { continue };
            match &m.out.whole {
                Some(w) => {
                    for s in [O, T] {
                        respell_whole_part(ctx, s, &w[s], &spelled[s], &mut parts.fields);
                    }
                }
                None => {
                    let own = [O, T].map(|s| place(x, m, s));
                    if m.tag_conflict {
                        for (s, (parent, name)) in [O, T].into_iter().zip(&own) {
                            respell_tag(ctx, x, s, (parent, name), &spelled[s], &mut parts.fields);
                        }
                    }
                    let [(po, _), (pt, _)] = &own;
                    parts.waits[x] = [m.parent.anchor(), po.anchor(), pt.anchor()]
                        .map(|a| a.map(printer).filter(|&a| a != x));
                }
            }
        }
        parts
    }
}

/// A side's `[node]` line in a tag conflict: its `name=` and `parent=` as that side's
/// part spells them.
fn respell_tag(
    ctx: &Ctx,
    x: usize,
    s: usize,
    (parent, name): (&ParentRef, &str),
    spelled: &[String],
    fields: &mut TagFields,
) {
    let Some(k) = ctx.id.node.at[x][s] else {
        return;
    };
    let n = &ctx.sc[s].nodes[k];
    let mut put = Vec::new();
    if let Some(want) = parent_text(parent, spelled) {
        if n.parent.as_deref() != Some(want.as_str()) {
            put.push(("parent", quoted(&want)));
        }
    }
    if n.name.as_str() != name {
        put.push(("name", quoted(name)));
    }
    if !put.is_empty() {
        let tag = ctx.sc[s].doc.sections[n.section].tag.span.start();
        fields.entry((s, tag)).or_default().extend(put);
    }
}

/// Side `s`'s sections in a whole-section hunk, the node first, then the descendants
/// it carries: the node's `parent=` as `s`'s part spells its parent, and each
/// descendant's `parent=` under the node's path so spelled.
fn respell_whole_part(
    ctx: &Ctx,
    s: usize,
    secs: &[usize],
    spelled: &[String],
    fields: &mut TagFields,
) {
    let Some(&top_sec) = secs.first() else { return };
    let Some(top) = node_at_section(ctx, s, top_sec) else {
        return;
    };
    let sc = ctx.sc[s];
    let node = &sc.nodes[top];
    let Some(parent) = parent_text(&ctx.parent_ref(s, top), spelled) else {
        return;
    };
    let mut put = |k: usize, want: String| {
        let n = &sc.nodes[k];
        if n.parent.as_deref() != Some(want.as_str()) {
            let tag = sc.doc.sections[n.section].tag.span.start();
            fields
                .entry((s, tag))
                .or_default()
                .push(("parent", quoted(&want)));
        }
    };
    let top_path = join_path(&parent, &node.name);
    put(top, parent);
    let raw_top = node.path.as_str();
    for &si in &secs[1..] {
        let Some(k) = node_at_section(ctx, s, si) else {
            continue;
        };
        let Some(raw) = sc.nodes[k].parent.as_deref() else {
            continue;
        };
        let rest = if raw == raw_top {
            Some("")
        } else {
            raw.strip_prefix(raw_top).filter(|r| r.starts_with('/'))
        };
        if let Some(rest) = rest {
            put(k, format!("{top_path}{rest}"));
        }
    }
}

/// The `parent=` text of a node hanging at `parent`, with the given paths (`None` for
/// the root).
pub(in crate::merge) fn parent_text(parent: &ParentRef, spelled: &[String]) -> Option<String> {
    let path = |i: usize| spelled.get(i).map_or(".", String::as_str);
    match parent {
        ParentRef::Root => None,
        ParentRef::Outside(p) => Some(p.clone()),
        ParentRef::Inside { anchor, rest } => Some(join_path(path(*anchor), rest)),
        ParentRef::Node(p) => Some(path(*p).to_string()),
    }
}

/// `text` as a quoted field value.
pub(in crate::merge) fn quoted(text: &str) -> String {
    format!("\"{}\"", crate::write::c_escape(text))
}
