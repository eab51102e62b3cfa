//! Which bytes are what to the splitter, as tables of 256 and the scans built on them:
//! where an identifier starts and goes on, what a bare property key is made of, and where
//! a run of plain value text inside brackets ends. The splitter decides what the runs
//! mean; this file only answers, byte by byte, as fast as one lookup allows.

pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Bytes that continue an identifier (ASCII letters, digits, `_`), as one table lookup:
/// the tag names and field keys of a 100,000-node scene are millions of them, and the
/// three range tests `is_ascii_alphanumeric` makes cost 2% of a merge's instructions.
static IDENT_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'_';
        i += 1;
    }
    t
};

/// Bytes of a bare property key's fast path (neither whitespace, `=` nor `;`), as one
/// table lookup: every property line's key is scanned with it.
pub(super) static BARE_KEY: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b > b' ' && b != b'=' && b != b';';
        i += 1;
    }
    t
};

pub(super) fn is_ident_char(b: u8) -> bool {
    IDENT_CHAR[b as usize]
}

/// Bytes that end a run of plain value text inside a bracket group: brackets, quotes and
/// comments (see the splitter's `group`).
static GROUP_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = *b"([{)]}\";";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

/// The first byte at or after `p` that [`GROUP_STOP`] marks, or `s.len()`: the end of
/// a run of plain value text in a bracket group. A short run (most of them: `1, 2)`) is
/// read a byte at a time; past 16 bytes (the numbers of a packed array, megabytes in a
/// mesh) three memchr passes look for the eight stop bytes in windows that double up to
/// 64 KiB, each pass only up to the first stop an earlier one found, so a run costs a
/// few passes over its own length and never a look past the window beyond it.
pub(super) fn next_stop(s: &[u8], mut p: usize) -> usize {
    let short = s.len().min(p.saturating_add(16));
    while p < short {
        if GROUP_STOP[s[p] as usize] {
            return p;
        }
        p += 1;
    }
    let mut window = 64;
    while p < s.len() {
        let end = s.len().min(p.saturating_add(window));
        let mut stop = end;
        if let Some(k) = memchr::memchr3(b'(', b')', b'"', &s[p..stop]) {
            stop = p + k;
        }
        if let Some(k) = memchr::memchr3(b'[', b']', b';', &s[p..stop]) {
            stop = p + k;
        }
        if let Some(k) = memchr::memchr2(b'{', b'}', &s[p..stop]) {
            stop = p + k;
        }
        if stop < end {
            return stop;
        }
        p = end;
        window = (window * 2).min(1 << 16);
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::{next_stop, GROUP_STOP};
    use crate::test_support::rng;

    /// `next_stop` finds what a byte-at-a-time scan finds, wherever the stop lies (in the
    /// short run, at a window's edge, far past it) and whichever byte it is.
    #[test]
    fn next_stop_is_the_first_stop_byte() {
        let naive = |s: &[u8], p: usize| {
            (p..s.len())
                .find(|&i| GROUP_STOP[s[i] as usize])
                .unwrap_or(s.len())
        };
        let mut next = rng(0x2545_f491_4f6c_dd1d);
        for len in [
            0usize, 1, 15, 16, 17, 63, 64, 65, 80, 81, 200, 4000, 70_000, 300_000,
        ] {
            let plain: Vec<u8> = (0..len).map(|i| b"0123456789., -e\n"[i % 16]).collect();
            assert_eq!(next_stop(&plain, 0), len);
            for &stop in b"([{)]}\";" {
                for _ in 0..6 {
                    if len == 0 {
                        continue;
                    }
                    let mut s = plain.clone();
                    let at = next(len);
                    s[at] = stop;
                    let from = next(at + 1);
                    assert_eq!(
                        next_stop(&s, from),
                        naive(&s, from),
                        "len {len} at {at} from {from}"
                    );
                    assert_eq!(next_stop(&s, at + 1), len);
                }
            }
        }
    }
}
