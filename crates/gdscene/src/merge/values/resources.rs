//! ext_resources and sub_resources: the results of matching applied (renumbered and
//! deduplicated resources recorded), `[resource]` and sub_resource contents merged, which
//! resources the merged content still uses (orphans dropped, deleted-but-used kept), and
//! each resource's tag. Ids are left to [`crate::merge::ids::assign`], order to [`crate::merge::tree::order`].

use super::section_refs::{refs_of, sec_refs, Scan};
use crate::merge::decisions::Decision;
use crate::merge::shared::context::{field_src, Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{Chunk, Line, Origin, OutSec, Src, TagOut};
use crate::model::{FileKind, SectionKind};
use std::collections::{BTreeMap, BTreeSet};

/// What one sub_resource references: ext identities, and sub identities in text order.
pub(in crate::merge) type Refs = (BTreeSet<usize>, Vec<usize>);

/// The resources the result keeps.
pub(in crate::merge) struct Used {
    /// ext_resource identities kept.
    pub(in crate::merge) ext: BTreeSet<usize>,
    /// sub_resource identities kept.
    pub(in crate::merge) sub: BTreeSet<usize>,
    /// Each merged sub_resource's references.
    pub(in crate::merge) sub_refs: BTreeMap<usize, Refs>,
}

/// Record theirs' sub_resources that matching paired with ours' by content: the same
/// resource added twice, or renumbered by a Godot 3 resave.
pub(in crate::merge) fn record_sub_matches(ctx: &mut Ctx) {
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
pub(in crate::merge) fn merge_resource_section(ctx: &mut Ctx) -> Option<OutSec> {
    let [b, o, t] = ctx.sc;
    if o.kind != FileKind::Resource {
        return None;
    }
    let secs = [b.resource, o.resource, t.resource];
    let lines = ctx.merge_props(secs, &|| "[resource]".to_string());
    secs[O].map(|osec| OutSec {
        kind: SectionKind::Resource,
        verbatim: None,
        tag: TagOut::Src((O, o.doc.sections[osec].tag.span.range())),
        lines,
        whole: None,
        origin: Origin::of(secs),
    })
}

/// Every sub_resource identity's contents, merged (whether it stays is decided later,
/// by use).
pub(in crate::merge) fn merge_subs(ctx: &mut Ctx) -> BTreeMap<usize, OutSec> {
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
            let loc = || {
                format!(
                    "sub_resource \"{}\"",
                    sc[O].sub_resources[at[O].unwrap_or_default()].id
                )
            };
            (O, ctx.merge_props(secs, &loc))
        }
        _ => {
            let side = [O, T, B].into_iter().find(|&s| secs[s].is_some())?;
            let si = secs[side]?;
            let lines = sc[side].doc.sections[si].props.iter();
            (
                side,
                lines.map(|p| Line::Src((side, p.line.range()))).collect(),
            )
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
        origin: Origin::of(secs),
    })
}

/// Which resources the result keeps: those the merged nodes and `[resource]` use
/// (through sub_resources), those both sides still have, and ext_resources a side
/// added. Dropped and deleted-but-kept resources are recorded.
pub(in crate::merge) fn used(
    ctx: &mut Ctx,
    nodes: &[Option<MergedNode>],
    resource: Option<&OutSec>,
    subs: &BTreeMap<usize, OutSec>,
) -> Used {
    // Each sub_resource's references, scanned once.
    let mut scan = Scan::all(ctx);
    let sub_refs: BTreeMap<usize, Refs> = subs
        .iter()
        .map(|(&i, out)| {
            let mut r = Refs::default();
            sec_refs(ctx, out, &mut scan, &mut r);
            (i, r)
        })
        .collect();
    // The nodes' references are read as sets (what they reach).
    let mut scan = Scan::as_sets(ctx);
    let mut from_nodes = Refs::default();
    for out in nodes.iter().flatten().map(|m| &m.out).chain(resource) {
        sec_refs(ctx, out, &mut scan, &mut from_nodes);
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
    let orphans = added_unused(ctx, &sub_used);
    let sub_keep: BTreeSet<usize> = subs
        .keys()
        .copied()
        .filter(|&i| sub_used.contains(&i) || both(ctx.id.sub.at[i]) || orphans.contains(&i))
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

/// Sub_resources a side added while leaving them unused in its own file: they stay, as
/// git and the editor's own file keep them (only the merge's own orphans are dropped).
fn added_unused(ctx: &Ctx, merged_use: &BTreeSet<usize>) -> BTreeSet<usize> {
    let mut keep = BTreeSet::new();
    for side in [O, T] {
        let added: Vec<usize> = (0..ctx.sc[side].sub_resources.len())
            .map(|k| ctx.id.sub.of[side][k])
            .filter(|&i| ctx.id.sub.at[i][B].is_none() && !merged_use.contains(&i))
            .collect();
        if added.is_empty() {
            continue;
        }
        let own = own_use(ctx, side);
        keep.extend(added.into_iter().filter(|i| !own.contains(i)));
    }
    keep
}

/// The sub_resource identities a side's own nodes and `[resource]` reach in its file.
fn own_use(ctx: &Ctx, side: usize) -> BTreeSet<usize> {
    let sc = ctx.sc[side];
    let roots = sc.nodes.iter().map(|n| n.section).chain(sc.resource);
    let mut stack: Vec<usize> = roots.flat_map(|s| sub_refs_in(ctx, side, s)).collect();
    let mut reached = BTreeSet::new();
    while let Some(x) = stack.pop() {
        if reached.insert(x) {
            if let Some(k) = ctx.id.sub.at[x][side] {
                stack.extend(sub_refs_in(ctx, side, sc.sub_resources[k].section));
            }
        }
    }
    reached
}

/// Every sub_resource a side had that the result drops: a merge-made orphan (its last
/// user removed by one side, the resource unedited by the other).
fn record_dropped_subs(ctx: &mut Ctx, keep: &BTreeSet<usize>) {
    let sc = ctx.sc;
    for (i, at) in ctx.id.sub.at.iter().enumerate() {
        let side = if at[O].is_some() { O } else { T };
        if let Some(k) = at[side].filter(|_| !keep.contains(&i)) {
            ctx.decisions.push(Decision::UnusedResourceDropped {
                section: "sub_resource",
                id: sc[side].sub_resources[k].id.clone(),
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
pub(in crate::merge) fn ext_sections(ctx: &mut Ctx, order: &[usize]) -> Vec<OutSec> {
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
pub(in crate::merge) fn sub_sections(
    ctx: &Ctx,
    order: &[usize],
    mut subs: BTreeMap<usize, OutSec>,
) -> Vec<OutSec> {
    let o = ctx.sc[O];
    let mut secs = Vec::with_capacity(order.len());
    for &i in order {
        let Some(mut out) = subs.remove(&i) else {
            continue;
        };
        if let Some(k) = ctx.id.sub.at[i][O] {
            let osec = o.sub_resources[k].section;
            out.tag = TagOut::Src((O, o.doc.sections[osec].tag.span.range()));
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
                    fields.push((f.key.to_string(), Chunk::Src((O, f.value.range()))));
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
                    _ => fields.push((f.key.to_string(), Chunk::Src((O, f.value.range())))),
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
                    fields.insert(pos, (f.key.to_string(), Chunk::Src((T, f.value.range()))));
                }
            }
            if changed {
                TagOut::Fields("ext_resource".into(), fields)
            } else {
                TagOut::Src((O, sc[O].doc.sections[so].tag.span.range()))
            }
        }
        (Some(_), None) => TagOut::Src((
            O,
            sc[O].doc.sections[sec(O).unwrap_or_default()]
                .tag
                .span
                .range(),
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

/// Sub_resource identities that `side` edited since base, or that reach one it edited (a
/// material whose texture changed): what a node or property holding them carries changed.
/// Empty for base.
pub(in crate::merge) fn edited_subs(ctx: &Ctx, side: usize) -> BTreeSet<usize> {
    let mut edited = BTreeSet::new();
    if side == B {
        return edited;
    }
    let sc = ctx.sc;
    // Each sub identity -> the sub identities on this side that reference it.
    let mut holders: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, r) in sc[side].sub_resources.iter().enumerate() {
        let ident = ctx.id.sub.of[side][k];
        for x in sub_refs_in(ctx, side, r.section) {
            holders.entry(x).or_default().push(ident);
        }
        if sub_changed(ctx, ident, side) {
            edited.insert(ident);
        }
    }
    let mut work: Vec<usize> = edited.iter().copied().collect();
    while let Some(x) = work.pop() {
        for &h in holders.get(&x).into_iter().flatten() {
            if edited.insert(h) {
                work.push(h);
            }
        }
    }
    edited
}

/// The sub_resource identities a side's section references directly.
pub(in crate::merge) fn sub_refs_in(ctx: &Ctx, side: usize, section: usize) -> Vec<usize> {
    let mut refs = Refs::default();
    for p in &ctx.sec(side, section).props {
        refs_of(ctx, &(side, p.value.range()), &mut refs);
    }
    refs.1
}

/// Whether a sub_resource base had has other properties on `side` (engine equality).
fn sub_changed(ctx: &Ctx, ident: usize, side: usize) -> bool {
    let at = ctx.id.sub.at[ident];
    let (Some(bi), Some(ki)) = (at[B], at[side]) else {
        return false;
    };
    let sc = ctx.sc;
    let bs = ctx.sec(B, sc[B].sub_resources[bi].section);
    let ks = ctx.sec(side, sc[side].sub_resources[ki].section);
    bs.props.len() != ks.props.len()
        || bs.props.iter().any(|p| {
            let kv = ks.prop(&p.key).map(|q| (side, q.value.range()));
            !ctx.same(&Some((B, p.value.range())), &kv)
        })
}

/// A sub_resource's id and type on a side, for reports.
pub(in crate::merge) fn sub_name(ctx: &Ctx, ident: usize, side: usize) -> String {
    let sc = ctx.sc;
    let side = [side, O, T, B]
        .into_iter()
        .find(|&s| ctx.id.sub.at[ident][s].is_some())
        .unwrap_or(side);
    match ctx.id.sub.at[ident][side] {
        Some(k) => {
            let r = &sc[side].sub_resources[k];
            format!("sub_resource \"{}\" ({})", r.id, r.type_name)
        }
        None => "a sub_resource".to_string(),
    }
}

/// A section of the result that can hold a sub_resource by a property.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Holder {
    Node(usize),
    Sub(usize),
    Resource,
}

/// A property one side deleted or changed while the other edited the sub_resource it
/// held (`shape`, `frames`, `anims/jump`, an entry of an AnimationLibrary's `_data`): the
/// property becomes a conflict, so the edit is not dropped as unused. Runs before
/// [`used`]; the sub_resource then stays through the conflict's lines.
pub(in crate::merge) fn keep_held_edits(
    ctx: &mut Ctx,
    nodes: &mut [Option<MergedNode>],
    mut resource: Option<&mut OutSec>,
    subs: &mut BTreeMap<usize, OutSec>,
) {
    for side in [O, T] {
        let other = if side == O { T } else { O };
        // Only a sub_resource base had, this side kept and the other dropped can be lost.
        let dropped =
            |at: &[Option<usize>; 3]| at[B].is_some() && at[side].is_some() && at[other].is_none();
        if !ctx.id.sub.at.iter().any(dropped) {
            continue;
        }
        let edited = edited_subs(ctx, side);
        if edited.is_empty() {
            continue;
        }
        let reached = reached_subs(ctx, nodes, resource.as_deref(), subs);
        let lost: BTreeSet<usize> = edited
            .into_iter()
            .filter(|&s| !reached.contains(&s) && ctx.id.sub.at[s][other].is_none())
            .collect();
        for (holder, key, sub) in holders_on(ctx, side, &lost) {
            let out = match holder {
                Holder::Node(i) => nodes
                    .get_mut(i)
                    .and_then(Option::as_mut)
                    .map(|m| &mut m.out),
                Holder::Sub(i) if reached.contains(&i) => subs.get_mut(&i),
                Holder::Sub(_) => None,
                Holder::Resource => resource.as_deref_mut(),
            };
            let Some(out) = out.filter(|o| o.whole.is_none()) else {
                continue;
            };
            let secs = holder_sections(ctx, holder);
            if hold_line(ctx, out, secs, &key, side) {
                let loc = holder_location(ctx, holder, side);
                let what = format!(
                    "{key} (one side removed it, the other edited {})",
                    sub_name(ctx, sub, side)
                );
                let lines = [B, O, T].map(|s| prop_line(ctx, secs, s, &key));
                ctx.value_conflict(loc, Some(what), [&lines[0], &lines[1], &lines[2]]);
            }
        }
    }
}

/// The sub_resources the merged nodes and `[resource]` reach.
fn reached_subs(
    ctx: &Ctx,
    nodes: &[Option<MergedNode>],
    resource: Option<&OutSec>,
    subs: &BTreeMap<usize, OutSec>,
) -> BTreeSet<usize> {
    let mut work = Refs::default();
    // What the nodes reach, read as sets; each sub_resource's own texts then read anew.
    let mut scan = Scan::as_sets(ctx);
    for out in nodes.iter().flatten().map(|m| &m.out).chain(resource) {
        sec_refs(ctx, out, &mut scan, &mut work);
    }
    let mut scan = Scan::all(ctx);
    let mut reached = BTreeSet::new();
    let mut stack = work.1;
    while let Some(x) = stack.pop() {
        if reached.insert(x) {
            if let Some(out) = subs.get(&x) {
                let mut r = Refs::default();
                sec_refs(ctx, out, &mut scan, &mut r);
                stack.extend(r.1);
            }
        }
    }
    reached
}

/// Every property of `side` that references one of `lost` directly: its section, key,
/// and the sub_resource, each once, in section order.
fn holders_on(ctx: &Ctx, side: usize, lost: &BTreeSet<usize>) -> Vec<(Holder, String, usize)> {
    let sc = ctx.sc[side];
    let mut found = Vec::new();
    if lost.is_empty() {
        return found;
    }
    let nodes = sc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (Holder::Node(ctx.id.node.of[side][i]), n.section));
    let subs = sc
        .sub_resources
        .iter()
        .enumerate()
        .map(|(i, r)| (Holder::Sub(ctx.id.sub.of[side][i]), r.section));
    let res = sc.resource.map(|s| (Holder::Resource, s));
    for (holder, section) in subs.chain(nodes).chain(res) {
        for p in &ctx.sec(side, section).props {
            let mut refs = Refs::default();
            refs_of(ctx, &(side, p.value.range()), &mut refs);
            if let Some(&s) = refs.1.iter().find(|s| lost.contains(s)) {
                found.push((holder, p.key.to_string(), s));
            }
        }
    }
    found
}

/// A holder's section on each side.
fn holder_sections(ctx: &Ctx, holder: Holder) -> [Option<usize>; 3] {
    let sc = ctx.sc;
    [B, O, T].map(|s| match holder {
        Holder::Node(i) => ctx.id.node.at[i][s].map(|k| sc[s].nodes[k].section),
        Holder::Sub(i) => ctx.id.sub.at[i][s].map(|k| sc[s].sub_resources[k].section),
        Holder::Resource => sc[s].resource,
    })
}

fn holder_location(ctx: &Ctx, holder: Holder, side: usize) -> String {
    let sc = ctx.sc;
    match holder {
        Holder::Node(i) => {
            let s = if ctx.id.node.at[i][O].is_some() {
                O
            } else {
                side
            };
            let path = ctx.id.node.at[i][s].map_or(String::new(), |k| {
                let n = &sc[s].nodes[k];
                if n.path == "." {
                    n.name.to_string()
                } else {
                    n.path.to_string()
                }
            });
            format!("node \"{path}\"")
        }
        Holder::Sub(i) => sub_name(ctx, i, O),
        Holder::Resource => "[resource]".to_string(),
    }
}

fn prop_line(ctx: &Ctx, secs: [Option<usize>; 3], side: usize, key: &str) -> Option<Src> {
    let sec = secs[side]?;
    ctx.sec(side, sec).prop(key).map(|p| (side, p.line.range()))
}

/// The key of a line of the result, as the engine reads a bare key.
fn line_key<'t>(ctx: &'t Ctx, line: &'t Line) -> Option<&'t str> {
    let text = match line {
        Line::Src(s) => ctx.text(s),
        Line::Lit(t) | Line::Idents(t) => t.as_str(),
        Line::Conflict(_) | Line::Texts(_) => return None,
    };
    text.split_once('=').map(|(k, _)| k.trim())
}

/// Put the three sides' lines for `key` in conflict in `out`: in place of the merged line,
/// else after the line that precedes it on `side`. `false` when it already conflicts.
fn hold_line(
    ctx: &Ctx,
    out: &mut OutSec,
    secs: [Option<usize>; 3],
    key: &str,
    side: usize,
) -> bool {
    let lines = [B, O, T].map(|s| prop_line(ctx, secs, s, key));
    let conflict = Line::Conflict(Box::new(lines));
    if out.lines.iter().any(|l| matches!(l, Line::Conflict(x) if x.iter().flatten().any(|s| line_key(ctx, &Line::Src(s.clone())) == Some(key)))) {
        return false;
    }
    out.verbatim = None;
    if let Some(i) = out.lines.iter().position(|l| line_key(ctx, l) == Some(key)) {
        out.lines[i] = conflict;
        return true;
    }
    let before: Vec<&str> = secs[side]
        .map(|s| {
            ctx.sec(side, s)
                .props
                .iter()
                .map(|p| p.key.as_str())
                .take_while(|k| *k != key)
                .collect()
        })
        .unwrap_or_default();
    let at = out
        .lines
        .iter()
        .rposition(|l| line_key(ctx, l).is_some_and(|k| before.contains(&k)))
        .map_or(0, |i| i + 1);
    out.lines.insert(at, conflict);
    true
}
