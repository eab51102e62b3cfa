//! The attributes side of `install`: the marked block of `*.tscn merge=... diff=...`
//! lines, where it goes (the work tree's `.gitattributes` or the global file), and the
//! checks that refuse a file that is a symbolic link or lies outside the repository or
//! the user's folders. Adding and removing the block round-trips byte for byte. A block
//! that `HEAD` holds is the team's: neither `install` nor `uninstall` touches it (an
//! older one included), and both say so.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::places::{resolve_existing, Places};
use super::record::{git, git_ok, Record, RECORD_ATTRS, RECORD_CREATED};
use super::shared::{Scope, BLOCK_END, BLOCK_START, DRIVER, PATTERNS};

/// The attributes block, markers included, each line ending in `\n`: scenes get the
/// merge driver and the hunk headers; Godot's ConfigFile files (`project.godot`,
/// `*.import`, ...) the merge driver only (their diff stays git's).
pub fn attributes_block() -> String {
    let mut s = format!("{BLOCK_START}\n");
    for p in PATTERNS {
        s.push_str(&format!("{p} merge={DRIVER} diff={DRIVER}\n"));
    }
    for p in gdscene::config::ATTRIBUTE_PATTERNS {
        s.push_str(&format!("{p} merge={DRIVER}\n"));
    }
    s.push_str(BLOCK_END);
    s.push('\n');
    s
}

/// Byte range of our block in `text`, from the start marker line through the
/// end marker line (with its newline, if any).
pub(super) fn find_block(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        match start {
            // A later start marker wins over an unterminated earlier one.
            _ if bare == BLOCK_START => start = Some(offset),
            Some(s) if bare == BLOCK_END => return Some((s, offset + line.len())),
            _ => {}
        }
        offset += line.len();
    }
    None
}

/// `text` with our block added, or replaced if an older one is there.
/// Returns `None` when the text already holds exactly this block.
///
/// A file without a final newline gets the block as `"\n" + block` with the
/// block's own final newline left off, so that [`remove_attributes_block`]
/// restores it byte for byte.
pub fn add_attributes_block(text: &str) -> Option<String> {
    // The file's own line ending (CRLF in a `core.autocrlf=true` work tree), so that git
    // does not warn of a mixed file on every `git diff`.
    let crlf = crate::io::eol::Ending::of(text.as_bytes()) == crate::io::eol::Ending::CrLf;
    let block = match crlf {
        true => attributes_block().replace('\n', "\r\n"),
        false => attributes_block(),
    };
    if let Some((s, e)) = find_block(text) {
        let current = &text[s..e];
        let wanted = if e == text.len() && !current.ends_with('\n') {
            block.trim_end_matches(['\r', '\n'])
        } else {
            block.as_str()
        };
        if current == wanted {
            return None;
        }
        return Some(format!("{}{}{}", &text[..s], wanted, &text[e..]));
    }
    Some(if text.is_empty() || text.ends_with('\n') {
        format!("{text}{block}")
    } else {
        let eol = if crlf { "\r\n" } else { "\n" };
        format!("{text}{eol}{}", block.trim_end_matches(['\r', '\n']))
    })
}

/// `text` without our block, or `None` when there is no block.
pub fn remove_attributes_block(text: &str) -> Option<String> {
    let (s, e) = find_block(text)?;
    let mut start = s;
    if e == text.len() && !text.ends_with('\n') && start > 0 {
        // Added after a last line without newline: drop the `\n` (`\r\n`) we added.
        start -= 1;
        if text[s..e].contains("\r\n") && text[..start].ends_with('\r') {
            start -= 1;
        }
    }
    Some(format!("{}{}", &text[..start], &text[e..]))
}

/// The attributes file the scope uses: `<worktree>/.gitattributes`, or for
/// `--global` the file named by `core.attributesFile`, else git's default
/// `$XDG_CONFIG_HOME/git/attributes` (`~/.config/git/attributes`). `local`
/// (`install --local`): the repository's `.git/info/attributes`, which every branch
/// sees and nobody commits.
pub fn attributes_path(scope: &Scope, local: bool) -> Result<PathBuf> {
    match scope {
        Scope::Repo(dir) if local => {
            let args = [
                "rev-parse",
                "--path-format=absolute",
                "--git-path",
                "info/attributes",
            ];
            let out = git_ok(Some(dir), args)
                .with_context(|| format!("{} is not inside a git repository", dir.display()))?;
            let path = String::from_utf8(out.stdout).context("git folder path is not UTF-8")?;
            Ok(dir.join(path.trim_end_matches(['\n', '\r'])))
        }
        Scope::Repo(dir) => {
            let out = git_ok(Some(dir), ["rev-parse", "--show-toplevel"])
                .with_context(|| format!("{} is not inside a git work tree", dir.display()))?;
            let top = String::from_utf8(out.stdout).context("work tree path is not UTF-8")?;
            Ok(PathBuf::from(top.trim_end_matches(['\n', '\r'])).join(".gitattributes"))
        }
        Scope::Global => {
            let out = git(
                None,
                ["config", "--type=path", "--get", "core.attributesFile"],
            )?;
            let configured = String::from_utf8_lossy(&out.stdout)
                .trim_end_matches(['\n', '\r'])
                .to_string();
            if out.status.success() && !configured.is_empty() {
                return Ok(PathBuf::from(configured));
            }
            default_global_attributes()
        }
    }
}

pub(super) fn default_global_attributes() -> Result<PathBuf> {
    if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(xdg).join("git").join("attributes"));
    }
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .context("HOME is not set: cannot locate the global attributes file")?;
    Ok(PathBuf::from(home)
        .join(".config")
        .join("git")
        .join("attributes"))
}

/// Refuse an attributes file that is a symbolic link (a committed `.gitattributes`
/// link would have `install` write wherever it points) or that lies outside the
/// repository (`--global`: outside the home and config folders).
pub(super) fn check_attributes_target(scope: &Scope, attrs: &Path) -> Result<()> {
    let shown = attrs.display();
    if std::fs::symlink_metadata(attrs).is_ok_and(|m| m.file_type().is_symlink()) {
        bail!("refusing to write through {shown}: it is a symbolic link");
    }
    let roots: Vec<PathBuf> = match scope {
        Scope::Repo(_) => attrs.parent().map(Path::to_path_buf).into_iter().collect(),
        Scope::Global => ["HOME", "XDG_CONFIG_HOME"]
            .iter()
            .filter_map(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .collect(),
    };
    let real = resolve_existing(attrs);
    if !roots.iter().any(|r| real.starts_with(resolve_existing(r))) {
        bail!("refusing to write {shown}: it resolves to {}, outside the repository and your config folder", real.display());
    }
    Ok(())
}

/// The block `HEAD` holds in `attrs` (a work tree's `.gitattributes`): the team's.
pub(super) fn committed_block(attrs: &Path, places: &Places) -> Option<String> {
    let text = places.committed_text(attrs)?;
    let (s, e) = find_block(&text)?;
    Some(text[s..e].to_string())
}

/// Add the attributes block to `attrs`, noting the folders created for it; a block
/// `HEAD` holds there is left as it is.
pub(super) fn add_block(
    attrs: &Path,
    places: &Places,
    dir: Option<&Path>,
    flag: &str,
    rec: &mut Record,
) -> Result<String> {
    let existing = match std::fs::read(attrs) {
        Ok(bytes) => {
            String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", attrs.display()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", attrs.display())),
    };
    let update = add_attributes_block(&existing);
    if find_block(&existing).is_some() && committed_block(attrs, places).is_some() {
        return Ok(match update {
            None => format!("attributes already in {} (committed)", attrs.display()),
            Some(_) => format!(
                "{} kept: its tscn-merge block is committed (the team's) and differs from this version's; to update it for everyone, delete the block, run tscn-merge install and commit the file",
                attrs.display()
            ),
        });
    }
    let Some(updated) = update else {
        return Ok(format!("attributes already in {}", attrs.display()));
    };
    let recorded = places.record(attrs);
    Record::note(dir, flag, &mut rec.attributes, RECORD_ATTRS, &recorded)?;
    if !attrs.exists() {
        // Before its folders: `uninstall` removes what it lists in this order.
        Record::note(dir, flag, &mut rec.created, RECORD_CREATED, &recorded)?;
    }
    let missing = attrs.ancestors().skip(1);
    for folder in missing.take_while(|a| !a.as_os_str().is_empty() && !a.exists()) {
        let folder = places.record(folder);
        Record::note(dir, flag, &mut rec.created, RECORD_CREATED, &folder)?;
    }
    if let Some(parent) = attrs.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    crate::io::write_atomic(attrs, updated.as_bytes())?;
    Ok(format!("attributes added to {}", attrs.display()))
}

/// Take our block out of the attributes file (a file `install` created, left empty, is
/// removed with the other files it created). A block `HEAD` holds is the team's and
/// stays; where an earlier version's `install` rewrote it here, the committed block is
/// put back.
pub(super) fn remove_block(attrs: &Path, places: &Places) -> Result<String> {
    let shown = attrs.display();
    let bytes = match std::fs::read(attrs) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("no attributes file at {shown}"))
        }
        Err(e) => return Err(e).with_context(|| format!("reading {shown}")),
    };
    let text = String::from_utf8(bytes).with_context(|| format!("{shown} is not UTF-8"))?;
    let Some((s, e)) = find_block(&text) else {
        return Ok(format!("no tscn-merge attributes in {shown}"));
    };
    let team = committed_block(attrs, places);
    let rest = match &team {
        Some(team) if text[s..e].trim_end() == team.trim_end() => {
            return Ok(format!(
                "{shown} kept: its tscn-merge block is committed (the team's); to take it out for everyone, delete the block and commit the file"
            ));
        }
        Some(team) => format!("{}{team}{}", &text[..s], &text[e..]),
        None => remove_attributes_block(&text).unwrap_or_default(),
    };
    crate::io::write_atomic(attrs, rest.as_bytes())?;
    Ok(match team {
        Some(_) => format!(
            "{shown}: the committed tscn-merge block put back (an earlier install rewrote it)"
        ),
        None => format!("attributes removed from {shown}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crlf_file_gets_a_crlf_block_and_round_trips() {
        for text in ["*.png binary\r\n", "*.png binary\r\n*.gd text"] {
            let added = add_attributes_block(text).unwrap();
            assert_eq!(added.matches('\n').count(), added.matches("\r\n").count());
            assert_eq!(add_attributes_block(&added), None);
            assert_eq!(remove_attributes_block(&added).unwrap(), text);
        }
    }

    #[test]
    fn block_added_to_empty_and_idempotent() {
        let once = add_attributes_block("").unwrap();
        assert_eq!(once, attributes_block());
        assert!(once.contains("*.tres merge=tscn-merge diff=tscn-merge\n"));
        assert_eq!(add_attributes_block(&once), None);
        assert_eq!(remove_attributes_block(&once).unwrap(), "");
    }

    #[test]
    fn block_round_trips_byte_for_byte() {
        for original in [
            "*.png binary\n",
            "*.png binary",
            "*.png binary\r\n*.gd text\r\n",
            "\n\n",
            "# comment\n*.import -diff",
        ] {
            let added = add_attributes_block(original).unwrap();
            assert!(added.starts_with(original), "{original:?}");
            assert_eq!(add_attributes_block(&added), None, "{original:?}");
            assert_eq!(
                remove_attributes_block(&added).unwrap(),
                original,
                "{original:?}"
            );
        }
    }

    #[test]
    fn block_in_the_middle_is_removed_alone() {
        let text = format!("a\n{}b\n", attributes_block());
        assert_eq!(add_attributes_block(&text), None);
        assert_eq!(remove_attributes_block(&text).unwrap(), "a\nb\n");
        assert_eq!(remove_attributes_block("a\nb\n"), None);
    }

    #[test]
    fn stale_block_is_replaced() {
        let text = format!("x\n{BLOCK_START}\n*.tscn merge=old\n{BLOCK_END}\ny\n");
        let updated = add_attributes_block(&text).unwrap();
        assert_eq!(updated, format!("x\n{}y\n", attributes_block()));
    }

    #[test]
    fn unterminated_start_marker_is_not_a_block() {
        let text = format!("{BLOCK_START}\n*.tscn merge=x\n");
        assert_eq!(remove_attributes_block(&text), None);
        let added = add_attributes_block(&text).unwrap();
        assert_eq!(added, format!("{text}{}", attributes_block()));
    }
}
