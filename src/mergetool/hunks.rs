//! The merged text cut into clean spans and conflicts, where each conflict is (its
//! section, and the property whose value it lies inside, as an animation's keys), and the
//! text a set of choices composes, validated as `check` validates a scene or a
//! ConfigFile. Pure: the server, the page and the tables of properties are others'.
//!
//! The markers are read with the library's [`gdscene::solve::parse_markers`]; the
//! places (section headers) are read from the lines around them.

use gdscene::solve::{parse_markers, Piece};

/// One conflict block: the three sections and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// 1-based line of its `<<<<<<<` in the merged text.
    pub line: usize,
    /// The section header it is under (`[node name="Sprite" parent="."]`).
    pub header: String,
    /// Our lines.
    pub ours: String,
    /// The base lines (diff3 style), when the block has them.
    pub base: Option<String>,
    /// Their lines.
    pub theirs: String,
    /// The section it is in, as an index into [`Merged::sections`].
    pub section: usize,
    /// The property whose value the conflict lies inside, when it does.
    pub within: Option<Within>,
}

/// A conflict inside one property's value (a line of an animation's `keys` dictionary):
/// the property, and its whole value on each side (every conflict inside the value
/// taken from that side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Within {
    /// The property's key (`tracks/0/keys`).
    pub key: String,
    /// The value (after `key = `) on base (`None`: the markers carry no base), ours
    /// and theirs.
    pub values: [Option<String>; 3],
}

/// A piece of the merged text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Clean text, part of the result whatever is chosen.
    Text(String),
    /// The conflict of this index.
    Conflict(usize),
}

/// The merged text, cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// Clean text and conflicts, in file order.
    pub spans: Vec<Span>,
    /// The conflicts, in file order.
    pub conflicts: Vec<Conflict>,
    /// Each section's text, from its header line on, conflicts taken from ours (the
    /// lines before the first header are section 0): where a track's path and type are
    /// read.
    pub sections: Vec<String>,
}

/// What the user chose for one conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Our lines.
    Ours,
    /// Their lines.
    Theirs,
    /// The base lines.
    Base,
    /// Lines the user typed.
    Typed(String),
}

/// Whether a line is a section header (`[node name="A" ...]`, `[application]`).
fn is_header(line: &str) -> bool {
    line.starts_with('[') && line.trim_end().ends_with(']')
}

/// The key a line sets (`key = value` in a scene, `key=value` in a ConfigFile), if any.
pub fn key_of(line: &str) -> Option<&str> {
    if is_header(line) {
        return None;
    }
    let (k, _) = line.split_once('=')?;
    let k = k.trim_end();
    let plain = !k.is_empty() && !k.starts_with(' ') && !k.contains(['"', '{', '[', '(', ' ', ',']);
    plain.then_some(k)
}

/// Brackets opened and not closed in `text`, strings left out.
fn depth(text: &str) -> i64 {
    let (mut d, mut in_string, mut escaped) = (0i64, false, false);
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' | '(' => d += 1,
            '}' | ']' | ')' => d -= 1,
            _ => {}
        }
    }
    d
}

/// A span's text with every conflict taken from `side` (0 base, 1 ours, 2 theirs);
/// `None` for a base the markers do not carry.
fn side_text<'m>(span: &'m Span, conflicts: &'m [Conflict], side: usize) -> Option<&'m str> {
    match span {
        Span::Text(t) => Some(t),
        Span::Conflict(i) => {
            let c = &conflicts[*i];
            [c.base.as_deref(), Some(&c.ours), Some(&c.theirs)][side]
        }
    }
}

/// The last line of `t` that is a header or sets a key, and where it starts; read from
/// the end, so a long span is not read whole.
fn last_start(t: &str) -> Option<(usize, &str)> {
    let mut end = t.len();
    while end > 0 {
        let start = t.as_bytes()[..end - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let l = &t[start..end];
        if is_header(l) || key_of(l).is_some() {
            return Some((start, l));
        }
        end = start;
    }
    None
}

/// The property whose value the conflict at span `k` lies inside: the last property
/// line before it (no header between) whose brackets are still open at the conflict,
/// and its value on each side up to where the brackets close (conflicts further inside
/// the value taken from the same side).
fn within(spans: &[Span], conflicts: &[Conflict], k: usize) -> Option<Within> {
    let ours = |j: usize| side_text(&spans[j], conflicts, 1).unwrap_or_default();
    // Back to the line the property starts on: span `first`, byte `from`.
    let (first, from, key) = (0..k).rev().take(4096).find_map(|j| {
        let t = ours(j);
        last_start(t).map(|(off, l)| (j, off, key_of(l)))
    })?;
    // A property line inside another conflict is that conflict's own business.
    let key = key.filter(|_| matches!(spans[first], Span::Text(_)))?;
    let mut open = depth(&ours(first)[from..]);
    for j in first + 1..k {
        open += depth(ours(j));
    }
    if open <= 0 {
        return None;
    }
    open += depth(ours(k));
    // On to the line its brackets close on: span `last`, up to byte `to`.
    let (mut last, mut to) = (k, ours(k).len());
    for (j, span) in spans.iter().enumerate().skip(k + 1).take(4096) {
        if open <= 0 {
            break;
        }
        let t = ours(j);
        (last, to) = (j, 0);
        if matches!(span, Span::Conflict(_)) {
            open += depth(t);
            to = t.len();
            continue;
        }
        for l in t.split_inclusive('\n') {
            if open <= 0 || is_header(l) || key_of(l).is_some() {
                break;
            }
            open += depth(l);
            to += l.len();
        }
    }
    let value = |side: usize| -> Option<String> {
        let mut v = String::new();
        for (j, span) in spans.iter().enumerate().take(last + 1).skip(first) {
            let t = side_text(span, conflicts, side)?;
            let t = if j == last && matches!(span, Span::Text(_)) {
                &t[..to]
            } else {
                t
            };
            v.push_str(if j == first { &t[from..] } else { t });
        }
        let v = v.split_once('=').map_or("", |(_, v)| v.trim_start());
        Some(v.trim_end().to_string())
    };
    Some(Within {
        key: key.to_string(),
        values: [value(0), value(1), value(2)],
    })
}

/// Cut a merged text with markers of `marker_size` into spans and conflicts.
pub fn split(text: &str, marker_size: usize) -> anyhow::Result<Merged> {
    let marked = parse_markers(text.as_bytes(), marker_size)
        .map_err(|e| anyhow::anyhow!("conflict markers: {e}"))?;
    let mut spans = Vec::new();
    let mut conflicts: Vec<Conflict> = Vec::new();
    let mut header = String::new();
    let mut sections = vec![String::new()];
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    // Each piece's lines go to the section they are in; a header starts the next one.
    let grow = |sections: &mut Vec<String>, header: &mut String, t: &str| {
        for l in t.split_inclusive('\n') {
            if is_header(l) {
                sections.push(String::new());
                *header = l.trim().to_string();
            }
            if let Some(s) = sections.last_mut() {
                s.push_str(l);
            }
        }
    };
    for p in marked.pieces {
        match p {
            Piece::Text(t) => {
                let t = lossy(&t);
                grow(&mut sections, &mut header, &t);
                spans.push(Span::Text(t));
            }
            Piece::Block(b) => {
                let c = Conflict {
                    line: b.line,
                    header: header.clone(),
                    ours: lossy(&b.ours),
                    base: b.base.as_deref().map(lossy),
                    theirs: lossy(&b.theirs),
                    section: sections.len() - 1,
                    within: None,
                };
                grow(&mut sections, &mut header, &c.ours);
                spans.push(Span::Conflict(conflicts.len()));
                conflicts.push(c);
            }
        }
    }
    for (k, s) in spans.iter().enumerate() {
        if let Span::Conflict(i) = s {
            conflicts[*i].within = within(&spans, &conflicts, k);
        }
    }
    Ok(Merged {
        spans,
        conflicts,
        sections,
    })
}

impl Merged {
    /// The text the choices make (one per conflict, by index), or the index of the
    /// first conflict left without a choice (or with a base it does not have).
    pub fn compose(&self, choices: &[Option<Choice>]) -> Result<String, usize> {
        self.compose_placed(choices).map(|(text, _)| text)
    }

    /// [`Merged::compose`], with the lines (1-based, first and last) each conflict's
    /// chosen text took in it, by conflict index.
    pub fn compose_placed(
        &self,
        choices: &[Option<Choice>],
    ) -> Result<(String, Vec<(usize, usize)>), usize> {
        let mut out = String::new();
        let mut places = vec![(0, 0); self.conflicts.len()];
        let mut line = 1;
        for s in &self.spans {
            let (text, typed) = match s {
                Span::Text(t) => (t.as_str(), false),
                Span::Conflict(i) => {
                    let c = &self.conflicts[*i];
                    match choices.get(*i).and_then(Option::as_ref) {
                        Some(Choice::Ours) => (c.ours.as_str(), false),
                        Some(Choice::Theirs) => (c.theirs.as_str(), false),
                        Some(Choice::Base) => (c.base.as_deref().ok_or(*i)?, false),
                        Some(Choice::Typed(t)) => (t.as_str(), true),
                        None => return Err(*i),
                    }
                }
            };
            out.push_str(text);
            if typed && !text.is_empty() && !text.ends_with('\n') {
                out.push('\n');
            }
            let lines = text
                .matches('\n')
                .count()
                .max(usize::from(typed && !text.is_empty()));
            if let Span::Conflict(i) = s {
                places[*i] = (line, line + lines.saturating_sub(1));
            }
            line += lines;
        }
        Ok((out, places))
    }

    /// The conflict whose chosen text holds `line` of the composed text, given the
    /// places [`Merged::compose_placed`] returned.
    pub fn conflict_at(places: &[(usize, usize)], line: usize) -> Option<usize> {
        places
            .iter()
            .position(|&(first, last)| first <= line && line <= last)
    }

    /// The same side for every conflict (base where a block has none: ours).
    pub fn all(&self, side: fn(&Conflict) -> &str) -> String {
        let choices: Vec<Option<Choice>> = self
            .conflicts
            .iter()
            .map(|c| Some(Choice::Typed(side(c).to_string())))
            .collect();
        self.compose(&choices).unwrap_or_default()
    }
}

/// Why a composed text would not do: it does not parse, or `check` finds it broken
/// (the first error, with its line); `Ok` when it is a valid scene (`config`: a valid
/// ConfigFile, as `gdscene::config`'s check and merge hold them).
pub fn validate(text: &str, config: bool) -> Result<(), String> {
    let problems = if config {
        gdscene::config::check::check_config(text)
            .map_err(|e| format!("the file does not parse: {e}"))?
    } else {
        let scene = gdscene::model::Scene::parse(text.as_bytes())
            .map_err(|e| format!("the scene does not parse: {e}"))?;
        gdscene::check::check(&scene)
    };
    match problems
        .iter()
        .find(|p| p.severity == gdscene::check::Severity::Error)
    {
        Some(p) => Err(format!("line {}: {}", p.line, p.message)),
        None => Ok(()),
    }
}

/// The line a [`validate`] reason is about: `line 12: ...` or `... does not parse: 12:5: ...`.
pub fn reason_line(reason: &str) -> Option<usize> {
    let rest = reason
        .strip_prefix("line ")
        .or_else(|| reason.split_once("does not parse: ").map(|(_, r)| r))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The value of attribute `name` in a section header line (`name="Sprite"` or `id=3`).
pub fn attr<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    let pat = format!(" {name}=");
    let at = header.find(&pat)? + pat.len();
    let rest = &header[at..];
    match rest.strip_prefix('"') {
        Some(q) => q.find('"').map(|end| &q[..end]),
        None => rest.split([' ', ']']).next(),
    }
}

/// A node header's path (`.` for the root), `None` for other sections.
pub fn node_path(header: &str) -> Option<String> {
    if !header.starts_with("[node ") {
        return None;
    }
    let name = attr(header, "name")?;
    Some(match attr(header, "parent") {
        None => ".".to_string(),
        Some(".") => name.to_string(),
        Some(p) => format!("{p}/{name}"),
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    const MERGED: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n\
        [node name=\"S\" type=\"Sprite2D\" parent=\".\"]\n<<<<<<< ours\nposition = Vector2(1, 1)\n\
        ||||||| base\nposition = Vector2(0, 0)\n=======\nposition = Vector2(2, 2)\n>>>>>>> theirs\n\
        z_index = 1\n\n[node name=\"T\" type=\"Node2D\" parent=\"S\"]\n<<<<<<< ours\nrotation = 1.0\n\
        ||||||| base\nrotation = 0.5\n=======\nrotation = 2.0\n>>>>>>> theirs\n";

    #[test]
    fn markers_split_into_spans_and_conflicts_with_their_place() {
        let m = split(MERGED, 7).expect("splits");
        assert_eq!(m.conflicts.len(), 2);
        assert_eq!(m.spans.len(), 4);
        let c = &m.conflicts[0];
        assert_eq!(c.ours, "position = Vector2(1, 1)\n");
        assert_eq!(c.base.as_deref(), Some("position = Vector2(0, 0)\n"));
        assert_eq!(c.theirs, "position = Vector2(2, 2)\n");
        assert_eq!(c.line, 6);
        assert_eq!(node_path(&c.header).as_deref(), Some("S"));
        assert_eq!(node_path(&m.conflicts[1].header).as_deref(), Some("S/T"));
        assert!(split("<<<<<<< ours\nx\n", 7).is_err());
        assert_eq!(
            split("a\n<<<<<<<< x\n", 7).expect("plain").conflicts.len(),
            0
        );
    }

    #[test]
    fn choices_compose_the_text_and_an_unresolved_conflict_is_named() {
        let m = split(MERGED, 7).expect("splits");
        let text = m
            .compose(&[Some(Choice::Ours), Some(Choice::Theirs)])
            .expect("resolved");
        assert!(text.contains("position = Vector2(1, 1)\nz_index = 1\n"));
        assert!(text.contains("rotation = 2.0\n"));
        assert!(!text.contains("<<<<<<<"));
        assert_eq!(validate(&text, false), Ok(()));
        assert_eq!(m.compose(&[Some(Choice::Ours), None]), Err(1));
        let typed = m
            .compose(&[
                Some(Choice::Base),
                Some(Choice::Typed("rotation = 9".into())),
            ])
            .expect("resolved");
        assert!(typed.contains("Vector2(0, 0)\n") && typed.contains("rotation = 9\n"));
    }

    #[test]
    fn a_broken_choice_is_refused_with_its_reason() {
        let m = split(MERGED, 7).expect("splits");
        let bad = Choice::Typed("position = Vector2(1,\n".into());
        let text = m
            .compose(&[Some(bad), Some(Choice::Ours)])
            .expect("composed");
        let why = validate(&text, false).expect_err("broken");
        assert!(why.contains("does not parse: 6:19"), "{why}");
        let bad = Choice::Typed("rotation = Vector2(1,".into());
        let (text, places) = m
            .compose_placed(&[Some(Choice::Ours), Some(bad)])
            .expect("composed");
        assert_eq!(places, vec![(6, 6), (10, 10)]);
        let why = validate(&text, false).expect_err("broken");
        let line = reason_line(&why).expect("a line");
        assert_eq!(Merged::conflict_at(&places, line), Some(1), "{why}");
        assert_eq!(reason_line("line 12: x"), Some(12));
        let dup = m
            .compose(&[
                Some(Choice::Typed(
                    "[node name=\"S\" type=\"Node\" parent=\".\"]\n".into(),
                )),
                Some(Choice::Ours),
            ])
            .expect("composed");
        let why = validate(&dup, false).expect_err("two nodes at one path");
        assert!(!why.is_empty());
    }

    #[test]
    fn headers_are_read() {
        let h = "[ext_resource type=\"Texture2D\" path=\"res://a b.png\" id=\"1_a\"]";
        assert_eq!(attr(h, "path"), Some("res://a b.png"));
        assert_eq!(attr("[sub_resource type=\"X\" id=3]", "id"), Some("3"));
    }

    pub(in crate::mergetool) const KEYS: &str = "[gd_resource type=\"Animation\" format=3]\n\n[resource]\n\
        length = 1.0\ntracks/0/keys = {\n<<<<<<< ours\n\"times\": PackedFloat32Array(0, 0.25),\n\
        ||||||| base\n\"times\": PackedFloat32Array(0),\n=======\n\"times\": PackedFloat32Array(0, 0.8),\n\
        >>>>>>> theirs\n\"update\": 0,\n<<<<<<< ours\n\"values\": [1, 2]\n||||||| base\n\"values\": [1]\n\
        =======\n\"values\": [1, 3]\n>>>>>>> theirs\n}\nloop_mode = 1\n";

    #[test]
    fn a_conflict_inside_a_value_knows_the_whole_value_on_each_side() {
        let m = split(KEYS, 7).expect("splits");
        assert_eq!(m.conflicts.len(), 2);
        for c in &m.conflicts {
            let w = c.within.as_ref().expect("inside the keys");
            assert_eq!(w.key, "tracks/0/keys");
            let theirs =
                "{\n\"times\": PackedFloat32Array(0, 0.8),\n\"update\": 0,\n\"values\": [1, 3]\n}";
            assert_eq!(w.values[2].as_deref(), Some(theirs));
            let base = "{\n\"times\": PackedFloat32Array(0),\n\"update\": 0,\n\"values\": [1]\n}";
            assert_eq!(w.values[0].as_deref(), Some(base));
        }
        let plain = split(MERGED, 7).expect("splits");
        assert!(plain.conflicts.iter().all(|c| c.within.is_none()));
        assert_eq!(key_of("config/name=\"A\""), Some("config/name"));
        assert_eq!(key_of("\"values\": [1]"), None);
        assert_eq!(depth("{ \"a}\": [1, (2)"), 2);
    }

    #[test]
    fn config_files_are_validated_as_config_files() {
        assert_eq!(
            validate("[application]\n\nconfig/name=\"A\"\n", true),
            Ok(())
        );
        assert!(validate("[application]\n\nconfig/name=\"A\"\n", false).is_err());
        let twice = validate("[a]\nk=1\nk=2\n", true).expect_err("repeated key");
        assert!(twice.starts_with("line 3:"), "{twice}");
        let broken = validate("[a]\nk=(\n", true).expect_err("does not parse");
        assert!(broken.contains("does not parse: 2:"), "{broken}");
    }
}
