//! Conflict records: how a conflict the phases found is written down for the report
//! (`ConflictReport`): each side's value with its resource references resolved to what
//! they name (two files' `ExtResource( 1 )` are often different resources), and a long
//! value shown around where the sides first differ rather than by a common prefix.
//! Once every phase has run, the records are put in file order (the order of the parts
//! they name in the result). Deciding that something conflicts is left to the phases;
//! printing the markers is left to [`crate::merge::output::print`].

use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::report::{shorten, ConflictReport};
use crate::merge::shared::sections::Src;
use crate::value::{rewrite_refs_in_text, RefKind};
use std::collections::{HashMap, HashSet};

/// How long a value may be in a report.
const SHORT: usize = 60;

/// How many characters before the first difference a long value keeps.
const LEAD: usize = 20;

impl Ctx<'_> {
    /// Record a conflict about one value, giving each side's text shortened.
    pub(in crate::merge) fn value_conflict(
        &mut self,
        location: String,
        property: Option<String>,
        [b, o, t]: [&Option<Src>; 3],
    ) {
        let full = |s: &Option<Src>| s.as_ref().map(|s| self.named(s));
        let [base, ours, theirs] = around_difference([full(b), full(o), full(t)]);
        self.conflicts.push(ConflictReport {
            location,
            property,
            base,
            ours,
            theirs,
        });
    }

    /// A side's value with each `ExtResource`/`SubResource` id replaced by what it names
    /// on that side: the ext_resource's path, the sub_resource's type and id.
    fn named(&self, s: &Src) -> String {
        let text = self.text(s);
        if !text.contains("Resource") {
            return text.to_string();
        }
        let (side, sc) = (s.0, self.sc[s.0]);
        rewrite_refs_in_text(text, &mut |kind, id| match kind {
            RefKind::Ext => {
                let i = *self.idx[side].ext.get(id)?;
                Some(sc.ext_resources.get(i)?.path.clone())
            }
            RefKind::Sub => {
                let i = *self.idx[side].sub.get(id)?;
                Some(format!("{} {id}", sc.sub_resources.get(i)?.type_name))
            }
        })
    }

    /// Record a conflict about a whole part, each side described in words.
    pub(in crate::merge) fn part_conflict(
        &mut self,
        location: String,
        property: Option<String>,
        [b, o, t]: [Option<String>; 3],
    ) {
        self.conflicts.push(ConflictReport {
            location,
            property,
            base: b,
            ours: o,
            theirs: t,
        });
    }
}

impl Ctx<'_> {
    /// Put the conflict records in file order: the header, sub_resources, `[resource]`,
    /// nodes, connections, each part where the result has it (`nodes` and `subs` are
    /// the result's orders, by identity). Records of one part keep the order the
    /// phases found them in.
    pub(in crate::merge) fn conflicts_in_file_order(&mut self, nodes: &[usize], subs: &[usize]) {
        if self.conflicts.len() < 2 {
            return;
        }
        // Only the parts the records name are placed: a 100,000-node scene with a few
        // conflicts would otherwise build a key for every property of every node.
        let named: HashSet<String> = self
            .conflicts
            .iter()
            .map(|c| part_head(&c.location).to_string())
            .collect();
        let mut place: HashMap<String, usize> = HashMap::new();
        for (p, &ident) in nodes.iter().enumerate() {
            for side in [O, T, B] {
                if let Some(k) = self.id.node.at.get(ident).and_then(|a| a[side]) {
                    let n = &self.sc[side].nodes[k];
                    let path = if n.path == "." { &n.name } else { &n.path };
                    let head = format!("node \"{path}\"");
                    if named.contains(&head) {
                        self.place_props(&mut place, &head, side, n.section);
                        place.entry(head).or_insert(p);
                    }
                }
            }
        }
        for (p, &ident) in subs.iter().enumerate() {
            for side in [O, T, B] {
                if let Some(k) = self.id.sub.at.get(ident).and_then(|a| a[side]) {
                    let r = &self.sc[side].sub_resources[k];
                    let head = format!("sub_resource \"{}\"", r.id);
                    if named.contains(&head) {
                        self.place_props(&mut place, &head, side, r.section);
                        place.entry(head).or_insert(p);
                    }
                }
            }
        }
        self.conflicts.sort_by_key(|c| {
            let prop = c.property.as_deref().unwrap_or_default();
            let key = format!("{}\0{prop}", part_head(&c.location));
            (file_rank(&c.location, &place), place.get(&key).copied())
        });
    }

    /// Each property's place in section `section` of `side`, under `head` + NUL + key.
    fn place_props(
        &self,
        place: &mut HashMap<String, usize>,
        head: &str,
        side: usize,
        section: usize,
    ) {
        for (i, p) in self.sec(side, section).props.iter().enumerate() {
            place.entry(format!("{head}\0{}", p.key)).or_insert(i);
        }
    }
}

/// Where a part named in a report comes in the file: its kind of section, then its
/// place among those (unknown places last).
fn file_rank(location: &str, place: &HashMap<String, usize>) -> (u8, usize) {
    let head = part_head(location);
    let at = || place.get(head).copied().unwrap_or(usize::MAX);
    match location {
        l if l.starts_with("file header") => (0, 0),
        l if l.starts_with("ext_resource") => (1, 0),
        l if l.starts_with("sub_resource") => (2, at()),
        l if l.starts_with("[resource]") => (3, 0),
        l if l.starts_with("node ") => (4, at()),
        l if l.starts_with("connection") => (5, 0),
        l if l.starts_with("editable") => (6, 0),
        _ => (7, 0),
    }
}

/// `kind "name"`: a location up to the closing quote of its first quoted name.
fn part_head(location: &str) -> &str {
    let Some(open) = location.find('"') else {
        return location;
    };
    match location[open + 1..].find('"') {
        Some(close) => &location[..open + close + 2],
        None => location,
    }
}

/// The three values shortened for one line: whole when short, else each from a little
/// before the first place where ours and theirs differ, so the report shows the
/// difference and not a prefix both share.
fn around_difference(values: [Option<String>; 3]) -> [Option<String>; 3] {
    let folded = values.map(|v| v.map(|v| v.split_whitespace().collect::<Vec<_>>().join(" ")));
    let chars = |v: &Option<String>| v.as_deref().map(|v| v.chars().count()).unwrap_or(0);
    if folded.iter().all(|v| chars(v) <= SHORT) {
        return folded;
    }
    let start = match (&folded[1], &folded[2]) {
        (Some(o), Some(t)) => o
            .chars()
            .zip(t.chars())
            .take_while(|(a, b)| a == b)
            .count()
            .saturating_sub(LEAD),
        _ => 0,
    };
    folded.map(|v| {
        v.map(|v| {
            if start == 0 {
                return shorten(&v, SHORT);
            }
            let rest: String = v.chars().skip(start).collect();
            format!("…{}", shorten(&rest, SHORT))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_ranked_by_the_part_they_name() {
        let place: HashMap<String, usize> = [
            ("node \"Player\"".to_string(), 0),
            ("node \"Player/Sprite\"".to_string(), 1),
            ("sub_resource \"Shape_a\"".to_string(), 0),
        ]
        .into_iter()
        .collect();
        let mut locations = vec![
            "connection ready from \".\" to \".\" (go)",
            "node \"Player/Sprite\"",
            "sub_resource \"Shape_a\" (RectangleShape2D)",
            "node \"Player\"",
            "file header",
        ];
        locations.sort_by_key(|l| file_rank(l, &place));
        assert_eq!(
            locations,
            [
                "file header",
                "sub_resource \"Shape_a\" (RectangleShape2D)",
                "node \"Player\"",
                "node \"Player/Sprite\"",
                "connection ready from \".\" to \".\" (go)",
            ]
        );
        assert_eq!(part_head("node \"A\" x"), "node \"A\"");
        assert_eq!(part_head("node \"A"), "node \"A");
    }

    #[test]
    fn long_values_are_shown_where_they_differ() {
        let head = "PoolIntArray( ".to_string() + &"7, ".repeat(40);
        let [b, o, t] = around_difference([
            Some(format!("{head}1, 2 )")),
            Some(format!("{head}1, 3 )")),
            Some(format!("{head}1, 4 )")),
        ]);
        let (o, t) = (o.unwrap_or_default(), t.unwrap_or_default());
        assert!(o.starts_with('…') && o.ends_with("1, 3 )"), "{o}");
        assert!(t.ends_with("1, 4 )"), "{t}");
        assert!(b.unwrap_or_default().ends_with("1, 2 )"));
        // Short values stay whole.
        let short = around_difference([None, Some("1".into()), Some("2".into())]);
        assert_eq!(short, [None, Some("1".into()), Some("2".into())]);
    }
}
