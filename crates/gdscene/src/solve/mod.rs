//! Solving after the fact: files that git (or any tool writing git-style markers) left
//! with conflict markers.
//!
//! [`parse_markers`] / [`find_markers`] read the blocks
//! `<<<<<<<` ours `|||||||` base `=======` theirs `>>>>>>>` out of a file; text outside
//! the blocks belongs to all three versions. [`solve_markers`] rebuilds base, ours and
//! theirs from them and merges structurally with [`crate::merge::merge`]:
//!
//! * diff3 markers (every block has a base section): the three versions are exact, and
//!   the result is what the merge driver would have written. (zdiff3 moves the lines
//!   both sides share out of each block, so the rebuilt base also holds them: the
//!   result can then show a conflict the driver would not have had.
//!   git's index stages, when available, are exact.)
//! * two-sided markers (git's default "merge" style, no base section): the base is
//!   unknown, so only the conflicted hunks can be re-merged, each as if both sides had
//!   added it. A block is re-merged only when both sides are non-empty, share the
//!   same property lines before their first section header (so a property one side
//!   deleted cannot come back), and the merge is clean and needs no knowledge of a
//!   base (no dropped, kept, matched or followed parts); every other block is kept
//!   exactly as it was. A section present on one side only is still read as an
//!   addition, although it may be the other side's deletion.
//!
//! Pure: no I/O, no panics on any input, deterministic.
//!
//! This file holds the types and the entry points; reading the markers is
//! `markers.rs`, re-merging `remerge.rs`, the trust in a re-merge `doubt.rs`.

mod doubt;
pub(crate) mod markers;
mod remerge;

pub use markers::{find_markers, parse_markers};
use remerge::{solve_diff3, solve_two_sided};

use crate::linemerge::{merge_lines, ConflictStyle, MarkerOptions};
use crate::merge::{MergeOptions, MergeOutcome};
use std::fmt;

/// Marker size git uses unless told otherwise.
pub const DEFAULT_MARKER_SIZE: usize = 7;

/// One conflict block as found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// 1-based line number of the `<<<<<<<` line.
    pub line: usize,
    /// Label after `<<<<<<<` (may be empty).
    pub ours_label: String,
    /// Label after `|||||||`, when the block has a base section.
    pub base_label: Option<String>,
    /// Label after `>>>>>>>` (may be empty).
    pub theirs_label: String,
    /// Our lines, with their line endings.
    pub ours: Vec<u8>,
    /// The base lines, when the block has a base section (diff3 style).
    pub base: Option<Vec<u8>>,
    /// Their lines, with their line endings.
    pub theirs: Vec<u8>,
    /// The whole block, markers included, byte for byte.
    pub raw: Vec<u8>,
}

/// A piece of a file with markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text outside any block: part of all three versions.
    Text(Vec<u8>),
    /// A conflict block.
    Block(Block),
}

/// A file cut into text and conflict blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The pieces, in file order; concatenating their bytes gives the file back.
    pub pieces: Vec<Piece>,
    /// The marker size the blocks were written with.
    pub marker_size: usize,
}

/// Which side of a block to take when rebuilding a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Base,
    Theirs,
}

impl Marked {
    /// The conflict blocks, in file order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Block(b) => Some(b),
            Piece::Text(_) => None,
        })
    }

    /// Number of conflict blocks.
    pub fn block_count(&self) -> usize {
        self.blocks().count()
    }

    /// True when every block has a base section (diff3 or zdiff3 style), so the three
    /// versions can be rebuilt exactly.
    pub fn has_base(&self) -> bool {
        self.blocks().all(|b| b.base.is_some())
    }

    /// The file as it was.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.extend_from_slice(t),
                Piece::Block(b) => out.extend_from_slice(&b.raw),
            }
        }
        out
    }

    /// Base, ours and theirs rebuilt from the file: text outside the blocks goes to
    /// all three, each section of a block to its version. A block without a base
    /// section contributes nothing to the base (as if both sides had added it).
    pub fn sides(&self) -> Sides {
        Sides {
            base: self.rebuild(|_| Side::Base),
            ours: self.rebuild(|_| Side::Ours),
            theirs: self.rebuild(|_| Side::Theirs),
        }
    }

    /// One version of the file, choosing a side per block (by block index).
    fn rebuild(&self, choose: impl Fn(usize) -> Side) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.extend_from_slice(t),
                Piece::Block(b) => {
                    match choose(i) {
                        Side::Ours => out.extend_from_slice(&b.ours),
                        Side::Theirs => out.extend_from_slice(&b.theirs),
                        Side::Base => out.extend_from_slice(b.base.as_deref().unwrap_or_default()),
                    }
                    i += 1;
                }
            }
        }
        out
    }

    /// Marker options for re-merging: the size found and the labels of the first block.
    fn marker_options(&self) -> MarkerOptions {
        let mut m = MarkerOptions {
            marker_size: self.marker_size,
            ..MarkerOptions::default()
        };
        if let Some(b) = self.blocks().next() {
            if !b.ours_label.is_empty() {
                m.ours = b.ours_label.clone();
            }
            if let Some(l) = b.base_label.as_ref().filter(|l| !l.is_empty()) {
                m.base = l.clone();
            }
            if !b.theirs_label.is_empty() {
                m.theirs = b.theirs_label.clone();
            }
        }
        m
    }
}

/// The three versions of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    /// Common ancestor (as far as it is known).
    pub base: Vec<u8>,
    /// Our version.
    pub ours: Vec<u8>,
    /// Their version.
    pub theirs: Vec<u8>,
}

/// Why a file's markers cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// How a file was solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From diff3 markers: the three versions were exact.
    Diff3Markers,
    /// From two-sided markers: the base was unknown; blocks were re-merged one by one
    /// as if both sides had added them, or kept.
    TwoSidedMarkers,
}

/// The result of [`solve_markers`].
#[derive(Debug, Clone)]
pub struct Solved {
    /// The merged file and what the merge decided. When blocks were kept as they were,
    /// its `conflict_count` counts them (plus any new conflicts).
    pub outcome: MergeOutcome,
    /// Where the three versions came from.
    pub source: Source,
    /// Number of conflict blocks in the input.
    pub blocks: usize,
    /// Blocks re-merged automatically (all of them when the outcome is clean).
    pub resolved_blocks: usize,
    /// The marker size found in the file.
    pub marker_size: usize,
    /// Why the whole file could not be re-merged at once, when blocks were kept for it:
    /// a reason the reconstructed versions may not be the real ones.
    pub doubt: Option<String>,
}

/// Solve a file that holds conflict markers (see the module documentation).
/// `Ok(None)` when there is nothing to solve (no conflict block of any size).
pub fn solve_markers(text: &[u8], marker_size: usize) -> Result<Option<Solved>, ParseError> {
    solve_markers_styled(text, marker_size, ConflictStyle::Diff3)
}

/// [`solve_markers`], with the conflicts left written in `style` (the user's
/// `merge.conflictStyle`); blocks kept as they were keep their own markers.
pub fn solve_markers_styled(
    text: &[u8],
    marker_size: usize,
    style: ConflictStyle,
) -> Result<Option<Solved>, ParseError> {
    let Some(marked) = find_markers(text, marker_size)? else {
        return Ok(None);
    };
    let mut markers = marked.marker_options();
    markers.style = style;
    let opts = MergeOptions {
        markers,
        ..MergeOptions::default()
    };
    let blocks = marked.block_count();
    let source = if marked.has_base() {
        Source::Diff3Markers
    } else {
        Source::TwoSidedMarkers
    };
    let (outcome, resolved_blocks, doubt) = match source {
        Source::Diff3Markers => solve_diff3(&marked, &opts),
        Source::TwoSidedMarkers => solve_two_sided(&marked, &opts),
    };
    Ok(Some(Solved {
        outcome,
        source,
        blocks,
        resolved_blocks,
        marker_size: marked.marker_size,
        doubt,
    }))
}

/// Whether `text` is exactly what git's line merge leaves for these three versions,
/// with the marker size, labels and conflict style of the markers in `text` (diff3 or
/// zdiff3 when its blocks have a base section, else git's default style). False when
/// `text` has no readable conflict block. A file git left that is not exactly this has
/// been edited since (or was written by another tool): its text is someone's work.
pub fn is_untouched_line_merge(
    text: &[u8],
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    marker_size: usize,
) -> bool {
    let Ok(Some(marked)) = find_markers(text, marker_size) else {
        return false;
    };
    let Some(first) = marked.blocks().next() else {
        return false;
    };
    let styles: &[ConflictStyle] = if marked.has_base() {
        &[ConflictStyle::Diff3, ConflictStyle::ZDiff3]
    } else {
        &[ConflictStyle::Merge]
    };
    styles.iter().any(|&style| {
        let opts = MarkerOptions {
            marker_size: marked.marker_size,
            ours: first.ours_label.clone(),
            base: first.base_label.clone().unwrap_or_default(),
            theirs: first.theirs_label.clone(),
            style,
        };
        merge_lines(base, ours, theirs, &opts).text == text
    })
}

#[cfg(test)]
mod tests;
