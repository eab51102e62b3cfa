//! A section's fields or properties, kept as a run of one list that the whole document
//! shares, instead of a list of their own.
//!
//! A scene of 100,000 nodes had 200,000 small lists per side (a tag's fields, a
//! section's properties): each a heap allocation with its own header, freed one by one.
//! [`Items`] is 16 bytes, reads as a slice (`items.iter()`, `items[0]`, `items.len()`),
//! and costs no allocation. Which items a section has is left to the splitter.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Some items of a list shared by every section of one document (see the module docs).
pub struct Items<T> {
    /// `None` while the list is still being read (see [`Items::pending`]).
    all: Option<Arc<Vec<T>>>,
    start: u32,
    len: u32,
}

impl<T> Items<T> {
    /// Items `start..start + len` of `all` (a run outside the list reads as nothing).
    #[cfg(test)]
    pub(super) fn of(all: &Arc<Vec<T>>, start: usize, len: usize) -> Items<T> {
        let mut items = Items::pending(start, len);
        items.moved_to(all);
        items
    }

    /// Items `start..start + len` of a list still being read: they read as nothing
    /// until [`Items::moved_to`] the complete list. No reference count is touched
    /// (the splitter makes two of these per section).
    pub(super) fn pending(start: usize, len: usize) -> Items<T> {
        let (start, len) = match (u32::try_from(start), u32::try_from(len)) {
            (Ok(s), Ok(l)) => (s, l),
            _ => (0, 0),
        };
        Items {
            all: None,
            start,
            len,
        }
    }

    /// The shared list these items are a run of (`None` while it is being read).
    pub(super) fn list(&self) -> Option<&Arc<Vec<T>>> {
        self.all.as_ref()
    }

    /// The same run, in another list (the splitter's list once it is complete).
    pub(super) fn moved_to(&mut self, all: &Arc<Vec<T>>) {
        self.all = Some(Arc::clone(all));
    }
}

impl<T> Deref for Items<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        let start = self.start as usize;
        self.all
            .as_deref()
            .and_then(|all| all.get(start..start + self.len as usize))
            .unwrap_or_default()
    }
}

impl<T> Clone for Items<T> {
    fn clone(&self) -> Self {
        Items {
            all: self.all.clone(),
            start: self.start,
            len: self.len,
        }
    }
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items {
            all: None,
            start: 0,
            len: 0,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq> PartialEq for Items<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<'a, T> IntoIterator for &'a Items<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_its_run_of_the_shared_list() {
        let all = Arc::new(vec![1, 2, 3, 4, 5]);
        let mid = Items::of(&all, 1, 3);
        assert_eq!(&*mid, &[2, 3, 4]);
        assert_eq!(mid.iter().rev().copied().collect::<Vec<_>>(), [4, 3, 2]);
        assert_eq!(format!("{mid:?}"), "[2, 3, 4]");
        assert_eq!(mid, Items::of(&Arc::new(vec![2, 3, 4]), 0, 3));
        assert!(Items::of(&all, 5, 0).is_empty());
        // A run outside the list reads as nothing instead of failing.
        assert!(Items::of(&all, 4, 2).is_empty());
        assert!(Items::of(&all, usize::MAX, 2).is_empty());
    }

    #[test]
    fn a_pending_run_reads_as_nothing_until_moved() {
        let mut it: Items<i32> = Items::pending(1, 2);
        assert!(it.is_empty());
        it.moved_to(&Arc::new(vec![7, 8, 9]));
        assert_eq!(&*it, &[8, 9]);
        assert_eq!(std::mem::size_of::<Items<i32>>(), 16);
    }

    #[test]
    fn moving_keeps_the_run() {
        let scratch = Arc::new(vec![0; 4]);
        let mut it = Items::of(&scratch, 2, 2);
        assert_eq!(&*it, &[0, 0]);
        it.moved_to(&Arc::new(vec![7, 8, 9, 10]));
        assert_eq!(&*it, &[9, 10]);
    }
}
