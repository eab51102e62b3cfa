//! The state every merge phase shares: the three scenes, the identities matching found,
//! lookups by id and path, and the two logs the merge keeps (conflicts and decisions, in
//! the order they happen). It also says where a node's parent is, by identity. What to do
//! with any of it is left to the phases.

use crate::merge::decisions::Decision;
use crate::merge::shared::idents::{IdIndex, Idents};
use crate::merge::shared::report::ConflictReport;
use crate::merge::shared::sections::Src;
use crate::model::{field_text, Scene};
use crate::syntax::{ByteRange, Section};
use std::borrow::Cow;
use std::collections::HashMap;

/// The merge's shared state.
pub(in crate::merge) struct Ctx<'a> {
    /// Base, ours and theirs (index with `B`, `O`, `T`).
    pub(in crate::merge) sc: [&'a Scene; 3],
    /// Identities of nodes, ext_resources and sub_resources across the three.
    pub(in crate::merge) id: Idents<'a>,
    /// Resource ids to indices, per side.
    pub(in crate::merge) idx: [IdIndex<'a>; 3],
    /// side -> node path -> node index.
    pub(in crate::merge) paths: crate::merge::shared::idents::Paths<'a>,
    /// Conflicts found so far, in report order.
    pub(in crate::merge) conflicts: Vec<ConflictReport>,
    /// Decisions taken so far, in `--explain` order.
    pub(in crate::merge) decisions: Vec<Decision>,
    /// Normalized texts of values that hold references, by (side, start offset): a
    /// value is compared up to three times.
    pub(in crate::merge) norm_cache: std::cell::RefCell<HashMap<(usize, usize), std::rc::Rc<str>>>,
    /// `disagreeing_ids` of each pair of sides, when asked.
    pub(in crate::merge) disagree: [[std::cell::OnceCell<Vec<&'a str>>; 3]; 3],
    /// Whether editor churn (container layout, editor-only state) keeps ours
    /// ([`crate::merge::values::layout`]).
    pub(in crate::merge) layout_policy: bool,
    /// Whether saved editor state both sides changed takes the RESET value or ours'
    /// ([`crate::merge::values::saved_state`]) instead of conflicting.
    pub(in crate::merge) state_policy: bool,
    /// (node identity, key) of every property a track of the scene's AnimationPlayers
    /// drives, with the RESET animation's value at time 0 when the sides agree on one.
    pub(in crate::merge) driven: HashMap<(usize, String), Option<String>>,
    /// Fields a side's sections print anew inside whole-section hunks, decided before
    /// the hunks are spelled (a `unique_id` theirs' part renumbers): the start of
    /// [`crate::merge::output::hunk_parts::HunkParts`]'s fields.
    pub(in crate::merge) hunk_fields: crate::merge::shared::sections::TagFields,
    /// The `SubResource(...)` references each side spells, searched once for matching
    /// and the resource order.
    pub(in crate::merge) subs_named: crate::merge::shared::subs_named::SubsNamed,
}

/// Where a node hangs, by identity where it can.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::merge) enum ParentRef {
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

impl ParentRef {
    /// The identity of the listed node it hangs under (itself or the instance).
    pub(in crate::merge) fn anchor(&self) -> Option<usize> {
        match self {
            ParentRef::Node(p) | ParentRef::Inside { anchor: p, .. } => Some(*p),
            _ => None,
        }
    }
}

pub(in crate::merge) fn eq_opt<T: PartialEq>(a: &Option<T>, b: &Option<T>) -> bool {
    a == b
}

/// Three-way choice: which side's value wins, or a conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::merge) enum Pick {
    Ours,
    Theirs,
    Conflict,
}

/// The three-way rule: a side that changed from base wins; both changed alike, ours.
pub(in crate::merge) fn pick3<V>(
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
    /// Set up the lookups of the three scenes and the identities matching found
    /// ([`crate::merge::identity::match_all`]).
    pub(in crate::merge) fn new(sc: [&'a Scene; 3], mut id: Idents<'a>) -> Ctx<'a> {
        let paths = std::mem::take(&mut id.paths);
        Ctx {
            sc,
            idx: [
                IdIndex::new(sc[0]),
                IdIndex::new(sc[1]),
                IdIndex::new(sc[2]),
            ],
            paths,
            id,
            conflicts: Vec::new(),
            decisions: Vec::new(),
            norm_cache: Default::default(),
            disagree: Default::default(),
            layout_policy: true,
            state_policy: true,
            driven: HashMap::new(),
            hunk_fields: Default::default(),
            subs_named: Default::default(),
        }
    }

    /// Free the lookups only the deciding phases use (node paths to indices, parents,
    /// normalized values, the sides' sub_resource references): printing needs none of them, and on a scene of a hundred
    /// thousand nodes they hold about 25 MB while the result is written.
    pub(in crate::merge) fn drop_lookups(&mut self) {
        self.paths = Default::default();
        self.id.parent_at = Default::default();
        self.norm_cache = Default::default();
        self.disagree = Default::default();
        self.subs_named = Default::default();
    }

    /// The text a piece of a side names.
    pub(in crate::merge) fn text(&self, s: &Src) -> &'a str {
        let sc: &'a Scene = self.sc[s.0];
        sc.doc.slice(&s.1)
    }

    /// Section `i` of a side.
    pub(in crate::merge) fn sec(&self, side: usize, i: usize) -> &'a Section {
        let sc: &'a Scene = self.sc[side];
        &sc.doc.sections[i]
    }

    /// Where node `n` of a side hangs, by identity where it can.
    pub(in crate::merge) fn parent_ref(&self, side: usize, n: usize) -> ParentRef {
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

    /// The identity of a side's root (`usize::MAX` when it has none).
    pub(in crate::merge) fn root_ident(&self, side: usize) -> usize {
        let nodes = &self.sc[side].nodes;
        let i = match nodes.first() {
            Some(n) if n.parent.is_none() => Some(0),
            _ => nodes.iter().position(|n| n.parent.is_none()),
        };
        i.map_or(usize::MAX, |i| self.id.node.of[side][i])
    }
}

pub(in crate::merge) fn field_src(sc: &Scene, side: usize, sec: usize, key: &str) -> Option<Src> {
    sc.doc.sections[sec]
        .tag
        .field(key)
        .map(|r| (side, r.clone()))
}

/// `field_text`, borrowed when the text needs no unescaping.
pub(in crate::merge) fn field_text_cow<'d>(
    doc: &'d crate::syntax::Document,
    r: &(impl ByteRange + ?Sized),
) -> Cow<'d, str> {
    let r = r.byte_range();
    let t = doc.slice(&r);
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        if !t.contains('\\') {
            return Cow::Borrowed(&t[1..t.len() - 1]);
        }
    } else {
        return Cow::Borrowed(t.trim());
    }
    Cow::Owned(field_text(doc, &r))
}

/// End of a section's body: after its last property line, or after the tag's line.
pub(in crate::merge) fn body_end(s: &Scene, si: usize) -> usize {
    s.doc.sections[si].body_end
}
