//! Step 0 of the line merge: the three files split in lines, each distinct line given a
//! small id shared by the three files (xdiff's records and their classes).
//!
//! Decides what a line is (bytes up to and including `\n`; the last line may lack it) and
//! when two lines are equal (same bytes, so CRLF, invalid UTF-8 and NUL bytes are kept and
//! compared as they are). Everything after works on ids and line numbers.

use std::collections::HashMap;

/// One file's lines.
pub(super) struct Lines<'a> {
    pub(super) buf: &'a [u8],
    /// Byte offset of each line start, plus `buf.len()` at the end.
    starts: Vec<usize>,
    /// The id of each line.
    pub(super) ids: Vec<u32>,
}

impl<'a> Lines<'a> {
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }
    /// Bytes of lines `a..b` (clamped; never panics).
    pub(super) fn slice(&self, a: usize, b: usize) -> &'a [u8] {
        let n = self.len();
        let (a, b) = (a.min(n), b.min(n));
        if a >= b {
            return &[];
        }
        &self.buf[self.starts[a]..self.starts[b]]
    }
    pub(super) fn line(&self, i: usize) -> &'a [u8] {
        self.slice(i, i + 1)
    }
}

/// Base, ours and theirs, their lines interned together.
pub(super) struct Files<'a> {
    pub(super) b: Lines<'a>,
    pub(super) o: Lines<'a>,
    pub(super) t: Lines<'a>,
}

impl<'a> Files<'a> {
    pub(super) fn new(base: &'a [u8], ours: &'a [u8], theirs: &'a [u8]) -> Self {
        let mut map: HashMap<&'a [u8], u32> = HashMap::new();
        let mut split = |buf: &'a [u8]| {
            let mut starts = vec![0];
            let mut ids = Vec::new();
            let mut start = 0;
            while start < buf.len() {
                let end = match buf[start..].iter().position(|&c| c == b'\n') {
                    Some(p) => start + p + 1,
                    None => buf.len(),
                };
                let next = map.len() as u32;
                ids.push(*map.entry(&buf[start..end]).or_insert(next));
                starts.push(end);
                start = end;
            }
            Lines { buf, starts, ids }
        };
        let b = split(base);
        let o = split(ours);
        let t = split(theirs);
        Files { b, o, t }
    }
}
