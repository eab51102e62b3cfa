//! Line endings at the edge: which ending a file's lines use, the text the commands
//! work on (every line ending LF), and the text they write back (ours' ending on every
//! line). A work tree checked out with `core.autocrlf=true` (Git for Windows' default)
//! has CRLF on every line; the merge, the solver and the diff work on LF text, so
//! without this the lines they write themselves end in LF among ours' CRLF lines.
//!
//! The rule, for every command that writes a scene (`merge`, its line-merge fallback
//! and conflict markers, `solve`): the result's lines all end as most of ours' lines
//! end ([`Ending::of`]: CRLF when more than half of its line ends are CRLF, else LF).
//! An input whose lines mostly end in CRLF is read with each CRLF made LF
//! ([`to_lf`]); any other input is read as it is, since a CRLF in an LF file is inside
//! a string (a text pasted on Windows) and is content. What the commands decide is
//! theirs; this module only changes line ends.

use std::borrow::Cow;

/// The line ending a file's lines use, decided by the majority of its line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ending {
    /// `\n`: what Godot writes, on every system.
    #[default]
    Lf,
    /// `\r\n`: a work tree with `core.autocrlf=true`, or an editor that writes CRLF.
    CrLf,
}

impl Ending {
    /// CRLF when more than half of `text`'s line ends (`\n`) follow a `\r`; LF
    /// otherwise, a tie and a text without any line end included.
    pub fn of(text: &[u8]) -> Ending {
        let (mut lines, mut crlf) = (0usize, 0usize);
        let mut after_cr = false;
        for &b in text {
            if b == b'\n' {
                lines += 1;
                crlf += usize::from(after_cr);
            }
            after_cr = b == b'\r';
        }
        if crlf * 2 > lines {
            Ending::CrLf
        } else {
            Ending::Lf
        }
    }

    /// `text` with its lines ending in this ending. CRLF: every `\n` without a `\r`
    /// before it gets one (a CRLF already there stays one). LF: `text` unchanged
    /// (the commands work on LF text; a CRLF left in it is content).
    pub fn apply(self, text: Vec<u8>) -> Vec<u8> {
        if self == Ending::Lf {
            return text;
        }
        let bare = bare_lf_count(&text);
        if bare == 0 {
            return text;
        }
        let mut out = Vec::with_capacity(text.len() + bare);
        let mut prev = 0u8;
        for &b in &text {
            if b == b'\n' && prev != b'\r' {
                out.push(b'\r');
            }
            out.push(b);
            prev = b;
        }
        out
    }
}

/// How many `\n` in `text` have no `\r` before them.
fn bare_lf_count(text: &[u8]) -> usize {
    let mut prev = 0u8;
    let mut n = 0;
    for &b in text {
        n += usize::from(b == b'\n' && prev != b'\r');
        prev = b;
    }
    n
}

/// `text` as the commands read it: when its lines mostly end in CRLF
/// ([`Ending::of`]), every CRLF made LF; otherwise unchanged.
pub fn to_lf(text: Vec<u8>) -> Vec<u8> {
    match lf_view(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(lf) => lf,
    }
}

/// [`to_lf`] without taking `text`: borrowed when nothing changes.
pub fn lf_view(text: &[u8]) -> Cow<'_, [u8]> {
    if Ending::of(text) == Ending::Lf {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_majority_of_line_ends_decides() {
        assert_eq!(Ending::of(b""), Ending::Lf);
        assert_eq!(Ending::of(b"no line end"), Ending::Lf);
        assert_eq!(Ending::of(b"a\r\n"), Ending::CrLf);
        assert_eq!(Ending::of(b"a\r\nb\r\nc\n"), Ending::CrLf);
        assert_eq!(Ending::of(b"a\r\nb\nc\n"), Ending::Lf);
        // A tie is LF, Godot's own.
        assert_eq!(Ending::of(b"a\r\nb\n"), Ending::Lf);
        // A CR that does not end a line counts for nothing.
        assert_eq!(Ending::of(b"a\rb\n"), Ending::Lf);
    }

    #[test]
    fn crlf_text_reads_as_lf_and_writes_back_byte_for_byte() {
        let crlf = b"[gd_scene format=3]\r\n\r\ntext = \"a\r\nb\"\r\nlast".to_vec();
        let lf = to_lf(crlf.clone());
        assert_eq!(lf, b"[gd_scene format=3]\n\ntext = \"a\nb\"\nlast");
        assert_eq!(Ending::CrLf.apply(lf), crlf);
    }

    #[test]
    fn an_lf_text_keeps_the_crlf_inside_its_strings() {
        let lf = b"[gd_scene format=3]\n\ntext = \"a\r\nb\"\n".to_vec();
        assert_eq!(to_lf(lf.clone()), lf);
        assert!(matches!(lf_view(&lf), Cow::Borrowed(_)));
        assert_eq!(Ending::Lf.apply(lf.clone()), lf);
    }

    #[test]
    fn crlf_goes_on_every_line_and_never_twice() {
        assert_eq!(
            Ending::CrLf.apply(b"a\nb\r\nc\n".to_vec()),
            b"a\r\nb\r\nc\r\n"
        );
        assert_eq!(Ending::CrLf.apply(b"\n\n".to_vec()), b"\r\n\r\n");
        assert_eq!(Ending::CrLf.apply(b"x".to_vec()), b"x");
        assert_eq!(Ending::CrLf.apply(b"\r\n".to_vec()), b"\r\n");
    }
}
