//! Values merged inside: the glue between the property merge and [`crate::grain`]. It
//! decides when a property both sides changed is handed to grain (tile maps, GridMap
//! cells, Animation keys and tracks, SpriteFrames, dictionaries), with what context, and
//! how grain's answer becomes a property line or a conflict report naming the cells or
//! keys. How a value merges inside is grain's; the conflict markers are the printer's.
//!
//! Values holding `ExtResource`/`SubResource` references are left to the whole-value
//! merge: their ids are only settled when the result is printed.

use super::context::{field_text_cow, Ctx};
use super::matching::{B, O, T};
use super::sections::{Line, Src};
use crate::grain::{self, ConflictAt, Grain, GrainConflict, PropertyContext};

/// Facts about the section a property lives in, for grain's choice of encoding.
struct Owner {
    type_name: String,
    file_format: u8,
}

/// What grain made of one property both sides changed.
pub(super) enum GrainAnswer {
    /// The merged property line.
    Merged(Line),
    /// Cells, keys or entries both sides changed differently.
    Conflict(Vec<GrainConflict>),
}

/// Whether a value names a resource (its ids are settled only at print time).
fn has_refs(text: &str) -> bool {
    text.contains("Resource")
}

/// An Animation's `tracks/*` (key, value text) merged as one set by grain; `None` when the
/// owner is no Animation or a track names a resource (ids are settled only when printed).
fn tracks_merge(
    owner: &Owner,
    sides: [&[(String, String)]; 3],
) -> Option<Grain<Vec<(String, String)>>> {
    let refs = |l: &[(String, String)]| l.iter().any(|(_, v)| has_refs(v));
    if owner.type_name != "Animation" || sides.iter().any(|l| refs(l)) {
        return None;
    }
    let ctx = PropertyContext {
        owner_type: &owner.type_name,
        key: "tracks",
        file_format: owner.file_format,
        tile_format: None,
        track_type: None,
    };
    let [b, o, t] = sides;
    Some(grain::merge_tracks(&ctx, b, o, t))
}

/// Where a grain merge clashed, in words: `cell (0, 0)`, `cells (0, 0), (1, 0)`,
/// `5 cells in (0, 0)-(4, 2), first (0, 0)`, or the first clashes and how many more.
fn places(c: &[GrainConflict]) -> String {
    let cells: Vec<&Vec<i32>> = c
        .iter()
        .filter_map(|x| match &x.at {
            ConflictAt::Cell(p) => Some(p),
            _ => None,
        })
        .collect();
    let show = |p: &[i32]| {
        let s: Vec<String> = p.iter().map(i32::to_string).collect();
        format!("({})", s.join(", "))
    };
    match (cells.len() == c.len(), c) {
        (_, [one]) => one.at.to_string(),
        (true, _) if c.len() <= 4 => {
            let list: Vec<String> = cells.iter().map(|p| show(p)).collect();
            format!("cells {}", list.join(", "))
        }
        (true, _) => {
            let (lo, hi) = cell_box(&cells);
            let first = cells.first().map(|p| show(p)).unwrap_or_default();
            format!(
                "{} cells in {}-{}, first {first}",
                c.len(),
                show(&lo),
                show(&hi)
            )
        }
        (false, _) => {
            let list: Vec<String> = c.iter().take(3).map(|x| x.at.to_string()).collect();
            match c.len() {
                n if n > 3 => format!("{} (and {} more)", list.join("; "), n - 3),
                _ => list.join("; "),
            }
        }
    }
}

/// The corners of the box around some cells (all of one dimension).
fn cell_box(cells: &[&Vec<i32>]) -> (Vec<i32>, Vec<i32>) {
    let mut lo = cells.first().map(|p| p.to_vec()).unwrap_or_default();
    let mut hi = lo.clone();
    for p in cells {
        for (i, v) in p.iter().enumerate() {
            if let (Some(l), Some(h)) = (lo.get_mut(i), hi.get_mut(i)) {
                *l = (*l).min(*v);
                *h = (*h).max(*v);
            }
        }
    }
    (lo, hi)
}

impl<'a> Ctx<'a> {
    /// The type of the node or resource a section describes (`[resource]`: the file's).
    fn owner(&self, secs: [Option<usize>; 3]) -> Option<Owner> {
        let side = [O, T, B].into_iter().find(|&s| secs[s].is_some())?;
        let sec = self.sec(side, secs[side]?);
        let tag = if sec.tag.name == "resource" {
            &self.sec(side, 0).tag
        } else {
            &sec.tag
        };
        let type_name = field_text_cow(&self.sc[side].doc, tag.field("type")?).into_owned();
        let file_format = self.sc[O].header.format.unwrap_or(3).clamp(0, 255) as u8;
        Some(Owner {
            type_name,
            file_format,
        })
    }

    /// A property of ours' version of the section, as text.
    fn ours_prop(&self, secs: [Option<usize>; 3], key: &str) -> Option<&'a str> {
        let sec = self.sec(O, secs[O]?);
        let p = sec.props.iter().rev().find(|p| p.key == key)?;
        Some(self.text(&(O, p.value.clone())).trim())
    }

    /// Merge one property both sides changed at its own grain; `None`: not grain's.
    pub(super) fn merge_grain(
        &self,
        secs: [Option<usize>; 3],
        key: &str,
        [b, o, t]: [&Option<Src>; 3],
        oline: &Option<Src>,
    ) -> Option<GrainAnswer> {
        let (o, t, oline) = (o.as_ref()?, t.as_ref()?, oline.as_ref()?);
        let base = b.as_ref().map(|b| self.text(b));
        let (ours, theirs) = (self.text(o), self.text(t));
        if has_refs(ours) || has_refs(theirs) || base.is_some_and(has_refs) {
            return None;
        }
        let owner = self.owner(secs)?;
        // `tracks/*` of an Animation merge as one set (`merge_animation_tracks`); here
        // only a clash inside that set is named.
        if key.starts_with("tracks/") {
            return self.track_clash(secs, &owner, key);
        }
        if !ours.contains(['{', '(', '[']) {
            return None;
        }
        let tile_format = self.ours_prop(secs, "format").and_then(|f| f.parse().ok());
        let ctx = PropertyContext {
            owner_type: &owner.type_name,
            key,
            file_format: owner.file_format,
            tile_format,
            track_type: None,
        };
        match grain::merge_property(&ctx, base, ours, theirs) {
            Grain::NotMine => None,
            Grain::Conflict(c) => Some(GrainAnswer::Conflict(c)),
            Grain::Merged(v) => {
                let prefix = self.sc[O].doc.slice(&(oline.1.start..o.1.start));
                Some(GrainAnswer::Merged(Line::Lit(format!("{prefix}{v}\n"))))
            }
        }
    }

    /// The clash inside an Animation's tracks that a conflicting `tracks/N/...` line is
    /// about (a key by its time, a field, the whole track), so the report names it;
    /// `None` when the tracks merge as a set or the clash is elsewhere.
    fn track_clash(
        &self,
        secs: [Option<usize>; 3],
        owner: &Owner,
        key: &str,
    ) -> Option<GrainAnswer> {
        let n: usize = key
            .strip_prefix("tracks/")?
            .split('/')
            .next()?
            .parse()
            .ok()?;
        let [b, o, t] = [B, O, T].map(|side| self.track_props(secs, side));
        let Grain::Conflict(all) = tracks_merge(owner, [&b, &o, &t])? else {
            return None;
        };
        let mine = grain::conflicts_of_track(&all, &o, n);
        (!mine.is_empty()).then_some(GrainAnswer::Conflict(mine))
    }

    /// One side's `tracks/*` properties of a section as (key, value text).
    fn track_props(&self, secs: [Option<usize>; 3], side: usize) -> Vec<(String, String)> {
        let Some(si) = secs[side] else {
            return Vec::new();
        };
        let props = self.sec(side, si).props.iter();
        props
            .filter(|p| p.key.starts_with("tracks/"))
            .map(|p| {
                (
                    p.key.to_string(),
                    self.text(&(side, p.value.clone())).trim().to_string(),
                )
            })
            .collect()
    }

    /// Record grain's conflicts on one property as one report (one marker block): the
    /// property names where they are (the cells, or the first clashes), the values are
    /// the first clash's.
    pub(super) fn grain_conflict(&mut self, location: String, key: &str, c: &[GrainConflict]) {
        let Some(first) = c.first() else { return };
        let short = |v: &Option<String>| v.as_ref().map(|v| super::shorten(v, 60));
        let values = [short(&first.base), short(&first.ours), short(&first.theirs)];
        self.part_conflict(location, Some(format!("{key}, {}", places(c))), values);
    }

    /// An Animation's `tracks/*` properties when both sides changed them: merged as one
    /// set (tracks matched by type and path, keys by time). `Some((anchor key, lines))`
    /// replaces every `tracks/*` key; `None` leaves them to the key-by-key merge.
    pub(super) fn merge_animation_tracks(
        &self,
        secs: [Option<usize>; 3],
        order: [&[&'a str]; 3],
        value: &dyn Fn(usize, &str) -> Option<Src>,
    ) -> Option<(&'a str, Vec<Line>)> {
        let list = |side: usize| -> Vec<(String, String)> {
            let keys = order[side].iter().filter(|k| k.starts_with("tracks/"));
            keys.filter_map(|k| Some((k.to_string(), self.text(&value(side, k)?).to_string())))
                .collect()
        };
        let [b, o, t] = [B, O, T].map(list);
        if b == o || b == t || o == t {
            return None;
        }
        let Grain::Merged(merged) = tracks_merge(&self.owner(secs)?, [&b, &o, &t])? else {
            return None;
        };
        let anchor = [O, T, B]
            .iter()
            .find_map(|&s| order[s].iter().find(|k| k.starts_with("tracks/")))?;
        let lines = merged.iter().map(|(k, v)| self.track_line(&o, secs, k, v));
        Some((*anchor, lines.collect()))
    }

    /// One merged track property: ours' own line when ours has it so, else written.
    fn track_line(
        &self,
        ours: &[(String, String)],
        secs: [Option<usize>; 3],
        key: &str,
        v: &str,
    ) -> Line {
        let same = ours.iter().any(|(k, x)| k == key && x == v);
        let line = secs[O]
            .and_then(|si| self.sec(O, si).props.iter().find(|p| p.key == key))
            .filter(|_| same);
        match line {
            Some(p) => Line::Src((O, p.line.clone())),
            None => Line::Lit(format!("{key} = {v}\n")),
        }
    }
}
