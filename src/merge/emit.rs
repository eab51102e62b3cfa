//! The structural merge proper: merge every matched part, reconcile ids, order the
//! result and print it. Text is carried as ranges into the side it came from and
//! rewritten (ids only) when printed, so untouched bytes stay untouched.

use super::ids::{is_int_id, natural_cmp, new_ext_id, new_sub_id};
use super::matching::{match_all, FxMap, IdIndex, Idents, B, O, T};
use super::sequence::{keeps_order, merge_order};
use super::{shorten, ConflictReport, Decision};
use crate::linemerge::{write_conflict, MarkerOptions};
use crate::model::{field_text, join_path, FileKind, Scene, SectionKind};
use crate::syntax::{Section, SmallStr};
use crate::value::{parse, rewrite_refs_in_text, scan_refs_in_text, sem_eq_top, RefKind};
use crate::write::section::NODE_FIELDS;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

/// Output of the structural merge, before validation.
pub struct Structural {
    /// With conflict markers.
    pub text: String,
    /// Every conflict resolved to ours (used to validate the structure); `None` when
    /// there is no conflict, so that `text` is that already.
    pub take_ours: Option<String>,
    /// Conflicts.
    pub conflicts: Vec<ConflictReport>,
    /// Decisions.
    pub decisions: Vec<Decision>,
}

type Src = (usize, Range<usize>);

/// The side a node's header comes from, and its fields (name and parent apart): each
/// taken from a side, or `None` when we write it (merged groups). No list: the side's
/// own fields, as they are.
type NodeFields<'a> = (usize, Option<Vec<(&'a str, Option<Src>)>>);

/// A piece of a tag: taken from a side, or written by us.
#[derive(Clone, Debug)]
enum Chunk {
    Src(Src),
    Lit(String),
}

#[derive(Clone, Debug)]
enum TagOut {
    /// A side's tag, verbatim except for ids.
    Src(Src),
    /// Rebuilt from fields.
    Fields(String, Vec<(String, Chunk)>),
    /// Conflicting tags (base, ours, theirs).
    Conflict(Box<[Option<Src>; 3]>),
    /// An ext/sub tag whose id is assigned at print time.
    Resource {
        side: usize,
        ident: usize,
        ext: bool,
    },
}

#[derive(Clone, Debug)]
enum Line {
    Src(Src),
    Conflict(Box<[Option<Src>; 3]>),
    /// A property line we wrote (a multi-line string merged line by line).
    Lit(String),
}

#[derive(Clone, Debug)]
struct OutSec {
    kind: SectionKind,
    /// Ours' section index when the whole body is ours' bytes.
    verbatim: Option<usize>,
    tag: TagOut,
    lines: Vec<Line>,
    /// The whole section conflicts (delete against modify): [base, ours, theirs] bodies.
    whole: Option<Box<[Option<usize>; 3]>>,
    /// The section this one merges, on each side (to keep a side's layout when every
    /// line comes from it).
    origin: [Option<usize>; 3],
}

impl OutSec {
    /// A section that is only a tag (ext_resource, connection, editable, header).
    fn tag_only(kind: SectionKind, verbatim: Option<usize>, tag: TagOut) -> OutSec {
        OutSec {
            kind,
            verbatim,
            tag,
            lines: Vec::new(),
            whole: None,
            origin: [None; 3],
        }
    }
}

struct Ctx<'a> {
    sc: [&'a Scene; 3],
    id: Idents<'a>,
    idx: [IdIndex<'a>; 3],
    /// side -> node path -> node index.
    paths: [FxMap<&'a str, usize>; 3],
    conflicts: Vec<ConflictReport>,
    decisions: Vec<Decision>,
    /// Normalized texts of values that hold references, by (side, start offset): a
    /// value is compared up to three times.
    norm_cache: std::cell::RefCell<HashMap<(usize, usize), std::rc::Rc<str>>>,
    /// `disagreeing_ids` of each pair of sides, when asked.
    disagree: [[std::cell::OnceCell<Vec<&'a str>>; 3]; 3],
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ParentRef {
    Root,
    Node(usize),
    /// A path inside an instanced scene: the nearest listed node on the way (the
    /// instance), then the rest of the path, so that renaming the instance is followed.
    Inside {
        anchor: usize,
        rest: String,
    },
    /// A path none of whose prefixes is listed.
    Outside(String),
}

fn eq_opt<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
    a == b
}

/// Three-way choice: which side's value wins, or a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    Ours,
    Theirs,
    Conflict,
}

fn pick3<V>(
    b: &Option<V>,
    o: &Option<V>,
    t: &Option<V>,
    eq: impl Fn(&Option<V>, &Option<V>) -> bool,
) -> Pick {
    if eq(o, t) || eq(b, t) {
        Pick::Ours
    } else if eq(b, o) {
        Pick::Theirs
    } else {
        Pick::Conflict
    }
}

impl<'a> Ctx<'a> {
    fn text(&self, s: &Src) -> &'a str {
        let sc: &'a Scene = self.sc[s.0];
        sc.doc.slice(&s.1)
    }

    fn sec(&self, side: usize, i: usize) -> &'a Section {
        let sc: &'a Scene = self.sc[side];
        &sc.doc.sections[i]
    }

    /// Normalized text (ids replaced by identities) for comparisons.
    fn norm(&self, s: &Src) -> String {
        let t = self.text(s);
        if !t.contains("Resource") {
            return t.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        let side = s.0;
        let r = rewrite_refs_in_text(t, &mut |kind, id| {
            Some(match kind {
                RefKind::Ext => match self.idx[side].ext.get(id) {
                    Some(&i) => format!("@E{}", self.id.ext.of[side][i]),
                    None => format!("?E{id}"),
                },
                RefKind::Sub => match self.idx[side].sub.get(id) {
                    Some(&i) => format!("@S{}", self.id.sub.of[side][i]),
                    None => format!("?S{id}"),
                },
            })
        });
        r.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn norm_cached(&self, s: &Src) -> std::rc::Rc<str> {
        let key = (s.0, s.1.start);
        if let Some(v) = self.norm_cache.borrow().get(&key) {
            return v.clone();
        }
        let v: std::rc::Rc<str> = self.norm(s).into();
        self.norm_cache.borrow_mut().insert(key, v.clone());
        v
    }

    /// Whether two values are the same, as the engine sees them.
    fn same(&self, a: &Option<Src>, b: &Option<Src>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                let (tx, ty) = (self.text(x), self.text(y));
                let refs = tx.contains("Resource(")
                    || ty.contains("Resource(")
                    || tx.contains("Resource ")
                    || ty.contains("Resource ");
                if tx == ty && (!refs || self.same_refs(x.0, y.0, tx)) {
                    return true;
                }
                let (nx, ny) = (self.norm_cached(x), self.norm_cached(y));
                if nx == ny {
                    return true;
                }
                match (parse(&nx), parse(&ny)) {
                    (Ok(vx), Ok(vy)) => sem_eq_top(&vx, &vy),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Whether every reference in `text` names the same identity (or the same unknown
    /// id) on side `a` and side `b`: then the text normalizes the same on both.
    fn same_refs(&self, a: usize, b: usize, text: &str) -> bool {
        // Without escapes a reference's id is written as it is: when no id that names
        // different things on the two sides occurs in the text, every reference agrees.
        if !text.contains('\\') {
            let d = self.disagree[a][b].get_or_init(|| self.disagreeing_ids(a, b));
            if d.iter().all(|id| !id.is_empty() && !text.contains(id)) {
                return true;
            }
        }
        let mut same = true;
        scan_refs_in_text(text, &mut |kind, id| {
            let ident = |s: usize| match kind {
                RefKind::Ext => self.idx[s].ext.get(id).map(|&i| self.id.ext.of[s][i]),
                RefKind::Sub => self.idx[s].sub.get(id).map(|&i| self.id.sub.of[s][i]),
            };
            same &= ident(a) == ident(b);
        });
        same
    }

    /// Ids (ext and sub) that name different identities on sides `a` and `b`, or are
    /// known on one of them only.
    fn disagreeing_ids(&self, a: usize, b: usize) -> Vec<&'a str> {
        let mut v = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            for (&id, &i) in &self.idx[x].ext {
                let iy = self.idx[y].ext.get(id).map(|&j| self.id.ext.of[y][j]);
                if iy != Some(self.id.ext.of[x][i]) {
                    v.push(id);
                }
            }
            for (&id, &i) in &self.idx[x].sub {
                let iy = self.idx[y].sub.get(id).map(|&j| self.id.sub.of[y][j]);
                if iy != Some(self.id.sub.of[x][i]) {
                    v.push(id);
                }
            }
        }
        v
    }

    /// The same as `same`, answered only when the bytes are equal (no normalization).
    fn same_bytes(&self, a: &Option<Src>, b: &Option<Src>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                let (tx, ty) = (self.text(x), self.text(y));
                tx == ty && (!tx.contains("Resource") || self.same_refs(x.0, y.0, tx))
            }
            _ => false,
        }
    }

    /// `pick3` with `same`, answering from equal bytes first when it can (the answer
    /// is the same: equal bytes are the same value).
    fn pick_same(&self, b: &Option<Src>, o: &Option<Src>, t: &Option<Src>) -> Pick {
        if self.same_bytes(o, t) || self.same_bytes(b, t) {
            return Pick::Ours;
        }
        if self.same_bytes(b, o) {
            // Base and ours normalize the same: ours' answers are base's.
            return if self.same(b, t) {
                Pick::Ours
            } else {
                Pick::Theirs
            };
        }
        pick3(b, o, t, |x, y| self.same(x, y))
    }

    fn parent_ref(&self, side: usize, n: usize) -> ParentRef {
        // The parent path names a listed node (or is "."): known from matching.
        if let Some(&Some(pi)) = self.id.parent_at[side].get(n) {
            return ParentRef::Node(self.id.node.of[side][pi]);
        }
        match &self.sc[side].nodes[n].parent {
            None => ParentRef::Root,
            Some(p) if p == "." => ParentRef::Node(self.root_ident(side)),
            Some(p) => match self.paths[side].get(p.as_str()) {
                Some(&i) => ParentRef::Node(self.id.node.of[side][i]),
                None => {
                    let mut cut = p.len();
                    while let Some(k) = p[..cut].rfind('/') {
                        if let Some(&i) = self.paths[side].get(&p[..k]) {
                            return ParentRef::Inside {
                                anchor: self.id.node.of[side][i],
                                rest: p[k + 1..].to_string(),
                            };
                        }
                        cut = k;
                    }
                    ParentRef::Outside(p.to_string())
                }
            },
        }
    }

    fn root_ident(&self, side: usize) -> usize {
        let nodes = &self.sc[side].nodes;
        let i = match nodes.first() {
            Some(n) if n.parent.is_none() => Some(0),
            _ => nodes.iter().position(|n| n.parent.is_none()),
        };
        i.map_or(usize::MAX, |i| self.id.node.of[side][i])
    }

    /// Both sides changed a multi-line string (a script's source, a shader's code): merge
    /// it line by line, as git would, and use the result when that is clean.
    fn merge_text_value(
        &self,
        b: &Option<Src>,
        o: &Option<Src>,
        t: &Option<Src>,
        oline: &Option<Src>,
    ) -> Option<String> {
        let (b, o, t, oline) = (b.as_ref()?, o.as_ref()?, t.as_ref()?, oline.as_ref()?);
        let texts = [self.text(b), self.text(o), self.text(t)];
        if !texts
            .iter()
            .all(|x| x.starts_with('"') && x.ends_with('"') && x.contains('\n'))
        {
            return None;
        }
        let m = crate::linemerge::merge_lines(
            texts[0].as_bytes(),
            texts[1].as_bytes(),
            texts[2].as_bytes(),
            &MarkerOptions::default(),
        );
        if m.conflicts != 0 {
            return None;
        }
        let merged = String::from_utf8(m.text).ok()?;
        // It must still be exactly one string value.
        if !matches!(parse(&merged), Ok(crate::value::Value::String(_))) {
            return None;
        }
        let prefix = self.sc[O].doc.slice(&(oline.1.start..o.1.start));
        Some(format!("{prefix}{merged}\n"))
    }

    /// Merge the property lines of one section given its versions on each side.
    fn merge_props(
        &mut self,
        secs: [Option<usize>; 3],
        location: &dyn Fn() -> String,
    ) -> (Vec<Line>, bool) {
        let mut maps: [BTreeMap<&'a str, (usize, Src)>; 3] = Default::default();
        let mut orders: [Vec<&'a str>; 3] = Default::default();
        for side in 0..3 {
            if let Some(si) = secs[side] {
                let sec = self.sec(side, si);
                for (k, p) in sec.props.iter().enumerate() {
                    if maps[side]
                        .insert(p.key.as_str(), (k, (side, p.value.clone())))
                        .is_none()
                    {
                        orders[side].push(p.key.as_str());
                    }
                }
            }
        }
        let mut keys: BTreeSet<&str> = BTreeSet::new();
        for m in &maps {
            keys.extend(m.keys().copied());
        }
        let sc = self.sc;
        let line_of =
            |side: usize, key: &str, maps: &[BTreeMap<&'a str, (usize, Src)>; 3]| -> Option<Src> {
                let (k, _) = maps[side].get(key)?;
                let si = secs[side]?;
                Some((side, sc[side].doc.sections[si].props[*k].line.clone()))
            };
        let mut chosen: BTreeMap<&str, Vec<Line>> = BTreeMap::new();
        // Every line a side has for a key: Godot 3 files can repeat a node property, and
        // ours' bytes stay as they are.
        let all_lines = |side: usize, key: &str| -> Vec<Line> {
            secs[side].map_or_else(Vec::new, |si| {
                sc[side].doc.sections[si]
                    .props
                    .iter()
                    .filter(|p| p.key == key)
                    .map(|p| Line::Src((side, p.line.clone())))
                    .collect()
            })
        };
        let mut conflict = false;
        for key in keys {
            let v = |s: usize| maps[s].get(key).map(|(_, src)| src.clone());
            let (b, o, t) = (v(B), v(O), v(T));
            match self.pick_same(&b, &o, &t) {
                Pick::Ours => {
                    if maps[O].contains_key(key) {
                        chosen.insert(key, all_lines(O, key));
                    }
                }
                Pick::Theirs => {
                    if maps[T].contains_key(key) {
                        chosen.insert(key, all_lines(T, key));
                    }
                }
                Pick::Conflict => {
                    if let Some(line) = self.merge_text_value(&b, &o, &t, &line_of(O, key, &maps)) {
                        chosen.insert(key, vec![Line::Lit(line)]);
                        continue;
                    }
                    conflict = true;
                    self.conflicts.push(ConflictReport {
                        location: location(),
                        property: Some(key.to_string()),
                        base: b.as_ref().map(|s| shorten(self.text(s), 60)),
                        ours: o.as_ref().map(|s| shorten(self.text(s), 60)),
                        theirs: t.as_ref().map(|s| shorten(self.text(s), 60)),
                    });
                    chosen.insert(
                        key,
                        vec![Line::Conflict(Box::new([
                            line_of(B, key, &maps),
                            line_of(O, key, &maps),
                            line_of(T, key, &maps),
                        ]))],
                    );
                }
            }
        }
        // Order: ours' order, with the keys only theirs (or base) has after their neighbours.
        let names: Vec<&str> = chosen.keys().copied().collect();
        let num: HashMap<&str, usize> = names.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let seq = |side: usize| -> Vec<usize> {
            orders[side]
                .iter()
                .filter_map(|k| num.get(k).copied())
                .collect()
        };
        let keep = vec![true; names.len()];
        let order = merge_order(&seq(B), &seq(O), &seq(T), &keep);
        let lines = order
            .into_iter()
            .filter_map(|i| chosen.remove(names[i]))
            .flatten()
            .collect();
        (lines, conflict)
    }
}

fn field_src(sc: &Scene, side: usize, sec: usize, key: &str) -> Option<Src> {
    sc.doc.sections[sec]
        .tag
        .field(key)
        .map(|r| (side, r.clone()))
}

/// Merge group lists as sets (spec §6.23).
fn merge_groups(ctx: &Ctx, g: [Option<Src>; 3]) -> Option<Vec<String>> {
    let set = |s: &Option<Src>| -> BTreeSet<String> {
        s.as_ref()
            .and_then(|s| parse(ctx.text(s)).ok())
            .map(|v| match v {
                crate::value::Value::Array(items) => items
                    .into_iter()
                    .filter_map(|i| match i {
                        crate::value::Value::String(s) | crate::value::Value::StringName(s) => {
                            Some(s)
                        }
                        _ => None,
                    })
                    .collect(),
                _ => BTreeSet::new(),
            })
            .unwrap_or_default()
    };
    let (b, o, t) = (set(&g[0]), set(&g[1]), set(&g[2]));
    let mut r: BTreeSet<String> = b.clone();
    for side in [&o, &t] {
        for x in b.difference(side) {
            r.remove(x);
        }
        for x in side.difference(&b) {
            r.insert(x.clone());
        }
    }
    if r.is_empty() {
        None
    } else {
        Some(r.into_iter().collect())
    }
}

/// Build the merged scene.
pub fn merge_scenes(b: &Scene, o: &Scene, t: &Scene, markers: &MarkerOptions) -> Structural {
    let sc = [b, o, t];
    let mut id = match_all(sc);
    let paths = std::mem::take(&mut id.paths);
    let mut ctx = Ctx {
        sc,
        idx: [IdIndex::new(b), IdIndex::new(o), IdIndex::new(t)],
        paths,
        id,
        conflicts: Vec::new(),
        decisions: Vec::new(),
        norm_cache: Default::default(),
        disagree: Default::default(),
    };
    for m in &ctx.id.sub_matches {
        let ident = m.ident;
        if let Some(oi) = ctx.id.sub.at[ident][O].filter(|_| m.side == T) {
            let (tr, or) = (&sc[T].sub_resources[m.index], &sc[O].sub_resources[oi]);
            if m.how.starts_with("identical") {
                ctx.decisions.push(Decision::ResourceDeduplicated {
                    section: "sub_resource",
                    what: format!("{} \"{}\"", tr.type_name, tr.id),
                    id: or.id.clone(),
                });
            } else {
                ctx.decisions.push(Decision::ResourceMatched {
                    type_name: tr.type_name.clone(),
                    theirs_id: tr.id.clone(),
                    ours_id: or.id.clone(),
                    how: m.how,
                });
            }
        }
    }

    // ---- Nodes ----
    // Per-identity tables are vectors indexed by the (dense) node identity.
    let godot3 = o.is_godot3();
    let n_idents = ctx.id.node.at.len();
    let mut node_out: Vec<Option<OutSec>> = vec![None; n_idents];
    let mut node_parent: Vec<Option<ParentRef>> = vec![None; n_idents];
    let mut node_name: Vec<Option<&str>> = vec![None; n_idents];
    let mut node_conflict_tag: Vec<bool> = vec![false; n_idents];
    let mut group_text: HashMap<usize, String> = HashMap::new();
    // Renames (true) and moves (false) followed: (identity, rename?, base path).
    let mut followed: Vec<(usize, bool, String)> = Vec::new();
    // Node header fields decided per identity, printed once paths are known.
    let mut node_fields: Vec<Option<NodeFields>> = vec![None; n_idents];
    // A side's tag fields, name and parent apart.
    let own_fields = |side: usize, sec: usize| -> Vec<(&str, Option<Src>)> {
        sc[side].doc.sections[sec]
            .tag
            .fields
            .iter()
            .filter(|f| f.key != "name" && f.key != "parent")
            .map(|f| (f.key.as_str(), Some((side, f.value.clone()))))
            .collect()
    };
    let own_lines = |side: usize, sec: usize| -> Vec<Line> {
        sc[side].doc.sections[sec]
            .props
            .iter()
            .map(|p| Line::Src((side, p.line.clone())))
            .collect()
    };
    for ident in 0..n_idents {
        let at = ctx.id.node.at[ident];
        let secs = [0, 1, 2].map(|s| at[s].map(|i| sc[s].nodes[i].section));
        let path_of = |s: usize| {
            at[s]
                .map(|i| {
                    let n = &sc[s].nodes[i];
                    if n.path == "." {
                        n.name.to_string()
                    } else {
                        n.path.to_string()
                    }
                })
                .unwrap_or_default()
        };
        // Only needed for a conflict: built when one is reported.
        let location = || {
            format!(
                "node \"{}\"",
                if at[O].is_some() {
                    path_of(O)
                } else {
                    path_of(T)
                }
            )
        };
        match (at[B].is_some(), at[O].is_some(), at[T].is_some()) {
            (_, true, true) => {}
            (false, true, false) | (false, false, true) => {
                // Added by one side.
                let side = if at[O].is_some() { O } else { T };
                let i = at[side].unwrap_or_default();
                node_parent[ident] = Some(ctx.parent_ref(side, i));
                node_name[ident] = Some(sc[side].nodes[i].name.as_str());
                let sec = sc[side].nodes[i].section;
                node_fields[ident] = Some((side, None));
                node_out[ident] = Some(OutSec {
                    kind: SectionKind::Node,
                    verbatim: (side == O).then_some(sec),
                    tag: TagOut::Src((side, sc[side].doc.sections[sec].tag.span.clone())),
                    lines: own_lines(side, sec),
                    whole: None,
                    origin: secs,
                });
                continue;
            }
            (true, true, false) | (true, false, true) => {
                // Deleted by one side: gone if the other side did not change it.
                let kept = if at[O].is_some() { O } else { T };
                let bs = secs[B].unwrap_or_default();
                let ks = secs[kept].unwrap_or_default();
                let unchanged = {
                    let bp = sc[B].doc.sections[bs].props.len()
                        == sc[kept].doc.sections[ks].props.len()
                        && sc[B].doc.sections[bs]
                            .props
                            .iter()
                            .zip(&sc[kept].doc.sections[ks].props)
                            .all(|(x, y)| {
                                x.key == y.key
                                    && ctx.same(
                                        &Some((B, x.value.clone())),
                                        &Some((kept, y.value.clone())),
                                    )
                            });
                    // The parent counts by identity: a renamed ancestor changes its text only.
                    let same_parent = ctx.parent_ref(B, at[B].unwrap_or_default())
                        == ctx.parent_ref(kept, at[kept].unwrap_or_default());
                    let fields = |s: usize, i: usize| {
                        sc[s].doc.sections[i]
                            .tag
                            .fields
                            .iter()
                            .filter(|f| f.key != "parent")
                            .collect::<Vec<_>>()
                    };
                    let (fb, fk) = (fields(B, bs), fields(kept, ks));
                    let bt = fb.len() == fk.len()
                        && fb.iter().zip(&fk).all(|(x, y)| {
                            x.key == y.key
                                && ctx.same(
                                    &Some((B, x.value.clone())),
                                    &Some((kept, y.value.clone())),
                                )
                        });
                    bp && bt && same_parent
                };
                if unchanged {
                    continue;
                }
                ctx.conflicts.push(ConflictReport {
                    location: location(),
                    property: None,
                    base: Some("(node)".into()),
                    ours: Some(if kept == O {
                        "changed".into()
                    } else {
                        "deleted".into()
                    }),
                    theirs: Some(if kept == T {
                        "changed".into()
                    } else {
                        "deleted".into()
                    }),
                });
                let i = at[kept].unwrap_or_default();
                node_parent[ident] = Some(ctx.parent_ref(kept, i));
                node_name[ident] = Some(sc[kept].nodes[i].name.as_str());
                node_out[ident] = Some(OutSec {
                    kind: SectionKind::Node,
                    verbatim: None,
                    tag: TagOut::Src((kept, 0..0)),
                    lines: Vec::new(),
                    whole: Some(Box::new([secs[B], secs[O], secs[T]])),
                    origin: [None; 3],
                });
                continue;
            }
            _ => continue, // deleted by both, or base only
        }
        // Present on both sides: merge the header field by field, then the properties.
        let (oi, ti) = (at[O].unwrap_or_default(), at[T].unwrap_or_default());
        // Fast path: the same bytes on all three sides (most nodes of a big scene).
        if let (Some(bs), Some(os), Some(ts)) = (secs[B], secs[O], secs[T]) {
            let body = |s: usize, i: usize| {
                sc[s]
                    .doc
                    .slice(&(sc[s].doc.sections[i].span.start..body_end(sc[s], i)))
            };
            let bb = body(B, bs);
            let same_bytes = body(O, os) == bb && body(T, ts) == bb;
            // Equal bytes can still name different resources when ids were renumbered.
            let same_refs = same_bytes
                && (!bb.contains("Resource") || {
                    // The same bytes: the same ids must name the same identities.
                    let mut same = true;
                    scan_refs_in_text(bb, &mut |kind, id| {
                        let ident = |s: usize| match kind {
                            RefKind::Ext => ctx.idx[s].ext.get(id).map(|&i| ctx.id.ext.of[s][i]),
                            RefKind::Sub => ctx.idx[s].sub.get(id).map(|&i| ctx.id.sub.of[s][i]),
                        };
                        let b = ident(B);
                        same &= ident(O) == b && ident(T) == b;
                    });
                    same
                });
            if same_refs {
                let po = ctx.parent_ref(O, oi);
                if ctx.parent_ref(B, at[B].unwrap_or_default()) == po && po == ctx.parent_ref(T, ti)
                {
                    node_parent[ident] = Some(po);
                    node_name[ident] = Some(sc[O].nodes[oi].name.as_str());
                    node_fields[ident] = Some((O, None));
                    node_out[ident] = Some(OutSec {
                        kind: SectionKind::Node,
                        verbatim: None,
                        tag: TagOut::Src((O, sc[O].doc.sections[os].tag.span.clone())),
                        lines: own_lines(O, os),
                        whole: None,
                        origin: secs,
                    });
                    continue;
                }
            }
        }
        let pr = [
            at[B].map(|i| ctx.parent_ref(B, i)),
            Some(ctx.parent_ref(O, oi)),
            Some(ctx.parent_ref(T, ti)),
        ];
        let mut tag_conflict = false;
        let parent = match pick3(&pr[0], &pr[1], &pr[2], eq_opt) {
            Pick::Ours => pr[1].clone(),
            Pick::Theirs => pr[2].clone(),
            Pick::Conflict => {
                tag_conflict = true;
                pr[1].clone()
            }
        }
        .unwrap_or(ParentRef::Root);
        let names = [
            at[B].map(|i| sc[B].nodes[i].name.as_str()),
            Some(sc[O].nodes[oi].name.as_str()),
            Some(sc[T].nodes[ti].name.as_str()),
        ];
        let name = match pick3(&names[0], &names[1], &names[2], eq_opt) {
            Pick::Ours => names[1],
            Pick::Theirs => names[2],
            Pick::Conflict => {
                tag_conflict = true;
                names[1]
            }
        }
        .unwrap_or_default();
        if let (Some(bn), Some(bp)) = (names[0], &pr[0]) {
            if name != bn && (names[1] != Some(bn)) != (names[2] != Some(bn)) {
                followed.push((ident, true, path_of(B)));
            }
            if parent != *bp && (pr[1].as_ref() != Some(bp)) != (pr[2].as_ref() != Some(bp)) {
                followed.push((ident, false, path_of(B)));
            }
        }
        node_parent[ident] = Some(parent);
        node_name[ident] = Some(name);
        // Other fields.
        let mut keys: Vec<&str> = Vec::new();
        for s in 0..3 {
            if let Some(si) = secs[s] {
                for f in &sc[s].doc.sections[si].tag.fields {
                    if !keys.contains(&f.key.as_str()) {
                        keys.push(f.key.as_str());
                    }
                }
            }
        }
        let mut fields: Vec<(&str, Option<Src>)> = Vec::new();
        for key in keys {
            if key == "name" || key == "parent" {
                continue;
            }
            let v = |s: usize| secs[s].and_then(|si| field_src(sc[s], s, si, key));
            let (fb, fo, ft) = (v(B), v(O), v(T));
            if key == "groups" {
                let merged = merge_groups(&ctx, [fb.clone(), fo.clone(), ft.clone()]);
                let same_as =
                    |x: &Option<Src>| merge_groups(&ctx, [None, x.clone(), None]) == merged;
                if same_as(&fo) {
                    fields.push((key, fo));
                } else if same_as(&ft) {
                    fields.push((key, ft));
                } else {
                    let list = merged.unwrap_or_default();
                    let text = if godot3 {
                        format!(
                            "[\n{}\n]",
                            list.iter()
                                .map(|g| format!("\"{}\",", crate::write::c_escape(g)))
                                .collect::<Vec<_>>()
                                .join("\n")
                        )
                    } else {
                        format!(
                            "[{}]",
                            list.iter()
                                .map(|g| format!("\"{}\"", crate::write::c_escape(g)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    group_text.insert(ident, text);
                    fields.push((key, None));
                }
                continue;
            }
            let p = if key == "unique_id" && fo.is_some() {
                Pick::Ours
            } else {
                ctx.pick_same(&fb, &fo, &ft)
            };
            match p {
                Pick::Ours => fields.push((key, fo)),
                Pick::Theirs => fields.push((key, ft)),
                Pick::Conflict => {
                    tag_conflict = true;
                    ctx.conflicts.push(ConflictReport {
                        location: location(),
                        property: Some(format!("[node] {key}")),
                        base: fb.as_ref().map(|s| shorten(ctx.text(s), 60)),
                        ours: fo.as_ref().map(|s| shorten(ctx.text(s), 60)),
                        theirs: ft.as_ref().map(|s| shorten(ctx.text(s), 60)),
                    });
                    fields.push((key, fo));
                }
            }
        }
        if tag_conflict {
            let loc = location();
            if !ctx.conflicts.iter().any(|c| {
                c.location == loc
                    && c.property
                        .as_deref()
                        .is_some_and(|p| p.starts_with("[node]"))
            }) {
                ctx.conflicts.push(ConflictReport {
                    location: loc,
                    property: Some("[node] name/parent".into()),
                    base: Some(path_of(B)),
                    ours: Some(path_of(O)),
                    theirs: Some(path_of(T)),
                });
            }
            node_conflict_tag[ident] = true;
        }
        node_fields[ident] = Some((O, Some(fields)));
        let (lines, _) = ctx.merge_props(secs, &location);
        let osec = secs[O].unwrap_or_default();
        let tag = if tag_conflict {
            TagOut::Conflict(Box::new([
                secs[B].map(|s| (B, sc[B].doc.sections[s].tag.span.clone())),
                Some((O, sc[O].doc.sections[osec].tag.span.clone())),
                Some((
                    T,
                    sc[T].doc.sections[secs[T].unwrap_or_default()]
                        .tag
                        .span
                        .clone(),
                )),
            ]))
        } else {
            TagOut::Src((O, sc[O].doc.sections[osec].tag.span.clone()))
        };
        node_out[ident] = Some(OutSec {
            kind: SectionKind::Node,
            verbatim: None,
            tag,
            lines,
            whole: None,
            origin: secs,
        });
    }

    // A node kept under a parent that one side deleted: the parent comes back as a
    // delete-against-modify conflict, never silently moved elsewhere.
    loop {
        let missing: BTreeSet<usize> = (0..n_idents)
            .filter(|&i| node_out[i].is_some())
            .filter_map(|i| match &node_parent[i] {
                Some(ParentRef::Node(p)) | Some(ParentRef::Inside { anchor: p, .. })
                    if *p < n_idents && node_out[*p].is_none() =>
                {
                    Some(*p)
                }
                _ => None,
            })
            .collect();
        if missing.is_empty() {
            break;
        }
        for p in missing {
            let at = ctx.id.node.at[p];
            let secs = [0, 1, 2].map(|s| at[s].map(|i| sc[s].nodes[i].section));
            let kept = if at[O].is_some() {
                O
            } else if at[T].is_some() {
                T
            } else {
                B
            };
            let Some(i) = at[kept] else { continue };
            let n = &sc[kept].nodes[i];
            node_parent[p] = Some(ctx.parent_ref(kept, i));
            node_name[p] = Some(n.name.as_str());
            let state = |s: usize| if at[s].is_some() { "kept" } else { "deleted" };
            ctx.conflicts.push(ConflictReport {
                location: format!(
                    "node \"{}\"",
                    if n.path == "." {
                        n.name.clone()
                    } else {
                        n.path.clone()
                    }
                ),
                property: Some("(deleted, but the other side added children under it)".into()),
                base: Some("(node)".into()),
                ours: Some(state(O).into()),
                theirs: Some(state(T).into()),
            });
            node_out[p] = Some(OutSec {
                kind: SectionKind::Node,
                verbatim: None,
                tag: TagOut::Src((kept, 0..0)),
                lines: Vec::new(),
                whole: Some(Box::new(secs)),
                origin: [None; 3],
            });
        }
    }

    // Merged paths.
    let mut merged_path: Vec<Option<SmallStr>> = vec![None; n_idents];
    /// Fill `memo[ident]` (and its ancestors') with the merged path. An identity beyond
    /// the table has no parent: its path is ".".
    fn path_of_ident(
        ident: usize,
        parent: &[Option<ParentRef>],
        name: &[Option<&str>],
        memo: &mut [Option<SmallStr>],
        depth: usize,
    ) {
        if memo.get(ident).is_none_or(Option::is_some) {
            return;
        }
        let name_of = |i: usize| name.get(i).copied().flatten().unwrap_or("");
        // Most paths fit a SmallStr inline: no allocation per node.
        let join = |p: &str, n: &str| {
            if p == "." || p.is_empty() {
                SmallStr::copy_from(n)
            } else {
                SmallStr::concat(&[p, "/", n])
            }
        };
        let r = match &parent[ident] {
            None | Some(ParentRef::Root) => SmallStr::copy_from("."),
            Some(ParentRef::Outside(p)) => join(p, name_of(ident)),
            Some(ParentRef::Inside { anchor, rest }) => {
                if depth <= 4096 {
                    path_of_ident(*anchor, parent, name, memo, depth + 1);
                }
                let pp = if depth > 4096 {
                    "."
                } else {
                    memo.get(*anchor).and_then(Option::as_deref).unwrap_or(".")
                };
                join(&join_path(pp, rest), name_of(ident))
            }
            Some(ParentRef::Node(p)) => {
                if depth <= 4096 {
                    path_of_ident(*p, parent, name, memo, depth + 1);
                }
                let pp = if depth > 4096 {
                    "."
                } else {
                    memo.get(*p).and_then(Option::as_deref).unwrap_or(".")
                };
                join(pp, name_of(ident))
            }
        };
        memo[ident] = Some(r);
    }
    for (ident, out) in node_out.iter().enumerate() {
        if out.is_some() {
            path_of_ident(ident, &node_parent, &node_name, &mut merged_path, 0);
        }
    }
    let mp = |ident: usize| merged_path.get(ident).and_then(Option::as_deref);
    for (ident, rename, from) in followed {
        let to = match mp(ident) {
            Some(".") | None => node_name[ident].unwrap_or_default().to_string(),
            Some(p) => p.to_string(),
        };
        ctx.decisions.push(if rename {
            Decision::NodeRenameFollowed { from, to }
        } else {
            Decision::NodeMoveFollowed { from, to }
        });
    }
    // Parent text of each node in the result.
    let parent_text = |ident: usize| -> Option<Cow<str>> {
        match &node_parent[ident] {
            None | Some(ParentRef::Root) => None,
            Some(ParentRef::Outside(p)) => Some(Cow::Borrowed(p.as_str())),
            Some(ParentRef::Inside { anchor, rest }) => {
                Some(Cow::Owned(join_path(mp(*anchor).unwrap_or("."), rest)))
            }
            Some(ParentRef::Node(p)) => Some(Cow::Borrowed(mp(*p).unwrap_or("."))),
        }
    };
    // Rebuild node tags whose fields or parent path changed.
    for (ident, out) in node_out.iter_mut().enumerate() {
        let Some(out) = out else { continue };
        if out.whole.is_some() || node_conflict_tag[ident] {
            continue;
        }
        let Some((side, fields)) = &node_fields[ident] else {
            continue;
        };
        let side = *side;
        let at = ctx.id.node.at[ident];
        let Some(si) = at[side] else { continue };
        let sec_index = sc[side].nodes[si].section;
        let sec = &sc[side].doc.sections[sec_index];
        let want_parent = parent_text(ident);
        let want_name = node_name[ident].unwrap_or_default();
        let cur_parent = sec
            .tag
            .field("parent")
            .map(|r| field_text_cow(&sc[side].doc, r));
        let cur_name = sec
            .tag
            .field("name")
            .map(|r| field_text_cow(&sc[side].doc, r))
            .unwrap_or_default();
        let same_fields = match fields {
            Some(fields) => {
                fields.len() + 2
                    == sec.tag.fields.len() + usize::from(sec.tag.field("parent").is_none())
                    && fields.iter().all(|(k, v)| match v {
                        Some((s, r)) => *s == side && sec.tag.field(k) == Some(r),
                        None => false,
                    })
            }
            None => {
                // The same test on the side's own fields.
                let own = sec
                    .tag
                    .fields
                    .iter()
                    .filter(|f| f.key != "name" && f.key != "parent");
                own.clone().count() + 2
                    == sec.tag.fields.len() + usize::from(sec.tag.field("parent").is_none())
                    && own
                        .into_iter()
                        .all(|f| sec.tag.field(&f.key) == Some(&f.value))
            }
        };
        if same_fields && want_parent == cur_parent && want_name == cur_name {
            continue;
        }
        let own;
        let fields: &[(&str, Option<Src>)] = match fields {
            Some(f) => f,
            None => {
                own = own_fields(side, sec_index);
                &own
            }
        };
        let mut list: Vec<(String, Chunk)> = Vec::new();
        list.push((
            "name".into(),
            Chunk::Lit(format!("\"{}\"", crate::write::c_escape(want_name))),
        ));
        for (k, v) in fields {
            match v {
                Some(src) => list.push((k.to_string(), Chunk::Src(src.clone()))),
                None if *k == "groups" => {
                    if let Some(text) = group_text.get(&ident) {
                        list.push((k.to_string(), Chunk::Lit(text.clone())));
                    }
                }
                None => {}
            }
        }
        if let Some(p) = want_parent {
            list.push((
                "parent".into(),
                Chunk::Lit(format!("\"{}\"", crate::write::c_escape(&p))),
            ));
        }
        // Canonical field order.
        list.sort_by_key(|(k, _)| {
            NODE_FIELDS
                .iter()
                .position(|f| f == k)
                .unwrap_or(NODE_FIELDS.len())
        });
        out.tag = TagOut::Fields("node".into(), list);
        out.verbatim = None;
    }
    // Node order.
    let keep: Vec<bool> = node_out.iter().map(Option::is_some).collect();
    let kept = |x: usize| keep.get(x).copied().unwrap_or(false);
    let [nb, no, nt] = &ctx.id.node.of;
    let mut node_order = merge_order(nb, no, nt, &keep);
    {
        let filt = |v: &[usize]| v.iter().copied().filter(|&x| kept(x)).collect::<Vec<_>>();
        let fb = filt(nb);
        let (fo, ft) = (filt(no), filt(nt));
        if fo != fb && ft != fb {
            ctx.decisions.push(Decision::SiblingOrderMerged);
            // Both reordered the nodes they share with base, and not the same way: order
            // has no conflict marker, so say that ours' order won.
            if !keeps_order(&fb, &fo) && !keeps_order(&fb, &ft) && !keeps_order(&fo, &ft) {
                ctx.decisions.push(Decision::OrderConflictOursKept);
            }
        }
    }
    // Parents before children.
    {
        // Position of each identity in the order (usize::MAX: not there).
        let mut pos_of: Vec<usize> = vec![usize::MAX; n_idents];
        for (i, &x) in node_order.iter().enumerate() {
            if let Some(p) = pos_of.get_mut(x) {
                *p = i;
            }
        }
        let pos = |x: usize| pos_of.get(x).copied().filter(|&p| p != usize::MAX);
        let parent_of = |x: usize| match node_parent.get(x).and_then(Option::as_ref) {
            Some(ParentRef::Node(p) | ParentRef::Inside { anchor: p, .. }) => Some(*p),
            _ => None,
        };
        let bad = node_order.iter().any(|&x| {
            parent_of(x)
                .and_then(pos)
                .is_some_and(|pp| Some(pp) > pos(x))
        });
        if bad {
            let mut children: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            let mut roots = Vec::new();
            for &x in &node_order {
                match parent_of(x).and_then(pos) {
                    Some(pp) => children.entry(pp).or_default().push(x),
                    None => roots.push(x),
                }
            }
            let mut out = Vec::with_capacity(node_order.len());
            let mut stack: Vec<usize> = roots.into_iter().rev().collect();
            let mut seen = BTreeSet::new();
            while let Some(x) = stack.pop() {
                if !seen.insert(x) {
                    continue;
                }
                out.push(x);
                if let Some(c) = pos(x).and_then(|px| children.get(&px)) {
                    stack.extend(c.iter().rev());
                }
            }
            for &x in &node_order {
                if seen.insert(x) {
                    out.push(x);
                }
            }
            node_order = out;
        }
    }
    // ---- [resource] ----
    let resource_out = if o.kind == FileKind::Resource {
        let secs = [b.resource, o.resource, t.resource];
        let (lines, _) = ctx.merge_props(secs, &|| "[resource]".to_string());
        secs[O].map(|osec| OutSec {
            kind: SectionKind::Resource,
            verbatim: None,
            tag: TagOut::Src((O, o.doc.sections[osec].tag.span.clone())),
            lines,
            whole: None,
            origin: secs,
        })
    } else {
        None
    };

    // ---- sub_resources: merge contents of every identity ----
    let mut sub_out: BTreeMap<usize, OutSec> = BTreeMap::new();
    for ident in 0..ctx.id.sub.at.len() {
        let at = ctx.id.sub.at[ident];
        let secs = [0, 1, 2].map(|s| at[s].map(|i| sc[s].sub_resources[i].section));
        // A missing side counts as unchanged from base (reachability decides presence).
        let mut v = secs;
        if v[O].is_none() && v[T].is_some() {
            v[O] = if v[B].is_some() { v[B] } else { None };
        }
        let vv = [
            v[B],
            if secs[O].is_none() { None } else { v[O] },
            if secs[T].is_none() { None } else { v[T] },
        ];
        let (src_side, lines) = match (vv[O], vv[T]) {
            (Some(_), Some(_)) => {
                let loc = || {
                    format!(
                        "sub_resource \"{}\"",
                        sc[O].sub_resources[at[O].unwrap_or_default()].id
                    )
                };
                (O, ctx.merge_props(vv, &loc).0)
            }
            _ => {
                let side = if secs[O].is_some() {
                    O
                } else if secs[T].is_some() {
                    T
                } else {
                    B
                };
                let Some(si) = secs[side] else { continue };
                (
                    side,
                    sc[side].doc.sections[si]
                        .props
                        .iter()
                        .map(|p| Line::Src((side, p.line.clone())))
                        .collect(),
                )
            }
        };
        sub_out.insert(
            ident,
            OutSec {
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
            },
        );
    }

    // ---- Reachability of resources ----
    let mut ext_used: BTreeSet<usize> = BTreeSet::new();
    let mut sub_used: BTreeSet<usize> = BTreeSet::new();
    let refs_of = |ctx: &Ctx, s: &Src, ext_used: &mut BTreeSet<usize>, subs: &mut Vec<usize>| {
        let side = s.0;
        let text = ctx.text(s);
        // No reference without the word.
        if !text.contains("Resource") {
            return;
        }
        scan_refs_in_text(text, &mut |k, id| match k {
            RefKind::Ext => {
                if let Some(&i) = ctx.idx[side].ext.get(id) {
                    ext_used.insert(ctx.id.ext.of[side][i]);
                }
            }
            RefKind::Sub => {
                if let Some(&i) = ctx.idx[side].sub.get(id) {
                    subs.push(ctx.id.sub.of[side][i]);
                }
            }
        });
    };
    // The references of a section's texts: ext identities into the set, sub identities
    // onto the list, in text order.
    let sec_refs =
        |ctx: &Ctx, out: &OutSec, ext_used: &mut BTreeSet<usize>, subs: &mut Vec<usize>| {
            let mut each = |s: &Src| refs_of(ctx, s, ext_used, subs);
            match &out.tag {
                TagOut::Src(s) => each(s),
                TagOut::Fields(_, f) => {
                    for (_, c) in f {
                        if let Chunk::Src(s) = c {
                            each(s);
                        }
                    }
                }
                TagOut::Conflict(x) => x.iter().flatten().for_each(&mut each),
                TagOut::Resource { .. } => {}
            }
            for l in &out.lines {
                match l {
                    Line::Src(s) => each(s),
                    Line::Conflict(x) => x.iter().flatten().for_each(&mut each),
                    Line::Lit(_) => {}
                }
            }
            if let Some(w) = &out.whole {
                for (s, si) in w.iter().enumerate() {
                    if let Some(si) = si {
                        each(&(s, ctx.sc[s].doc.sections[*si].span.clone()));
                    }
                }
            }
        };
    // Each sub_resource's references, scanned once: (ext identities, sub identities).
    let sub_refs: BTreeMap<usize, (BTreeSet<usize>, Vec<usize>)> = sub_out
        .iter()
        .map(|(&i, out)| {
            let (mut e, mut w) = (BTreeSet::new(), Vec::new());
            sec_refs(&ctx, out, &mut e, &mut w);
            (i, (e, w))
        })
        .collect();
    let mut work: Vec<usize> = Vec::new();
    for out in node_out.iter().flatten().chain(resource_out.iter()) {
        sec_refs(&ctx, out, &mut ext_used, &mut work);
    }
    while let Some(x) = work.pop() {
        if !sub_used.insert(x) {
            continue;
        }
        if let Some((e, w)) = sub_refs.get(&x) {
            ext_used.extend(e);
            work.extend(w);
        }
    }
    let sub_keep: BTreeSet<usize> = sub_out
        .keys()
        .copied()
        .filter(|&i| {
            let at = ctx.id.sub.at[i];
            sub_used.contains(&i) || (at[O].is_some() && at[T].is_some())
        })
        .collect();
    // Refs from kept-but-unused subs.
    for &i in &sub_keep {
        if !sub_used.contains(&i) {
            if let Some((e, _)) = sub_refs.get(&i) {
                ext_used.extend(e);
            }
        }
    }
    for (i, at) in ctx.id.sub.at.iter().enumerate() {
        if !sub_keep.contains(&i) && at[O].is_some() {
            ctx.decisions.push(Decision::UnusedResourceDropped {
                section: "sub_resource",
                id: sc[O].sub_resources[at[O].unwrap_or_default()].id.clone(),
            });
        }
    }
    let ext_keep: BTreeSet<usize> = (0..ctx.id.ext.at.len())
        .filter(|&i| {
            let at = ctx.id.ext.at[i];
            ext_used.contains(&i)
                || (at[O].is_some() && at[T].is_some())
                || (at[B].is_none() && (at[O].is_some() || at[T].is_some()))
        })
        .collect();
    for (i, at) in ctx.id.ext.at.iter().enumerate() {
        if !ext_keep.contains(&i) && at[O].is_some() {
            ctx.decisions.push(Decision::UnusedResourceDropped {
                section: "ext_resource",
                id: sc[O].ext_resources[at[O].unwrap_or_default()].id.clone(),
            });
        }
        if ext_keep.contains(&i) && at[B].is_some() && (at[O].is_none() || at[T].is_none()) {
            let side = if at[O].is_some() { O } else { T };
            if let Some(k) = at[side] {
                ctx.decisions.push(Decision::DeletedResourceKept {
                    section: "ext_resource",
                    id: sc[side].ext_resources[k].id.clone(),
                });
            }
        }
    }

    // ---- NodePaths that name a renamed or moved node ----
    follow_node_paths(&mut ctx, &mut node_out, &merged_path);

    // ---- Ext order and ids ----
    let ext_keep_v: Vec<bool> = (0..ctx.id.ext.at.len())
        .map(|i| ext_keep.contains(&i))
        .collect();
    let mut ext_order = merge_order(
        &ctx.id.ext.of[B],
        &ctx.id.ext.of[O],
        &ctx.id.ext.of[T],
        &ext_keep_v,
    );
    let int_ext =
        o.ext_resources.iter().all(|e| is_int_id(&e.id)) && (godot3 || !o.ext_resources.is_empty());
    let int_ext = int_ext || (o.ext_resources.is_empty() && godot3);
    let ext_ids = assign_ids(
        &ext_order,
        |i| ctx.id.ext.at[i][O].map(|k| o.ext_resources[k].id.clone()),
        |i| {
            let side = if ctx.id.ext.at[i][T].is_some() { T } else { B };
            let e = &sc[side].ext_resources[ctx.id.ext.at[i][side].unwrap_or_default()];
            (e.id.clone(), e.type_name.clone(), e.path.clone())
        },
        |id| is_int_id(id) == int_ext || o.ext_resources.is_empty(),
        |pos, _, seed, used| new_ext_id(int_ext, pos + 1, seed, used),
        "ext_resource",
        &mut ctx.decisions,
    );
    let sorted = o
        .ext_resources
        .windows(2)
        .all(|w| natural_cmp(&w[0].id, &w[1].id) != std::cmp::Ordering::Greater);
    if sorted {
        ext_order.sort_by(|a, b| natural_cmp(&ext_ids[a], &ext_ids[b]));
    }

    // ---- Sub order and ids ----
    let sub_keep_v: Vec<bool> = (0..ctx.id.sub.at.len())
        .map(|i| sub_keep.contains(&i))
        .collect();
    let sub_order0 = merge_order(
        &ctx.id.sub.of[B],
        &ctx.id.sub.of[O],
        &ctx.id.sub.of[T],
        &sub_keep_v,
    );
    // Dependencies first.
    let mut deps: HashMap<usize, Vec<usize>> = HashMap::new();
    for &i in &sub_order0 {
        let w = sub_refs.get(&i).map(|(_, w)| w.clone()).unwrap_or_default();
        deps.insert(i, w);
    }
    let mut sub_order: Vec<usize> = Vec::with_capacity(sub_order0.len());
    {
        let mut state: HashMap<usize, u8> = HashMap::new();
        fn visit(
            x: usize,
            deps: &HashMap<usize, Vec<usize>>,
            keep: &BTreeSet<usize>,
            state: &mut HashMap<usize, u8>,
            out: &mut Vec<usize>,
            depth: usize,
        ) {
            if state.get(&x).copied().unwrap_or(0) != 0 || !keep.contains(&x) || depth > 4096 {
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
        for &i in &sub_order0 {
            visit(i, &deps, &sub_keep, &mut state, &mut sub_order, 0);
        }
    }
    let int_sub =
        godot3 || (!o.sub_resources.is_empty() && o.sub_resources.iter().all(|s| is_int_id(&s.id)));
    let sub_ids = assign_ids(
        &sub_order,
        |i| ctx.id.sub.at[i][O].map(|k| o.sub_resources[k].id.clone()),
        |i| {
            let side = if ctx.id.sub.at[i][T].is_some() { T } else { B };
            let r = &sc[side].sub_resources[ctx.id.sub.at[i][side].unwrap_or_default()];
            (
                r.id.clone(),
                r.type_name.clone(),
                format!("{}:{}", r.type_name, r.id),
            )
        },
        |id| is_int_id(id) == int_sub,
        |_, type_name, seed, used| new_sub_id(int_sub, type_name, seed, used),
        "sub_resource",
        &mut ctx.decisions,
    );

    // ---- Connections and editables ----
    let (conn_out, conn_order) = merge_connections(&mut ctx, &merged_path);
    let (edit_out, edit_order) = merge_editables(&ctx, &merged_path);

    // ---- Header ----
    let header = merge_header(
        &mut ctx,
        ext_order.len() + sub_order.len(),
        &node_out,
        &sub_out,
    );

    // ---- Assemble ----
    // Sections are printed from where they are (nodes are not moved again).
    let mut owned: Vec<OutSec> = vec![header];
    for &i in &ext_order {
        let side = if ctx.id.ext.at[i][O].is_some() {
            O
        } else if ctx.id.ext.at[i][T].is_some() {
            T
        } else {
            B
        };
        let k = ctx.id.ext.at[i][side].unwrap_or_default();
        let sec = o
            .ext_resources
            .get(k)
            .filter(|_| side == O)
            .map(|e| e.section);
        let merged_tag = merge_ext_tag(&mut ctx, i);
        let verbatim = if matches!(merged_tag, TagOut::Src((O, _))) {
            sec
        } else {
            None
        };
        owned.push(OutSec::tag_only(
            SectionKind::ExtResource,
            verbatim,
            merged_tag,
        ));
    }
    for &i in &sub_order {
        if let Some(mut out) = sub_out.remove(&i) {
            let at = ctx.id.sub.at[i];
            if let Some(k) = at[O] {
                let osec = o.sub_resources[k].section;
                out.tag = TagOut::Src((O, o.doc.sections[osec].tag.span.clone()));
                let all_ours = out.lines.len() == o.doc.sections[osec].props.len()
                    && out
                        .lines
                        .iter()
                        .zip(&o.doc.sections[osec].props)
                        .all(|(l, p)| matches!(l, Line::Src((O, r)) if *r == p.line));
                if all_ours {
                    out.verbatim = Some(osec);
                }
            }
            owned.push(out);
        }
    }
    if let Some(r) = resource_out {
        owned.push(r);
    }
    // Each node once, in order.
    let mut node_secs: Vec<usize> = Vec::with_capacity(node_order.len());
    let mut taken = vec![false; n_idents];
    for &i in &node_order {
        if let Some(out) = node_out.get_mut(i).and_then(Option::as_mut) {
            if std::mem::replace(&mut taken[i], true) {
                continue;
            }
            if let (TagOut::Src((O, r)), Some(k)) = (&out.tag, ctx.id.node.at[i][O]) {
                let osec = o.nodes[k].section;
                let s = &o.doc.sections[osec];
                if *r == s.tag.span
                    && out.lines.len() == s.props.len()
                    && out
                        .lines
                        .iter()
                        .zip(&s.props)
                        .all(|(l, p)| matches!(l, Line::Src((O, r)) if *r == p.line))
                {
                    out.verbatim = Some(osec);
                }
            }
            node_secs.push(i);
        }
    }
    let mut secs: Vec<&OutSec> = owned.iter().collect();
    secs.extend(node_secs.iter().filter_map(|&i| node_out[i].as_ref()));
    secs.extend(conn_order.iter().filter_map(|i| conn_out.get(i)));
    secs.extend(edit_order.iter().filter_map(|i| edit_out.get(i)));

    // Separators ours uses between sections of two kinds (the first seen of each pair).
    let mut seps: HashMap<(SectionKind, SectionKind), &str> = HashMap::new();
    for i in 0..o.doc.sections.len().saturating_sub(1) {
        let t = o.doc.slice(&(body_end(o, i)..o.doc.sections[i].span.end));
        if t.bytes().all(|c| matches!(c, b'\n' | b'\r' | b' ' | b'\t')) {
            seps.entry((o.kinds[i], o.kinds[i + 1])).or_insert(t);
        }
    }
    let printer = Printer {
        ctx: &ctx,
        ext_ids: &ext_ids,
        sub_ids: &sub_ids,
        markers,
        godot3,
        seps,
    };
    let (text, nconf) = printer.print(&secs, false);
    // Without a conflict printed, resolving them to ours changes nothing.
    let take_ours = (nconf > 0).then(|| printer.print(&secs, true).0);
    Structural {
        text,
        take_ours,
        conflicts: ctx.conflicts,
        decisions: ctx.decisions,
    }
}

/// Rewrite the `NodePath("…")` values of node properties so that they still name the same
/// node when the merge gave it (or the node holding the value) another place than the side
/// the line came from had (see [`super::nodepaths`]). Lines that also hold resource
/// references are left alone: their ids are rewritten when printed.
fn follow_node_paths(
    ctx: &mut Ctx,
    node_out: &mut [Option<OutSec>],
    merged_path: &[Option<SmallStr>],
) {
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
    for (ident, out) in node_out.iter_mut().enumerate() {
        let Some(out) = out.as_mut().filter(|o| o.whole.is_none()) else {
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
                if !super::nodepaths::resolves(text, holder_src, &locate) {
                    continue;
                }
                if let Some(mut new) =
                    super::nodepaths::rewrite(text, holder_src, holder_out, &locate)
                {
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

/// Ids in the result, for identities in output order: ours keeps its ids; a part from
/// theirs (or base) keeps its id when it is free and has the file's shape (`fits`), else
/// gets a new one from `fresh(position, type, seed, used)`, recorded as a decision.
#[allow(clippy::too_many_arguments)]
fn assign_ids(
    order: &[usize],
    ours_id: impl Fn(usize) -> Option<String>,
    other: impl Fn(usize) -> (String, String, String),
    fits: impl Fn(&str) -> bool,
    mut fresh: impl FnMut(usize, &str, &str, &BTreeSet<String>) -> String,
    section: &'static str,
    decisions: &mut Vec<Decision>,
) -> HashMap<usize, String> {
    let mut ids: HashMap<usize, String> = HashMap::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for &i in order {
        if let Some(id) = ours_id(i) {
            used.insert(id.clone());
            ids.insert(i, id);
        }
    }
    for (pos, &i) in order.iter().enumerate() {
        if ids.contains_key(&i) {
            continue;
        }
        let (id, type_name, seed) = other(i);
        let new = if !used.contains(&id) && fits(&id) {
            id
        } else {
            let n = fresh(pos, &type_name, &seed, &used);
            decisions.push(Decision::IdRenamed {
                section,
                type_name,
                from: id,
                to: n.clone(),
            });
            n
        };
        used.insert(new.clone());
        ids.insert(i, new);
    }
    ids
}

/// Identities for parts keyed by a value (connections, editables): for each identity,
/// the index on each side, and each side's order of identities. The first of equal
/// keys on a side wins.
#[allow(clippy::type_complexity)]
fn key_table<K: Ord>(
    counts: [usize; 3],
    mut key: impl FnMut(usize, usize) -> K,
) -> (Vec<[Option<usize>; 3]>, [Vec<usize>; 3]) {
    let mut table: BTreeMap<K, usize> = BTreeMap::new();
    let mut at: Vec<[Option<usize>; 3]> = Vec::new();
    let mut seqs: [Vec<usize>; 3] = Default::default();
    for (side, &count) in counts.iter().enumerate() {
        for k in 0..count {
            let id = *table.entry(key(side, k)).or_insert_with(|| {
                at.push([None; 3]);
                at.len() - 1
            });
            if at[id][side].is_none() {
                at[id][side] = Some(k);
                seqs[side].push(id);
            }
        }
    }
    (at, seqs)
}

fn conn_key(ctx: &Ctx, side: usize, k: usize) -> (String, String, String, String) {
    let c = &ctx.sc[side].connections[k].key;
    let node = |p: &str| match ctx.paths[side].get(p) {
        Some(&i) => format!("#{}", ctx.id.node.of[side][i]),
        None if p == "." => format!("#{}", ctx.root_ident(side)),
        None => p.to_string(),
    };
    (
        c.signal.clone(),
        node(&c.from),
        node(&c.to),
        c.method.clone(),
    )
}

fn merge_connections(
    ctx: &mut Ctx,
    merged_path: &[Option<SmallStr>],
) -> (BTreeMap<usize, OutSec>, Vec<usize>) {
    let sc = ctx.sc;
    let counts = [0, 1, 2].map(|s| sc[s].connections.len());
    let (at, seqs) = key_table(counts, |side, k| conn_key(ctx, side, k));
    let mut out = BTreeMap::new();
    let tag_src = |side: usize, k: usize| -> Src {
        (
            side,
            sc[side].doc.sections[sc[side].connections[k].section]
                .tag
                .span
                .clone(),
        )
    };
    let norm_tag = |ctx: &Ctx, side: usize, k: usize| -> String {
        let s = &sc[side].doc.sections[sc[side].connections[k].section];
        let mut v: Vec<String> = s
            .tag
            .fields
            .iter()
            .filter(|f| f.key != "from" && f.key != "to")
            .map(|f| format!("{}={}", f.key, ctx.norm(&(side, f.value.clone()))))
            .collect();
        v.sort();
        v.join(" ")
    };
    for (id, a) in at.iter().enumerate() {
        let n = |s: usize| a[s].map(|k| norm_tag(ctx, s, k));
        let (nb, no, nt) = (n(B), n(O), n(T));
        let pick = pick3(&nb, &no, &nt, eq_opt);
        let chosen = match pick {
            Pick::Ours => a[O].map(|k| (O, k)),
            Pick::Theirs => a[T].map(|k| (T, k)),
            Pick::Conflict => {
                let loc = a[O].or(a[T]).map(|_| {
                    let (s, k) = if let Some(k) = a[O] {
                        (O, k)
                    } else {
                        (T, a[T].unwrap_or_default())
                    };
                    let c = &sc[s].connections[k].key;
                    format!(
                        "connection {} from \"{}\" to \"{}\" ({})",
                        c.signal, c.from, c.to, c.method
                    )
                });
                ctx.conflicts.push(ConflictReport {
                    location: loc.unwrap_or_default(),
                    property: None,
                    base: a[B].map(|k| shorten(ctx.text(&tag_src(B, k)), 60)),
                    ours: a[O].map(|k| shorten(ctx.text(&tag_src(O, k)), 60)),
                    theirs: a[T].map(|k| shorten(ctx.text(&tag_src(T, k)), 60)),
                });
                out.insert(
                    id,
                    OutSec {
                        kind: SectionKind::Connection,
                        verbatim: None,
                        tag: TagOut::Conflict(Box::new([
                            a[B].map(|k| tag_src(B, k)),
                            a[O].map(|k| tag_src(O, k)),
                            a[T].map(|k| tag_src(T, k)),
                        ])),
                        lines: Vec::new(),
                        whole: None,
                        origin: [None; 3],
                    },
                );
                continue;
            }
        };
        let Some((side, k)) = chosen else { continue };
        // from/to follow renamed and moved nodes.
        let c = &sc[side].connections[k].key;
        let sec = &sc[side].doc.sections[sc[side].connections[k].section];
        let new_path = |p: &str| -> Option<String> {
            let i = *ctx.paths[side].get(p)?;
            let np = merged_path
                .get(ctx.id.node.of[side][i])
                .and_then(Option::as_ref)?;
            (np != p).then(|| np.to_string())
        };
        let (nf, nt2) = (new_path(&c.from), new_path(&c.to));
        let tag = if nf.is_none() && nt2.is_none() {
            TagOut::Src(tag_src(side, k))
        } else {
            let fields = sec
                .tag
                .fields
                .iter()
                .map(|f| {
                    let lit = match f.key.as_str() {
                        "from" => nf.clone(),
                        "to" => nt2.clone(),
                        _ => None,
                    };
                    (
                        f.key.to_string(),
                        lit.map_or(Chunk::Src((side, f.value.clone())), |p| {
                            Chunk::Lit(format!("\"{}\"", crate::write::c_escape(&p)))
                        }),
                    )
                })
                .collect();
            TagOut::Fields("connection".into(), fields)
        };
        let verbatim =
            (side == O && matches!(tag, TagOut::Src(_))).then(|| sc[O].connections[k].section);
        out.insert(id, OutSec::tag_only(SectionKind::Connection, verbatim, tag));
    }
    let keep: Vec<bool> = (0..at.len()).map(|i| out.contains_key(&i)).collect();
    let order = merge_order(&seqs[B], &seqs[O], &seqs[T], &keep);
    (out, order)
}

fn merge_editables(
    ctx: &Ctx,
    merged_path: &[Option<SmallStr>],
) -> (BTreeMap<usize, OutSec>, Vec<usize>) {
    let sc = ctx.sc;
    let counts = [0, 1, 2].map(|s| sc[s].editables.len());
    let (at, seqs) = key_table(counts, |side, k| {
        let e = &sc[side].editables[k];
        match ctx.paths[side].get(e.path.as_str()) {
            Some(&i) => format!("#{}", ctx.id.node.of[side][i]),
            None => e.path.clone(),
        }
    });
    let mut out = BTreeMap::new();
    for (id, a) in at.iter().enumerate() {
        let present = |s: usize| a[s].is_some();
        let keep = matches!(
            (present(B), present(O), present(T)),
            (_, true, true) | (false, true, false) | (false, false, true)
        );
        if !keep {
            continue;
        }
        let side = if present(O) { O } else { T };
        let k = a[side].unwrap_or_default();
        let e = &sc[side].editables[k];
        let sec = &sc[side].doc.sections[e.section];
        let np = ctx.paths[side]
            .get(e.path.as_str())
            .and_then(|&i| {
                merged_path
                    .get(ctx.id.node.of[side][i])
                    .and_then(Option::as_ref)
            })
            .filter(|p| **p != e.path);
        let tag = match np {
            None => TagOut::Src((side, sec.tag.span.clone())),
            Some(p) => TagOut::Fields(
                "editable".into(),
                vec![(
                    "path".into(),
                    Chunk::Lit(format!("\"{}\"", crate::write::c_escape(p))),
                )],
            ),
        };
        let verbatim = (side == O && matches!(tag, TagOut::Src(_))).then_some(e.section);
        out.insert(id, OutSec::tag_only(SectionKind::Editable, verbatim, tag));
    }
    let keep: Vec<bool> = (0..at.len()).map(|i| out.contains_key(&i)).collect();
    let order = merge_order(&seqs[B], &seqs[O], &seqs[T], &keep);
    (out, order)
}

fn needs_format4(ctx: &Ctx, secs: &[Option<OutSec>], subs: &BTreeMap<usize, OutSec>) -> bool {
    secs.iter().flatten().chain(subs.values()).any(|s| {
        s.lines.iter().any(|l| match l {
            Line::Src(src) => {
                let t = ctx.text(src);
                t.contains("PackedVector4Array(") || t.contains("PackedByteArray(\"")
            }
            Line::Conflict(_) | Line::Lit(_) => false,
        })
    })
}

fn merge_header(
    ctx: &mut Ctx,
    resources: usize,
    nodes: &[Option<OutSec>],
    subs: &BTreeMap<usize, OutSec>,
) -> OutSec {
    let sc = ctx.sc;
    let h = |s: usize| &sc[s].doc.sections[0];
    let mut fields: Vec<(String, Chunk)> = Vec::new();
    let mut changed = false;
    let mut conflict = false;
    let mut keys: Vec<String> = h(O).tag.fields.iter().map(|f| f.key.to_string()).collect();
    for f in &h(T).tag.fields {
        if !keys.iter().any(|k| *k == f.key) && f.key != "load_steps" && f.key != "format" {
            keys.push(f.key.to_string());
        }
    }
    let fmt = |s: usize| sc[s].header.format;
    let mut format = fmt(O).max(fmt(T));
    if format.is_some_and(|f| f == 3) && needs_format4(ctx, nodes, subs) {
        format = Some(4);
    }
    for key in keys {
        let v = |s: usize| field_src(sc[s], s, 0, &key);
        match key.as_str() {
            "load_steps" => {
                let want = (resources + 1) as i64;
                if sc[O].header.load_steps != Some(want) {
                    changed = true;
                    ctx.decisions.push(Decision::LoadStepsRecomputed {
                        from: sc[O].header.load_steps,
                        to: (want > 1).then_some(want),
                    });
                }
                if want > 1 {
                    fields.push((key, Chunk::Lit(want.to_string())));
                }
            }
            "format" => {
                let f = format.unwrap_or(3);
                if fmt(O) != Some(f) {
                    changed = true;
                    ctx.decisions.push(Decision::FormatRaised {
                        from: fmt(O),
                        to: f,
                    });
                }
                fields.push((key, Chunk::Lit(f.to_string())));
            }
            _ => {
                let (fb, fo, ft) = (v(B), v(O), v(T));
                match ctx.pick_same(&fb, &fo, &ft) {
                    Pick::Ours => {
                        if let Some(s) = fo {
                            fields.push((key, Chunk::Src(s)));
                        }
                    }
                    Pick::Theirs => {
                        changed = true;
                        if let Some(s) = ft {
                            fields.push((key, Chunk::Src(s)));
                        }
                    }
                    Pick::Conflict => {
                        conflict = true;
                        ctx.conflicts.push(ConflictReport {
                            location: "file header".into(),
                            property: Some(key.clone()),
                            base: fb.as_ref().map(|s| shorten(ctx.text(s), 60)),
                            ours: fo.as_ref().map(|s| shorten(ctx.text(s), 60)),
                            theirs: ft.as_ref().map(|s| shorten(ctx.text(s), 60)),
                        });
                        if let Some(s) = fo {
                            fields.push((key, Chunk::Src(s)));
                        }
                    }
                }
            }
        }
    }
    let tag = if conflict {
        TagOut::Conflict(Box::new([
            Some((B, h(B).tag.span.clone())),
            Some((O, h(O).tag.span.clone())),
            Some((T, h(T).tag.span.clone())),
        ]))
    } else if changed {
        TagOut::Fields(h(O).tag.name.to_string(), fields)
    } else {
        TagOut::Src((O, h(O).tag.span.clone()))
    };
    let verbatim = matches!(tag, TagOut::Src(_)).then_some(0);
    OutSec::tag_only(SectionKind::Header, verbatim, tag)
}

struct Printer<'c, 'a> {
    ctx: &'c Ctx<'a>,
    ext_ids: &'c HashMap<usize, String>,
    sub_ids: &'c HashMap<usize, String>,
    markers: &'c MarkerOptions,
    godot3: bool,
    seps: HashMap<(SectionKind, SectionKind), &'a str>,
}

impl Printer<'_, '_> {
    /// Side text with ids mapped to the result's ids.
    fn src(&self, s: &Src) -> String {
        let (side, r) = s;
        let text = self.ctx.sc[*side].doc.slice(r);
        if *side == O || !text.contains("Resource") {
            return text.to_string();
        }
        let ctx = self.ctx;
        rewrite_refs_in_text(text, &mut |kind, id| match kind {
            RefKind::Ext => {
                let i = *ctx.idx[*side].ext.get(id)?;
                let out = self.ext_ids.get(&ctx.id.ext.of[*side][i])?;
                (out != id).then(|| out.clone())
            }
            RefKind::Sub => {
                let i = *ctx.idx[*side].sub.get(id)?;
                let out = self.sub_ids.get(&ctx.id.sub.of[*side][i])?;
                (out != id).then(|| out.clone())
            }
        })
    }

    fn id_text(&self, id: &str) -> String {
        if self.godot3 && is_int_id(id) {
            id.to_string()
        } else {
            format!("\"{id}\"")
        }
    }

    fn tag(&self, t: &TagOut, take_ours: bool, out: &mut String, nconf: &mut usize) {
        match t {
            TagOut::Src(s) => out.push_str(&self.src(s)),
            TagOut::Fields(name, fields) => {
                out.push('[');
                out.push_str(name);
                for (k, c) in fields {
                    match c {
                        Chunk::Src(s) => {
                            out.push_str(&self.lead(s, k));
                            out.push_str(&self.src(s));
                        }
                        Chunk::Lit(l) => {
                            out.push(' ');
                            out.push_str(k);
                            out.push('=');
                            out.push_str(l);
                        }
                    }
                }
                out.push(']');
            }
            TagOut::Resource { side, ident, ext } => {
                let sc = self.ctx.sc[*side];
                let (sec, new_id) = if *ext {
                    let k = self.ctx.id.ext.at[*ident][*side].unwrap_or_default();
                    (sc.ext_resources[k].section, self.ext_ids.get(ident))
                } else {
                    let k = self.ctx.id.sub.at[*ident][*side].unwrap_or_default();
                    (sc.sub_resources[k].section, self.sub_ids.get(ident))
                };
                let tag = &sc.doc.sections[sec].tag;
                out.push('[');
                out.push_str(&tag.name);
                for f in &tag.fields {
                    out.push(' ');
                    out.push_str(&f.key);
                    out.push('=');
                    if f.key == "id" {
                        match new_id {
                            Some(n) => out.push_str(&self.id_text(n)),
                            None => out.push_str(sc.doc.slice(&f.value)),
                        }
                    } else {
                        out.push_str(&self.src(&(*side, f.value.clone())));
                    }
                }
                out.push(']');
            }
            TagOut::Conflict(v) => {
                *nconf += 1;
                let text = |s: &Option<Src>| {
                    s.as_ref()
                        .map(|s| format!("{}\n", self.src(s)))
                        .unwrap_or_default()
                };
                if take_ours {
                    out.push_str(text(&v[1]).trim_end_matches('\n'));
                } else {
                    let mut buf = Vec::new();
                    write_conflict(
                        &mut buf,
                        text(&v[0]).as_bytes(),
                        text(&v[1]).as_bytes(),
                        text(&v[2]).as_bytes(),
                        self.markers,
                    );
                    out.push_str(String::from_utf8_lossy(&buf).trim_end_matches('\n'));
                }
            }
        }
    }

    /// ` key=` as the side wrote it before this value (keeps quirks like `binds= [...]`).
    fn lead(&self, s: &Src, key: &str) -> String {
        let text = &self.ctx.sc[s.0].doc.text[..s.1.start];
        let t = text.trim_end();
        if let Some(t2) = t.strip_suffix('=') {
            let t2 = t2.trim_end();
            if t2.ends_with(key) {
                return format!(" {}", &text[t2.len() - key.len()..]);
            }
        }
        format!(" {key}=")
    }

    fn line_text(&self, s: &Src) -> String {
        let mut t = self.src(s);
        if !t.ends_with('\n') {
            t.push('\n');
        }
        t
    }

    /// `src`, appended to `out`.
    fn src_into(&self, s: &Src, out: &mut String) {
        let (side, r) = s;
        let text = self.ctx.sc[*side].doc.slice(r);
        if *side == O || !text.contains("Resource") {
            out.push_str(text);
        } else {
            out.push_str(&self.src(s));
        }
    }

    /// `line_text`, appended to `out`.
    fn line_into(&self, s: &Src, out: &mut String) {
        let start = out.len();
        self.src_into(s, out);
        if out.len() == start || !out.ends_with('\n') {
            out.push('\n');
        }
    }

    /// A section's text (tag and body), appended to `out`.
    fn body(&self, s: &OutSec, take_ours: bool, nconf: &mut usize, out: &mut String) {
        let ctx = self.ctx;
        if let Some(w) = &s.whole {
            *nconf += 1;
            let text = |side: usize| -> String {
                w[side]
                    .map(|si| {
                        let sec = &ctx.sc[side].doc.sections[si];
                        let mut t = self.src(&(side, sec.span.start..body_end(ctx.sc[side], si)));
                        if !t.ends_with('\n') {
                            t.push('\n');
                        }
                        t
                    })
                    .unwrap_or_default()
            };
            if take_ours {
                out.push_str(&text(O));
                return;
            }
            let mut buf = Vec::new();
            write_conflict(
                &mut buf,
                text(B).as_bytes(),
                text(O).as_bytes(),
                text(T).as_bytes(),
                self.markers,
            );
            out.push_str(&String::from_utf8_lossy(&buf));
            return;
        }
        if let Some(si) = s.verbatim {
            let t = ctx.sc[O]
                .doc
                .slice(&(ctx.sc[O].doc.sections[si].span.start..body_end(ctx.sc[O], si)));
            out.push_str(t);
            if !t.ends_with('\n') {
                out.push('\n');
            }
            return;
        }
        let start = out.len();
        self.tag(&s.tag, take_ours, out, nconf);
        // Every line from one side, in its order: keep that side's layout (blank line
        // after the header in old files, comments).
        for side in [O, T, B] {
            let Some(si) = s.origin[side] else { continue };
            let sc = ctx.sc[side];
            let sec = &sc.doc.sections[si];
            let same = s.lines.len() == sec.props.len()
                && s.lines
                    .iter()
                    .zip(&sec.props)
                    .all(|(l, p)| matches!(l, Line::Src((x, r)) if *x == side && *r == p.line));
            if same && !matches!(s.tag, TagOut::Conflict(_)) {
                self.src_into(&(side, sec.tag.span.end..body_end(sc, si)), out);
                if out.len() == start || !out.ends_with('\n') {
                    out.push('\n');
                }
                return;
            }
        }
        out.push('\n');
        for l in &s.lines {
            match l {
                Line::Src(src) => self.line_into(src, out),
                Line::Lit(text) => out.push_str(text),
                Line::Conflict(v) => {
                    *nconf += 1;
                    let text =
                        |x: &Option<Src>| x.as_ref().map(|s| self.line_text(s)).unwrap_or_default();
                    if take_ours {
                        out.push_str(&text(&v[1]));
                    } else {
                        let mut buf = Vec::new();
                        write_conflict(
                            &mut buf,
                            text(&v[0]).as_bytes(),
                            text(&v[1]).as_bytes(),
                            text(&v[2]).as_bytes(),
                            self.markers,
                        );
                        out.push_str(&String::from_utf8_lossy(&buf));
                    }
                }
            }
        }
    }

    /// Blank lines between two sections: as ours has them between sections of the same
    /// kinds, else as Godot writes them.
    fn separator(&self, a: SectionKind, b: SectionKind) -> &str {
        use SectionKind::*;
        if let Some(t) = self.seps.get(&(a, b)) {
            return t;
        }
        match (a, b) {
            (ExtResource, ExtResource) | (Connection, Connection) => "",
            (Editable, Editable) => {
                if self.godot3 {
                    "\n"
                } else {
                    ""
                }
            }
            _ => "\n",
        }
    }

    /// The text, and how many conflicts it holds (whose printing `take_ours` decides).
    fn print(&self, secs: &[&OutSec], take_ours: bool) -> (String, usize) {
        let o = self.ctx.sc[O];
        let mut out = String::with_capacity(o.doc.text.len() + 1024);
        out.push_str(o.doc.slice(&o.doc.prefix));
        let mut nconf = 0;
        for (i, s) in secs.iter().enumerate() {
            self.body(s, take_ours, &mut nconf, &mut out);
            let next = secs.get(i + 1);
            // Keep ours' own trailing bytes where ours had the same neighbour.
            let trailing = s.verbatim.and_then(|si| {
                let follows = match next {
                    None => si + 1 == o.doc.sections.len(),
                    Some(n) => n.verbatim == Some(si + 1),
                };
                follows.then(|| o.doc.slice(&(body_end(o, si)..o.doc.sections[si].span.end)))
            });
            match (trailing, next) {
                (Some(t), _) => {
                    // The body was made to end with a newline; don't double it.
                    let body_nl = !o
                        .doc
                        .slice(
                            &(o.doc.sections[s.verbatim.unwrap_or_default()].span.start
                                ..body_end(o, s.verbatim.unwrap_or_default())),
                        )
                        .ends_with('\n');
                    if body_nl {
                        out.push_str(t.strip_prefix('\n').unwrap_or(t));
                    } else {
                        out.push_str(t);
                    }
                }
                (None, Some(n)) => out.push_str(self.separator(s.kind, n.kind)),
                (None, None) => {}
            }
        }
        (out, nconf)
    }
}

/// `field_text`, borrowed when the text needs no unescaping.
fn field_text_cow<'d>(doc: &'d crate::syntax::Document, r: &Range<usize>) -> Cow<'d, str> {
    let t = doc.slice(r);
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        if !t.contains('\\') {
            return Cow::Borrowed(&t[1..t.len() - 1]);
        }
    } else {
        return Cow::Borrowed(t.trim());
    }
    Cow::Owned(field_text(doc, r))
}

/// End of a section's body: after its last property line, or after the tag's line.
fn body_end(s: &Scene, si: usize) -> usize {
    s.doc.sections[si].body_end
}
