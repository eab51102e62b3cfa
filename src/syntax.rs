//! Lossless syntax tree: a fast, string-aware splitter of a scene file into sections,
//! header fields and `key = value` property lines.
//!
//! Every byte of the input is accounted for: [`Document::print`] concatenates the prefix
//! and the spans of all sections and gives back the input exactly. Values are kept as
//! byte ranges into [`Document::text`] ([`Span`]s of two `u32`: files of 4 GiB or more
//! are rejected); they are decoded by [`crate::value`] (the pest grammar) only when a
//! later stage needs them. This is what makes parsing run at
//! hundreds of MB/s on mesh-heavy and node-heavy scenes alike.
//!
//! The splitter follows the engine's own reader (spec §1, §3): whitespace is any byte
//! `<= 0x20` (so CRLF files work), `;` starts a comment, strings may span lines (a `[`
//! at the start of a line inside a string is not a section), a property key runs up to
//! the first `=` with whitespace dropped, or is a quoted string.

mod items;
mod span;
mod text;

pub use crate::smallstr::SmallStr;
pub use items::Items;
pub use span::{ByteRange, Span};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
pub use text::{Source, Text};

/// Deepest bracket nesting accepted in one value; deeper input is rejected with a clear
/// error instead of risking the stack in later recursive stages.
pub const MAX_DEPTH: usize = 128;

/// A parsed file: its text and the sections that cover it.
#[derive(Debug, Clone)]
pub struct Document {
    /// The whole input, as UTF-8 (a BOM, if any, is kept at the start); shared with the
    /// [`Source`] it was parsed from, if any.
    pub text: Text,
    /// Bytes before the first tag: a UTF-8 BOM, blank lines or comments.
    pub prefix: Range<usize>,
    /// Sections in file order; the first is the file header (`gd_scene` / `gd_resource`).
    pub sections: Vec<Section>,
}

/// One `[tag ...]` and the property lines that follow it.
#[derive(Debug, Clone)]
pub struct Section {
    /// From the tag's `[` up to the next tag's `[` (or the end of the file), so that
    /// trailing blank lines and comments belong to the section before them.
    pub span: Span,
    /// The bracketed header.
    pub tag: Tag,
    /// `key = value` lines in file order.
    pub props: Items<Prop>,
    /// End of the section's own lines: after the newline that ends its last property
    /// line (or its tag's line), before the blank lines and comments that trail it.
    /// Known while the section is read; finding it later costs two cache misses per
    /// section, which a merge of a 100,000-node scene felt.
    pub body_end: usize,
}

/// A bracketed header: `[node name="A" type="B" parent="."]`.
#[derive(Debug, Clone)]
pub struct Tag {
    /// From `[` to `]`, inclusive.
    pub span: Span,
    /// `gd_scene`, `ext_resource`, `sub_resource`, `node`, ...
    pub name: SmallStr,
    /// `key=value` fields in written order (a repeated key: the last one wins).
    pub fields: Items<Field>,
}

/// One `key=value` field of a tag.
#[derive(Debug, Clone)]
pub struct Field {
    /// The field name (an identifier).
    pub key: SmallStr,
    /// Where the value's text is.
    pub value: Span,
}

/// One property assignment inside a section.
#[derive(Debug, Clone)]
pub struct Prop {
    /// The key as the engine reads it: whitespace dropped from a bare key, escapes
    /// decoded in a quoted one.
    pub key: SmallStr,
    /// Where the value's text is.
    pub value: Span,
    /// The whole line(s): from the key's first byte through the newline that ends the
    /// value's last line (or to the value's end when more text follows on that line).
    pub line: Span,
}

/// A syntax error, located for a person to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the input.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// What the reader expected at that spot.
    pub expected: String,
    /// The offending line (clipped to a window around the spot when very long), for
    /// the caret display.
    pub line_text: String,
    /// Where the caret goes under `line_text`, in characters.
    pub caret: usize,
}

impl ParseError {
    /// Build an error at `offset` in `text` (which may be any bytes).
    pub fn at(text: &[u8], offset: usize, expected: impl Into<String>) -> ParseError {
        let offset = offset.min(text.len());
        let line_start = text[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line_end = text[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |p| offset + p);
        let line = text[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
        let before = String::from_utf8_lossy(&text[line_start..offset]);
        let column = before.chars().count() + 1;
        let full = String::from_utf8_lossy(&text[line_start..line_end]);
        let chars: Vec<char> = full.trim_end_matches('\r').chars().collect();
        // A line can be megabytes long: show at most 60 characters either side.
        const SIDE: usize = 60;
        let from = (column - 1).saturating_sub(SIDE);
        let to = (column - 1 + SIDE).min(chars.len());
        let mut line_text: String = chars[from.min(chars.len())..to].iter().collect();
        let mut caret = column - 1 - from;
        if from > 0 {
            line_text.insert(0, '…');
            caret += 1;
        }
        if to < chars.len() {
            line_text.push('…');
        }
        ParseError {
            offset,
            line,
            column,
            expected: expected.into(),
            line_text,
            caret,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}:{}: {}", self.line, self.column, self.expected)?;
        // Tabs would shift the caret: show them as single spaces.
        let shown: String = self
            .line_text
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .collect();
        writeln!(f, "  | {shown}")?;
        write!(f, "  | {}^", " ".repeat(self.caret))
    }
}

impl std::error::Error for ParseError {}

impl Document {
    /// Split `bytes` into sections. Fails on invalid UTF-8, an unterminated string or
    /// bracket, a property before the first tag, or a missing `=`.
    pub fn parse(bytes: &[u8]) -> Result<Document, ParseError> {
        match std::str::from_utf8(bytes) {
            Ok(t) => Document::from_text(t.to_string()),
            Err(e) => Err(ParseError::at(
                bytes,
                e.valid_up_to(),
                "valid UTF-8 text (this byte sequence is not UTF-8)",
            )),
        }
    }

    /// [`Document::parse`] of a text the caller gives away: no copy of it is made (a
    /// merged 20 MB scene is validated this way).
    pub fn from_text(text: String) -> Result<Document, ParseError> {
        Document::from_shared(Text::from(text))
    }

    /// [`Document::parse`] of bytes the caller keeps as well: the document shares them
    /// when they are UTF-8 (the inputs of a merge, held once instead of twice).
    pub fn parse_source(src: &Source) -> Result<Document, ParseError> {
        match src.text() {
            Some(text) => Document::from_shared(text.clone()),
            None => Document::parse(src),
        }
    }

    fn from_shared(text: Text) -> Result<Document, ParseError> {
        Splitter::new(&text)
            .run()
            .map(|(prefix, sections)| Document {
                text,
                prefix,
                sections,
            })
    }

    /// Print the tree back; equals the input byte for byte.
    pub fn print(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        out.push_str(&self.text[self.prefix.clone()]);
        for s in &self.sections {
            out.push_str(self.slice(&s.span));
        }
        out
    }

    /// The text of a byte range (or [`Span`]) of this document.
    pub fn slice<R: ByteRange + ?Sized>(&self, r: &R) -> &str {
        &self.text[r.byte_range()]
    }

    /// Whether the file starts with a UTF-8 byte-order mark (the engine rejects it).
    pub fn has_bom(&self) -> bool {
        self.text.starts_with('\u{feff}')
    }

    /// Whether the file uses CRLF line endings (outside strings, CR is whitespace).
    pub fn uses_crlf(&self) -> bool {
        self.text.contains("\r\n")
    }

    /// The header section (`gd_scene` / `gd_resource`), if there is any section.
    pub fn header(&self) -> Option<&Section> {
        self.sections.first()
    }

    /// Line (1-based) of a byte offset, for messages.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        self.text.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }
}

/// Line numbers of byte offsets in one text, answered by binary search: for reports
/// that name many lines of a large file.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

impl Tag {
    /// The value range of field `key` (the last one, as the engine's map keeps).
    pub fn field(&self, key: &str) -> Option<Range<usize>> {
        self.fields
            .iter()
            .rev()
            .find(|f| f.key == key)
            .map(|f| f.value.range())
    }
}

impl Section {
    /// The value range of the last property named `key`.
    pub fn prop(&self, key: &str) -> Option<&Prop> {
        self.props.iter().rev().find(|p| p.key == key)
    }
}

/// Decode the body of a `"..."` string (without the quotes) with the engine's escapes
/// (spec §1.7): `\uXXXX`, `\UXXXXXX`, surrogate pairs; any other escaped character
/// stands for itself. Returns the offset (into `body`) of a bad escape on failure.
pub fn unescape(body: &str) -> Result<String, usize> {
    if !body.contains('\\') {
        return Ok(body.to_string());
    }
    let mut out = String::with_capacity(body.len());
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = it.next() else {
            return Err(i);
        };
        match e {
            'b' => out.push('\u{8}'),
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'f' => out.push('\u{c}'),
            'r' => out.push('\r'),
            'u' | 'U' => {
                let n = if e == 'u' { 4 } else { 6 };
                let mut v: u32 = 0;
                for _ in 0..n {
                    let Some((_, h)) = it.next() else {
                        return Err(i);
                    };
                    let Some(d) = h.to_digit(16) else {
                        return Err(i);
                    };
                    v = v * 16 + d;
                }
                if (0xD800..0xDC00).contains(&v) {
                    // A high surrogate must be followed by an escaped low one.
                    let mut low = None;
                    let rest = &body[i..];
                    let after = rest.char_indices().nth(2 + n).map(|(k, _)| i + k);
                    if let Some(a) = after {
                        let tail = &body[a..];
                        if tail.len() >= 6 && (tail.starts_with("\\u")) {
                            if let Ok(l) = u32::from_str_radix(&tail[2..6], 16) {
                                if (0xDC00..0xE000).contains(&l) {
                                    low = Some(l);
                                }
                            }
                        }
                    }
                    let Some(l) = low else { return Err(i) };
                    for _ in 0..6 {
                        it.next();
                    }
                    v = 0x10000 + ((v - 0xD800) << 10) + (l - 0xDC00);
                } else if (0xDC00..0xE000).contains(&v) {
                    return Err(i);
                }
                out.push(char::from_u32(v).ok_or(i)?);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Bytes that end a run of plain value text inside a bracket group: brackets, quotes and
/// comments (see `Splitter::group`).
static GROUP_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = *b"([{)]}\";";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// Files at least this big are split on two threads (see `Splitter::run`).
const PARALLEL_SPLIT_MIN: usize = 4 << 20;

struct Splitter<'a> {
    src: &'a str,
    s: &'a [u8],
    pos: usize,
    /// Every tag field read so far, in file order; shared by the sections once read.
    fields: Vec<Field>,
    /// Every property read so far, in file order; shared the same way.
    props: Vec<Prop>,
    /// Stand-ins for the two lists while they grow (see [`Splitter::seal`]).
    no_fields: Arc<Vec<Field>>,
    no_props: Arc<Vec<Prop>>,
}

impl<'a> Splitter<'a> {
    fn new(text: &'a str) -> Self {
        Splitter {
            src: text,
            s: text.as_bytes(),
            pos: 0,
            fields: Vec::new(),
            props: Vec::new(),
            no_fields: Arc::default(),
            no_props: Arc::default(),
        }
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

    fn run(self) -> Result<(Range<usize>, Vec<Section>), ParseError> {
        self.run_split(PARALLEL_SPLIT_MIN)
    }

    /// [`Splitter::run`], splitting on two threads from `parallel_min` bytes on.
    fn run_split(
        mut self,
        parallel_min: usize,
    ) -> Result<(Range<usize>, Vec<Section>), ParseError> {
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
        let cut = if self.s.len() >= parallel_min {
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
        Ok((prefix, sections))
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
            let props = Items::of(&self.no_props, first_prop, self.props.len() - first_prop);
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

    fn text(&self, r: Range<usize>) -> SmallStr {
        // Ranges are cut at ASCII bytes, so at character boundaries.
        SmallStr::copy_from(self.src.get(r).unwrap_or_default())
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
                return Err(self.err(self.pos, "a field name or `]`"));
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
            fields: Items::of(&self.no_fields, first_field, count),
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
                unescape(body)
                    .map_err(|o| self.err(r.start + 1 + o, "a valid escape sequence"))?
                    .into()
            } else {
                SmallStr::copy_from(body)
            };
            self.skip_trivia();
            if self.pos >= s.len() || s[self.pos] != b'=' {
                return Err(self.err(self.pos, "`=` after the property name"));
            }
        } else {
            // Bare key: every byte up to the first `=`, with whitespace dropped.
            // Fast path: `key = ` with no whitespace inside the key.
            let mut p = self.pos;
            while p < s.len() && s[p] > b' ' && !matches!(s[p], b'=' | b';') {
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
    fn bare_key_slow(&mut self, start: usize) -> Result<SmallStr, ParseError> {
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
        Ok(String::from_utf8(k).unwrap_or_default().into())
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
                _ => {
                    // Fast path over the numbers of a packed array: one table lookup a
                    // byte, eight bytes a round.
                    p += 1;
                    while p + 8 <= s.len() {
                        let w = &s[p..p + 8];
                        if let Some(k) = w.iter().position(|&c| GROUP_STOP[c as usize]) {
                            p += k;
                            break;
                        }
                        p += 8;
                    }
                    while p < s.len() && !GROUP_STOP[s[p] as usize] {
                        p += 1;
                    }
                }
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
            b'-' | b'0'..=b'9' => {
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
            }
            b if is_ident_start(b) => {
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
                    if !typed
                        && name.ends_with(b"Array")
                        && !name.windows(6).any(|w| w == b"String")
                    {
                        if let Some(k) = memchr::memchr(b')', &s[self.pos..]) {
                            let body = &s[self.pos + 1..self.pos + k];
                            if !body.iter().any(|&c| matches!(c, b';' | b'(' | b'[' | b'{')) {
                                self.pos += k + 1;
                                return Ok(start..self.pos);
                            }
                        }
                    }
                    self.group()?;
                } else if typed && self.pos != save {
                    return Err(self.err(self.pos, "`(` after the typed container's type"));
                } else {
                    self.pos = save;
                }
            }
            _ => return Err(self.err(start, "a value")),
        }
        Ok(start..self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Document {
        Document::parse(s.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn body_end_is_after_the_last_own_line_before_trailing_trivia() {
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\na = 1 \t\r\n; note\n\n[node name=\"B\" parent=\".\"]\n\n\n[node name=\"C\" parent=\".\"]\nb = \"x\ny\" ; tail\n\n[node name=\"D\" parent=\".\"]\nc = 2";
        let d = Document::parse(src.as_bytes()).expect("parses");
        let own: Vec<&str> = d
            .sections
            .iter()
            .map(|s| &src[s.span.start()..s.body_end])
            .collect();
        assert_eq!(
            own,
            [
                "[gd_scene format=3]\n",
                "[node name=\"A\" type=\"Node\"]\na = 1 \t\r\n",
                "[node name=\"B\" parent=\".\"]\n",
                "[node name=\"C\" parent=\".\"]\nb = \"x\ny\"",
                "[node name=\"D\" parent=\".\"]\nc = 2",
            ]
        );
    }

    #[test]
    fn splits_sections_fields_and_props() {
        let src = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Script\" path=\"res://a.gd\" id=\"1_x\"]\n\n[node name=\"A\" type=\"Node2D\"]\nposition = Vector2(1, 2)\nscript = ExtResource(\"1_x\")\n";
        let d = doc(src);
        assert_eq!(d.print(), src);
        assert_eq!(d.sections.len(), 3);
        assert_eq!(d.sections[0].tag.name, "gd_scene");
        assert_eq!(d.slice(&d.sections[0].tag.field("format").unwrap()), "3");
        let n = &d.sections[2];
        assert_eq!(n.props.len(), 2);
        assert_eq!(n.props[0].key, "position");
        assert_eq!(d.slice(&n.props[0].value), "Vector2(1, 2)");
        assert_eq!(d.slice(&n.props[1].line), "script = ExtResource(\"1_x\")\n");
    }

    #[test]
    fn bracket_inside_multiline_string_is_not_a_section() {
        let src = "[gd_resource type=\"X\" format=3]\n\n[resource]\ntext = \"Intro\n[node name=\\\"fake\\\"]\"\nb = 1\n";
        let d = doc(src);
        assert_eq!(d.sections.len(), 2);
        assert_eq!(d.sections[1].props.len(), 2);
        assert_eq!(d.sections[1].props[1].key, "b");
    }

    #[test]
    fn godot3_multiline_groups_and_spacing() {
        let src = "[gd_scene load_steps=2 format=2]\n\n[node name=\"E\" type=\"Area2D\" parent=\".\" groups=[\n\"enemy\",\n]]\nposition = Vector2( 1, 2 )\n";
        let d = doc(src);
        let t = &d.sections[1].tag;
        assert_eq!(d.slice(&t.field("groups").unwrap()), "[\n\"enemy\",\n]");
        assert_eq!(d.slice(&d.sections[1].props[0].value), "Vector2( 1, 2 )");
    }

    #[test]
    fn nested_dicts_without_indentation_and_object_newline() {
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ndata = {\n\"k\": {\n\"x\": 1\n}\n}\nv = Object(RefCounted,\"script\":null)\n\n\nafter = 2\n";
        let d = doc(src);
        let p = &d.sections[1].props;
        assert_eq!(p.len(), 3);
        assert_eq!(d.slice(&p[0].value), "{\n\"k\": {\n\"x\": 1\n}\n}");
        assert_eq!(p[2].key, "after");
    }

    #[test]
    fn keys_bare_with_spaces_quoted_and_two_on_a_line() {
        let src = "[gd_resource type=\"X\" format=3]\n[resource]\nmy prop = 1\n\"a=b\" = 2\nc = 1 d = 2\n0:0/0/physics = [1]\n";
        let d = doc(src);
        let keys: Vec<_> = d.sections[1].props.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["myprop", "a=b", "c", "d", "0:0/0/physics"]);
        assert_eq!(d.print(), src);
    }

    #[test]
    fn comments_crlf_and_typed_containers() {
        let src = "[gd_scene format=3]\r\n\r\n; a comment\r\n[node name=\"A\" type=\"Node\"]\r\narr = [1, ; first\r\n2]\r\nt = Array[ExtResource(\"1\")]([SubResource(\"x\")])\r\nd = Dictionary[String, int]({\r\n\"a\": 1\r\n})\r\nn = -inf\r\nm = inf_neg\r\n";
        let d = doc(src);
        assert_eq!(d.print(), src);
        let p = &d.sections[1].props;
        assert_eq!(p.len(), 5);
        assert_eq!(
            d.slice(&p[1].value),
            "Array[ExtResource(\"1\")]([SubResource(\"x\")])"
        );
        assert_eq!(d.slice(&p[3].value), "-inf");
        assert!(d.uses_crlf());
    }

    #[test]
    fn keyword_before_next_tag_is_not_a_typed_container() {
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nvisible = false\n[node name=\"B\" type=\"Node\" parent=\".\"]\n";
        let d = doc(src);
        assert_eq!(d.sections.len(), 3);
        assert_eq!(d.slice(&d.sections[1].props[0].value), "false");
    }

    #[test]
    fn bom_is_kept_in_prefix() {
        let src = "\u{feff}[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n";
        let d = doc(src);
        assert!(d.has_bom());
        assert_eq!(d.print(), src);
        assert_eq!(d.prefix, 0..3);
    }

    #[test]
    fn errors_are_located() {
        let e = Document::parse(b"[gd_scene format=3]\n\n[node name=\"A\nb = 1\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 12));
        assert!(e.expected.contains("closing `\"`"), "{e}");
        let e = Document::parse(b"[gd_scene format=3]\n[node name=\"A\"]\nno equals here\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        let e = Document::parse(b"").unwrap_err();
        assert!(e.expected.contains("empty"));
        let e = Document::parse(b"[gd_scene]\n\xff\xfe").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.expected.contains("UTF-8"));
        let e = Document::parse(b"hello").unwrap_err();
        assert!(e.to_string().contains("^"));
    }

    #[test]
    fn long_lines_are_clipped_around_the_caret() {
        let mut s = String::from("[gd_scene format=3]\n[node name=\"A\"]\na = ");
        s.push_str(&"1, ".repeat(50_000));
        s.push_str(" @ ");
        s.push_str(&"2, ".repeat(50_000));
        let e = Document::parse(s.as_bytes()).unwrap_err();
        let shown = e.to_string();
        assert!(shown.len() < 600, "{} bytes", shown.len());
        assert!(e.line_text.ends_with('…'), "{}", e.line_text);
        assert_eq!(e.line, 3);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut s = String::from("[gd_scene format=3]\n[node name=\"A\"]\na = ");
        s.push_str(&"[".repeat(100_000));
        let e = Document::parse(s.as_bytes()).unwrap_err();
        assert!(e.expected.contains("nesting"), "{e}");
    }

    #[test]
    fn line_index_agrees_with_counting() {
        let t = "a\nbc\n\nd";
        let d = LineIndex::new(t);
        for off in 0..=t.len() {
            let want = t.as_bytes()[..off].iter().filter(|&&b| b == b'\n').count() + 1;
            assert_eq!(d.line(off), want, "offset {off}");
        }
    }

    #[test]
    fn unescape_follows_the_engine() {
        assert_eq!(unescape(r#"a\"b\\c\n\t\a\v\0"#).unwrap(), "a\"b\\c\n\tav0");
        assert_eq!(unescape(r"\u00e9\U01F600").unwrap(), "é😀");
        assert_eq!(unescape(r"\ud83d\ude00").unwrap(), "😀");
        assert!(unescape(r"\ud83d").is_err());
        assert!(unescape(r"\u12").is_err());
    }

    /// Both ways of reading, as comparable text: sections, or the error's place and words.
    fn both_ways(text: &str) -> (String, String) {
        let show = |r: Result<(Range<usize>, Vec<Section>), ParseError>| match r {
            Ok((prefix, sections)) => format!("{prefix:?} {sections:?}"),
            Err(e) => format!("error at {}: {}", e.offset, e.expected),
        };
        (
            show(Splitter::new(text).run_split(0)),
            show(Splitter::new(text).run_split(usize::MAX)),
        )
    }

    #[test]
    fn split_on_two_threads_equals_reading_in_one_go() {
        let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n";
        let nodes = |n: usize| -> String {
            (0..n)
                .map(|i| {
                    format!("\n[node name=\"N{i}\" type=\"Node\" parent=\".\"]\nvalue = {i}\n")
                })
                .collect()
        };
        // A multi-line string right after the middle that holds a line starting with
        // `[`: the guessed cut is inside it, and the first half must read on.
        let tricky = format!(
            "{head}\n[node name=\"L\" type=\"Label\" parent=\".\"]\ntext = \"{}\n[fake]\nend\"\n{}",
            "x\n".repeat(200),
            nodes(3)
        );
        let cases = [
            format!("{head}{}", nodes(50)),
            tricky,
            // Errors in the second half, and in the first.
            format!(
                "{head}{}\n[node name=\"Bad\" parent=\".\"]\nv = Vector2(1, 2\n",
                nodes(50)
            ),
            format!(
                "{head}\n[node name=\"Bad\" parent=\".\"]\nv = (\n{}",
                nodes(50)
            ),
            format!("{head}{}\n[", nodes(5)),
            "[a]\n[".to_string(),
            "[gd_scene]".to_string(),
        ];
        for text in &cases {
            let (two, one) = both_ways(text);
            assert_eq!(two, one, "{text}");
        }
        // The first two are valid scenes (the second only read right in one go).
        for text in &cases[..2] {
            assert!(Document::parse(text.as_bytes()).is_ok(), "{text}");
        }
    }

    /// Mutated corpus files (truncated, bytes flipped, quotes, brackets and section
    /// starts inserted anywhere): two-thread reading still equals one-thread reading,
    /// errors included.
    #[test]
    fn split_on_two_threads_equals_reading_in_one_go_on_mutated_files() {
        let texts = crate::test_support::corpus_texts(41);
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        const INSERTS: &[&str] = &["\"", "\n[", "[", "]", "(", ")", ";", "\\", "\n", "{"];
        let mut cases = 0;
        for (stored, text) in &texts {
            for _ in 0..8 {
                let mut t = text.clone();
                for _ in 0..1 + next() % 3 {
                    let at = (next() as usize) % (t.len() + 1);
                    let at = (0..=at).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                    match next() % 3 {
                        0 => t.truncate(at),
                        1 => t.insert_str(at, INSERTS[(next() as usize) % INSERTS.len()]),
                        _ => {
                            let end = (at + 1 + (next() as usize) % 40).min(t.len());
                            if t.is_char_boundary(end) {
                                t.replace_range(at..end, "");
                            }
                        }
                    }
                }
                let (two, one) = both_ways(&t);
                assert!(
                    two == one,
                    "{stored}: two-thread reading differs on a mutation"
                );
                cases += 1;
            }
        }
        assert!(
            cases > 1000 || crate::test_support::shared_dir().is_none(),
            "{cases} cases"
        );
    }

    #[test]
    fn split_on_two_threads_equals_reading_in_one_go_on_the_corpus() {
        let texts = crate::test_support::corpus_texts(3);
        for (stored, text) in &texts {
            let (two, one) = both_ways(text);
            assert!(two == one, "{stored}: reading in two halves differs");
        }
        let files = texts.len();
        assert!(
            files > 2000 || crate::test_support::shared_dir().is_none(),
            "{files} corpus files read"
        );
    }
}
