//! The file header (`[gd_scene ...]`, `[gd_resource ...]`): `load_steps` recomputed (or
//! removed, when base had it and a side's 4.6 re-save removed it), `format` three-way
//! and raised when merged content needs Godot 4.3's, other fields three-way (a
//! disagreement a conflict on the header line). Counting the resources is left to the
//! phases before.

use crate::merge::decisions::Decision;
use crate::merge::shared::context::{field_src, Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::sections::{Chunk, Line, OutSec, Src, TagOut};
use crate::model::SectionKind;

/// Whether merged content uses values Godot 4.3 introduced (format 4). A line printed
/// from a side is a slice of that side's text: a side whose whole text holds neither
/// value has none in any of its lines, found by one memchr pass over the side (looked at
/// only once a line of it is) instead of two searches a line.
fn needs_format4<'s>(ctx: &Ctx, mut secs: impl Iterator<Item = &'s OutSec>) -> bool {
    let holds = |t: &str| {
        let rests: [&[u8]; 2] = [b"Vector4Array(", b"ByteArray(\""];
        crate::write::format4::mentions_packed(t.as_bytes(), &rests)
    };
    let mut side_may: [Option<bool>; 3] = [None; 3];
    secs.any(|s| {
        s.lines.iter().any(|l| match l {
            Line::Src(src) => {
                let may = side_may
                    .get_mut(src.0)
                    .map(|m| *m.get_or_insert_with(|| holds(ctx.sc[src.0].doc.text.as_str())));
                may != Some(false) && holds(ctx.text(src))
            }
            Line::Conflict(_) | Line::Lit(_) | Line::Idents(_) | Line::Texts(_) => false,
        })
    })
}

/// `format` three-way: a side that kept base's takes the other's (a re-save in an older
/// Godot lowers it, as `git merge-file` would); both changed: the higher.
fn merged_format(b: Option<i64>, o: Option<i64>, t: Option<i64>) -> Option<i64> {
    if o == b {
        t.or(o)
    } else if t == b {
        o
    } else {
        o.max(t)
    }
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
pub(in crate::merge) fn merge<'s>(
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
    let merged = merged_format(fmt(B), fmt(O), fmt(T));
    let mut format = merged;
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
                }
                // Taking theirs' one-sided change is a field merge; anything above it
                // (content that needs 4.3's format, or both sides changed) is chosen.
                if fmt(O) != Some(f) && (format != merged || fmt(O) != fmt(B)) {
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
            [B, O, T].map(|s| Some((s, h(s).tag.span.range()))),
        ))
    } else if hf.changed {
        TagOut::Fields(h(O).tag.name.to_string(), hf.fields)
    } else {
        TagOut::Src((O, h(O).tag.span.range()))
    };
    let verbatim = matches!(tag, TagOut::Src(_)).then_some(0);
    OutSec::tag_only(SectionKind::Header, verbatim, tag)
}

/// The printed result as the editor would write it under the `format=4` rule: a
/// `format=3` result that gained a byte array over the editor's threshold (or a
/// PackedVector4Array) becomes `format=4`, and in a `format=4` result every byte array
/// is base64. A side that is itself a `format=3` file with such a value was written by a
/// Godot before 4.3 (which has no `format=4`): then the result stays as it is. Returns
/// the text and whether `format` was raised here.
pub(in crate::merge) fn settle_format4(text: String, sides: [&str; 2]) -> (String, bool) {
    use crate::write::format4::{byte_arrays_as_base64, format4_needs};
    let first = text.lines().next().unwrap_or("");
    if !first.starts_with("[gd_") {
        return (text, false);
    }
    let format = |n: &str| first.contains(&format!(" format={n}"));
    let needs = format4_needs(&text);
    let pre_43 = |side: &str| {
        let head = side.lines().next().unwrap_or("");
        head.contains(" format=3") && format4_needs(side).needs
    };
    if format("3") && needs.needs && !sides.iter().any(|s| pre_43(s)) {
        let end = first.len();
        let header = first.replacen(" format=3", " format=4", 1);
        let text = byte_arrays_as_base64(&format!("{header}{}", &text[end..]));
        return (text, true);
    }
    if format("4") && needs.decimal > 0 {
        return (byte_arrays_as_base64(&text), false);
    }
    (text, false)
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
    if key == "uid" {
        if let Some((ours, theirs)) = both_regenerated(ctx, &fb, &fo, &ft) {
            ctx.decisions.push(Decision::HeaderUidOurs { ours, theirs });
            if let Some(s) = fo {
                hf.fields.push((key, Chunk::Src(s)));
            }
            return;
        }
    }
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

/// The file's own `uid` given a new value on both sides (a `.tres` or `.tscn` re-saved by
/// Godot 4.6 on each branch, or regenerated): ours' and theirs' uids when so. No content
/// is at stake, so the rule is to keep ours' (files that refer to theirs' uid load the
/// file by its path, with Godot's warning); a side that removed the uid is no
/// regeneration and stays a conflict.
fn both_regenerated(
    ctx: &Ctx,
    fb: &Option<Src>,
    fo: &Option<Src>,
    ft: &Option<Src>,
) -> Option<(String, String)> {
    let text = |f: &Option<Src>| {
        f.as_ref()
            .map(|s| ctx.text(s).trim_matches('"').to_string())
    };
    let (b, o, t) = (text(fb), text(fo), text(ft));
    match (o, t) {
        (Some(o), Some(t)) if o != t && b.as_ref() != Some(&o) && b.as_ref() != Some(&t) => {
            Some((o, t))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::merge::{merge, Decision, MergeOptions, MergeOutcome};

    fn m(base: &str, ours: &str, theirs: &str) -> MergeOutcome {
        let opts = MergeOptions::default();
        merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), &opts)
    }

    /// Saved by Godot 4.3: format 4, byte arrays as base64.
    const SAVED_43: &str = r#"[gd_scene load_steps=3 format=4 uid="uid://cc6ngdqie8o8c"]

[ext_resource type="Script" uid="uid://4ehwuml4mp5k" path="res://effects/vignette.gd" id="1"]

[sub_resource type="ArrayMesh" id="ArrayMesh_yyajy"]
_surfaces = [{
"aabb": AABB(-2, -2, 0, 4, 4, 1e-05),
"format": 34359742465,
"index_count": 3,
"index_data": PackedByteArray("AAABAAIA"),
"primitive": 3,
"uv_scale": Vector4(0, 0, 0, 0),
"vertex_count": 3,
"vertex_data": PackedByteArray("AACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/")
}]

[node name="Vignette" type="Node3D"]
script = ExtResource("1")

[node name="Mesh" type="MeshInstance3D" parent="."]
transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1)
cast_shadow = 0
mesh = SubResource("ArrayMesh_yyajy")
"#;

    /// The same scene re-saved by Godot 4.2: format 3, byte arrays as numbers.
    fn saved_42() -> String {
        SAVED_43
            .replace("format=4", "format=3")
            .replace(" uid=\"uid://4ehwuml4mp5k\"", "")
            .replace("34359742465", "4097")
            .replace("\"AAABAAIA\"", "0, 0, 1, 0, 2, 0")
            .replace("\"uv_scale\": Vector4(0, 0, 0, 0),\n", "")
            .replace(
                "\"AACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/\"",
                "0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 63",
            )
    }

    #[test]
    fn a_resave_in_an_older_godot_lowers_format_as_a_field_change() {
        let ours = saved_42();
        let theirs = SAVED_43.replace("cast_shadow = 0\n", "cast_shadow = 0\nlayers = 2\n");
        let r = m(SAVED_43, &ours, &theirs);
        let text = String::from_utf8_lossy(&r.text);
        assert_eq!(r.conflict_count, 0, "{text}");
        assert!(
            text.starts_with("[gd_scene load_steps=3 format=3 "),
            "{text}"
        );
        assert!(text.contains("cast_shadow = 0\nlayers = 2\n"), "{text}");
        assert!(text.contains("PackedByteArray(0, 0, 1, 0, 2, 0)"), "{text}");
        assert!(!r
            .decisions
            .iter()
            .any(|d| matches!(d, Decision::FormatRaised { .. })));
    }

    #[test]
    fn format_is_raised_when_the_other_side_brings_base64_arrays() {
        let base = saved_42();
        let ours = base.replace("cast_shadow = 0\n", "cast_shadow = 1\n");
        let theirs = SAVED_43.to_string();
        let r = m(&base, &ours, &theirs);
        let text = String::from_utf8_lossy(&r.text);
        assert_eq!(r.conflict_count, 0, "{text}");
        assert!(
            text.starts_with("[gd_scene load_steps=3 format=4 "),
            "{text}"
        );
        assert!(text.contains("PackedByteArray(\"AAABAAIA\")"), "{text}");
    }
    /// A `.tres` without a uid re-saved by Godot 4.6 on both branches: each side's header
    /// gained a different uid. Ours' is kept, by rule, and the decision names theirs'.
    #[test]
    fn a_uid_both_sides_regenerated_keeps_ours() {
        let base = "[gd_resource type=\"Resource\" load_steps=2 format=3]\n\n[ext_resource type=\"Script\" path=\"res://credit.gd\" id=\"1_a\"]\n\n[resource]\nscript = ExtResource(\"1_a\")\nname = \"x\"\n";
        let ours = base
            .replace(
                "load_steps=2 format=3]",
                "format=3 uid=\"uid://c6swjqnymntnx\"]",
            )
            .replace("name = \"x\"", "name = \"y\"");
        let theirs = base.replace(
            "load_steps=2 format=3]",
            "format=3 uid=\"uid://cipicp3eiqpbc\"]",
        );
        let r = m(base, &ours, &theirs);
        let text = String::from_utf8_lossy(&r.text);
        assert_eq!(r.conflict_count, 0, "{text}");
        assert!(
            text.starts_with(
                "[gd_resource type=\"Resource\" format=3 uid=\"uid://c6swjqnymntnx\"]\n"
            ),
            "{text}"
        );
        assert!(text.contains("name = \"y\""), "{text}");
        let said: Vec<String> = r.decisions.iter().map(|d| d.to_string()).collect();
        assert!(
            said.iter()
                .any(|d| d.starts_with("kept ours' file uid uid://c6swjqnymntnx")
                    && d.contains("theirs uid://cipicp3eiqpbc")),
            "{said:?}"
        );
        let json = r
            .decisions
            .iter()
            .map(|d| d.to_json())
            .find(|j| j["kind"] == "header_uid_ours");
        assert_eq!(
            json.map(|j| j["theirs"].clone()),
            Some("uid://cipicp3eiqpbc".into())
        );
    }

    /// A uid one side removed and the other changed is no regeneration: a conflict.
    #[test]
    fn a_uid_removed_against_a_new_one_conflicts() {
        let base = "[gd_resource type=\"Resource\" format=3 uid=\"uid://aaaaaaaaaaaa\"]\n\n[resource]\nname = \"x\"\n";
        let ours = base.replace(" uid=\"uid://aaaaaaaaaaaa\"", "");
        let theirs = base.replace("uid://aaaaaaaaaaaa", "uid://bbbbbbbbbbbb");
        let r = m(base, &ours, &theirs);
        assert_eq!(r.conflict_count, 1, "{}", String::from_utf8_lossy(&r.text));
    }
}
