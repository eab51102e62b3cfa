//! Textures for a picture: an image file's size read from its header (PNG, JPEG, WebP,
//! SVG, BMP, TGA, GIF), the image embedded once as a `data:` URI however many nodes
//! draw it, and each region of it (a sprite's `region_rect`, one of its `hframes` x
//! `vframes`, a tile of an atlas) as an SVG `<symbol>` the drawing `<use>`s. Bounded:
//! an image over [`Limits::image_bytes`](super::Limits) or past the page's total is not
//! embedded, and the drawer falls back to a labelled box.
//!
//! Decides how images are read and embedded; which region of which image a node shows
//! is the drawers' (`sprite.rs`, `tiles.rs`).

use super::geometry::{num, rect2, Rect};
use super::tree::{FileId, Files, Target};
use super::Limits;
use crate::value::Value;
use rustc_hash::FxHasher;
use std::collections::BTreeMap;
use std::hash::Hasher;

/// An image's type and size in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    /// Its MIME type for the `data:` URI.
    pub mime: &'static str,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

fn be16(b: &[u8], i: usize) -> Option<f64> {
    Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]) as f64)
}
fn le16(b: &[u8], i: usize) -> Option<f64> {
    Some(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?]) as f64)
}
fn le32(b: &[u8], i: usize) -> Option<f64> {
    Some(i32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?).unsigned_abs() as f64)
}

/// The type and size of an image file, `None` when it is none the engine imports or
/// its header is broken.
pub fn header(b: &[u8]) -> Option<Header> {
    let h = |mime, w: Option<f64>, h: Option<f64>| {
        Some(Header { mime, w: w?, h: h? }).filter(|x| x.w > 0.0 && x.h > 0.0)
    };
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        let be32 = |i: usize| Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?) as f64);
        return h("image/png", be32(16), be32(20));
    }
    if b.starts_with(b"GIF8") {
        return h("image/gif", le16(b, 6), le16(b, 8));
    }
    if b.starts_with(b"BM") {
        return h("image/bmp", le32(b, 18), le32(b, 22));
    }
    if b.starts_with(b"\xff\xd8") {
        return jpeg(b);
    }
    if b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WEBP") {
        return webp(b);
    }
    if let Some(s) = svg_size(b) {
        return h("image/svg+xml", Some(s.0), Some(s.1));
    }
    None
}

/// A JPEG's size, from its first start-of-frame marker.
fn jpeg(b: &[u8]) -> Option<Header> {
    let mut i = 2;
    while i + 9 < b.len() {
        if b[i] != 0xff {
            return None;
        }
        let marker = b[i + 1];
        let len = be16(b, i + 2)? as usize;
        let sof = (0xc0..=0xcf).contains(&marker) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if sof {
            return Some(Header {
                mime: "image/jpeg",
                w: be16(b, i + 7)?,
                h: be16(b, i + 5)?,
            })
            .filter(|x| x.w > 0.0 && x.h > 0.0);
        }
        i += 2 + len;
    }
    None
}

/// A WebP's size (lossy `VP8 `, lossless `VP8L`, extended `VP8X`).
fn webp(b: &[u8]) -> Option<Header> {
    let (w, h) = match b.get(12..16)? {
        b"VP8 " => (le16(b, 26)? as u32 & 0x3fff, le16(b, 28)? as u32 & 0x3fff),
        b"VP8L" => {
            let v = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
            ((v & 0x3fff) + 1, ((v >> 14) & 0x3fff) + 1)
        }
        b"VP8X" => {
            let n = |i: usize| -> Option<u32> {
                Some(u32::from_le_bytes([*b.get(i)?, *b.get(i + 1)?, *b.get(i + 2)?, 0]) + 1)
            };
            (n(24)?, n(27)?)
        }
        _ => return None,
    };
    Some(Header {
        mime: "image/webp",
        w: w as f64,
        h: h as f64,
    })
    .filter(|x| x.w > 0.0 && x.h > 0.0)
}

/// An SVG's size as the engine rasterises it: its `width`/`height`, else its `viewBox`.
fn svg_size(b: &[u8]) -> Option<(f64, f64)> {
    let text = std::str::from_utf8(&b[..b.len().min(4096)]).ok()?;
    let start = text.find("<svg")?;
    let tag = &text[start..start + text[start..].find('>')?];
    let attr = |name: &str| -> Option<&str> {
        let mut from = 0;
        while let Some(i) = tag[from..].find(name) {
            let at = from + i;
            let before = tag[..at].chars().next_back();
            let rest = tag[at + name.len()..]
                .trim_start()
                .strip_prefix('=')?
                .trim_start();
            if before.is_some_and(char::is_whitespace) {
                let q = rest.chars().next()?;
                let body = &rest[1..];
                return Some(&body[..body.find(q)?]);
            }
            from = at + name.len();
        }
        None
    };
    let length = |s: &str| s.trim().trim_end_matches("px").parse::<f64>().ok();
    if let (Some(w), Some(h)) = (
        attr("width").and_then(length),
        attr("height").and_then(length),
    ) {
        return Some((w, h));
    }
    let vb: Vec<f64> = attr("viewBox")?
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match vb[..] {
        [_, _, w, h] => Some((w, h)),
        _ => None,
    }
}

/// An embedded image.
struct Image {
    hash: u64,
    head: Header,
    uri: String,
}

/// The images and regions of one page's pictures: each image embedded once, each
/// region a `<symbol>`; ids start with the caller's prefix so that several books can
/// share a page.
pub struct Book {
    prefix: String,
    images: Vec<Image>,
    symbols: Vec<(usize, Rect)>,
    symbol_ids: BTreeMap<(usize, [i64; 4]), usize>,
    embedded: usize,
    /// Images left out and why, for the pictures' notes.
    pub notes: Vec<String>,
}

/// A region of an embedded image, ready to be drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// The `<symbol>` id.
    pub symbol: String,
    /// The region's size in pixels.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Book {
    /// An empty book whose ids start with `prefix` (letters and digits).
    pub fn new(prefix: &str) -> Book {
        Book {
            prefix: prefix.to_string(),
            images: Vec::new(),
            symbols: Vec::new(),
            symbol_ids: BTreeMap::new(),
            embedded: 0,
            notes: Vec::new(),
        }
    }

    /// Embed the image `bytes` (read from `path`, named in notes) once; its index, or
    /// `None` when it is not an image or over the limits.
    pub fn image(&mut self, path: &str, bytes: &[u8], limits: &Limits) -> Option<usize> {
        let mut hasher = FxHasher::default();
        hasher.write(bytes);
        hasher.write_usize(bytes.len());
        let hash = hasher.finish();
        if let Some(i) = self.images.iter().position(|i| i.hash == hash) {
            return Some(i);
        }
        let Some(head) = header(bytes) else {
            self.notes
                .push(format!("{path}: not an image this page can show"));
            return None;
        };
        if bytes.len() > limits.image_bytes || self.embedded + bytes.len() > limits.page_bytes {
            self.notes.push(format!(
                "{path}: {} KB, not embedded (the page holds {} KB of images at most)",
                bytes.len() / 1024,
                limits.page_bytes / 1024
            ));
            return None;
        }
        self.embedded += bytes.len();
        let uri = format!(
            "data:{};base64,{}",
            head.mime,
            crate::value::packed_base64_encode(bytes)
        );
        self.images.push(Image { hash, head, uri });
        Some(self.images.len() - 1)
    }

    /// An image's size.
    pub fn size(&self, image: usize) -> (f64, f64) {
        let h = &self.images[image].head;
        (h.w, h.h)
    }

    /// Region `src` of `image` (the whole image when `None`) as a symbol to draw.
    pub fn region(&mut self, image: usize, src: Option<Rect>) -> Option<Region> {
        let (w, h) = self.size(image);
        let src = src
            .filter(Rect::has_area)
            .unwrap_or(Rect::new(0.0, 0.0, w, h));
        if !(src.w.is_finite() && src.h.is_finite() && src.w > 0.0 && src.h > 0.0) {
            return None;
        }
        let key = [src.x, src.y, src.w, src.h].map(|v| (v * 1000.0).round() as i64);
        let next = self.symbols.len();
        let n = *self.symbol_ids.entry((image, key)).or_insert(next);
        if n == next {
            self.symbols.push((image, src));
        }
        Some(Region {
            symbol: format!("{}s{n}", self.prefix),
            w: src.w,
            h: src.h,
        })
    }

    /// Whether anything was embedded.
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The `<defs>` content: each image once, each region a symbol.
    pub fn defs(&self) -> String {
        let mut out = String::new();
        for (i, img) in self.images.iter().enumerate() {
            out.push_str(&format!(
                "<image id=\"{}i{i}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"{}\"/>",
                self.prefix,
                num(img.head.w),
                num(img.head.h),
                img.uri
            ));
        }
        for (n, (img, r)) in self.symbols.iter().enumerate() {
            out.push_str(&format!(
                "<symbol id=\"{p}s{n}\" viewBox=\"{} {} {} {}\" preserveAspectRatio=\"none\"><use href=\"#{p}i{img}\"/></symbol>",
                num(r.x),
                num(r.y),
                num(r.w),
                num(r.h),
                p = self.prefix
            ));
        }
        out
    }
}

/// A texture as drawn: an embedded image and the area of it the texture covers (the
/// whole image, or an `AtlasTexture`'s `region`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tex {
    /// The image's index in the book.
    pub image: usize,
    /// The area of the image.
    pub area: Rect,
}

/// What texture value `v` (written in file `f`) shows: an image file, or an
/// `AtlasTexture` (its `atlas`, cut to its `region`); `None` when it names nothing this
/// picture can show (an image not in the repository, a `.res`, a generated texture).
pub fn resolve(
    files: &mut Files,
    book: &mut Book,
    limits: &Limits,
    (f, v): (FileId, &Value),
) -> Option<Tex> {
    resolve_in(files, book, limits, (f, v), 0)
}

fn resolve_in(
    files: &mut Files,
    book: &mut Book,
    limits: &Limits,
    (f, v): (FileId, &Value),
    depth: usize,
) -> Option<Tex> {
    match files.target(f, v, limits)? {
        Target::Image(path) => {
            let bytes = files.bytes(&path, limits);
            let Some(bytes) = bytes else {
                files.notes.push(format!("{path}: not in the repository"));
                return None;
            };
            let image = book.image(&path, &bytes, limits)?;
            let (w, h) = book.size(image);
            Some(Tex {
                image,
                area: Rect::new(0.0, 0.0, w, h),
            })
        }
        Target::Res(r) if depth < 4 && files.res_type(r) == "AtlasTexture" => {
            let atlas = files.value(r.file, r.section, "atlas")?;
            let inner = resolve_in(files, book, limits, (r.file, &atlas), depth + 1)?;
            let region = files
                .value(r.file, r.section, "region")
                .and_then(|v| rect2(&v));
            Some(match region.filter(Rect::has_area) {
                Some(g) => Tex {
                    image: inner.image,
                    area: Rect::new(inner.area.x + g.x, inner.area.y + g.y, g.w, g.h),
                },
                None => inner,
            })
        }
        Target::Res(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_from_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 0, 32, 0, 0, 0, 16]);
        assert_eq!(header(&png).map(|h| (h.w, h.h)), Some((32.0, 16.0)));
        let svg = br#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="128" height="64px">"#;
        assert_eq!(
            header(svg).map(|h| (h.mime, h.w, h.h)),
            Some(("image/svg+xml", 128.0, 64.0))
        );
        let vb = br#"<svg viewBox="0 0 20 10">"#;
        assert_eq!(header(vb).map(|h| (h.w, h.h)), Some((20.0, 10.0)));
        assert_eq!(header(b"not an image"), None);
        let mut gif = b"GIF89a".to_vec();
        gif.extend_from_slice(&[5, 0, 7, 0]);
        assert_eq!(header(&gif).map(|h| (h.w, h.h)), Some((5.0, 7.0)));
    }

    #[test]
    fn an_image_is_embedded_once_and_regions_shared() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&[0, 0, 0, 32, 0, 0, 0, 16]);
        let limits = Limits::default();
        let mut book = Book::new("p");
        let a = book.image("res://a.png", &png, &limits);
        let b = book.image("res://b.png", &png, &limits);
        assert_eq!((a, b), (Some(0), Some(0)));
        let r1 = book.region(0, Some(Rect::new(0.0, 0.0, 8.0, 8.0)));
        let r2 = book.region(0, Some(Rect::new(0.0, 0.0, 8.0, 8.0)));
        assert_eq!(r1, r2);
        assert_eq!(book.region(0, None).map(|r| (r.w, r.h)), Some((32.0, 16.0)));
        let defs = book.defs();
        assert_eq!(defs.matches("<image").count(), 1, "{defs}");
        assert_eq!(defs.matches("<symbol").count(), 2, "{defs}");
        let tiny = Limits {
            image_bytes: 4,
            ..Limits::default()
        };
        assert_eq!(Book::new("q").image("res://big.png", &png, &tiny), None);
    }
}
