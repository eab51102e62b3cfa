//! The pictures of `review --format html`: each changed scene drawn before (the range's
//! old tree) and after (its new tree), with the project's textures as they were on each
//! side. Bounded: each file's drawing within [`SECS_PER_FILE`] (or `--timeout` when
//! smaller), at most [`MAX_FILES`] files and [`PAGE_BYTES`] of pictures on the page;
//! a file left out says why on the page.
//!
//! Reading the trees is `git`'s, the project's files `diff::assets`', drawing the
//! library's.

use crate::diff::assets::GitTree;
use crate::io::deadline;
use anyhow::Result;
use gdscene::model::Scene;
use gdscene::render::picture::{self, Limits, Pictures, Side};
use gdscene::render::{FileDiff, FileStatus};
use gix::ObjectId;

/// Longest a file's pictures may take.
pub const SECS_PER_FILE: f64 = 15.0;
/// Files drawn, at most (the most changed first is the page's order, so the first).
pub const MAX_FILES: usize = 40;
/// Bytes of pictures on one page, at most.
pub const PAGE_BYTES: usize = 48 << 20;

/// Whether a file gets pictures: a scene that diffed.
fn drawable(f: &FileDiff) -> bool {
    let p = f.path.to_ascii_lowercase();
    f.settings.is_none() && f.report.is_ok() && (p.ends_with(".tscn") || p.ends_with(".escn"))
}

/// One side: its scene and the project around it in `tree`.
fn side(repo: &gix::Repository, tree: Option<ObjectId>, path: &str) -> Option<(Scene, GitTree)> {
    let tree = tree?;
    let bytes = crate::git::blob_in_tree(repo, tree, path, u64::MAX)?;
    let scene = Scene::parse(&bytes).ok()?;
    Some((scene, GitTree::around(repo.clone(), tree, path)))
}

/// The pictures of one file, drawn on a thread of its own.
fn one(
    secs: f64,
    git_dir: std::path::PathBuf,
    trees: (Option<ObjectId>, ObjectId),
    f: &FileDiff,
    k: usize,
    limits: Limits,
) -> Pictures {
    let old_path = f
        .renamed_from
        .as_ref()
        .map_or(f.path.clone(), |r| r.0.clone());
    let (path, status) = (f.path.clone(), f.status);
    let report = f.report.clone().unwrap_or_default();
    let work = move || {
        // gix's repository stays on its thread: this one opens its own.
        let Ok(repo) = gix::open(&git_dir) else {
            return Pictures::none("No picture: the repository could not be opened again.".into());
        };
        let old = (status != FileStatus::Added)
            .then(|| side(&repo, trees.0, &old_path))
            .flatten();
        let new = (status != FileStatus::Deleted)
            .then(|| side(&repo, Some(trees.1), &path))
            .flatten();
        let (mo, mn) = picture::marks_of(&report);
        let res = |s: &Option<(Scene, GitTree)>, p: &str| s.as_ref().map(|x| x.1.res_path(p));
        let (op, np) = (res(&old, &old_path), res(&new, &path));
        let sides = [
            old.as_ref().map(|(s, a)| Side {
                scene: s,
                path: op.as_deref().unwrap_or(""),
                assets: a,
                marks: &mo,
            }),
            new.as_ref().map(|(s, a)| Side {
                scene: s,
                path: np.as_deref().unwrap_or(""),
                assets: a,
                marks: &mn,
            }),
        ];
        picture::draw(&sides, &limits, &format!("f{k}"))
    };
    deadline::within(secs, work).unwrap_or_else(|| {
        Pictures::none(format!("No picture: drawing it took longer than {secs} s."))
    })
}

/// The pictures of every file of a review (`None` where a file gets none), within
/// `secs` seconds a file (at most [`SECS_PER_FILE`]).
pub fn draw_all(
    repo: &gix::Repository,
    range: &str,
    files: &[FileDiff],
    secs: f64,
) -> Result<Vec<Option<Pictures>>> {
    let trees = crate::git::range_trees(repo, range)?;
    let git_dir = repo.git_dir().to_path_buf();
    let (mut out, mut used, mut drawn) = (Vec::with_capacity(files.len()), 0usize, 0usize);
    for (k, f) in files.iter().enumerate() {
        if !drawable(f) || secs <= 0.0 {
            out.push(None);
            continue;
        }
        if drawn >= MAX_FILES || used >= PAGE_BYTES {
            out.push(Some(Pictures::none(format!(
                "No picture: the page holds the pictures of {MAX_FILES} files and {} MB at most.",
                PAGE_BYTES >> 20
            ))));
            continue;
        }
        let limits = Limits {
            page_bytes: Limits::default().page_bytes.min(PAGE_BYTES - used),
            ..Limits::default()
        };
        let p = one(secs, git_dir.clone(), trees, f, k, limits);
        used += p.defs.len() + p.sides.iter().flatten().map(|s| s.svg.len()).sum::<usize>();
        drawn += 1;
        out.push(Some(p));
    }
    Ok(out)
}
