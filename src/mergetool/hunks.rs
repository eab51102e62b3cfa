//! The merged text cut into clean spans and conflicts, what the page shows of each
//! conflict (where it is, its properties side by side), and the text a set of choices
//! composes, validated as `check` validates. Pure: the server and the page are others'.
//!
//! The markers are read with the library's [`gdscene::solve::parse_markers`]; the
//! places (section headers) and properties are read from the lines around them.

use gdscene::grain::{describe_change, PropertyContext};
use gdscene::render::html::value::{picture, show_with, timeline};
use gdscene::solve::{parse_markers, Piece};
use serde_json::{json, Value};
use std::collections::BTreeMap;

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

/// The last section header among `text`'s lines, if any.
fn last_header(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .find(|l| l.starts_with('['))
        .map(str::trim)
}

/// Cut a merged text with markers of `marker_size` into spans and conflicts.
pub fn split(text: &str, marker_size: usize) -> anyhow::Result<Merged> {
    let marked = parse_markers(text.as_bytes(), marker_size)
        .map_err(|e| anyhow::anyhow!("conflict markers: {e}"))?;
    let mut spans = Vec::new();
    let mut conflicts: Vec<Conflict> = Vec::new();
    let mut header = String::new();
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    for p in marked.pieces {
        match p {
            Piece::Text(t) => {
                let t = lossy(&t);
                if let Some(h) = last_header(&t) {
                    header = h.to_string();
                }
                spans.push(Span::Text(t));
            }
            Piece::Block(b) => {
                let c = Conflict {
                    line: b.line,
                    header: header.clone(),
                    ours: lossy(&b.ours),
                    base: b.base.as_deref().map(lossy),
                    theirs: lossy(&b.theirs),
                };
                if let Some(h) = last_header(&c.ours) {
                    header = h.to_string();
                }
                spans.push(Span::Conflict(conflicts.len()));
                conflicts.push(c);
            }
        }
    }
    Ok(Merged { spans, conflicts })
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
/// (the first error, with its line); `Ok` when it is a valid scene.
pub fn validate(text: &str) -> Result<(), String> {
    let scene = gdscene::model::Scene::parse(text.as_bytes())
        .map_err(|e| format!("the scene does not parse: {e}"))?;
    let problems = gdscene::check::check(&scene);
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

/// What ids name in these texts: `ExtResource` ids to their paths, `SubResource` ids
/// to their types.
pub fn resource_names(texts: &[&str]) -> BTreeMap<(String, String), String> {
    let mut names = BTreeMap::new();
    for l in texts.iter().flat_map(|t| t.lines()) {
        let (kind, shown) = if l.starts_with("[ext_resource ") {
            ("ExtResource", attr(l, "path"))
        } else if l.starts_with("[sub_resource ") {
            ("SubResource", attr(l, "type"))
        } else {
            continue;
        };
        if let (Some(id), Some(shown)) = (attr(l, "id"), shown) {
            names
                .entry((kind.to_string(), id.to_string()))
                .or_insert_with(|| shown.to_string());
        }
    }
    names
}

/// The properties of a section's lines, key to value (a value goes on until the next
/// `key = ` line, so multi-line dictionaries stay whole), in order.
pub fn properties(lines: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in lines.lines() {
        let key = l
            .split_once(" = ")
            .map(|(k, _)| k)
            .filter(|k| !k.is_empty() && !k.contains(['"', '{', '[', ' ']));
        match (key, out.last_mut()) {
            (Some(k), _) if !l.starts_with('[') => {
                out.push((k.to_string(), l[k.len() + 3..].to_string()));
            }
            (_, Some(last)) if !l.starts_with('[') => {
                last.1.push('\n');
                last.1.push_str(l);
            }
            _ => out.push((String::new(), l.to_string())),
        }
    }
    out
}

/// The rows of a conflict's table: each key with its value on each side (`null` where
/// a side does not set it), values as HTML drawn by [`show_with`].
pub fn rows(
    c: &Conflict,
    names: &BTreeMap<(String, String), String>,
    file_format: u8,
) -> Vec<Value> {
    let sides = [
        properties(c.base.as_deref().unwrap_or_default()),
        properties(&c.ours),
        properties(&c.theirs),
    ];
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in sides[1].iter().chain(&sides[2]).chain(&sides[0]) {
        if !k.is_empty() && !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let resolve = |kind: &str, id: &str| names.get(&(kind.to_string(), id.to_string())).cloned();
    let cell = |side: &[(String, String)], k: &str| {
        side.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| show_with(&gdscene::merge::shorten(v, 300), &resolve))
    };
    let owner = attr(&c.header, "type").unwrap_or_default();
    let value = |side: &[(String, String)], k: &str| {
        side.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    keys.iter()
        .map(|k| {
            let ctx = PropertyContext {
                owner_type: owner,
                key: k,
                file_format,
                tile_format: None,
                track_type: None,
            };
            let base = value(&sides[0], k);
            json!({
                "key": k,
                "base": cell(&sides[0], k),
                "ours": cell(&sides[1], k),
                "theirs": cell(&sides[2], k),
                "ours_drawn": drawn(&ctx, base.as_deref(), value(&sides[1], k).as_deref()),
                "theirs_drawn": drawn(&ctx, base.as_deref(), value(&sides[2], k).as_deref()),
            })
        })
        .collect()
}

/// What a side changed in a tile map's cells or an animation's keys since the base,
/// drawn (a picture, a time line); `None` for other values.
fn drawn(ctx: &PropertyContext, base: Option<&str>, side: Option<&str>) -> Option<String> {
    let d = describe_change(ctx, base?, side?)?;
    let html = picture(&d.picture) + &timeline(&d.changes);
    (!html.is_empty()).then_some(html)
}

#[cfg(test)]
mod tests {
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
        assert_eq!(validate(&text), Ok(()));
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
        let why = validate(&text).expect_err("broken");
        assert!(why.contains("does not parse: 6:19"), "{why}");
        let bad = Choice::Typed("rotation = Vector2(1,".into());
        let (text, places) = m
            .compose_placed(&[Some(Choice::Ours), Some(bad)])
            .expect("composed");
        assert_eq!(places, vec![(6, 6), (10, 10)]);
        let why = validate(&text).expect_err("broken");
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
        let why = validate(&dup).expect_err("two nodes at one path");
        assert!(!why.is_empty());
    }

    #[test]
    fn tile_cells_each_side_changed_are_drawn() {
        let cells = |t: &str| format!("layer_0/tile_data = PackedInt32Array(0, 1, 0, 1, {t}, 0)\n");
        let c = Conflict {
            line: 1,
            header: "[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]".into(),
            ours: cells("7"),
            base: Some(cells("1")),
            theirs: cells("9"),
        };
        let r = rows(&c, &BTreeMap::new(), 3);
        assert_eq!(r.len(), 1);
        let drawn = r[0]["ours_drawn"].as_str().unwrap_or_default();
        assert!(drawn.contains("<svg class=\"cells\""), "{}", r[0]);
        assert_eq!(drawn.matches("class=\"changed\"").count(), 1, "{drawn}");
        assert!(r[0]["base"]
            .as_str()
            .unwrap_or_default()
            .contains("PackedInt32Array"));
    }

    #[test]
    fn headers_and_properties_are_read() {
        let h = "[ext_resource type=\"Texture2D\" path=\"res://a b.png\" id=\"1_a\"]";
        assert_eq!(attr(h, "path"), Some("res://a b.png"));
        assert_eq!(attr("[sub_resource type=\"X\" id=3]", "id"), Some("3"));
        let names = resource_names(&[h]);
        assert_eq!(
            names
                .get(&("ExtResource".into(), "1_a".into()))
                .map(String::as_str),
            Some("res://a b.png")
        );
        let p = properties("a = 1\nd = {\n\"k\": 2\n}\n");
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].1, "{\n\"k\": 2\n}");
    }
}
