//! The typed values the merge phases hand to the printer: a section of the result as
//! pieces of text taken from a side (`Src`, a range into base, ours or theirs) or written
//! by the merge. It decides nothing; every phase fills these and [`crate::merge::output::print`] turns
//! them into text, rewriting resource ids on the way.

use crate::model::SectionKind;
use std::ops::Range;

/// A piece of a side's text: (side, byte range).
pub(in crate::merge) type Src = (usize, Range<usize>);

/// The side a node's header comes from, and its fields (name and parent apart): each
/// taken from a side, or `None` when we write it (merged groups). No list: the side's
/// own fields, as they are.
pub(in crate::merge) type NodeFields<'a> = (usize, Option<Vec<(&'a str, Option<Src>)>>);

/// One side's replaced `[node]` fields in a per-side tag (`None`: the side lacks it).
pub(in crate::merge) type SideFields = Option<Vec<(&'static str, String)>>;

/// Tags a hunk's part prints with some fields written anew: by (side, the tag's byte
/// offset in that side's text), each field's key and value as written.
pub(in crate::merge) type TagFields =
    std::collections::HashMap<(usize, usize), Vec<(&'static str, String)>>;

/// A piece of a tag: taken from a side, or written by us.
#[derive(Clone, Debug)]
pub(in crate::merge) enum Chunk {
    Src(Src),
    Lit(String),
}

/// A section's `[tag ...]` line as the result will have it.
#[derive(Clone, Debug)]
pub(in crate::merge) enum TagOut {
    /// A side's tag, verbatim except for ids.
    Src(Src),
    /// Rebuilt from fields.
    Fields(String, Vec<(String, Chunk)>),
    /// Conflicting tags (base, ours, theirs).
    Conflict(Box<[Option<Src>; 3]>),
    /// A tag that depends on the side picked in a hunk (a conflicted name or place
    /// above it, a node inside a delete-against-modify hunk): printed between markers,
    /// on each side (base, ours, theirs) with these fields' values (quoted) replaced,
    /// or left out (`None`).
    PerSide(Box<TagOut>, Box<[SideFields; 3]>),
    /// An ext/sub tag whose id is assigned at print time.
    Resource {
        side: usize,
        ident: usize,
        ext: bool,
    },
}

/// One property line of the result.
#[derive(Clone, Debug)]
pub(in crate::merge) enum Line {
    Src(Src),
    Conflict(Box<[Option<Src>; 3]>),
    /// A property line we wrote (a multi-line string merged line by line).
    Lit(String),
    /// A property line we wrote whose `ExtResource`/`SubResource` ids stand for
    /// identities (a value merged at its grain, [`crate::merge::values::value_grain`]): the printer
    /// writes the result's ids.
    Idents(String),
    /// Conflicting lines we wrote (base, ours, theirs; ids as in [`Line::Idents`]): an
    /// Animation's tracks renumbered to ours' numbering so each hunk is one track's.
    Texts(Box<[Option<String>; 3]>),
}

/// One section of the result.
#[derive(Clone, Debug)]
pub(in crate::merge) struct OutSec {
    /// What section it is (decides separators).
    pub(in crate::merge) kind: SectionKind,
    /// Ours' section index when the whole body is ours' bytes.
    pub(in crate::merge) verbatim: Option<usize>,
    /// Its tag.
    pub(in crate::merge) tag: TagOut,
    /// Its property lines.
    pub(in crate::merge) lines: Vec<Line>,
    /// The whole section conflicts (delete against modify): [base, ours, theirs]
    /// sections, the node's own first, then the descendants its hunk carries.
    pub(in crate::merge) whole: Option<Box<[Vec<usize>; 3]>>,
    /// The section this one merges, on each side (to keep a side's layout when every
    /// line comes from it).
    pub(in crate::merge) origin: Origin,
}

/// The section an [`OutSec`] merges on each side, as `u32`s (`u32::MAX`: none): 12
/// bytes where `[Option<usize>; 3]` takes 48, once per node of the result. (A side of
/// four billion sections, more than memory holds, would read as having none.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::merge) struct Origin([u32; 3]);

impl Origin {
    /// No section on any side.
    pub(in crate::merge) const NONE: Origin = Origin([u32::MAX; 3]);

    /// Of each side's section index.
    pub(in crate::merge) fn of(secs: [Option<usize>; 3]) -> Origin {
        Origin(secs.map(|s| s.and_then(|s| u32::try_from(s).ok()).unwrap_or(u32::MAX)))
    }

    /// The section on `side`.
    pub(in crate::merge) fn get(&self, side: usize) -> Option<usize> {
        let s = self.0[side];
        (s != u32::MAX).then_some(s as usize)
    }

    /// The section on each side.
    pub(in crate::merge) fn all(&self) -> [Option<usize>; 3] {
        [0, 1, 2].map(|s| self.get(s))
    }
}

impl OutSec {
    /// A section that is only a tag (ext_resource, connection, editable, header).
    pub(in crate::merge) fn tag_only(
        kind: SectionKind,
        verbatim: Option<usize>,
        tag: TagOut,
    ) -> OutSec {
        OutSec {
            kind,
            verbatim,
            tag,
            lines: Vec::new(),
            whole: None,
            origin: Origin::NONE,
        }
    }

    /// A section in conflict as a whole (deleted on one side, changed or needed on the
    /// other): each side's body, printed between markers.
    pub(in crate::merge) fn whole_conflict(kept: usize, secs: [Option<usize>; 3]) -> OutSec {
        OutSec {
            kind: SectionKind::Node,
            verbatim: None,
            tag: TagOut::Src((kept, 0..0)),
            lines: Vec::new(),
            whole: Some(Box::new(secs.map(|s| s.into_iter().collect()))),
            origin: Origin::NONE,
        }
    }

    /// Whether every line is `props`' own line from `side`, in order.
    pub(in crate::merge) fn lines_are(&self, side: usize, props: &[crate::syntax::Prop]) -> bool {
        self.lines.len() == props.len()
            && self
                .lines
                .iter()
                .zip(props)
                .all(|(l, p)| matches!(l, Line::Src((x, r)) if *x == side && *r == p.line))
    }
}
