//! A change inside a value, as every grain describes it: [`ValueChange`] (one part added,
//! removed or changed, in the value's own words) and [`ValueDiff`] (the changes and a
//! picture), with the helpers the grains share to make them (changed items of a sequence
//! by position, values folded onto one line).
//!
//! Decides the shape and wording of a change; which parts of which value changed is each
//! grain's (`cells.rs`, `keys.rs`, `tracks.rs`, `dict.rs`, `frames.rs`), and which grain
//! a value has is `describe.rs`'s.

use std::fmt;

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

/// A value on one line: runs of whitespace folded to one space.
pub(crate) fn fold(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
