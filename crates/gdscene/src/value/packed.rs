//! Lazy decoding of packed array bodies (spec §2, §6.8).

use super::parse::{decode_float, decode_string};
use super::{Packed, PackedBody, ValueError};

/// The element type of a packed array, independent of the (legacy) name it was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackedKind {
    /// Bytes (`PackedByteArray`, `PoolByteArray`, `ByteArray`).
    Byte,
    /// `PackedInt32Array` (`PoolIntArray`, `IntArray`, `PackedIntArray`).
    Int32,
    /// `PackedInt64Array`.
    Int64,
    /// `PackedFloat32Array` (`PoolRealArray`, `FloatArray`, `RealArray`, `PackedRealArray`).
    Float32,
    /// `PackedFloat64Array`.
    Float64,
    /// `PackedStringArray` (`PoolStringArray`, `StringArray`).
    String,
    /// `PackedVector2Array` (flat x, y pairs).
    Vector2,
    /// `PackedVector3Array`.
    Vector3,
    /// `PackedVector4Array`.
    Vector4,
    /// `PackedColorArray` (flat r, g, b, a).
    Color,
}

impl PackedKind {
    /// Kind for a name as written (any Godot 2/3/4 spelling).
    pub fn from_name(name: &str) -> Option<PackedKind> {
        use PackedKind::*;
        Some(match name {
            "PackedByteArray" | "PoolByteArray" | "ByteArray" => Byte,
            "PackedInt32Array" | "PackedIntArray" | "PoolIntArray" | "IntArray" => Int32,
            "PackedInt64Array" => Int64,
            "PackedFloat32Array" | "PackedRealArray" | "PoolRealArray" | "FloatArray"
            | "RealArray" => Float32,
            "PackedFloat64Array" => Float64,
            "PackedStringArray" | "PoolStringArray" | "StringArray" => String,
            "PackedVector2Array" | "PoolVector2Array" | "Vector2Array" => Vector2,
            "PackedVector3Array" | "PoolVector3Array" | "Vector3Array" => Vector3,
            "PackedVector4Array" | "PoolVector4Array" | "Vector4Array" => Vector4,
            "PackedColorArray" | "PoolColorArray" | "ColorArray" => Color,
            _ => return None,
        })
    }

    /// Canonical Godot 4 name.
    pub fn name(self) -> &'static str {
        use PackedKind::*;
        match self {
            Byte => "PackedByteArray",
            Int32 => "PackedInt32Array",
            Int64 => "PackedInt64Array",
            Float32 => "PackedFloat32Array",
            Float64 => "PackedFloat64Array",
            String => "PackedStringArray",
            Vector2 => "PackedVector2Array",
            Vector3 => "PackedVector3Array",
            Vector4 => "PackedVector4Array",
            Color => "PackedColorArray",
        }
    }

    /// Godot 3 name (`Pool*Array`); types that 3.x lacks keep their Godot 4 name.
    pub fn godot3_name(self) -> &'static str {
        use PackedKind::*;
        match self {
            Byte => "PoolByteArray",
            Int32 => "PoolIntArray",
            Float32 => "PoolRealArray",
            String => "PoolStringArray",
            Vector2 => "PoolVector2Array",
            Vector3 => "PoolVector3Array",
            Color => "PoolColorArray",
            other => other.name(),
        }
    }

    /// Number of flat components per element (2 for Vector2, 4 for Color, else 1).
    pub fn components(self) -> usize {
        match self {
            PackedKind::Vector2 => 2,
            PackedKind::Vector3 => 3,
            PackedKind::Vector4 | PackedKind::Color => 4,
            _ => 1,
        }
    }

    /// Whether the engine stores the components as float32.
    pub fn is_f32(self) -> bool {
        matches!(
            self,
            PackedKind::Float32
                | PackedKind::Vector2
                | PackedKind::Vector3
                | PackedKind::Vector4
                | PackedKind::Color
        )
    }
}

/// Decoded contents of a packed array. Vector/Color kinds are flat and already cut to whole
/// elements (leftovers dropped as the engine does, §6.8).
#[derive(Debug, Clone, PartialEq)]
pub enum PackedElems {
    /// Byte values (PackedByteArray), from a list or base64.
    Bytes(Vec<u8>),
    /// Int32/Int64 values (Int32 cut to 32 bits, floats truncated).
    Ints(Vec<i64>),
    /// Float / vector / color components, flat.
    Floats(Vec<f64>),
    /// Decoded strings.
    Strings(Vec<String>),
}

/// Split a list body into tokens; `Ok` tokens are (offset, text). Rejects a trailing comma.
fn tokens(body: &str) -> Result<Vec<(usize, &str)>, ValueError> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < b.len() {
            if b[*i] <= b' ' {
                *i += 1;
            } else if b[*i] == b';' {
                while *i < b.len() && b[*i] != b'\n' {
                    *i += 1;
                }
            } else {
                break;
            }
        }
    };
    skip(&mut i);
    if i >= b.len() {
        return Ok(out);
    }
    loop {
        skip(&mut i);
        let start = i;
        if i < b.len() && b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= b.len() {
                return Err(ValueError::new(start, "closing `\"`"));
            }
            i += 1;
        } else {
            while i < b.len() && b[i] > b' ' && b[i] != b',' && b[i] != b';' {
                i += 1;
            }
        }
        if start == i {
            return Err(ValueError::new(start, "element"));
        }
        out.push((start, &body[start..i]));
        skip(&mut i);
        if i >= b.len() {
            return Ok(out);
        }
        if b[i] != b',' {
            return Err(ValueError::new(i, "`,` or `)`"));
        }
        i += 1;
    }
}

/// Whether two elements' texts of a numeric `kind` read as equal elements, as
/// [`Packed::elements`] reads and [`Packed::sem_eq`] compares them (`false` when one
/// does not read).
fn element_eq(kind: PackedKind, floats: bool, a: (usize, &str), b: (usize, &str)) -> bool {
    if floats {
        return match (number(a.0, a.1), number(b.0, b.1)) {
            (Ok(x), Ok(y)) => super::float_eq(x, y),
            _ => false,
        };
    }
    let int = |(at, t): (usize, &str)| {
        integer(at, t).map(|i| match kind {
            PackedKind::Byte => i64::from(i as u8),
            PackedKind::Int32 => i64::from(i as i32),
            _ => i,
        })
    };
    matches!((int(a), int(b)), (Ok(x), Ok(y)) if x == y)
}

fn number(at: usize, t: &str) -> Result<f64, ValueError> {
    if t.starts_with('"') {
        return Err(ValueError::new(at, "number"));
    }
    decode_float(t).ok_or_else(|| ValueError::new(at, "number"))
}

fn integer(at: usize, t: &str) -> Result<i64, ValueError> {
    match t.parse::<i64>() {
        Ok(i) => Ok(i),
        Err(_) => number(at, t).map(|f| f.trunc() as i64),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding, as Godot writes PackedByteArray in format 4.
pub fn base64_encode(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        s.push(B64[(n >> 18) as usize & 63] as char);
        s.push(B64[(n >> 12) as usize & 63] as char);
        s.push(if c.len() > 1 {
            B64[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if c.len() > 2 {
            B64[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

/// Decode standard base64 (padding optional, whitespace ignored).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, ValueError> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            c if c <= b' ' => continue,
            _ => return Err(ValueError::new(i, "base64 character")),
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

impl Packed {
    /// Element type, from the name as written (`None` for an unknown name).
    pub fn kind(&self) -> Option<PackedKind> {
        PackedKind::from_name(&self.name)
    }

    /// Canonical Godot 4 name (`PoolVector2Array` -> `PackedVector2Array`); an unknown name
    /// is returned as written.
    pub fn canonical_name(&self) -> &str {
        self.kind().map_or(self.name.as_str(), |k| k.name())
    }

    /// Decode the body. Errors carry offsets into the body text.
    pub fn elements(&self) -> Result<PackedElems, ValueError> {
        let kind = self
            .kind()
            .ok_or_else(|| ValueError::new(0, "known packed array name"))?;
        let list = match &self.body {
            PackedBody::Base64(s) => {
                return if kind == PackedKind::Byte {
                    base64_decode(s).map(PackedElems::Bytes)
                } else {
                    Err(ValueError::new(0, "list of elements"))
                };
            }
            PackedBody::List(l) => l,
        };
        let toks = tokens(list)?;
        Ok(match kind {
            PackedKind::Byte => PackedElems::Bytes(
                toks.iter()
                    .map(|&(a, t)| integer(a, t).map(|i| i as u8))
                    .collect::<Result<_, _>>()?,
            ),
            PackedKind::Int32 => PackedElems::Ints(
                toks.iter()
                    .map(|&(a, t)| integer(a, t).map(|i| i as i32 as i64))
                    .collect::<Result<_, _>>()?,
            ),
            PackedKind::Int64 => PackedElems::Ints(
                toks.iter()
                    .map(|&(a, t)| integer(a, t))
                    .collect::<Result<_, _>>()?,
            ),
            PackedKind::String => PackedElems::Strings(
                toks.iter()
                    .map(|&(a, t)| {
                        if t.starts_with('"') {
                            decode_string(t, a)
                        } else {
                            Err(ValueError::new(a, "plain string"))
                        }
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => {
                let mut v: Vec<f64> = toks
                    .iter()
                    .map(|&(a, t)| number(a, t))
                    .collect::<Result<_, _>>()?;
                let n = kind.components();
                v.truncate(v.len() / n * n);
                PackedElems::Floats(v)
            }
        })
    }

    /// Number of elements (whole vectors/colors for flat kinds).
    pub fn len(&self) -> Result<usize, ValueError> {
        let n = self.kind().map_or(1, |k| k.components());
        Ok(match self.elements()? {
            PackedElems::Bytes(b) => b.len(),
            PackedElems::Ints(v) => v.len(),
            PackedElems::Floats(v) => v.len() / n,
            PackedElems::Strings(v) => v.len(),
        })
    }

    /// Whether the array holds no elements.
    pub fn is_empty(&self) -> Result<bool, ValueError> {
        self.len().map(|n| n == 0)
    }

    /// Number of bytes of a PackedByteArray (decides `format=4` above 64, §4.13); `None` for
    /// other kinds.
    pub fn byte_len(&self) -> Option<Result<usize, ValueError>> {
        if self.kind() != Some(PackedKind::Byte) {
            return None;
        }
        Some(self.len())
    }

    /// Number of trailing components that do not fill a whole element and are dropped by the
    /// engine (`PackedVector2Array(1, 2, 3)` drops 1). Worth a warning (§6.8).
    pub fn dropped_components(&self) -> Result<usize, ValueError> {
        let Some(kind) = self.kind() else {
            return Ok(0);
        };
        let n = kind.components();
        if n == 1 {
            return Ok(0);
        }
        match &self.body {
            PackedBody::List(l) => Ok(tokens(l)?.len() % n),
            PackedBody::Base64(_) => Ok(0),
        }
    }

    /// Whether two lists of one numeric kind surely differ: their element counts do, or
    /// one element, compared where the texts differ (equal texts are equal elements),
    /// differs or does not read as a number. Only ever `true` where [`Packed::sem_eq`]'s
    /// element by element comparison is `false` (an unreadable element anywhere makes
    /// that `false` too), and it reads just the elements whose texts differ: a diff of
    /// two meshes that differ in a vertex no longer decodes a million numbers per side
    /// to say so. `false` says nothing (base64, strings, or no difference found).
    fn surely_differs(&self, other: &Packed, kind: PackedKind) -> bool {
        let (PackedBody::List(a), PackedBody::List(b)) = (&self.body, &other.body) else {
            return false;
        };
        if kind == PackedKind::String {
            return false;
        }
        let (Ok(ta), Ok(tb)) = (tokens(a), tokens(b)) else {
            return true;
        };
        let n = kind.components();
        let whole = |len: usize| len / n * n;
        if whole(ta.len()) != whole(tb.len()) {
            return true;
        }
        let floats = !matches!(
            kind,
            PackedKind::Byte | PackedKind::Int32 | PackedKind::Int64
        );
        ta.iter()
            .zip(&tb)
            .take(whole(ta.len()))
            .any(|(&(pa, x), &(pb, y))| x != y && !element_eq(kind, floats, (pa, x), (pb, y)))
    }

    /// Engine equality: same kind, then equal raw text (fast path) or equal elements
    /// (floats as float32).
    pub fn sem_eq(&self, other: &Packed) -> bool {
        let (Some(ka), Some(kb)) = (self.kind(), other.kind()) else {
            return self == other;
        };
        if ka != kb {
            return false;
        }
        if self.body == other.body {
            return true;
        }
        if self.surely_differs(other, ka) {
            return false;
        }
        match (self.elements(), other.elements()) {
            (Ok(PackedElems::Floats(a)), Ok(PackedElems::Floats(b))) => {
                a.len() == b.len() && a.iter().zip(&b).all(|(&x, &y)| super::float_eq(x, y))
            }
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}
