//! The room a document's tree leaves when it is dropped, handed to the next reading.
//!
//! A merge of big scenes drops theirs' and base's trees before it reads the merged text
//! to validate it, so that the peak stays low. Dropped, their lists go back to the
//! system (big blocks are mapped apart, `src/main.rs`), and the validating reading asks
//! for as much again, each page a fault of its own: about 6,000 of them for a 20 MB
//! node-heavy scene. A [`Spare`] keeps the emptied lists instead (sections, fields,
//! properties), and the next reading fills them ([`super::Document::from_text_like_in`]).
//! The tree read is the same either way; only where its lists live changes. Which
//! document gives its room, and when, is the caller's.

use super::{Document, Field, Items, Prop, Section};
use std::sync::Arc;

/// Emptied lists of a dropped document, with their room (see the module docs).
#[derive(Default)]
pub struct Spare {
    /// An empty sections list, with the room of the dropped tree's.
    pub(super) sections: Vec<Section>,
    /// An empty list of tag fields, with the room of the dropped tree's largest.
    pub(super) fields: Vec<Field>,
    /// An empty list of property lines, with the room of the dropped tree's largest.
    pub(super) props: Vec<Prop>,
}

impl Document {
    /// Give up this document's sections (it keeps its text and prefix), and keep the
    /// room of its lists for another reading. A list still shared elsewhere (a clone of
    /// the document) is left to it; a document read on two threads has a list per half,
    /// and the larger is kept.
    pub fn take_spare(&mut self) -> Spare {
        let mut sections = std::mem::take(&mut self.sections);
        let fields = lists(&sections, |s| &s.tag.fields);
        let props = lists(&sections, |s| &s.props);
        sections.clear();
        Spare {
            sections,
            fields: largest(fields),
            props: largest(props),
        }
    }
}

/// The distinct lists the sections' items are runs of, in order.
fn lists<T>(sections: &[Section], items: impl Fn(&Section) -> &Items<T>) -> Vec<Arc<Vec<T>>> {
    let mut found: Vec<Arc<Vec<T>>> = Vec::new();
    for list in sections.iter().filter_map(|s| items(s).list()) {
        if !found.iter().any(|f| Arc::ptr_eq(f, list)) {
            found.push(Arc::clone(list));
        }
    }
    found
}

/// The list with the most room of those no one else holds, emptied (once the sections
/// are gone, ours are the only holders).
fn largest<T>(lists: Vec<Arc<Vec<T>>>) -> Vec<T> {
    let mut best: Vec<T> = Vec::new();
    for list in lists {
        if let Ok(mut v) = Arc::try_unwrap(list) {
            if v.capacity() > best.capacity() {
                v.clear();
                best = v;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node2D\"]\nposition = Vector2(1, 2)\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\nvisible = false\n";

    #[test]
    fn a_dropped_trees_room_reads_the_next_text_as_fresh_lists_do() {
        let mut old = Document::from_text(SCENE.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let spare = old.take_spare();
        assert!(old.sections.is_empty());
        assert!(spare.props.is_empty() && spare.props.capacity() >= 2);
        assert!(spare.fields.capacity() >= 5 && spare.sections.capacity() >= 3);
        let text = SCENE.replace("visible = false", "visible = true\nz_index = 2");
        let like = Document::from_text(SCENE.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let fresh = Document::from_text_like(text.clone(), &like);
        let reused = Document::from_text_like_in(text, &like, spare);
        assert_eq!(format!("{fresh:?}"), format!("{reused:?}"));
    }

    #[test]
    fn a_list_still_shared_is_left_to_its_holder() {
        let mut doc = Document::from_text(SCENE.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let held = doc.clone();
        let spare = doc.take_spare();
        assert_eq!(spare.props.capacity(), 0);
        assert_eq!(held.sections[1].props.len(), 1);
    }
}
