//! The file header (`[gd_scene ...]`, `[gd_resource ...]`): `load_steps` recomputed (or
//! removed, when base had it and a side's 4.6 re-save removed it), `format` raised when merged content needs Godot 4.3's, other fields three-way (a
//! disagreement a conflict on the header line). Counting the resources is left to the
//! phases before.

use super::context::{field_src, Ctx, Pick};
use super::matching::{B, O, T};
use super::sections::{Chunk, Line, OutSec, TagOut};
use super::Decision;
use crate::model::SectionKind;

/// Whether merged content uses values Godot 4.3 introduced (format 4).
fn needs_format4<'s>(ctx: &Ctx, mut secs: impl Iterator<Item = &'s OutSec>) -> bool {
    secs.any(|s| {
        s.lines.iter().any(|l| match l {
            Line::Src(src) => {
                let t = ctx.text(src);
                t.contains("PackedVector4Array(") || t.contains("PackedByteArray(\"")
            }
            Line::Conflict(_) | Line::Lit(_) | Line::Idents(_) | Line::Texts(_) => false,
        })
    })
}

/// How a header merge went.
#[derive(Default)]
struct HeaderFields {
    fields: Vec<(String, Chunk)>,
    /// Differs from ours' header.
    changed: bool,
    /// A field conflicts (reported).
    conflict: bool,
}

/// The header, given how many resources the result has and its sections.
pub(super) fn merge<'s>(
    ctx: &mut Ctx,
    resources: usize,
    secs: impl Iterator<Item = &'s OutSec>,
) -> OutSec {
    let sc = ctx.sc;
    let h = |s: usize| &sc[s].doc.sections[0];
    let mut keys: Vec<String> = h(O).tag.fields.iter().map(|f| f.key.to_string()).collect();
    for f in &h(T).tag.fields {
        if !keys.iter().any(|k| *k == f.key) && f.key != "load_steps" && f.key != "format" {
            keys.push(f.key.to_string());
        }
    }
    let fmt = |s: usize| sc[s].header.format;
    let mut format = fmt(O).max(fmt(T));
    if format.is_some_and(|f| f == 3) && needs_format4(ctx, secs) {
        format = Some(4);
    }
    let mut hf = HeaderFields::default();
    note_removed_by_ours(ctx);
    for key in keys {
        match key.as_str() {
            "load_steps" => load_steps(ctx, resources, key, &mut hf),
            "format" => {
                let f = format.unwrap_or(3);
                if fmt(O) != Some(f) {
                    hf.changed = true;
                    ctx.decisions.push(Decision::FormatRaised {
                        from: fmt(O),
                        to: f,
                    });
                }
                hf.fields.push((key, Chunk::Lit(f.to_string())));
            }
            _ => other_field(ctx, key, &mut hf),
        }
    }
    let tag = if hf.conflict {
        TagOut::Conflict(Box::new(
            [B, O, T].map(|s| Some((s, h(s).tag.span.clone()))),
        ))
    } else if hf.changed {
        TagOut::Fields(h(O).tag.name.to_string(), hf.fields)
    } else {
        TagOut::Src((O, h(O).tag.span.clone()))
    };
    let verbatim = matches!(tag, TagOut::Src(_)).then_some(0);
    OutSec::tag_only(SectionKind::Header, verbatim, tag)
}

/// `load_steps`: the resources plus one (absent when that is 1).
fn load_steps(ctx: &mut Ctx, resources: usize, key: String, hf: &mut HeaderFields) {
    let have = ctx.sc[O].header.load_steps;
    let steps = |s: usize| ctx.sc[s].header.load_steps;
    // Godot 4.6 no longer writes it: theirs' re-save removed it.
    let removed = steps(B).is_some() && steps(T).is_none();
    let want = if removed { 0 } else { (resources + 1) as i64 };
    if have != Some(want) {
        hf.changed = true;
        ctx.decisions.push(match (removed, steps(B)) {
            (true, Some(base)) => Decision::LoadStepsRemoved {
                side: "theirs",
                base,
            },
            _ => Decision::LoadStepsRecomputed {
                from: have,
                to: (want > 1).then_some(want),
            },
        });
    }
    if want > 1 {
        hf.fields.push((key, Chunk::Lit(want.to_string())));
    }
}

/// Ours' 4.6 re-save dropped `load_steps` that base and theirs still carry: the result
/// follows ours (no `load_steps` key to merge), and `--explain` says why theirs' is gone.
fn note_removed_by_ours(ctx: &mut Ctx) {
    let steps = |s: usize| ctx.sc[s].header.load_steps;
    if let (Some(base), None, Some(_)) = (steps(B), steps(O), steps(T)) {
        ctx.decisions
            .push(Decision::LoadStepsRemoved { side: "ours", base });
    }
}

/// Any other header field, three-way.
fn other_field(ctx: &mut Ctx, key: String, hf: &mut HeaderFields) {
    let sc = ctx.sc;
    let v = |s: usize| field_src(sc[s], s, 0, &key);
    let (fb, fo, ft) = (v(B), v(O), v(T));
    let chosen = match ctx.pick_same(&fb, &fo, &ft) {
        Pick::Ours => fo,
        Pick::Theirs => {
            hf.changed = true;
            ft
        }
        Pick::Conflict => {
            hf.conflict = true;
            ctx.value_conflict("file header".into(), Some(key.clone()), [&fb, &fo, &ft]);
            fo
        }
    };
    if let Some(s) = chosen {
        hf.fields.push((key, Chunk::Src(s)));
    }
}
