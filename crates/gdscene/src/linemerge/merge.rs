//! Step 3 of the line merge: combining the two diffs against the base into regions, as
//! xdiff's `xdl_do_merge` does, then refining conflicts for the conflict style.
//!
//! Decides which changes are taken from one side and which conflict: changes of the two
//! sides that overlap *or touch* (end of one == start of the other, in base lines) make
//! one conflict unless both sides made exactly the same change. Then, per style: `Merge`
//! runs git's zealous refinement (rediff ours against theirs inside each conflict, keep
//! only the differing parts, join conflicts at most three lines or only non-alphanumeric
//! lines apart), `ZDiff3` trims the lines common to the start and end of both sides, and
//! `Diff3` keeps conflicts whole. Printing the regions is [`super::output`]'s.

use super::diff::{diff_files, Change};
use super::lines::Files;
use super::{ConflictStyle, DiffAlgorithm};

/// How a region is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Conflict,
    Ours,
    Theirs,
    /// Both sides changed identically (found by refinement): ours is used.
    Same,
}

/// A merge region; `i0/chg0` in base, `i1/chg1` in ours, `i2/chg2` in theirs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Region {
    pub(super) mode: Mode,
    pub(super) i0: usize,
    pub(super) chg0: usize,
    pub(super) i1: usize,
    pub(super) chg1: usize,
    pub(super) i2: usize,
    pub(super) chg2: usize,
}

/// A region's start and length in base, ours and theirs, signed as xdiff computes them.
#[derive(Clone, Copy)]
struct Span {
    i0: isize,
    c0: isize,
    i1: isize,
    c1: isize,
    i2: isize,
    c2: isize,
}

fn to_us(x: isize) -> usize {
    x.max(0) as usize
}

fn s(x: usize) -> isize {
    x as isize
}

/// Add a region, or grow the last one into a conflict when they overlap in ours or theirs.
fn append(rs: &mut Vec<Region>, mode: Mode, p: Span) {
    if let Some(m) = rs.last_mut() {
        if p.i1 <= s(m.i1 + m.chg1) || p.i2 <= s(m.i2 + m.chg2) {
            if m.mode != mode {
                m.mode = Mode::Conflict;
            }
            m.chg0 = to_us(p.i0 + p.c0 - s(m.i0));
            m.chg1 = to_us(p.i1 + p.c1 - s(m.i1));
            m.chg2 = to_us(p.i2 + p.c2 - s(m.i2));
            return;
        }
    }
    rs.push(Region {
        mode,
        i0: to_us(p.i0),
        chg0: to_us(p.c0),
        i1: to_us(p.i1),
        chg1: to_us(p.c1),
        i2: to_us(p.i2),
        chg2: to_us(p.c2),
    });
}

/// Our change `c`, theirs being at `i2` (unchanged lines there, as many as in base).
fn ours_span(c: &Change, i2: isize) -> Span {
    Span {
        i0: s(c.i1),
        c0: s(c.chg1),
        i1: s(c.i2),
        c1: s(c.chg2),
        i2,
        c2: s(c.chg1),
    }
}

/// Their change `c`, ours being at `i1`.
fn theirs_span(c: &Change, i1: isize) -> Span {
    Span {
        i0: s(c.i1),
        c0: s(c.chg1),
        i1,
        c1: s(c.chg1),
        i2: s(c.i2),
        c2: s(c.chg2),
    }
}

/// The conflict covering overlapping changes `c1` (ours) and `c2` (theirs).
fn conflict_span(c1: &Change, c2: &Change) -> Span {
    let off = s(c1.i1) - s(c2.i1);
    let ffo = off + s(c1.chg1) - s(c2.chg1);
    let (mut i0, mut i1, mut i2) = (s(c1.i1), s(c1.i2), s(c2.i2));
    if off > 0 {
        i0 -= off;
        i1 -= off;
    } else {
        i2 += off;
    }
    let mut c0 = s(c1.i1) + s(c1.chg1) - i0;
    let mut cc1 = s(c1.i2) + s(c1.chg2) - i1;
    let mut cc2 = s(c2.i2) + s(c2.chg2) - i2;
    if ffo < 0 {
        c0 -= ffo;
        cc1 -= ffo;
    } else {
        cc2 += ffo;
    }
    Span {
        i0,
        c0,
        i1,
        c1: cc1,
        i2,
        c2: cc2,
    }
}

/// Did both sides make exactly the same change?
fn same_change(f: &Files, c1: &Change, c2: &Change) -> bool {
    c1.i1 == c2.i1
        && c1.chg1 == c2.chg1
        && c1.chg2 == c2.chg2
        && (0..c1.chg2).all(|k| f.o.ids.get(c1.i2 + k) == f.t.ids.get(c2.i2 + k))
}

/// Merge our changes `x1` and their changes `x2` (both against base) into regions, then
/// refine the conflicts for `style`.
pub(super) fn do_merge(
    f: &Files,
    x1: &[Change],
    x2: &[Change],
    style: ConflictStyle,
    alg: DiffAlgorithm,
) -> Vec<Region> {
    let mut rs = combine(f, x1, x2);
    match style {
        ConflictStyle::Diff3 => {}
        ConflictStyle::ZDiff3 => trim_conflicts(f, &mut rs),
        ConflictStyle::Merge => {
            rs = refine_conflicts(f, rs, alg);
            simplify_non_conflicts(f, &mut rs);
        }
    }
    rs
}

/// xdiff's `xdl_do_merge` walk over both change lists, in base order.
fn combine(f: &Files, x1: &[Change], x2: &[Change]) -> Vec<Region> {
    let mut rs: Vec<Region> = Vec::new();
    let (mut a, mut b) = (0usize, 0usize);
    while let (Some(c1), Some(c2)) = (x1.get(a), x2.get(b)) {
        if c1.i1 + c1.chg1 < c2.i1 {
            let i2 = s(c2.i2) - s(c2.i1) + s(c1.i1);
            append(&mut rs, Mode::Ours, ours_span(c1, i2));
            a += 1;
            continue;
        }
        if c2.i1 + c2.chg1 < c1.i1 {
            let i1 = s(c1.i2) - s(c1.i1) + s(c2.i1);
            append(&mut rs, Mode::Theirs, theirs_span(c2, i1));
            b += 1;
            continue;
        }
        if !same_change(f, c1, c2) {
            append(&mut rs, Mode::Conflict, conflict_span(c1, c2));
        }
        let (e1, e2) = (c1.i1 + c1.chg1, c2.i1 + c2.chg1);
        if e1 >= e2 {
            b += 1;
        }
        if e2 >= e1 {
            a += 1;
        }
    }
    let (nb, no, nt) = (s(f.b.len()), s(f.o.len()), s(f.t.len()));
    for c1 in x1.get(a..).unwrap_or(&[]) {
        append(&mut rs, Mode::Ours, ours_span(c1, s(c1.i1) + nt - nb));
    }
    for c2 in x2.get(b..).unwrap_or(&[]) {
        append(&mut rs, Mode::Theirs, theirs_span(c2, s(c2.i1) + no - nb));
    }
    rs
}

/// zdiff3: move lines both sides share at the start and end out of conflicts.
fn trim_conflicts(f: &Files, rs: &mut [Region]) {
    for m in rs.iter_mut().filter(|m| m.mode == Mode::Conflict) {
        while m.chg1 > 0 && m.chg2 > 0 && f.o.ids.get(m.i1) == f.t.ids.get(m.i2) {
            m.chg1 -= 1;
            m.chg2 -= 1;
            m.i1 += 1;
            m.i2 += 1;
        }
        while m.chg1 > 0
            && m.chg2 > 0
            && f.o.ids.get(m.i1 + m.chg1 - 1) == f.t.ids.get(m.i2 + m.chg2 - 1)
        {
            m.chg1 -= 1;
            m.chg2 -= 1;
        }
    }
}

/// Zealous refinement: diff ours against theirs inside each conflict and keep
/// only the differing parts as conflicts.
fn refine_conflicts(f: &Files, rs: Vec<Region>, alg: DiffAlgorithm) -> Vec<Region> {
    let mut out = Vec::with_capacity(rs.len());
    for m in rs {
        if m.mode != Mode::Conflict || m.chg1 == 0 || m.chg2 == 0 {
            out.push(m);
            continue;
        }
        let a = f.o.ids.get(m.i1..m.i1 + m.chg1).unwrap_or(&[]);
        let b = f.t.ids.get(m.i2..m.i2 + m.chg2).unwrap_or(&[]);
        let script = diff_files(a, b, alg, &f.texts);
        if script.is_empty() {
            out.push(Region {
                mode: Mode::Same,
                ..m
            });
            continue;
        }
        for c in script {
            out.push(Region {
                mode: Mode::Conflict,
                i1: m.i1 + c.i1,
                chg1: c.chg1,
                i2: m.i2 + c.i2,
                chg2: c.chg2,
                ..m
            });
        }
    }
    out
}

/// Join conflicts separated by at most 3 lines, or by lines with no ASCII
/// letter or digit (git's `XDL_MERGE_ZEALOUS_ALNUM`, merge-file's default).
fn simplify_non_conflicts(f: &Files, rs: &mut Vec<Region>) {
    let mut k = 0;
    while k + 1 < rs.len() {
        let (m, next) = (rs[k], rs[k + 1]);
        let begin = m.i1 + m.chg1;
        let end = next.i1;
        let alnum = || (begin..end).any(|i| f.o.line(i).iter().any(|c| c.is_ascii_alphanumeric()));
        if m.mode != Mode::Conflict
            || next.mode != Mode::Conflict
            || (end.saturating_sub(begin) > 3 && alnum())
        {
            k += 1;
        } else {
            let m = &mut rs[k];
            m.chg0 = (next.i0 + next.chg0).saturating_sub(m.i0);
            m.chg1 = (next.i1 + next.chg1).saturating_sub(m.i1);
            m.chg2 = (next.i2 + next.chg2).saturating_sub(m.i2);
            rs.remove(k + 1);
        }
    }
}
