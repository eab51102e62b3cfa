//! The conflict markers a merge writes (labels, size, style from the arguments and git's
//! configuration) and `--favor`'s resolution of them: the scene merge ([`super`]) and
//! the ConfigFile merge ([`super::config`]) share these. Merging is theirs.

use super::args::{label_text, FavorArg, MergeArgs};
use super::gitconfig::{self, favor_labels, resolve_own_markers};
use crate::io::stderr_line;
use gdscene::linemerge::MarkerOptions;
use gdscene::merge::Decision;
use gdscene::render::escape::visible;

/// `--favor` (or `TSCN_MERGE_FAVOR`): every conflict resolved to that side, as
/// `git merge -X ours|theirs` resolves git's own. The text and the conflicts left.
pub fn favored(
    a: &MergeArgs,
    text: Vec<u8>,
    conflicts: usize,
    path: &str,
    markers: &MarkerOptions,
) -> (Vec<u8>, usize) {
    let Some(side) = a.favor.or_else(gitconfig::favor_from_env) else {
        return (text, conflicts);
    };
    if conflicts == 0 {
        return (text, 0);
    }
    let name = if side == FavorArg::Ours {
        "ours"
    } else {
        "theirs"
    };
    if !a.quiet {
        let path = visible(path);
        stderr_line!("{path}: {conflicts} conflict(s) resolved in favour of {name} (--favor)");
    }
    (resolve_own_markers(&text, markers, side).0, 0)
}

/// [`marker_options`], with labels no input holds when `--favor` will resolve the
/// conflicts: only the blocks the merge writes are then resolved.
pub fn favor_markers(a: &MergeArgs, inputs: &[&[u8]]) -> MarkerOptions {
    let mut markers = marker_options(a);
    if a.favor.or_else(gitconfig::favor_from_env).is_some() {
        favor_labels(&mut markers, inputs);
    }
    markers
}

/// One [`Decision::HunkFavored`] per conflict hunk `--favor` will resolve in `text`.
pub fn favor_decisions(a: &MergeArgs, text: &[u8], markers: &MarkerOptions) -> Vec<Decision> {
    let Some(side) = a.favor.or_else(gitconfig::favor_from_env) else {
        return Vec::new();
    };
    let name = if side == FavorArg::Ours {
        "ours"
    } else {
        "theirs"
    };
    resolve_own_markers(text, markers, side)
        .1
        .into_iter()
        .map(|(line, lines)| {
            let first = String::from_utf8_lossy(&lines)
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| format!("`{}`", gdscene::merge::shorten(l, 60)));
            Decision::HunkFavored {
                side: name,
                line,
                kept: first.unwrap_or_else(|| "(nothing)".into()),
            }
        })
        .collect()
}

/// The conflict labels, marker size and style from the arguments: `--style`, else
/// git's `merge.conflictStyle` when git runs the driver, else diff3. Shared with the
/// ConfigFile merge (`config.rs`).
pub fn marker_options(a: &MergeArgs) -> MarkerOptions {
    let style = match a.style {
        Some(s) => gitconfig::style_of(s),
        None if a.git => gitconfig::git_conflict_style(),
        None => gdscene::linemerge::ConflictStyle::Diff3,
    };
    MarkerOptions {
        style,
        marker_size: a.marker_size,
        ours: label_text(&a.ours_label, "ours"),
        base: label_text(&a.base_label, "base"),
        theirs: label_text(&a.theirs_label, "theirs"),
    }
}
