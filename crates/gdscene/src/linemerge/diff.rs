//! Step 1 of the line merge: the two-way line diff of base against one side, as xdiff
//! computes it for `git merge-file`.
//!
//! Decides the list of changes ([`Change`]): marks changed lines with git's algorithm
//! ([`super::prepare`] then [`super::myers`]) or one of `similar`'s, lets
//! [`super::compact`] slide the change groups, and pairs the result into changes
//! (xdiff's `xdl_build_script`). What the changes mean for the merge is [`super::merge`]'s.

use similar::{capture_diff_slices, Algorithm, DiffTag};

use super::changed::Rchg;
use super::compact::change_compact;
use super::prepare::git_myers;
use super::DiffAlgorithm;

/// A change: lines `i1..i1+chg1` of the old file became `i2..i2+chg2` of the new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Change {
    pub(super) i1: usize,
    pub(super) chg1: usize,
    pub(super) i2: usize,
    pub(super) chg2: usize,
}

/// The changes turning `a` into `b` (line ids; `texts[id]` is a line's text), compacted
/// as git does.
pub(super) fn diff_files(a: &[u32], b: &[u32], alg: DiffAlgorithm, texts: &[&[u8]]) -> Vec<Change> {
    let mut ra = Rchg::new(a.len());
    let mut rb = Rchg::new(b.len());
    match alg {
        DiffAlgorithm::Git => git_myers(a, b, &mut ra, &mut rb, texts),
        DiffAlgorithm::Similar(alg) => mark_similar(a, b, alg, &mut ra, &mut rb),
    }
    change_compact(&mut ra, a, &rb);
    change_compact(&mut rb, b, &ra);
    build_script(&ra, a.len(), &rb, b.len())
}

fn mark_similar(a: &[u32], b: &[u32], alg: Algorithm, ra: &mut Rchg, rb: &mut Rchg) {
    for op in capture_diff_slices(alg, a, b) {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        for i in old {
            ra.set(i, true);
        }
        for i in new {
            rb.set(i, true);
        }
    }
}

/// xdiff's `xdl_build_script`: pair unchanged lines from the end, collecting
/// the change blocks in between.
fn build_script(r1: &Rchg, n1: usize, r2: &Rchg, n2: usize) -> Vec<Change> {
    let mut out = Vec::new();
    let (mut i1, mut i2) = (n1 as isize, n2 as isize);
    while i1 >= 0 || i2 >= 0 {
        if r1.get(i1 - 1) || r2.get(i2 - 1) {
            let (l1, l2) = (i1, i2);
            while r1.get(i1 - 1) {
                i1 -= 1;
            }
            while r2.get(i2 - 1) {
                i2 -= 1;
            }
            out.push(Change {
                i1: i1.max(0) as usize,
                chg1: (l1 - i1).max(0) as usize,
                i2: i2.max(0) as usize,
                chg2: (l2 - i2).max(0) as usize,
            });
        }
        i1 -= 1;
        i2 -= 1;
    }
    out.reverse();
    out
}
