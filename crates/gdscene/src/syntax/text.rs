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
#[derive(Clone, Default)]
pub struct Text(Arc<String>);

impl Text {
    /// The text as a `str`.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The text as an owned `String`: no copy when nothing else shares it (a merged
    /// result validated and handed back), else a copy.
    pub fn into_string(self) -> String {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| String::clone(&shared))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Arc::new(s))
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
