//! The project's files for the pictures of `diff --format html` and `review --format
//! html`: a `res://` path read from the work tree or from a git tree (a revision's),
//! inside the Godot project the scene belongs to (the nearest folder above it holding
//! `project.godot`, else the top of the repository or the scene's own folder).
//!
//! Decides where `res://` points and reads files there, bounded in size; never follows a
//! path out of the project (`..` is resolved by the library before it asks) and never
//! writes. What to draw is the library's (`gdscene::render::picture`).

use gdscene::render::picture::Assets;
use gix::ObjectId;
use std::path::{Path, PathBuf};

/// Largest project file read for a picture (a texture, a tile set, an instanced scene).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// `res://a/b.png` as a path below the project root (`a/b.png`), `None` for anything
/// else or a path with `..`.
fn below_root(res_path: &str) -> Option<&str> {
    let rel = res_path.strip_prefix("res://")?;
    let ok = !rel.is_empty()
        && rel
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..");
    ok.then_some(rel)
}

/// A project in the work tree: `res://` is `root`.
pub struct WorkTree {
    /// The project's folder.
    pub root: PathBuf,
}

impl WorkTree {
    /// The project holding the scene at `scene` (a file on disk): the nearest folder
    /// above it with a `project.godot`, else the scene's own folder.
    pub fn around(scene: &Path) -> WorkTree {
        let dir = scene
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| PathBuf::from("."));
        let root = dir
            .ancestors()
            .find(|d| d.join("project.godot").is_file())
            .map_or(dir.clone(), Path::to_path_buf);
        WorkTree { root }
    }

    /// The scene's `res://` path in this project.
    pub fn res_path(&self, scene: &Path) -> String {
        let abs = scene.canonicalize().unwrap_or_else(|_| scene.to_path_buf());
        let rel = abs.strip_prefix(&self.root).unwrap_or(&abs);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        format!("res://{}", parts.join("/"))
    }
}

impl Assets for WorkTree {
    fn read(&self, res_path: &str) -> Option<Vec<u8>> {
        let path = self.root.join(below_root(res_path)?);
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            return None;
        }
        std::fs::read(path).ok()
    }
}

/// A project in a git tree: `res://` is the folder `prefix` of `tree`.
pub struct GitTree {
    repo: gix::Repository,
    tree: ObjectId,
    /// The project's folder in the tree (`""` or ending in `/`).
    pub prefix: String,
}

impl GitTree {
    /// The project holding the scene at `path` (repository-relative) in `tree`.
    pub fn around(repo: gix::Repository, tree: ObjectId, path: &str) -> GitTree {
        let mut dirs: Vec<&str> = path.match_indices('/').map(|(i, _)| &path[..=i]).collect();
        dirs.reverse();
        dirs.push("");
        let found = dirs.iter().find(|d| {
            crate::git::blob_in_tree(&repo, tree, &format!("{d}project.godot"), MAX_FILE_BYTES)
                .is_some()
        });
        let prefix = found.copied().unwrap_or("").to_string();
        GitTree { repo, tree, prefix }
    }

    /// The scene's `res://` path in this project.
    pub fn res_path(&self, path: &str) -> String {
        format!(
            "res://{}",
            path.strip_prefix(self.prefix.as_str()).unwrap_or(path)
        )
    }
}

impl Assets for GitTree {
    fn read(&self, res_path: &str) -> Option<Vec<u8>> {
        let rel = format!("{}{}", self.prefix, below_root(res_path)?);
        crate::git::blob_in_tree(&self.repo, self.tree, &rel, MAX_FILE_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn res_paths_stay_in_the_project() {
        assert_eq!(below_root("res://a/b.png"), Some("a/b.png"));
        assert_eq!(below_root("res://a/../b.png"), None);
        assert_eq!(below_root("res:///etc/passwd"), None);
        assert_eq!(below_root("/etc/passwd"), None);
    }
}
