//! The engine's string escapes (spec §1.7): decoding the body of a `"..."` string.
//!
//! Decides what each escape stands for; finding where a string ends is the splitter's
//! (`splitter.rs`), and where decoded text is needed is up to later stages.
/// Decode the body of a `"..."` string (without the quotes) with the engine's escapes
/// (spec §1.7): `\uXXXX`, `\UXXXXXX`, surrogate pairs; any other escaped character
/// stands for itself. Returns the offset (into `body`) of a bad escape on failure.
pub fn unescape(body: &str) -> Result<String, usize> {
    if !body.contains('\\') {
        return Ok(body.to_string());
    }
    let mut out = String::with_capacity(body.len());
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = it.next() else {
            return Err(i);
        };
        match e {
            'b' => out.push('\u{8}'),
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'f' => out.push('\u{c}'),
            'r' => out.push('\r'),
            'u' | 'U' => {
                let n = if e == 'u' { 4 } else { 6 };
                let mut v: u32 = 0;
                for _ in 0..n {
                    let Some((_, h)) = it.next() else {
                        return Err(i);
                    };
                    let Some(d) = h.to_digit(16) else {
                        return Err(i);
                    };
                    v = v * 16 + d;
                }
                if (0xD800..0xDC00).contains(&v) {
                    // A high surrogate must be followed by an escaped low one.
                    let mut low = None;
                    let rest = &body[i..];
                    let after = rest.char_indices().nth(2 + n).map(|(k, _)| i + k);
                    if let Some(a) = after {
                        let tail = &body[a..];
                        if tail.len() >= 6 && (tail.starts_with("\\u")) {
                            if let Ok(l) = u32::from_str_radix(&tail[2..6], 16) {
                                if (0xDC00..0xE000).contains(&l) {
                                    low = Some(l);
                                }
                            }
                        }
                    }
                    let Some(l) = low else { return Err(i) };
                    for _ in 0..6 {
                        it.next();
                    }
                    v = 0x10000 + ((v - 0xD800) << 10) + (l - 0xDC00);
                } else if (0xDC00..0xE000).contains(&v) {
                    return Err(i);
                }
                out.push(char::from_u32(v).ok_or(i)?);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}
