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
        // Most files hold no CR at all: one memchr pass, and nothing else to count.
        if memchr::memchr(b'\r', text).is_none() {
            return Ending::Lf;
        }
        let crlf = memchr::memmem::find_iter(text, b"\r\n").count();
        let lines = memchr::memchr_iter(b'\n', text).count();
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
        let lines = memchr::memchr_iter(b'\n', &text).count();
        let bare = lines.saturating_sub(memchr::memmem::find_iter(&text, b"\r\n").count());
        if bare == 0 {
            return text;
        }
        let mut out = Vec::with_capacity(text.len() + bare);
        let mut from = 0;
        for at in memchr::memchr_iter(b'\n', &text) {
            if at == 0 || text[at - 1] != b'\r' {
                out.extend_from_slice(&text[from..at]);
                out.push(b'\r');
                from = at;
            }
        }
        out.extend_from_slice(&text[from..]);
        out
    }
}

/// `text` as the commands read it: when its lines mostly end in CRLF
/// ([`Ending::of`]), every CRLF made LF; otherwise unchanged.
pub fn to_lf(text: Vec<u8>) -> Vec<u8> {
    read_as_lf(text).0
}

/// [`to_lf`] and the [`Ending`] of `text`, found in one look at it: what a command that
/// writes back in the input's ending reads.
pub fn read_as_lf(text: Vec<u8>) -> (Vec<u8>, Ending) {
    match Ending::of(&text) {
        Ending::Lf => (text, Ending::Lf),
        Ending::CrLf => (crlf_to_lf(&text), Ending::CrLf),
    }
}

/// [`to_lf`] without taking `text`: borrowed when nothing changes.
pub fn lf_view(text: &[u8]) -> Cow<'_, [u8]> {
    match Ending::of(text) {
        Ending::Lf => Cow::Borrowed(text),
        Ending::CrLf => Cow::Owned(crlf_to_lf(text)),
    }
}

/// `text` with the `\r` of every CRLF left out.
fn crlf_to_lf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut from = 0;
    for at in memchr::memmem::find_iter(text, b"\r\n") {
        out.extend_from_slice(&text[from..at]);
        from = at + 1;
    }
    out.extend_from_slice(&text[from..]);
    out
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

    /// The byte-at-a-time rules these functions replaced, compared on every text of
    /// up to 8 bytes over `a`, `\r` and `\n`.
    #[test]
    fn the_memchr_passes_agree_with_the_byte_loops() {
        fn of(text: &[u8]) -> Ending {
            let (mut lines, mut crlf, mut after_cr) = (0usize, 0usize, false);
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
        fn apply(text: &[u8]) -> Vec<u8> {
            let (mut out, mut prev) = (Vec::new(), 0u8);
            for &b in text {
                if b == b'\n' && prev != b'\r' {
                    out.push(b'\r');
                }
                out.push(b);
                prev = b;
            }
            out
        }
        fn to_lf(text: &[u8]) -> Vec<u8> {
            if of(text) == Ending::Lf {
                return text.to_vec();
            }
            let mut out = Vec::new();
            for (i, &b) in text.iter().enumerate() {
                if !(b == b'\r' && text.get(i + 1) == Some(&b'\n')) {
                    out.push(b);
                }
            }
            out
        }
        for len in 0..=8u32 {
            for mut k in 0..3usize.pow(len) {
                let mut text = Vec::new();
                for _ in 0..len {
                    text.push([b'a', b'\r', b'\n'][k % 3]);
                    k /= 3;
                }
                assert_eq!(Ending::of(&text), of(&text), "{text:?}");
                assert_eq!(Ending::CrLf.apply(text.clone()), apply(&text), "{text:?}");
                assert_eq!(super::to_lf(text.clone()), to_lf(&text), "{text:?}");
                assert_eq!(read_as_lf(text.clone()), (to_lf(&text), of(&text)));
                assert_eq!(lf_view(&text).into_owned(), to_lf(&text), "{text:?}");
            }
        }
    }
}
