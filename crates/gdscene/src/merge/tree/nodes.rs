//! The three-way decision per node identity: added by one side, deleted by one side
//! (gone when the other side left it alone, only re-saved it (a new `unique_id`, an
//! identical sub_resource named) or only re-laid it out, else a delete-against-modify
//! conflict on the whole section), kept by both (unchanged everywhere, or merged: renamed, moved, fields
//! and properties), deleted by both. A parent deleted under a node that stays comes back
//! as a conflict. A node in conflict as a whole carries its subtree on the side that
//! kept it (the descendants the other side deleted, changed, added or left alone), so
//! that picking either side of the hunk keeps or drops the subtree whole. Paths in the result are left to [`crate::merge::shared::merged::MergedPaths`], the `[node]` line's
//! fields to [`crate::merge::tree::node_tags`], order to [`crate::merge::tree::order`].

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{eq_opt, pick3, Ctx, ParentRef, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{Line, Origin, OutSec, TagOut};
use crate::merge::tree::held::Needs;
use crate::model::{Scene, SectionKind};
use crate::syntax::{Section, Span};
use crate::value::{may_name_ref, scan_refs_in_text, RefKind};
use std::collections::{BTreeMap, BTreeSet};

/// A rename or move of one side that the other side's changes followed.
pub(in crate::merge) struct Followed {
    pub(in crate::merge) ident: usize,
    /// A rename (else a move).
    pub(in crate::merge) rename: bool,
    /// The node's path in base.
    pub(in crate::merge) from: String,
}

/// Every node identity's fate.
pub(in crate::merge) struct Nodes<'a> {
    /// By node identity: `None` when the node is not in the result.
    pub(in crate::merge) merged: Vec<Option<MergedNode<'a>>>,
    /// Renames and moves followed, in identity order.
    pub(in crate::merge) followed: Vec<Followed>,
    /// A deletion conflicts because the other side wrote a NodePath to the node: a line
    /// merge, blind to that, must not win over this merge's conflict.
    pub(in crate::merge) path_needed: bool,
}

/// Decide every node.
pub(in crate::merge) fn decide<'a>(ctx: &mut Ctx<'a>) -> Nodes<'a> {
    let n_idents = ctx.id.node.at.len();
    let mut nodes = Nodes {
        merged: Vec::with_capacity(n_idents),
        followed: Vec::new(),
        path_needed: false,
    };
    let mut needs: Option<Needs> = None;
    let twins = crate::merge::tree::rivals::twins(ctx);
    let disputed = Disputed::of(ctx);
    for ident in 0..n_idents {
        let at = ctx.id.node.at[ident];
        if at[B].is_some() && at[O].is_some() != at[T].is_some() && needs.is_none() {
            needs = Some(Needs::of(ctx));
        }
        let needs = needs.as_ref();
        let m = match (at[B].is_some(), at[O].is_some(), at[T].is_some()) {
            (_, true, true) => Some(match unchanged_everywhere(ctx, ident, &disputed) {
                Some(m) => m,
                None => kept_by_both(ctx, ident, &mut nodes.followed, &twins),
            }),
            (false, true, false) => Some(added(ctx, ident, O)),
            (false, false, true) => Some(added(ctx, ident, T)),
            (true, true, false) => deleted_by(ctx, ident, T, needs),
            (true, false, true) => deleted_by(ctx, ident, O, needs),
            _ => None,
        };
        let kept = if at[O].is_some() { O } else { T };
        nodes.path_needed |= m.is_some()
            && at[B].is_some()
            && at[O].is_some() != at[T].is_some()
            && needs.is_some_and(|n| n.path_names(ident, kept));
        nodes.merged.push(m);
    }
    restore_deleted_parents(ctx, &mut nodes.merged);
    carry_subtrees(ctx, &mut nodes.merged);
    crate::merge::tree::rivals::pair_rivals(ctx, &mut nodes.merged);
    crate::merge::tree::rivals::pair_replacements(ctx, &mut nodes.merged);
    crate::merge::tree::rivals::pair_arrivals(ctx, &mut nodes.merged);
    nodes
}

/// The node's path on a side (the root by its name), or "" when the side lacks it.
pub(in crate::merge) fn path_on(ctx: &Ctx, ident: usize, side: usize) -> String {
    side_path(ctx.sc, ctx.id.node.at[ident], side)
}

fn side_path(sc: [&Scene; 3], at: [Option<usize>; 3], side: usize) -> String {
    at[side]
        .map(|i| {
            let n = &sc[side].nodes[i];
            if n.path == "." {
                n.name.to_string()
            } else {
                n.path.to_string()
            }
        })
        .unwrap_or_default()
}

/// `node "path"` for reports: ours' path, else theirs'.
fn location(ctx: &Ctx, ident: usize) -> String {
    located(ctx.sc, ctx.id.node.at[ident])
}

fn located(sc: [&Scene; 3], at: [Option<usize>; 3]) -> String {
    let side = if at[O].is_some() { O } else { T };
    format!("node \"{}\"", side_path(sc, at, side))
}

/// The node's section on each side.
fn sections_of(ctx: &Ctx, ident: usize) -> [Option<usize>; 3] {
    let at = ctx.id.node.at[ident];
    [0, 1, 2].map(|s| at[s].map(|i| ctx.sc[s].nodes[i].section))
}

/// A side's property lines, as they are.
fn own_lines(ctx: &Ctx, side: usize, sec: usize) -> Vec<Line> {
    ctx.sec(side, sec)
        .props
        .iter()
        .map(|p| Line::Src((side, p.line.range())))
        .collect()
}

/// A node only `side` has and base had not: that side's section.
fn added<'a>(ctx: &Ctx<'a>, ident: usize, side: usize) -> MergedNode<'a> {
    let secs = sections_of(ctx, ident);
    let i = ctx.id.node.at[ident][side].unwrap_or_default();
    let sec = ctx.sc[side].nodes[i].section;
    MergedNode {
        out: OutSec {
            kind: SectionKind::Node,
            verbatim: (side == O).then_some(sec),
            tag: TagOut::Src((side, ctx.sec(side, sec).tag.span.range())),
            lines: own_lines(ctx, side, sec),
            whole: None,
            origin: Origin::of(secs),
        },
        parent: ctx.parent_ref(side, i),
        name: ctx.sc[side].nodes[i].name.as_str(),
        fields: Some((side, None)),
        tag_conflict: false,
        place_conflict: false,
        groups: None,
    }
}

/// A node `deleter` deleted: gone when the other side left it as base had it and none
/// of its other edits needs it (see [`Needs`]), else a delete-against-modify conflict on
/// the whole section.
fn deleted_by<'a>(
    ctx: &mut Ctx<'a>,
    ident: usize,
    deleter: usize,
    needs: Option<&Needs>,
) -> Option<MergedNode<'a>> {
    let kept = if deleter == O { T } else { O };
    let why = match left_alone(ctx, ident, kept) {
        // Left alone (or only re-saved or re-laid-out): it goes, unless an edit of the
        // kept side needs it.
        Some(how) => {
            let why = needs.and_then(|n| n.why(ctx, ident, kept, deleter));
            if why.is_none() {
                note_quiet_deletion(ctx, ident, kept, how);
            }
            Some(why?)
        }
        None => None,
    };
    let state = |s: usize| Some(if s == kept { "changed" } else { "deleted" }.to_string());
    let loc = location(ctx, ident);
    ctx.part_conflict(loc, why, [Some("(node)".into()), state(O), state(T)]);
    let i = ctx.id.node.at[ident][kept].unwrap_or_default();
    let secs = sections_of(ctx, ident);
    Some(MergedNode {
        out: OutSec::whole_conflict(kept, secs),
        parent: ctx.parent_ref(kept, i),
        name: ctx.sc[kept].nodes[i].name.as_str(),
        fields: None,
        tag_conflict: false,
        place_conflict: false,
        groups: None,
    })
}

/// How side `kept` left a node the other side deleted, when that is no change.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LeftAlone {
    /// As base had it.
    Exactly,
    /// Only what a re-save assigns changed: its `unique_id`, or which of several
    /// identical sub_resources it names.
    Resaved,
    /// Only editor churn ([`crate::merge::values::layout`]) changed (re-save differences allowed too).
    Churned,
    /// An override entry (a node inside an instanced scene: no type, no instance) whose
    /// `index=` alone shifted (the instanced scene gained or lost a node before it): the
    /// place among the instance's children of an entry that is gone is moot.
    Reindexed,
}

fn left_alone(ctx: &Ctx, ident: usize, kept: usize) -> Option<LeftAlone> {
    [
        LeftAlone::Exactly,
        LeftAlone::Resaved,
        LeftAlone::Churned,
        LeftAlone::Reindexed,
    ]
    .into_iter()
    .filter(|&how| how != LeftAlone::Churned || ctx.layout_policy || ctx.state_policy)
    .filter(|&how| how != LeftAlone::Reindexed || is_override_entry(ctx, ident))
    .find(|&how| unchanged_since_base(ctx, ident, kept, how))
}

/// The decision for a deletion that won over a change that was none.
fn note_quiet_deletion(ctx: &mut Ctx, ident: usize, kept: usize, how: LeftAlone) {
    let node = location(ctx, ident);
    let side = if kept == O { "ours" } else { "theirs" };
    match how {
        LeftAlone::Exactly => {}
        LeftAlone::Resaved => ctx
            .decisions
            .push(Decision::ResavedNodeDeleted { node, side }),
        LeftAlone::Churned => ctx.decisions.push(Decision::ChurnedNodeDeleted { node }),
        LeftAlone::Reindexed => ctx
            .decisions
            .push(Decision::ReindexedEntryDeleted { node, side }),
    }
}

/// Whether base's node is an override entry: a node inside an instanced scene, listed
/// only to change it (no `type`, no `instance`).
fn is_override_entry(ctx: &Ctx, ident: usize) -> bool {
    ctx.id.node.at[ident][B].is_some_and(|b| {
        let n = &ctx.sc[B].nodes[b];
        n.parent.is_some() && n.type_name.is_none() && n.instance().is_none()
    })
}

/// Whether side `kept` has the node as base has it: the same properties and fields
/// (engine equality), and the same parent by identity (a renamed ancestor changes its
/// text only). `how` says which differences are no change (see [`LeftAlone`]).
fn unchanged_since_base(ctx: &Ctx, ident: usize, kept: usize, how: LeftAlone) -> bool {
    let at = ctx.id.node.at[ident];
    let secs = sections_of(ctx, ident);
    let (bs, ks) = (secs[B].unwrap_or_default(), secs[kept].unwrap_or_default());
    let (sb, sk) = (ctx.sec(B, bs), ctx.sec(kept, ks));
    let resave = how != LeftAlone::Exactly;
    let reindex = how == LeftAlone::Reindexed;
    let same = |x: &Span, y: &Span| {
        let (x, y) = (Some((B, x.range())), Some((kept, y.range())));
        ctx.same(&x, &y) || (resave && ctx.same_content(&x, &y))
    };
    let churn = |k: &str| how == LeftAlone::Churned && ctx.churn(kept, ks, k).is_some();
    let pb: Vec<_> = sb.props.iter().filter(|p| !churn(&p.key)).collect();
    let pk: Vec<_> = sk.props.iter().filter(|p| !churn(&p.key)).collect();
    let same_props = pb.len() == pk.len()
        && pb
            .iter()
            .zip(&pk)
            .all(|(x, y)| x.key == y.key && same(&x.value, &y.value));
    let same_parent = ctx.parent_ref(B, at[B].unwrap_or_default())
        == ctx.parent_ref(kept, at[kept].unwrap_or_default());
    let fields = |s: &Section| {
        s.tag
            .fields
            .iter()
            .filter(|f| f.key != "parent" && !(resave && f.key == "unique_id"))
            .filter(|f| !(reindex && f.key == "index"))
            .cloned()
            .collect::<Vec<_>>()
    };
    let (fb, fk) = (fields(sb), fields(sk));
    let same_fields = fb.len() == fk.len()
        && fb
            .iter()
            .zip(&fk)
            .all(|(x, y)| x.key == y.key && same(&x.value, &y.value));
    same_props && same_fields && same_parent
}

/// Fast path for most nodes of a big scene: the same bytes on all three sides, naming
/// the same resources and hanging under the same parent. Ours' section, as it is.
/// `disputed`: the ids that do not name the same resource on all three sides.
fn unchanged_everywhere<'a>(
    ctx: &Ctx<'a>,
    ident: usize,
    disputed: &Disputed,
) -> Option<MergedNode<'a>> {
    let at = ctx.id.node.at[ident];
    let secs = sections_of(ctx, ident);
    let (bs, os, ts) = (secs[B]?, secs[O]?, secs[T]?);
    let sc = ctx.sc;
    if !same_body(ctx, O, os, bs) || !same_body(ctx, T, ts, bs) {
        return None;
    }
    if !same_idents_everywhere(ctx, body(sc[B], bs), disputed) {
        return None;
    }
    let (oi, ti) = (at[O].unwrap_or_default(), at[T].unwrap_or_default());
    let po = ctx.parent_ref(O, oi);
    if ctx.parent_ref(B, at[B].unwrap_or_default()) != po || po != ctx.parent_ref(T, ti) {
        return None;
    }
    Some(MergedNode {
        out: OutSec {
            kind: SectionKind::Node,
            verbatim: None,
            tag: TagOut::Src((O, ctx.sec(O, os).tag.span.range())),
            lines: own_lines(ctx, O, os),
            whole: None,
            origin: Origin::of(secs),
        },
        parent: po,
        name: sc[O].nodes[oi].name.as_str(),
        fields: Some((O, None)),
        tag_conflict: false,
        place_conflict: false,
        groups: None,
    })
}

/// A section's own lines: its tag through its last property line, without the blank
/// lines and comments that trail it.
fn body(sc: &Scene, i: usize) -> &str {
    let s = &sc.doc.sections[i];
    sc.doc.slice(&(s.span.start()..s.body_end))
}

/// Whether section `sec` of `side` has the same own lines as base's section `bs`: known
/// without reading them when the side was read following base and copied that section
/// (its whole span was equal, so its own lines are), else compared.
fn same_body(ctx: &Ctx, side: usize, sec: usize, bs: usize) -> bool {
    let sc = ctx.sc;
    sc[side].copied_from(sc[B], sec) == Some(bs) || body(sc[side], sec) == body(sc[B], bs)
}

/// The ext_resource and sub_resource ids that some side has and that do not name the
/// same identity on all three sides (a renumbered id, one a side added or removed):
/// equal text naming none of them names the same resources on every side. Found once a
/// merge (the lists are kept in the context for the values' comparisons).
struct Disputed<'a> {
    /// A search for each id, in no particular order, each once.
    finders: Vec<memchr::memmem::Finder<'a>>,
}

impl<'a> Disputed<'a> {
    /// The disputed ids: those base and ours, or base and theirs, disagree on.
    fn of(ctx: &Ctx<'a>) -> Disputed<'a> {
        let mut ids: Vec<&'a str> = [O, T]
            .into_iter()
            .flat_map(|s| ctx.disagree[B][s].get_or_init(|| ctx.disagreeing_ids(B, s)))
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        Disputed {
            finders: ids.into_iter().map(memchr::memmem::Finder::new).collect(),
        }
    }

    /// Whether `text` may name a disputed id: it holds one as written, or an escape
    /// that could spell one. An empty id is found in any text.
    fn may_name(&self, text: &str) -> bool {
        !self.finders.is_empty()
            && (memchr::memchr(b'\\', text.as_bytes()).is_some()
                || self
                    .finders
                    .iter()
                    .any(|f| f.find(text.as_bytes()).is_some()))
    }
}

/// Equal bytes can still name different resources when ids were renumbered: whether
/// every id in `text` names the same identity on all three sides. Only a text that may
/// name a disputed id is read reference by reference.
fn same_idents_everywhere(ctx: &Ctx, text: &str, disputed: &Disputed) -> bool {
    if !may_name_ref(text) || !disputed.may_name(text) {
        return true;
    }
    let mut same = true;
    scan_refs_in_text(text, &mut |kind, id| {
        let ident = |s: usize| match kind {
            RefKind::Ext => ctx.idx[s].ext.get(id).map(|&i| ctx.id.ext.of[s][i]),
            RefKind::Sub => ctx.idx[s].sub.get(id).map(|&i| ctx.id.sub.of[s][i]),
        };
        let b = ident(B);
        same &= ident(O) == b && ident(T) == b;
    });
    same
}

/// A node both sides kept: place (name and parent) and fields merged three-way, then
/// the properties key by key.
fn kept_by_both<'a>(
    ctx: &mut Ctx<'a>,
    ident: usize,
    followed: &mut Vec<Followed>,
    twins: &BTreeMap<usize, usize>,
) -> MergedNode<'a> {
    let secs = sections_of(ctx, ident);
    let (parent, name, place_conflict) = merge_place(ctx, ident, followed, twins);
    let (sc, at) = (ctx.sc, ctx.id.node.at[ident]);
    let loc = move || located(sc, at);
    let fields = crate::merge::tree::node_tags::merge_fields(ctx, secs, &loc);
    let tag_conflict = place_conflict || fields.conflict;
    if tag_conflict {
        report_tag_conflict(ctx, ident);
    }
    let lines = ctx.merge_props(secs, &loc);
    let tag_of = |s: usize| secs[s].map(|i| (s, ctx.sec(s, i).tag.span.range()));
    let tag = if tag_conflict {
        TagOut::Conflict(Box::new([tag_of(B), tag_of(O), tag_of(T)]))
    } else {
        TagOut::Src((O, ctx.sec(O, secs[O].unwrap_or_default()).tag.span.range()))
    };
    MergedNode {
        out: OutSec {
            kind: SectionKind::Node,
            verbatim: None,
            tag,
            lines,
            whole: None,
            origin: Origin::of(secs),
        },
        parent,
        name,
        fields: Some((O, Some(fields.list))),
        tag_conflict,
        place_conflict,
        groups: fields.groups.map(String::into_boxed_str),
    }
}

/// Name and parent merged three-way (a conflict keeps ours'); a rename or move by one
/// side alone is recorded as followed. Theirs' parent is ours' when they are rival
/// [`crate::merge::tree::rivals::twins`].
fn merge_place<'a>(
    ctx: &Ctx<'a>,
    ident: usize,
    followed: &mut Vec<Followed>,
    twins: &BTreeMap<usize, usize>,
) -> (ParentRef, &'a str, bool) {
    let at = ctx.id.node.at[ident];
    let sc = ctx.sc;
    let (oi, ti) = (at[O].unwrap_or_default(), at[T].unwrap_or_default());
    let pr = [
        at[B].map(|i| ctx.parent_ref(B, i)),
        Some(ctx.parent_ref(O, oi)),
        Some(crate::merge::tree::rivals::same_parent(
            ctx.parent_ref(T, ti),
            twins,
        )),
    ];
    let names = [
        at[B].map(|i| sc[B].nodes[i].name.as_str()),
        Some(sc[O].nodes[oi].name.as_str()),
        Some(sc[T].nodes[ti].name.as_str()),
    ];
    let (parent, parent_conflict) = pick_value(&pr);
    let (name, name_conflict) = pick_value(&names);
    let parent = parent.unwrap_or(ParentRef::Root);
    let name = name.unwrap_or_default();
    if let (Some(bn), Some(bp)) = (names[0], &pr[0]) {
        if name != bn && (names[1] != Some(bn)) != (names[2] != Some(bn)) {
            followed.push(Followed {
                ident,
                rename: true,
                from: path_on(ctx, ident, B),
            });
        }
        if parent != *bp && (pr[1].as_ref() != Some(bp)) != (pr[2].as_ref() != Some(bp)) {
            followed.push(Followed {
                ident,
                rename: false,
                from: path_on(ctx, ident, B),
            });
        }
    }
    (parent, name, parent_conflict || name_conflict)
}

/// The three-way pick of a plain value, and whether it conflicted (then ours').
fn pick_value<V: PartialEq + Clone>(v: &[Option<V>; 3]) -> (Option<V>, bool) {
    match pick3(&v[0], &v[1], &v[2], eq_opt) {
        Pick::Ours => (v[1].clone(), false),
        Pick::Theirs => (v[2].clone(), false),
        Pick::Conflict => (v[1].clone(), true),
    }
}

/// A conflicting `[node]` line is reported once: by its field conflicts, else as a
/// name/parent conflict.
fn report_tag_conflict(ctx: &mut Ctx, ident: usize) {
    let loc = location(ctx, ident);
    let reported = ctx.conflicts.iter().any(|c| {
        c.location == loc
            && c.property
                .as_deref()
                .is_some_and(|p| p.starts_with("[node]"))
    });
    if !reported {
        let paths = [B, O, T].map(|s| Some(path_on(ctx, ident, s)));
        ctx.part_conflict(loc, Some("[node] name/parent".into()), paths);
    }
}

/// A node kept under a parent that one side deleted (or whose conflicting place on
/// one side is under such a parent): the parent comes back as a delete-against-modify
/// conflict, never silently moved elsewhere.
fn restore_deleted_parents<'a>(ctx: &mut Ctx<'a>, merged: &mut [Option<MergedNode<'a>>]) {
    loop {
        let missing: BTreeSet<usize> = merged
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.as_ref().map(|m| hung_under(ctx, i, m)))
            .flatten()
            .filter(|&p| merged.get(p).is_some_and(Option::is_none))
            .collect();
        if missing.is_empty() {
            break;
        }
        for p in missing {
            merged[p] = restored_parent(ctx, p);
        }
    }
}

/// The parents a node hangs under: the result's, and, when its place conflicts, each
/// side's (a person may pick either).
pub(in crate::merge) fn hung_under(ctx: &Ctx, ident: usize, m: &MergedNode) -> Vec<usize> {
    let mut out: Vec<usize> = m.parent.anchor().into_iter().collect();
    if m.place_conflict {
        let at = ctx.id.node.at[ident];
        for s in [O, T] {
            out.extend(at[s].and_then(|k| ctx.parent_ref(s, k).anchor()));
        }
    }
    out
}

/// A deleted parent brought back as a whole-section conflict.
fn restored_parent<'a>(ctx: &mut Ctx<'a>, p: usize) -> Option<MergedNode<'a>> {
    let at = ctx.id.node.at[p];
    let kept = if at[O].is_some() {
        O
    } else if at[T].is_some() {
        T
    } else {
        B
    };
    let i = at[kept]?;
    let n = &ctx.sc[kept].nodes[i];
    let parent = ctx.parent_ref(kept, i);
    let path = if n.path == "." {
        n.name.clone()
    } else {
        n.path.clone()
    };
    let state = |s: usize| Some(if at[s].is_some() { "kept" } else { "deleted" }.to_string());
    ctx.part_conflict(
        format!("node \"{path}\""),
        Some("(deleted, but the other side added children under it)".into()),
        [Some("(node)".into()), state(O), state(T)],
    );
    Some(MergedNode {
        out: OutSec::whole_conflict(kept, sections_of(ctx, p)),
        parent,
        name: ctx.sc[kept].nodes[i].name.as_str(),
        fields: None,
        tag_conflict: false,
        place_conflict: false,
        groups: None,
    })
}

/// Every node in conflict as a whole takes into its hunk the descendants the other
/// side lacks: on the side that kept it they follow it inside the markers, and they
/// are no longer printed on their own (or lost, when the keeper left them alone).
fn carry_subtrees(ctx: &mut Ctx, merged: &mut [Option<MergedNode>]) {
    for x in 0..merged.len() {
        let Some(kept) = merged[x]
            .as_ref()
            .and_then(|m| m.out.whole.as_ref())
            .map(|w| if w[O].is_empty() { T } else { O })
        else {
            continue;
        };
        let carried = subtree_lacked(ctx, x, kept);
        if carried.is_empty() {
            continue;
        }
        let mut add: [Vec<usize>; 3] = Default::default();
        for &d in &carried {
            merged[d] = None;
            for s in [B, kept] {
                if let Some(i) = ctx.id.node.at[d][s] {
                    add[s].push(ctx.sc[s].nodes[i].section);
                }
            }
        }
        if let Some(w) = merged[x].as_mut().and_then(|m| m.out.whole.as_mut()) {
            for s in [B, kept] {
                w[s].append(&mut add[s]);
            }
        }
        ctx.decisions.push(Decision::ConflictCarriesSubtree {
            node: path_on(ctx, x, kept),
            nodes: carried.len(),
        });
    }
}

/// The descendants of `x` on side `kept` that the other side lacks, in `kept`'s order,
/// each hanging under `x` or under another such descendant: a node both sides have
/// below `x` is printed on its own, and so are the nodes under it.
fn subtree_lacked(ctx: &Ctx, x: usize, kept: usize) -> Vec<usize> {
    let other = if kept == O { T } else { O };
    let Some(kx) = ctx.id.node.at[x][kept] else {
        return Vec::new();
    };
    let sc = ctx.sc[kept];
    let top = &sc.nodes[kx].path;
    if top == "." {
        return Vec::new();
    }
    let under = |p: &str| {
        p.strip_prefix(top.as_str())
            .is_some_and(|r| r.starts_with('/'))
    };
    let mut inside: BTreeSet<usize> = BTreeSet::from([x]);
    let mut out = Vec::new();
    for (i, _) in sc.nodes.iter().enumerate().filter(|(_, n)| under(&n.path)) {
        let d = ctx.id.node.of[kept][i];
        let hangs = ctx
            .parent_ref(kept, i)
            .anchor()
            .is_some_and(|p| inside.contains(&p));
        if d != x && hangs && ctx.id.node.at[d][other].is_none() {
            inside.insert(d);
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::identity::match_all;

    /// Base read afresh, ours and theirs following it, as a merge reads them.
    fn read(base: &str, ours: &str, theirs: &str) -> [Scene; 3] {
        let b = Scene::parse(base.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let like = |t: &str| Scene::parse_like(t.as_bytes(), &b).unwrap_or_else(|e| panic!("{e}"));
        let (o, t) = (like(ours), like(theirs));
        [b, o, t]
    }

    /// The identity of base's node `name`.
    fn ident_of(ctx: &Ctx, name: &str) -> usize {
        let i = ctx.sc[B].nodes.iter().position(|n| n.name == name);
        ctx.id.node.of[B][i.unwrap_or_else(|| panic!("no node {name}"))]
    }

    /// The answer without the fast paths: each side's own lines compared byte for
    /// byte, every reference of base's read (the parents are the same in these
    /// scenes).
    fn slow(ctx: &Ctx, ident: usize) -> bool {
        let [Some(bs), Some(os), Some(ts)] = sections_of(ctx, ident) else {
            return false;
        };
        let bb = body(ctx.sc[B], bs);
        let every = Disputed {
            finders: vec![memchr::memmem::Finder::new("")],
        };
        body(ctx.sc[O], os) == bb
            && body(ctx.sc[T], ts) == bb
            && same_idents_everywhere(ctx, bb, &every)
    }

    /// Whether base's node `name` is unchanged everywhere, checked against [`slow`].
    fn unchanged(ctx: &Ctx, name: &str) -> bool {
        let ident = ident_of(ctx, name);
        let fast = unchanged_everywhere(ctx, ident, &Disputed::of(ctx)).is_some();
        assert_eq!(fast, slow(ctx, ident), "node {name}: fast and slow differ");
        fast
    }

    const HEAD: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n";

    /// A section copied from base counts as unchanged without its bytes compared; one
    /// that differs from base only in the blank lines after it is not copied, and its
    /// equal own lines still count; a changed one does not.
    #[test]
    fn a_copied_section_and_an_equal_one_not_copied_both_count() {
        let a = "[node name=\"A\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(1, 2)\n\n";
        let k = "[node name=\"K\" type=\"Node2D\" parent=\".\"]\nvisible = false\n\n";
        let c = "[node name=\"C\" type=\"Node2D\" parent=\".\"]\nz_index = 3\n";
        let base = format!("{HEAD}{a}{k}{c}");
        let ours = format!("{HEAD}{a}{}\n; moved\n\n{c}", k.trim_end());
        let theirs = format!("{HEAD}{a}{k}{}", c.replace('3', "4"));
        let sc = read(&base, &ours, &theirs);
        let ctx = Ctx::new(
            [&sc[0], &sc[1], &sc[2]],
            match_all([&sc[0], &sc[1], &sc[2]]),
        );
        let sec = |side: usize, name: &str| {
            let i = ctx.id.node.at[ident_of(&ctx, name)][side].unwrap_or(usize::MAX);
            ctx.sc[side].nodes[i].section
        };
        // The record is kept, and says what it should.
        assert_eq!(sc[O].copied_from(&sc[B], sec(O, "A")), Some(sec(B, "A")));
        assert_eq!(sc[T].copied_from(&sc[B], sec(T, "A")), Some(sec(B, "A")));
        assert_eq!(sc[O].copied_from(&sc[B], sec(O, "K")), None);
        assert_eq!(sc[O].copied_from(&sc[B], sec(O, "C")), Some(sec(B, "C")));
        // Only the scene followed is answered for.
        assert_eq!(sc[O].copied_from(&sc[T], sec(O, "A")), None);
        assert_eq!(sc[B].copied_from(&sc[B], sec(B, "A")), None);
        assert!(unchanged(&ctx, "A"));
        assert!(unchanged(&ctx, "K"));
        assert!(!unchanged(&ctx, "C"));
    }

    /// Theirs renumbered two ext_resources: equal text naming one of them names
    /// another resource there, also when the id is spelled with an escape; text that
    /// names only an undisputed id, or none, is unchanged.
    #[test]
    fn a_renumbered_id_still_refuses() {
        let ext = |id: &str, p: &str| {
            format!("[ext_resource type=\"Texture2D\" path=\"res://{p}.png\" id=\"{id}\"]\n")
        };
        let node = |name: &str, value: &str| {
            format!("[node name=\"{name}\" type=\"Sprite2D\" parent=\".\"]\n{value}\n\n")
        };
        let nodes = [
            node("A", "texture = ExtResource(\"q1\")"),
            node("E", "texture = ExtResource(\"\\u00711\")"),
            node("U", "texture = ExtResource(\"q3\")"),
            node(
                "N",
                "position = Vector2(1, 2)\ntexture = ExtResource(\"q3\")",
            ),
            node("P", "position = Vector2(3, 4)"),
        ]
        .concat();
        let head = "[gd_scene format=3]\n\n";
        let root = "[node name=\"Root\" type=\"Node2D\"]\n\n";
        let exts = |one: &str, two: &str| {
            format!("{}{}{}\n", ext("q1", one), ext("q2", two), ext("q3", "c"))
        };
        let base = format!("{head}{}{root}{nodes}", exts("a", "b"));
        let ours = format!("{base}{}", node("Z", "visible = false"));
        let theirs = format!("{head}{}{root}{nodes}", exts("b", "a"));
        let sc = read(&base, &ours, &theirs);
        let ctx = Ctx::new(
            [&sc[0], &sc[1], &sc[2]],
            match_all([&sc[0], &sc[1], &sc[2]]),
        );
        assert!(!unchanged(&ctx, "A"));
        assert!(!unchanged(&ctx, "E"));
        assert!(unchanged(&ctx, "U"));
        assert!(unchanged(&ctx, "N"));
        assert!(unchanged(&ctx, "P"));
        assert!(unchanged(&ctx, "Root"));
        // The ids theirs renumbered are the disputed ones.
        let disputed = Disputed::of(&ctx);
        assert!(disputed.may_name("ExtResource(\"q2\")"));
        assert!(!disputed.may_name("ExtResource(\"q3\")"));
    }
}
