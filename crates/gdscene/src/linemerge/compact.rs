//! Step 2 of the line diff: sliding each group of changed lines the way xdiff's
//! `xdl_change_compact` does (without the indent heuristic, which `git merge-file` does
//! not enable).
//!
//! Decides where an ambiguous change sits (a group whose first line equals the line after
//! it can move down, and so on): as far down as it goes, unless some position lines it up
//! with a change in the other file. Which lines are changed at all is the diff's
//! ([`super::prepare`], [`super::myers`]); turning groups into changes is
//! [`super::diff`]'s.

use super::changed::Rchg;

#[derive(Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
}

fn group_init(r: &Rchg) -> Group {
    let mut g = Group { start: 0, end: 0 };
    while r.get(g.end as isize) {
        g.end += 1;
    }
    g
}

fn group_next(r: &Rchg, n: usize, g: &mut Group) -> bool {
    if g.end >= n {
        return false;
    }
    g.start = g.end + 1;
    g.end = g.start;
    while r.get(g.end as isize) {
        g.end += 1;
    }
    true
}

fn group_previous(r: &Rchg, g: &mut Group) -> bool {
    if g.start == 0 {
        return false;
    }
    g.end = g.start - 1;
    g.start = g.end;
    while r.get(g.start as isize - 1) {
        g.start -= 1;
    }
    true
}

fn group_slide_down(r: &mut Rchg, ids: &[u32], g: &mut Group) -> bool {
    if g.end < ids.len() && ids.get(g.start) == ids.get(g.end) {
        r.set(g.start, false);
        g.start += 1;
        r.set(g.end, true);
        g.end += 1;
        while r.get(g.end as isize) {
            g.end += 1;
        }
        true
    } else {
        false
    }
}

fn group_slide_up(r: &mut Rchg, ids: &[u32], g: &mut Group) -> bool {
    if g.start > 0 && g.end > 0 && ids.get(g.start - 1) == ids.get(g.end - 1) {
        g.start -= 1;
        r.set(g.start, true);
        g.end -= 1;
        r.set(g.end, false);
        while r.get(g.start as isize - 1) {
            g.start -= 1;
        }
        true
    } else {
        false
    }
}

/// xdiff's `xdl_change_compact`: slide each group of changed lines up as far as it goes,
/// then down as far as it goes, merging groups it runs into; finally, if some position
/// lines it up with a change in the other file, use the last such position.
pub(super) fn change_compact(r: &mut Rchg, ids: &[u32], ro: &Rchg) {
    let n = ids.len();
    let no = ro.lines();
    let mut g = group_init(r);
    let mut go = group_init(ro);
    loop {
        if g.end != g.start && !compact_group(r, ids, ro, &mut g, &mut go) {
            return; // out of sync with the other file: cannot happen, stay safe
        }
        if !group_next(r, n, &mut g) || !group_next(ro, no, &mut go) {
            break;
        }
    }
}

/// Slide one group `g` (with `go`, the other file's group at the same place, kept in
/// step). False if the two files' groups got out of step.
fn compact_group(r: &mut Rchg, ids: &[u32], ro: &Rchg, g: &mut Group, go: &mut Group) -> bool {
    let no = ro.lines();
    let mut earliest_end;
    let mut end_matching_other: bool;
    loop {
        let groupsize = g.end - g.start;
        end_matching_other = false;
        while group_slide_up(r, ids, g) {
            if !group_previous(ro, go) {
                return false;
            }
        }
        earliest_end = g.end;
        if go.end > go.start {
            end_matching_other = true;
        }
        while group_slide_down(r, ids, g) {
            if !group_next(ro, no, go) {
                return false;
            }
            if go.end > go.start {
                end_matching_other = true;
            }
        }
        if groupsize == g.end - g.start {
            break;
        }
    }
    if g.end != earliest_end && end_matching_other {
        // slide back up until lined up with the other file's change
        while go.end == go.start {
            if !group_slide_up(r, ids, g) || !group_previous(ro, go) {
                return false;
            }
        }
    }
    true
}
