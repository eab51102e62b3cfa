//! Where the paths `install` records lie, so that `uninstall` acts only inside the
//! repository it runs in, and what git holds of a work-tree file there.
//!
//! A repository's record names its work-tree files relative to the work tree's top
//! (`.gitattributes`), its git folder's files as `.git/...` (relative to the common git
//! folder, which a linked work tree shares), and the diff links and the folders made for
//! them relative to the scope's own link folder (`links:tscn-merge-diff`, `links:..`):
//! no absolute path, so a copy (`cp -a`) names its own places. A recorded absolute path
//! (an older install's) that resolves anywhere else (into the repository this one was
//! copied from) is left alone, with the reason. Whether git tracks a file and what `HEAD` holds of it
//! decide, in [`super::attributes`] and [`super::links`], what may be rewritten or
//! deleted; the global scope records absolute paths and is not bounded here.

use std::path::{Component, Path, PathBuf};

use super::record::git;
use super::shared::Scope;

/// The places a scope's record may name.
pub(super) struct Places {
    /// The work tree's top (a repository scope only).
    top: Option<PathBuf>,
    /// The common git folder (a repository scope only).
    git_dir: Option<PathBuf>,
    /// The scope's own folder of diff links, if it has one.
    links: Option<PathBuf>,
}

/// How a record names the scope's link folder: `links:NAME`, `links:..`.
pub(super) const LINKS: &str = "links:";

/// Why a recorded path is left alone.
const ELSEWHERE: &str =
    "outside this repository (an install in the repository this one was copied from recorded it)";

impl Places {
    /// The places of `scope`, `links` its link folder.
    pub(super) fn of(scope: &Scope, links: Option<&Path>) -> Places {
        let ask = |dir: &Path, args: &[&str]| -> Option<PathBuf> {
            let out = git(Some(dir), args).ok()?;
            let text = String::from_utf8(out.stdout).ok()?;
            let text = text.trim_end_matches(['\n', '\r']);
            (out.status.success() && !text.is_empty()).then(|| resolve_existing(Path::new(text)))
        };
        let (top, git_dir) = match scope {
            Scope::Global => (None, None),
            Scope::Repo(dir) => (
                ask(dir, &["rev-parse", "--show-toplevel"]),
                ask(
                    dir,
                    &["rev-parse", "--path-format=absolute", "--git-common-dir"],
                ),
            ),
        };
        Places {
            top,
            git_dir,
            links: links.map(resolve_existing),
        }
    }

    /// How the record names `path`: relative inside the repository or to its link
    /// folder, else absolute (the global scope's, or a path outside both).
    pub(super) fn record(&self, path: &Path) -> String {
        let real = resolve_folder(path);
        if let Some(named) = self.in_links(&real) {
            return named;
        }
        let relative = |root: &Option<PathBuf>| {
            root.as_ref()
                .and_then(|r| real.strip_prefix(r).ok())
                .filter(|rest| !rest.as_os_str().is_empty())
                .map(Path::to_path_buf)
        };
        // Relative names with `/` on every platform: a record read back on another (a
        // clone shared with WSL) names the same file.
        let slashed = |rest: PathBuf| match cfg!(windows) {
            true => rest.to_string_lossy().replace('\\', "/"),
            false => rest.to_string_lossy().into_owned(),
        };
        match (relative(&self.git_dir), relative(&self.top)) {
            (Some(rest), _) => format!(".git/{}", slashed(rest)),
            (None, Some(rest)) => slashed(rest),
            (None, None) => path.to_string_lossy().into_owned(),
        }
    }

    /// `real` as `links:...` when this repository's link folder holds it or it is one of
    /// that folder's parents (a folder made for it).
    fn in_links(&self, real: &Path) -> Option<String> {
        let links = self.links.as_ref().filter(|_| self.top.is_some())?;
        if let Ok(rest) = real.strip_prefix(links) {
            let rest = rest.to_str()?.replace('\\', "/");
            let rest = if rest.is_empty() {
                ".".to_string()
            } else {
                rest
            };
            return Some(format!("{LINKS}{rest}"));
        }
        if !links.starts_with(real) {
            return None;
        }
        let up = links.components().count() - real.components().count();
        Some(format!("{LINKS}{}", vec![".."; up].join("/")))
    }

    /// The path a record names, or why it is left alone (it lies outside the repository
    /// and its link folder).
    pub(super) fn resolve(&self, recorded: &str) -> Result<PathBuf, String> {
        if let Some(rest) = recorded.strip_prefix(LINKS) {
            return self.in_link_folder(rest);
        }
        let path = Path::new(recorded);
        if path.is_absolute() {
            let global = self.top.is_none() && self.git_dir.is_none();
            return match global || self.inside(path) {
                true => Ok(path.to_path_buf()),
                false => Err(ELSEWHERE.to_string()),
            };
        }
        if path
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err("not a path inside the repository".to_string());
        }
        let mut parts = path.components();
        let in_git_dir = parts.next().is_some_and(|c| c.as_os_str() == ".git");
        let found = match in_git_dir {
            true => self.git_dir.as_ref().map(|g| g.join(parts.as_path())),
            false => self.top.as_ref().map(|t| t.join(path)),
        };
        found.ok_or_else(|| "no work tree or git folder here".to_string())
    }

    /// A `links:` record's path: `.`, names below the link folder, or only `..`s (the
    /// folders made for it), never a mix.
    fn in_link_folder(&self, rest: &str) -> Result<PathBuf, String> {
        let mut path = self.links.clone().ok_or("no link folder here")?;
        let parts: Vec<Component> = Path::new(rest).components().collect();
        let up = parts.iter().all(|c| matches!(c, Component::ParentDir));
        let down = parts.iter().all(|c| matches!(c, Component::Normal(_)));
        if !up && !down && rest != "." {
            return Err("not a path of the link folder".to_string());
        }
        for part in parts {
            match part {
                Component::ParentDir if path.pop() => {}
                Component::Normal(name) => path.push(name),
                Component::CurDir => {}
                _ => return Err("not a path of the link folder".to_string()),
            }
        }
        Ok(path)
    }

    /// Whether an absolute `path` lies in the repository, in the link folder, or is one
    /// of the link folder's own parents (folders `install` may have made for it).
    fn inside(&self, path: &Path) -> bool {
        let real = resolve_folder(path);
        let under = |root: &Option<PathBuf>| root.as_ref().is_some_and(|r| real.starts_with(r));
        let above_links = self.links.as_ref().is_some_and(|l| l.starts_with(&real));
        under(&self.top) || under(&self.git_dir) || under(&self.links) || above_links
    }

    /// `path` relative to the work tree's top, when it lies in the work tree (and not in
    /// the git folder).
    fn in_work_tree(&self, path: &Path) -> Option<String> {
        let real = resolve_folder(path);
        if self.git_dir.as_ref().is_some_and(|g| real.starts_with(g)) {
            return None;
        }
        let rest = real.strip_prefix(self.top.as_ref()?).ok()?;
        rest.to_str().map(|r| r.replace('\\', "/"))
    }

    /// The text `HEAD` holds at `path`, a file of the work tree; `None` when it holds
    /// none (no commit, not committed, not in the work tree, not UTF-8).
    pub(super) fn committed_text(&self, path: &Path) -> Option<String> {
        let rel = self.in_work_tree(path)?;
        let out = git(self.top.as_deref(), ["show", &format!("HEAD:{rel}")]).ok()?;
        out.status
            .success()
            .then(|| String::from_utf8(out.stdout).ok())
            .flatten()
    }

    /// Whether git tracks `path`, a file of the work tree: the index or `HEAD` has it.
    pub(super) fn tracked(&self, path: &Path) -> bool {
        let Some(rel) = self.in_work_tree(path) else {
            return false;
        };
        let args = [
            "--literal-pathspecs",
            "ls-files",
            "--error-unmatch",
            "--",
            &rel,
        ];
        let listed = git(self.top.as_deref(), args);
        listed.is_ok_and(|o| o.status.success()) || self.committed_text(path).is_some()
    }
}

/// `path` with its folder resolved through symbolic links, the last name as it is (a
/// link `install` made names itself, not the binary it points to).
fn resolve_folder(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => resolve_existing(parent).join(name),
        _ => resolve_existing(path),
    }
}

/// `path` with its longest existing ancestor resolved through symbolic links.
pub(super) fn resolve_existing(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = path.to_path_buf();
    loop {
        if let Ok(real) = cur.canonicalize() {
            return rest.into_iter().rev().fold(real, |p, c| p.join(c));
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(root: &Path) -> Places {
        Places {
            top: Some(root.join("repo")),
            git_dir: Some(root.join("repo/.git")),
            links: Some(root.join("home/.local/share/tscn-merge/repo-1")),
        }
    }

    #[test]
    fn a_record_names_no_absolute_path_of_a_repository() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let p = places(&root);
        let links = root.join("home/.local/share/tscn-merge/repo-1");
        let named = [
            (root.join("repo/.gitattributes"), ".gitattributes"),
            (
                root.join("repo/.git/info/attributes"),
                ".git/info/attributes",
            ),
            (links.join("tscn-merge-diff"), "links:tscn-merge-diff"),
            (links.clone(), "links:."),
            (root.join("home/.local"), "links:../../.."),
        ];
        for (path, recorded) in named {
            assert_eq!(p.record(&path), recorded);
            assert_eq!(p.resolve(recorded), Ok(path));
        }
    }

    #[test]
    fn a_record_pointing_elsewhere_is_left() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let p = places(&root);
        let original = root.join("original/.gitattributes");
        assert_eq!(
            p.resolve(&original.to_string_lossy()),
            Err(ELSEWHERE.into())
        );
        for bad in [
            "../x/.gitattributes",
            "links:../x",
            "links:a/../..",
            "links:/etc",
        ] {
            assert!(p.resolve(bad).is_err(), "{bad}");
        }
    }
}
