//! Keys one side renamed: removed, and added under a new name with the same value, while
//! the other side changed the old key's value. The other side's change then follows the
//! rename, whichever side renamed (the same result with the sides swapped). Only a value
//! nobody would give two keys by chance counts (a non-empty dictionary or array, as an
//! `[input]` action, or a string of 8 characters or more, as an autoload's path): `1`,
//! `true` or `Vector2(0, 0)` removed under one name and added under another are a removal
//! and an addition (a setting dropped against theirs' change is then a conflict), never a
//! guess. Both the old key and the new one must be the only candidates. What a rename
//! writes is decided here; laying the pieces out is [`super`]'s.

use super::{with_eol, Merger, Piece};
use crate::config::decision::{describe_key, ConfigDecision};
use crate::config::model::{same_value, SectionRef};
use crate::config::syntax::{Document, Entry, Item};
use crate::value::{self, Value};
use std::collections::BTreeMap;

/// Shortest string value taken as a rename's evidence.
const MIN_STRING: usize = 8;

/// Whether a value is unlikely to be given to two keys by chance (see the module doc).
fn distinctive(text: &str) -> bool {
    match value::parse(text) {
        Ok(Value::Dict(d)) => !d.is_empty(),
        Ok(Value::Array(a)) => !a.is_empty(),
        Ok(Value::TypedArray { items, .. }) => !items.is_empty(),
        Ok(Value::String(s) | Value::StringName(s)) => s.chars().count() >= MIN_STRING,
        _ => false,
    }
}

/// One side of a section: its document and the section (absent: no such section).
pub(super) type SideRef<'a> = (&'a Document, Option<SectionRef<'a>>);

/// The base key that the side `renamer` renamed to `key`: `key` is new (in neither base
/// nor `other`), its value is [`distinctive`], and exactly one base key with that value is
/// gone from `renamer` and still in `other`, and no other new key of `renamer` has it.
pub(super) fn renamed_from(
    renamer: SideRef<'_>,
    other: Option<SectionRef<'_>>,
    base: SideRef<'_>,
    key: &str,
) -> Option<String> {
    let ((nd, ns), (bd, bs), os) = (renamer, base, other?);
    let (ns, bs) = (ns?, bs?);
    if bs.get(key).is_some() || os.get(key).is_some() {
        return None;
    }
    let (_, e) = ns.get(key)?;
    let v = nd.slice(&e.value);
    if !distinctive(v) {
        return None;
    }
    let is_new = |k: &str| bs.get(k).is_none() && os.get(k).is_none();
    let mut news = ns
        .entries()
        .filter(|(_, n)| is_new(&n.key) && same_value(nd.slice(&n.value), v));
    if news.nth(1).is_some() {
        return None;
    }
    let mut olds = bs.entries().filter(|(_, b)| {
        ns.get(&b.key).is_none() && os.get(&b.key).is_some() && same_value(bd.slice(&b.value), v)
    });
    let first = olds.next()?;
    olds.next().is_none().then(|| first.1.key.clone())
}

/// `line` (an entry's whole line, starting at `at`) with the value of `e` replaced.
fn with_value(line: &str, at: usize, e: &Entry, value: &str) -> String {
    let (s, end) = (e.value.start - at, e.value.end - at);
    format!("{}{value}{}", &line[..s], &line[end..])
}

impl<'a> Merger<'a, '_> {
    /// The keys theirs renamed in section `name` whose old key ours changed: old -> new.
    pub(super) fn theirs_renames(&self, name: &str) -> BTreeMap<String, String> {
        let sec = |d: &'a Document| crate::config::model::section(d, name);
        let (os, ts) = (sec(self.o), sec(self.t));
        let Some(t) = ts else {
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        for (_, e) in t.entries() {
            let found = renamed_from((self.t, ts), os, (self.b, sec(self.b)), &e.key);
            let Some(old) = found else { continue };
            let changed = |d: &'a Document, s: Option<SectionRef<'a>>| -> Option<&'a str> {
                s.and_then(|s| s.get(&old)).map(|(_, e)| d.slice(&e.value))
            };
            let (bv, ov) = (changed(self.b, sec(self.b)), changed(self.o, os));
            if let (Some(bv), Some(ov)) = (bv, ov) {
                if !same_value(bv, ov) {
                    out.insert(old, e.key.clone());
                }
            }
        }
        out
    }

    /// A key ours renamed from `old`: theirs' change to `old`'s value, under ours' name.
    pub(super) fn renamed_piece(
        &mut self,
        sec: &str,
        old: &str,
        o: (&'a Item, &'a Entry),
        bs: Option<SectionRef<'a>>,
        ts: Option<SectionRef<'a>>,
    ) -> Piece {
        let (b, t) = (bs.and_then(|s| s.get(old)), ts.and_then(|s| s.get(old)));
        let tv = t.map(|(_, e)| self.t.slice(&e.value));
        let bv = b.map(|(_, e)| self.b.slice(&e.value));
        let (item, e) = o;
        let m = format!(
            "{} renamed by ours from `{old}`; theirs' change to it follows the rename",
            describe_key(sec, &e.key)
        );
        let d = ConfigDecision::new("key_rename_followed", m).at(sec, Some(&e.key));
        self.decisions.push(d.side("ours").values(&e.key, old));
        match (bv, tv) {
            (Some(bv), Some(tv)) if !same_value(bv, tv) => Piece::Same {
                text: with_value(self.o.slice(&item.span), item.span.start, e, tv),
                blank: false,
            },
            _ => super::same(self.o, &item.span, false),
        }
    }

    /// A key theirs renamed from ours' `old` (which ours changed): theirs' line under its
    /// new name, with ours' value, in ours' place of the old key.
    pub(super) fn theirs_renamed_piece(
        &mut self,
        sec: &str,
        new: &str,
        o: &'a Entry,
        ts: Option<SectionRef<'a>>,
    ) -> Option<Piece> {
        let (item, t) = ts?.get(new)?;
        let ov = self.o.slice(&o.value);
        let m = format!(
            "{} renamed by theirs from `{}`; ours' change to it follows the rename",
            describe_key(sec, new),
            o.key
        );
        let d = ConfigDecision::new("key_rename_followed", m).at(sec, Some(new));
        self.decisions.push(d.side("theirs").values(new, &o.key));
        let line = with_value(self.t.slice(&item.span), item.span.start, t, ov);
        Some(Piece::Same {
            text: with_eol(line, self.out.eol),
            blank: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::distinctive;

    #[test]
    fn only_values_nobody_gives_twice_by_chance_are_distinctive() {
        for v in [
            "1",
            "3",
            "true",
            "null",
            "\"on\"",
            "Vector2(0, 0)",
            "{}",
            "[]",
        ] {
            assert!(!distinctive(v), "{v}");
        }
        for v in [
            "\"*res://autoload/game.gd\"",
            "{\n\"deadzone\": 0.5,\n\"events\": []\n}",
            "[1]",
        ] {
            assert!(distinctive(v), "{v}");
        }
    }
}
