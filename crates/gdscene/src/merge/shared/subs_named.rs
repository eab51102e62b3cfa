//! The `SubResource(...)` references each side's text spells, searched once per side and
//! read by every stage that asks which sections name which sub_resource: matching by use
//! ([`crate::merge::identity`]), the saver's order ([`crate::merge::ids`]). Shared here,
//! in the context, so that neither stage imports the other. What the references mean
//! is left to those stages.

use crate::merge::shared::idents::IdIndex;
use crate::model::Scene;
use crate::value::SubsSpelled;

/// The `SubResource(...)` references each side's text spells, by the index of the
/// sub_resource named (ids as [`IdIndex`] reads them), searched once per side when first
/// asked for: matching and the saver's order ([`crate::merge::ids`]) read one list.
#[derive(Default)]
pub(in crate::merge) struct SubsNamed {
    /// Each side's, once searched.
    sides: [std::cell::OnceCell<SubsSpelled<usize>>; 3],
}

impl SubsNamed {
    /// Side `side`'s, whose scene is `s` and ids `idx`.
    pub(in crate::merge) fn of(
        &self,
        s: &Scene,
        idx: &IdIndex,
        side: usize,
    ) -> &SubsSpelled<usize> {
        self.sides[side]
            .get_or_init(|| SubsSpelled::new(&s.doc.text, |id| idx.sub.get(id).copied()))
    }
}
