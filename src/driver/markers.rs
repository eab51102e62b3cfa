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
///
/// With `check_favored`, a resolution that would leave a broken file while the favoured
/// side is valid (crossed moves: a node under its own child) is not made: the text and
/// its conflicts stay as they are, and stderr says why (`TSCN_MERGE=off` passes false:
/// git's own `-X` does not check).
pub fn favored(
    a: &MergeArgs,
    (text, conflicts): (Vec<u8>, usize),
    path: &str,
    markers: &MarkerOptions,
    check_favored: bool,
) -> (Vec<u8>, usize) {
    let Some(side) = a.favor.or_else(gitconfig::favor_from_env) else {
        return (text, conflicts);
    };
    if conflicts == 0 {
        return (text, 0);
    }
    let name = side_name(side);
    let resolved = resolve_own_markers(&text, markers, side).0;
    if check_favored {
        if let Some(why) = favor_refused(a, side, &resolved, path) {
            if !a.quiet {
                refused_favor(path, name, conflicts, &why);
            }
            return (text, conflicts);
        }
    }
    if !a.quiet {
        let path = visible(path);
        stderr_line!("{path}: {conflicts} conflict(s) resolved in favour of {name} (--favor)");
    }
    (resolved, 0)
}

/// Why the text `resolved` (the merge's, every conflict resolved to `side`) must not be
/// written: [`broken_by_favor`] against the favoured side's input file.
pub fn favor_refused(a: &MergeArgs, side: FavorArg, resolved: &[u8], path: &str) -> Option<String> {
    broken_by_favor(path, resolved, || {
        let file = if side == FavorArg::Ours {
            &a.ours
        } else {
            &a.theirs
        };
        crate::io::read(file).unwrap_or_default()
    })
}

/// `ours` or `theirs`.
pub fn side_name(side: FavorArg) -> &'static str {
    if side == FavorArg::Ours {
        "ours"
    } else {
        "theirs"
    }
}

/// Say on stderr that `--favor` was not applied because its result would be broken.
pub fn refused_favor(path: &str, side: &str, conflicts: usize, why: &str) {
    stderr_line!(
        "{}: --favor {side} would leave a broken file ({}); nothing was resolved in favour of {side}: the {conflicts} conflict(s) are left for a person",
        visible(path),
        visible(why)
    );
}

/// Why `text`, a result whose conflicts `--favor` resolved, is not a valid file of its
/// kind (a scene: it parses and `check` finds no error; a ConfigFile: `check`) while the
/// favoured side's own file (`favoured`, read only then) is: the first error, bounded.
/// `None` when it is valid, when `path` names neither kind, or when the favoured side was
/// broken already (the merge does not repair that).
pub fn broken_by_favor(
    path: &str,
    text: &[u8],
    favoured: impl FnOnce() -> Vec<u8>,
) -> Option<String> {
    let config = crate::git::paths::kind_of(std::path::Path::new(path)).is_some();
    if !config && !crate::git::paths::is_scene_path(path) {
        return None;
    }
    let first_error = |t: &[u8]| -> Option<String> {
        let t = crate::io::eol::lf_view(t);
        if config {
            return match std::str::from_utf8(&t).map(gdscene::config::check::check_config) {
                Err(_) => Some("it is not UTF-8".into()),
                Ok(Err(e)) => Some(format!("it does not parse: {e}")),
                Ok(Ok(p)) => p.first().map(|p| format!("line {}: {}", p.line, p.message)),
            };
        }
        let scene = match gdscene::model::Scene::parse(&t) {
            Ok(s) => s,
            Err(e) => return Some(format!("it does not parse: {e}")),
        };
        gdscene::check::check(&scene)
            .into_iter()
            .find(|p| p.severity == gdscene::check::Severity::Error)
            .map(|p| format!("line {}: {}", p.line, p.message))
    };
    let why = first_error(text)?;
    first_error(&favoured())
        .is_none()
        .then(|| gdscene::merge::shorten(&why, 200))
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
/// None when the resolution would be refused ([`favor_refused`]).
pub fn favor_decisions(
    a: &MergeArgs,
    text: &[u8],
    path: &str,
    markers: &MarkerOptions,
) -> Vec<Decision> {
    let Some(side) = a.favor.or_else(gitconfig::favor_from_env) else {
        return Vec::new();
    };
    let name = side_name(side);
    let (resolved, blocks) = resolve_own_markers(text, markers, side);
    if favor_refused(a, side, &resolved, path).is_some() {
        return Vec::new();
    }
    blocks
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
