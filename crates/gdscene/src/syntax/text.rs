//! The text a [`super::Document`] is read from, held once however many owners it has.
//!
//! A caller that reads a file keeps its bytes (for the line merge it may fall back to),
//! and the document parsed from them needs the same bytes as text: before this, each
//! kept a copy, 60 MB for a merge of three 20 MB scenes. [`Source`] is what the caller
//! reads into; [`Text`] is the document's view of it, shared without a copy when the
//! bytes are UTF-8. What the text means is left to the splitter and the model.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A document's text: UTF-8, shared by reference count, never copied when cloned.
#[derive(Clone)]
pub struct Text(Arc<Held>);

/// Where a [`Text`]'s bytes live.
enum Held {
    /// In a string of its own (a file read into memory, a result written).
    Owned(String),
    /// In memory someone else owns and lends for the text's lifetime (a mapped file).
    Lent(Lent),
}

/// Bytes lent by an owner, checked once to be UTF-8.
struct Lent {
    /// The owner's bytes as text. The `'static` is a lie told only inside this module:
    /// the bytes live as long as `_owner` below, which is dropped with this struct and
    /// never touched mutably, and [`Text::as_str`] hands them out for `&self`'s lifetime.
    text: &'static str,
    /// What holds the bytes; boxed, so moving the `Lent` does not move them.
    _owner: Box<dyn Lender>,
}

/// Memory that can lend its bytes to a [`Text`] (a mapped file): what it lends must be
/// the same bytes, at the same place, for as long as it lives.
pub trait Lender: AsRef<[u8]> + Send + Sync {}

impl<T: AsRef<[u8]> + Send + Sync> Lender for T {}

impl Default for Text {
    fn default() -> Text {
        Text::from(String::new())
    }
}

impl Text {
    /// The text as a `str`.
    pub fn as_str(&self) -> &str {
        match &*self.0 {
            Held::Owned(s) => s.as_str(),
            Held::Lent(l) => l.text,
        }
    }

    /// The text as an owned `String`: no copy when nothing else shares it (a merged
    /// result validated and handed back), else a copy.
    pub fn into_string(self) -> String {
        match Arc::try_unwrap(self.0) {
            Ok(Held::Owned(s)) => s,
            Ok(held) => Text(Arc::new(held)).as_str().to_string(),
            Err(shared) => Text(shared).as_str().to_string(),
        }
    }

    /// The text `owner` lends, when it is UTF-8; else `owner` back.
    fn lent(owner: Box<dyn Lender>) -> Result<Text, Box<dyn Lender>> {
        let Ok(text) = std::str::from_utf8((*owner).as_ref()) else {
            return Err(owner);
        };
        // SAFETY: `text` points into `owner`'s memory, which a `Lender` keeps in place
        // for its lifetime; the box moves into the `Lent` beside `text` and is dropped
        // with it, and no `&'static` ever leaves this module (`as_str` reborrows).
        let text: &'static str = unsafe { &*(text as *const str) };
        Ok(Text(Arc::new(Held::Lent(Lent {
            text,
            _owner: owner,
        }))))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::new(Held::Owned(s)))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// A file's bytes as read, to be parsed without a copy ([`super::Document::parse_source`])
/// and still read as bytes by whoever else needs them (a line merge). Cloning shares.
#[derive(Clone, Debug)]
pub struct Source(Repr);

#[derive(Clone, Debug)]
enum Repr {
    /// Valid UTF-8: a document can share it.
    Text(Text),
    /// Anything else: a document cannot be read from it (the parse reports where).
    Bytes(Arc<Vec<u8>>),
}

impl Source {
    /// Take `bytes` over; checking that they are UTF-8 is the only pass over them.
    pub fn new(bytes: Vec<u8>) -> Source {
        match String::from_utf8(bytes) {
            Ok(s) => Source(Repr::Text(Text::from(s))),
            Err(e) => Source(Repr::Bytes(Arc::new(e.into_bytes()))),
        }
    }

    /// The bytes `owner` lends (a mapped file), read in place: checking that they are
    /// UTF-8 is the only pass over them, and they are copied only when they are not.
    pub fn lent(owner: Box<dyn Lender>) -> Source {
        match Text::lent(owner) {
            Ok(t) => Source(Repr::Text(t)),
            Err(owner) => Source(Repr::Bytes(Arc::new((*owner).as_ref().to_vec()))),
        }
    }

    /// The text, when the bytes are UTF-8.
    pub fn text(&self) -> Option<&Text> {
        match &self.0 {
            Repr::Text(t) => Some(t),
            Repr::Bytes(_) => None,
        }
    }
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Text(t) => t.as_bytes(),
            Repr::Bytes(b) => b,
        }
    }
}

impl AsRef<[u8]> for Source {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_source_is_shared_not_copied() {
        let src = Source::new(b"[gd_scene format=3]\n".to_vec());
        let text = src.text().expect("UTF-8").clone();
        assert_eq!(text.as_ptr(), src.as_ptr(), "the same bytes, not a copy");
        assert_eq!(&*text, "[gd_scene format=3]\n");
    }

    #[test]
    fn bytes_that_are_not_utf8_stay_bytes() {
        let src = Source::new(vec![b'[', 0xff, b']']);
        assert!(src.text().is_none());
        assert_eq!(&*src, &[b'[', 0xff, b']']);
    }

    #[test]
    fn lent_bytes_are_read_in_place_and_copied_only_when_not_utf8() {
        let owner: Box<dyn Lender> = Box::new(b"[gd_scene format=3]\n".to_vec());
        let at = (*owner).as_ref().as_ptr();
        let src = Source::lent(owner);
        let text = src.text().expect("UTF-8").clone();
        assert_eq!(text.as_ptr(), at, "the owner's bytes, not a copy");
        assert_eq!(text.into_string(), "[gd_scene format=3]\n");
        let src = Source::lent(Box::new(vec![b'[', 0xff, b']']));
        assert!(src.text().is_none());
        assert_eq!(&*src, &[b'[', 0xff, b']']);
    }

    #[test]
    fn into_string_takes_the_text_back_when_alone_and_copies_when_shared() {
        let t = Text::from("abc".to_string());
        let ptr = t.as_ptr();
        let back = t.into_string();
        assert_eq!(back.as_ptr(), ptr);
        let t = Text::from("abc".to_string());
        let other = t.clone();
        let s = t.into_string();
        assert_eq!(s, "abc");
        assert_ne!(s.as_ptr(), other.as_ptr());
    }
}
