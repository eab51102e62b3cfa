//! `[editable path=...]` sections: a set of node identities (an instance whose children
//! are editable), kept when both sides have it or one side added it; the path follows the
//! node. Node paths are [`crate::merge::shared::merged::MergedPaths`]'s.

use crate::merge::identity::key_table;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use crate::merge::shared::merged::MergedPaths;
use crate::merge::shared::sections::{Chunk, OutSec, TagOut};
use crate::merge::shared::sequence::merge_order;
use crate::model::SectionKind;
use std::collections::BTreeMap;

/// Merge the editables as a set of node identities, paths following renamed and moved
/// nodes.
pub(in crate::merge) fn merge(
    ctx: &Ctx,
    paths: &MergedPaths,
) -> (BTreeMap<usize, OutSec>, Vec<usize>) {
    let sc = ctx.sc;
    let counts = [0, 1, 2].map(|s| sc[s].editables.len());
    let (at, seqs) = key_table(counts, |side, k| {
        let e = &sc[side].editables[k];
        match ctx.paths[side].get(e.path.as_str()) {
            Some(&i) => format!("#{}", ctx.id.node.of[side][i]),
            None => e.path.clone(),
        }
    });
    let mut out = BTreeMap::new();
    for (id, a) in at.iter().enumerate() {
        let present = |s: usize| a[s].is_some();
        let keep = matches!(
            (present(B), present(O), present(T)),
            (_, true, true) | (false, true, false) | (false, false, true)
        );
        if !keep {
            continue;
        }
        let side = if present(O) { O } else { T };
        let k = a[side].unwrap_or_default();
        let e = &sc[side].editables[k];
        let sec = &sc[side].doc.sections[e.section];
        let np = ctx.paths[side]
            .get(e.path.as_str())
            .and_then(|&i| paths.get(ctx.id.node.of[side][i]))
            .filter(|p| **p != e.path);
        let tag = match np {
            None => TagOut::Src((side, sec.tag.span.range())),
            Some(p) => TagOut::Fields(
                "editable".into(),
                vec![(
                    "path".into(),
                    Chunk::Lit(format!("\"{}\"", crate::write::c_escape(p))),
                )],
            ),
        };
        let verbatim = (side == O && matches!(tag, TagOut::Src(_))).then_some(e.section);
        out.insert(id, OutSec::tag_only(SectionKind::Editable, verbatim, tag));
    }
    let keep: Vec<bool> = (0..at.len()).map(|i| out.contains_key(&i)).collect();
    let order = merge_order(&seqs[B], &seqs[O], &seqs[T], &keep);
    (out, order)
}
