//! Reading conflict markers: a file cut into the text outside the blocks and the
//! `<<<<<<<` ours `|||||||` base `=======` theirs `>>>>>>>` blocks.
//!
//! Decides which lines are markers (of which size) and what each block holds; rebuilding
//! the versions is [`super::Marked`]'s, merging them `remerge.rs`'s.

use super::{Block, Marked, ParseError, Piece, DEFAULT_MARKER_SIZE};
use crate::syntax::string_open_after;

/// Split into lines, each keeping its terminator (`\n`, so `\r\n` stays whole).
pub(super) fn lines(text: &[u8]) -> Vec<&[u8]> {
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
/// are `|||||||`, `=======` and `>>>>>>>` lines outside any block, and a `<<<<<<<` line
/// inside a string (a tutorial in a script's `source`): strings are followed through the
/// text outside the blocks and ours' sections, as the parser would read ours. A file
/// without blocks gives a single text piece (or none when empty).
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
        in_string: false,
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
    /// A string is open at this point of ours (the text outside blocks, ours' sections).
    in_string: bool,
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
        let Some(label) = start.filter(|_| !self.in_string) else {
            self.outside.extend_from_slice(line);
            self.in_string = string_open_after(line, self.in_string);
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
            self.in_string = string_open_after(line, self.in_string);
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
