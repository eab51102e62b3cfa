//! Readable descriptions of a change inside a value, at the same grain as the merge: tile
//! cells painted / erased / changed (with their bounding box and, when the changed area is
//! small, a picture of it), Animation tracks by path and keys by time, dictionary entries
//! by key, SpriteFrames animations by name and frames by position. Plain data for the diff
//! and the renderers; how it is laid out on screen is theirs.

use super::cells::Pos;
use super::{cells, dict, frames, keys, kind_of, tracks, Kind, PropertyContext};
use std::fmt;

/// The widest and tallest changed area drawn as a picture.
pub const PICTURE_MAX: i32 = 16;

/// One change inside a value, in the value's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueChange {
    /// What kind of part changed: `cells`, `key`, `track`, `entry`, `animation`, `frame`.
    pub part: &'static str,
    /// Where: `time 0.2`, `"value" Sprite:position`, `(0, 0)-(3, 2)`, `"speed"`.
    pub at: String,
    /// `added`, `removed`, `changed`, or for cells `painted` / `erased` / `changed`.
    pub change: &'static str,
    /// How many parts the line covers (cells in the box; 1 otherwise).
    pub count: usize,
    /// The old version in words (`None`: absent, or not worth repeating).
    pub old: Option<String>,
    /// The new version in words.
    pub new: Option<String>,
}

impl ValueChange {
    /// One part added, removed or changed (`None` on a side: absent there).
    pub(crate) fn of(part: &'static str, at: String, old: Option<&str>, new: Option<&str>) -> Self {
        let change = match (old, new) {
            (None, _) => "added",
            (_, None) => "removed",
            _ => "changed",
        };
        ValueChange {
            part,
            at,
            change,
            count: 1,
            old: old.map(str::to_string),
            new: new.map(str::to_string),
        }
    }

    /// A whole part added or removed, with nothing more to say about its content.
    pub(crate) fn whole(part: &'static str, at: String, change: &'static str) -> Self {
        ValueChange {
            part,
            at,
            change,
            count: 1,
            old: None,
            new: None,
        }
    }

    /// The same change placed inside a bigger part (`animation "run"`, a track).
    pub(crate) fn within(mut self, outer: &str) -> Self {
        self.at = if self.at.is_empty() {
            outer.to_string()
        } else {
            format!("{outer} {}", self.at)
        };
        self
    }
}

impl fmt::Display for ValueChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.part == "cells" {
            let noun = if self.count == 1 { "cell" } else { "cells" };
            let place = if self.count == 1 { "at" } else { "in" };
            let (n, what, at) = (self.count, self.change, &self.at);
            return write!(f, "{n} {noun} {what} {place} {at}");
        }
        match (self.change, &self.old, &self.new) {
            ("changed", Some(o), Some(n)) => write!(f, "{}: {o} -> {n}", self.at),
            ("added", _, Some(n)) => write!(f, "{}: added {n}", self.at),
            ("removed", Some(o), _) => write!(f, "{}: removed {o}", self.at),
            (what, _, _) => write!(f, "{}: {what}", self.at),
        }
    }
}

/// Everything a value's change says at its grain: the changes, and for a tile map whose
/// changed area is small, a picture of that area (one string per row, top row first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueDiff {
    /// The changes, in the value's order.
    pub changes: Vec<ValueChange>,
    /// `+` painted, `-` erased, `~` changed, `#` painted before and after, `.` empty.
    pub picture: Vec<String>,
}

/// Describe how `old` became `new` at the value's grain; `None` when this module does not
/// know the value (or it does not parse). Nothing changed: an empty [`ValueDiff`].
pub fn describe_change(ctx: &PropertyContext, old: &str, new: &str) -> Option<ValueDiff> {
    match kind_of(ctx)? {
        k @ (Kind::TileMap3 | Kind::TileMapLayers4 | Kind::TileMapLayer | Kind::GridMap) => {
            cells::describe(k, ctx, old, new)
        }
        Kind::TrackKeys => Some(plain(keys::describe(ctx, old, new)?)),
        Kind::SpriteFrames => Some(plain(frames::describe(old, new)?)),
        Kind::Dict if !old.trim_start().starts_with('{') => None,
        Kind::Dict => Some(plain(dict::describe(old, new)?)),
    }
}

/// Describe how an Animation's `tracks/*` properties (key, value text) changed: tracks
/// added or removed by path, fields and keys of the tracks both have; `None` when a list
/// holds anything else.
pub fn describe_tracks(
    ctx: &PropertyContext,
    old: &[(String, String)],
    new: &[(String, String)],
) -> Option<Vec<ValueChange>> {
    tracks::describe(ctx, old, new)
}

fn plain(changes: Vec<ValueChange>) -> ValueDiff {
    ValueDiff {
        changes,
        picture: Vec::new(),
    }
}

fn bounds(cells: &[Pos]) -> Option<(Pos, Pos)> {
    let first = cells.first()?;
    let (mut lo, mut hi) = (*first, *first);
    for c in cells {
        for i in 0..3 {
            lo[i] = lo[i].min(c[i]);
            hi[i] = hi[i].max(c[i]);
        }
    }
    Some((lo, hi))
}

/// `N cells painted in (x0, y0)-(x1, y1)`: a count and the box around the cells.
pub(crate) fn cell_summary(what: &'static str, cells: &[Pos], grid: bool) -> Option<ValueChange> {
    let (lo, hi) = bounds(cells)?;
    let n = if grid { 3 } else { 2 };
    let show = |p: Pos| {
        let s: Vec<String> = p[..n].iter().map(|v| v.to_string()).collect();
        format!("({})", s.join(", "))
    };
    let at = if lo == hi {
        show(lo)
    } else {
        format!("{}-{}", show(lo), show(hi))
    };
    Some(ValueChange {
        part: "cells",
        at,
        change: what,
        count: cells.len(),
        old: None,
        new: None,
    })
}

/// A picture of the changed area of a 2D tile map (painted, erased, changed cells, and the
/// cells around them that stayed); empty when the area is over [`PICTURE_MAX`] a side.
pub(crate) fn picture(groups: &[Vec<Pos>; 3], kept: &[Pos]) -> Vec<String> {
    let all: Vec<Pos> = groups.iter().flatten().copied().collect();
    let Some((lo, hi)) = bounds(&all) else {
        return Vec::new();
    };
    let (w, h) = (hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
    if w > PICTURE_MAX || h > PICTURE_MAX {
        return Vec::new();
    }
    let mut rows = vec![vec!['.'; w as usize]; h as usize];
    let mut put = |p: &Pos, c: char| {
        let (x, y) = ((p[0] - lo[0]) as usize, (p[1] - lo[1]) as usize);
        if let Some(cell) = rows.get_mut(y).and_then(|r| r.get_mut(x)) {
            *cell = c;
        }
    };
    for p in kept {
        put(p, '#');
    }
    for (group, c) in groups.iter().zip(['+', '-', '~']) {
        group.iter().for_each(|p| put(p, c));
    }
    rows.into_iter().map(|r| r.into_iter().collect()).collect()
}

/// Items of a sequence (frames, array elements, lines) that differ, by position: the
/// common start and end are skipped, the middle is paired up as changed, the rest is added
/// or removed. `at` is `NOUN N`, N counted from `first` (0 as the engine counts items, 1
/// for lines as editors do).
pub fn describe_sequence<S: AsRef<str>>(
    noun: &'static str,
    first: usize,
    old: &[S],
    new: &[S],
    same: impl Fn(&str, &str) -> bool,
) -> Vec<ValueChange> {
    let same = |a: &S, b: &S| same(a.as_ref(), b.as_ref());
    let start = old.iter().zip(new).take_while(|(a, b)| same(a, b)).count();
    let room = old.len().min(new.len()) - start;
    let end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| same(a, b))
        .count();
    let (om, nm) = (&old[start..old.len() - end], &new[start..new.len() - end]);
    (0..om.len().max(nm.len()))
        .map(|i| {
            let (o, n) = (om.get(i).map(AsRef::as_ref), nm.get(i).map(AsRef::as_ref));
            ValueChange::of(noun, format!("{noun} {}", first + start + i), o, n)
        })
        .collect()
}

/// Where two versions of a long array, packed array or dictionary differ, down to the
/// smallest part that changed: `element 0 "arrays" element 3: 0 -> 2.5`. `None` when
/// either is not such a container or more than `max` parts changed (the value is then
/// better shown whole).
pub fn describe_elements(old: &str, new: &str, max: usize) -> Option<Vec<ValueChange>> {
    let mut out = Vec::new();
    parts_of(String::new(), old, new, 0, max, &mut out)?;
    Some(out)
}

/// How deep [`describe_elements`] goes into nested containers.
const DEPTH: usize = 6;

/// Add the parts of `old` -> `new` at `at` to `out`; `None` when over `max` or not a
/// container at the top.
fn parts_of(
    at: String,
    old: &str,
    new: &str,
    depth: usize,
    max: usize,
    out: &mut Vec<ValueChange>,
) -> Option<()> {
    use super::text::{shape, Shape};
    let place = |inner: String| {
        if at.is_empty() {
            inner
        } else {
            format!("{at} {inner}")
        }
    };
    let pairs: Vec<ValueChange> = match (shape(old), shape(new)) {
        (Some(Shape::Dict(a)), Some(Shape::Dict(b))) if depth < DEPTH => {
            let own = |e: &[(&str, &str)]| -> Vec<(String, String)> {
                e.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            };
            super::dict::describe_entries_by(&own(&a), &own(&b), cheap_same)
        }
        (Some(Shape::Array(a)), Some(Shape::Array(b))) if depth < DEPTH => sequence(&a, &b),
        (Some(Shape::Call(x, a)), Some(Shape::Call(y, b))) if x == y && depth < DEPTH => {
            sequence(&a, &b)
        }
        _ if depth == 0 => return None,
        _ => {
            out.push(ValueChange::of(
                "element",
                at,
                Some(&fold(old)),
                Some(&fold(new)),
            ));
            return (out.len() <= max).then_some(());
        }
    };
    for c in pairs {
        match (c.change, &c.old, &c.new) {
            ("changed", Some(o), Some(n)) => {
                parts_of(place(c.at.clone()), o, n, depth + 1, max, out)?
            }
            _ => out.push(ValueChange {
                at: place(c.at),
                old: c.old.map(|v| fold(&v)),
                new: c.new.map(|v| fold(&v)),
                ..c
            }),
        }
        if out.len() > max {
            return None;
        }
    }
    Some(())
}

/// The items of two sequences that differ, `element N`; identical text is the same item.
fn sequence(a: &[&str], b: &[&str]) -> Vec<ValueChange> {
    describe_sequence("element", 0, a, b, cheap_same)
}

/// Equal text, or small items the engine reads alike (a big item that differs in text is
/// looked into rather than parsed whole).
fn cheap_same(x: &str, y: &str) -> bool {
    x == y || (x.len() < 256 && y.len() < 256 && super::text::same_value(x, y))
}

/// The lines of a multi-line string that differ, by line number from 1.
pub fn describe_lines(old: &str, new: &str) -> Vec<ValueChange> {
    let lines = |s: &str| -> Vec<String> { s.lines().map(str::to_string).collect() };
    describe_sequence("line", 1, &lines(old), &lines(new), |a, b| a == b)
}

/// A value on one line: runs of whitespace folded to one space.
pub(crate) fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
