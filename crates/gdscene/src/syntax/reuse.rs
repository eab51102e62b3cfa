//! Reading a file like another one already read: a section whose bytes are a section of
//! that other document, read the same way, is copied from it (its byte ranges moved to
//! where it now stands) instead of being scanned again.
//!
//! Two of a merge's three inputs differ from its base in a few sections, and so does the
//! merged result from ours; a copied section costs a comparison of its bytes, where
//! reading it costs a walk over every byte with a decision at each. The result is the
//! same tree, byte range for byte range, as reading the file from scratch gives
//! ([`super::Document::from_text`]): see [`Like::copy_at`] for why. Which sections a
//! reading meets, and the reading itself, are the splitter's.

use super::{Document, Field, Items, Prop, Section, Span, Tag};

/// The document being followed, and where in its sections the reading is.
pub(super) struct Like<'a> {
    doc: &'a Document,
    /// The section of `doc` expected next.
    next: usize,
    /// For each section read so far, the section of `doc` it was copied from, or
    /// `u32::MAX` when it was read afresh.
    copied: Vec<u32>,
}

/// Where a copied section's items go: the lists of the document being read.
pub(super) struct Lists<'s> {
    pub(super) fields: &'s mut Vec<Field>,
    pub(super) props: &'s mut Vec<Prop>,
}

impl<'a> Like<'a> {
    /// Follow `doc` from its first section.
    pub(super) fn new(doc: &'a Document) -> Like<'a> {
        Like {
            doc,
            next: 0,
            copied: Vec::with_capacity(doc.sections.len()),
        }
    }

    /// Where each section read was copied from (see the field).
    pub(super) fn into_copied(self) -> Vec<u32> {
        self.copied
    }

    /// A section of the text being read was read afresh: the one after it is expected
    /// to be the followed document's next one again (the fresh one replaced one).
    pub(super) fn skip(&mut self) {
        self.next += 1;
        self.copied.push(u32::MAX);
    }

    /// The section that starts at `pos` of `text` (a `[` where a section starts), copied
    /// from the followed document when one of the sections expected there (the next one,
    /// the one before it after an insertion, the two after it after a removal) is
    /// there byte for byte and reads the same; `None` otherwise.
    ///
    /// A section's reading depends on its own bytes and on the byte after them only:
    /// it starts at its `[` whatever came before, and every scan inside it (strings,
    /// brackets, numbers, comments, the trivia after the last line) stops inside its
    /// bytes or at the byte after them, which the splitter only tests for being `[` or
    /// the end of the text. So equal bytes followed by `[` in both texts, or by the end
    /// of both, read alike. When the bytes end with a newline every scan stops inside
    /// them, and `[` or the end after them read alike too. Anything else after them
    /// (a property line) means the section runs on here: not a copy.
    pub(super) fn copy_at(&mut self, text: &[u8], pos: usize, to: Lists) -> Option<Section> {
        let at = self.next;
        let candidates = [at, at.wrapping_sub(1), at + 1, at + 2];
        let found = candidates
            .into_iter()
            .find(|&k| self.reads_alike(k, text, pos))?;
        self.next = found + 1;
        self.copied.push(u32::try_from(found).unwrap_or(u32::MAX));
        Some(self.copy(found, pos, to))
    }

    /// Whether section `k` of the followed document is at `pos` of `text` and reads
    /// alike there (see [`Like::copy_at`]).
    fn reads_alike(&self, k: usize, text: &[u8], pos: usize) -> bool {
        let Some(sec) = self.doc.sections.get(k) else {
            return false;
        };
        let own = self.doc.text.as_bytes();
        let Some(bytes) = own.get(sec.span.range()) else {
            return false;
        };
        let end = pos.saturating_add(bytes.len());
        if text.get(pos..end) != Some(bytes) {
            return false;
        }
        let after_here = text.get(end).copied();
        let after_there = own.get(sec.span.end()).copied();
        match after_here {
            None | Some(b'[') => after_here == after_there || bytes.last() == Some(&b'\n'),
            Some(_) => false,
        }
    }

    /// Section `k` of the followed document, moved to start at `pos`, its fields and
    /// properties appended to `to`.
    fn copy(&self, k: usize, pos: usize, to: Lists) -> Section {
        let sec = &self.doc.sections[k];
        let from = sec.span.start();
        // Every offset inside a section is at or after its start.
        let at = |x: usize| x.saturating_sub(from) + pos;
        let moved = |s: Span| s.moved(from, pos);
        let first_field = to.fields.len();
        to.fields.extend(sec.tag.fields.iter().map(|f| Field {
            key: f.key,
            value: moved(f.value),
        }));
        let first_prop = to.props.len();
        to.props.extend(sec.props.iter().map(|p| Prop {
            key: p.key,
            value: moved(p.value),
            line: moved(p.line),
        }));
        Section {
            span: moved(sec.span),
            tag: Tag {
                span: moved(sec.tag.span),
                name: sec.tag.name,
                fields: Items::pending(first_field, sec.tag.fields.len()),
            },
            props: Items::pending(first_prop, sec.props.len()),
            body_end: at(sec.body_end),
        }
    }
}
