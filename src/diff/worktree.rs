//! `tscn-merge diff` with no argument: the Godot files of the work tree that differ from
//! `HEAD` (scenes, resources and config files the index tracks, deleted ones included;
//! a line-ending change alone is no change), in path order. Decides which files; each
//! is then diffed as `diff PATH` would.

use crate::git;
use anyhow::{Context, Result};
use gdscene::config::ConfigKind;
use gix::bstr::ByteSlice;
use std::path::PathBuf;

/// Whether `path` names a file Godot reads as text and `diff` understands.
pub fn is_godot_file(path: &str) -> bool {
    git::is_scene_path(path) || ConfigKind::of_path(path).is_some()
}

/// The work tree's Godot files that differ from `HEAD`, as paths from the current
/// directory's repository top.
pub fn changed(repo: &gix::Repository) -> Result<Vec<PathBuf>> {
    let top = repo
        .workdir()
        .context("diff with no argument needs a work tree")?
        .to_path_buf();
    let index = repo.open_index().context("reading the index")?;
    // By the path's bytes: a name that is not UTF-8 is found on disk and in HEAD too.
    let mut paths: Vec<gix::bstr::BString> = index
        .entries()
        .iter()
        .map(|e| e.path(&index).to_owned())
        .filter(|p| is_godot_file(&p.to_str_lossy()))
        .collect();
    paths.sort();
    paths.dedup();
    let mut out = Vec::new();
    for rel in paths {
        let old = git::blob_at(repo, "HEAD", rel.as_bstr()).unwrap_or(None);
        let Ok(rel_path) = gix::path::from_bstr(rel.as_bstr()) else {
            continue;
        };
        let disk = top.join(rel_path);
        let new = std::fs::read(&disk).ok();
        let same = match (&old, &new) {
            (Some(a), Some(b)) => {
                crate::io::eol::to_lf(a.clone()) == crate::io::eol::to_lf(b.clone())
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            out.push(disk);
        }
    }
    Ok(out)
}
