//! A small immutable string that keeps up to 24 bytes inline, without a heap allocation.
//!
//! Node names, parents and paths, and other short texts the model and the merge keep by
//! the hundred thousand (`Item757`, `Room16/Item757`), where an owned `String` for each
//! one made allocation a main cost. (The tree's own names, tag names and field and
//! property keys, are [`crate::syntax::Key`]s: a small vocabulary, kept once.) [`SmallStr`] is as large as a `String`,
//! derefs to `str`, and compares, orders and hashes exactly like the `str` it holds, so
//! callers treat it as one (`key == "name"`, `&*key`, `key.as_str()`, `map.get(&*key)`).
//!
//! The storage is `compact_str`'s `CompactString` (24 bytes inline where our own type held
//! 22): measured against our own on the generated 20 MB scenes it used 3% less CPU and
//! 1.6% less peak memory on the node-heavy one and the same on the mesh-heavy one, with
//! byte-identical output on every shared merge (docs/architecture.md, "Our code or a
//! crate"). This newtype keeps the names callers use and the `str` equalities.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

/// An immutable string, inline up to 24 bytes (see the module docs).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SmallStr(compact_str::CompactString);

impl SmallStr {
    /// The empty string.
    pub const fn new() -> SmallStr {
        SmallStr(compact_str::CompactString::const_new(""))
    }
    /// Copy `s`, inline when it is short.
    #[inline]
    pub fn copy_from(s: &str) -> SmallStr {
        SmallStr(compact_str::CompactString::new(s))
    }
    /// The concatenation of `parts`, inline when it is short.
    pub fn concat(parts: &[&str]) -> SmallStr {
        SmallStr(parts.iter().copied().collect())
    }
    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
    /// Whether the text lives inline (no allocation).
    pub fn is_inline(&self) -> bool {
        !self.0.is_heap_allocated()
    }
}

impl Deref for SmallStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}
impl AsRef<str> for SmallStr {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}
impl Borrow<str> for SmallStr {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}
impl From<&str> for SmallStr {
    fn from(s: &str) -> Self {
        SmallStr::copy_from(s)
    }
}
impl From<String> for SmallStr {
    fn from(s: String) -> Self {
        SmallStr(compact_str::CompactString::from(s))
    }
}
impl From<&String> for SmallStr {
    fn from(s: &String) -> Self {
        SmallStr::copy_from(s)
    }
}
impl From<SmallStr> for String {
    fn from(s: SmallStr) -> Self {
        s.0.into_string()
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

    /// Longest text `CompactString` keeps inline on a 64-bit target.
    const INLINE: usize = 24;

    #[test]
    fn behaves_like_the_str_it_holds() {
        for s in [
            "",
            "name",
            "metadata/_edit_lock_",
            "0123456789012345678901",
            "012345678901234567890123",
            "0123456789012345678901234",
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
