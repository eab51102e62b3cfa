//! Conflict records: how a conflict the phases found is written down for the report
//! (`ConflictReport`, shortened values). Deciding that something conflicts is left to
//! the phases; printing the markers is left to [`super::print`].

use super::context::Ctx;
use super::sections::Src;
use super::{shorten, ConflictReport};

/// How long a value may be in a report.
const SHORT: usize = 60;

impl Ctx<'_> {
    /// Record a conflict about one value, giving each side's text shortened.
    pub(super) fn value_conflict(
        &mut self,
        location: String,
        property: Option<String>,
        [b, o, t]: [&Option<Src>; 3],
    ) {
        let short = |s: &Option<Src>| s.as_ref().map(|s| shorten(self.text(s), SHORT));
        let report = ConflictReport {
            location,
            property,
            base: short(b),
            ours: short(o),
            theirs: short(t),
        };
        self.conflicts.push(report);
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
