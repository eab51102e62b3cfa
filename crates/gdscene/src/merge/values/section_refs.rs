//! Which resources a merged section's texts name, read as cheaply as the caller allows:
//! a side's text searched ahead once for the word `Resource`, and for a caller that needs
//! the references only as sets, a short text met again passed over. Which resources the
//! result keeps is left to [`super::resources`].

use super::resources::Refs;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::sections::{Chunk, Line, OutSec, Src, TagOut};
use crate::value::{may_name_ref, scan_refs_in_text, RefKind, WordAhead};
use rustc_hash::FxHashSet;

/// Add the references in a side's text: ext identities into the set, sub identities
/// onto the list, in text order.
pub(super) fn refs_of(ctx: &Ctx, s: &Src, refs: &mut Refs) {
    // No reference without the word (one prebuilt search).
    if may_name_ref(ctx.text(s)) {
        scan_into(ctx, s, refs);
    }
}

/// How [`sec_refs`] reads a side's texts: the word `Resource` searched ahead once per
/// side ([`WordAhead`]; ranges asked mostly in each side's file order, so a line without
/// the word costs no search of its own), and, for a caller that uses the references
/// only as sets, the short texts already scanned, passed over when met again (a big
/// scene repeats `texture = ExtResource("1_t1l3s")` thousands of times).
pub(super) struct Scan<'t> {
    /// Each side's search ahead for `Resource`.
    ahead: [WordAhead<'t>; 3],
    /// (side, text) of the short texts scanned so far; `None`: scan every text (the
    /// caller keeps order and repeats).
    seen: Option<FxHashSet<(usize, &'t str)>>,
}

/// A text at most this long is remembered by [`Scan`] (hashing a long one would cost
/// about what its scan costs, and keep much).
const SEEN_TEXT: usize = 256;

impl<'t> Scan<'t> {
    /// Every text scanned, each time met: references in text order, repeats kept.
    pub(super) fn all(ctx: &Ctx<'t>) -> Self {
        Scan {
            ahead: ctx.sc.map(|sc| WordAhead::any_ref(&sc.doc.text)),
            seen: None,
        }
    }

    /// A text met again passed over: for references read as sets.
    pub(super) fn as_sets(ctx: &Ctx<'t>) -> Self {
        Scan {
            seen: Some(FxHashSet::default()),
            ..Scan::all(ctx)
        }
    }

    /// Add the references of a side's text (as [`refs_of`], less the repeats when read
    /// as sets).
    pub(super) fn refs(&mut self, ctx: &Ctx<'t>, s: &Src, refs: &mut Refs) {
        // A long text (mesh data) is scanned at once: one pass, where searching ahead
        // from it could read far past it.
        let long = s.1.len() > super::equality::LONG_TEXT;
        if !long && !self.ahead[s.0].within(s.1.clone()) {
            return;
        }
        let text = ctx.text(s);
        if let Some(seen) = self.seen.as_mut().filter(|_| text.len() <= SEEN_TEXT) {
            if !seen.insert((s.0, text)) {
                return;
            }
        }
        scan_into(ctx, s, refs);
    }
}

/// The references [`scan_refs_in_text`] finds in a side's text, added to `refs`.
fn scan_into(ctx: &Ctx, s: &Src, refs: &mut Refs) {
    let side = s.0;
    scan_refs_in_text(ctx.text(s), &mut |k, id| match k {
        RefKind::Ext => {
            if let Some(&i) = ctx.idx[side].ext.get(id) {
                refs.0.insert(ctx.id.ext.of[side][i]);
            }
        }
        RefKind::Sub => {
            if let Some(&i) = ctx.idx[side].sub.get(id) {
                refs.1.push(ctx.id.sub.of[side][i]);
            }
        }
    });
}

/// The references of a section's texts (tag, lines, or whole-section conflict).
pub(super) fn sec_refs<'t>(ctx: &Ctx<'t>, out: &OutSec, scan: &mut Scan<'t>, refs: &mut Refs) {
    let mut each = |s: &Src| scan.refs(ctx, s, refs);
    let tag = match &out.tag {
        TagOut::PerSide(inner, _) => inner.as_ref(),
        t => t,
    };
    match tag {
        TagOut::Src(s) => each(s),
        TagOut::Fields(_, f) => {
            for (_, c) in f {
                if let Chunk::Src(s) = c {
                    each(s);
                }
            }
        }
        TagOut::Conflict(x) => x.iter().flatten().for_each(&mut each),
        TagOut::Resource { .. } | TagOut::PerSide(..) => {}
    }
    for l in &out.lines {
        match l {
            Line::Src(s) => each(s),
            Line::Conflict(x) => x.iter().flatten().for_each(&mut each),
            Line::Lit(_) | Line::Idents(_) | Line::Texts(_) => {}
        }
    }
    if let Some(w) = &out.whole {
        for (s, list) in w.iter().enumerate() {
            for &si in list {
                each(&(s, ctx.sc[s].doc.sections[si].span.range()));
            }
        }
    }
    for l in &out.lines {
        let texts: Vec<&String> = match l {
            Line::Idents(t) => vec![t],
            Line::Texts(x) => x.iter().flatten().collect(),
            _ => Vec::new(),
        };
        for t in texts {
            crate::merge::values::value_grain::idents_in(t, &mut |ext, i| {
                if ext {
                    refs.0.insert(i);
                } else {
                    refs.1.push(i);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::identity::match_all;
    use crate::merge::shared::idents::{O, T};
    use crate::model::Scene;
    use std::collections::BTreeSet;

    /// References spelled every way the scanner reads or skips: repeated lines, an
    /// escaped id, the word in a string and in a comment, a long line, lines without.
    const SCENE: &str = "[gd_scene load_steps=4 format=3]

[ext_resource type=\"Texture2D\" path=\"res://a.png\" id=\"1_a\"]
[ext_resource type=\"Script\" path=\"res://b.gd\" id=\"2_b\"]

[sub_resource type=\"CircleShape2D\" id=\"x1\"]
radius = 6.0

[sub_resource type=\"RectangleShape2D\" id=\"x2\"]
size = Vector2(32, 8)

[node name=\"Root\" type=\"Node2D\"]

[node name=\"A\" type=\"Sprite2D\" parent=\".\"]
texture = ExtResource(\"1_a\")
s = \"SubResource(\\\"x2\\\")\"
; SubResource(\"x2\")

[node name=\"B\" type=\"Area2D\" parent=\".\"]
script = ExtResource(\"2_b\")
shape = SubResource(\"x1\")
z = [SubResource(\"x2\"),
SubResource(\"x1\")]
position = Vector2(1, 2)

[node name=\"C\" type=\"Area2D\" parent=\".\"]
texture = ExtResource(\"1_a\")
w = SubResource(\"\\u00782\")
shape = SubResource(\"x1\")

[node name=\"D\" type=\"Label\" parent=\".\"]
text = \"Resource\"
";

    /// Every property line of the scene's nodes, each node's taken from ours or theirs
    /// by pairs (B and C from theirs: a line repeated on one side).
    fn lines(sc: &Scene) -> Vec<Src> {
        let mut out = Vec::new();
        for (k, n) in sc.nodes.iter().enumerate() {
            let side = [O, T][k / 2 % 2];
            for p in &sc.doc.sections[n.section].props {
                out.push((side, p.line.range()));
            }
        }
        out
    }

    /// A long line (past [`SEEN_TEXT`]) naming both sub_resources, repeated.
    fn long_scene() -> String {
        let pad = "0, ".repeat(SEEN_TEXT);
        let line = format!("v = [{pad}SubResource(\"x2\"), ExtResource(\"2_b\")]\n");
        format!("{SCENE}\n[node name=\"E\" type=\"Node\" parent=\".\"]\n{line}{line}")
    }

    /// The lines read one by one ([`refs_of`]), and by [`Scan::all`] (in file order and
    /// backwards): the same references, in the same order, repeats kept; read as sets
    /// ([`Scan::as_sets`]): the same sets.
    #[test]
    fn the_scans_agree_with_reading_each_line() {
        let text = long_scene();
        let Ok(sc) = Scene::parse(text.as_bytes()) else {
            panic!("the test scene parses");
        };
        let ctx = Ctx::new([&sc, &sc, &sc], match_all([&sc, &sc, &sc]));
        let forward = lines(&sc);
        let mut want = Refs::default();
        forward.iter().for_each(|s| refs_of(&ctx, s, &mut want));
        assert_eq!(want.0.len(), 2, "the scene names both ext_resources");
        assert_eq!(want.1.len(), 7, "and sub_resources, repeated");
        for order in [forward.clone(), forward.iter().rev().cloned().collect()] {
            let mut want = Refs::default();
            order.iter().for_each(|s| refs_of(&ctx, s, &mut want));
            let mut got = Refs::default();
            let mut scan = Scan::all(&ctx);
            order.iter().for_each(|s| scan.refs(&ctx, s, &mut got));
            assert_eq!(got, want);
            let mut sets = Refs::default();
            let mut scan = Scan::as_sets(&ctx);
            order.iter().for_each(|s| scan.refs(&ctx, s, &mut sets));
            assert_eq!(sets.0, want.0);
            let set = |v: &[usize]| v.iter().copied().collect::<BTreeSet<usize>>();
            assert_eq!(set(&sets.1), set(&want.1));
            assert!(sets.1.len() < want.1.len(), "repeats are passed over");
        }
    }
}
