//! Three-way structural merge of ConfigFile-format files.
//!
//! Sections merge by name and keys by name within them. A section or key only one side
//! changed takes that side's bytes; one both changed the same way is kept once; a value
//! both changed differently is merged by its parts where [`super::values`] can (sets,
//! dictionaries, input events, script classes), and is otherwise a conflict: a small
//! git-style hunk around that key's lines, so either resolution parses and keeps the other
//! side's clean changes. New sections go where Godot's `ProjectSettings` sorts them when
//! both sides' sections are sorted, else after the section they follow on their side;
//! new keys likewise (`[autoload]` keeps load order: never sorted). Both sides creating a
//! generated sidecar (`.import`, `.uid`) with different uids: ours' uid, clean, said so.
//!
//! Untouched sections and keys keep their bytes. A merge that cannot be made this way, or
//! whose result does not parse, gives way to the line merge (`crate::linemerge`), as the
//! scene merge does. Placement of pieces is in `Layout`; deciding is here.

use super::decision::{describe, describe_key, ConfigDecision};
use super::model::{is_sorted, same_section, same_value, sections, SectionRef};
use super::syntax::{Document, Item, ItemKind};
use super::ConfigKind;
use crate::linemerge::{merge_lines, write_conflict, MarkerOptions};
use placement::{place, place_key};
use renames::renamed_from;

mod placement;
mod renames;

/// How the result was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigMethod {
    /// One side equal to the base or both equal: the other side as is.
    Trivial,
    /// Merged by section and key.
    Structural,
    /// The line merge, for the reason given.
    LineFallback(String),
}

/// One key (or section) left in conflict: where, and the three values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyConflict {
    /// The section (`""` for the lines before the first section).
    pub section: String,
    /// The key, `None` when a whole section is in conflict (deleted against changed).
    pub key: Option<String>,
    /// Base value text (`None`: absent).
    pub base: Option<String>,
    /// Ours.
    pub ours: Option<String>,
    /// Theirs.
    pub theirs: Option<String>,
}

/// The outcome of [`merge_config`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigMerge {
    /// The merged text, with conflict markers where `conflicts` is not empty.
    pub text: Vec<u8>,
    /// Number of conflict hunks in `text`.
    pub conflict_count: usize,
    /// What conflicts, key by key (empty after a line fallback).
    pub conflicts: Vec<KeyConflict>,
    /// Every automatic decision (`--explain`; a sentence through `Display`).
    pub decisions: Vec<ConfigDecision>,
    /// How the result was made.
    pub method: ConfigMethod,
}

/// Merge three versions of a ConfigFile (`kind` from the file name, for the sidecar rule).
pub fn merge_config(
    kind: Option<ConfigKind>,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MarkerOptions,
) -> ConfigMerge {
    if ours == theirs || base == theirs {
        return trivial(ours);
    }
    // A byte order mark is no line of the file: ours' (present or not) starts the result,
    // as ours' line ending ends its lines, and one side's alone never lands mid-file.
    let strip = |s: &'_ [u8]| -> Vec<u8> { s.strip_prefix(BOM).unwrap_or(s).to_vec() };
    let (b, o, t) = (strip(base), strip(ours), strip(theirs));
    let mut m = if b == o {
        trivial(&t)
    } else if o == t || b == t {
        trivial(&o)
    } else {
        match structural(kind, &b, &o, &t, opts) {
            Ok(m) => m,
            Err(reason) => line_fallback(&b, &o, &t, opts, reason),
        }
    };
    if ours.starts_with(BOM) {
        m.text.splice(0..0, BOM.iter().copied());
    }
    m
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = "\u{feff}".as_bytes();

fn trivial(side: &[u8]) -> ConfigMerge {
    ConfigMerge {
        text: side.to_vec(),
        conflict_count: 0,
        conflicts: Vec::new(),
        decisions: Vec::new(),
        method: ConfigMethod::Trivial,
    }
}

/// The line merge of three ConfigFile texts, as `git merge-file` makes it, with `reason`
/// as its one decision: what a merge falls back to when the structural one cannot run
/// (an unparsable side here, or the caller's time limit).
pub fn line_fallback(
    b: &[u8],
    o: &[u8],
    t: &[u8],
    opts: &MarkerOptions,
    reason: String,
) -> ConfigMerge {
    let lm = merge_lines(b, o, t, opts);
    ConfigMerge {
        text: lm.text,
        conflict_count: lm.conflicts,
        conflicts: Vec::new(),
        decisions: vec![ConfigDecision::new(
            "fell_back",
            format!("merged line by line, as git does: {reason}"),
        )],
        method: ConfigMethod::LineFallback(reason),
    }
}

fn parse_side(name: &str, bytes: &[u8]) -> Result<Document, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{name} is not UTF-8"))?;
    let doc = Document::parse(text).map_err(|e| format!("{name} does not parse ({e})"))?;
    match super::check::check_config(text) {
        Ok(p) if p.is_empty() => Ok(doc),
        Ok(p) => Err(format!("{name} line {}: {}", p[0].line, p[0].message)),
        Err(e) => Err(format!("{name} does not parse ({e})")),
    }
}

fn structural(
    kind: Option<ConfigKind>,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MarkerOptions,
) -> Result<ConfigMerge, String> {
    let (b, o, t) = (
        parse_side("base", base)?,
        parse_side("ours", ours)?,
        parse_side("theirs", theirs)?,
    );
    let mut m = Merger {
        kind,
        b: &b,
        o: &o,
        t: &t,
        out: Layout::new(opts, o.crlf()),
        conflicts: Vec::new(),
        decisions: Vec::new(),
        added_file: base.iter().all(u8::is_ascii_whitespace),
    };
    m.merge_sections();
    let Merger {
        out,
        conflicts,
        decisions,
        ..
    } = m;
    let trailing = sections(&o).last().map_or(0, |s| {
        s.items
            .iter()
            .rev()
            .take_while(|i| i.kind == ItemKind::Blank)
            .count()
    });
    let (text, resolutions, count) = out.finish(o.text.ends_with('\n'), trailing);
    for (side, r) in ["ours", "theirs"].iter().zip(&resolutions) {
        if let Err(e) = Document::parse(r) {
            return Err(format!(
                "the merged text taking {side} in every conflict would not parse ({e})"
            ));
        }
    }
    if count == 0 && !super::check::check_config(&text).is_ok_and(|p| p.is_empty()) {
        return Err("the merged text would not be valid".into());
    }
    Ok(ConfigMerge {
        text: text.into_bytes(),
        conflict_count: count,
        conflicts,
        decisions,
        method: ConfigMethod::Structural,
    })
}

/// What one key's three-way merge gives.
enum KeyOutcome {
    /// Ours' bytes.
    Ours,
    /// Theirs' bytes (changed or added by theirs).
    Theirs,
    /// Gone (deleted by one side, unchanged by the other).
    Drop,
    /// A merged value (the new value text).
    Value(String),
    /// Both changed it differently.
    Conflict,
}

/// Result pieces being laid out: the marked text and both all-one-side resolutions.
struct Layout<'o> {
    opts: &'o MarkerOptions,
    eol: &'static str,
    /// Per section of the result: its pieces.
    sections: Vec<Vec<Piece>>,
}

/// A piece of output.
#[derive(Debug, Clone)]
enum Piece {
    /// Text in every version of the result; `blank` for an empty line.
    Same { text: String, blank: bool },
    /// A conflict: base, ours, theirs texts.
    Conflict {
        base: String,
        ours: String,
        theirs: String,
    },
}

impl<'o> Layout<'o> {
    fn new(opts: &'o MarkerOptions, crlf: bool) -> Self {
        Layout {
            opts,
            eol: if crlf { "\r\n" } else { "\n" },
            sections: Vec::new(),
        }
    }

    /// The marked text, the all-ours and all-theirs resolutions, and the hunk count.
    fn finish(mut self, final_newline: bool, trailing: usize) -> (String, [String; 2], usize) {
        let n = self.sections.len();
        for i in 0..n {
            let is_last = i + 1 == n;
            let s = &mut self.sections[i];
            if is_last {
                while matches!(s.last(), Some(Piece::Same { blank: true, .. })) {
                    s.pop();
                }
                for _ in 0..trailing {
                    s.push(Piece::Same {
                        text: self.eol.into(),
                        blank: true,
                    });
                }
            } else if !s.is_empty() && !matches!(s.last(), Some(Piece::Same { blank: true, .. })) {
                s.push(Piece::Same {
                    text: self.eol.into(),
                    blank: true,
                });
            }
        }
        let pieces: Vec<Piece> = self.sections.into_iter().flatten().collect();
        let (mut marked, mut ours, mut theirs, mut count) =
            (Vec::new(), String::new(), String::new(), 0);
        let mut i = 0;
        while i < pieces.len() {
            match &pieces[i] {
                Piece::Same { text, .. } => {
                    marked.extend_from_slice(text.as_bytes());
                    ours.push_str(text);
                    theirs.push_str(text);
                    i += 1;
                }
                Piece::Conflict { .. } => {
                    // Neighbouring conflicts share one hunk, as git joins them.
                    let (mut b, mut o, mut t) = (String::new(), String::new(), String::new());
                    while let Some(Piece::Conflict { base, ours, theirs }) = pieces.get(i) {
                        b.push_str(base);
                        o.push_str(ours);
                        t.push_str(theirs);
                        i += 1;
                    }
                    write_conflict(
                        &mut marked,
                        b.as_bytes(),
                        o.as_bytes(),
                        t.as_bytes(),
                        self.opts,
                    );
                    ours.push_str(&o);
                    theirs.push_str(&t);
                    count += 1;
                }
            }
        }
        let mut text = String::from_utf8(marked).unwrap_or_default();
        if !final_newline {
            for s in [&mut text, &mut ours, &mut theirs] {
                if s.ends_with('\n') {
                    s.pop();
                    if s.ends_with('\r') {
                        s.pop();
                    }
                }
            }
        }
        (text, [ours, theirs], count)
    }
}

/// The merge of three parsed files.
struct Merger<'a, 'o> {
    kind: Option<ConfigKind>,
    b: &'a Document,
    o: &'a Document,
    t: &'a Document,
    out: Layout<'o>,
    conflicts: Vec<KeyConflict>,
    decisions: Vec<ConfigDecision>,
    /// Both sides created the file (git hands an empty base).
    added_file: bool,
}

/// Where a section of the result comes from.
#[derive(Debug, Clone)]
enum SectionPlan {
    /// Present in ours (maybe in base and theirs too): merged key by key.
    Merge(String),
    /// Added by theirs only: theirs' bytes.
    Theirs(String),
    /// Deleted by one side, changed by the other.
    Conflict(String),
}

impl<'a, 'o> Merger<'a, 'o> {
    fn merge_sections(&mut self) {
        let (bs, os, ts) = (sections(self.b), sections(self.o), sections(self.t));
        // The first section of each name, looked up rather than searched: a hostile
        // file may hold tens of thousands.
        let firsts = |v: &[SectionRef<'a>]| {
            let mut by = std::collections::BTreeMap::new();
            for s in v {
                by.entry(s.name).or_insert(*s);
            }
            by
        };
        let (bf, of, tf) = (firsts(&bs), firsts(&os), firsts(&ts));
        let mut plan: Vec<SectionPlan> = Vec::new();
        for s in &os {
            match (bf.get(s.name).copied(), tf.get(s.name).copied()) {
                (Some(b), None) if same_section(self.b, &b, self.o, s) => {
                    let m = format!("{} deleted by theirs", describe(s.name));
                    let d = ConfigDecision::new("section_deleted", m).at(s.name, None);
                    self.decisions.push(d.side("theirs"));
                }
                (Some(_), None) => plan.push(SectionPlan::Conflict(s.name.into())),
                _ => plan.push(SectionPlan::Merge(s.name.into())),
            }
        }
        let names = |v: &[SectionRef<'_>]| {
            v.iter()
                .skip(1)
                .map(|s| s.name.to_string())
                .collect::<Vec<_>>()
        };
        let sorted = is_sorted(&names(&os)) && is_sorted(&names(&ts));
        for (i, s) in ts.iter().enumerate() {
            if of.contains_key(s.name) {
                continue;
            }
            let piece = match bf.get(s.name).copied() {
                Some(b) if same_section(self.b, &b, self.t, s) => {
                    let m = format!("{} deleted by ours", describe(s.name));
                    let d = ConfigDecision::new("section_deleted", m).at(s.name, None);
                    self.decisions.push(d.side("ours"));
                    continue;
                }
                Some(_) => SectionPlan::Conflict(s.name.into()),
                None => SectionPlan::Theirs(s.name.into()),
            };
            let at = place(&plan, &ts[..i], s.name, sorted, &bs, |p| match p {
                SectionPlan::Merge(n) | SectionPlan::Theirs(n) | SectionPlan::Conflict(n) => n,
            });
            if sorted && matches!(piece, SectionPlan::Theirs(_)) {
                let m = format!(
                    "{} added by theirs, placed in Godot's sorted order",
                    describe(s.name)
                );
                let d = ConfigDecision::new("section_placed_sorted", m).at(s.name, None);
                self.decisions.push(d.side("theirs"));
            }
            plan.insert(at, piece);
        }
        for p in plan {
            let pieces = match p {
                SectionPlan::Merge(n) => self.merge_section(&n),
                SectionPlan::Theirs(n) => whole(self.t, tf.get(n.as_str()).copied()),
                SectionPlan::Conflict(n) => self.section_conflict(&n),
            };
            self.out.sections.push(pieces);
        }
    }

    /// A section deleted by one side and changed by the other: one hunk of it.
    fn section_conflict(&mut self, name: &str) -> Vec<Piece> {
        let text = |d: &Document| {
            let s = super::model::section(d, name);
            whole(d, s).iter().map(piece_text).collect::<String>()
        };
        let (b, o, t) = (text(self.b), text(self.o), text(self.t));
        self.conflicts.push(KeyConflict {
            section: name.into(),
            key: None,
            base: Some(format!("[{name}]")),
            ours: (!o.is_empty()).then(|| format!("[{name}]")),
            theirs: (!t.is_empty()).then(|| format!("[{name}]")),
        });
        vec![Piece::Conflict {
            base: b,
            ours: o,
            theirs: t,
        }]
    }

    /// One section present in ours, merged key by key with base's and theirs'.
    fn merge_section(&mut self, name: &str) -> Vec<Piece> {
        let os = super::model::section(self.o, name).expect("planned from ours");
        let bs = super::model::section(self.b, name);
        let ts = super::model::section(self.t, name);
        if let (Some(ou), Some(tu)) = (os.uid(), ts.and_then(|t| t.uid())) {
            return self.merge_uid(os, ou, tu, bs.and_then(|b| b.uid()));
        }
        let mut pieces: Vec<(Option<String>, Piece)> = Vec::new();
        if let Some(h) = os.header {
            pieces.push((None, same(self.o, h, false)));
        }
        let theirs_renamed = self.theirs_renames(name);
        for item in os.items {
            let ItemKind::Entry(e) = &item.kind else {
                pieces.push((None, same(self.o, &item.span, item.kind == ItemKind::Blank)));
                continue;
            };
            if let Some(new) = theirs_renamed.get(&e.key) {
                if let Some(p) = self.theirs_renamed_piece(name, new, e, ts) {
                    pieces.push((Some(new.clone()), p));
                    continue;
                }
            }
            if let Some(old) = renamed_from((self.o, Some(os)), ts, (self.b, bs), &e.key) {
                pieces.push((
                    Some(e.key.clone()),
                    self.renamed_piece(name, &old, (item, e), bs, ts),
                ));
                continue;
            }
            let b = bs.and_then(|s| s.get(&e.key));
            let t = ts.and_then(|s| s.get(&e.key));
            if let Some(p) = self.key_piece(name, &e.key, b, Some((item, e)), t) {
                pieces.push((Some(e.key.clone()), p));
            }
        }
        if let Some(ts) = ts {
            let skip = theirs_renamed.into_values().collect();
            self.add_theirs_keys(name, (&os, bs, &ts), &skip, &mut pieces);
        }
        pieces.into_iter().map(|p| p.1).collect()
    }

    /// Theirs' keys that ours does not have, placed after the key they follow in theirs.
    /// `placed`: the keys theirs renamed, already in ours' place of the old key.
    fn add_theirs_keys(
        &mut self,
        name: &str,
        (os, bs, ts): (&SectionRef<'a>, Option<SectionRef<'a>>, &SectionRef<'a>),
        placed: &std::collections::BTreeSet<String>,
        pieces: &mut Vec<(Option<String>, Piece)>,
    ) {
        let keys = |s: &SectionRef<'_>| s.entries().map(|(_, e)| e.key.clone()).collect::<Vec<_>>();
        let (ok, tk) = (keys(os), keys(ts));
        let sorted =
            name != "autoload" && ok.len() > 1 && tk.len() > 1 && is_sorted(&ok) && is_sorted(&tk);
        let entries: Vec<_> = ts.entries().collect();
        // The base keys ours renamed, found once (a scan per key of theirs was cubic).
        let renamed_by_ours: std::collections::BTreeSet<String> = os
            .entries()
            .filter_map(|(_, o)| renamed_from((self.o, Some(*os)), Some(*ts), (self.b, bs), &o.key))
            .collect();
        for (i, &(item, e)) in entries.iter().enumerate() {
            if os.get(&e.key).is_some()
                || renamed_by_ours.contains(&e.key)
                || placed.contains(&e.key)
            {
                continue;
            }
            let b = bs.and_then(|s| s.get(&e.key));
            let Some(p) = self.key_piece(name, &e.key, b, None, Some((item, e))) else {
                continue;
            };
            let before: Vec<&str> = entries[..i].iter().map(|(_, e)| e.key.as_str()).collect();
            let at = place_key(pieces, &before, &e.key, sorted, |k| {
                bs.and_then(|s| s.get(k)).is_some() || ts.get(k).is_some()
            });
            pieces.insert(at, (Some(e.key.clone()), p));
        }
    }
}

/// A `.uid` line itself, or `None` in a file without one.
type Side<'a> = Option<(&'a Item, &'a super::syntax::Entry)>;

impl<'a, 'o> Merger<'a, 'o> {
    /// The piece one key gives, `None` when it is gone from the result.
    fn key_piece(
        &mut self,
        sec: &str,
        key: &str,
        b: Side<'a>,
        o: Side<'a>,
        t: Side<'a>,
    ) -> Option<Piece> {
        let val = |d: &'a Document, s: Side<'a>| s.map(|(_, e)| d.slice(&e.value));
        let (bv, ov, tv) = (val(self.b, b), val(self.o, o), val(self.t, t));
        let eq = |x: Option<&str>, y: Option<&str>| match (x, y) {
            (Some(x), Some(y)) => same_value(x, y),
            (None, None) => true,
            _ => false,
        };
        let outcome = if eq(ov, tv) || eq(bv, tv) {
            if o.is_some() {
                KeyOutcome::Ours
            } else {
                KeyOutcome::Drop
            }
        } else if eq(bv, ov) {
            if t.is_some() {
                KeyOutcome::Theirs
            } else {
                KeyOutcome::Drop
            }
        } else {
            self.both_changed(sec, key, bv, ov, tv)
        };
        let text = |d: &Document, s: Side<'_>| {
            s.map(|(i, _)| d.slice(&i.span).to_string())
                .unwrap_or_default()
        };
        match outcome {
            KeyOutcome::Ours => Some(same(self.o, &o?.0.span, false)),
            KeyOutcome::Theirs => Some(Piece::Same {
                text: with_eol(text(self.t, t), self.out.eol),
                blank: false,
            }),
            KeyOutcome::Drop => None,
            KeyOutcome::Value(v) => {
                let (item, e) = o?;
                let line = self.o.slice(&item.span);
                let (s, end) = (
                    e.value.start - item.span.start,
                    e.value.end - item.span.start,
                );
                Some(Piece::Same {
                    text: format!("{}{v}{}", &line[..s], &line[end..]),
                    blank: false,
                })
            }
            KeyOutcome::Conflict => {
                self.conflicts.push(KeyConflict {
                    section: sec.into(),
                    key: Some(key.into()),
                    base: bv.map(String::from),
                    ours: ov.map(String::from),
                    theirs: tv.map(String::from),
                });
                let eol = self.out.eol;
                let side = |d: &Document, s: Side<'_>| {
                    let t = text(d, s);
                    if t.is_empty() {
                        t
                    } else {
                        with_eol(t, eol)
                    }
                };
                Some(Piece::Conflict {
                    base: side(self.b, b),
                    ours: side(self.o, o),
                    theirs: side(self.t, t),
                })
            }
        }
    }

    /// Both sides changed one key differently: a merge of its parts, the sidecar rule, or
    /// a conflict.
    fn both_changed(
        &mut self,
        sec: &str,
        key: &str,
        b: Option<&str>,
        o: Option<&str>,
        t: Option<&str>,
    ) -> KeyOutcome {
        let (Some(ov), Some(tv)) = (o, t) else {
            return KeyOutcome::Conflict;
        };
        let sidecar = self.kind.is_some_and(ConfigKind::is_sidecar);
        if sidecar && key == "uid" && (b.is_none() || self.added_file) {
            let m = format!(
                "both sides created this sidecar with different uids: kept ours' {ov} (theirs' {tv}; \
                 scenes saved on theirs' branch may still refer to it: re-save them, or run `check` on them)"
            );
            let d = ConfigDecision::new("sidecar_uid_kept_ours", m).at(sec, Some(key));
            let unquoted = |v: &str| v.trim_matches('"').to_string();
            self.decisions
                .push(d.side("ours").values(&unquoted(ov), &unquoted(tv)));
            return KeyOutcome::Ours;
        }
        match super::values::merge_value(b, ov, tv) {
            Some(v) => {
                let m = format!(
                    "{}: both sides changed its parts; merged part by part",
                    describe_key(sec, key)
                );
                let d = ConfigDecision::new("value_merged_inside", m).at(sec, Some(key));
                self.decisions.push(d);
                KeyOutcome::Value(v)
            }
            None => KeyOutcome::Conflict,
        }
    }

    /// A `.uid` sidecar changed (or created) by both sides: ours' uid.
    fn merge_uid(
        &mut self,
        os: SectionRef<'a>,
        ou: &str,
        tu: &str,
        bu: Option<&str>,
    ) -> Vec<Piece> {
        let all = whole(self.o, Some(os));
        if ou == tu || bu == Some(tu) {
            return all;
        }
        if bu == Some(ou) {
            return whole(self.t, super::model::section(self.t, ""));
        }
        let m = format!(
            "both sides created this `.uid` sidecar with different ids: kept ours' {ou} (theirs' {tu}; \
             scenes saved on theirs' branch may refer to it by that id: re-save them, or run `check` on them)"
        );
        let d = ConfigDecision::new("sidecar_uid_kept_ours", m).at("", None);
        self.decisions.push(d.side("ours").values(ou, tu));
        all
    }
}

fn same(d: &Document, r: &std::ops::Range<usize>, blank: bool) -> Piece {
    Piece::Same {
        text: d.slice(r).to_string(),
        blank,
    }
}

fn with_eol(mut s: String, eol: &str) -> String {
    if !s.ends_with('\n') {
        s.push_str(eol);
    }
    s
}

fn piece_text(p: &Piece) -> String {
    match p {
        Piece::Same { text, .. } => text.clone(),
        Piece::Conflict { ours, .. } => ours.clone(),
    }
}

/// A whole section of `d`, as it is.
fn whole(d: &Document, s: Option<SectionRef<'_>>) -> Vec<Piece> {
    let Some(s) = s else {
        return Vec::new();
    };
    let mut out: Vec<Piece> = s.header.map(|h| same(d, h, false)).into_iter().collect();
    for i in s.items {
        let text = with_eol(
            d.slice(&i.span).to_string(),
            if d.crlf() { "\r\n" } else { "\n" },
        );
        out.push(Piece::Same {
            text,
            blank: i.kind == ItemKind::Blank,
        });
    }
    out
}
