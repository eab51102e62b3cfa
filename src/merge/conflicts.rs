//! Conflict records: how a conflict the phases found is written down for the report
//! (`ConflictReport`): each side's value with its resource references resolved to what
//! they name (two files' `ExtResource( 1 )` are often different resources), and a long
//! value shown around where the sides first differ rather than by a common prefix.
//! Deciding that something conflicts is left to the phases; printing the markers is
//! left to [`super::print`].

use super::context::Ctx;
use super::sections::Src;
use super::{shorten, ConflictReport};
use crate::value::{rewrite_refs_in_text, RefKind};

/// How long a value may be in a report.
const SHORT: usize = 60;

/// How many characters before the first difference a long value keeps.
const LEAD: usize = 20;

impl Ctx<'_> {
    /// Record a conflict about one value, giving each side's text shortened.
    pub(super) fn value_conflict(
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
    pub(super) fn part_conflict(
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
