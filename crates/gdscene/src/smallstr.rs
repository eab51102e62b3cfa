//! A small immutable string that keeps up to 22 bytes inline, without a heap allocation.
//!
//! Tag names, field keys and property keys of a scene are almost always short
//! identifiers (`node`, `name`, `position`, `metadata/_edit_lock_`); the splitter makes
//! hundreds of thousands of them on a large scene, and an owned `String` for each one
//! made allocation the main cost of parsing. [`SmallStr`] is as large as a `String`,
//! derefs to `str`, and compares, orders and hashes exactly like the `str` it holds, so
//! callers treat it as one (`key == "name"`, `&*key`, `key.as_str()`, `map.get(&*key)`).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// Longest text kept inline.
const INLINE: usize = 22;

#[derive(Clone)]
enum Repr {
    /// `len` bytes of `buf` hold the text.
    Inline { len: u8, buf: [u8; INLINE] },
    /// Longer texts.
    Heap(Box<str>),
}

/// An immutable string, inline up to 22 bytes (see the module docs).
#[derive(Clone)]
pub struct SmallStr(Repr);

impl SmallStr {
    /// The empty string.
    pub const fn new() -> SmallStr {
        SmallStr(Repr::Inline {
            len: 0,
            buf: [0; INLINE],
        })
    }

    /// Copy `s`, inline when it is short.
    #[inline]
    pub fn copy_from(s: &str) -> SmallStr {
        let b = s.as_bytes();
        if b.len() <= INLINE {
            let mut buf = [0; INLINE];
            buf[..b.len()].copy_from_slice(b);
            SmallStr(Repr::Inline {
                len: b.len() as u8,
                buf,
            })
        } else {
            SmallStr(Repr::Heap(s.into()))
        }
    }

    /// The concatenation of `parts`, inline when it is short.
    pub fn concat(parts: &[&str]) -> SmallStr {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len <= INLINE {
            let mut buf = [0; INLINE];
            let mut at = 0;
            for p in parts {
                buf[at..at + p.len()].copy_from_slice(p.as_bytes());
                at += p.len();
            }
            SmallStr(Repr::Inline {
                len: len as u8,
                buf,
            })
        } else {
            SmallStr(Repr::Heap(parts.concat().into_boxed_str()))
        }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, buf } => {
                let b = &buf[..usize::from(*len).min(INLINE)];
                // SAFETY: an inline buffer is only ever filled (in `copy_from`, `concat`)
                // with whole `&str`s, so its first `len` bytes are valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(b) }
            }
            Repr::Heap(s) => s,
        }
    }

    /// Whether the text lives inline (no allocation).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl Default for SmallStr {
    fn default() -> Self {
        SmallStr::new()
    }
}

impl Deref for SmallStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SmallStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SmallStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for SmallStr {
    fn from(s: &str) -> Self {
        SmallStr::copy_from(s)
    }
}

impl From<String> for SmallStr {
    fn from(s: String) -> Self {
        if s.len() <= INLINE {
            SmallStr::copy_from(&s)
        } else {
            SmallStr(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<&String> for SmallStr {
    fn from(s: &String) -> Self {
        SmallStr::copy_from(s)
    }
}

impl From<SmallStr> for String {
    fn from(s: SmallStr) -> Self {
        match s.0 {
            Repr::Heap(b) => b.into_string(),
            Repr::Inline { .. } => s.as_str().to_owned(),
        }
    }
}

impl fmt::Debug for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for SmallStr {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SmallStr {}

impl PartialOrd for SmallStr {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SmallStr {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for SmallStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Like the `str` it holds, so that `Borrow<str>` lookups work in hashed maps.
        self.as_str().hash(state)
    }
}

macro_rules! eq_with {
    ($($t:ty),*) => {$(
        impl PartialEq<$t> for SmallStr {
            #[inline]
            fn eq(&self, other: &$t) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<SmallStr> for $t {
            #[inline]
            fn eq(&self, other: &SmallStr) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}
eq_with!(str, &str, String);

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashMap};

    #[test]
    fn behaves_like_the_str_it_holds() {
        for s in [
            "",
            "name",
            "metadata/_edit_lock_",
            "0123456789012345678901",
            "a much longer key that does not fit inline",
            "é😀",
        ] {
            let k = SmallStr::from(s);
            assert_eq!(k, s);
            assert_eq!(k, *s);
            assert_eq!(k, s.to_string());
            assert_eq!(s, k);
            assert_eq!(&*k, s);
            assert_eq!(k.len(), s.len());
            assert_eq!(format!("{k}|{k:?}"), format!("{s}|{s:?}"));
            assert_eq!(String::from(k.clone()), s);
            assert_eq!(k.is_inline(), s.len() <= INLINE);
        }
        let mut h = HashMap::new();
        h.insert(SmallStr::from("position"), 1);
        assert_eq!(h.get("position"), Some(&1));
        let mut b = BTreeMap::new();
        b.insert(SmallStr::from("b"), 2);
        b.insert(SmallStr::from("a"), 1);
        assert_eq!(b.get("a"), Some(&1));
        assert_eq!(b.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let (a, ab) = (SmallStr::from("a"), SmallStr::from("ab"));
        assert!(a < ab);
        assert_eq!(SmallStr::concat(&["Room1", "/", "Item2"]), "Room1/Item2");
        let long = SmallStr::concat(&["a_rather_long_parent/path", "/", "Child"]);
        assert_eq!(long, "a_rather_long_parent/path/Child");
        assert!(!long.is_inline());
        assert_eq!(SmallStr::default(), "");
        assert_eq!(
            std::mem::size_of::<SmallStr>(),
            std::mem::size_of::<String>()
        );
    }
}
