//! Step 0 of the line merge: the three files split in lines, each distinct line given a
//! small id shared by the three files (xdiff's records and their classes).
//!
//! Decides what a line is (bytes up to and including `\n`; the last line may lack it) and
//! when two lines are equal (same bytes, so CRLF, invalid UTF-8 and NUL bytes are kept and
//! compared as they are). Everything after works on ids and line numbers.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
    /// The text of each id.
    pub(super) texts: Vec<&'a [u8]>,
}

/// Line text to id. Ids only need to be equal for equal lines, so any hash does; this
/// one reads eight bytes at a time, several times faster than the default SipHash on the
/// millions of lines of a big scene.
type Interner<'a> = HashMap<&'a [u8], u32, BuildHasherDefault<LineHasher>>;

impl<'a> Files<'a> {
    pub(super) fn new(base: &'a [u8], ours: &'a [u8], theirs: &'a [u8]) -> Self {
        let guess = memchr::memchr_iter(b'\n', base).count() + 16;
        let mut map = Interner::with_capacity_and_hasher(guess, Default::default());
        let mut texts = Vec::new();
        let none = Lines {
            buf: &[],
            starts: vec![0],
            ids: Vec::new(),
        };
        let b = split(base, &none, &mut map, &mut texts);
        let o = split(ours, &b, &mut map, &mut texts);
        let t = split(theirs, &b, &mut map, &mut texts);
        Files { b, o, t, texts }
    }
}

/// Split `buf` in lines and give each its id. The lines it shares with the start and the
/// end of `like` (base, for a side) take `like`'s ids without a lookup: a side is mostly
/// base, and a hash lookup per line was the largest cost of line-merging a huge string.
/// Those lines are in the interner already, so every other line gets the id it would
/// have got anyway.
fn split<'a>(
    buf: &'a [u8],
    like: &Lines<'a>,
    map: &mut Interner<'a>,
    texts: &mut Vec<&'a [u8]>,
) -> Lines<'a> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', buf).map(|p| p + 1));
    if starts.last() != Some(&buf.len()) {
        starts.push(buf.len());
    }
    let line = |i: usize| &buf[starts[i]..starts[i + 1]];
    let (n, m) = (starts.len() - 1, like.len());
    let head = (0..n.min(m))
        .take_while(|&i| line(i) == like.line(i))
        .count();
    let tail = (0..(n - head).min(m - head))
        .take_while(|&k| line(n - 1 - k) == like.line(m - 1 - k))
        .count();
    let mut ids = Vec::with_capacity(n);
    ids.extend_from_slice(&like.ids[..head]);
    for i in head..n - tail {
        let text = line(i);
        let id = *map.entry(text).or_insert_with(|| {
            texts.push(text);
            texts.len() as u32 - 1
        });
        ids.push(id);
    }
    ids.extend_from_slice(&like.ids[m - tail..]);
    Lines { buf, starts, ids }
}

/// Feed `bytes` to a word hasher as little-endian 8-byte words; a shorter tail is one
/// more word, tagged with its length so that `"a"` and `"a\0"` differ. Shared by the
/// hashers of the line merge and of matching.
pub(crate) fn fold_words(bytes: &[u8], mut add: impl FnMut(u64)) {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        add(u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
    }
}

/// Multiply-rotate hash over 8-byte words, with a final avalanche so the table's low
/// and high bits are both usable.
#[derive(Default)]
pub(super) struct LineHasher(u64);

const K: u64 = 0x9e37_79b9_7f4a_7c15;

impl LineHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(23) ^ w).wrapping_mul(K);
    }
}

impl Hasher for LineHasher {
    fn write(&mut self, bytes: &[u8]) {
        fold_words(bytes, |w| self.add(w));
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}
