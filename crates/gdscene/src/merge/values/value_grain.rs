//! Values merged inside: the glue between the property merge and [`crate::grain`]. It
//! decides when a property both sides changed is handed to grain (tile maps, GridMap
//! cells, Animation keys and tracks, SpriteFrames, dictionaries), with what context, and
//! how grain's answer becomes a property line or a conflict report naming the cells or
//! keys. How a value merges inside is grain's; the conflict markers are the printer's.
//!
//! Values holding `ExtResource`/`SubResource` references (SpriteFrames textures, audio
//! clips, value tracks of textures) merge at their grain too: each side's ids are read
//! as the identities matching found (a stand-in id per identity, so theirs' renumbered
//! or renamed ids compare equal to ours'), grain merges those, and the line is handed
//! to the printer as [`Line::Idents`], which writes the result's ids once they are
//! settled. A reference that names nothing on its side leaves the value whole.

use crate::grain::{self, ConflictAt, Grain, GrainConflict, PropertyContext};
use crate::merge::shared::context::Pick;
use crate::merge::shared::context::{field_text_cow, Ctx};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::sections::{Line, Src};
use crate::value::{parse, rewrite_refs_in_text, scan_refs_in_text, sem_eq_top, RefKind};
use std::borrow::Cow;

/// Facts about the section a property lives in, for grain's choice of encoding.
struct Owner {
    type_name: String,
    file_format: u8,
}

/// What grain made of one property both sides changed.
pub(in crate::merge) enum GrainAnswer {
    /// The merged property line.
    Merged(Line),
    /// Cells, keys or entries both sides changed differently.
    Conflict(Vec<GrainConflict>),
}

/// Whether a value may name a resource.
fn has_refs(text: &str) -> bool {
    text.contains("Resource")
}

/// The id standing for identity `i` in a value merged at its grain: negative, which no
/// file's own id is (and an integer, so Godot 3's unquoted spelling stays unquoted).
fn stand_in(i: usize) -> String {
    format!("-{}", i + 1)
}

/// The identity a stand-in id names.
pub(in crate::merge) fn ident_of(id: &str) -> Option<usize> {
    id.strip_prefix('-')?.parse::<usize>().ok()?.checked_sub(1)
}

/// Every reference of a [`Line::Idents`] text: `(is ext, identity)`, in text order.
pub(in crate::merge) fn idents_in(text: &str, f: &mut dyn FnMut(bool, usize)) {
    scan_refs_in_text(text, &mut |kind, id| {
        if let Some(i) = ident_of(id) {
            f(kind == RefKind::Ext, i);
        }
    });
}

/// A line merged at its grain: [`Line::Idents`] when it names resources.
fn written(text: String) -> Line {
    if has_refs(&text) {
        Line::Idents(text)
    } else {
        Line::Lit(text)
    }
}

/// An Animation's `tracks/*` (key, value text, ids as stand-ins) merged as one set by
/// grain; `None` when the owner is no Animation.
fn tracks_merge(
    owner: &Owner,
    sides: [&[(String, String)]; 3],
) -> Option<Grain<Vec<(String, String)>>> {
    if owner.type_name != "Animation" {
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

/// `N` of a `tracks/N/...` key.
fn grain_track_number(key: &str) -> Option<usize> {
    key.strip_prefix("tracks/")?.split('/').next()?.parse().ok()
}

/// Two values the same, as the engine reads them (`None`: absent).
fn same_text(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => {
            x.trim() == y.trim()
                || matches!((parse(x), parse(y)), (Ok(p), Ok(q)) if sem_eq_top(&p, &q))
        }
        (x, y) => x.is_none() && y.is_none(),
    }
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
    /// A side's value with each reference's id replaced by its identity's stand-in;
    /// `None` when a reference names nothing on that side (or already looks like one).
    fn with_idents<'t>(&self, side: usize, text: &'t str) -> Option<Cow<'t, str>> {
        if !has_refs(text) {
            return Some(Cow::Borrowed(text));
        }
        let mut known = true;
        let out = rewrite_refs_in_text(text, &mut |kind, id| {
            let i = match kind {
                RefKind::Ext => self.idx[side].ext.get(id).map(|&i| self.id.ext.of[side][i]),
                RefKind::Sub => self.idx[side].sub.get(id).map(|&i| self.id.sub.of[side][i]),
            };
            known &= i.is_some() && ident_of(id).is_none();
            i.map(stand_in)
        });
        known.then_some(Cow::Owned(out))
    }

    /// A text with stand-in ids, each reference shown as what it names (for reports).
    fn named_idents(&self, text: &str) -> String {
        if !has_refs(text) {
            return text.to_string();
        }
        rewrite_refs_in_text(text, &mut |kind, id| {
            let i = ident_of(id)?;
            [O, T, B].into_iter().find_map(|s| match kind {
                RefKind::Ext => {
                    let k = self.id.ext.at.get(i)?[s]?;
                    Some(self.sc[s].ext_resources.get(k)?.path.clone())
                }
                RefKind::Sub => {
                    let r = self.sc[s].sub_resources.get(self.id.sub.at.get(i)?[s]?)?;
                    Some(format!("{} {}", r.type_name, r.id))
                }
            })
        })
    }

    /// Grain's clashes with every reference shown as what it names.
    fn named_conflicts(&self, c: Vec<GrainConflict>) -> Vec<GrainConflict> {
        let name = |v: Option<String>| v.map(|v| self.named_idents(&v));
        c.into_iter()
            .map(|x| GrainConflict {
                at: x.at,
                base: name(x.base),
                ours: name(x.ours),
                theirs: name(x.theirs),
            })
            .collect()
    }

    /// Record that lines merged inside name resources (their merge rests on what every
    /// id names on each side, which `solve` cannot see outside the marker blocks).
    pub(in crate::merge) fn note_merged_inside(
        &mut self,
        location: &dyn Fn() -> String,
        key: &str,
        lines: &[Line],
    ) {
        if lines.iter().any(|l| matches!(l, Line::Idents(_))) {
            self.decisions
                .push(crate::merge::decisions::Decision::ValueMergedInside {
                    location: location(),
                    key: key.to_string(),
                });
        }
    }

    /// The type of the node or resource a section describes (`[resource]`: the file's).
    fn owner(&self, secs: [Option<usize>; 3]) -> Option<Owner> {
        let side = [O, T, B].into_iter().find(|&s| secs[s].is_some())?;
        let sec = self.sec(side, secs[side]?);
        let tag = if sec.tag.name == "resource" {
            &self.sec(side, 0).tag
        } else {
            &sec.tag
        };
        let type_name = field_text_cow(&self.sc[side].doc, &tag.field("type")?).into_owned();
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
        Some(self.text(&(O, p.value.range())).trim())
    }

    /// Merge one property both sides changed at its own grain; `None`: not grain's.
    pub(in crate::merge) fn merge_grain(
        &self,
        secs: [Option<usize>; 3],
        key: &str,
        [b, o, t]: [&Option<Src>; 3],
        oline: &Option<Src>,
    ) -> Option<GrainAnswer> {
        let (o, t, oline) = (o.as_ref()?, t.as_ref()?, oline.as_ref()?);
        let base = match b {
            Some(b) => Some(self.with_idents(b.0, self.text(b))?),
            None => None,
        };
        let ours = self.with_idents(O, self.text(o))?;
        let theirs = self.with_idents(t.0, self.text(t))?;
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
        match grain::merge_property(&ctx, base.as_deref(), &ours, &theirs) {
            Grain::NotMine => None,
            Grain::Conflict(c) => Some(GrainAnswer::Conflict(self.named_conflicts(c))),
            Grain::Merged(v) => {
                let prefix = self.sc[O].doc.slice(&(oline.1.start..o.1.start));
                Some(GrainAnswer::Merged(written(format!("{prefix}{v}\n"))))
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
        let (b, o, t) = (b?, o?, t?);
        let Grain::Conflict(all) = tracks_merge(owner, [&b, &o, &t])? else {
            return None;
        };
        let mine = grain::conflicts_of_track(&all, &o, n);
        (!mine.is_empty()).then(|| GrainAnswer::Conflict(self.named_conflicts(mine)))
    }

    /// One side's `tracks/*` properties of a section as (key, value text with stand-in
    /// ids); `None` when a reference names nothing on that side.
    fn track_props(&self, secs: [Option<usize>; 3], side: usize) -> Option<Vec<(String, String)>> {
        let Some(si) = secs[side] else {
            return Some(Vec::new());
        };
        let props = self.sec(side, si).props.iter();
        props
            .filter(|p| p.key.starts_with("tracks/"))
            .map(|p| {
                let v = self.with_idents(side, self.text(&(side, p.value.range())).trim())?;
                Some((p.key.to_string(), v.into_owned()))
            })
            .collect()
    }

    /// Record grain's conflicts on one property as one report (one marker block): the
    /// property names where they are (the cells, or the first clashes), the values are
    /// the first clash's.
    pub(in crate::merge) fn grain_conflict(
        &mut self,
        location: String,
        key: &str,
        c: &[GrainConflict],
    ) {
        let Some(first) = c.first() else { return };
        let short = |v: &Option<String>| {
            v.as_ref()
                .map(|v| crate::merge::shared::report::shorten(v, 60))
        };
        let values = [short(&first.base), short(&first.ours), short(&first.theirs)];
        self.part_conflict(location, Some(format!("{key}, {}", places(c))), values);
    }

    /// An Animation's `tracks/*` properties when both sides changed them: merged as one
    /// set (tracks matched by type and path, keys by time). `Some((anchor key, lines))`
    /// replaces every `tracks/*` key; `None` leaves them to the key-by-key merge.
    pub(in crate::merge) fn merge_animation_tracks(
        &self,
        secs: [Option<usize>; 3],
        order: [&[&'a str]; 3],
        value: &dyn Fn(usize, &str) -> Option<Src>,
    ) -> Option<(&'a str, Vec<Line>)> {
        let [b, o, t] = self.track_lists(order, value)?;
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

    /// Each side's `tracks/*` as (key, value text with stand-in ids), in its order.
    fn track_lists(
        &self,
        order: [&[&'a str]; 3],
        value: &dyn Fn(usize, &str) -> Option<Src>,
    ) -> Option<[Vec<(String, String)>; 3]> {
        let list = |side: usize| -> Option<Vec<(String, String)>> {
            let keys = order[side].iter().filter(|k| k.starts_with("tracks/"));
            keys.filter_map(|k| Some((k, value(side, k)?)))
                .map(|(k, src)| {
                    let v = self.with_idents(side, self.text(&src))?;
                    Some((k.to_string(), v.into_owned()))
                })
                .collect()
        };
        Some([list(B)?, list(O)?, list(T)?])
    }

    /// An Animation's `tracks/*` that clash, when theirs or base number the tracks
    /// otherwise than ours: merged key by key with their tracks renumbered to ours'
    /// numbering, so each conflict hunk holds one track's lines on every side.
    /// `None`: no clash, or the numbering already agrees (the usual key-by-key merge).
    pub(in crate::merge) fn align_track_clash(
        &mut self,
        secs: [Option<usize>; 3],
        order: [&[&'a str]; 3],
        value: &dyn Fn(usize, &str) -> Option<Src>,
        location: &dyn Fn() -> String,
    ) -> Option<(&'a str, Vec<Line>)> {
        let [b, o, t] = self.track_lists(order, value)?;
        let Grain::Conflict(all) = tracks_merge(&self.owner(secs)?, [&b, &o, &t])? else {
            return None;
        };
        let [b2, t2] = grain::renumber_like_ours(&o, [&b, &t])?;
        if b2 == b && t2 == t {
            return None;
        }
        let anchor = [O, T, B]
            .iter()
            .find_map(|&s| order[s].iter().find(|k| k.starts_with("tracks/")))?;
        let mut keys: Vec<&str> = Vec::new();
        for (k, _) in o.iter().chain(&t2).chain(&b2) {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
        let get = |l: &'_ [(String, String)], k: &str| {
            l.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone())
        };
        let mut lines = Vec::with_capacity(keys.len());
        for key in keys {
            let [bv, ov, tv] = [&b2, &o, &t2].map(|l| get(l, key));
            match crate::merge::shared::context::pick3(&bv, &ov, &tv, same_text) {
                Pick::Ours => lines.extend(ov.map(|v| self.track_line(&o, secs, key, &v))),
                Pick::Theirs => lines.extend(tv.map(|v| written(format!("{key} = {v}\n")))),
                Pick::Conflict => {
                    self.report_track_clash(location(), key, &all, &o, [&bv, &ov, &tv]);
                    let line = |v: &Option<String>| v.as_ref().map(|v| format!("{key} = {v}\n"));
                    lines.push(Line::Texts(Box::new([line(&bv), line(&ov), line(&tv)])));
                }
            }
        }
        Some((*anchor, lines))
    }

    /// Report one clashing `tracks/N/FIELD` line (N in ours' numbering): the track and
    /// key grain names, else the three values.
    fn report_track_clash(
        &mut self,
        location: String,
        key: &str,
        all: &[GrainConflict],
        ours: &[(String, String)],
        values: [&Option<String>; 3],
    ) {
        let n = grain_track_number(key);
        let mine = n
            .map(|n| grain::conflicts_of_track(all, ours, n))
            .unwrap_or_default();
        if mine.is_empty() {
            let named = values.map(|v| {
                v.as_ref()
                    .map(|v| crate::merge::shared::report::shorten(&self.named_idents(v), 60))
            });
            self.part_conflict(location, Some(key.to_string()), named);
        } else {
            let named = self.named_conflicts(mine);
            self.grain_conflict(location, key, &named);
        }
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
            Some(p) => Line::Src((O, p.line.range())),
            None => written(format!("{key} = {v}\n")),
        }
    }
}

impl Ctx<'_> {
    /// A transform both sides changed, merged by its parts ([`grain::merge_transform`]:
    /// one side's move with the other's rotation, one's rotation with the other's
    /// scale), recorded for `--explain`; `None` when that is no merge.
    pub(in crate::merge) fn merge_transform_line(
        &mut self,
        [b, o, t]: [&Option<Src>; 3],
        oline: &Option<Src>,
        location: &dyn Fn() -> String,
        key: &str,
    ) -> Option<Line> {
        let (b, o, t, oline) = (b.as_ref()?, o.as_ref()?, t.as_ref()?, oline.as_ref()?);
        let m = grain::merge_transform(self.text(b), self.text(o), self.text(t))?;
        let prefix = self.sc[O].doc.slice(&(oline.1.start..o.1.start));
        self.decisions
            .push(crate::merge::decisions::Decision::TransformMergedByParts {
                location: location(),
                key: key.to_string(),
                parts: m.parts,
            });
        Some(Line::Lit(format!("{prefix}{}\n", m.text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_name_identities_and_keep_each_spelling() {
        assert_eq!(ident_of(&stand_in(0)), Some(0));
        assert_eq!(ident_of(&stand_in(41)), Some(41));
        assert_eq!(ident_of("3"), None);
        assert_eq!(ident_of("-0"), None);
        assert_eq!(ident_of("1_abcde"), None);
        let text = "[ ExtResource( -2 ), SubResource(\"-5\"), \"ExtResource( -9 )\" ]";
        let mut seen = Vec::new();
        idents_in(text, &mut |ext, i| seen.push((ext, i)));
        assert_eq!(seen, vec![(true, 1), (false, 4)]);
        assert!(matches!(written("a = 1\n".into()), Line::Lit(_)));
        assert!(matches!(written(format!("a = {text}\n")), Line::Idents(_)));
    }
}
