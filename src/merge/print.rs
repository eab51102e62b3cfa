//! Assembling the output text: the sections in order (header, ext_resources,
//! sub_resources, `[resource]`, nodes, connections, editables), each as ours' bytes when
//! it is all ours', else from its pieces with resource ids rewritten to the result's,
//! conflicts between markers, and the blank lines ours uses between sections. It
//! decides nothing about content.

use super::context::{body_end, Ctx};
use super::ids::is_int_id;
use super::matching::{B, O, T};
use super::nodes::MergedNode;
use super::sections::{Chunk, Line, OutSec, Src, TagOut};
use crate::linemerge::{write_conflict, MarkerOptions};
use crate::model::SectionKind;
use crate::value::{rewrite_refs_in_text, RefKind};
use std::collections::HashMap;

/// Mark each node that is all ours' bytes as verbatim, and list the nodes in `order`
/// (each once).
pub(super) fn node_sections<'m>(
    ctx: &Ctx,
    order: &[usize],
    merged: &'m mut [Option<MergedNode>],
) -> Vec<&'m OutSec> {
    let o = ctx.sc[O];
    let mut taken = vec![false; merged.len()];
    let mut list: Vec<usize> = Vec::with_capacity(order.len());
    for &i in order {
        let Some(m) = merged.get_mut(i).and_then(Option::as_mut) else { continue };
        if std::mem::replace(&mut taken[i], true) {
            continue;
        }
        let out = &mut m.out;
        if let (TagOut::Src((O, r)), Some(k)) = (&out.tag, ctx.id.node.at[i][O]) {
            let osec = o.nodes[k].section;
            let s = &o.doc.sections[osec];
            if *r == s.tag.span && out.lines_are(O, &s.props) {
                out.verbatim = Some(osec);
            }
        }
        list.push(i);
    }
    let merged: &'m [Option<MergedNode>] = merged;
    list.iter().filter_map(|&i| merged[i].as_ref().map(|m| &m.out)).collect()
}

/// Separators ours uses between sections of two kinds (the first seen of each pair).
pub(super) fn ours_separators<'a>(ctx: &Ctx<'a>) -> HashMap<(SectionKind, SectionKind), &'a str> {
    let o = ctx.sc[O];
    let mut seps = HashMap::new();
    for i in 0..o.doc.sections.len().saturating_sub(1) {
        let t = o.doc.slice(&(body_end(o, i)..o.doc.sections[i].span.end));
        if t.bytes().all(|c| matches!(c, b'\n' | b'\r' | b' ' | b'\t')) {
            seps.entry((o.kinds[i], o.kinds[i + 1])).or_insert(t);
        }
    }
    seps
}

/// Prints the result: sections in order, resource ids rewritten, conflicts as markers.
pub(super) struct Printer<'c, 'a> {
    pub(super) ctx: &'c Ctx<'a>,
    pub(super) ext_ids: &'c HashMap<usize, String>,
    pub(super) sub_ids: &'c HashMap<usize, String>,
    pub(super) markers: &'c MarkerOptions,
    pub(super) godot3: bool,
    pub(super) seps: HashMap<(SectionKind, SectionKind), &'a str>,
}

impl Printer<'_, '_> {
    /// Side text with ids mapped to the result's ids.
    fn src(&self, s: &Src) -> String {
        let (side, r) = s;
        let text = self.ctx.sc[*side].doc.slice(r);
        if *side == O || !text.contains("Resource") {
            return text.to_string();
        }
        let ctx = self.ctx;
        rewrite_refs_in_text(text, &mut |kind, id| match kind {
            RefKind::Ext => {
                let i = *ctx.idx[*side].ext.get(id)?;
                let out = self.ext_ids.get(&ctx.id.ext.of[*side][i])?;
                (out != id).then(|| out.clone())
            }
            RefKind::Sub => {
                let i = *ctx.idx[*side].sub.get(id)?;
                let out = self.sub_ids.get(&ctx.id.sub.of[*side][i])?;
                (out != id).then(|| out.clone())
            }
        })
    }

    fn id_text(&self, id: &str) -> String {
        if self.godot3 && is_int_id(id) {
            id.to_string()
        } else {
            format!("\"{id}\"")
        }
    }

    fn tag(&self, t: &TagOut, take_ours: bool, out: &mut String, nconf: &mut usize) {
        match t {
            TagOut::Src(s) => out.push_str(&self.src(s)),
            TagOut::Fields(name, fields) => {
                out.push('[');
                out.push_str(name);
                for (k, c) in fields {
                    match c {
                        Chunk::Src(s) => {
                            out.push_str(&self.lead(s, k));
                            out.push_str(&self.src(s));
                        }
                        Chunk::Lit(l) => {
                            out.push(' ');
                            out.push_str(k);
                            out.push('=');
                            out.push_str(l);
                        }
                    }
                }
                out.push(']');
            }
            TagOut::Resource { side, ident, ext } => {
                let sc = self.ctx.sc[*side];
                let (sec, new_id) = if *ext {
                    let k = self.ctx.id.ext.at[*ident][*side].unwrap_or_default();
                    (sc.ext_resources[k].section, self.ext_ids.get(ident))
                } else {
                    let k = self.ctx.id.sub.at[*ident][*side].unwrap_or_default();
                    (sc.sub_resources[k].section, self.sub_ids.get(ident))
                };
                let tag = &sc.doc.sections[sec].tag;
                out.push('[');
                out.push_str(&tag.name);
                for f in &tag.fields {
                    out.push(' ');
                    out.push_str(&f.key);
                    out.push('=');
                    if f.key == "id" {
                        match new_id {
                            Some(n) => out.push_str(&self.id_text(n)),
                            None => out.push_str(sc.doc.slice(&f.value)),
                        }
                    } else {
                        out.push_str(&self.src(&(*side, f.value.clone())));
                    }
                }
                out.push(']');
            }
            TagOut::PerSide(inner, sides) => self.per_side(inner, sides, take_ours, out, nconf),
            TagOut::Conflict(v) => {
                *nconf += 1;
                let text = |s: &Option<Src>| {
                    s.as_ref()
                        .map(|s| format!("{}\n", self.src(s)))
                        .unwrap_or_default()
                };
                if take_ours {
                    out.push_str(text(&v[1]).trim_end_matches('\n'));
                } else {
                    let mut buf = Vec::new();
                    write_conflict(
                        &mut buf,
                        text(&v[0]).as_bytes(),
                        text(&v[1]).as_bytes(),
                        text(&v[2]).as_bytes(),
                        self.markers,
                    );
                    out.push_str(String::from_utf8_lossy(&buf).trim_end_matches('\n'));
                }
            }
        }
    }

    /// A tag each side spells differently (or lacks), between markers; ours' part when
    /// resolving to ours.
    fn per_side(
        &self,
        inner: &TagOut,
        sides: &[Option<Vec<(&'static str, String)>>; 3],
        take_ours: bool,
        out: &mut String,
        nconf: &mut usize,
    ) {
        let mut tag = String::new();
        self.tag(inner, take_ours, &mut tag, nconf);
        *nconf += 1;
        let part = |s: &Option<Vec<(&'static str, String)>>| match s {
            None => String::new(),
            Some(fields) => {
                let t = fields.iter().fold(tag.clone(), |t, (k, v)| with_field(&t, k, v));
                format!("{t}\n")
            }
        };
        if take_ours {
            out.push_str(part(&sides[1]).trim_end_matches('\n'));
            return;
        }
        let mut buf = Vec::new();
        let [b, o, t] = sides.each_ref().map(part);
        write_conflict(&mut buf, b.as_bytes(), o.as_bytes(), t.as_bytes(), self.markers);
        out.push_str(String::from_utf8_lossy(&buf).trim_end_matches('\n'));
    }

    /// ` key=` as the side wrote it before this value (keeps quirks like `binds= [...]`).
    fn lead(&self, s: &Src, key: &str) -> String {
        let text = &self.ctx.sc[s.0].doc.text[..s.1.start];
        let t = text.trim_end();
        if let Some(t2) = t.strip_suffix('=') {
            let t2 = t2.trim_end();
            if t2.ends_with(key) {
                return format!(" {}", &text[t2.len() - key.len()..]);
            }
        }
        format!(" {key}=")
    }

    fn line_text(&self, s: &Src) -> String {
        let mut t = self.src(s);
        if !t.ends_with('\n') {
            t.push('\n');
        }
        t
    }

    /// `src`, appended to `out`.
    fn src_into(&self, s: &Src, out: &mut String) {
        let (side, r) = s;
        let text = self.ctx.sc[*side].doc.slice(r);
        if *side == O || !text.contains("Resource") {
            out.push_str(text);
        } else {
            out.push_str(&self.src(s));
        }
    }

    /// `line_text`, appended to `out`.
    fn line_into(&self, s: &Src, out: &mut String) {
        let start = out.len();
        self.src_into(s, out);
        if out.len() == start || !out.ends_with('\n') {
            out.push('\n');
        }
    }

    /// One side's part of a whole-section hunk: its sections (a node and the
    /// descendants the hunk carries), separated as the side's nodes are.
    fn hunk_part(&self, side: usize, secs: &[usize]) -> String {
        let sc = self.ctx.sc[side];
        let mut t = String::new();
        for (k, &si) in secs.iter().enumerate() {
            if k > 0 {
                t.push_str(self.separator(SectionKind::Node, SectionKind::Node));
            }
            let sec = &sc.doc.sections[si];
            t.push_str(&self.src(&(side, sec.span.start..body_end(sc, si))));
            if !t.ends_with('\n') {
                t.push('\n');
            }
        }
        t
    }

    /// A section's text (tag and body), appended to `out`.
    fn body(&self, s: &OutSec, take_ours: bool, nconf: &mut usize, out: &mut String) {
        let ctx = self.ctx;
        if let Some(w) = &s.whole {
            *nconf += 1;
            let text = |side: usize| self.hunk_part(side, &w[side]);
            if take_ours {
                out.push_str(&text(O));
                return;
            }
            let mut buf = Vec::new();
            write_conflict(
                &mut buf,
                text(B).as_bytes(),
                text(O).as_bytes(),
                text(T).as_bytes(),
                self.markers,
            );
            out.push_str(&String::from_utf8_lossy(&buf));
            return;
        }
        if let Some(si) = s.verbatim {
            let t = ctx.sc[O]
                .doc
                .slice(&(ctx.sc[O].doc.sections[si].span.start..body_end(ctx.sc[O], si)));
            out.push_str(t);
            if !t.ends_with('\n') {
                out.push('\n');
            }
            return;
        }
        let start = out.len();
        self.tag(&s.tag, take_ours, out, nconf);
        // Every line from one side, in its order: keep that side's layout (blank line
        // after the header in old files, comments).
        for side in [O, T, B] {
            let Some(si) = s.origin[side] else { continue };
            let sc = ctx.sc[side];
            let sec = &sc.doc.sections[si];
            let same = s.lines.len() == sec.props.len()
                && s.lines
                    .iter()
                    .zip(&sec.props)
                    .all(|(l, p)| matches!(l, Line::Src((x, r)) if *x == side && *r == p.line));
            if same && !matches!(s.tag, TagOut::Conflict(_)) {
                self.src_into(&(side, sec.tag.span.end..body_end(sc, si)), out);
                if out.len() == start || !out.ends_with('\n') {
                    out.push('\n');
                }
                return;
            }
        }
        out.push('\n');
        for l in &s.lines {
            match l {
                Line::Src(src) => self.line_into(src, out),
                Line::Lit(text) => out.push_str(text),
                Line::Conflict(v) => {
                    *nconf += 1;
                    let text =
                        |x: &Option<Src>| x.as_ref().map(|s| self.line_text(s)).unwrap_or_default();
                    if take_ours {
                        out.push_str(&text(&v[1]));
                    } else {
                        let mut buf = Vec::new();
                        write_conflict(
                            &mut buf,
                            text(&v[0]).as_bytes(),
                            text(&v[1]).as_bytes(),
                            text(&v[2]).as_bytes(),
                            self.markers,
                        );
                        out.push_str(&String::from_utf8_lossy(&buf));
                    }
                }
            }
        }
    }

    /// Blank lines between two sections: as ours has them between sections of the same
    /// kinds, else as Godot writes them.
    fn separator(&self, a: SectionKind, b: SectionKind) -> &str {
        use SectionKind::*;
        if let Some(t) = self.seps.get(&(a, b)) {
            return t;
        }
        match (a, b) {
            (ExtResource, ExtResource) | (Connection, Connection) => "",
            (Editable, Editable) => {
                if self.godot3 {
                    "\n"
                } else {
                    ""
                }
            }
            _ => "\n",
        }
    }

    /// The text, and how many conflicts it holds (whose printing `take_ours` decides).
    pub(super) fn print(&self, secs: &[&OutSec], take_ours: bool) -> (String, usize) {
        let o = self.ctx.sc[O];
        let mut out = String::with_capacity(o.doc.text.len() + 1024);
        out.push_str(o.doc.slice(&o.doc.prefix));
        let mut nconf = 0;
        for (i, s) in secs.iter().enumerate() {
            self.body(s, take_ours, &mut nconf, &mut out);
            let next = secs.get(i + 1);
            // Keep ours' own trailing bytes where ours had the same neighbour.
            let trailing = s.verbatim.and_then(|si| {
                let follows = match next {
                    None => si + 1 == o.doc.sections.len(),
                    Some(n) => n.verbatim == Some(si + 1),
                };
                follows.then(|| o.doc.slice(&(body_end(o, si)..o.doc.sections[si].span.end)))
            });
            match (trailing, next) {
                (Some(t), _) => {
                    // The body was made to end with a newline; don't double it.
                    let body_nl = !o
                        .doc
                        .slice(
                            &(o.doc.sections[s.verbatim.unwrap_or_default()].span.start
                                ..body_end(o, s.verbatim.unwrap_or_default())),
                        )
                        .ends_with('\n');
                    if body_nl {
                        out.push_str(t.strip_prefix('\n').unwrap_or(t));
                    } else {
                        out.push_str(t);
                    }
                }
                (None, Some(n)) => out.push_str(self.separator(s.kind, n.kind)),
                (None, None) => {}
            }
        }
        (out, nconf)
    }
}


/// A one-line tag with its `key=` value (a quoted string) replaced by `quoted`.
fn with_field(tag: &str, key: &str, quoted: &str) -> String {
    let Some(at) = tag.find(&format!(" {key}=\"")).map(|k| k + key.len() + 2) else {
        return tag.to_string();
    };
    let rest = &tag[at + 1..];
    let mut escaped = false;
    let end = rest.char_indices().find_map(|(k, c)| {
        let close = c == '"' && !escaped;
        escaped = c == '\\' && !escaped;
        close.then_some(k)
    });
    match end {
        Some(k) => format!("{}{quoted}{}", &tag[..at], &rest[k + 1..]),
        None => tag.to_string(),
    }
}
