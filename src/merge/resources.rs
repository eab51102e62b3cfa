//! ext_resources and sub_resources: the results of matching applied (renumbered and
//! deduplicated resources recorded), `[resource]` and sub_resource contents merged, which
//! resources the merged content still uses (orphans dropped, deleted-but-used kept), and
//! each resource's tag. Ids are left to [`super::ids`], order to [`super::order`].

use super::context::{field_src, Ctx, Pick};
use super::matching::{B, O, T};
use super::nodes::MergedNode;
use super::sections::{Chunk, Line, OutSec, Src, TagOut};
use super::Decision;
use crate::model::{FileKind, SectionKind};
use crate::value::{scan_refs_in_text, RefKind};
use std::collections::{BTreeMap, BTreeSet};

/// What one sub_resource references: ext identities, and sub identities in text order.
pub(super) type Refs = (BTreeSet<usize>, Vec<usize>);

/// The resources the result keeps.
pub(super) struct Used {
    /// ext_resource identities kept.
    pub(super) ext: BTreeSet<usize>,
    /// sub_resource identities kept.
    pub(super) sub: BTreeSet<usize>,
    /// Each merged sub_resource's references.
    pub(super) sub_refs: BTreeMap<usize, Refs>,
}

/// Record theirs' sub_resources that matching paired with ours' by content: the same
/// resource added twice, or renumbered by a Godot 3 resave.
pub(super) fn record_sub_matches(ctx: &mut Ctx) {
    let sc = ctx.sc;
    for m in &ctx.id.sub_matches {
        let Some(oi) = ctx.id.sub.at[m.ident][O].filter(|_| m.side == T) else {
            continue;
        };
        let (tr, or) = (&sc[T].sub_resources[m.index], &sc[O].sub_resources[oi]);
        ctx.decisions.push(if m.how.starts_with("identical") {
            Decision::ResourceDeduplicated {
                section: "sub_resource",
                what: format!("{} \"{}\"", tr.type_name, tr.id),
                id: or.id.clone(),
            }
        } else {
            Decision::ResourceMatched {
                type_name: tr.type_name.clone(),
                theirs_id: tr.id.clone(),
                ours_id: or.id.clone(),
                how: m.how,
            }
        });
    }
}

/// The `[resource]` section of a `.tres`, merged key by key.
pub(super) fn merge_resource_section(ctx: &mut Ctx) -> Option<OutSec> {
    let [b, o, t] = ctx.sc;
    if o.kind != FileKind::Resource {
        return None;
    }
    let secs = [b.resource, o.resource, t.resource];
    let lines = ctx.merge_props(secs, &|| "[resource]".to_string());
    secs[O].map(|osec| OutSec {
        kind: SectionKind::Resource,
        verbatim: None,
        tag: TagOut::Src((O, o.doc.sections[osec].tag.span.clone())),
        lines,
        whole: None,
        origin: secs,
    })
}

/// Every sub_resource identity's contents, merged (whether it stays is decided later,
/// by use).
pub(super) fn merge_subs(ctx: &mut Ctx) -> BTreeMap<usize, OutSec> {
    let mut out = BTreeMap::new();
    for ident in 0..ctx.id.sub.at.len() {
        if let Some(sec) = merge_sub(ctx, ident) {
            out.insert(ident, sec);
        }
    }
    out
}

fn merge_sub(ctx: &mut Ctx, ident: usize) -> Option<OutSec> {
    let sc = ctx.sc;
    let at = ctx.id.sub.at[ident];
    let secs = [0, 1, 2].map(|s| at[s].map(|i| sc[s].sub_resources[i].section));
    // A missing side counts as unchanged from base (reachability decides presence).
    let (src_side, lines) = match (secs[O], secs[T]) {
        (Some(_), Some(_)) => {
            let loc = || format!("sub_resource \"{}\"", sc[O].sub_resources[at[O].unwrap_or_default()].id);
            (O, ctx.merge_props(secs, &loc))
        }
        _ => {
            let side = [O, T, B].into_iter().find(|&s| secs[s].is_some())?;
            let si = secs[side]?;
            let lines = sc[side].doc.sections[si].props.iter();
            (side, lines.map(|p| Line::Src((side, p.line.clone()))).collect())
        }
    };
    Some(OutSec {
        kind: SectionKind::SubResource,
        verbatim: None,
        tag: TagOut::Resource {
            side: src_side,
            ident,
            ext: false,
        },
        lines,
        whole: None,
        origin: secs,
    })
}

/// Add the references in a side's text: ext identities into the set, sub identities
/// onto the list, in text order.
fn refs_of(ctx: &Ctx, s: &Src, refs: &mut Refs) {
    let side = s.0;
    let text = ctx.text(s);
    // No reference without the word.
    if !text.contains("Resource") {
        return;
    }
    scan_refs_in_text(text, &mut |k, id| match k {
        RefKind::Ext => {
            if let Some(&i) = ctx.idx[side].ext.get(id) {
                refs.0.insert(ctx.id.ext.of[side][i]);
            }
        }
        RefKind::Sub => {
            if let Some(&i) = ctx.idx[side].sub.get(id) {
                refs.1.push(ctx.id.sub.of[side][i]);
            }
        }
    });
}

/// The references of a section's texts (tag, lines, or whole-section conflict).
fn sec_refs(ctx: &Ctx, out: &OutSec, refs: &mut Refs) {
    let mut each = |s: &Src| refs_of(ctx, s, refs);
    let tag = match &out.tag {
        TagOut::PerSide(inner, _) => inner.as_ref(),
        t => t,
    };
    match tag {
        TagOut::Src(s) => each(s),
        TagOut::Fields(_, f) => {
            for (_, c) in f {
                if let Chunk::Src(s) = c {
                    each(s);
                }
            }
        }
        TagOut::Conflict(x) => x.iter().flatten().for_each(&mut each),
        TagOut::Resource { .. } | TagOut::PerSide(..) => {}
    }
    for l in &out.lines {
        match l {
            Line::Src(s) => each(s),
            Line::Conflict(x) => x.iter().flatten().for_each(&mut each),
            Line::Lit(_) => {}
        }
    }
    if let Some(w) = &out.whole {
        for (s, list) in w.iter().enumerate() {
            for &si in list {
                each(&(s, ctx.sc[s].doc.sections[si].span.clone()));
            }
        }
    }
}

/// Which resources the result keeps: those the merged nodes and `[resource]` use
/// (through sub_resources), those both sides still have, and ext_resources a side
/// added. Dropped and deleted-but-kept resources are recorded.
pub(super) fn used(
    ctx: &mut Ctx,
    nodes: &[Option<MergedNode>],
    resource: Option<&OutSec>,
    subs: &BTreeMap<usize, OutSec>,
) -> Used {
    // Each sub_resource's references, scanned once.
    let sub_refs: BTreeMap<usize, Refs> = subs
        .iter()
        .map(|(&i, out)| {
            let mut r = Refs::default();
            sec_refs(ctx, out, &mut r);
            (i, r)
        })
        .collect();
    let mut from_nodes = Refs::default();
    for out in nodes.iter().flatten().map(|m| &m.out).chain(resource) {
        sec_refs(ctx, out, &mut from_nodes);
    }
    let (mut ext_used, mut work) = from_nodes;
    let mut sub_used: BTreeSet<usize> = BTreeSet::new();
    while let Some(x) = work.pop() {
        if !sub_used.insert(x) {
            continue;
        }
        if let Some((e, w)) = sub_refs.get(&x) {
            ext_used.extend(e);
            work.extend(w);
        }
    }
    let both = |at: [Option<usize>; 3]| at[O].is_some() && at[T].is_some();
    let sub_keep: BTreeSet<usize> = subs
        .keys()
        .copied()
        .filter(|&i| sub_used.contains(&i) || both(ctx.id.sub.at[i]))
        .collect();
    // Refs from kept-but-unused subs.
    for i in sub_keep.difference(&sub_used) {
        if let Some((e, _)) = sub_refs.get(i) {
            ext_used.extend(e);
        }
    }
    record_dropped_subs(ctx, &sub_keep);
    let ext_keep: BTreeSet<usize> = (0..ctx.id.ext.at.len())
        .filter(|&i| {
            let at = ctx.id.ext.at[i];
            ext_used.contains(&i)
                || both(at)
                || (at[B].is_none() && (at[O].is_some() || at[T].is_some()))
        })
        .collect();
    record_exts(ctx, &ext_keep);
    Used {
        ext: ext_keep,
        sub: sub_keep,
        sub_refs,
    }
}

fn record_dropped_subs(ctx: &mut Ctx, keep: &BTreeSet<usize>) {
    let sc = ctx.sc;
    for (i, at) in ctx.id.sub.at.iter().enumerate() {
        if let Some(k) = at[O].filter(|_| !keep.contains(&i)) {
            ctx.decisions.push(Decision::UnusedResourceDropped {
                section: "sub_resource",
                id: sc[O].sub_resources[k].id.clone(),
            });
        }
    }
}

fn record_exts(ctx: &mut Ctx, keep: &BTreeSet<usize>) {
    let sc = ctx.sc;
    for (i, at) in ctx.id.ext.at.iter().enumerate() {
        if let Some(k) = at[O].filter(|_| !keep.contains(&i)) {
            ctx.decisions.push(Decision::UnusedResourceDropped {
                section: "ext_resource",
                id: sc[O].ext_resources[k].id.clone(),
            });
        }
        if keep.contains(&i) && at[B].is_some() && (at[O].is_none() || at[T].is_none()) {
            let side = if at[O].is_some() { O } else { T };
            if let Some(k) = at[side] {
                ctx.decisions.push(Decision::DeletedResourceKept {
                    section: "ext_resource",
                    id: sc[side].ext_resources[k].id.clone(),
                });
            }
        }
    }
}

/// The ext_resource sections, in `order`.
pub(super) fn ext_sections(ctx: &mut Ctx, order: &[usize]) -> Vec<OutSec> {
    let o = ctx.sc[O];
    let mut out = Vec::with_capacity(order.len());
    for &i in order {
        // Ours' section, when the tag stays ours'.
        let sec = ctx.id.ext.at[i][O].map(|k| o.ext_resources[k].section);
        let tag = merge_ext_tag(ctx, i);
        let verbatim = sec.filter(|_| matches!(tag, TagOut::Src((O, _))));
        out.push(OutSec::tag_only(SectionKind::ExtResource, verbatim, tag));
    }
    out
}

/// The sub_resource sections, in `order`: ours' tag for those ours has (ours keeps its
/// ids), and ours' bytes when every line is ours'.
pub(super) fn sub_sections(
    ctx: &Ctx,
    order: &[usize],
    mut subs: BTreeMap<usize, OutSec>,
) -> Vec<OutSec> {
    let o = ctx.sc[O];
    let mut secs = Vec::with_capacity(order.len());
    for &i in order {
        let Some(mut out) = subs.remove(&i) else { continue };
        if let Some(k) = ctx.id.sub.at[i][O] {
            let osec = o.sub_resources[k].section;
            out.tag = TagOut::Src((O, o.doc.sections[osec].tag.span.clone()));
            if out.lines_are(O, &o.doc.sections[osec].props) {
                out.verbatim = Some(osec);
            }
        }
        secs.push(out);
    }
    secs
}

/// An ext_resource's tag: ours' when ours has it (fields theirs changed merged in), else
/// the side's tag with the id assigned when printed.
fn merge_ext_tag(ctx: &mut Ctx, ident: usize) -> TagOut {
    let at = ctx.id.ext.at[ident];
    let sc = ctx.sc;
    let sec = |s: usize| at[s].map(|k| sc[s].ext_resources[k].section);
    match (at[O], at[T]) {
        (Some(_), Some(_)) => {
            let (so, st) = (sec(O).unwrap_or_default(), sec(T).unwrap_or_default());
            let mut changed = false;
            let mut fields: Vec<(String, Chunk)> = Vec::new();
            for f in &sc[O].doc.sections[so].tag.fields {
                if f.key == "id" {
                    fields.push((f.key.to_string(), Chunk::Src((O, f.value.clone()))));
                    continue;
                }
                let v = |s: usize| sec(s).and_then(|x| field_src(sc[s], s, x, &f.key));
                let (fb, fo, ft) = (v(B), v(O), v(T));
                let p = ctx.pick_same(&fb, &fo, &ft);
                match (p, ft) {
                    (Pick::Theirs, Some(t)) => {
                        changed = true;
                        fields.push((f.key.to_string(), Chunk::Src(t)));
                    }
                    (Pick::Theirs, None) => changed = true,
                    _ => fields.push((f.key.to_string(), Chunk::Src((O, f.value.clone())))),
                }
            }
            // Fields only theirs has (a uid added by a 4.4 resave).
            for f in &sc[T].doc.sections[st].tag.fields {
                if sc[O].doc.sections[so].tag.field(&f.key).is_none()
                    && sec(B)
                        .and_then(|x| field_src(sc[B], B, x, &f.key))
                        .is_none()
                {
                    changed = true;
                    let pos = if f.key == "uid" {
                        fields
                            .iter()
                            .position(|(k, _)| k == "path")
                            .unwrap_or(fields.len())
                    } else {
                        fields.len()
                    };
                    fields.insert(pos, (f.key.to_string(), Chunk::Src((T, f.value.clone()))));
                }
            }
            if changed {
                TagOut::Fields("ext_resource".into(), fields)
            } else {
                TagOut::Src((O, sc[O].doc.sections[so].tag.span.clone()))
            }
        }
        (Some(_), None) => TagOut::Src((
            O,
            sc[O].doc.sections[sec(O).unwrap_or_default()]
                .tag
                .span
                .clone(),
        )),
        _ => {
            let side = if at[T].is_some() { T } else { B };
            TagOut::Resource {
                side,
                ident,
                ext: true,
            }
        }
    }
}
