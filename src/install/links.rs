//! Where the binary is and the links `install` makes to it: the running executable (the
//! bare name when it is the one on `PATH`), and the per-scope folder of links
//! ([`TEXTCONV_LINK`], [`DIFF_LINK`]) that git starts without a shell. Symbolic links
//! are made on unix only; elsewhere the commands go through git's shell.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::places::{Places, LINKS};
use super::record::{git_ok, Record, RECORD_CREATED};
use super::shared::{exe_word, Exe, Links, Scope, DRIVER};

/// The binary the configured commands start, as an absolute path: the `tscn-merge` on
/// `PATH` when it is this very executable (so an upgrade in place, or a package
/// manager's link, is followed), else the running executable itself. The driver
/// falls back to `PATH` when the path goes away.
pub fn detect_exe() -> Result<Exe> {
    let me = std::env::current_exe().context("locating the running executable")?;
    let me = me.canonicalize().unwrap_or(me);
    if me.to_str().is_none() {
        bail!("the executable path is not valid UTF-8: {}", me.display());
    }
    Ok(match first_on_path() {
        Some(found) if found.canonicalize().is_ok_and(|c| c == me) => {
            Exe::Absolute(std::path::absolute(&found).unwrap_or(found))
        }
        _ => Exe::Absolute(me),
    })
}

/// The file name of the binary: `tscn-merge`, `tscn-merge.exe` on Windows.
pub fn exe_name() -> String {
    format!("{DRIVER}{}", std::env::consts::EXE_SUFFIX)
}

/// The `tscn-merge` a shell would start: the first one on `PATH`.
pub fn first_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(exe_name()))
        .find(|candidate| candidate.is_file())
}

/// Remove the files and folders `install` created, when nothing is left in them: the
/// links first, so the folders made for the first one are empty when their turn comes.
/// A recorded path outside this repository ([`Places::resolve`]) and a file git tracks
/// stay, each with a line saying why.
pub(super) fn remove_created(created: &[String], places: &Places, report: &mut Vec<String>) {
    let mut paths = Vec::new();
    for recorded in created {
        match places.resolve(recorded) {
            Ok(path) => paths.push(path),
            Err(why) => report.push(format!("left {recorded}: {why}")),
        }
    }
    let is_link =
        |p: &PathBuf| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let (links, rest): (Vec<PathBuf>, Vec<PathBuf>) = paths.into_iter().partition(is_link);
    for path in links.iter().chain(&rest) {
        let shown = path.display();
        if is_link(path) {
            if is_our_link(path) && std::fs::remove_file(path).is_ok() {
                report.push(format!("removed {shown} (install created it)"));
            }
            continue;
        }
        let empty_file = std::fs::read(path).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace));
        if empty_file && places.tracked(path) {
            report.push(format!(
                "{shown} not deleted: git tracks it (git rm deletes it)"
            ));
            continue;
        }
        let gone = if empty_file {
            std::fs::remove_file(path).is_ok()
        } else {
            std::fs::remove_dir(path).is_ok()
        };
        if gone {
            report.push(format!("removed {shown} (install created it)"));
        }
    }
}

/// `install` without `--diff`: the links an earlier `install --diff` made in this
/// scope's folder go again, with the folders made for them, and leave the record.
pub(super) fn remove_links(
    links: &Links,
    places: &Places,
    dir: Option<&Path>,
    flag: &str,
    rec: &mut Record,
    report: &mut Vec<String>,
) -> Result<()> {
    let Some(folder) = links.textconv.as_deref().and_then(Path::parent) else {
        return Ok(());
    };
    let for_links = |recorded: &String| {
        let near = |p: PathBuf| p.starts_with(folder) || folder.starts_with(&p);
        recorded.starts_with(LINKS) || places.resolve(recorded).is_ok_and(near)
    };
    let made: Vec<String> = rec
        .created
        .iter()
        .filter(|c| for_links(c))
        .cloned()
        .collect();
    if made.is_empty() {
        return Ok(());
    }
    remove_created(&made, places, report);
    remove_link_folders(links.textconv.as_deref(), report);
    let gone = |recorded: &String| {
        places
            .resolve(recorded)
            .is_ok_and(|p| std::fs::symlink_metadata(p).is_err())
    };
    let gone: Vec<String> = made.into_iter().filter(gone).collect();
    Record::forget(dir, flag, &mut rec.created, RECORD_CREATED, &gone)
}

/// Where `install` links [`TEXTCONV_LINK`] and [`DIFF_LINK`] for `scope`: a folder of its own under the
/// user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`), `tscn-merge/global` or
/// `tscn-merge/repo-HASH` (of the repository's git folder), so moving or copying the
/// repository keeps the link and each scope's `uninstall` removes only its own.
/// `None` without a home folder, a git folder, or a UTF-8 path (git's config holds text).
pub(super) fn link_folder(scope: &Scope) -> Option<PathBuf> {
    if !cfg!(unix) {
        // No symbolic links: git runs the binary's own command line instead.
        return None;
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
            Some(Path::new(&home).join(".local").join("share"))
        })?;
    let folder = match scope {
        Scope::Global => "global".to_string(),
        Scope::Repo(dir) => {
            let args = ["rev-parse", "--path-format=absolute", "--git-common-dir"];
            let out = git_ok(Some(dir), args).ok()?;
            let git_dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim_end());
            let git_dir = git_dir.canonicalize().unwrap_or(git_dir);
            format!(
                "repo-{:016x}",
                fnv1a(git_dir.as_os_str().as_encoded_bytes())
            )
        }
    };
    Some(data.join(DRIVER).join(folder)).filter(|l| l.to_str().is_some())
}

/// FNV-1a, 64 bits: a stable name for a path (not a secret, not a checksum).
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether `path` is a symbolic link to a `tscn-merge` binary.
pub(super) fn is_our_link(path: &Path) -> bool {
    std::fs::read_link(path).is_ok_and(|t| {
        t.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(DRIVER))
    })
}

/// Make both [`Links`] (see [`place_link`]); returns the links in place and one line
/// each to report.
pub(super) fn place_links(
    exe: &Exe,
    links: &Links,
    places: &Places,
    dir: Option<&Path>,
    flag: &str,
    rec: &mut Record,
) -> Result<(Links, Vec<String>)> {
    let textconv = ("textconv", "textconv --", links.textconv.as_deref());
    let diff = (
        "external diff",
        "diff --git-external --",
        links.diff.as_deref(),
    );
    let mut report = Vec::new();
    let mut placed = [None, None];
    for (slot, (what, fallback, link)) in placed.iter_mut().zip([textconv, diff]) {
        let (made, line) = place_link(exe, link, places, what, dir, flag, rec)?;
        *slot = link.filter(|_| made).map(Path::to_path_buf);
        report.push(if made {
            line
        } else {
            format!(
                "{line}; git runs `{} {fallback}` through the shell",
                exe_word(exe)
            )
        });
    }
    let [textconv, diff] = placed;
    Ok((Links { textconv, diff }, report))
}

/// Make `link` a symbolic link to the binary (the one on `PATH` for [`Exe::OnPath`], so
/// an upgrade there is followed), noting it (and the folders made
/// for it) so `uninstall` removes them. Returns whether the link is in place, and the
/// line to report (`what` names the link's job); without it the command goes through
/// the shell.
pub(super) fn place_link(
    exe: &Exe,
    link: Option<&Path>,
    places: &Places,
    what: &str,
    dir: Option<&Path>,
    flag: &str,
    rec: &mut Record,
) -> Result<(bool, String)> {
    let Some(link) = link else {
        let why = if cfg!(unix) {
            "no data folder (HOME), git folder, or UTF-8 path for it"
        } else {
            "no symbolic links on this system"
        };
        return Ok((false, format!("{what} link not made: {why}")));
    };
    let target = match exe {
        Exe::Absolute(p) => p.clone(),
        Exe::OnPath => first_on_path().context("finding tscn-merge on PATH")?,
    };
    let shown = link.display();
    match std::fs::symlink_metadata(link) {
        Ok(m)
            if m.file_type().is_symlink()
                && std::fs::read_link(link).ok() == Some(target.clone()) =>
        {
            return Ok((true, format!("{what} link {shown} already in place")));
        }
        Ok(_) if !is_our_link(link) => {
            return Ok((
                false,
                format!("{what} link not made: {shown} is not tscn-merge's"),
            ));
        }
        Ok(_) => std::fs::remove_file(link).with_context(|| format!("replacing {shown}"))?,
        Err(_) => {}
    }
    let missing: Vec<&Path> = link
        .ancestors()
        .skip(1)
        .take_while(|a| !a.exists())
        .collect();
    let created = std::iter::once(link).chain(missing);
    for path in created {
        let path = places.record(path);
        Record::note(dir, flag, &mut rec.created, RECORD_CREATED, &path)?;
    }
    match link
        .parent()
        .map(std::fs::create_dir_all)
        .transpose()
        .and_then(|_| symlink(&target, link))
    {
        Ok(()) => Ok((true, format!("{what} link {shown} -> {}", target.display()))),
        Err(e) => Ok((false, format!("{what} link {shown} not made: {e}"))),
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Remove the link's folder and `tscn-merge`'s own data folder once empty: another
/// scope's install may have created the latter, and the last `uninstall` removes it.
pub(super) fn remove_link_folders(link: Option<&Path>, report: &mut Vec<String>) {
    let folders = link.into_iter().flat_map(|l| l.ancestors().skip(1).take(2));
    for folder in folders {
        if std::fs::remove_dir(folder).is_ok() {
            report.push(format!("removed {} (empty)", folder.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_its_link_folder_alone() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(fnv1a(b"/a/.git"), fnv1a(b"/b/.git"));
    }
}
