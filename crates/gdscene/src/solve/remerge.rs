//! Re-merging the versions rebuilt from markers: at once (diff3 markers), or block by
//! block, keeping the blocks that cannot be re-merged safely as they were.
//!
//! Decides which blocks are re-merged and puts the kept ones back into the merged text;
//! reading the markers is `markers.rs`'s, whether an outcome is trusted `doubt.rs`'s.

use super::doubt::doubt;
use super::markers::lines;
use super::{Block, Marked, Piece, Side, Sides, Source};
use crate::merge::{merge, MergeOptions, MergeOutcome, Method};

/// diff3 markers: merge the rebuilt versions at once when nothing casts doubt on them,
/// else block by block.
pub(super) fn solve_diff3(
    marked: &Marked,
    opts: &MergeOptions,
) -> (MergeOutcome, usize, Option<String>) {
    let n = marked.block_count();
    let sides = marked.sides();
    let whole = merge(&sides.base, &sides.ours, &sides.theirs, opts);
    match doubt(&whole, &sides, Source::Diff3Markers) {
        None => {
            let resolved = if whole.is_clean() { n } else { 0 };
            (whole, resolved, None)
        }
        Some(why) => {
            let (o, resolved) = blockwise(marked, opts, &vec![true; n], Source::Diff3Markers);
            (o, resolved, Some(why))
        }
    }
}

fn is_blank(b: &[u8]) -> bool {
    b.iter().all(|c| c.is_ascii_whitespace())
}

/// Whether a two-sided block may be merged as "both added" at all: both sides say
/// something, and the lines before the first section header (properties of a section
/// that started before the block) are the same set on both sides, so that no property
/// one side deleted can come back.
fn block_may_merge(b: &Block) -> bool {
    if is_blank(&b.ours) || is_blank(&b.theirs) {
        return false;
    }
    let prefix = |t: &[u8]| -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = lines(t)
            .into_iter()
            .take_while(|l| !l.starts_with(b"["))
            .filter(|l| !is_blank(l))
            .map(|l| l.trim_ascii_end().to_vec())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    prefix(&b.ours) == prefix(&b.theirs)
}

/// Merge the chosen blocks (base section, or nothing, as base), the others taking ours
/// in all three. Also gives the three versions merged.
fn merge_subset(marked: &Marked, chosen: &[bool], opts: &MergeOptions) -> (MergeOutcome, Sides) {
    let pick = |side: Side| {
        move |i: usize| {
            if chosen.get(i).copied().unwrap_or(false) {
                side
            } else {
                Side::Ours
            }
        }
    };
    let sides = Sides {
        base: marked.rebuild(pick(Side::Base)),
        ours: marked.rebuild(pick(Side::Ours)),
        theirs: marked.rebuild(pick(Side::Theirs)),
    };
    (merge(&sides.base, &sides.ours, &sides.theirs, opts), sides)
}

/// The file as it was: every block kept.
fn kept_all(marked: &Marked, reason: &str) -> (MergeOutcome, usize) {
    let n = marked.block_count();
    (
        MergeOutcome {
            text: marked.to_bytes(),
            conflict_count: n,
            conflicts: Vec::new(),
            method: Method::LineFallback(reason.to_string()),
            decisions: Vec::new(),
        },
        0,
    )
}

/// Two-sided markers: re-merge what can be re-merged safely, keep the other blocks.
pub(super) fn solve_two_sided(
    marked: &Marked,
    opts: &MergeOptions,
) -> (MergeOutcome, usize, Option<String>) {
    let all: Vec<&Block> = marked.blocks().collect();
    let n = all.len();
    let eligible: Vec<bool> = all.iter().map(|b| block_may_merge(b)).collect();
    if eligible.iter().all(|&e| e) {
        let (o, sides) = merge_subset(marked, &eligible, opts);
        match doubt(&o, &sides, Source::TwoSidedMarkers) {
            None if o.is_clean() => return (o, n, None),
            None => {}
            Some(why) => {
                let (o, count) = blockwise(marked, opts, &eligible, Source::TwoSidedMarkers);
                return (o, count, Some(why));
            }
        }
    }
    let (o, count) = blockwise(marked, opts, &eligible, Source::TwoSidedMarkers);
    (o, count, None)
}

/// Re-merge the eligible blocks that are trusted one at a time (the others as ours
/// everywhere), then all of those together; keep every other block as it was.
fn blockwise(
    marked: &Marked,
    opts: &MergeOptions,
    eligible: &[bool],
    source: Source,
) -> (MergeOutcome, usize) {
    const KEPT: &str = "the blocks that could not be re-merged safely were kept";
    let n = marked.block_count();
    let trusted = |(o, sides): &(MergeOutcome, Sides)| {
        o.is_clean()
            && !matches!(o.method, Method::LineFallback(_))
            && doubt(o, sides, source).is_none()
    };
    let safe: Vec<bool> = (0..n)
        .map(|i| {
            eligible.get(i).copied().unwrap_or(false) && {
                let only: Vec<bool> = (0..n).map(|j| j == i).collect();
                trusted(&merge_subset(marked, &only, opts))
            }
        })
        .collect();
    let count = safe.iter().filter(|&&s| s).count();
    if count == 0 {
        return kept_all(marked, KEPT);
    }
    let merged = merge_subset(marked, &safe, opts);
    if !trusted(&merged) {
        return kept_all(marked, KEPT);
    }
    let (o, sides) = merged;
    // Put the kept blocks back where their (unchanged) ours lines landed.
    match reinsert(marked, &safe, &sides.ours, &o.text) {
        Some(text) => (
            MergeOutcome {
                text,
                conflict_count: n - count,
                conflicts: Vec::new(),
                method: Method::LineFallback(KEPT.to_string()),
                decisions: o.decisions,
            },
            count,
        ),
        None => kept_all(marked, KEPT),
    }
}

/// Replace, in `merged`, the ours lines of every block not in `solved` by the block
/// itself. `filled` is the file with ours taken for every unsolved block (and ours'
/// side for the solved ones), from which line positions are known. `None` when a
/// block's lines cannot be found unchanged and in one piece.
fn reinsert(marked: &Marked, solved: &[bool], filled: &[u8], merged: &[u8]) -> Option<Vec<u8>> {
    let f_lines = lines(filled);
    let m_lines = lines(merged);
    // Map each line of `filled` to its line in `merged`, where equal.
    let mut map: Vec<Option<usize>> = vec![None; f_lines.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &f_lines, &m_lines) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    // Line ranges (in `filled`) of the unsolved blocks' ours sections.
    let mut ranges = Vec::new();
    let mut at = 0usize;
    let mut bi = 0usize;
    for p in &marked.pieces {
        match p {
            Piece::Text(t) => at += lines(t).len(),
            Piece::Block(b) => {
                let len = lines(&b.ours).len();
                if !solved.get(bi).copied().unwrap_or(false) {
                    ranges.push((at, len, b));
                }
                at += len;
                bi += 1;
            }
        }
    }
    // Ours sections must end with a newline to keep line boundaries aligned.
    let mut replace: Vec<(usize, usize, &Block)> = Vec::new();
    for (start, len, b) in ranges {
        if len == 0 || !b.ours.ends_with(b"\n") {
            return None;
        }
        let m0 = map.get(start).copied().flatten()?;
        for k in 0..len {
            if map.get(start + k).copied().flatten() != Some(m0 + k) {
                return None;
            }
        }
        replace.push((m0, len, b));
    }
    let mut out = Vec::new();
    let mut i = 0usize;
    for (m0, len, b) in replace {
        if m0 < i {
            return None;
        }
        for l in &m_lines[i..m0] {
            out.extend_from_slice(l);
        }
        out.extend_from_slice(&b.raw);
        i = m0 + len;
    }
    for l in m_lines.get(i..).unwrap_or_default() {
        out.extend_from_slice(l);
    }
    Some(out)
}
