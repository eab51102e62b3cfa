//! What `diff`'s arguments name, as `git diff` reads them: two files, `REV:PATH` blobs
//! (`HEAD~1:level.tscn`, `main:./player.tscn` relative to the current directory), or
//! one work-tree `PATH` compared with `HEAD`'s version of it.
//!
//! Blobs are written to a temporary folder under their own file name (so the kind of
//! file is still known by name) and labelled as they were spelled; the diffing and
//! printing are `diff.rs`'s.

use super::pictures::Source;
use crate::git;
use anyhow::{bail, Context, Result};
use gix::bstr::{BStr, BString, ByteSlice};
use std::path::{Path, PathBuf};

/// The two sides to diff, as files, with the names to show for them.
pub struct Staged {
    /// Holds the blobs read from git; removed on drop.
    _dir: Option<tempfile::TempDir>,
    /// OLD and NEW as files (`/dev/null` for a missing side).
    pub files: Vec<PathBuf>,
    /// OLD and NEW as the user named them (`HEAD:a.tscn`, `a.tscn`).
    pub labels: Vec<String>,
    /// Where OLD and NEW come from, for the pictures' textures.
    pub sources: Vec<Source>,
}

/// A file argument's source: on disk, or none for `/dev/null`.
fn disk(p: &Path) -> Source {
    if p == Path::new("/dev/null") {
        Source::Missing
    } else {
        Source::Disk(p.to_path_buf())
    }
}

/// Whether `arg` is git's `REV:PATH` rather than a file: it names no file, and has a
/// revision before a `:` (a Windows drive `C:\...` is a file). The path is kept as
/// bytes: a name that is not UTF-8 is a name like any other.
fn rev_path(arg: &Path) -> Option<(String, BString)> {
    if arg.exists() || arg == Path::new("/dev/null") {
        return None;
    }
    let bytes = gix::path::into_bstr(arg).ok()?;
    let (rev, path) = bytes.split_once_str(":")?;
    let rev = rev.to_str().ok()?;
    let drive = rev.len() == 1 && path.first().is_some_and(|&b| b == b'\\' || b == b'/');
    (!rev.is_empty() && !path.is_empty() && !drive).then(|| (rev.into(), path.into()))
}

/// The repository-relative spelling of a `REV:PATH`'s path: `./` and `../` are relative
/// to the current directory, anything else to the top of the work tree (as in git).
fn tree_path(repo: &gix::Repository, path: &BStr) -> Result<BString> {
    if path.starts_with(b"./") || path.starts_with(b"../") {
        git::repo_relative_path(repo, &gix::path::from_bstr(path)?)
    } else {
        Ok(path.trim_start_with(|c| c == '/').into())
    }
}

/// Stage `diff`'s file arguments: `OLD NEW` (either may be `REV:PATH`) or one `PATH`.
pub fn stage(args: &[PathBuf]) -> Result<Staged> {
    let shown = |p: &Path| p.display().to_string();
    match args {
        [path] => work_tree_against_head(path),
        [old, new] if rev_path(old).is_none() && rev_path(new).is_none() => Ok(Staged {
            _dir: None,
            files: args.to_vec(),
            labels: vec![shown(old), shown(new)],
            sources: vec![disk(old), disk(new)],
        }),
        [old, new] => {
            let repo = git::open_repo(Path::new("."))?;
            let dir = tempfile::tempdir().context("creating a temporary folder")?;
            let (mut files, mut sources) = (Vec::new(), Vec::new());
            for (i, arg) in [old, new].into_iter().enumerate() {
                files.push(match rev_path(arg) {
                    None => {
                        sources.push(disk(arg));
                        arg.clone()
                    }
                    Some((rev, path)) => {
                        let rel = tree_path(&repo, path.as_bstr())?;
                        let Some(bytes) = git::blob_at(&repo, &rev, rel.as_bstr())? else {
                            bail!("path '{rel}' does not exist in '{rev}'");
                        };
                        let rel = rel.to_string();
                        sources.push(Source::Git { rev, path: rel.clone() });
                        write_blob(dir.path(), i, &rel, &bytes)?
                    }
                });
            }
            Ok(Staged {
                _dir: Some(dir),
                files,
                labels: vec![shown(old), shown(new)],
                sources,
            })
        }
        _ => bail!(
            "diff takes OLD NEW (files or REV:PATH), or one work-tree PATH to compare with HEAD (got {} arguments)",
            args.len()
        ),
    }
}

/// Write side `i`'s blob as `DIR/i/NAME`, NAME the file name of `rel`.
fn write_blob(dir: &Path, i: usize, rel: &str, bytes: &[u8]) -> Result<PathBuf> {
    let name = rel
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("blob");
    let side = dir.join(i.to_string());
    std::fs::create_dir_all(&side)?;
    let file = side.join(name);
    std::fs::write(&file, bytes).with_context(|| format!("writing {}", file.display()))?;
    Ok(file)
}

/// `diff PATH`: `HEAD`'s version of the file (absent: an added file) against the work
/// tree's (absent: a deleted one).
fn work_tree_against_head(path: &Path) -> Result<Staged> {
    let repo = git::open_repo(Path::new("."))?;
    let rel_bytes = git::repo_relative_path(&repo, path)?;
    let old = git::blob_at(&repo, "HEAD", rel_bytes.as_bstr())?;
    let rel = rel_bytes.to_string();
    let on_disk = path.is_file();
    if old.is_none() && !on_disk {
        bail!("{}: neither in the work tree nor in HEAD", path.display());
    }
    let dir = tempfile::tempdir().context("creating a temporary folder")?;
    let old_file = match &old {
        Some(bytes) => write_blob(dir.path(), 0, &rel, bytes)?,
        None => PathBuf::from("/dev/null"),
    };
    let new_file = if on_disk {
        path.to_path_buf()
    } else {
        PathBuf::from("/dev/null")
    };
    let sources = vec![
        match old {
            Some(_) => Source::Git {
                rev: "HEAD".into(),
                path: rel.clone(),
            },
            None => Source::Missing,
        },
        if on_disk {
            Source::Disk(path.to_path_buf())
        } else {
            Source::Missing
        },
    ];
    Ok(Staged {
        _dir: Some(dir),
        files: vec![old_file, new_file],
        labels: vec![format!("HEAD:{rel}"), path.display().to_string()],
        sources,
    })
}
