//! Sections and keys by name over a [`Document`]: what the engine reads from a
//! ConfigFile. The head (entries before the first `[section]`, such as
//! `config_version=5` or Godot 3's `_global_script_classes`) is the section named `""`.
//!
//! Decides key identity and value equality (engine equality through
//! [`crate::value::sem_eq_top`]; a value the scene grammar cannot type is compared by
//! its text). Layout is the syntax tree's; merging is [`super::merge`]'s.

use super::syntax::{Document, Entry, Item, ItemKind, KeyIndex};
use crate::value::{self, Value};
use std::ops::Range;

/// One section seen by name: the head (`name` empty, no header) or a `[section]`.
#[derive(Debug, Clone, Copy)]
pub struct SectionRef<'a> {
    /// The name (`""` for the head).
    pub name: &'a str,
    /// Span of the header line (`None` for the head).
    pub header: Option<&'a Range<usize>>,
    /// 1-based line of the header (1 for the head).
    pub line: usize,
    /// The items after the header.
    pub items: &'a [Item],
    /// Each key's last entry in `items`.
    pub keys: &'a KeyIndex,
}

/// The index of a section with no keys (a section one side does not have).
pub static NO_KEYS: KeyIndex = KeyIndex::new();

impl<'a> SectionRef<'a> {
    /// The entries in file order.
    pub fn entries(&self) -> impl Iterator<Item = (&'a Item, &'a Entry)> + 'a {
        self.items.iter().filter_map(|i| match &i.kind {
            ItemKind::Entry(e) => Some((i, e)),
            _ => None,
        })
    }

    /// The entry of `key` (the last one, as the engine keeps, if repeated).
    pub fn get(&self, key: &str) -> Option<(&'a Item, &'a Entry)> {
        let item = self.items.get(*self.keys.get(key)?)?;
        match &item.kind {
            ItemKind::Entry(e) => Some((item, e)),
            _ => None,
        }
    }

    /// The `.uid` line, for a `.uid` sidecar.
    pub fn uid(&self) -> Option<&'a str> {
        self.items.iter().find_map(|i| match &i.kind {
            ItemKind::Uid(u) => Some(u.as_str()),
            _ => None,
        })
    }
}

/// The sections of a document in file order, the head first.
pub fn sections(doc: &Document) -> Vec<SectionRef<'_>> {
    let mut out = vec![SectionRef {
        name: "",
        header: None,
        line: 1,
        items: &doc.head,
        keys: &doc.head_keys,
    }];
    out.extend(doc.sections.iter().map(section_ref));
    out
}

/// The section called `name` (the last, if repeated), `""` being the head.
pub fn section<'a>(doc: &'a Document, name: &str) -> Option<SectionRef<'a>> {
    match doc.section_index.get(name) {
        Some(&i) => doc.sections.get(i).map(section_ref),
        None if name.is_empty() => sections(doc).into_iter().next(),
        None => None,
    }
}

fn section_ref(s: &super::syntax::Section) -> SectionRef<'_> {
    SectionRef {
        name: &s.name,
        header: Some(&s.header),
        line: s.line,
        items: &s.items,
        keys: &s.keys,
    }
}

/// The typed value of an entry, `None` when the scene grammar cannot type it.
pub fn value_of(doc: &Document, e: &Entry) -> Option<Value> {
    value::parse(doc.slice(&e.value)).ok()
}

/// Whether two value texts mean the same to the engine.
pub fn same_value(a: &str, b: &str) -> bool {
    if a.trim() == b.trim() {
        return true;
    }
    match (value::parse(a), value::parse(b)) {
        (Ok(x), Ok(y)) => value::sem_eq_top(&x, &y),
        _ => false,
    }
}

/// Whether two sections hold the same keys with the same values (order and layout aside).
pub fn same_section(da: &Document, a: &SectionRef<'_>, db: &Document, b: &SectionRef<'_>) -> bool {
    let count = |s: &SectionRef<'_>| {
        let mut k: Vec<&str> = s.entries().map(|(_, e)| e.key.as_str()).collect();
        k.sort_unstable();
        k.dedup();
        k.len()
    };
    a.uid() == b.uid()
        && count(a) == count(b)
        && a.entries().all(|(_, e)| {
            b.get(&e.key)
                .is_some_and(|(_, f)| same_value(da.slice(&e.value), db.slice(&f.value)))
        })
}

/// Whether the names are in the byte order Godot's `ProjectSettings` saves sections in.
pub fn is_sorted<S: AsRef<str>>(names: &[S]) -> bool {
    names.windows(2).all(|w| w[0].as_ref() <= w[1].as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lookups by name go through the indexes and keep the engine's rule: the last of a
    /// repeated key or section, the head for `""`.
    #[test]
    fn lookups_find_the_last_of_a_repeated_name_and_the_head() {
        let doc = Document::parse("a=1\n[s]\nk=1\nj=2\nk=3\n[t]\nk=4\n[s]\nk=5\n").unwrap();
        let value = |s: SectionRef<'_>, k: &str| s.get(k).map(|(_, e)| doc.slice(&e.value));
        let s = section(&doc, "s").expect("[s]");
        assert_eq!((s.line, value(s, "k"), value(s, "j")), (8, Some("5"), None));
        let head = section(&doc, "").expect("the head");
        assert_eq!((head.header.is_none(), value(head, "a")), (true, Some("1")));
        let first_s = sections(&doc)[1];
        assert_eq!(
            (value(first_s, "k"), value(first_s, "j")),
            (Some("3"), Some("2"))
        );
        assert!(section(&doc, "u").is_none());
        assert_eq!(value(section(&doc, "t").unwrap(), "k"), Some("4"));
    }
}
