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
//!
//! This file holds the tree the splitter builds and what reads it; the splitting itself
//! is `splitter.rs`, string escapes `unescape.rs`, the shared text `text.rs`, byte ranges
//! `span.rs` and the shared item lists `items.rs`.

mod bytes;
mod items;
mod key;
mod lines;
mod reuse;
mod span;
mod spare;
mod splitter;
mod text;
mod unescape;

pub use crate::smallstr::SmallStr;
pub use items::Items;
pub use key::Key;
pub(crate) use key::KeyMemo;
pub use lines::string_open_after;
pub use span::{ByteRange, Span};
pub use spare::Spare;
use splitter::Splitter;
use std::fmt;
use std::ops::Range;
pub use text::{Lender, Source, Text};
pub use unescape::unescape;

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
    pub name: Key,
    /// `key=value` fields in written order (a repeated key: the last one wins).
    pub fields: Items<Field>,
}

/// One `key=value` field of a tag.
#[derive(Debug, Clone)]
pub struct Field {
    /// The field name (an identifier).
    pub key: Key,
    /// Where the value's text is.
    pub value: Span,
}

/// One property assignment inside a section.
#[derive(Debug, Clone)]
pub struct Prop {
    /// The key as the engine reads it: whitespace dropped from a bare key, escapes
    /// decoded in a quoted one.
    pub key: Key,
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
        writeln!(
            f,
            "{}:{}: expected {}",
            self.line, self.column, self.expected
        )?;
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

    /// [`Document::from_text`] of a text expected to share most sections with `like`
    /// (a merged result and ours): the shared sections are copied from `like` instead of
    /// read again. The document is the same as [`Document::from_text`] gives, errors
    /// included.
    pub fn from_text_like(text: String, like: &Document) -> Result<Document, ParseError> {
        Document::from_shared_like(Text::from(text), Some(like))
    }

    /// [`Document::from_text_like`], its lists filled into the room of a dropped tree
    /// ([`Spare`]) instead of fresh memory: the same document.
    pub fn from_text_like_in(
        text: String,
        like: &Document,
        spare: Spare,
    ) -> Result<Document, ParseError> {
        Document::read_like_in(Text::from(text), like, spare).map(|(doc, _)| doc)
    }

    /// [`Document::parse`] of bytes expected to share most sections with `like`, copying
    /// those (see [`Document::from_text_like`]).
    pub fn parse_like(bytes: &[u8], like: &Document) -> Result<Document, ParseError> {
        match std::str::from_utf8(bytes) {
            Ok(t) => Document::from_text_like(t.to_string(), like),
            Err(_) => Document::parse(bytes),
        }
    }

    /// [`Document::parse_source`] of a text expected to share most sections with `like`
    /// (ours and base), copying those (see [`Document::from_text_like`]).
    pub fn parse_source_like(src: &Source, like: &Document) -> Result<Document, ParseError> {
        match src.text() {
            Some(text) => Document::from_shared_like(text.clone(), Some(like)),
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

    fn from_shared_like(text: Text, like: Option<&Document>) -> Result<Document, ParseError> {
        match like {
            Some(like) => Document::read_like(text, like).map(|(doc, _)| doc),
            None => Document::from_shared(text),
        }
    }

    /// The document of `text` read following `like` (see [`Document::from_text_like`]),
    /// and for each of its sections the index of the section of `like` it was copied
    /// from, or `u32::MAX` when it was read afresh: the model copies what it built
    /// from those sections too.
    pub(crate) fn read_like(
        text: Text,
        like: &Document,
    ) -> Result<(Document, Vec<u32>), ParseError> {
        Document::read_like_in(text, like, Spare::default())
    }

    /// [`Document::read_like`] into the room of `spare`.
    pub(crate) fn read_like_in(
        text: Text,
        like: &Document,
        spare: Spare,
    ) -> Result<(Document, Vec<u32>), ParseError> {
        Splitter::new(&text)
            .like(like)
            .spare(spare)
            .run_like()
            .map(|(prefix, sections, copied)| {
                let doc = Document {
                    text,
                    prefix,
                    sections,
                };
                (doc, copied)
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

#[cfg(test)]
mod tests;
