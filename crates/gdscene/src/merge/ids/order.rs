//! The order of the resources in the result: ext_resources (both sides' orders merged,
//! then by id when ours keeps them sorted) and sub_resources: when ours' own
//! sub_resources are in the order Godot saves them, the saver's order of the merged
//! content; else both sides' orders merged, then dependencies first. Which resources
//! stay is left to [`crate::merge::values::resources`].
//!
//! The saver's order (Godot 4.6, `ResourceFormatSaverTextInstance::_find_resources`):
//! from the main resource, depth first, each sub_resource written after the ones it
//! names, the first time it is met. A scene's main resource is the PackedScene, whose
//! values are its nodes' properties in file order; a sub_resource's (and a `.tres`'s
//! `[resource]`'s) properties are visited sorted by name (`property_list.sort()`).

use super::new_refs::{Aheads, Clear, NewAhead};
use crate::merge::ids::assign::natural_cmp;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{Line, OutSec, Src};
use crate::merge::shared::sequence::merge_order;
use crate::model::FileKind;
use crate::value::{may_name_sub, scan_refs_in_text, RefKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Deeper dependency chains than this are cut (hostile input).
const MAX_DEPTH: usize = 4096;

/// The ext_resources kept, in merged order (ids are not known yet).
pub(in crate::merge) fn exts(ctx: &Ctx, keep: &BTreeSet<usize>) -> Vec<usize> {
    let keep_v: Vec<bool> = (0..ctx.id.ext.at.len())
        .map(|i| keep.contains(&i))
        .collect();
    let [eb, eo, et] = &ctx.id.ext.of;
    merge_order(eb, eo, et, &keep_v)
}

/// Sort the ext_resources by their ids when ours has them sorted.
pub(in crate::merge) fn exts_by_id(ctx: &Ctx, order: &mut [usize], ids: &HashMap<usize, String>) {
    let sorted = ctx.sc[O]
        .ext_resources
        .windows(2)
        .all(|w| natural_cmp(&w[0].id, &w[1].id) != std::cmp::Ordering::Greater);
    if sorted {
        order.sort_by(|a, b| natural_cmp(&ids[a], &ids[b]));
    }
}

/// What uses the result's sub_resources: its nodes in result order, its `[resource]`,
/// and the sub_resources themselves (by identity).
pub(in crate::merge) struct Users<'m> {
    /// The merged nodes' sections, in the result's order.
    pub(in crate::merge) nodes: Vec<&'m OutSec>,
    /// The merged `[resource]` section.
    pub(in crate::merge) resource: Option<&'m OutSec>,
    /// The merged sub_resource sections.
    pub(in crate::merge) subs: &'m BTreeMap<usize, OutSec>,
}

impl<'m> Users<'m> {
    /// The users of a result whose nodes are `merged` in `node_order`.
    pub(in crate::merge) fn of(
        node_order: &[usize],
        merged: &'m [Option<MergedNode<'_>>],
        resource: Option<&'m OutSec>,
        subs: &'m BTreeMap<usize, OutSec>,
    ) -> Self {
        let nodes = node_order
            .iter()
            .filter_map(|&i| merged.get(i)?.as_ref())
            .map(|m| &m.out)
            .collect();
        Users {
            nodes,
            resource,
            subs,
        }
    }
}

/// The sub_resources kept: in the saver's order of the merged content when ours' and
/// theirs' own are each in the saver's order (files the engine wrote; a side in another
/// order was ordered by hand or by another writer, and its order is kept), else in
/// merged order with each one's dependencies (the sub_resources it references, `deps`)
/// before it.
pub(in crate::merge) fn subs(
    ctx: &Ctx,
    keep: &BTreeSet<usize>,
    refs: &BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)>,
    users: &Users,
) -> Vec<usize> {
    let merged = merged_subs(ctx, keep, refs);
    let ahead = Aheads::new(ctx);
    let in_saver_order = |side: usize| side_saver_order(ctx, side, &ahead) == ctx.id.sub.of[side];
    if merged.is_empty() || !in_saver_order(O) || !in_saver_order(T) {
        return merged;
    }
    saver_subs(ctx, keep, (users, &ahead), &merged, refs).unwrap_or(merged)
}

/// [`subs`]'s fallback: merged order, dependencies first.
fn merged_subs(
    ctx: &Ctx,
    keep: &BTreeSet<usize>,
    refs: &BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)>,
) -> Vec<usize> {
    let keep_v: Vec<bool> = (0..ctx.id.sub.at.len())
        .map(|i| keep.contains(&i))
        .collect();
    let [sb, so, st] = &ctx.id.sub.of;
    let merged = merge_order(sb, so, st, &keep_v);
    let mut deps: HashMap<usize, Vec<usize>> = HashMap::new();
    for &i in &merged {
        let w = refs.get(&i).map(|(_, w)| w.clone()).unwrap_or_default();
        deps.insert(i, w);
    }
    let mut order: Vec<usize> = Vec::with_capacity(merged.len());
    let mut state: HashMap<usize, u8> = HashMap::new();
    for &i in &merged {
        visit(i, &deps, keep, &mut state, &mut order, 0);
    }
    order
}

/// Depth-first: dependencies, then `x`.
fn visit(
    x: usize,
    deps: &HashMap<usize, Vec<usize>>,
    keep: &BTreeSet<usize>,
    state: &mut HashMap<usize, u8>,
    out: &mut Vec<usize>,
    depth: usize,
) {
    if state.get(&x).copied().unwrap_or(0) != 0 || !keep.contains(&x) || depth > MAX_DEPTH {
        return;
    }
    state.insert(x, 1);
    if let Some(d) = deps.get(&x) {
        for &y in d {
            visit(y, deps, keep, state, out, depth + 1);
        }
    }
    state.insert(x, 2);
    out.push(x);
}

/// One section's sub_resource uses, property by property: (key, identities in text order).
type Uses = Vec<(String, Vec<usize>)>;

/// The sub_resource identities a side's text names, in text order, appended to `out`.
fn src_subs_into(ctx: &Ctx, s: &Src, out: &mut Vec<usize>) {
    let text = ctx.text(s);
    if may_name_sub(text) {
        scan_refs_in_text(text, &mut |k, id| {
            if let (RefKind::Sub, Some(&i)) = (k, ctx.idx[s.0].sub.get(id)) {
                out.push(ctx.id.sub.of[s.0][i]);
            }
        });
    }
}

/// The sub_resource identities a side's text names, in text order.
fn src_subs(ctx: &Ctx, s: &Src) -> Vec<usize> {
    let mut out = Vec::new();
    src_subs_into(ctx, s, &mut out);
    out
}

/// The identities a written line names (ids stand for identities there).
fn written_subs(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    crate::merge::values::value_grain::idents_in(text, &mut |ext, i| {
        if !ext {
            out.push(i);
        }
    });
    out
}

/// A property line's key: the text before its `=`.
fn key_of(text: &str) -> String {
    text.split_once('=')
        .map_or("", |(k, _)| k)
        .trim()
        .trim_matches('"')
        .to_string()
}

/// The uses of section `section` of side `side`, as the file has them.
fn side_uses(ctx: &Ctx, side: usize, section: usize) -> Uses {
    let sec = ctx.sec(side, section);
    sec.props
        .iter()
        .filter_map(|p| {
            let subs = src_subs(ctx, &(side, p.value.range()));
            (!subs.is_empty()).then(|| (p.key.to_string(), subs))
        })
        .collect()
}

/// Whether a piece of a side's text may name a sub_resource the walk has not met yet
/// (no: it is passed over, as naming nothing new).
type Passes<'p> = dyn FnMut(&Src) -> bool + 'p;

/// The identities section `section` of side `side` names, properties in file order:
/// `flat(side_uses(..), false)` without the keys, the many sections `passes` says no
/// to passed over whole.
fn side_subs_in_order(ctx: &Ctx, side: usize, section: usize, passes: &mut Passes) -> Vec<usize> {
    let sec = ctx.sec(side, section);
    let mut out = Vec::new();
    if passes(&(side, sec.span.range())) {
        for p in &sec.props {
            src_subs_into(ctx, &(side, p.value.range()), &mut out);
        }
    }
    out
}

/// The side a whole-section conflict's uses are read from: ours, unless it lacks it.
fn whole_side(w: &[Vec<usize>; 3]) -> usize {
    if w[O].is_empty() {
        T
    } else {
        O
    }
}

/// The piece of a conflicting line whose uses count: ours', else theirs', else base's.
fn pick(x: &[Option<Src>; 3]) -> Option<&Src> {
    x[O].as_ref().or(x[T].as_ref()).or(x[B].as_ref())
}

/// The written conflicting line whose uses count: ours', else theirs'.
fn pick_text(x: &[Option<String>; 3]) -> &str {
    x[O].as_deref().or(x[T].as_deref()).unwrap_or_default()
}

/// The uses of a merged section: its lines (a conflict: ours' side, as the text with
/// every conflict resolved to ours has it; a whole-section conflict: the sections it
/// stands for). A section without lines has no properties, so no uses.
fn out_uses(ctx: &Ctx, out: &OutSec) -> Uses {
    if let Some(w) = &out.whole {
        let side = whole_side(w);
        return w[side]
            .iter()
            .flat_map(|&i| side_uses(ctx, side, i))
            .collect();
    }
    out.lines
        .iter()
        .map(|l| match l {
            Line::Src(s) => (key_of(ctx.text(s)), src_subs(ctx, s)),
            Line::Conflict(x) => pick(x).map_or_else(Default::default, |s| {
                (key_of(ctx.text(s)), src_subs(ctx, s))
            }),
            Line::Lit(t) => (key_of(t), Vec::new()),
            Line::Idents(t) => (key_of(t), written_subs(t)),
            Line::Texts(x) => {
                let t = pick_text(x);
                (key_of(t), written_subs(t))
            }
        })
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// The identities a merged section names, lines in order: `flat(out_uses(..), false)`
/// without a key per line (a node's properties are not sorted), the lines and sections
/// `passes` says no to passed over.
fn out_subs_in_order(ctx: &Ctx, out: &OutSec, passes: &mut Passes) -> Vec<usize> {
    if let Some(w) = &out.whole {
        let side = whole_side(w);
        return w[side]
            .iter()
            .flat_map(|&i| side_subs_in_order(ctx, side, i, passes))
            .collect();
    }
    let mut acc = Vec::new();
    for l in &out.lines {
        match l {
            Line::Src(s) => {
                if passes(s) {
                    src_subs_into(ctx, s, &mut acc);
                }
            }
            Line::Conflict(x) => {
                if let Some(s) = pick(x) {
                    src_subs_into(ctx, s, &mut acc);
                }
            }
            Line::Lit(_) => {}
            Line::Idents(t) => acc.extend(written_subs(t)),
            Line::Texts(x) => acc.extend(written_subs(pick_text(x))),
        }
    }
    acc
}

/// The identities in `uses`, properties sorted by name (stable) or in file order.
fn flat(mut uses: Uses, sorted: bool) -> Vec<usize> {
    if sorted {
        uses.sort_by(|a, b| a.0.cmp(&b.0));
    }
    uses.into_iter().flat_map(|(_, v)| v).collect()
}

/// Which identities the saver's walk is after: those `counts` says yes to, `all` of
/// them in all. The walk takes no more roots once it has met every one.
struct Sought<'a> {
    /// Whether an identity is one of them.
    counts: &'a dyn Fn(usize) -> bool,
    /// How many there are.
    all: usize,
}

/// The saver's walk: depth first from each root in turn, each identity after its
/// children; roots are taken only until every identity `sought` is after has been met.
///
/// Why stopping there changes nothing the caller keeps: an identity is pushed to the
/// order exactly when it is first met (`seen` grows with the order, a root's walk
/// finishing before the next root is taken), and a later root's walk only pushes
/// identities not met yet. Once all `sought.all` identities `sought.counts` says yes to
/// are met, whatever a later root would push is one it says no to: past the end of the
/// order, and dropped by a caller that keeps only those (a side's walk says yes to every
/// identity the side can name, so there is nothing further at all). For the same reason
/// a root met already adds nothing, so a caller may pass over text that can only name
/// such roots ([`NewAhead`]).
struct Walk<'a, 'b> {
    /// The identities an identity names.
    children: &'a dyn Fn(usize) -> Vec<usize>,
    /// What the walk is after.
    sought: &'a Sought<'b>,
    /// The identities met.
    seen: BTreeSet<usize>,
    /// How many of them are sought.
    met: usize,
    /// The order.
    out: Vec<usize>,
}

impl<'a, 'b> Walk<'a, 'b> {
    /// Nothing met yet.
    fn new(children: &'a dyn Fn(usize) -> Vec<usize>, sought: &'a Sought<'b>) -> Self {
        Walk {
            children,
            sought,
            seen: BTreeSet::new(),
            met: 0,
            out: Vec::new(),
        }
    }

    /// Whether every sought identity has been met.
    fn done(&self) -> bool {
        self.met >= self.sought.all
    }

    /// Walk from root `r`, unless done.
    fn root(&mut self, r: usize) {
        if !self.done() {
            self.go(r, 0);
        }
    }

    /// `x` after its children, the first time it is met.
    fn go(&mut self, x: usize, depth: usize) {
        if depth > MAX_DEPTH || !self.seen.insert(x) {
            return;
        }
        if (self.sought.counts)(x) {
            self.met += 1;
        }
        for y in (self.children)(x) {
            self.go(y, depth + 1);
        }
        self.out.push(x);
    }
}

/// The saver's order from `roots`.
fn saver_walk(
    roots: impl IntoIterator<Item = usize>,
    children: &dyn Fn(usize) -> Vec<usize>,
    sought: &Sought,
) -> Vec<usize> {
    let mut w = Walk::new(children, sought);
    for r in roots {
        w.root(r);
    }
    w.out
}

/// A side's sub_resources in the order the saver would write them.
fn side_saver_order(ctx: &Ctx, side: usize, ahead: &Aheads) -> Vec<usize> {
    let sc = ctx.sc[side];
    let children = |x: usize| match ctx.id.sub.at[x][side] {
        Some(i) => flat(side_uses(ctx, side, sc.sub_resources[i].section), true),
        None => Vec::new(),
    };
    // Every identity the walk meets is one of the side's own sub_resources'.
    let own: BTreeSet<usize> = ctx.id.sub.of[side].iter().copied().collect();
    let sought = Sought {
        counts: &|_| true,
        all: own.len(),
    };
    if let (FileKind::Resource, Some(r)) = (sc.kind, sc.resource) {
        return saver_walk(flat(side_uses(ctx, side, r), true), &children, &sought);
    }
    let mut w = Walk::new(&children, &sought);
    side_roots(ctx, side, ahead.of(side), &mut w, true);
    w.out
}

/// Walk from the identities a side's nodes name, in order, until done. `jump`: when
/// the nodes are in file order (as a parsed scene has them), the run of nodes before
/// the next reference to an identity not met is passed over at once (each of them would
/// be: [`NewAhead`] passes over its section, so it gives no root); tests compare with
/// asking node by node.
fn side_roots(ctx: &Ctx, side: usize, ahead: &NewAhead, w: &mut Walk, jump: bool) {
    let nodes = &ctx.sc[side].nodes;
    let span = |k: usize| ctx.sec(side, nodes[k].section).span;
    let jump = jump && nodes.windows(2).all(|p| p[0].section < p[1].section);
    let clear = Clear::default();
    let mut k = 0;
    while k < nodes.len() && !w.done() {
        if jump {
            let Some(at) = ahead.next_new(span(k).start(), &w.seen) else {
                break;
            };
            k += nodes[k..].partition_point(|n| ctx.sec(side, n.section).span.end() <= at);
            if k >= nodes.len() {
                break;
            }
        }
        let seen = &w.seen;
        let mut passes = |s: &Src| ahead.within(s.1.clone(), seen, &clear);
        for r in side_subs_in_order(ctx, side, nodes[k].section, &mut passes) {
            w.root(r);
        }
        k += 1;
    }
}

/// The saver's order of the merged content, the kept sub_resources nothing reaches
/// placed after the one merged order puts before them; `None` when that would put a
/// sub_resource after one that names it.
fn saver_subs(
    ctx: &Ctx,
    keep: &BTreeSet<usize>,
    (users, ahead): (&Users, &Aheads),
    merged: &[usize],
    refs: &BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)>,
) -> Option<Vec<usize>> {
    let children = |x: usize| match users.subs.get(&x) {
        Some(out) => flat(out_uses(ctx, out), true),
        None => Vec::new(),
    };
    // Only the kept ones stay in the order.
    let sought = Sought {
        counts: &|x| keep.contains(&x),
        all: keep.len(),
    };
    let walked = match (ctx.sc[O].kind, users.resource) {
        (FileKind::Resource, Some(r)) => {
            saver_walk(flat(out_uses(ctx, r), true), &children, &sought)
        }
        _ => {
            let mut w = Walk::new(&children, &sought);
            let clear: [Clear; 3] = Default::default();
            for n in &users.nodes {
                if w.done() {
                    break;
                }
                let seen = &w.seen;
                let mut passes = |s: &Src| ahead.of(s.0).within(s.1.clone(), seen, &clear[s.0]);
                for r in out_subs_in_order(ctx, n, &mut passes) {
                    w.root(r);
                }
            }
            w.out
        }
    };
    let mut order: Vec<usize> = walked.into_iter().filter(|x| keep.contains(x)).collect();
    let reached: BTreeSet<usize> = order.iter().copied().collect();
    let mut after: Option<usize> = None;
    for &x in merged {
        if !reached.contains(&x) {
            let at = after
                .and_then(|a| order.iter().position(|&y| y == a))
                .map_or(0, |p| p + 1);
            order.insert(at, x);
        }
        after = Some(x);
    }
    let pos: HashMap<usize, usize> = order.iter().enumerate().map(|(i, &x)| (x, i)).collect();
    let fine = order.iter().all(|x| {
        refs.get(x)
            .is_none_or(|(_, w)| w.iter().all(|y| pos.get(y).is_none_or(|&p| p < pos[x])))
    });
    (fine && order.len() == merged.len()).then_some(order)
}

#[cfg(test)]
mod walk_tests {
    use super::*;
    use crate::merge::identity::match_all;
    use crate::merge::shared::sections::TagOut;
    use crate::model::{Scene, SectionKind};
    use crate::test_support::rng;

    /// Stopping once every sought identity is met leaves what the caller keeps as the
    /// whole walk has it, on random graphs (cycles, unreached and unsought identities).
    #[test]
    fn the_walk_stops_only_when_nothing_kept_can_change() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3_000 {
            let n = 1 + next(9);
            let kids: Vec<Vec<usize>> = (0..n)
                .map(|_| (0..next(3)).map(|_| next(n)).collect())
                .collect();
            let children = |x: usize| kids[x].clone();
            let roots: Vec<usize> = (0..next(12)).map(|_| next(n)).collect();
            let keep: BTreeSet<usize> = (0..n).filter(|_| next(3) > 0).collect();
            let kept = |v: Vec<usize>| -> Vec<usize> {
                v.into_iter().filter(|x| keep.contains(x)).collect()
            };
            let whole = Sought {
                counts: &|_| true,
                all: usize::MAX,
            };
            let want = kept(saver_walk(roots.clone(), &children, &whole));
            let sought = Sought {
                counts: &|x| keep.contains(&x),
                all: keep.len(),
            };
            let got = saver_walk(roots.clone(), &children, &sought);
            assert_eq!(kept(got), want, "{kids:?} {roots:?} {keep:?}");
            // A side's walk: every identity counts, so the stop loses nothing at all.
            let every = Sought {
                counts: &|_| true,
                all: n,
            };
            let all = saver_walk(roots.clone(), &children, &whole);
            assert_eq!(saver_walk(roots, &children, &every), all);
        }
    }

    /// A scene naming sub_resources in the places the quick paths pass over or look
    /// into: strings, comments, a value over several lines, an id spelled with an
    /// escape.
    const SCENE: &str = "[gd_scene format=3]

[sub_resource type=\"A\" id=\"x1\"]
x = 1

[sub_resource type=\"B\" id=\"x2\"]
a = SubResource(\"x1\")

[node name=\"R\" type=\"Node\"]
s = \"SubResource(\\\"x2\\\")\"
; SubResource(\"x2\")

[node name=\"N\" type=\"Node\" parent=\".\"]
z = [SubResource(\"x2\"),
SubResource(\"x1\")]
y = SubResource( \"x1\" )

[node name=\"M\" type=\"Node\" parent=\".\"]
v = 1
w = SubResource(\"\\u00782\")
";

    /// The node sections of `sc` read by the quick paths (in `order`) and by the ones
    /// with keys agree: a side's sections, and merged sections made of their lines;
    /// exactly with nothing met, and on the identities not met with some met.
    fn agree_on(sc: &Scene, order: &[usize], next: &mut dyn FnMut(usize) -> usize) {
        let ctx = Ctx::new([sc, sc, sc], match_all([sc, sc, sc]));
        let met: BTreeSet<usize> = (0..ctx.id.sub.at.len()).filter(|_| next(3) == 0).collect();
        for seen in [BTreeSet::new(), met] {
            let new = |v: Vec<usize>| -> Vec<usize> {
                v.into_iter().filter(|x| !seen.contains(x)).collect()
            };
            let ahead = [B, O, T].map(|side| NewAhead::of(&ctx, side));
            let clear: [Clear; 3] = Default::default();
            let mut passes = |s: &Src| ahead[s.0].within(s.1.clone(), &seen, &clear[s.0]);
            for (k, &n) in order.iter().enumerate() {
                let section = sc.nodes[n].section;
                let want = flat(side_uses(&ctx, O, section), false);
                let got = side_subs_in_order(&ctx, O, section, &mut passes);
                assert_eq!(new(got), new(want), "section {section}");
                let tag = TagOut::Src((O, 0..0));
                let mut out = OutSec::tag_only(SectionKind::Node, None, tag);
                let side = [B, T, O][k % 3];
                let props = ctx.sec(side, section).props.iter();
                out.lines = props.map(|p| Line::Src((side, p.line.range()))).collect();
                let want = flat(out_uses(&ctx, &out), false);
                let got = out_subs_in_order(&ctx, &out, &mut passes);
                assert_eq!(new(got), new(want), "section {section}");
            }
        }
    }

    /// A side's walk passing over runs of nodes at once meets what asking node by node
    /// meets, in the same order (sought until every identity is met, or to the end), on
    /// the test scene and the corpus.
    #[test]
    fn the_side_walk_passes_over_only_nodes_that_give_no_root() {
        let corpus = crate::test_support::corpus_texts(3)
            .into_iter()
            .map(|(_, t)| t);
        let mut roots = 0;
        for text in std::iter::once(SCENE.to_string()).chain(corpus) {
            let Ok(sc) = Scene::parse(text.as_bytes()) else {
                continue;
            };
            let ctx = Ctx::new([&sc, &sc, &sc], match_all([&sc, &sc, &sc]));
            let children = |x: usize| match ctx.id.sub.at[x][O] {
                Some(i) => flat(side_uses(&ctx, O, sc.sub_resources[i].section), true),
                None => Vec::new(),
            };
            for all in [ctx.id.sub.of[O].len(), usize::MAX] {
                let sought = Sought {
                    counts: &|_| true,
                    all,
                };
                let walk = |jump: bool| {
                    let mut w = Walk::new(&children, &sought);
                    side_roots(&ctx, O, &NewAhead::of(&ctx, O), &mut w, jump);
                    w.out
                };
                let want = walk(false);
                assert_eq!(walk(true), want);
                roots += want.len();
            }
        }
        assert!(roots > 0, "the walks met nothing");
    }

    /// In file order, backwards, and on the corpus.
    #[test]
    fn the_quick_reading_of_sections_agrees_with_the_one_with_keys() {
        let Ok(sc) = Scene::parse(SCENE.as_bytes()) else {
            panic!("the test scene parses");
        };
        let order: Vec<usize> = (0..sc.nodes.len()).collect();
        let uses = Ctx::new([&sc, &sc, &sc], match_all([&sc, &sc, &sc]));
        let n = flat(side_uses(&uses, O, sc.nodes[1].section), false);
        assert_eq!(n.len(), 3, "the test scene names sub_resources");
        let m = flat(side_uses(&uses, O, sc.nodes[2].section), false);
        assert_eq!(m.len(), 1, "an escaped id names one");
        let mut next = rng(7);
        agree_on(&sc, &order, &mut next);
        agree_on(
            &sc,
            &order.iter().rev().copied().collect::<Vec<_>>(),
            &mut next,
        );
        for (_, text) in crate::test_support::corpus_texts(11) {
            let Ok(sc) = Scene::parse(text.as_bytes()) else {
                continue;
            };
            let mut order: Vec<usize> = (0..sc.nodes.len()).collect();
            if next(2) == 0 && order.len() > 1 {
                let last = order.len() - 1;
                order.swap(0, last);
            }
            agree_on(&sc, &order, &mut next);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::merge::{merge, MergeOptions};

    fn m(base: &str, ours: &str, theirs: &str) -> String {
        let r = merge(
            base.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MergeOptions::default(),
        );
        assert_eq!(r.conflict_count, 0);
        String::from_utf8(r.text).unwrap_or_default()
    }

    const HEAD: &str = "[gd_scene format=3]\n\n";
    const SA: &str =
        "[sub_resource type=\"StyleBoxFlat\" id=\"StyleBoxFlat_a\"]\nbg_color = Color(1, 0, 0, 1)\n\n";
    const SB: &str =
        "[sub_resource type=\"StyleBoxFlat\" id=\"StyleBoxFlat_b\"]\nbg_color = Color(0, 1, 0, 1)\n\n";
    const ROOT: &str = "[node name=\"Root\" type=\"Control\"]\n";
    const A: &str = "\n[node name=\"A\" type=\"Panel\" parent=\".\"]\n";
    const USE_A: &str = "theme_override_styles/panel = SubResource(\"StyleBoxFlat_a\")\n";
    const USE_B: &str = "theme_override_styles/panel = SubResource(\"StyleBoxFlat_b\")\n";

    /// Ours adds B with a new style; theirs moves A's style to a new last node C. The
    /// saver meets B's style first: it writes it first, and so does the merge.
    #[test]
    fn sub_resources_follow_the_savers_order_when_both_sides_do() {
        let b_node = format!("\n[node name=\"B\" type=\"Panel\" parent=\".\"]\n{USE_B}");
        let c_node = format!("\n[node name=\"C\" type=\"Panel\" parent=\".\"]\n{USE_A}");
        let base = format!("{HEAD}{SA}{ROOT}{A}{USE_A}");
        let ours = format!("{HEAD}{SA}{SB}{ROOT}{A}{USE_A}{b_node}");
        let theirs = format!("{HEAD}{SA}{ROOT}{A}{c_node}");
        let text = m(&base, &ours, &theirs);
        assert_eq!(
            text,
            format!("{HEAD}{SB}{SA}{ROOT}{A}{b_node}{c_node}"),
            "{text}"
        );
    }

    /// A side whose sub_resources are in an order the saver does not write (by hand, or
    /// another tool) keeps the merged order: ours' C style before A's stays there.
    #[test]
    fn a_side_out_of_the_savers_order_keeps_the_merged_order() {
        let sc = SA.replace("_a", "_c").replace("1, 0, 0", "0, 0, 1");
        let c_node = format!(
            "\n[node name=\"C\" type=\"Panel\" parent=\".\"]\n{}",
            USE_A.replace("_a", "_c")
        );
        let b_node = format!("\n[node name=\"B\" type=\"Panel\" parent=\".\"]\n{USE_B}");
        let base = format!("{HEAD}{sc}{SA}{ROOT}{A}{USE_A}{c_node}");
        let ours = base.replace("1, 0, 0, 1", "1, 1, 0, 1");
        let theirs = format!("{HEAD}{sc}{SA}{SB}{ROOT}{A}{USE_A}{c_node}{b_node}");
        let text = m(&base, &ours, &theirs);
        let at = |id: &str| {
            text.find(&format!("id=\"StyleBoxFlat_{id}\"]"))
                .unwrap_or(0)
        };
        assert!(at("c") < at("a") && at("a") < at("b"), "{text}");
    }
}
