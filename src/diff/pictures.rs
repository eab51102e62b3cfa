//! The pictures of `diff --format html`: each side of the scene drawn with the project's
//! files as they are on that side (the work tree for a file on disk, the revision's
//! tree for `REV:PATH` and for `HEAD` in `diff PATH`). Where each side comes from is
//! `revs.rs`'s; reading the project is `assets.rs`'s; drawing is the library's.

use super::assets::{GitTree, WorkTree};
use gdscene::diff::DiffReport;
use gdscene::model::Scene;
use gdscene::render::picture::{self, Assets, Limits, NoAssets, Pictures, Side};
use std::path::{Path, PathBuf};

/// Where one side of a diff lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file on disk (its project is the folder above it with `project.godot`).
    Disk(PathBuf),
    /// `REV:PATH` (its project is in the revision's tree).
    Git {
        /// The revision.
        rev: String,
        /// The repository-relative path.
        path: String,
    },
    /// No file (`/dev/null`).
    Missing,
}

/// A side's project files and the scene's `res://` path in it.
fn project(src: &Source) -> (Box<dyn Assets>, String) {
    match src {
        Source::Disk(p) => {
            let w = WorkTree::around(p);
            let res = w.res_path(p);
            (Box::new(w), res)
        }
        Source::Git { rev, path } => {
            let found = crate::git::open_repo(Path::new(".")).ok().and_then(|repo| {
                let tree = crate::git::tree_of(&repo, rev).ok()?;
                Some(GitTree::around(repo, tree, path))
            });
            match found {
                Some(g) => {
                    let res = g.res_path(path);
                    (Box::new(g), res)
                }
                None => (Box::new(NoAssets), format!("res://{path}")),
            }
        }
        Source::Missing => (Box::new(NoAssets), "res://scene.tscn".into()),
    }
}

/// The pictures of `old` and `new` (from `sources`), their changes in `report` outlined.
pub fn draw(
    sources: &[Source],
    (old, new): (Option<&Scene>, Option<&Scene>),
    report: &DiffReport,
) -> Pictures {
    let (mo, mn) = picture::marks_of(report);
    let missing = Source::Missing;
    let (oa, op) = project(sources.first().unwrap_or(&missing));
    let (na, np) = project(sources.get(1).unwrap_or(&missing));
    let sides = [
        old.map(|s| Side {
            scene: s,
            path: &op,
            assets: oa.as_ref(),
            marks: &mo,
        }),
        new.map(|s| Side {
            scene: s,
            path: &np,
            assets: na.as_ref(),
            marks: &mn,
        }),
    ];
    picture::draw(&sides, &Limits::default(), "p")
}
