//! Step 4 of the line merge: printing regions as git does (xdiff's
//! `xdl_fill_merge_buffer`), or handing them out as [`Hunk`]s.
//!
//! Decides the bytes of the result: conflict markers, labels, marker size, the base
//! section in diff3/zdiff3, CRLF markers when the surrounding lines end in CRLF, and the
//! newline added after a side whose last line has none. Which regions conflict is
//! [`super::merge`]'s.

use super::lines::{Files, Lines};
use super::merge::{Mode, Region};
use super::{ConflictStyle, Hunk, LineMerge, MarkerOptions};

/// Print one conflict block with markers, as git does: `<<<<<<< ours`, our
/// lines, (`||||||| base`, base lines, for diff3/zdiff3), `=======`, their
/// lines, `>>>>>>> theirs`. A side whose last line has no newline gets one.
/// Markers end in CRLF if the sides' lines do (judged from their first line,
/// falling back to the base's).
pub fn write_conflict(
    out: &mut Vec<u8>,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MarkerOptions,
) {
    let mut needs_cr = eol_crlf_first(ours);
    if needs_cr != 0 {
        needs_cr = eol_crlf_first(theirs);
    }
    if needs_cr != 0 {
        needs_cr = eol_crlf_first(base);
    }
    write_conflict_cr(out, base, ours, theirs, opts, needs_cr > 0);
}

/// -1: cannot tell, 0: LF, 1: CRLF, from the first line of `s`.
fn eol_crlf_first(s: &[u8]) -> i8 {
    match s.iter().position(|&c| c == b'\n') {
        Some(p) => i8::from(p > 0 && s[p - 1] == b'\r'),
        None => -1,
    }
}

fn write_marker(out: &mut Vec<u8>, ch: u8, size: usize, label: Option<&str>, cr: bool) {
    out.extend(std::iter::repeat_n(ch, size));
    if let Some(l) = label {
        out.push(b' ');
        out.extend_from_slice(l.as_bytes());
    }
    if cr {
        out.push(b'\r');
    }
    out.push(b'\n');
}

fn copy_nl(out: &mut Vec<u8>, s: &[u8], cr: bool) {
    out.extend_from_slice(s);
    if !s.is_empty() && s.last() != Some(&b'\n') {
        if cr {
            out.push(b'\r');
        }
        out.push(b'\n');
    }
}

fn write_conflict_cr(
    out: &mut Vec<u8>,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MarkerOptions,
    cr: bool,
) {
    let size = if opts.marker_size == 0 {
        7
    } else {
        opts.marker_size
    };
    write_marker(out, b'<', size, Some(&opts.ours), cr);
    copy_nl(out, ours, cr);
    if opts.style != ConflictStyle::Merge {
        write_marker(out, b'|', size, Some(&opts.base), cr);
        copy_nl(out, base, cr);
    }
    write_marker(out, b'=', size, None, cr);
    copy_nl(out, theirs, cr);
    write_marker(out, b'>', size, Some(&opts.theirs), cr);
}

/// -1 undecided, 0 LF, 1 CRLF: end-of-line style of line `i` of a file.
fn is_eol_crlf(l: &Lines, i: usize) -> i8 {
    let n = l.len();
    let crlf = |s: &[u8]| i8::from(s.len() > 1 && s[s.len() - 2] == b'\r');
    if n == 0 {
        return -1;
    }
    if i + 1 < n {
        return crlf(l.line(i));
    }
    let last = l.line(i);
    if last.last() == Some(&b'\n') {
        return crlf(last);
    }
    if i == 0 {
        return -1;
    }
    crlf(l.line(i - 1))
}

fn is_cr_needed(f: &Files, m: &Region) -> bool {
    let mut needs = is_eol_crlf(&f.o, m.i1.saturating_sub(1));
    if needs != 0 {
        needs = is_eol_crlf(&f.t, m.i2.saturating_sub(1));
    }
    if needs != 0 {
        needs = is_eol_crlf(&f.b, 0);
    }
    needs > 0
}

/// Print the merged text, conflicts with markers.
pub(super) fn render(f: &Files, rs: &[Region], opts: &MarkerOptions) -> LineMerge {
    let mut out = Vec::with_capacity(f.o.buf.len() + f.t.buf.len() / 4);
    let mut conflicts = 0;
    let mut i = 0usize;
    for m in rs {
        match m.mode {
            Mode::Conflict => {
                conflicts += 1;
                out.extend_from_slice(f.o.slice(i, m.i1));
                let cr = is_cr_needed(f, m);
                write_conflict_cr(
                    &mut out,
                    f.b.slice(m.i0, m.i0 + m.chg0),
                    f.o.slice(m.i1, m.i1 + m.chg1),
                    f.t.slice(m.i2, m.i2 + m.chg2),
                    opts,
                    cr,
                );
            }
            Mode::Ours => {
                out.extend_from_slice(f.o.slice(i, m.i1 + m.chg1));
            }
            Mode::Theirs => {
                out.extend_from_slice(f.o.slice(i, m.i1));
                out.extend_from_slice(f.t.slice(m.i2, m.i2 + m.chg2));
            }
            Mode::Same => continue,
        }
        i = m.i1 + m.chg1;
    }
    out.extend_from_slice(f.o.slice(i, f.o.len()));
    LineMerge {
        text: out,
        conflicts,
    }
}

/// The regions as hunks: stable text, clean changes and conflicts, in order.
pub(super) fn hunks<'a>(f: &Files<'a>, regions: &[Region]) -> Vec<Hunk<'a>> {
    let mut out = Vec::new();
    let mut i = 0usize;
    let push_stable = |out: &mut Vec<Hunk<'a>>, s: &'a [u8]| {
        if !s.is_empty() {
            out.push(Hunk::Stable(s));
        }
    };
    for m in regions {
        match m.mode {
            Mode::Conflict => {
                push_stable(&mut out, f.o.slice(i, m.i1));
                out.push(Hunk::Conflict {
                    base: f.b.slice(m.i0, m.i0 + m.chg0),
                    ours: f.o.slice(m.i1, m.i1 + m.chg1),
                    theirs: f.t.slice(m.i2, m.i2 + m.chg2),
                });
            }
            Mode::Ours => {
                push_stable(&mut out, f.o.slice(i, m.i1));
                let s = f.o.slice(m.i1, m.i1 + m.chg1);
                if !s.is_empty() {
                    out.push(Hunk::Clean(s));
                }
            }
            Mode::Theirs => {
                push_stable(&mut out, f.o.slice(i, m.i1));
                let s = f.t.slice(m.i2, m.i2 + m.chg2);
                if !s.is_empty() {
                    out.push(Hunk::Clean(s));
                }
            }
            Mode::Same => continue,
        }
        i = m.i1 + m.chg1;
    }
    push_stable(&mut out, f.o.slice(i, f.o.len()));
    out
}
