//! Step 0 of the line merge: the three files split in lines, each distinct line given a
//! small id shared by the three files (xdiff's records and their classes).
//!
//! Decides what a line is (bytes up to and including `\n`; the last line may lack it) and
//! when two lines are equal (same bytes, so CRLF, invalid UTF-8 and NUL bytes are kept and
//! compared as they are). Everything after works on ids and line numbers.

use std::hash::Hasher;

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

impl<'a> Files<'a> {
    pub(super) fn new(base: &'a [u8], ours: &'a [u8], theirs: &'a [u8]) -> Self {
        let guess = memchr::memchr_iter(b'\n', base).count() + 16;
        let mut map = Interner::with_capacity(guess);
        let none = Lines {
            buf: &[],
            starts: vec![0],
            ids: Vec::new(),
        };
        let b = split(base, &none, &mut map);
        let o = split(ours, &b, &mut map);
        let t = split(theirs, &b, &mut map);
        Files {
            b,
            o,
            t,
            texts: map.texts,
        }
    }
}

/// Split `buf` in lines and give each its id. The lines it shares with the start and the
/// end of `like` (base, for a side) take `like`'s ids without a lookup: a side is mostly
/// base, and a hash lookup per line was the largest cost of line-merging a huge string.
/// Those lines are in the interner already, so every other line gets the id it would
/// have got anyway.
fn split<'a>(buf: &'a [u8], like: &Lines<'a>, map: &mut Interner<'a>) -> Lines<'a> {
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
    intern_run(map, (head..n - tail).map(line), &mut ids);
    ids.extend_from_slice(&like.ids[m - tail..]);
    Lines { buf, starts, ids }
}

/// How many lines ahead a slot is fetched; a slot's text is fetched half as far ahead.
const AHEAD: usize = 16;

/// Intern `lines` in order, pushing their ids. Each lookup's slot is fetched from memory
/// [`AHEAD`] lines before it is needed and the text it holds [`AHEAD`]` / 2` lines
/// before: on a huge string lookups are bound by cache misses, not by hashing.
fn intern_run<'a>(
    map: &mut Interner<'a>,
    lines: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
    ids: &mut Vec<u32>,
) {
    let hashes: Vec<u64> = lines.clone().map(hash_line).collect();
    for (i, text) in lines.enumerate() {
        if let Some(&h) = hashes.get(i + AHEAD) {
            map.prefetch_slot(h);
        }
        if let Some(&h) = hashes.get(i + AHEAD / 2) {
            map.prefetch_text(h);
        }
        ids.push(map.intern(text, hashes[i]));
    }
}

/// The hash of a line's bytes.
fn hash_line(text: &[u8]) -> u64 {
    let mut h = LineHasher::default();
    h.write(text);
    h.finish()
}

/// One occupied place of the [`Interner`]: a line, its hash's high half and its id.
#[derive(Clone, Copy)]
struct Slot<'a> {
    text: &'a [u8],
    tag: u32,
    id: u32,
}

/// Line text to id (ids numbered in order of first appearance). Open addressing with
/// linear probing, at most half full; a slot holds its line's text, so a lookup reads one
/// slot and one text and both can be fetched ahead. Ids only need to be equal for equal
/// lines, so any hash does: this one reads eight bytes at a time.
struct Interner<'a> {
    slots: Vec<Option<Slot<'a>>>,
    /// The text of each id.
    texts: Vec<&'a [u8]>,
}

impl<'a> Interner<'a> {
    fn with_capacity(lines: usize) -> Self {
        Interner {
            slots: vec![None; (lines * 2).next_power_of_two().max(16)],
            texts: Vec::with_capacity(lines),
        }
    }

    /// Where the probe for hash `h` starts.
    fn home(&self, h: u64) -> usize {
        h as usize & (self.slots.len() - 1)
    }

    /// Ask for the slot where the probe for `h` starts.
    fn prefetch_slot(&self, h: u64) {
        prefetch(self.slots.as_ptr().wrapping_add(self.home(h)));
    }

    /// Ask for the text held where the probe for `h` starts.
    fn prefetch_text(&self, h: u64) {
        if let Some(Some(s)) = self.slots.get(self.home(h)) {
            prefetch(s.text.as_ptr());
        }
    }

    /// The id of `text` (whose hash is `h`), a new one if it was not seen before.
    fn intern(&mut self, text: &'a [u8], h: u64) -> u32 {
        let (mask, tag) = (self.slots.len() - 1, (h >> 32) as u32);
        let mut i = self.home(h);
        while let Some(s) = self.slots[i] {
            if s.tag == tag && s.text == text {
                return s.id;
            }
            i = (i + 1) & mask;
        }
        let id = self.texts.len() as u32;
        self.slots[i] = Some(Slot { text, tag, id });
        self.texts.push(text);
        if self.texts.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    /// Double the slots and place every line again.
    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![None; size]);
        let mask = size - 1;
        for s in old.into_iter().flatten() {
            let mut i = hash_line(s.text) as usize & mask;
            while self.slots[i].is_some() {
                i = (i + 1) & mask;
            }
            self.slots[i] = Some(s);
        }
    }
}

/// A hint to the processor to bring the cache line at `p` in; no effect elsewhere.
#[inline]
fn prefetch<T>(p: *const T) {
    // SAFETY: a prefetch only hints; it reads nothing and never faults, whatever `p` is.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Feed `bytes` to a word hasher as little-endian 8-byte words; a shorter tail is one
/// more word, tagged with its length so that `"a"` and `"a\0"` differ.
fn fold_words(bytes: &[u8], mut add: impl FnMut(u64)) {
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
