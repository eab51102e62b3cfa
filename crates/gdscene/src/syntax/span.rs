//! Byte ranges of the syntax tree, kept as two `u32` offsets: a scene of a hundred
//! thousand nodes holds over a million of them, three times over during a merge, and
//! `Range<usize>` took twice the room. Files of 4 GiB or more are rejected by the
//! splitter, so every offset fits. What the bytes mean is left to the readers.

use std::ops::Range;

/// A byte range `start..end` of a document's text, in 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The range `r`; offsets past `u32::MAX` (never made by the splitter, which
    /// rejects such files) are clamped.
    pub fn new(r: Range<usize>) -> Span {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span {
            start: clamp(r.start),
            end: clamp(r.end),
        }
    }

    /// The first byte.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// One past the last byte.
    pub fn end(self) -> usize {
        self.end as usize
    }

    /// As a `Range<usize>`.
    pub fn range(self) -> Range<usize> {
        self.start()..self.end()
    }

    /// The same range moved from a section that starts at `from` to one that starts at
    /// `to` (both offsets of the span's own file; the span at or after `from`): what a
    /// section copied from a followed document does to each of its ranges, in two
    /// additions where clamping each offset took a dozen instructions. Offsets fit in
    /// `u32` (the splitter rejects files of 4 GiB or more), so the wrapping sum is
    /// exact whenever the moved range is inside the new file.
    #[inline]
    pub fn moved(self, from: usize, to: usize) -> Span {
        let by = (to as u32).wrapping_sub(from as u32);
        Span {
            start: self.start.wrapping_add(by),
            end: self.end.wrapping_add(by),
        }
    }
}

impl From<Span> for Range<usize> {
    fn from(s: Span) -> Range<usize> {
        s.range()
    }
}

impl PartialEq<Range<usize>> for Span {
    fn eq(&self, r: &Range<usize>) -> bool {
        self.range() == *r
    }
}

impl PartialEq<Span> for Range<usize> {
    fn eq(&self, s: &Span) -> bool {
        *self == s.range()
    }
}

/// What [`super::Document::slice`] takes: a range, a span, or a reference to either.
pub trait ByteRange {
    /// As a `Range<usize>`.
    fn byte_range(&self) -> Range<usize>;
}

impl ByteRange for Range<usize> {
    fn byte_range(&self) -> Range<usize> {
        self.clone()
    }
}

impl ByteRange for Span {
    fn byte_range(&self) -> Range<usize> {
        self.range()
    }
}

impl<T: ByteRange + ?Sized> ByteRange for &T {
    fn byte_range(&self) -> Range<usize> {
        (**self).byte_range()
    }
}

impl<T: ByteRange + ?Sized> ByteRange for &mut T {
    fn byte_range(&self) -> Range<usize> {
        (**self).byte_range()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_is_its_range_in_eight_bytes() {
        let s = Span::new(3..10);
        assert_eq!(std::mem::size_of::<Span>(), 8);
        assert_eq!((s.start(), s.end(), s.range()), (3, 10, 3..10));
        assert!(s == (3..10));
        assert!((3..10) == s);
        let r: &Span = &s;
        assert_eq!(r.byte_range(), 3..10);
        assert_eq!(Range::from(s), 3..10);
    }

    #[test]
    fn a_moved_span_keeps_its_place_in_the_section() {
        let s = Span::new(120..130);
        assert_eq!(s.moved(100, 40), Span::new(60..70));
        assert_eq!(s.moved(100, 1000), Span::new(1020..1030));
        assert_eq!(s.moved(100, 100), s);
    }

    #[test]
    fn offsets_past_u32_are_clamped() {
        let big = u32::MAX as usize + 5;
        assert_eq!(Span::new(1..big).end(), u32::MAX as usize);
    }
}
