//! `solve` of Godot's ConfigFile files (`project.godot`, `export_presets.cfg`, `*.import`,
//! `*.uid`, ...): the same re-merge the merge driver makes (`gdscene::config::merge`), by
//! section and key, from git's index stages or from diff3 markers. Two-sided markers
//! (git's default style) hold no base, and a key on one side only may be the other side's
//! deletion: such a file is not re-merged (its blocks stay as they are, and `--favor`
//! resolves them line by line). What a re-merge is and how it is written are the
//! callers' ([`super`]); this only makes the ConfigFile's.

use super::Solved;
use crate::io::stderr_line;
use gdscene::config::merge::{merge_config, ConfigMerge};
use gdscene::config::ConfigKind;
use gdscene::linemerge::MarkerOptions;
use gdscene::solve::{Marked, Piece};

/// The driver's merge of the three versions of a ConfigFile of `kind`.
pub(super) fn merge_stages(
    kind: ConfigKind,
    (base, ours, theirs): (&[u8], &[u8], &[u8]),
    markers: &MarkerOptions,
) -> Solved {
    Solved::Config(merge_config(Some(kind), base, ours, theirs, markers))
}

/// The three versions written in diff3 markers (text outside the blocks is in all three),
/// `None` when a block has no base section.
fn versions(marked: &Marked) -> Option<[Vec<u8>; 3]> {
    let mut out: [Vec<u8>; 3] = Default::default();
    for p in &marked.pieces {
        match p {
            Piece::Text(t) => out.iter_mut().for_each(|v| v.extend_from_slice(t)),
            Piece::Block(b) => {
                out[0].extend_from_slice(b.base.as_deref()?);
                out[1].extend_from_slice(&b.ours);
                out[2].extend_from_slice(&b.theirs);
            }
        }
    }
    Some(out)
}

/// Re-merge a ConfigFile from the markers in its text: from diff3 markers, the driver's
/// merge of the three versions they give; from two-sided markers, nothing (the text and
/// its blocks as they are, said on stderr).
pub(super) fn from_markers(
    kind: ConfigKind,
    shown: &str,
    marked: &Marked,
    text: &[u8],
    markers: &MarkerOptions,
) -> Solved {
    match versions(marked) {
        Some([b, o, t]) => {
            stderr_line!(
                "{shown}: re-merged by section and key from the diff3 markers in the file ({} block(s))",
                marked.block_count()
            );
            merge_stages(kind, (&b, &o, &t), markers)
        }
        None => {
            stderr_line!(
                "{shown}: the conflict markers have no base section (git's default \"merge\" style), and a setting on one side only may be the other side's deletion: nothing re-merged, the {} block(s) kept as they were",
                marked.block_count()
            );
            stderr_line!(
                "{shown}: hint: `git checkout --merge -- {shown}` (when you have not edited it) lets solve re-merge it from git's index; with `git config merge.conflictStyle diff3` set before the next merge, the markers keep the base"
            );
            Solved::Config(ConfigMerge {
                text: text.to_vec(),
                conflict_count: marked.block_count(),
                conflicts: Vec::new(),
                decisions: Vec::new(),
                method: gdscene::config::merge::ConfigMethod::LineFallback(
                    "two-sided markers hold no base".into(),
                ),
            })
        }
    }
}
