//! Reference scanning and rewriting on raw text, without a full parse.
//!
//! Used to rename ids after a merge while keeping every other byte as written, and to
//! pass over text that cannot hold a reference with one search ([`may_name_sub`],
//! [`may_name_ref`]) instead of a walk.

use super::parse::decode_string;
use super::RefKind;
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::sync::LazyLock;

/// The search for `SubResource`, built once: a caller asks it once per section of a big
/// scene, where building it each time would cost more than the search.
static SUB_WORD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"SubResource"));

/// The search for `Resource`, the word `ExtResource` and `SubResource` share.
static REF_WORD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"Resource"));

/// Whether `text` may hold a `SubResource(...)` reference: the walk reports one only
/// where the word is spelled out, so a text (a whole section) without the word holds
/// none, and [`scan_refs_in_text`] over any part of it reports no sub_resource.
pub fn may_name_sub(text: &str) -> bool {
    SUB_WORD.find(text.as_bytes()).is_some()
}

/// Whether `text` may hold an `ExtResource(...)` or `SubResource(...)` reference: false
/// only when [`scan_refs_in_text`] over any part of it reports nothing.
pub fn may_name_ref(text: &str) -> bool {
    REF_WORD.find(text.as_bytes()).is_some()
}

/// One `ExtResource(<id>)` / `SubResource(<id>)` occurrence: kind, id token span, decoded id.
struct Hit<'a> {
    kind: RefKind,
    tok_start: usize,
    tok_end: usize,
    quoted: bool,
    /// Borrowed from the text unless escapes had to be decoded.
    id: Cow<'a, str>,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where a word next occurs in a text, searched forward and remembered: ranges asked
/// about in the text's order cost one pass over the text in all, where a search per
/// range costs a call each (a big scene has a hundred thousand sections). A range
/// before the last one asked about is searched on its own.
pub struct WordAhead<'t> {
    /// The whole text.
    text: &'t [u8],
    /// The word's search.
    word: Finder<'static>,
    /// Where the remembered search started.
    from: usize,
    /// The first occurrence of the word at or after `from` (`Some(None)`: there is
    /// none; `None`: not searched yet).
    at: Option<Option<usize>>,
}

impl<'t> WordAhead<'t> {
    /// `SubResource` in `text`: [`WordAhead::within`] as [`may_name_sub`] of the range.
    pub fn sub(text: &'t str) -> Self {
        Self::new(text, &SUB_WORD)
    }

    /// `Resource` in `text`: [`WordAhead::within`] as [`may_name_ref`] of the range.
    pub fn any_ref(text: &'t str) -> Self {
        Self::new(text, &REF_WORD)
    }

    /// `word` in `text`.
    fn new(text: &'t str, word: &Finder<'_>) -> Self {
        WordAhead {
            text: text.as_bytes(),
            word: word.clone().into_owned(),
            from: 0,
            at: None,
        }
    }

    /// Whether the word occurs inside `range` of the text (a range outside it: yes, so
    /// that the caller looks for itself).
    pub fn within(&mut self, range: std::ops::Range<usize>) -> bool {
        let Some(hay) = self.text.get(range.clone()) else {
            return true;
        };
        if range.start < self.from {
            return self.word.find(hay).is_some();
        }
        // The first occurrence at or after `range.start`: the remembered one unless it
        // lies before (none between `from` and it, and `from <= range.start`).
        let at = match self.at {
            Some(at) if at.is_none_or(|a| a >= range.start) => at,
            _ => {
                self.from = range.start;
                let rest = self.text.get(range.start..).unwrap_or_default();
                let at = self.word.find(rest).map(|k| k + range.start);
                self.at = Some(at);
                at
            }
        };
        let len = self.word.needle().len();
        at.is_some_and(|a| a + len <= range.end)
    }
}

/// Every `SubResource(<id>)` a text spells, found with one search for the word: the
/// offset of each word and what the caller makes of its id (those it makes nothing of
/// left out). A walk over any range of the text ([`scan_refs_in_text`]) reports a
/// sub_resource only where its word lies inside the range, with the id read there, and
/// reading from the word in the whole text gives the same id (a read that ends inside
/// the range ends there in the whole text too); so the entries inside a range are all
/// the walk can report of it (and more: those in strings, comments, cut by the range).
/// Ranges asked mostly in the text's order cost a step each.
pub struct SubsSpelled<T> {
    /// (offset of the word, what its id stands for), in text order.
    at: Vec<(usize, T)>,
    /// Where the last range asked started in `at`: the next answer starts its search
    /// there when its range does not start before.
    hint: std::cell::Cell<usize>,
}

impl<T> SubsSpelled<T> {
    /// The `SubResource(...)` references `text` spells whose id `of` makes something of.
    pub fn new(text: &str, mut of: impl FnMut(&str) -> Option<T>) -> Self
    where
        T: Clone,
    {
        // A big scene spells the same reference thousands of times: one spelled as the
        // last one read (to its `)`) is that one again, not read nor looked up anew.
        let mut last: Option<(&[u8], Option<T>)> = None;
        let bytes = text.as_bytes();
        let at = SUB_WORD
            .find_iter(bytes)
            .filter_map(|i| {
                if let Some((spelled, t)) = &last {
                    if bytes[i..].starts_with(spelled) {
                        return Some((i, t.clone()?));
                    }
                }
                let h = reference_at(text, i)?;
                let t = of(&h.id);
                let end = bytes[h.tok_end..].iter().position(|&b| b == b')');
                last = end.map(|e| (&bytes[i..h.tok_end + e + 1], t.clone()));
                Some((i, t?))
            })
            .collect();
        SubsSpelled {
            at,
            hint: std::cell::Cell::new(0),
        }
    }

    /// The entries whose word starts inside `range`, in text order.
    pub fn within(&self, range: std::ops::Range<usize>) -> &[(usize, T)] {
        let from = self.hint.get().min(self.at.len());
        let before = |e: &(usize, T)| e.0 < range.start;
        let first = if self.at[..from].last().is_none_or(before) {
            from + gallop(&self.at[from..], before)
        } else {
            self.at.partition_point(before)
        };
        self.hint.set(first);
        let rest = &self.at[first..];
        &rest[..gallop(rest, |e| e.0 < range.end)]
    }

    /// The entries `f` makes something of, as it makes them.
    pub fn filter_map<U>(&self, mut f: impl FnMut(&T) -> Option<U>) -> SubsSpelled<U> {
        let at = self.at.iter().filter_map(|(i, t)| Some((*i, f(t)?)));
        SubsSpelled {
            at: at.collect(),
            hint: std::cell::Cell::new(0),
        }
    }

    /// Whether there is no entry at all.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

/// [`slice::partition_point`] searched from the front in growing steps: a cost in the
/// log of the answer, not of the slice's length.
fn gallop<T>(v: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let mut step = 1;
    while step < v.len() && pred(&v[step - 1]) {
        step *= 2;
    }
    let end = step.min(v.len());
    v[..end].partition_point(pred)
}

/// Try to read a reference starting at `i` (the first letter of `ExtResource`/`SubResource`).
fn reference_at(text: &str, i: usize) -> Option<Hit<'_>> {
    let b = text.as_bytes();
    let rest = &b[i..];
    let (kind, n) = if rest.starts_with(b"ExtResource") {
        (RefKind::Ext, 11)
    } else if rest.starts_with(b"SubResource") {
        (RefKind::Sub, 11)
    } else {
        return None;
    };
    let mut j = i + n;
    if j < b.len() && is_ident(b[j]) {
        return None;
    }
    while j < b.len() && b[j] <= b' ' {
        j += 1;
    }
    if j >= b.len() || b[j] != b'(' {
        return None;
    }
    j += 1;
    while j < b.len() && b[j] <= b' ' {
        j += 1;
    }
    let tok_start = j;
    let quoted = j < b.len() && b[j] == b'"';
    if quoted {
        j += 1;
        while j < b.len() && b[j] != b'"' {
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        if j >= b.len() {
            return None;
        }
        j += 1;
    } else {
        if j < b.len() && b[j] == b'-' {
            j += 1;
        }
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
    }
    let tok_end = j;
    if tok_end == tok_start {
        return None;
    }
    while j < b.len() && b[j] <= b' ' {
        j += 1;
    }
    if j >= b.len() || b[j] != b')' {
        return None;
    }
    let tok = text.get(tok_start..tok_end)?;
    let id = if !quoted {
        Cow::Borrowed(tok)
    } else if !tok.contains('\\') && tok.len() >= 2 {
        Cow::Borrowed(&tok[1..tok.len() - 1])
    } else {
        Cow::Owned(decode_string(tok, tok_start).ok()?)
    };
    Some(Hit {
        kind,
        tok_start,
        tok_end,
        quoted,
        id,
    })
}

/// Walk the text, skipping strings and comments, reporting each reference. Jumps with
/// `memchr` from one byte that matters (`"`, `;`, the `R` of `…Resource`) to the next, so
/// long runs of numbers (mesh data) cost next to nothing.
fn walk<'a>(text: &'a str, mut on: impl FnMut(Hit<'a>)) {
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr3(b'"', b';', b'R', &b[i..]) {
        i += k;
        match b[i] {
            b'"' => {
                // To the closing quote, stepping over escapes.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &b[i..]) {
                        Some(k) if b[i + k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k + 1;
                            break;
                        }
                        None => return,
                    }
                    if i >= b.len() {
                        return;
                    }
                }
            }
            b';' => match memchr::memchr(b'\n', &b[i..]) {
                Some(k) => i += k,
                None => return,
            },
            _ => {
                // `R` of `ExtResource` / `SubResource`: the name starts three bytes back.
                let start = i.wrapping_sub(3);
                let named = i >= 3
                    && (&b[start..i] == b"Ext" || &b[start..i] == b"Sub")
                    && (start == 0 || !is_ident(b[start - 1]));
                match named.then(|| reference_at(text, start)).flatten() {
                    Some(h) => {
                        // Continue after the id token; the closing `)` is harmless to rescan.
                        i = h.tok_end;
                        on(h);
                    }
                    None => i += 1,
                }
            }
        }
        if i >= b.len() {
            return;
        }
    }
}

/// Fast reference scan over raw text without a full parse (string- and comment-aware).
pub fn scan_refs_in_text(text: &str, f: &mut dyn FnMut(RefKind, &str)) {
    walk(text, |h| f(h.kind, &h.id));
}

/// Rewrite ExtResource/SubResource ids inside raw value (or header) text, preserving every other byte
/// (spacing, float spellings, comments). String-aware: `"ExtResource(1)"` inside a string is untouched.
/// The new id is written in the form the old one had: `ExtResource( 1 )` stays int-form if the new id
/// is an integer, quoted otherwise.
pub fn rewrite_refs_in_text(
    text: &str,
    f: &mut dyn FnMut(RefKind, &str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    walk(text, |h| {
        if let Some(new) = f(h.kind, &h.id) {
            out.push_str(&text[last..h.tok_start]);
            // Int form only for a canonical decimal, so `"007"` keeps its quotes.
            let int_form = !h.quoted && new.parse::<i64>().is_ok_and(|i| i.to_string() == new);
            if int_form {
                out.push_str(&new);
            } else {
                out.push('"');
                out.push_str(&super::multiline_escape(&new));
                out.push('"');
            }
            last = h.tok_end;
        }
    });
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain byte-at-a-time walk the fast one must agree with.
    fn reference_walk(text: &str) -> Vec<(usize, usize)> {
        let b = text.as_bytes();
        let mut hits = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                b';' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'E' | b'S' if i == 0 || !is_ident(b[i - 1]) => match reference_at(text, i) {
                    Some(h) => {
                        i = h.tok_end;
                        hits.push((h.tok_start, h.tok_end));
                    }
                    None => i += 1,
                },
                _ => i += 1,
            }
        }
        hits
    }

    fn fast_walk(text: &str) -> Vec<(usize, usize)> {
        let mut hits = Vec::new();
        walk(text, |h| hits.push((h.tok_start, h.tok_end)));
        hits
    }

    #[test]
    fn fast_walk_agrees_with_the_plain_one_on_random_text() {
        const PIECES: &[&str] = &[
            "ExtResource(",
            "SubResource(",
            "ExtResource( 1 )",
            "SubResource(\"a_b\")",
            "XExtResource(\"1\")",
            "\"",
            "\\",
            ";",
            "\n",
            " ",
            "R",
            "Res",
            "Ext",
            "Sub",
            "1",
            "\"x\"",
            ")",
            "Rect2(1, 2)",
            "é",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let n = (next() % 24) as usize;
            let text: String = (0..n)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            assert_eq!(fast_walk(&text), reference_walk(&text), "{text:?}");
        }
    }

    /// The kinds the walk reports in `text`.
    fn kinds(text: &str) -> (bool, bool) {
        let (mut ext, mut sub) = (false, false);
        scan_refs_in_text(text, &mut |k, _| match k {
            RefKind::Ext => ext = true,
            RefKind::Sub => sub = true,
        });
        (ext, sub)
    }

    /// A text the quick searches pass over holds nothing the walk reports, and one the
    /// walk finds a reference in is never passed over.
    #[test]
    fn the_quick_searches_pass_over_only_text_without_references() {
        let texts = [
            "",
            "position = Vector2(1, 2)",
            "shape = SubResource(\"a\")",
            "script = ExtResource( 1 )",
            "s = \"SubResource(1)\"",
            "x = XSubResource(1)",
            "m = [SubResource(\"a\"), ExtResource(\"2\")]",
            "; SubResource(1)\nv = 1",
            "Sub Resource(1)",
        ];
        for t in texts {
            let (ext, sub) = kinds(t);
            assert!(!sub || may_name_sub(t), "{t:?}");
            assert!(!(ext || sub) || may_name_ref(t), "{t:?}");
        }
        assert!(!may_name_sub(
            "position = Vector2(1, 2)\nscript = ExtResource(1)"
        ));
        assert!(!may_name_ref("position = Vector2(1, 2)\nname = \"Res\""));
        assert!(may_name_sub("a = SubResource(1)") && may_name_ref("b = ExtResource(1)"));
    }

    /// Asked about ranges in any order, the remembered search answers as a search of
    /// each range on its own.
    #[test]
    fn a_word_ahead_agrees_with_a_search_per_range() {
        let mut next = crate::test_support::rng(0x2545_f491_4f6c_dd1d);
        const PIECES: &[&str] = &["SubResource", "Sub", "Resource", "ExtResource", "x", "\n"];
        for _ in 0..2_000 {
            let text: String = (0..next(12)).map(|_| PIECES[next(PIECES.len())]).collect();
            let (mut sub, mut any) = (WordAhead::sub(&text), WordAhead::any_ref(&text));
            let mut start = 0;
            for _ in 0..8 {
                // Mostly forward, sometimes back, sometimes past the end.
                start = if next(4) == 0 {
                    next(text.len() + 2)
                } else {
                    start + next(9)
                };
                let end = start + next(30);
                let want = |f: fn(&str) -> bool| text.get(start..end).is_none_or(f);
                assert_eq!(
                    sub.within(start..end),
                    want(may_name_sub),
                    "{text:?} {start}..{end}"
                );
                assert_eq!(
                    any.within(start..end),
                    want(may_name_ref),
                    "{text:?} {start}..{end}"
                );
            }
        }
    }

    /// Whether `small` is `big` with some entries left out.
    fn is_subsequence(small: &[String], big: &[String]) -> bool {
        let mut big = big.iter();
        small.iter().all(|x| big.any(|y| y == x))
    }

    /// Asked about ranges in any order, the entries inside a range are those of the
    /// whole list there, and every sub_resource id the walk reports over the range is
    /// among them, in order (escaped ids, strings, comments, references cut by the
    /// range).
    #[test]
    fn the_subs_spelled_hold_every_id_the_walk_reports_in_a_range() {
        let mut next = crate::test_support::rng(0x1234_5678_9abc_def1);
        const PIECES: &[&str] = &[
            "SubResource(\"a\")",
            "SubResource(\"b\\u0061\")",
            "SubResource( 7 )",
            "ExtResource( 12 )",
            "SubResource(",
            "XSubResource(\"a\")",
            "b",
            "a\")",
            "\"",
            ";",
            "\n",
            "1",
            " ",
        ];
        for _ in 0..3_000 {
            let text: String = (0..next(14)).map(|_| PIECES[next(PIECES.len())]).collect();
            let spelled = SubsSpelled::new(&text, |id| Some(id.to_string()));
            let all = spelled.at.clone();
            let mut start = 0;
            for _ in 0..8 {
                start = if next(3) == 0 {
                    next(text.len() + 1)
                } else {
                    (start + next(12)).min(text.len())
                };
                let end = (start + next(40)).min(text.len());
                let got = spelled.within(start..end);
                let inside = all.iter().filter(|e| (start..end).contains(&e.0));
                let want: Vec<(usize, String)> = inside.cloned().collect();
                assert_eq!(got, &want[..], "{text:?} {start}..{end}");
                let Some(part) = text.get(start..end) else {
                    continue;
                };
                let mut walked = Vec::new();
                scan_refs_in_text(part, &mut |k, id| {
                    if k == RefKind::Sub {
                        walked.push(id.to_string());
                    }
                });
                let ids: Vec<String> = got.iter().map(|e| e.1.clone()).collect();
                assert!(is_subsequence(&walked, &ids), "{text:?} {start}..{end}");
            }
        }
    }

    /// On every section of the corpus, a span the quick searches pass over has no
    /// property or tag field the walk finds a reference in.
    #[test]
    fn the_quick_searches_agree_with_the_walk_on_the_corpus() {
        for (stored, text) in &crate::test_support::corpus_texts(7) {
            let Ok(scene) = crate::model::Scene::parse(text.as_bytes()) else {
                continue;
            };
            let doc = &scene.doc;
            for sec in &doc.sections {
                let span = doc.slice(&sec.span);
                let parts = sec.props.iter().map(|p| &p.value);
                for v in parts.chain(sec.tag.fields.iter().map(|f| &f.value)) {
                    let (ext, sub) = kinds(doc.slice(v));
                    assert!(!sub || may_name_sub(span), "{stored}");
                    assert!(!(ext || sub) || may_name_ref(span), "{stored}");
                }
            }
        }
    }

    #[test]
    fn fast_walk_agrees_with_the_plain_one_on_the_corpus() {
        let texts = crate::test_support::corpus_texts(7);
        for (stored, text) in &texts {
            assert_eq!(fast_walk(text), reference_walk(text), "{stored}");
        }
        let files = texts.len();
        assert!(
            files > 1000 || crate::test_support::shared_dir().is_none(),
            "{files} corpus files read"
        );
    }
}
