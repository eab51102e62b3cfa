//! The splitter: one pass over a scene file that finds its sections, tag fields and
//! `key = value` property lines, and where each value ends.
//!
//! Decides every byte range of the tree (`Section`, `Tag`, `Field`, `Prop`) and the
//! parse errors of the layout; the tree types themselves live in `mod.rs`, and values are
//! only measured here, decoded later by [`crate::value`].

use super::bytes::{is_ident_char, is_ident_start, next_stop, BARE_KEY};
use super::reuse::{Like, Lists};
use super::{
    unescape, Field, Items, Key, KeyMemo, ParseError, Prop, Section, Span, Tag, MAX_DEPTH,
};
use std::ops::Range;
use std::sync::Arc;

/// What reading a document like another gives: the prefix before the first section, the
/// sections, and for each the followed section it was copied from (`u32::MAX`: read afresh).
pub(super) type ReadLike = (Range<usize>, Vec<Section>, Vec<u32>);

/// Files at least this big are split on two threads (see `Splitter::run`).
const PARALLEL_SPLIT_MIN: usize = 4 << 20;

pub(super) struct Splitter<'a> {
    src: &'a str,
    s: &'a [u8],
    pos: usize,
    /// Every tag field read so far, in file order; shared by the sections once read.
    fields: Vec<Field>,
    /// Every property read so far, in file order; shared the same way.
    props: Vec<Prop>,
    /// A document this text is expected to share most sections with (see `reuse.rs`).
    like: Option<Like<'a>>,
    /// The names read lately, made keys without the process-wide lock.
    keys: KeyMemo,
    /// An empty sections list with room, from a dropped tree (see `spare.rs`).
    spare_sections: Vec<Section>,
}

impl<'a> Splitter<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Splitter {
            src: text,
            s: text.as_bytes(),
            pos: 0,
            fields: Vec::new(),
            props: Vec::new(),
            like: None,
            keys: KeyMemo::new(),
            spare_sections: Vec::new(),
        }
    }

    /// Fill the lists of a dropped tree (see `spare.rs`); its sections list is taken
    /// by [`Splitter::run_like`].
    pub(super) fn spare(mut self, spare: super::Spare) -> Self {
        self.fields = spare.fields;
        self.props = spare.props;
        self.spare_sections = spare.sections;
        self
    }

    /// Copy the sections this text shares with `doc` instead of reading them.
    pub(super) fn like(mut self, doc: &'a super::Document) -> Self {
        self.like = Some(Like::new(doc));
        self
    }

    fn err(&self, at: usize, expected: &str) -> ParseError {
        ParseError::at(self.s, at, expected)
    }

    /// Skip whitespace (any byte <= 0x20) and `;` comments.
    fn skip_trivia(&mut self) {
        let s = self.s;
        let mut p = self.pos;
        while p < s.len() {
            let b = s[p];
            if b <= b' ' {
                p += 1;
            } else if b == b';' {
                p += memchr::memchr(b'\n', &s[p..]).unwrap_or(s.len() - p);
            } else {
                break;
            }
        }
        self.pos = p;
    }

    pub(super) fn run(self) -> Result<(Range<usize>, Vec<Section>), ParseError> {
        self.run_split(PARALLEL_SPLIT_MIN)
    }

    /// [`Splitter::run`] following a document (see [`Splitter::like`]), with where each
    /// section was copied from: its index in the followed document, or `u32::MAX` for
    /// a section read afresh.
    pub(super) fn run_like(mut self) -> Result<ReadLike, ParseError> {
        self.skip_to_header()?;
        let (prefix, from) = (0..self.pos, self.pos);
        let mut sections = std::mem::take(&mut self.spare_sections);
        sections.reserve(self.reserve(from, self.s.len()));
        self.sections(usize::MAX, &mut sections)?;
        self.seal(&mut sections);
        let copied = self.like.map(Like::into_copied).unwrap_or_default();
        Ok((prefix, sections, copied))
    }

    /// [`Splitter::run`], splitting on two threads from `parallel_min` bytes on.
    pub(super) fn run_split(
        mut self,
        parallel_min: usize,
    ) -> Result<(Range<usize>, Vec<Section>), ParseError> {
        self.skip_to_header()?;
        let prefix = 0..self.pos;
        // Every section but the first starts a line: size the vector from the density
        // of line-starting `[` in the first 256 KiB, so that a scene with a hundred
        // thousand nodes does not grow (and copy) it many times. A wrong guess only
        // costs the growth it was meant to save; the cap bounds what a hostile sample
        // (dense tags, then one huge value) can make it reserve.
        let from = self.pos;
        // A big file is split in two halves at once, on two threads: the second half
        // from a line that starts with `[` near the middle. That guess is only used when
        // the first half, read from the start as always, arrives at a section exactly
        // there; then the second half's sections are exactly what reading on would give
        // (a section's reading depends on nothing before it). Otherwise the first half
        // simply reads on to the end.
        let cut = if self.s.len() >= parallel_min && self.like.is_none() {
            let mid = self.s.len() / 2;
            memchr::memmem::find(&self.s[mid..], b"\n[").map(|k| mid + k + 1)
        } else {
            None
        };
        let Some(cut) = cut else {
            let mut sections = Vec::with_capacity(self.reserve(from, self.s.len()));
            self.sections(usize::MAX, &mut sections)?;
            self.seal(&mut sections);
            return Ok((prefix, sections));
        };
        let sections = self.read_in_two(from, cut)?;
        Ok((prefix, sections))
    }

    /// Skip a BOM and the trivia before the file header, checking the size and that a
    /// header starts there: where [`Splitter::run_split`] begins reading sections.
    fn skip_to_header(&mut self) -> Result<(), ParseError> {
        // Offsets are kept as `u32` ([`Span`]).
        if u32::try_from(self.s.len()).is_err() {
            return Err(self.err(
                u32::MAX as usize,
                "a file smaller than 4 GiB (larger scenes are not supported)",
            ));
        }
        // A BOM is kept in the prefix (the checker warns about it).
        if self.s.starts_with("\u{feff}".as_bytes()) {
            self.pos = 3;
        }
        self.skip_trivia();
        if self.pos >= self.s.len() {
            return Err(self.err(
                self.pos,
                "a file header such as `[gd_scene ...]` (the file is empty)",
            ));
        }
        if self.s[self.pos] != b'[' {
            return Err(self.err(
                self.pos,
                "a file header such as `[gd_scene ...]` or `[gd_resource ...]`",
            ));
        }
        Ok(())
    }

    /// Read the sections from `from` on, on two threads: this one up to `cut` (a line
    /// that starts with `[` near the middle), another from `cut` on; see
    /// [`Splitter::run_split`].
    fn read_in_two(mut self, from: usize, cut: usize) -> Result<Vec<Section>, ParseError> {
        let (src, text) = (self.src, self.s);
        let (first, second) = std::thread::scope(|scope| {
            let second = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut sp = Splitter {
                    pos: cut,
                    ..Splitter::new(src)
                };
                let mut v = Vec::with_capacity(sp.reserve(cut, text.len()));
                sp.sections(usize::MAX, &mut v)?;
                sp.seal(&mut v);
                Ok(v)
            });
            // No second thread: read the whole file here.
            let stop = if second.is_ok() { cut } else { usize::MAX };
            let mut v = Vec::with_capacity(self.reserve(from, text.len()));
            let first = self.sections(stop, &mut v).map(|at_cut| (at_cut, v));
            (first, second.map(|h| h.join()))
        });
        let (at_cut, mut sections) = first?;
        let rest = match second {
            Ok(Ok(rest)) if at_cut => Some(rest?),
            // The splitter does not panic; if it ever did, read on here instead.
            _ if at_cut => {
                self.sections(usize::MAX, &mut sections)?;
                None
            }
            _ => None,
        };
        self.seal(&mut sections);
        sections.extend(rest.into_iter().flatten());
        Ok(sections)
    }

    /// Hand the fields and properties read to `sections`, the sections this splitter
    /// read: each list is shared from now on, at its exact length.
    fn seal(&mut self, sections: &mut [Section]) {
        let mut fields = std::mem::take(&mut self.fields);
        let mut props = std::mem::take(&mut self.props);
        fields.shrink_to_fit();
        props.shrink_to_fit();
        let (fields, props) = (Arc::new(fields), Arc::new(props));
        for s in sections {
            s.tag.fields.moved_to(&fields);
            s.props.moved_to(&props);
        }
    }

    /// A capacity for the sections of `s[from..to]`: the density of line-starting `[` in
    /// its first 256 KiB, so that a scene with a hundred thousand nodes does not grow
    /// (and copy) the vector many times. A wrong guess only costs the growth it was meant
    /// to save; the cap bounds what a hostile sample (dense tags, then one huge value)
    /// can make it reserve. The lists of fields and properties are reserved here too
    /// (four fields a section, a property a line): room never written is never touched,
    /// and [`Splitter::seal`] gives it back.
    fn reserve(&mut self, from: usize, to: usize) -> usize {
        let sample = &self.s[from..to.min(from + (256 << 10))];
        let scale = (to - from) / sample.len().max(1);
        let in_sample = memchr::memmem::find_iter(sample, b"\n[").count();
        let sections = (in_sample * scale * 9 / 8 + 4).min(1 << 20);
        let lines = (memchr::memchr_iter(b'\n', sample).count() * scale + 4).min(1 << 22);
        self.fields.reserve(sections * 4);
        self.props.reserve(lines);
        sections
    }

    /// Read sections from `pos` (at a `[`) to the end of the text, or until a section
    /// would start at `stop`; returns whether it stopped there.
    fn sections(&mut self, stop: usize, sections: &mut Vec<Section>) -> Result<bool, ParseError> {
        loop {
            // At a `[`.
            if let Some(copy) = self.copy_like() {
                sections.push(copy);
                if self.pos >= self.s.len() {
                    return Ok(false);
                }
                if self.pos == stop {
                    return Ok(true);
                }
                continue;
            }
            let start = self.pos;
            let tag = self.tag()?;
            let first_prop = self.props.len();
            loop {
                self.skip_trivia();
                if self.pos >= self.s.len() || self.s[self.pos] == b'[' {
                    break;
                }
                let p = self.prop()?;
                self.props.push(p);
            }
            let end = self.pos;
            let last = match self.props.len() > first_prop {
                true => self.props.last().map_or(tag.span.end(), |p| p.line.end()),
                false => tag.span.end(),
            };
            let body_end = self.body_end(last, end);
            let props = Items::pending(first_prop, self.props.len() - first_prop);
            sections.push(Section {
                span: Span::new(start..end),
                tag,
                props,
                body_end,
            });
            // Trailing trivia already belongs to the last section (span runs to len).
            if self.pos >= self.s.len() {
                return Ok(false);
            }
            if self.pos == stop {
                return Ok(true);
            }
        }
    }

    /// The section at `pos` copied from the followed document, if it has it (see
    /// `reuse.rs`); `pos` is then after it. Otherwise the followed document is told that
    /// the section is read afresh.
    fn copy_like(&mut self) -> Option<Section> {
        let like = self.like.as_mut()?;
        let lists = Lists {
            fields: &mut self.fields,
            props: &mut self.props,
        };
        match like.copy_at(self.s, self.pos, lists) {
            Some(copy) => {
                self.pos = copy.span.end();
                Some(copy)
            }
            None => {
                like.skip();
                None
            }
        }
    }

    /// [`Section::body_end`] of a section whose last line's text ends at `last` and
    /// whose span ends at `end`: `last` itself after a newline, else the rest of that
    /// line (spaces, tabs, a CR) through its newline, when one follows.
    fn body_end(&self, last: usize, end: usize) -> usize {
        let s = self.s;
        if last > 0 && s[last - 1] == b'\n' {
            return last;
        }
        let mut p = last;
        while p < end && matches!(s[p], b'\r' | b' ' | b'\t') {
            p += 1;
        }
        if p < end && s[p] == b'\n' {
            p + 1
        } else {
            last
        }
    }

    fn ident(&mut self) -> Option<Range<usize>> {
        let s = self.s;
        let start = self.pos;
        if start < s.len() && is_ident_start(s[start]) {
            let mut p = start + 1;
            while p < s.len() && is_ident_char(s[p]) {
                p += 1;
            }
            self.pos = p;
            Some(start..p)
        } else {
            None
        }
    }

    /// A field name or `]` was expected. When a new tag starts there on a later line, the
    /// tag opened at `start` lost its `]`: say where that tag is, as the place to mend.
    fn unclosed_tag(&self, start: usize) -> ParseError {
        let here = self.pos;
        let opened_line = 1 + memchr::memchr_iter(b'\n', &self.s[..start]).count();
        let new_tag = self.s.get(here) == Some(&b'[');
        if new_tag && memchr::memchr(b'\n', &self.s[start..here]).is_some() {
            let what =
                format!("a field name or `]` (the tag opened on line {opened_line} is not closed)");
            return self.err(here, &what);
        }
        self.err(here, "a field name or `]`")
    }

    fn text(&mut self, r: Range<usize>) -> Key {
        // Ranges are cut at ASCII bytes, so at character boundaries.
        self.keys.key(self.src.get(r).unwrap_or_default())
    }

    fn tag(&mut self) -> Result<Tag, ParseError> {
        let start = self.pos;
        self.pos += 1; // '['
        self.skip_trivia();
        let name_start = self.pos;
        if self.ident().is_none() {
            return Err(self.err(self.pos, "a tag name after `[`"));
        }
        while self.pos < self.s.len() && matches!(self.s[self.pos], b'.' | b':') {
            self.pos += 1;
            if self.ident().is_none() {
                return Err(self.err(self.pos, "an identifier in the tag name"));
            }
        }
        let name = self.text(name_start..self.pos);
        let first_field = self.fields.len();
        loop {
            self.skip_trivia();
            if self.pos >= self.s.len() {
                return Err(self.err(start, "a `]` closing this tag (the file ends first)"));
            }
            if self.s[self.pos] == b']' {
                self.pos += 1;
                break;
            }
            let Some(k) = self.ident() else {
                return Err(self.unclosed_tag(start));
            };
            self.skip_trivia();
            if self.pos >= self.s.len() || self.s[self.pos] != b'=' {
                return Err(self.err(self.pos, "`=` after the field name"));
            }
            self.pos += 1;
            self.skip_trivia();
            let value = self.value()?;
            let key = self.text(k);
            self.fields.push(Field {
                key,
                value: Span::new(value),
            });
        }
        let count = self.fields.len() - first_field;
        Ok(Tag {
            span: Span::new(start..self.pos),
            name,
            fields: Items::pending(first_field, count),
        })
    }

    fn prop(&mut self) -> Result<Prop, ParseError> {
        let s = self.s;
        let start = self.pos;
        let key;
        if s[self.pos] == b'"' {
            let r = self.string()?;
            let body = std::str::from_utf8(&s[r.start + 1..r.end - 1]).unwrap_or("");
            key = if body.contains('\\') {
                let decoded = unescape(body)
                    .map_err(|o| self.err(r.start + 1 + o, "a valid escape sequence"))?;
                self.keys.key(&decoded)
            } else {
                self.keys.key(body)
            };
            self.skip_trivia();
            if self.pos >= s.len() || s[self.pos] != b'=' {
                return Err(self.err(self.pos, "`=` after the property name"));
            }
        } else {
            // Bare key: every byte up to the first `=`, with whitespace dropped.
            // Fast path: `key = ` with no whitespace inside the key.
            let mut p = self.pos;
            while p < s.len() && BARE_KEY[s[p] as usize] {
                p += 1;
            }
            let mut q = p;
            while q < s.len() && (s[q] == b' ' || s[q] == b'\t') {
                q += 1;
            }
            if q < s.len() && s[q] == b'=' {
                key = self.text(self.pos..p);
                self.pos = q;
            } else {
                key = self.bare_key_slow(start)?;
            }
        }
        self.pos += 1; // '='
        self.skip_trivia();
        let value = self.value()?;
        // The line runs on through the end of the value's last line when only
        // whitespace or a comment follows.
        let mut p = value.end;
        while p < s.len() && s[p] != b'\n' && (s[p] == b' ' || s[p] == b'\t' || s[p] == b'\r') {
            p += 1;
        }
        let line_end = if p >= s.len() {
            p
        } else if s[p] == b'\n' {
            p + 1
        } else {
            value.end
        };
        Ok(Prop {
            key,
            value: Span::new(value),
            line: Span::new(start..line_end),
        })
    }

    /// A bare key with whitespace inside: every byte up to the first `=`, with
    /// whitespace dropped.
    fn bare_key_slow(&mut self, start: usize) -> Result<Key, ParseError> {
        let s = self.s;
        let mut p = self.pos;
        let mut k = Vec::new();
        loop {
            if p >= s.len() {
                return Err(self.err(start, "`=` after the property name (the file ends first)"));
            }
            let b = s[p];
            if b == b'=' {
                break;
            }
            if b == b'\n' {
                return Err(self.err(p, "`=` after the property name"));
            }
            if b == b';' {
                return Err(self.err(p, "`=` after the property name (a comment starts here)"));
            }
            if b > b' ' {
                k.push(b);
            }
            p += 1;
        }
        self.pos = p;
        // Only ASCII whitespace is dropped: the rest is still valid UTF-8.
        Ok(self.keys.key(&String::from_utf8(k).unwrap_or_default()))
    }

    fn string(&mut self) -> Result<Range<usize>, ParseError> {
        let s = self.s;
        let start = self.pos;
        let mut p = start + 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &s[p.min(s.len())..]) {
                None => return Err(self.err(start, "a closing `\"` for this string")),
                Some(k) => {
                    p += k;
                    if s[p] == b'\\' {
                        p += 2;
                        if p > s.len() {
                            return Err(self.err(start, "a closing `\"` for this string"));
                        }
                    } else {
                        p += 1;
                        self.pos = p;
                        return Ok(start..p);
                    }
                }
            }
        }
    }

    /// Skip one balanced group starting at an opening bracket, string- and comment-aware.
    fn group(&mut self) -> Result<(), ParseError> {
        let s = self.s;
        let start = self.pos;
        // The closers still expected, innermost last (on the stack: no allocation).
        let mut stack = [0u8; MAX_DEPTH];
        let mut depth = 0;
        let mut p = self.pos;
        while p < s.len() {
            let b = s[p];
            match b {
                b'(' | b'[' | b'{' => {
                    if depth >= MAX_DEPTH {
                        return Err(self.err(
                            p,
                            &format!("at most {MAX_DEPTH} levels of nesting (the value is nested deeper)"),
                        ));
                    }
                    stack[depth] = match b {
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    };
                    depth += 1;
                    p += 1;
                }
                b')' | b']' | b'}' => {
                    if depth == 0 || stack[depth - 1] != b {
                        return Err(self.err(
                            p,
                            "a matching bracket (this one does not close what was opened)",
                        ));
                    }
                    depth -= 1;
                    p += 1;
                    if depth == 0 {
                        self.pos = p;
                        return Ok(());
                    }
                }
                b'"' => {
                    self.pos = p;
                    p = self.string()?.end;
                }
                b';' => {
                    p += memchr::memchr(b'\n', &s[p..]).unwrap_or(s.len() - p);
                }
                _ => p = next_stop(s, p + 1),
            }
        }
        Err(self.err(
            start,
            "a closing bracket for this value (the file ends first)",
        ))
    }

    /// Find the extent of one value starting at `pos`. The value is decoded later.
    fn value(&mut self) -> Result<Range<usize>, ParseError> {
        let s = self.s;
        let start = self.pos;
        if start >= s.len() {
            return Err(self.err(start, "a value (the file ends first)"));
        }
        match s[start] {
            b'"' => {
                self.string()?;
            }
            b'&' | b'@' => {
                self.pos += 1;
                if self.pos >= s.len() || s[self.pos] != b'"' {
                    return Err(self.err(self.pos, "a string after `&`"));
                }
                self.string()?;
            }
            b'[' | b'{' => self.group()?,
            b'#' => {
                let mut p = start + 1;
                while p < s.len() && s[p].is_ascii_hexdigit() {
                    p += 1;
                }
                self.pos = p;
            }
            b'-' if start + 1 < s.len() && is_ident_start(s[start + 1]) => {
                self.pos += 1;
                self.ident();
            }
            b'-' | b'0'..=b'9' => self.number(start)?,
            b if is_ident_start(b) => self.word(start)?,
            _ => return Err(self.err(start, "a value")),
        }
        Ok(start..self.pos)
    }

    /// The extent of a number at `start` (a digit or `-`): digits, a fraction, an
    /// exponent; `pos` is left after it.
    fn number(&mut self, start: usize) -> Result<(), ParseError> {
        let s = self.s;
        let mut p = start + 1;
        while p < s.len() && s[p].is_ascii_digit() {
            p += 1;
        }
        if p < s.len() && s[p] == b'.' {
            p += 1;
            while p < s.len() && s[p].is_ascii_digit() {
                p += 1;
            }
        }
        if p < s.len() && (s[p] == b'e' || s[p] == b'E') {
            p += 1;
            if p < s.len() && (s[p] == b'+' || s[p] == b'-') {
                p += 1;
            }
            while p < s.len() && s[p].is_ascii_digit() {
                p += 1;
            }
        }
        if p == start + 1 && s[start] == b'-' {
            return Err(self.err(start, "a number after `-`"));
        }
        self.pos = p;
        Ok(())
    }

    /// The extent of a value that starts with an identifier at `start`: a keyword, or a
    /// constructor with its `(...)` (a typed container with its `[...]` type first).
    fn word(&mut self, start: usize) -> Result<(), ParseError> {
        let s = self.s;
        let id = self.ident().unwrap_or(start..start);
        let name = &s[id.clone()];
        let typed = name == b"Array" || name == b"Dictionary";
        let save = self.pos;
        self.skip_trivia();
        if typed && self.pos < s.len() && s[self.pos] == b'[' {
            self.group()?;
            self.skip_trivia();
        }
        if self.pos < s.len() && s[self.pos] == b'(' {
            // A packed array of numbers (or one base64 string) holds no brackets:
            // jump to its `)` (the body of a mesh can be megabytes).
            if !typed && name.ends_with(b"Array") && !name.windows(6).any(|w| w == b"String") {
                if let Some(k) = memchr::memchr(b')', &s[self.pos..]) {
                    let body = &s[self.pos + 1..self.pos + k];
                    if !body.iter().any(|&c| matches!(c, b';' | b'(' | b'[' | b'{')) {
                        self.pos += k + 1;
                        return Ok(());
                    }
                }
            }
            self.group()?;
        } else if typed && self.pos != save {
            return Err(self.err(self.pos, "`(` after the typed container's type"));
        } else {
            self.pos = save;
        }
        Ok(())
    }
}
