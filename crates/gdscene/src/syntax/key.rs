//! Names the syntax tree holds over and over: tag names (`node`), field keys (`name`,
//! `parent`) and property keys (`position`, `metadata/_edit_lock_`), each kept once per
//! process and referred to by an 8-byte [`Key`].
//!
//! A scene of a hundred thousand nodes has over a million of these names, three times
//! over during a merge, drawn from a vocabulary of a few dozen. As 24-byte inline strings
//! they were a third of the syntax tree (about 40 MB of a node-heavy merge's peak); as
//! keys they are 8 bytes each, copied without a check on drop, and equal exactly when
//! their pointers are.
//!
//! Decided here: how a name becomes a key (a process-wide table behind a lock, and a
//! small [`KeyMemo`] per reader in front of it, so that a reader takes the lock only for
//! a name it has not met). A key is never freed: the table grows with the distinct names
//! a process reads, at most the size of the text it read them from (a hostile file of a
//! million distinct keys keeps them for the life of the process). Our own code rather
//! than the `ustr` crate: the same idea in safe Rust and forty lines, where `ustr` brings
//! `ahash`, `zerocopy` and its own allocator of unsafe code for what this needs.
//! What a name means is left to the readers of the tree.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Mutex, OnceLock};

/// A name kept once per process (see the module docs): derefs to `str`, and compares,
/// orders and hashes exactly like the `str` it holds.
#[derive(Clone, Copy)]
pub struct Key(&'static &'static str);

/// Every name made a key so far, by its text.
fn table() -> &'static Mutex<HashMap<&'static str, Key>> {
    static TABLE: OnceLock<Mutex<HashMap<&'static str, Key>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Key {
    /// The key of `name`: the one every other reading of `name` in this process gets.
    pub fn new(name: &str) -> Key {
        // A poisoned lock still holds a consistent table (inserts cannot half happen).
        let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&k) = table.get(name) {
            return k;
        }
        let text: &'static str = Box::leak(Box::from(name));
        let key = Key(Box::leak(Box::new(text)));
        table.insert(text, key);
        key
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

thread_local! {
    /// This thread's memo for [`Key::memoized`].
    static MEMO: std::cell::RefCell<KeyMemo> = std::cell::RefCell::new(KeyMemo::new());
}

impl Key {
    /// [`Key::new`] through this thread's [`KeyMemo`]: for readers that make keys one at
    /// a time far from the splitter (a node's type), without the lock for a name the
    /// thread has met.
    pub fn memoized(name: &str) -> Key {
        MEMO.with(|m| match m.try_borrow_mut() {
            Ok(mut memo) => memo.key(name),
            Err(_) => Key::new(name),
        })
    }
}

impl Default for Key {
    fn default() -> Key {
        Key::new("")
    }
}

impl Deref for Key {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.0
    }
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        // One table: the same text is the same key. The text comparison only runs for
        // different keys of the same length, which the table never makes.
        std::ptr::eq(self.0, other.0) || (self.0.len() == other.0.len() && *self.0 == *other.0)
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        self.0.cmp(other.0)
    }
}
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}
impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        **self.0 == *other
    }
}
impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        **self.0 == **other
    }
}
impl PartialEq<Key> for str {
    fn eq(&self, other: &Key) -> bool {
        *self == **other.0
    }
}
impl PartialEq<Key> for &str {
    fn eq(&self, other: &Key) -> bool {
        **self == **other.0
    }
}
impl PartialEq<String> for Key {
    fn eq(&self, other: &String) -> bool {
        **self.0 == **other
    }
}
impl PartialEq<Key> for String {
    fn eq(&self, other: &Key) -> bool {
        **self == **other.0
    }
}
impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.0
    }
}
impl AsRef<str> for Key {
    fn as_ref(&self) -> &str {
        self.0
    }
}
impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::new(s)
    }
}
impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

/// One reader's keys, in front of the process-wide table: a reader meets the same few
/// dozen names over and over, and finds each here without the lock. A name's slot is
/// picked by a hash of its length, first eight bytes and last byte; it looks at that
/// slot and the three after it, and a name found in none takes the first empty one (or,
/// all four full, its own slot). A file's vocabulary then fits with no name pushing
/// another out (`name` and `node` shared a slot of the first memo, and missed a quarter
/// of a million times in a node-heavy file).
pub(crate) struct KeyMemo {
    slots: Box<[Slot; MEMO_SLOTS]>,
}

/// A memo slot: a key, with its length and first eight bytes as one word, so that most
/// names are told apart or found equal without a byte comparison.
#[derive(Clone, Copy)]
struct Slot {
    /// The key kept here, if any.
    key: Option<Key>,
    /// Its name's length in bytes.
    len: usize,
    /// Its name's first eight bytes ([`first_word`]).
    word: u64,
}

/// Slots of a [`KeyMemo`] (a power of two).
const MEMO_SLOTS: usize = 256;

/// Slots a name may sit in, from its own on.
const MEMO_PROBES: usize = 4;

impl KeyMemo {
    /// An empty memo.
    pub(crate) fn new() -> KeyMemo {
        let empty = Slot {
            key: None,
            len: 0,
            word: 0,
        };
        KeyMemo {
            slots: Box::new([empty; MEMO_SLOTS]),
        }
    }

    /// The key of `name`.
    #[inline]
    pub(crate) fn key(&mut self, name: &str) -> Key {
        let b = name.as_bytes();
        let word = first_word(b);
        let home = memo_slot(b, word);
        let mut empty = None;
        for i in 0..MEMO_PROBES {
            let at = (home + i) % MEMO_SLOTS;
            let slot = self.slots[at];
            match slot.key {
                Some(k) if slot.word == word && slot.len == b.len() => {
                    if b.len() <= 8 || k.as_bytes().get(8..) == b.get(8..) {
                        return k;
                    }
                }
                None => {
                    empty.get_or_insert(at);
                }
                Some(_) => {}
            }
        }
        let key = Key::new(name);
        self.slots[empty.unwrap_or(home)] = Slot {
            key: Some(key),
            len: b.len(),
            word,
        };
        key
    }
}

/// A name's first eight bytes (zeros past its end) as one little-endian word, built in
/// a register: copying a short name into a zeroed array called `memcpy`, whose byte
/// stores the word's load then waited for (half the memo's time on a fresh reading).
#[inline]
fn first_word(b: &[u8]) -> u64 {
    if let Some(w) = b.first_chunk::<8>() {
        return u64::from_le_bytes(*w);
    }
    b.iter().rev().fold(0, |w, &x| w << 8 | u64::from(x))
}

/// The home slot of a name: its length, first eight bytes and last byte, multiplied by
/// the 64-bit golden ratio (Fibonacci hashing), top bits.
#[inline]
fn memo_slot(b: &[u8], word: u64) -> usize {
    let last = u64::from(b.last().copied().unwrap_or(0));
    let x = word ^ (b.len() as u64) << 56 ^ last << 48;
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % MEMO_SLOTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_eight_bytes_and_reads_as_its_text() {
        assert_eq!(std::mem::size_of::<Key>(), 8);
        let k = Key::new("position");
        assert_eq!(&*k, "position");
        assert!(k == "position");
        assert!("position" == k);
        assert_eq!(format!("{k:?} {k}"), "\"position\" position");
    }

    #[test]
    fn the_same_text_is_the_same_key_and_others_differ() {
        let (a, b, c) = (Key::new("name"), Key::from("name"), Key::new("type"));
        assert!(std::ptr::eq(a.0, b.0));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.cmp(&c), "name".cmp("type"));
        let hash = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        assert_eq!(hash(&|h| a.hash(h)), hash(&|h| "name".hash(h)));
        let map: HashMap<Key, u8> = [(a, 1)].into_iter().collect();
        assert_eq!(map.get("name"), Some(&1));
    }

    #[test]
    fn a_memoized_key_is_the_tables() {
        for name in ["Sprite2D", "Node2D", "Sprite2D", ""] {
            assert_eq!(Key::memoized(name), Key::new(name));
            assert!(std::ptr::eq(Key::memoized(name).0, Key::new(name).0));
        }
    }

    #[test]
    fn a_first_word_is_the_zero_padded_bytes() {
        for name in [
            "",
            "a",
            "name",
            "abcdefg",
            "abcdefgh",
            "metadata/_edit_lock_",
        ] {
            let mut w = [0u8; 8];
            let n = name.len().min(8);
            w[..n].copy_from_slice(&name.as_bytes()[..n]);
            assert_eq!(first_word(name.as_bytes()), u64::from_le_bytes(w), "{name}");
        }
    }

    #[test]
    fn a_small_vocabulary_stays_in_the_memo() {
        // The names of a node-heavy scene, `name` and `node` among them: after one
        // reading of each, every later one is found in its slot or the three after.
        let names = [
            "type",
            "node",
            "name",
            "parent",
            "position",
            "texture",
            "region_enabled",
            "region_rect",
            "shape",
            "groups",
            "script",
            "value",
            "offset_right",
            "offset_bottom",
            "text",
            "id",
            "uid",
            "ext_resource",
            "path",
            "sub_resource",
            "gd_scene",
            "load_steps",
            "format",
            "radius",
            "size",
            "unique_id",
        ];
        let mut memo = KeyMemo::new();
        for n in names {
            memo.key(n);
        }
        for n in names {
            let home = memo_slot(n.as_bytes(), first_word(n.as_bytes()));
            let found = (0..MEMO_PROBES).any(|i| {
                memo.slots[(home + i) % MEMO_SLOTS]
                    .key
                    .is_some_and(|k| k == n)
            });
            assert!(found, "{n} was pushed out");
        }
    }

    #[test]
    fn the_memo_gives_the_tables_key_even_when_names_share_a_slot() {
        let mut memo = KeyMemo::new();
        // Eighty readings of forty names in a memo a third full of another: names
        // push each other out, and every answer is still the table's key.
        let mut names: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        names.push(String::new());
        names.extend((0..40).map(|i| format!("k{i}")));
        for (i, slot) in memo.slots.iter_mut().enumerate() {
            if i % 3 == 0 {
                let b = b"filler";
                (slot.key, slot.len, slot.word) = (Some(Key::new("filler")), 6, first_word(b));
            }
        }
        // Same first eight bytes, length and last byte: one home slot, told apart by
        // the bytes past the eighth.
        names.extend(["metadata/aa_z", "metadata/bb_z", "metadata/aa_z"].map(String::from));
        for name in &names {
            let name = name.as_str();
            let k = memo.key(name);
            assert_eq!(&*k, name);
            assert_eq!(k, Key::new(name));
        }
    }
}
