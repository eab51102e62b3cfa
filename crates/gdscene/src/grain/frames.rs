//! Merge of a SpriteFrames resource's `animations`: an array of dictionaries (`frames`,
//! `loop`, `name`, `speed`), matched by `name`.
//!
//! Animations added or removed on one side apply; an animation both sides changed merges
//! entry by entry (`speed` on one side, `frames` on the other). Frames both sides changed
//! merge as a sequence, as git merges lines (frames added at different places, one removed
//! while another is added, frames both sides inserted at one place: ours' then
//! theirs'); the same slot changed differently on both sides conflicts.
//! The order is ours', then the animations only theirs added.

use super::change::{describe_sequence, fold, ValueChange};
use super::dict::{entries, merge_entries};
use super::text::{same_value, shape, string_of, write_array, write_dict, Shape, Spelling};
use super::three::merge_keyed;
use super::{ConflictAt, Grain, GrainConflict, GrainOutcome, PropertyContext};
use crate::linemerge::Hunk;

/// An animation: its name and its dictionary entries as written.
type Anim = (String, Vec<(String, String)>);

fn anims(text: &str) -> Option<Vec<Anim>> {
    let Shape::Array(items) = shape(text)? else {
        return None;
    };
    items
        .iter()
        .map(|item| {
            let e = entries(item)?;
            let name = e
                .iter()
                .find(|(k, _)| string_of(k).as_deref() == Some("name"))?;
            Some((string_of(&name.1)?, e))
        })
        .collect()
}

fn anim_eq(a: &[(String, String)], b: &[(String, String)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && same_value(v, v2)))
}

pub(crate) fn merge(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    let (Some(o), Some(t)) = (anims(ours), anims(theirs)) else {
        return Grain::NotMine;
    };
    let b = match base.map(anims) {
        Some(Some(b)) => b,
        Some(None) => return Grain::NotMine,
        None => Vec::new(),
    };
    let merged = merge_keyed(
        &b,
        &o,
        &t,
        |x, y| anim_eq(x, y),
        |name, bv, ov, tv| match (ov, tv) {
            (Some(ov), Some(tv)) => {
                let bv = bv.map_or(&[][..], |v| v);
                let (ov, tv) = frames_merged(ctx.godot3(), bv, ov, tv)
                    .map_err(|cs| cs.into_iter().map(|c| in_anim(name, c)).collect::<Vec<_>>())?;
                merge_entries(bv, &ov, &tv)
                    .map(Some)
                    .map_err(|cs| cs.into_iter().map(|c| in_anim(name, c)).collect())
            }
            _ => Err(vec![GrainConflict {
                at: ConflictAt::Animation(name.clone()),
                base: bv.map(|_| "present".to_string()),
                ours: ov.map(|_| "changed".to_string()),
                theirs: tv.map(|_| "changed".to_string()),
            }]),
        },
    );
    match merged {
        Ok(list) => {
            let sp = Spelling::of(ctx.godot3(), ours);
            let items: Vec<String> = list.iter().map(|(_, e)| write_dict(e, &sp)).collect();
            Grain::Merged(write_array(&items, &sp))
        }
        Err(c) => Grain::Conflict(c),
    }
}

/// The value of an animation's `frames` entry.
fn frames_of(e: &[(String, String)]) -> Option<&str> {
    let (_, v) = e
        .iter()
        .find(|(k, _)| string_of(k).as_deref() == Some("frames"))?;
    Some(v)
}

/// Ours' and theirs' entries, with `frames` both changed differently replaced by their
/// sequence merge (unchanged when that is not the case or not readable).
type Entries = Vec<(String, String)>;
fn frames_merged(
    godot3: bool,
    b: &[(String, String)],
    o: &[(String, String)],
    t: &[(String, String)],
) -> Result<(Entries, Entries), Vec<GrainConflict>> {
    let (mut o, mut t) = (o.to_vec(), t.to_vec());
    let (Some(fo), Some(ft)) = (frames_of(&o), frames_of(&t)) else {
        return Ok((o, t));
    };
    let fb = frames_of(b).unwrap_or("[]");
    if same_value(fo, ft) || same_value(fb, fo) || same_value(fb, ft) {
        return Ok((o, t));
    }
    let Some(merged) = merge_frame_lists(godot3, fb, fo, ft) else {
        return Ok((o, t));
    };
    let merged = merged?;
    for e in o.iter_mut().chain(t.iter_mut()) {
        if string_of(&e.0).as_deref() == Some("frames") {
            e.1.clone_from(&merged);
        }
    }
    Ok((o, t))
}

/// Three frame lists merged as sequences: `None` when one is not an array, `Err` with
/// the slots both sides changed differently.
fn merge_frame_lists(
    godot3: bool,
    b: &str,
    o: &str,
    t: &str,
) -> Option<Result<String, Vec<GrainConflict>>> {
    let (bi, oi, ti) = (array_items(b)?, array_items(o)?, array_items(t)?);
    let key = |i: &str| i.split_whitespace().collect::<Vec<_>>().join(" ");
    // Each frame as one line of its spelling folded; a line back to a side's spelling.
    let mut spelled: std::collections::HashMap<String, &str> = Default::default();
    for i in ti.iter().chain(&bi).chain(&oi) {
        spelled.insert(key(i), i);
    }
    let lines = |l: &[&str]| l.iter().map(|i| key(i) + "\n").collect::<String>();
    let (lb, lo, lt) = (lines(&bi), lines(&oi), lines(&ti));
    let mut out: Vec<&str> = Vec::with_capacity(oi.len().max(ti.len()));
    let mut clashes = Vec::new();
    for h in crate::linemerge::merge_hunks(lb.as_bytes(), lo.as_bytes(), lt.as_bytes()) {
        match h {
            Hunk::Stable(x) | Hunk::Clean(x) => {
                let text = std::str::from_utf8(x).ok()?;
                out.extend(text.lines().filter_map(|l| spelled.get(l).copied()));
            }
            Hunk::Conflict {
                base: [],
                ours,
                theirs,
            } => {
                // Both sides inserted frames at one place (both appended, typically):
                // ours' then theirs', as a sequence of inserts; one side's frames that
                // start the other's are that side's (no frame twice).
                let both = if theirs.starts_with(ours) {
                    theirs.to_vec()
                } else if ours.starts_with(theirs) {
                    ours.to_vec()
                } else {
                    [ours, theirs].concat()
                };
                let text = std::str::from_utf8(&both).ok()?;
                out.extend(text.lines().filter_map(|l| spelled.get(l).copied()));
            }
            Hunk::Conflict { base, ours, theirs } => {
                let show = |x: &[u8]| {
                    let s = String::from_utf8_lossy(x).trim_end().replace('\n', ", ");
                    (!s.is_empty()).then_some(format!("[{s}]"))
                };
                clashes.push(GrainConflict {
                    at: ConflictAt::Entry(format!("frame {}", out.len())),
                    base: show(base),
                    ours: show(ours),
                    theirs: show(theirs),
                });
                out.extend(
                    String::from_utf8_lossy(ours)
                        .lines()
                        .filter_map(|l| spelled.get(l).copied()),
                );
            }
        }
    }
    if !clashes.is_empty() {
        return Some(Err(clashes));
    }
    Some(Ok(write_array(&out, &Spelling::of(godot3, o))))
}

/// The items of an array value, as written.
fn array_items(s: &str) -> Option<Vec<&str>> {
    match shape(s)? {
        Shape::Array(items) => Some(items),
        _ => None,
    }
}

fn in_anim(name: &str, mut c: GrainConflict) -> GrainConflict {
    if let ConflictAt::Entry(k) = &c.at {
        c.at = ConflictAt::Entry(format!("animation \"{name}\" {k}"));
    }
    c
}

/// `animation "run": added`, `animation "idle" "speed": 5.0 -> 8.0`, `animation "idle"
/// frame 2: ... -> ...`.
pub(crate) fn describe(old: &str, new: &str) -> Option<Vec<ValueChange>> {
    let (a, b) = (anims(old)?, anims(new)?);
    let mut lines = Vec::new();
    for (name, x, y) in super::three::diff_keyed(&a, &b, |p, q| anim_eq(p, q)) {
        let at = format!("animation \"{name}\"");
        match (x, y) {
            (Some(x), Some(y)) => {
                lines.extend(describe_anim(x, y).into_iter().map(|c| c.within(&at)))
            }
            (None, Some(_)) => lines.push(ValueChange::whole("animation", at, "added")),
            (Some(_), None) => lines.push(ValueChange::whole("animation", at, "removed")),
            (None, None) => {}
        }
    }
    Some(lines)
}

/// One animation's entries; its `frames` frame by frame.
fn describe_anim(old: &[(String, String)], new: &[(String, String)]) -> Vec<ValueChange> {
    let is_frames = |k: &String| string_of(k).as_deref() == Some("frames");
    let frames = |e: &[(String, String)]| -> Option<Vec<String>> {
        let (_, v) = e.iter().find(|(k, _)| is_frames(k))?;
        match shape(v)? {
            Shape::Array(items) => Some(items.iter().map(|i| fold(i)).collect()),
            _ => None,
        }
    };
    let rest = |e: &[(String, String)]| -> Vec<(String, String)> {
        e.iter().filter(|(k, _)| !is_frames(k)).cloned().collect()
    };
    let (fa, fb) = (frames(old), frames(new));
    let mut out = Vec::new();
    if let (Some(fa), Some(fb)) = (&fa, &fb) {
        out.extend(describe_sequence("frame", 0, fa, fb, same_value));
        out.extend(super::dict::describe_entries(&rest(old), &rest(new)));
    } else {
        out.extend(super::dict::describe_entries(old, new));
    }
    out
}
