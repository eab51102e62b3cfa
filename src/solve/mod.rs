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

use crate::linemerge::{merge_lines, ConflictStyle, MarkerOptions};
use crate::merge::{merge, Decision, MergeOptions, MergeOutcome, Method};
use crate::model::{Node, Scene};
use std::collections::{BTreeMap, BTreeSet};
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

/// Split into lines, each keeping its terminator (`\n`, so `\r\n` stays whole).
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in text.iter().enumerate() {
        if c == b'\n' {
            out.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// If `line` is a marker made of exactly `size` copies of `ch` followed by whitespace
/// or the end of the line, its label (trimmed, lossy UTF-8).
fn marker(line: &[u8], ch: u8, size: usize) -> Option<String> {
    if size == 0 || line.len() < size || !line[..size].iter().all(|&c| c == ch) {
        return None;
    }
    let rest = &line[size..];
    match rest.first() {
        None => Some(String::new()),
        Some(b' ' | b'\t' | b'\r' | b'\n') => {
            Some(String::from_utf8_lossy(rest).trim().to_string())
        }
        Some(_) => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// Cut `text` into text and conflict blocks written with markers of `marker_size`
/// (0 means 7, as in git). Marker-like lines of another size are plain lines, and so
/// are `|||||||`, `=======` and `>>>>>>>` lines outside any block. A file without
/// blocks gives a single text piece (or none when empty).
///
/// Errors: a block that never ends, or a marker out of order inside a block.
pub fn parse_markers(text: &[u8], marker_size: usize) -> Result<Marked, ParseError> {
    let size = if marker_size == 0 {
        DEFAULT_MARKER_SIZE
    } else {
        marker_size
    };
    let mut reader = Reader {
        size,
        state: State::Outside,
        pieces: Vec::new(),
        outside: Vec::new(),
        cur: Block::opened(0, String::new(), &[]),
    };
    for (i, line) in lines(text).into_iter().enumerate() {
        reader.line(i + 1, line)?;
    }
    reader.finish()
}

impl Block {
    /// A block whose `<<<<<<<` line (number `line`, label `label`) was just read.
    fn opened(line: usize, label: String, raw: &[u8]) -> Block {
        Block {
            line,
            ours_label: label,
            base_label: None,
            theirs_label: String::new(),
            ours: Vec::new(),
            base: None,
            theirs: Vec::new(),
            raw: raw.to_vec(),
        }
    }
}

/// The four markers a line may be, by their labels.
struct Markers {
    start: Option<String>,
    mid: Option<String>,
    sep: Option<String>,
    end: Option<String>,
}

/// [`parse_markers`] line by line: the pieces so far, the text since the last block,
/// and the block being read.
struct Reader {
    size: usize,
    state: State,
    pieces: Vec<Piece>,
    outside: Vec<u8>,
    cur: Block,
}

impl Reader {
    /// Read line `n`.
    fn line(&mut self, n: usize, line: &[u8]) -> Result<(), ParseError> {
        let size = self.size;
        let m = Markers {
            start: marker(line, b'<', size),
            mid: marker(line, b'|', size),
            sep: marker(line, b'=', size),
            end: marker(line, b'>', size),
        };
        if self.state == State::Outside {
            self.outside_line(n, line, m.start);
            return Ok(());
        }
        if m.start.is_some() {
            return self.err(
                n,
                "a new conflict block starts inside the block opened on line {line}",
            );
        }
        self.cur.raw.extend_from_slice(line);
        match self.state {
            State::Ours => self.ours_line(n, line, m),
            State::Base => self.base_line(n, line, m),
            State::Theirs => self.theirs_line(n, line, m),
            State::Outside => Ok(()),
        }
    }

    /// A line outside any block: text, or the `<<<<<<<` opening one.
    fn outside_line(&mut self, n: usize, line: &[u8], start: Option<String>) {
        let Some(label) = start else {
            self.outside.extend_from_slice(line);
            return;
        };
        if !self.outside.is_empty() {
            self.pieces
                .push(Piece::Text(std::mem::take(&mut self.outside)));
        }
        self.cur = Block::opened(n, label, line);
        self.state = State::Ours;
    }

    /// A line of ours' section: a line of ours, `|||||||` or `=======`.
    fn ours_line(&mut self, n: usize, line: &[u8], m: Markers) -> Result<(), ParseError> {
        if let Some(label) = m.mid {
            self.cur.base_label = Some(label);
            self.cur.base = Some(Vec::new());
            self.state = State::Base;
        } else if m.sep.is_some() {
            self.state = State::Theirs;
        } else if m.end.is_some() {
            return self.err(
                n,
                "the block opened on line {line} ends before its separator",
            );
        } else {
            self.cur.ours.extend_from_slice(line);
        }
        Ok(())
    }

    /// A line of the base section: a line of base or `=======`.
    fn base_line(&mut self, n: usize, line: &[u8], m: Markers) -> Result<(), ParseError> {
        if m.sep.is_some() {
            self.state = State::Theirs;
        } else if m.mid.is_some() {
            return self.err(
                n,
                "a second base section in the block opened on line {line}",
            );
        } else if m.end.is_some() {
            return self.err(
                n,
                "the block opened on line {line} ends before its separator",
            );
        } else if let Some(b) = self.cur.base.as_mut() {
            b.extend_from_slice(line);
        }
        Ok(())
    }

    /// A line of theirs' section: a line of theirs or the `>>>>>>>` closing the block.
    fn theirs_line(&mut self, n: usize, line: &[u8], m: Markers) -> Result<(), ParseError> {
        if let Some(label) = m.end {
            let mut done = std::mem::replace(&mut self.cur, Block::opened(0, String::new(), &[]));
            done.theirs_label = label;
            self.pieces.push(Piece::Block(done));
            self.state = State::Outside;
        } else if m.mid.is_some() || m.sep.is_some() {
            return self.err(
                n,
                "a marker out of order in the block opened on line {line}",
            );
        } else {
            self.cur.theirs.extend_from_slice(line);
        }
        Ok(())
    }

    /// An error at line `n`: `what`, with `{line}` the line the block was opened on.
    fn err(&self, n: usize, what: &str) -> Result<(), ParseError> {
        Err(ParseError {
            line: n,
            message: what.replace("{line}", &self.cur.line.to_string()),
        })
    }

    /// The pieces, once every line is read.
    fn finish(mut self) -> Result<Marked, ParseError> {
        if self.state != State::Outside {
            return Err(ParseError {
                line: self.cur.line,
                message: "the conflict block opened here never ends".to_string(),
            });
        }
        if !self.outside.is_empty() {
            self.pieces.push(Piece::Text(self.outside));
        }
        Ok(Marked {
            pieces: self.pieces,
            marker_size: self.size,
        })
    }
}

/// Find the conflict blocks of a file: first with markers of `preferred_size`, then,
/// if there are none, with the size of any other `<<<<<<<`-like line (7 or more `<`
/// followed by a space or the end of the line) whose markers parse consistently.
/// `Ok(None)` when the file has no conflict block.
pub fn find_markers(text: &[u8], preferred_size: usize) -> Result<Option<Marked>, ParseError> {
    let first = parse_markers(text, preferred_size);
    match &first {
        Ok(m) if m.block_count() > 0 => return first.map(Some),
        _ => {}
    }
    let mut sizes: Vec<usize> = Vec::new();
    for line in lines(text) {
        let run = line.iter().take_while(|&&c| c == b'<').count();
        if run >= DEFAULT_MARKER_SIZE && marker(line, b'<', run).is_some() && !sizes.contains(&run)
        {
            sizes.push(run);
        }
    }
    for size in sizes {
        if size == first.as_ref().map_or(0, |m| m.marker_size) {
            continue;
        }
        if let Ok(m) = parse_markers(text, size) {
            if m.block_count() > 0 {
                return Ok(Some(m));
            }
        }
    }
    first.map(|_| None)
}

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

/// diff3 markers: merge the rebuilt versions at once when nothing casts doubt on them,
/// else block by block.
fn solve_diff3(marked: &Marked, opts: &MergeOptions) -> (MergeOutcome, usize, Option<String>) {
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

/// Decisions that rest on the whole of each version (parts outside the blocks, where
/// the rebuilt versions are not the real ones): a merge making one of them is not
/// trusted.
fn needs_base(d: &Decision) -> bool {
    matches!(
        d,
        Decision::UnusedResourceDropped { .. }
            | Decision::DeletedResourceKept { .. }
            | Decision::NodeRenameFollowed { .. }
            | Decision::NodeMoveFollowed { .. }
            | Decision::ResourceMatched { .. }
            | Decision::ValueMergedInside { .. }
            | Decision::FellBack { .. }
    )
}

/// Why a merge of versions rebuilt from markers may differ from the merge of the real
/// versions, if it may. Text outside the blocks went to all three versions, so a
/// side's clean change (a renumbering, a deletion, one half of a move) looks like the
/// base's: decisions that compare whole versions, and nodes whose history the blocks
/// do not show, are doubtful.
fn doubt(o: &MergeOutcome, sides: &Sides, source: Source) -> Option<String> {
    if let Some(d) = o.decisions.iter().find(|d| needs_base(d)) {
        return Some(format!(
            "the merge would rest on text outside the blocks ({d})"
        ));
    }
    let (Ok(b), Ok(ours), Ok(theirs)) = (
        Scene::parse(&sides.base),
        Scene::parse(&sides.ours),
        Scene::parse(&sides.theirs),
    ) else {
        return None;
    };
    both_added_differently(&b, &ours, &theirs).or_else(|| {
        (source == Source::TwoSidedMarkers)
            .then(|| maybe_moved(&b, &ours, &theirs))
            .flatten()
    })
}

/// The trimmed text of a node's section.
fn section_text<'a>(s: &'a Scene, n: &Node) -> &'a str {
    s.doc
        .sections
        .get(n.section)
        .map_or("", |sec| s.doc.slice(&sec.span).trim())
}

/// A node both sides have and the base lacks, written differently: a real "both
/// added", or one side's move (or a side that already had the node twice) whose other
/// half is outside the blocks.
fn both_added_differently(b: &Scene, ours: &Scene, theirs: &Scene) -> Option<String> {
    let in_base: BTreeSet<&str> = b.nodes.iter().map(|n| n.path.as_str()).collect();
    let in_theirs: BTreeMap<&str, &Node> =
        theirs.nodes.iter().map(|n| (n.path.as_str(), n)).collect();
    ours.nodes
        .iter()
        .filter(|n| !in_base.contains(n.path.as_str()))
        .find(|n| {
            in_theirs
                .get(n.path.as_str())
                .is_some_and(|t| section_text(ours, n) != section_text(theirs, t))
        })
        .map(|n| {
            format!(
                "both sides have node \"{}\", which the base lacks, written differently (one side may have moved it, or already had it twice)",
                n.path
            )
        })
}

/// A node only one side has, absent from the base, while the base has a node of that
/// name and type elsewhere: with two-sided markers it may be one half of a move (the
/// other half taken by git outside the blocks), and re-adding it would leave the same
/// node at two paths.
fn maybe_moved(b: &Scene, ours: &Scene, theirs: &Scene) -> Option<String> {
    let paths =
        |s: &Scene| -> BTreeSet<String> { s.nodes.iter().map(|n| n.path.to_string()).collect() };
    let (in_base, in_ours, in_theirs) = (paths(b), paths(ours), paths(theirs));
    let named: BTreeSet<(&str, Option<&str>)> = b
        .nodes
        .iter()
        .map(|n| (n.name.as_str(), n.type_name.as_deref()))
        .collect();
    let one_sided = |s: &Scene, other: &BTreeSet<String>| -> Option<String> {
        s.nodes
            .iter()
            .find(|n| {
                !in_base.contains(n.path.as_str())
                    && !other.contains(n.path.as_str())
                    && named.contains(&(n.name.as_str(), n.type_name.as_deref()))
            })
            .map(|n| n.path.to_string())
    };
    one_sided(ours, &in_theirs)
        .or_else(|| one_sided(theirs, &in_ours))
        .map(|p| {
            format!(
                "node \"{p}\" is in one side of a block only, and a node of that name and type is elsewhere in the file: it may have been moved, and keeping both would leave it at two paths"
            )
        })
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
fn solve_two_sided(marked: &Marked, opts: &MergeOptions) -> (MergeOutcome, usize, Option<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Marked, ParseError> {
        parse_markers(s.as_bytes(), 7)
    }

    #[test]
    fn no_markers_is_one_text_piece() {
        let m = parse("a\nb\n").unwrap();
        assert_eq!(m.pieces, vec![Piece::Text(b"a\nb\n".to_vec())]);
        assert_eq!(m.block_count(), 0);
        assert!(parse_markers(b"", 7).unwrap().pieces.is_empty());
        assert!(find_markers(b"a\n", 7).unwrap().is_none());
        assert!(solve_markers(b"x = 1\n", 7).unwrap().is_none());
    }

    #[test]
    fn diff3_block_and_sides() {
        let text = "top\n<<<<<<< HEAD\no1\no2\n||||||| base\nb\n=======\nt\n>>>>>>> feature\nend\n";
        let m = parse(text).unwrap();
        assert_eq!(m.block_count(), 1);
        assert!(m.has_base());
        let b = m.blocks().next().unwrap();
        assert_eq!(
            (b.line, b.ours_label.as_str(), b.theirs_label.as_str()),
            (2, "HEAD", "feature")
        );
        assert_eq!(b.base_label.as_deref(), Some("base"));
        assert_eq!(m.to_bytes(), text.as_bytes());
        let s = m.sides();
        assert_eq!(s.ours, b"top\no1\no2\nend\n");
        assert_eq!(s.base, b"top\nb\nend\n");
        assert_eq!(s.theirs, b"top\nt\nend\n");
    }

    #[test]
    fn two_sided_block_has_no_base() {
        let m = parse("<<<<<<< a\no\n=======\nt\n>>>>>>> b\n").unwrap();
        assert!(!m.has_base());
        assert_eq!(m.sides().base, b"");
    }

    #[test]
    fn marker_like_text_is_just_lines() {
        // Inside strings, not at the start, or of another size: plain lines.
        let text = "text = \"<<<<<<< not a marker\"\n  <<<<<<< indented\n<<<<<<<< eight\n=======\n>>>>>>> stray\n|||||||\n<<<<<<<x\n";
        let m = parse(text).unwrap();
        assert_eq!(m.block_count(), 0);
        assert_eq!(m.to_bytes(), text.as_bytes());
        // Inside a block, such lines belong to the side.
        let text = "<<<<<<< o\ns = \"\n<<<<<<<<\n=======x\n\"\n=======\nt\n>>>>>>> t\n";
        let m = parse(text).unwrap();
        assert_eq!(
            m.blocks().next().unwrap().ours,
            b"s = \"\n<<<<<<<<\n=======x\n\"\n"
        );
    }

    #[test]
    fn crlf() {
        let text = "a\r\n<<<<<<< ours\r\no\r\n||||||| base\r\nb\r\n=======\r\nt\r\n>>>>>>> theirs\r\nz\r\n";
        let m = parse(text).unwrap();
        let b = m.blocks().next().unwrap();
        assert_eq!(b.ours_label, "ours");
        assert_eq!(b.theirs_label, "theirs");
        assert_eq!(b.ours, b"o\r\n");
        assert_eq!(b.base.as_deref(), Some(&b"b\r\n"[..]));
        assert_eq!(m.sides().theirs, b"a\r\nt\r\nz\r\n");
        assert_eq!(m.to_bytes(), text.as_bytes());
    }

    #[test]
    fn missing_final_newline() {
        let text = "<<<<<<< o\nx\n=======\ny\n>>>>>>> t";
        let m = parse(text).unwrap();
        assert_eq!(m.blocks().next().unwrap().theirs_label, "t");
        assert_eq!(m.to_bytes(), text.as_bytes());
        let m = parse("a\n<<<<<<< o\nx\n=======\ny\n>>>>>>> t\nlast").unwrap();
        assert_eq!(m.sides().ours, b"a\nx\nlast");
        // Bare markers without labels.
        let m = parse("<<<<<<<\nx\n=======\ny\n>>>>>>>").unwrap();
        assert_eq!(m.block_count(), 1);
    }

    #[test]
    fn errors() {
        let e = parse("a\n<<<<<<< o\nx\n=======\ny\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("never ends"), "{e}");
        assert!(parse("<<<<<<< o\nx\n").is_err());
        assert_eq!(parse("<<<<<<< o\n<<<<<<< p\n").unwrap_err().line, 2);
        assert_eq!(parse("<<<<<<< o\nx\n>>>>>>> t\n").unwrap_err().line, 3);
        assert!(parse("<<<<<<< o\n||||||| b\n||||||| b\n=======\n>>>>>>> t\n").is_err());
        assert!(parse("<<<<<<< o\n=======\n=======\n>>>>>>> t\n").is_err());
        assert!(solve_markers(b"<<<<<<< o\nx\n", 7).is_err());
    }

    #[test]
    fn marker_sizes() {
        let ten = "<<<<<<<<<< o\nx\n||||||||||\nb\n==========\ny\n>>>>>>>>>> t\n";
        assert_eq!(parse_markers(ten.as_bytes(), 10).unwrap().block_count(), 1);
        // With size 7 these lines are not markers...
        assert_eq!(parse(ten).unwrap().block_count(), 0);
        // ...but the size is detected.
        let m = find_markers(ten.as_bytes(), 7).unwrap().unwrap();
        assert_eq!((m.marker_size, m.block_count()), (10, 1));
        // Size 0 means 7; short sizes are never guessed.
        assert_eq!(
            parse_markers(b"<<<<<<< o\n=======\n>>>>>>> t\n", 0)
                .unwrap()
                .block_count(),
            1
        );
        assert!(find_markers(b"<<< o\n===\n>>> t\n", 7).unwrap().is_none());
        // An inconsistent size is not taken.
        assert!(find_markers(b"<<<<<<<<< o\nx\n", 7).unwrap().is_none());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "",
            "\n",
            "<",
            "<<<<<<<",
            "<<<<<<<\r",
            "=======\n>>>>>>>",
            "<<<<<<< \n=======\n>>>>>>>",
            "\u{0}\u{ff}",
        ] {
            let _ = solve_markers(s.as_bytes(), 7);
            let _ = solve_markers(s.as_bytes(), 0);
            let _ = solve_markers(s.as_bytes(), usize::MAX);
        }
    }

    const BASE: &str = r#"[gd_scene format=3 uid="uid://c1"]

[node name="Root" type="Node2D"]

[node name="Player" type="CharacterBody2D" parent="."]
speed = 100
"#;

    #[test]
    fn diff3_markers_merge_like_the_driver() {
        let ours = format!("{BASE}jump = 5\n");
        let theirs = format!("{BASE}gravity = 9\n");
        let lm = crate::linemerge::merge_lines(
            BASE.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MarkerOptions::default(),
        );
        assert_eq!(lm.conflicts, 1);
        let s = solve_markers(&lm.text, 7).unwrap().unwrap();
        assert_eq!(s.source, Source::Diff3Markers);
        let direct = merge(
            BASE.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MergeOptions::default(),
        );
        assert!(direct.is_clean());
        assert_eq!(s.outcome.text, direct.text);
        assert_eq!((s.blocks, s.resolved_blocks), (1, 1));
    }

    #[test]
    fn two_sided_both_added_and_kept() {
        // Block 1: both added a different node at the end: merged.
        let text = format!(
            "{BASE}<<<<<<< HEAD\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n=======\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n>>>>>>> other\n"
        );
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(s.source, Source::TwoSidedMarkers);
        assert!(
            s.outcome.is_clean(),
            "{}",
            String::from_utf8_lossy(&s.outcome.text)
        );
        let out = String::from_utf8(s.outcome.text).unwrap();
        assert!(
            out.contains("name=\"A\"") && out.contains("name=\"B\""),
            "{out}"
        );
        // Same property changed differently: kept as it was.
        let text = BASE.replace(
            "speed = 100\n",
            "<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n",
        );
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(s.outcome.conflict_count, 1);
        assert_eq!(s.outcome.text, text.as_bytes());
        // One side empty: could be a deletion, never merged.
        let text = BASE.replace(
            "speed = 100\n",
            "<<<<<<< HEAD\n=======\nspeed = 80\n>>>>>>> other\n",
        );
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(s.outcome.text, text.as_bytes());
        // A property only one side has, in a section that started before the block.
        let text = BASE.replace(
            "speed = 100\n",
            "<<<<<<< HEAD\nspeed = 100\njump = 2\n=======\nhp = 3\n>>>>>>> other\n",
        );
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(s.outcome.text, text.as_bytes());
    }

    #[test]
    fn two_sided_partial() {
        let text = format!(
            "{}<<<<<<< HEAD\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n=======\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n>>>>>>> other\n",
            BASE.replace("speed = 100\n", "<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n")
        );
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(
            (s.blocks, s.resolved_blocks, s.outcome.conflict_count),
            (2, 1, 1)
        );
        let out = String::from_utf8(s.outcome.text).unwrap();
        assert!(
            out.contains("<<<<<<< HEAD\nspeed = 120\n=======\nspeed = 80\n>>>>>>> other\n"),
            "{out}"
        );
        assert!(
            out.contains("name=\"A\"") && out.contains("name=\"B\""),
            "{out}"
        );
        assert_eq!(out.matches("<<<<<<<").count(), 1, "{out}");
    }

    const MOVE_BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"X\" type=\"Sprite2D\" parent=\"A\"]\nframe = 1\n\n[node name=\"B\" type=\"Node2D\" parent=\".\"]\n";

    /// Ours moves X from A to B and puts Z where it was; theirs changes X under A.
    fn move_sides() -> (String, String) {
        let ours = MOVE_BASE.replace(
            "[node name=\"X\" type=\"Sprite2D\" parent=\"A\"]\nframe = 1\n",
            "[node name=\"Z\" type=\"Node\" parent=\"A\"]\n",
        ) + "\n[node name=\"X\" type=\"Sprite2D\" parent=\"B\"]\nframe = 1\n";
        let theirs = MOVE_BASE.replace("frame = 1", "frame = 2");
        (ours, theirs)
    }

    #[test]
    fn two_sided_markers_never_leave_a_moved_node_at_two_paths() {
        let (ours, theirs) = move_sides();
        let opts = MarkerOptions {
            style: crate::linemerge::ConflictStyle::Merge,
            ..MarkerOptions::default()
        };
        let lm = crate::linemerge::merge_lines(
            MOVE_BASE.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &opts,
        );
        assert!(lm.conflicts > 0);
        let s = solve_markers(&lm.text, 7).unwrap().unwrap();
        assert_eq!(s.source, Source::TwoSidedMarkers);
        let out = String::from_utf8_lossy(&s.outcome.text).to_string();
        assert!(!s.outcome.is_clean(), "reported solved:\n{out}");
        assert!(out.contains("<<<<<<<"), "{out}");
        assert!(
            s.doubt.as_deref().is_some_and(|d| d.contains("\"A/X\"")),
            "{:?}",
            s.doubt
        );
        // The line merge (and so the input) has X under B already: nothing re-adds it
        // outside the markers.
        let scene_without_markers = out.lines().filter(|l| l.contains("name=\"X\"")).count();
        assert_eq!(
            scene_without_markers,
            lm.text
                .split(|&c| c == b'\n')
                .filter(|l| String::from_utf8_lossy(l).contains("name=\"X\""))
                .count()
        );
    }

    #[test]
    fn diff3_markers_keep_a_node_both_sides_have_differently() {
        // The base section is empty and both sides have node "Button", compatibly: a
        // real "both added", or one side's move whose deletion git took outside the
        // block (or a side that had the node twice, as in a real merge where theirs
        // added a second "Button"). Merged, it would be called clean.
        let text = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"Lamp\" type=\"Node2D\" parent=\".\"]\n<<<<<<< ours\n\n[node name=\"Button\" type=\"Button\" parent=\".\"]\ntext = \"Shop\"\nz_index = 3\n||||||| base\n=======\n\n[node name=\"Button\" type=\"Button\" parent=\".\"]\nflat = true\n>>>>>>> theirs\n";
        let s = solve_markers(text.as_bytes(), 7).unwrap().unwrap();
        assert_eq!(s.source, Source::Diff3Markers);
        assert_eq!(s.outcome.text, text.as_bytes());
        assert_eq!((s.resolved_blocks, s.outcome.conflict_count), (0, 1));
        assert!(
            s.doubt
                .as_deref()
                .is_some_and(|d| d.contains("both sides have node \"Button\"")),
            "{:?}",
            s.doubt
        );
        // Written the same on both sides: merged.
        let same = text.replace("flat = true", "text = \"Shop\"\nz_index = 3");
        let s = solve_markers(same.as_bytes(), 7).unwrap().unwrap();
        assert!(s.outcome.is_clean(), "{:?}", s.doubt);
    }

    #[test]
    fn untouched_line_merge_is_recognised_and_edits_are_not() {
        let (ours, theirs) = move_sides();
        for style in [
            crate::linemerge::ConflictStyle::Merge,
            crate::linemerge::ConflictStyle::Diff3,
            crate::linemerge::ConflictStyle::ZDiff3,
        ] {
            let opts = MarkerOptions {
                ours: "HEAD".into(),
                base: "merged common ancestors".into(),
                theirs: "feature".into(),
                style,
                ..MarkerOptions::default()
            };
            let lm = crate::linemerge::merge_lines(
                MOVE_BASE.as_bytes(),
                ours.as_bytes(),
                theirs.as_bytes(),
                &opts,
            );
            let (b, o, t) = (MOVE_BASE.as_bytes(), ours.as_bytes(), theirs.as_bytes());
            assert!(is_untouched_line_merge(&lm.text, b, o, t, 7), "{style:?}");
            let mut edited = lm.text.clone();
            edited.extend_from_slice(b"\n[node name=\"Mine\" type=\"Node\" parent=\".\"]\n");
            assert!(!is_untouched_line_merge(&edited, b, o, t, 7), "{style:?}");
            assert!(!is_untouched_line_merge(o, b, o, t, 7));
        }
    }
}
