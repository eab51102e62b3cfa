//! The `format=4` rule (spec §4.13, tricky case 25): a file holding a PackedByteArray of
//! more than 64 bytes, or any PackedVector4Array, is written by Godot 4.3+ as
//! `format=4`, and then every PackedByteArray in it is base64. This file finds such
//! values in a text and rewrites the byte arrays; whether to apply it (and the header)
//! is the caller's.

use crate::value::packed_base64_encode;

/// The editor's threshold: a byte array longer than this makes the file `format=4`.
pub const BASE64_THRESHOLD: usize = 64;

/// What a text holds of the values the `format` choice looks at.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Format4Needs {
    /// A decimal `PackedByteArray(...)` longer than [`BASE64_THRESHOLD`], or a
    /// `PackedVector4Array(...)`: the file must be `format=4`.
    pub needs: bool,
    /// Decimal byte arrays (any length) that `format=4` writes as base64.
    pub decimal: usize,
}

const BYTES: &[u8] = b"PackedByteArray(";
const VEC4: &[u8] = b"PackedVector4Array(";

/// Each `PackedByteArray(`/`PackedVector4Array(` outside strings: (start, body range).
/// Outside a string only `"` and `P` matter, inside one only `\\` and `"`: the walk
/// jumps between them with memchr.
fn arrays(text: &str) -> Vec<(usize, bool, std::ops::Range<usize>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        let next = if in_str {
            memchr::memchr2(b'\\', b'"', &b[i..])
        } else {
            memchr::memchr2(b'"', b'P', &b[i..])
        };
        let Some(k) = next else {
            break;
        };
        i += k;
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                _ => in_str = false,
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
        } else if i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            for (name, bytes) in [(BYTES, true), (VEC4, false)] {
                if b[i..].starts_with(name) {
                    let open = i + name.len();
                    // A packed array's body holds no parenthesis, only numbers or a string.
                    if let Some(len) = memchr::memchr(b')', &b[open..]) {
                        out.push((i, bytes, open..open + len));
                        i = open + len;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    out
}

/// Whether `text` holds `PackedByteArray(` or `PackedVector4Array(` anywhere (in a
/// string too).
fn mentions_arrays(text: &str) -> bool {
    mentions_packed(text.as_bytes(), &[&BYTES[6..], &VEC4[6..]])
}

/// Whether `text` holds `Packed` followed by one of `rests` anywhere: one memchr pass
/// for the `P` (rare in scene text; a single-byte search is the cheapest pass there is).
pub(crate) fn mentions_packed(text: &[u8], rests: &[&[u8]]) -> bool {
    memchr::memchr_iter(b'P', text).any(|i| {
        let word = &text[i..];
        word.starts_with(b"Packed") && rests.iter().any(|r| word[6..].starts_with(r))
    })
}

/// The bytes of a decimal body (`0, 255, 3`), `None` when it is base64 or not bytes.
fn decimal_bytes(body: &str) -> Option<Vec<u8>> {
    let body = body.trim();
    if body.is_empty() || body.starts_with('"') {
        return None;
    }
    body.split(',')
        .map(|t| t.trim().parse::<u8>().ok())
        .collect()
}

/// Whether `text` must be `format=4`, and how many decimal byte arrays it holds.
pub fn format4_needs(text: &str) -> Format4Needs {
    let mut n = Format4Needs::default();
    if !mentions_arrays(text) {
        return n;
    }
    for (_, bytes, body) in arrays(text) {
        if !bytes {
            n.needs = true;
            continue;
        }
        if let Some(v) = decimal_bytes(&text[body]) {
            n.decimal += 1;
            n.needs |= v.len() > BASE64_THRESHOLD;
        }
    }
    n
}

/// `text` with every decimal PackedByteArray written as `format=4` writes it (base64).
pub fn byte_arrays_as_base64(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (_, bytes, body) in arrays(text) {
        let Some(v) = bytes.then(|| decimal_bytes(&text[body.clone()])).flatten() else {
            continue;
        };
        out.push_str(&text[at..body.start]);
        out.push('"');
        out.push_str(&packed_base64_encode(&v));
        out.push('"');
        at = body.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_decimal_byte_arrays_and_vector4_arrays_need_format4() {
        let short = "a = PackedByteArray(0, 1, 2)\n";
        assert_eq!(
            format4_needs(short),
            Format4Needs {
                needs: false,
                decimal: 1
            }
        );
        let long: Vec<String> = (0..65).map(|i| i.to_string()).collect();
        let long = format!("b = PackedByteArray({})\n", long.join(", "));
        assert!(format4_needs(&long).needs);
        assert!(format4_needs("c = PackedVector4Array(1, 2, 3, 4)\n").needs);
        // In a string, or already base64, it is no value to rewrite.
        assert_eq!(
            format4_needs("d = \"PackedByteArray(1, 2)\"\n"),
            Format4Needs::default()
        );
        assert_eq!(format4_needs("e = PackedByteArray(\"AAE=\")\n").decimal, 0);
    }

    #[test]
    fn decimal_byte_arrays_become_base64() {
        let text = "a = PackedByteArray(0, 1)\ns = \"PackedByteArray(1)\"\nb = PackedByteArray()\n";
        assert_eq!(
            byte_arrays_as_base64(text),
            "a = PackedByteArray(\"AAE=\")\ns = \"PackedByteArray(1)\"\nb = PackedByteArray()\n"
        );
    }

    /// The memchr walk finds what the byte-at-a-time walk it replaced found, on every
    /// sequence of up to five pieces (strings, escapes, names, bodies, word boundaries).
    #[test]
    fn arrays_agree_with_a_byte_walk() {
        fn walk(text: &str) -> Vec<(usize, bool, std::ops::Range<usize>)> {
            let b = text.as_bytes();
            let mut out = Vec::new();
            let (mut i, mut in_str) = (0, false);
            while i < b.len() {
                let c = b[i];
                if in_str {
                    match c {
                        b'\\' => i += 1,
                        b'"' => in_str = false,
                        _ => {}
                    }
                    i += 1;
                    continue;
                }
                if c == b'"' {
                    in_str = true;
                } else if c == b'P'
                    && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
                {
                    for (name, bytes) in [(BYTES, true), (VEC4, false)] {
                        if b[i..].starts_with(name) {
                            let open = i + name.len();
                            if let Some(len) = b[open..].iter().position(|&x| x == b')') {
                                out.push((i, bytes, open..open + len));
                                i = open + len;
                            }
                            break;
                        }
                    }
                }
                i += 1;
            }
            out
        }
        let pieces = [
            "PackedByteArray(",
            "PackedVector4Array(",
            "1, 2",
            ")",
            "\"",
            "\\",
            "x",
            "_",
            "P",
            " ",
        ];
        let mut text = String::new();
        for n in 0..100_000usize {
            text.clear();
            let mut k = n;
            for _ in 0..5 {
                text.push_str(pieces[k % pieces.len()]);
                k /= pieces.len();
            }
            assert_eq!(arrays(&text), walk(&text), "{text:?}");
            let named = text.contains("PackedByteArray(") || text.contains("PackedVector4Array(");
            assert_eq!(mentions_arrays(&text), named, "{text:?}");
        }
    }
}
