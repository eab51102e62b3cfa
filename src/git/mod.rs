//! Reading from git repositories with gix: unmerged index stages, scene files
//! changed over a revision range, blobs at a revision.
//!
//! Everything here is read-only; writing config lives in `crate::install`. Which paths
//! are ours to read is [`paths`]'.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use gix::bstr::{BStr, BString, ByteSlice};
use gix::ObjectId;

pub use paths::is_scene_path;

pub mod paths;

/// The repository git would use from `start`: the one `GIT_DIR` (with `GIT_WORK_TREE`)
/// names when set, else the one containing `start`, walking upwards.
pub fn open_repo(start: &Path) -> Result<gix::Repository> {
    gix::discover_with_environment_overrides(start)
        .with_context(|| format!("not inside a git repository: {}", start.display()))
}

/// The three sides of an unmerged index entry. A side is `None` when that
/// stage is absent (no base for add/add, no ours/theirs for modify/delete).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stages {
    pub base: Option<Vec<u8>>,
    pub ours: Option<Vec<u8>>,
    pub theirs: Option<Vec<u8>>,
}

/// Turn a path given on the command line (absolute, or relative to the
/// current directory) into a repository-relative path with `/` separators.
pub fn repo_relative_path(repo: &gix::Repository, path: &Path) -> Result<BString> {
    let as_bytes = gix::path::into_bstr(path)?.into_owned();
    match repo.normalize_path(as_bytes.as_bstr()) {
        Ok(p) => Ok(p.into_owned()),
        Err(err) => {
            // `normalize_path` resolves absolute paths through realpath, which
            // fails for paths that no longer exist; try a plain prefix strip.
            if path.is_absolute() {
                if let Some(wd) = repo.workdir() {
                    if let Ok(rel) = path.strip_prefix(wd) {
                        return Ok(to_slash_bstring(rel));
                    }
                }
            }
            Err(anyhow::Error::from(err))
                .with_context(|| format!("path outside the repository: {}", path.display()))
        }
    }
}

fn to_slash_bstring(p: &Path) -> BString {
    let parts: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/").into()
}

/// Read stages 1 (base), 2 (ours) and 3 (theirs) of the unmerged entry for
/// `path_in_worktree`. Returns `Ok(None)` when the index has no unmerged
/// entry for that path (it is clean, or unknown).
pub fn conflict_stages(repo: &gix::Repository, path_in_worktree: &Path) -> Result<Option<Stages>> {
    let rela = repo_relative_path(repo, path_in_worktree)?;
    let index = repo.open_index().context("reading the index")?;
    conflict_stages_in_index(repo, &index, rela.as_bstr())
}

fn conflict_stages_in_index(
    repo: &gix::Repository,
    index: &gix::index::File,
    rela: &BStr,
) -> Result<Option<Stages>> {
    use gix::index::entry::Stage;
    let mut ids: [Option<ObjectId>; 3] = [None, None, None];
    let mut unmerged = false;
    for (slot, stage) in [Stage::Base, Stage::Ours, Stage::Theirs]
        .into_iter()
        .enumerate()
    {
        if let Some(entry) = index.entry_by_path_and_stage(rela, stage) {
            ids[slot] = Some(entry.id);
            unmerged = true;
        }
    }
    if !unmerged {
        return Ok(None);
    }
    let read = |id: Option<ObjectId>| -> Result<Option<Vec<u8>>> {
        id.map(|id| blob_bytes(repo, id)).transpose()
    };
    Ok(Some(Stages {
        base: read(ids[0])?,
        ours: read(ids[1])?,
        theirs: read(ids[2])?,
    }))
}

/// Every repository-relative path that currently has unmerged index entries, sorted
/// (which of them a command handles is the command's business).
pub fn unmerged_paths(repo: &gix::Repository) -> Result<Vec<String>> {
    let index = repo.open_index().context("reading the index")?;
    let mut out: Vec<String> = index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() != 0)
        .map(|e| e.path(&index).to_str_lossy().into_owned())
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

fn blob_bytes(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>> {
    let mut blob = repo
        .find_blob(id)
        .with_context(|| format!("reading blob {id}"))?;
    Ok(blob.take_data())
}

/// The bytes of `path` (repository-relative, `/`-separated, by its bytes: a name that is
/// not UTF-8 is a name like any other) in the tree of commit `rev` (git's `REV:PATH`);
/// `None` when that tree has no such file.
pub fn blob_at(repo: &gix::Repository, rev: &str, path: &BStr) -> Result<Option<Vec<u8>>> {
    let tree = repo.find_tree(commit_tree(repo, resolve_commit(repo, rev)?)?)?;
    match tree.lookup_entry(path.split_str("/"))? {
        Some(e) if e.mode().is_blob() => Ok(Some(blob_bytes(repo, e.object_id())?)),
        Some(_) => bail!("{rev}:{path} is not a file"),
        None => Ok(None),
    }
}

/// The tree of commit `rev`.
pub fn tree_of(repo: &gix::Repository, rev: &str) -> Result<ObjectId> {
    commit_tree(repo, resolve_commit(repo, rev)?)
}

/// The bytes of `path` in tree `tree` when it is a file of at most `max` bytes (the
/// pictures of `review` and `diff` read textures this way).
pub fn blob_in_tree(
    repo: &gix::Repository,
    tree: ObjectId,
    path: &str,
    max: u64,
) -> Option<Vec<u8>> {
    let e = repo
        .find_tree(tree)
        .ok()?
        .lookup_entry_by_path(path)
        .ok()??;
    if !e.mode().is_blob() || repo.find_header(e.object_id()).ok()?.size() > max {
        return None;
    }
    blob_bytes(repo, e.object_id()).ok()
}

/// One scene file that differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// `None` when the file was added.
    pub old: Option<Vec<u8>>,
    /// `None` when the file was deleted.
    pub new: Option<Vec<u8>>,
}

/// A revision range, parsed from the command line syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeSpec {
    /// `A..B`: tree of A against tree of B.
    TwoDot(String, String),
    /// `A...B`: merge-base(A, B) against B.
    ThreeDot(String, String),
    /// `R`: R's first parent (or the empty tree for a root commit) against R.
    Single(String),
}

/// Parse `A..B`, `A...B` or `R`. An empty side means `HEAD`, as in git.
pub fn parse_range(range: &str) -> Result<RangeSpec> {
    let range = range.trim();
    if range.is_empty() {
        bail!("empty revision range");
    }
    let side = |s: &str| {
        if s.is_empty() {
            "HEAD".to_string()
        } else {
            s.to_string()
        }
    };
    if let Some((a, b)) = range.split_once("...") {
        if a.is_empty() && b.is_empty() {
            bail!("invalid revision range {range:?}");
        }
        return Ok(RangeSpec::ThreeDot(side(a), side(b)));
    }
    if let Some((a, b)) = range.split_once("..") {
        if a.is_empty() && b.is_empty() {
            bail!("invalid revision range {range:?}");
        }
        return Ok(RangeSpec::TwoDot(side(a), side(b)));
    }
    Ok(RangeSpec::Single(range.to_string()))
}

fn resolve_commit(repo: &gix::Repository, rev: &str) -> Result<ObjectId> {
    let id = repo
        .rev_parse_single(rev)
        .with_context(|| format!("unknown revision {rev:?}"))?;
    let commit = id
        .object()?
        .peel_to_commit()
        .with_context(|| format!("{rev:?} does not name a commit"))?;
    Ok(commit.id)
}

fn commit_tree(repo: &gix::Repository, commit: ObjectId) -> Result<ObjectId> {
    let commit = repo.find_commit(commit)?;
    Ok(commit.tree_id()?.detach())
}

/// Resolve a range to the (old tree, new tree) pair to compare. `None` stands
/// for the empty tree.
pub fn range_trees(repo: &gix::Repository, range: &str) -> Result<(Option<ObjectId>, ObjectId)> {
    match parse_range(range)? {
        RangeSpec::TwoDot(a, b) => {
            let a = resolve_commit(repo, &a)?;
            let b = resolve_commit(repo, &b)?;
            Ok((Some(commit_tree(repo, a)?), commit_tree(repo, b)?))
        }
        RangeSpec::ThreeDot(a, b) => {
            let a_id = resolve_commit(repo, &a)?;
            let b_id = resolve_commit(repo, &b)?;
            let base = repo
                .merge_base(a_id, b_id)
                .with_context(|| format!("computing the merge base of {a} and {b}"))?
                .ok_or_else(|| anyhow!("{a} and {b} have no common ancestor"))?
                .detach();
            Ok((Some(commit_tree(repo, base)?), commit_tree(repo, b_id)?))
        }
        RangeSpec::Single(r) => {
            let id = resolve_commit(repo, &r)?;
            let commit = repo.find_commit(id)?;
            let parent = commit.parent_ids().next().map(|p| p.detach());
            let new = commit.tree_id()?.detach();
            let old = match parent {
                Some(p) => Some(commit_tree(repo, p)?),
                None => None,
            };
            Ok((old, new))
        }
    }
}

/// The files whose path `keep` accepts (`is_scene_path`, say) that differ over `range`,
/// sorted by path. Renames appear as a deletion plus an addition.
pub fn changed_files(
    repo: &gix::Repository,
    range: &str,
    keep: fn(&str) -> bool,
) -> Result<Vec<FileChange>> {
    let (old, new) = range_trees(repo, range)?;
    let mut changes = Vec::new();
    diff_trees(repo, (old, Some(new)), "", keep, &mut changes)?;
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// A tree entry reduced to what the diff needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    Tree(ObjectId),
    Blob(ObjectId),
    /// Symlinks and submodules: never scene content.
    Other,
}

fn tree_items(repo: &gix::Repository, tree: Option<ObjectId>) -> Result<BTreeMap<BString, Item>> {
    let mut out = BTreeMap::new();
    let Some(tree) = tree else { return Ok(out) };
    let tree = repo.find_tree(tree)?;
    let decoded = tree.decode()?;
    for entry in &decoded.entries {
        let item = if entry.mode.is_tree() {
            Item::Tree(entry.oid.to_owned())
        } else if entry.mode.is_blob() {
            Item::Blob(entry.oid.to_owned())
        } else {
            Item::Other
        };
        out.insert(entry.filename.to_owned(), item);
    }
    Ok(out)
}

fn diff_trees(
    repo: &gix::Repository,
    (old, new): (Option<ObjectId>, Option<ObjectId>),
    prefix: &str,
    keep: fn(&str) -> bool,
    out: &mut Vec<FileChange>,
) -> Result<()> {
    if old == new {
        return Ok(());
    }
    let old_items = tree_items(repo, old)?;
    let new_items = tree_items(repo, new)?;
    let mut names: Vec<&BString> = old_items.keys().chain(new_items.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let o = old_items.get(name).copied();
        let n = new_items.get(name).copied();
        if o == n {
            continue;
        }
        let path = format!("{prefix}{}", name.to_str_lossy());
        let old_tree = match o {
            Some(Item::Tree(id)) => Some(id),
            _ => None,
        };
        let new_tree = match n {
            Some(Item::Tree(id)) => Some(id),
            _ => None,
        };
        if old_tree.is_some() || new_tree.is_some() {
            diff_trees(repo, (old_tree, new_tree), &format!("{path}/"), keep, out)?;
        }
        let old_blob = match o {
            Some(Item::Blob(id)) => Some(id),
            _ => None,
        };
        let new_blob = match n {
            Some(Item::Blob(id)) => Some(id),
            _ => None,
        };
        if old_blob == new_blob || !keep(&path) {
            continue;
        }
        out.push(FileChange {
            path,
            old: old_blob.map(|id| blob_bytes(repo, id)).transpose()?,
            new: new_blob.map(|id| blob_bytes(repo, id)).transpose()?,
        });
    }
    Ok(())
}

/// Files read from a tree: repository-relative path and bytes, and whether a bound
/// stopped the reading.
pub type TreeFiles = (Vec<(String, Vec<u8>)>, bool);

/// The files whose path `keep` accepts in the tree `range` ends at (its new side), sorted
/// by path, reading at most `max_files` files and `max_bytes` bytes within `time`; and
/// whether one of those bounds stopped it (`review`'s stale uid search).
pub fn files_at_range_end(
    repo: &gix::Repository,
    range: &str,
    keep: fn(&str) -> bool,
    (max_files, max_bytes, time): (usize, u64, std::time::Duration),
) -> Result<TreeFiles> {
    let started = std::time::Instant::now();
    let (_, tree) = range_trees(repo, range)?;
    let (mut stack, mut out, mut read) = (vec![(String::new(), tree)], Vec::new(), 0u64);
    while let Some((prefix, tree)) = stack.pop() {
        for (name, item) in tree_items(repo, Some(tree))?.into_iter().rev() {
            let path = format!("{prefix}{}", name.to_str_lossy());
            match item {
                Item::Tree(id) => stack.push((format!("{path}/"), id)),
                Item::Blob(id) if keep(&path) => {
                    let size = repo.find_header(id)?.size();
                    if out.len() >= max_files || read + size > max_bytes || started.elapsed() > time
                    {
                        out.sort_by(|a: &(String, Vec<u8>), b| a.0.cmp(&b.0));
                        return Ok((out, true));
                    }
                    read += size;
                    out.push((path, blob_bytes(repo, id)?));
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((out, false))
}

/// Number of commits the range covers: `git rev-list --count A..B` for
/// `A..B`, the symmetric difference for `A...B`, and 1 for a single revision.
pub fn commits_in_range(repo: &gix::Repository, range: &str) -> Result<usize> {
    let count = |tips: Vec<ObjectId>, hidden: Vec<ObjectId>| -> Result<usize> {
        let walk = repo.rev_walk(tips).with_hidden(hidden).all()?;
        let mut n = 0;
        for info in walk {
            info?;
            n += 1;
        }
        Ok(n)
    };
    match parse_range(range)? {
        RangeSpec::Single(r) => {
            resolve_commit(repo, &r)?;
            Ok(1)
        }
        RangeSpec::TwoDot(a, b) => {
            let a = resolve_commit(repo, &a)?;
            let b = resolve_commit(repo, &b)?;
            count(vec![b], vec![a])
        }
        RangeSpec::ThreeDot(a, b) => {
            let a = resolve_commit(repo, &a)?;
            let b = resolve_commit(repo, &b)?;
            Ok(count(vec![b], vec![a])? + count(vec![a], vec![b])?)
        }
    }
}

#[cfg(test)]
#[path = "../../tests/common/mod.rs"]
mod harness;

#[cfg(test)]
mod tests {
    use super::harness::TempRepo;

    use super::*;

    #[test]
    fn scene_paths() {
        assert!(is_scene_path("a/b/level.tscn"));
        assert!(is_scene_path("theme.tres"));
        assert!(is_scene_path("Export.ESCN"));
        assert!(!is_scene_path("dir.tscn/readme.md"));
        assert!(!is_scene_path("a/.tscn"));
        assert!(!is_scene_path("script.gd"));
        assert!(!is_scene_path("tscn"));
    }

    #[test]
    fn ranges() {
        assert_eq!(
            parse_range("a..b").unwrap(),
            RangeSpec::TwoDot("a".into(), "b".into())
        );
        assert_eq!(
            parse_range("a...b").unwrap(),
            RangeSpec::ThreeDot("a".into(), "b".into())
        );
        assert_eq!(
            parse_range("main..").unwrap(),
            RangeSpec::TwoDot("main".into(), "HEAD".into())
        );
        assert_eq!(
            parse_range("...x").unwrap(),
            RangeSpec::ThreeDot("HEAD".into(), "x".into())
        );
        assert_eq!(
            parse_range("HEAD~2").unwrap(),
            RangeSpec::Single("HEAD~2".into())
        );
        assert!(parse_range("..").is_err());
        assert!(parse_range("...").is_err());
        assert!(parse_range("  ").is_err());
    }

    fn stages(base: Option<&str>, ours: Option<&str>, theirs: Option<&str>) -> Stages {
        let b = |s: Option<&str>| s.map(|s| s.as_bytes().to_vec());
        Stages {
            base: b(base),
            ours: b(ours),
            theirs: b(theirs),
        }
    }

    #[test]
    fn conflict_stages_of_a_real_merge() {
        let t = TempRepo::new();
        t.write("scenes/level 1.tscn", "base\n");
        t.write("clean.tscn", "same\n");
        t.write("both.tres", "x\n");
        t.remove("both.tres");
        t.commit_all("base");
        t.checkout_new("other");
        t.write("scenes/level 1.tscn", "theirs\n");
        t.write("added.tres", "their add\n");
        t.commit_all("theirs");
        t.checkout("main");
        t.write("scenes/level 1.tscn", "ours\n");
        t.write("added.tres", "our add\n");
        t.commit_all("ours");
        let out = t.merge("other");
        assert!(!out.status.success(), "the merge must conflict");

        let repo = open_repo(&t.abs("scenes")).unwrap();
        let want = stages(Some("base\n"), Some("ours\n"), Some("theirs\n"));
        let abs = conflict_stages(&repo, &t.abs("scenes/level 1.tscn")).unwrap();
        assert_eq!(abs, Some(want.clone()));
        // Relative paths are taken from the repository root when the current
        // directory is outside the work tree (as it is for this test).
        let rel = conflict_stages(&repo, Path::new("scenes/level 1.tscn")).unwrap();
        assert_eq!(rel, Some(want));
        // add/add: no base stage.
        let add = conflict_stages(&repo, &t.abs("added.tres")).unwrap();
        assert_eq!(
            add,
            Some(stages(None, Some("our add\n"), Some("their add\n")))
        );
        // Clean and unknown paths have no unmerged entry.
        assert_eq!(conflict_stages(&repo, &t.abs("clean.tscn")).unwrap(), None);
        assert_eq!(conflict_stages(&repo, &t.abs("nope.tscn")).unwrap(), None);
        assert_eq!(
            unmerged_paths(&repo).unwrap(),
            vec!["added.tres".to_string(), "scenes/level 1.tscn".to_string()]
        );
    }

    #[test]
    fn conflict_stages_of_modify_delete() {
        let t = TempRepo::new();
        t.write("a.tscn", "base\n");
        t.commit_all("base");
        t.checkout_new("other");
        t.remove("a.tscn");
        t.commit_all("delete");
        t.checkout("main");
        t.write("a.tscn", "ours\n");
        t.commit_all("modify");
        assert!(!t.merge("other").status.success());
        let repo = open_repo(t.path()).unwrap();
        let got = conflict_stages(&repo, &t.abs("a.tscn")).unwrap();
        assert_eq!(got, Some(stages(Some("base\n"), Some("ours\n"), None)));
    }

    fn summary(changes: &[FileChange]) -> Vec<(String, Option<String>, Option<String>)> {
        let s = |b: &Option<Vec<u8>>| b.as_ref().map(|b| String::from_utf8(b.clone()).unwrap());
        changes
            .iter()
            .map(|c| (c.path.clone(), s(&c.old), s(&c.new)))
            .collect()
    }

    fn change(
        path: &str,
        old: Option<&str>,
        new: Option<&str>,
    ) -> (String, Option<String>, Option<String>) {
        (
            path.to_string(),
            old.map(String::from),
            new.map(String::from),
        )
    }

    /// root: a.tscn, b.tres, x.gd, deep/d/e.tscn, keep/k.tscn
    /// main (c1): a.tscn modified, b.tres deleted, dir/c.escn added, x.gd
    ///   modified, deep/d/e.tscn modified, keep/k.tscn renamed to moved/k.tscn
    /// feature (c2, from root): a.tscn modified differently.
    fn history() -> (TempRepo, String, String, String) {
        let t = TempRepo::new();
        t.write("a.tscn", "a0\n");
        t.write("b.tres", "b0\n");
        t.write("x.gd", "x0\n");
        t.write("deep/d/e.tscn", "e0\n");
        t.write("keep/k.tscn", "k0\n");
        let c0 = t.commit_all("root");
        t.branch("feature");
        t.write("a.tscn", "a1\n");
        t.remove("b.tres");
        t.write("dir/c.escn", "c1\n");
        t.write("x.gd", "x1\n");
        t.write("deep/d/e.tscn", "e1\n");
        t.remove("keep/k.tscn");
        t.write("moved/k.tscn", "k0\n");
        let c1 = t.commit_all("main work");
        t.checkout("feature");
        t.write("a.tscn", "a2\n");
        let c2 = t.commit_all("feature work");
        t.checkout("main");
        (t, c0, c1, c2)
    }

    #[test]
    fn changed_scene_files_two_dot_and_single() {
        let (t, c0, c1, _) = history();
        let repo = open_repo(t.path()).unwrap();
        let expected = vec![
            change("a.tscn", Some("a0\n"), Some("a1\n")),
            change("b.tres", Some("b0\n"), None),
            change("deep/d/e.tscn", Some("e0\n"), Some("e1\n")),
            change("dir/c.escn", None, Some("c1\n")),
            change("keep/k.tscn", Some("k0\n"), None),
            change("moved/k.tscn", None, Some("k0\n")),
        ];
        let two_dot = changed_files(&repo, &format!("{c0}..{c1}"), is_scene_path).unwrap();
        assert_eq!(summary(&two_dot), expected);
        assert_eq!(
            summary(&changed_files(&repo, &c1, is_scene_path).unwrap()),
            expected
        );
        assert_eq!(
            summary(&changed_files(&repo, "HEAD", is_scene_path).unwrap()),
            expected
        );
        assert_eq!(
            summary(&changed_files(&repo, &format!("{c0}.."), is_scene_path).unwrap()),
            expected
        );
        // A root commit compares against the empty tree.
        let root = changed_files(&repo, &c0, is_scene_path).unwrap();
        assert_eq!(
            summary(&root),
            vec![
                change("a.tscn", None, Some("a0\n")),
                change("b.tres", None, Some("b0\n")),
                change("deep/d/e.tscn", None, Some("e0\n")),
                change("keep/k.tscn", None, Some("k0\n")),
            ]
        );
        // Same range, same answer.
        assert_eq!(changed_files(&repo, &c1, is_scene_path).unwrap(), two_dot);
        assert!(changed_files(&repo, "main..main", is_scene_path)
            .unwrap()
            .is_empty());
        assert!(changed_files(&repo, "no-such-rev", is_scene_path).is_err());
    }

    #[test]
    fn changed_scene_files_three_dot() {
        let (t, _, _, _) = history();
        let repo = open_repo(t.path()).unwrap();
        // merge-base(feature, main) = root, so this is root..main.
        let fm = changed_files(&repo, "feature...main", is_scene_path).unwrap();
        assert_eq!(
            fm,
            changed_files(&repo, "feature~1..main", is_scene_path).unwrap()
        );
        assert_eq!(fm.len(), 6);
        // root..feature: only a.tscn.
        assert_eq!(
            summary(&changed_files(&repo, "main...feature", is_scene_path).unwrap()),
            vec![change("a.tscn", Some("a0\n"), Some("a2\n"))]
        );
        // Two dots compare the tips directly.
        assert_eq!(
            summary(&changed_files(&repo, "main..feature", is_scene_path).unwrap()),
            vec![
                change("a.tscn", Some("a1\n"), Some("a2\n")),
                change("b.tres", None, Some("b0\n")),
                change("deep/d/e.tscn", Some("e1\n"), Some("e0\n")),
                change("dir/c.escn", Some("c1\n"), None),
                change("keep/k.tscn", None, Some("k0\n")),
                change("moved/k.tscn", Some("k0\n"), None),
            ]
        );
    }

    #[test]
    fn file_replaced_by_directory() {
        let t = TempRepo::new();
        t.write("thing.tscn", "file\n");
        let c0 = t.commit_all("file");
        t.remove("thing.tscn");
        t.write("thing.tscn/inner.tscn", "inner\n");
        let c1 = t.commit_all("dir");
        let repo = open_repo(t.path()).unwrap();
        assert_eq!(
            summary(&changed_files(&repo, &format!("{c0}..{c1}"), is_scene_path).unwrap()),
            vec![
                change("thing.tscn", Some("file\n"), None),
                change("thing.tscn/inner.tscn", None, Some("inner\n")),
            ]
        );
    }

    #[test]
    fn commit_counts() {
        let (t, c0, _, _) = history();
        let repo = open_repo(t.path()).unwrap();
        assert_eq!(commits_in_range(&repo, &format!("{c0}..main")).unwrap(), 1);
        assert_eq!(commits_in_range(&repo, "main...feature").unwrap(), 2);
        assert_eq!(commits_in_range(&repo, "main..main").unwrap(), 0);
        assert_eq!(commits_in_range(&repo, "main").unwrap(), 1);
    }
}
