//! Which pieces of a side's text the saver's walk ([`super::order`]) may pass over:
//! those that spell no reference to a sub_resource the walk has not met, read from the
//! side's references searched once ([`crate::merge::identity::SubsNamed`]).

use crate::merge::shared::context::Ctx;
use crate::value::SubsSpelled;
use std::collections::BTreeSet;

/// What passes over the pieces of a side's text that can name no sub_resource the walk
/// has not met: those that spell no reference to one not met ([`SubsSpelled`], one
/// search through the side's text). The many sections that name only sub_resources met
/// long before are then passed over without reading their properties.
pub(super) struct NewAhead {
    /// The identities of the sub_resources the side's text spells references to.
    named: SubsSpelled<usize>,
}

impl NewAhead {
    /// For side `side`.
    pub(super) fn of(ctx: &Ctx, side: usize) -> Self {
        let of = &ctx.id.sub.of[side];
        let named = ctx.subs_named.of(ctx.sc[side], &ctx.idx[side], side);
        let named = named.filter_map(|&k| of.get(k).copied());
        NewAhead { named }
    }

    /// Where the side's text next spells a reference to an identity not in `seen`, at or
    /// after `from`.
    pub(super) fn next_new(&self, from: usize, seen: &BTreeSet<usize>) -> Option<usize> {
        let rest = self.named.within(from..usize::MAX);
        rest.iter().find(|(_, x)| !seen.contains(x)).map(|e| e.0)
    }

    /// Whether `range` of the side's text may name an identity not in `seen`, which
    /// only grows between the calls of one walk, whose [`Clear`] this is.
    pub(super) fn within(
        &self,
        range: std::ops::Range<usize>,
        seen: &BTreeSet<usize>,
        clear: &Clear,
    ) -> bool {
        let (from, to) = clear.get();
        if from <= range.start && range.end <= to {
            return false;
        }
        let named = self.named.within(range.clone());
        let new = named.iter().any(|(_, x)| !seen.contains(x));
        // Moving on past the stretch: the next one runs to the next new reference (the
        // entries between are read once as the walk goes forward).
        if !new && range.start >= to {
            let next = self.next_new(range.start, seen).unwrap_or(usize::MAX);
            clear.set((range.start, next));
        }
        new
    }
}

/// A stretch of a side's text (from, to) that spells no reference to an identity one
/// walk has not met: the walk meets more, never fewer, so it stays so, and
/// [`NewAhead::within`] passes over a range inside it with two comparisons.
pub(super) type Clear = std::cell::Cell<(usize, usize)>;

/// Each side's [`NewAhead`], made when first asked for: the side's walk and the
/// merged content's share one search through the side's text.
pub(super) struct Aheads<'c, 'a> {
    /// What the searches are made from.
    ctx: &'c Ctx<'a>,
    /// Each side's, once made.
    made: [std::cell::OnceCell<NewAhead>; 3],
}

impl<'c, 'a> Aheads<'c, 'a> {
    /// None made yet.
    pub(super) fn new(ctx: &'c Ctx<'a>) -> Self {
        Aheads {
            ctx,
            made: Default::default(),
        }
    }

    /// Side `side`'s.
    pub(super) fn of(&self, side: usize) -> &NewAhead {
        self.made[side].get_or_init(|| NewAhead::of(self.ctx, side))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::identity::match_all;
    use crate::merge::shared::idents::O;
    use crate::model::Scene;
    use crate::test_support::rng;

    /// Asked about ranges mostly forward while the identities met grow, a walk's
    /// passing over agrees with reading the references in each range, on the corpus.
    #[test]
    fn the_clear_stretch_passes_over_only_ranges_without_new_references() {
        let mut next = rng(13);
        let mut new = 0;
        for (_, text) in crate::test_support::corpus_texts(3) {
            let Ok(sc) = Scene::parse(text.as_bytes()) else {
                continue;
            };
            let ctx = Ctx::new([&sc, &sc, &sc], match_all([&sc, &sc, &sc]));
            let (ahead, clear) = (NewAhead::of(&ctx, O), Clear::default());
            let (n, len) = (ctx.id.sub.at.len(), sc.doc.text.len());
            let (mut seen, mut start) = (BTreeSet::new(), 0);
            for _ in 0..200 {
                start = match next(8) {
                    0 => next(len + 1),
                    _ => (start + next(400)).min(len),
                };
                let end = (start + next(300)).min(len);
                let named = ahead.named.within(start..end);
                let want = named.iter().any(|(_, x)| !seen.contains(x));
                assert_eq!(ahead.within(start..end, &seen, &clear), want);
                new += usize::from(want);
                if n > 0 && next(4) == 0 {
                    seen.insert(next(n));
                }
            }
        }
        let shared = crate::test_support::shared_dir().is_some();
        assert!(!shared || new > 0, "no range named a new identity");
    }
}
