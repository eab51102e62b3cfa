//! Key-by-key merge of a section's property lines (nodes, sub_resources, `[resource]`),
//! multi-line strings merged line by line, and node groups merged as sets. Equality of
//! values is [`crate::merge::values::equality`]'s; which sections to merge is left to the phases.

use crate::linemerge::MarkerOptions;
use crate::merge::shared::context::{Ctx, Pick};
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::sections::{Line, Src};
use crate::merge::shared::sequence::merge_order;
use crate::merge::values::value_grain::GrainAnswer;
use crate::value::parse;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One side's properties of a section: key -> (index in the section, value), and the
/// keys in the order the side first writes them.
#[derive(Default)]
struct SideProps<'a> {
    map: BTreeMap<&'a str, (usize, Src)>,
    order: Vec<&'a str>,
}

impl<'a> Ctx<'a> {
    /// Both sides changed a multi-line string (a script's source, a shader's code): merge
    /// it line by line, as git would, and use the result when that is clean.
    fn merge_text_value(
        &self,
        b: &Option<Src>,
        o: &Option<Src>,
        t: &Option<Src>,
        oline: &Option<Src>,
    ) -> Option<String> {
        let (b, o, t, oline) = (b.as_ref()?, o.as_ref()?, t.as_ref()?, oline.as_ref()?);
        let texts = [self.text(b), self.text(o), self.text(t)];
        if !texts
            .iter()
            .all(|x| x.starts_with('"') && x.ends_with('"') && x.contains('\n'))
        {
            return None;
        }
        let m = crate::linemerge::merge_lines(
            texts[0].as_bytes(),
            texts[1].as_bytes(),
            texts[2].as_bytes(),
            &MarkerOptions::default(),
        );
        if m.conflicts != 0 {
            return None;
        }
        let merged = String::from_utf8(m.text).ok()?;
        // It must still be exactly one string value.
        if !matches!(parse(&merged), Ok(crate::value::Value::String(_))) {
            return None;
        }
        let prefix = self.sc[O].doc.slice(&(oline.1.start..o.1.start));
        Some(format!("{prefix}{merged}\n"))
    }

    /// Merge the property lines of one section given its versions on each side.
    pub(in crate::merge) fn merge_props(
        &mut self,
        secs: [Option<usize>; 3],
        location: &dyn Fn() -> String,
    ) -> Vec<Line> {
        let props = [B, O, T].map(|side| self.side_props(secs, side));
        let keys: BTreeSet<&'a str> = props.iter().flat_map(|p| p.map.keys().copied()).collect();
        let mut chosen: BTreeMap<&str, Vec<Line>> = BTreeMap::new();
        let value = |side: usize, key: &str| props[side].map.get(key).map(|(_, v)| v.clone());
        let order = [
            &props[B].order[..],
            &props[O].order[..],
            &props[T].order[..],
        ];
        let tracks = match self.merge_animation_tracks(secs, order, &value) {
            None => self.align_track_clash(secs, order, &value, location),
            merged => merged,
        };
        for key in keys {
            if tracks.is_some() && key.starts_with("tracks/") {
                continue;
            }
            if let Some(lines) = self.merge_prop(secs, &props, key, location) {
                chosen.insert(key, lines);
            }
        }
        if let Some((anchor, lines)) = tracks {
            self.note_merged_inside(location, "tracks/*", &lines);
            chosen.insert(anchor, lines);
        }
        order_props(&props, chosen)
    }

    fn side_props(&self, secs: [Option<usize>; 3], side: usize) -> SideProps<'a> {
        let mut p = SideProps::default();
        if let Some(si) = secs[side] {
            for (k, prop) in self.sec(side, si).props.iter().enumerate() {
                if p.map
                    .insert(prop.key.as_str(), (k, (side, prop.value.range())))
                    .is_none()
                {
                    p.order.push(prop.key.as_str());
                }
            }
        }
        p
    }

    /// The lines of one key in the result (`None`: the key is gone).
    fn merge_prop(
        &mut self,
        secs: [Option<usize>; 3],
        props: &[SideProps<'a>; 3],
        key: &str,
        location: &dyn Fn() -> String,
    ) -> Option<Vec<Line>> {
        let sc = self.sc;
        let line_of = |side: usize| -> Option<Src> {
            let (k, _) = props[side].map.get(key)?;
            let si = secs[side]?;
            Some((side, sc[side].doc.sections[si].props[*k].line.range()))
        };
        // Every line a side has for a key: Godot 3 files can repeat a node property, and
        // ours' bytes stay as they are.
        let all_lines = |side: usize| -> Option<Vec<Line>> {
            let si = secs[side].filter(|_| props[side].map.contains_key(key))?;
            let lines = sc[side].doc.sections[si]
                .props
                .iter()
                .filter(|p| p.key == key);
            Some(lines.map(|p| Line::Src((side, p.line.range()))).collect())
        };
        let v = |s: usize| props[s].map.get(key).map(|(_, src)| src.clone());
        let (b, o, t) = (v(B), v(O), v(T));
        match self.pick_same(&b, &o, &t) {
            Pick::Ours => all_lines(O),
            Pick::Theirs => all_lines(T),
            Pick::Conflict => {
                if let Some(line) =
                    self.merge_transform_line([&b, &o, &t], &line_of(O), location, key)
                {
                    return Some(vec![line]);
                }
                if let Some(lines) = self.state_lines(secs[O], key, all_lines(O), location) {
                    return lines;
                }
                if let Some(why) = secs[O].and_then(|si| self.churn(O, si, key)) {
                    self.churn_kept(location(), key, why);
                    return all_lines(O);
                }
                if let Some(side) = self.embedded_superset(&b, &o, &t) {
                    let type_name = self.embedded_type(&o);
                    let side_name = if side == O { "ours" } else { "theirs" };
                    self.decisions
                        .push(crate::merge::decisions::Decision::EmbeddedSupersetKept {
                            location: location(),
                            key: key.to_string(),
                            type_name,
                            side: side_name,
                        });
                    return all_lines(side);
                }
                if let Some(line) = self.merge_text_value(&b, &o, &t, &line_of(O)) {
                    return Some(vec![Line::Lit(line)]);
                }
                match self.merge_grain(secs, key, [&b, &o, &t], &line_of(O)) {
                    Some(GrainAnswer::Merged(line)) => {
                        self.note_merged_inside(location, key, std::slice::from_ref(&line));
                        return Some(vec![line]);
                    }
                    Some(GrainAnswer::Conflict(c)) => self.grain_conflict(location(), key, &c),
                    None => self.value_conflict(location(), Some(key.to_string()), [&b, &o, &t]),
                }
                Some(vec![Line::Conflict(Box::new([
                    line_of(B),
                    line_of(O),
                    line_of(T),
                ]))])
            }
        }
    }

    /// A node's `groups` merged as sets: the field of a side that already says the
    /// result, or (`None`, the list to write).
    pub(in crate::merge) fn merge_groups_field(
        &self,
        [fb, fo, ft]: [&Option<Src>; 3],
        godot3: bool,
    ) -> (Option<Src>, Option<String>) {
        let merged = merge_groups(self, [fb.clone(), fo.clone(), ft.clone()]);
        let same_as = |x: &Option<Src>| merge_groups(self, [None, x.clone(), None]) == merged;
        if same_as(fo) {
            (fo.clone(), None)
        } else if same_as(ft) {
            (ft.clone(), None)
        } else {
            (None, Some(groups_text(&merged.unwrap_or_default(), godot3)))
        }
    }
}

/// Ours' order, with the keys only theirs (or base) has after their neighbours.
fn order_props(props: &[SideProps; 3], mut chosen: BTreeMap<&str, Vec<Line>>) -> Vec<Line> {
    let names: Vec<&str> = chosen.keys().copied().collect();
    let num: HashMap<&str, usize> = names.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let seq = |side: usize| -> Vec<usize> {
        props[side]
            .order
            .iter()
            .filter_map(|k| num.get(k).copied())
            .collect()
    };
    let keep = vec![true; names.len()];
    let order = merge_order(&seq(B), &seq(O), &seq(T), &keep);
    order
        .into_iter()
        .filter_map(|i| chosen.remove(names[i]))
        .flatten()
        .collect()
}

/// A group list as Godot writes it (one per line in Godot 3).
fn groups_text(list: &[String], godot3: bool) -> String {
    if godot3 {
        format!(
            "[\n{}\n]",
            list.iter()
                .map(|g| format!("\"{}\",", crate::write::c_escape(g)))
                .collect::<Vec<_>>()
                .join("\n")
        )
    } else {
        format!(
            "[{}]",
            list.iter()
                .map(|g| format!("\"{}\"", crate::write::c_escape(g)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Merge group lists as sets (spec §6.23).
fn merge_groups(ctx: &Ctx, g: [Option<Src>; 3]) -> Option<Vec<String>> {
    let set = |s: &Option<Src>| -> BTreeSet<String> {
        s.as_ref()
            .and_then(|s| parse(ctx.text(s)).ok())
            .map(|v| match v {
                crate::value::Value::Array(items) => items
                    .into_iter()
                    .filter_map(|i| match i {
                        crate::value::Value::String(s) | crate::value::Value::StringName(s) => {
                            Some(s)
                        }
                        _ => None,
                    })
                    .collect(),
                _ => BTreeSet::new(),
            })
            .unwrap_or_default()
    };
    let (b, o, t) = (set(&g[0]), set(&g[1]), set(&g[2]));
    let mut r: BTreeSet<String> = b.clone();
    for side in [&o, &t] {
        for x in b.difference(side) {
            r.remove(x);
        }
        for x in side.difference(&b) {
            r.insert(x.clone());
        }
    }
    if r.is_empty() {
        None
    } else {
        Some(r.into_iter().collect())
    }
}
