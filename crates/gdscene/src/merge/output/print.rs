//! Assembling the output text: the sections in order (header, ext_resources,
//! sub_resources, `[resource]`, nodes, connections, editables), each as ours' bytes when
//! it is all ours', else from its pieces with resource ids rewritten to the result's,
//! conflicts between markers, and the blank lines ours uses between sections. It
//! decides nothing about content.

use crate::linemerge::{merge_hunks_styled, write_conflict, ConflictStyle, Hunk, MarkerOptions};
use crate::merge::ids::assign::is_int_id;
use crate::merge::shared::context::{body_end, Ctx};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedNode;
use crate::merge::shared::sections::{Chunk, Line, OutSec, SideFields, Src, TagFields, TagOut};
use crate::model::SectionKind;
use crate::value::{rewrite_refs_in_text, RefKind};
use std::collections::HashMap;

/// Mark each node that is all ours' bytes as verbatim, and list the nodes in `order`
/// (each once), a node with `waits` (see [`crate::merge::output::hunk_parts::HunkParts`]) only once
/// the nodes it waits for are listed.
pub(in crate::merge) fn node_sections<'m>(
    ctx: &Ctx,
    order: &[usize],
    waits: &[[Option<usize>; 3]],
    merged: &'m mut [Option<MergedNode>],
) -> Vec<&'m OutSec> {
    let o = ctx.sc[O];
    let mut taken = vec![false; merged.len()];
    let mut list: Vec<usize> = Vec::with_capacity(order.len());
    for &i in order {
        let Some(m) = merged.get_mut(i).and_then(Option::as_mut) else {
            continue;
        };
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
    if !waits.is_empty() {
        list = after_waits(&list, waits);
    }
    let merged: &'m [Option<MergedNode>] = merged;
    list.iter()
        .filter_map(|&i| merged[i].as_ref().map(|m| &m.out))
        .collect()
}

/// `list` reordered so that each node comes after the nodes it waits for that are in
/// the list, otherwise in its order (nodes that wait in a cycle come last).
fn after_waits(list: &[usize], waits: &[[Option<usize>; 3]]) -> Vec<usize> {
    let mut pending_in = vec![false; waits.len()];
    for &i in list {
        if let Some(p) = pending_in.get_mut(i) {
            *p = true;
        }
    }
    let mut out = Vec::with_capacity(list.len());
    let mut waiting: Vec<usize> = Vec::new();
    let ready = |i: usize, pending_in: &[bool]| {
        waits.get(i).is_none_or(|w| {
            w.iter()
                .flatten()
                .all(|&p| !pending_in.get(p).copied().unwrap_or(false))
        })
    };
    for &i in list {
        if !ready(i, &pending_in) {
            waiting.push(i);
            continue;
        }
        let mut next = Some(i);
        while let Some(n) = next {
            out.push(n);
            pending_in[n] = false;
            next = waiting
                .iter()
                .position(|&w| ready(w, &pending_in))
                .map(|k| waiting.remove(k));
        }
    }
    out.extend(waiting);
    out
}

/// Separators ours uses between sections of two kinds (the first seen of each pair).
pub(in crate::merge) fn ours_separators<'a>(
    ctx: &Ctx<'a>,
) -> HashMap<(SectionKind, SectionKind), &'a str> {
    let o = ctx.sc[O];
    let mut seps = HashMap::new();
    for i in 0..o.doc.sections.len().saturating_sub(1) {
        let t = o.doc.slice(&(body_end(o, i)..o.doc.sections[i].span.end()));
        if t.bytes().all(|c| matches!(c, b'\n' | b'\r' | b' ' | b'\t')) {
            seps.entry((o.kinds[i], o.kinds[i + 1])).or_insert(t);
        }
    }
    seps
}

/// Prints the result: sections in order, resource ids rewritten, conflicts as markers.
pub(in crate::merge) struct Printer<'c, 'a> {
    pub(in crate::merge) ctx: &'c Ctx<'a>,
    pub(in crate::merge) ext_ids: &'c HashMap<usize, String>,
    pub(in crate::merge) sub_ids: &'c HashMap<usize, String>,
    pub(in crate::merge) markers: &'c MarkerOptions,
    pub(in crate::merge) godot3: bool,
    pub(in crate::merge) seps: HashMap<(SectionKind, SectionKind), &'a str>,
    /// Tags a hunk's part prints with fields written anew.
    pub(in crate::merge) fields: &'c TagFields,
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

    /// A line written with identities for ids ([`Line::Idents`]), with the result's ids.
    fn idents(&self, text: &str) -> String {
        rewrite_refs_in_text(text, &mut |kind, id| {
            let i = crate::merge::values::value_grain::ident_of(id)?;
            match kind {
                RefKind::Ext => self.ext_ids.get(&i).cloned(),
                RefKind::Sub => self.sub_ids.get(&i).cloned(),
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

    /// The `[tag]` line, without its newline unless it is a conflict.
    fn tag(&self, t: &TagOut, out: &mut String, marks: &mut Marks) {
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
                        out.push_str(&self.src(&(*side, f.value.range())));
                    }
                }
                out.push(']');
            }
            TagOut::PerSide(inner, sides) => self.per_side(inner, sides, out, marks),
            TagOut::Conflict(v) => {
                let text = |s: &Option<Src>| {
                    s.as_ref()
                        .map(|s| format!("{}\n", self.tag_text(s).trim_end_matches('\n')))
                        .unwrap_or_default()
                };
                marks.put(out, [text(&v[0]), text(&v[1]), text(&v[2])]);
            }
        }
    }

    /// A side's `[tag]` line (without its newline) as a hunk's part prints it: with the
    /// fields [`TagFields`] lists for it written anew.
    fn tag_text(&self, s: &Src) -> String {
        let text = self.src(s);
        match self.fields.get(&(s.0, s.1.start)) {
            Some(fields) => fields.iter().fold(text, |t, (k, v)| with_field(&t, k, v)),
            None => text,
        }
    }

    /// A tag each side spells differently (or lacks), between markers; ours' part when
    /// resolving to ours.
    fn per_side(
        &self,
        inner: &TagOut,
        sides: &[SideFields; 3],
        out: &mut String,
        marks: &mut Marks,
    ) {
        let mut tag = String::new();
        // The fields both sides agree on; the inner tag holds no conflict of its own.
        self.tag(inner, &mut tag, &mut Marks::new(true));
        let part = |s: &SideFields| match s {
            None => String::new(),
            Some(fields) => {
                let t = fields
                    .iter()
                    .fold(tag.clone(), |t, (k, v)| with_field(&t, k, v));
                format!("{t}\n")
            }
        };
        marks.put(out, sides.each_ref().map(part));
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
            t.push_str(&self.src(&(side, sec.span.start()..sec.tag.span.start())));
            t.push_str(&self.tag_text(&(side, sec.tag.span.range())));
            t.push_str(&self.src(&(side, sec.tag.span.end()..body_end(sc, si))));
            if !t.ends_with('\n') {
                t.push('\n');
            }
        }
        t
    }

    /// A section's text (tag and body), appended to `out`.
    fn body(&self, s: &OutSec, marks: &mut Marks, out: &mut String) {
        let ctx = self.ctx;
        if let Some(w) = &s.whole {
            let text = |side: usize| self.hunk_part(side, &w[side]);
            marks.put(out, [text(B), text(O), text(T)]);
            return;
        }
        if let Some(si) = s.verbatim {
            let t = ctx.sc[O]
                .doc
                .slice(&(ctx.sc[O].doc.sections[si].span.start()..body_end(ctx.sc[O], si)));
            out.push_str(t);
            if !t.ends_with('\n') {
                out.push('\n');
            }
            return;
        }
        let start = out.len();
        // A tag between markers ends its own line.
        let marked = matches!(s.tag, TagOut::Conflict(_) | TagOut::PerSide(..));
        self.tag(&s.tag, out, marks);
        // Every line from one side, in its order: keep that side's layout (blank line
        // after the header in old files, comments).
        for side in [O, T, B] {
            let Some(si) = s.origin.get(side) else {
                continue;
            };
            let sc = ctx.sc[side];
            let sec = &sc.doc.sections[si];
            let same = s.lines.len() == sec.props.len()
                && s.lines
                    .iter()
                    .zip(&sec.props)
                    .all(|(l, p)| matches!(l, Line::Src((x, r)) if *x == side && *r == p.line));
            if same && !marked {
                self.src_into(&(side, sec.tag.span.end()..body_end(sc, si)), out);
                if out.len() == start || !out.ends_with('\n') {
                    out.push('\n');
                }
                return;
            }
        }
        if !marked {
            out.push('\n');
        }
        for l in &s.lines {
            match l {
                Line::Src(src) => self.line_into(src, out),
                Line::Lit(text) => out.push_str(text),
                Line::Idents(text) => out.push_str(&self.idents(text)),
                Line::Texts(v) => {
                    let text = |x: &Option<String>| x.as_deref().map(|t| self.idents(t));
                    let [b, o, t] = [&v[0], &v[1], &v[2]].map(|x| text(x).unwrap_or_default());
                    marks.put(out, [b, o, t]);
                }
                Line::Conflict(v) => {
                    let text =
                        |x: &Option<Src>| x.as_ref().map(|s| self.line_text(s)).unwrap_or_default();
                    marks.put(out, [text(&v[0]), text(&v[1]), text(&v[2])]);
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
    pub(in crate::merge) fn print(&self, secs: &[&OutSec], take_ours: bool) -> (String, usize) {
        let o = self.ctx.sc[O];
        let mut out = String::with_capacity(o.doc.text.len() + 1024);
        out.push_str(o.doc.slice(&o.doc.prefix));
        let mut marks = Marks::new(take_ours);
        for (i, s) in secs.iter().enumerate() {
            self.body(s, &mut marks, &mut out);
            let next = secs.get(i + 1);
            // Keep ours' own trailing bytes where ours had the same neighbour.
            let trailing = s.verbatim.and_then(|si| {
                let follows = match next {
                    None => si + 1 == o.doc.sections.len(),
                    Some(n) => n.verbatim == Some(si + 1),
                };
                follows.then(|| {
                    o.doc
                        .slice(&(body_end(o, si)..o.doc.sections[si].span.end()))
                })
            });
            match (trailing, next) {
                (Some(t), _) => {
                    // The body was made to end with a newline; don't double it.
                    let body_nl = !o
                        .doc
                        .slice(
                            &(o.doc.sections[s.verbatim.unwrap_or_default()].span.start()
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
        marks.render(out, self.markers)
    }
}

/// Conflicts met while printing, kept out of the text until the end so that they can be
/// shaped as git shapes its hunks: a multi-line value conflicts line by line inside
/// itself, and neighbouring conflicts are joined (see [`join_hunks`]).
pub(in crate::merge) struct Marks {
    /// Resolve every conflict to ours instead (the validating print).
    take_ours: bool,
    /// Byte offset in the printed text, and the base, ours and theirs lines.
    at: Vec<(usize, [String; 3])>,
}

impl Marks {
    fn new(take_ours: bool) -> Marks {
        Marks {
            take_ours,
            at: Vec::new(),
        }
    }

    /// One conflict at the end of `out`: ours' lines when resolving to ours, else a
    /// place for markers. Each side's text is whole lines (or empty).
    fn put(&mut self, out: &mut String, [b, o, t]: [String; 3]) {
        if self.take_ours {
            out.push_str(&o);
        } else {
            self.at.push((out.len(), [b, o, t]));
        }
    }

    /// The text with every conflict between markers, and how many hunks it has. A text
    /// without conflicts is handed back as it is: a copy of a 20 MB result was the
    /// largest single step of a big merge's peak memory.
    fn render(self, text: String, markers: &MarkerOptions) -> (String, usize) {
        if self.take_ours || self.at.is_empty() {
            return (text, self.at.len());
        }
        let mut pieces = Vec::with_capacity(self.at.len() * 2 + 1);
        let mut from = 0;
        for (at, sides) in self.at {
            pieces.push(Piece::Stable(
                text.get(from..at).unwrap_or_default().to_string(),
            ));
            split_value(sides, markers.style, &mut pieces);
            from = at;
        }
        pieces.push(Piece::Stable(
            text.get(from..).unwrap_or_default().to_string(),
        ));
        let len = text.len();
        drop(text);
        let pieces = join_hunks(pieces, markers.style);
        let mut out = Vec::with_capacity(len + 1024);
        let mut n = 0;
        for p in &pieces {
            match p {
                Piece::Stable(s) => out.extend_from_slice(s.as_bytes()),
                Piece::Hunk([b, o, t]) => {
                    n += 1;
                    write_conflict(&mut out, b.as_bytes(), o.as_bytes(), t.as_bytes(), markers);
                }
            }
        }
        let text = String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        (text, n)
    }
}

/// A stretch of the result: text both sides agree on, or a conflict hunk.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Stable(String),
    Hunk([String; 3]),
}

/// A conflict whose sides span several lines (a shader's `code`, a script's
/// `script/source`, a whole section) conflicts line by line, as git's line merge of
/// those lines would; a one-line conflict stays whole.
fn split_value(sides: [String; 3], style: ConflictStyle, pieces: &mut Vec<Piece>) {
    let multi = sides.iter().all(|s| s.lines().nth(1).is_some());
    if multi {
        let [b, o, t] = &sides;
        let hunks = merge_hunks_styled(b.as_bytes(), o.as_bytes(), t.as_bytes(), style);
        if hunks.iter().any(|h| matches!(h, Hunk::Conflict { .. })) {
            let s = |x: &[u8]| String::from_utf8_lossy(x).into_owned();
            for h in hunks {
                pieces.push(match h {
                    Hunk::Stable(x) | Hunk::Clean(x) => Piece::Stable(s(x)),
                    Hunk::Conflict { base, ours, theirs } => {
                        Piece::Hunk([s(base), s(ours), s(theirs)])
                    }
                });
            }
            return;
        }
    }
    pieces.push(Piece::Hunk(sides));
}

/// Join conflict hunks as git does: hunks with nothing or only blank lines between them
/// always (git's diff finds touching changes as one), and in git's default `merge` style also hunks
/// separated by at most three lines or by lines with no letter or digit (xdiff's
/// `xdl_simplify_non_conflicts`); the lines between then belong to every side.
fn join_hunks(pieces: Vec<Piece>, style: ConflictStyle) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        match p {
            Piece::Stable(x) => match out.last_mut() {
                Some(Piece::Stable(s)) => s.push_str(&x),
                _ if x.is_empty() => {}
                _ => out.push(Piece::Stable(x)),
            },
            Piece::Hunk(next) => push_hunk(&mut out, next, style),
        }
    }
    out
}

/// Append a hunk, joined to the previous one when git would join them.
fn push_hunk(out: &mut Vec<Piece>, next: [String; 3], style: ConflictStyle) {
    let gap = match out.as_slice() {
        [.., Piece::Hunk(_), Piece::Stable(gap)] if close_enough(gap, style) => out.pop(),
        [.., Piece::Hunk(_)] => Some(Piece::Stable(String::new())),
        _ => None,
    };
    let (Some(Piece::Stable(gap)), Some(Piece::Hunk(h))) = (gap, out.last_mut()) else {
        out.push(Piece::Hunk(next));
        return;
    };
    for (side, add) in h.iter_mut().zip(next) {
        side.push_str(&gap);
        side.push_str(&add);
    }
}

/// Whether the lines between two hunks are few or empty enough for git to join them.
/// Blank lines always are: git's line diff takes the blank line between two sections
/// into the change around them.
fn close_enough(gap: &str, style: ConflictStyle) -> bool {
    if gap.bytes().all(|c| c.is_ascii_whitespace()) {
        return true;
    }
    style == ConflictStyle::Merge
        && (gap.lines().count() <= 3 || !gap.bytes().any(|c| c.is_ascii_alphanumeric()))
}

/// A one-line tag with its `key=` value (a quoted string, or a bare word like Godot
/// 3's `id=3`) replaced by `value`, as written.
fn with_field(tag: &str, key: &str, value: &str) -> String {
    let Some(at) = tag.find(&format!(" {key}=")).map(|k| k + key.len() + 2) else {
        return tag.to_string();
    };
    let rest = &tag[at..];
    let end = if let Some(inner) = rest.strip_prefix('"') {
        let mut escaped = false;
        inner.char_indices().find_map(|(k, c)| {
            let close = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            close.then_some(k + 2)
        })
    } else {
        rest.find([' ', ']'])
    };
    match end {
        Some(k) => format!("{}{value}{}", &tag[..at], &rest[k..]),
        None => tag.to_string(),
    }
}

#[cfg(test)]
mod hunk_tests {
    use super::*;

    fn hunk(b: &str, o: &str, t: &str) -> Piece {
        Piece::Hunk([b.into(), o.into(), t.into()])
    }

    #[test]
    fn neighbouring_hunks_join_as_git_joins_them() {
        let two = || {
            vec![
                hunk("a = 1\n", "a = 2\n", "a = 3\n"),
                Piece::Stable("b = 0\n".into()),
                hunk("c = 1\n", "c = 2\n", "c = 3\n"),
            ]
        };
        // git's default style joins across up to three lines, the lines going to every side.
        let joined = join_hunks(two(), ConflictStyle::Merge);
        assert_eq!(
            joined,
            vec![hunk(
                "a = 1\nb = 0\nc = 1\n",
                "a = 2\nb = 0\nc = 2\n",
                "a = 3\nb = 0\nc = 3\n"
            )]
        );
        // diff3 keeps hunks apart unless only blank lines lie between.
        assert_eq!(join_hunks(two(), ConflictStyle::Diff3).len(), 3);
        let blank = vec![
            hunk("x\n", "y\n", ""),
            Piece::Stable("\n".into()),
            hunk("p\n", "q\n", ""),
        ];
        assert_eq!(
            join_hunks(blank, ConflictStyle::Diff3),
            vec![hunk("x\n\np\n", "y\n\nq\n", "\n")]
        );
    }

    #[test]
    fn a_multi_line_value_conflicts_line_by_line() {
        let b = "code = \"a\nb\nc\nd\ne\n\"\n";
        let o = "code = \"a\nB\nc\nd\ne\n\"\n";
        let t = "code = \"a\nb2\nc\nd\ne\n\"\n";
        let mut pieces = Vec::new();
        split_value(
            [b.into(), o.into(), t.into()],
            ConflictStyle::Diff3,
            &mut pieces,
        );
        assert_eq!(
            pieces
                .iter()
                .filter(|p| matches!(p, Piece::Hunk(_)))
                .count(),
            1
        );
        assert!(pieces.contains(&hunk("b\n", "B\n", "b2\n")), "{pieces:?}");
        // One line stays one hunk.
        let mut one = Vec::new();
        split_value(
            ["x = 1\n".into(), "x = 2\n".into(), "x = 3\n".into()],
            ConflictStyle::Merge,
            &mut one,
        );
        assert_eq!(one, vec![hunk("x = 1\n", "x = 2\n", "x = 3\n")]);
    }
}
