//! The config side of `install`: setting or unsetting a key only when the user did not
//! set it, noting each in the record ([`super::record`]), and tidying the sections left
//! empty.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::attributes::default_global_attributes;
use super::commands::Ours;
use super::record::{git, git_ok, Record, RECORD_KEYS};
use super::shared::{DRIVER, SECTIONS};

/// The file `git config --global` writes: `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, or
/// the XDG one when only it exists.
pub(super) fn global_config_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GIT_CONFIG_GLOBAL").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let home = PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?);
    let dotfile = home.join(".gitconfig");
    let xdg = default_global_attributes().ok()?.with_file_name("config");
    Some(if !dotfile.exists() && xdg.exists() {
        xdg
    } else {
        dotfile
    })
}

/// Set one config key unless the user set it: returns the line to report.
pub(super) fn set_key(
    dir: Option<&Path>,
    flag: &str,
    key: &str,
    value: &str,
    ours: &Ours,
    rec: &mut Record,
) -> Result<String> {
    let current = git(dir, ["config", flag, "--get-all", key])?;
    let now = String::from_utf8_lossy(&current.stdout)
        .trim_end_matches('\n')
        .to_string();
    if current.status.success() && now == value {
        return Ok(format!("config {key} already set"));
    }
    let mine = rec.keys.iter().any(|k| k == key) || ours.wrote(key, &now);
    if current.status.success() && !mine {
        return Ok(format!(
            "config {key} kept: it is set to {now:?}, not by tscn-merge"
        ));
    }
    git_ok(dir, ["config", flag, "--replace-all", key, value])?;
    Record::note(dir, flag, &mut rec.keys, RECORD_KEYS, key)?;
    Ok(format!("config {key} = {value}"))
}

/// Remove our config sections that no longer hold a key.
/// `alias` is among them when `install` set the alias (a section the user may share).
pub(super) fn remove_empty_sections(
    dir: Option<&Path>,
    flag: &str,
    alias: bool,
    report: &mut Vec<String>,
) -> Result<()> {
    let names = SECTIONS
        .iter()
        .map(|s| format!("{s}.{DRIVER}"))
        .chain([DRIVER.to_string()])
        .chain(alias.then(|| "alias".to_string()));
    for name in names {
        let pattern = format!("^{}\\.", name.replace('.', "\\.").replace('-', "\\-"));
        let left = git(dir, ["config", flag, "--get-regexp", &pattern])?;
        if left.status.success() && !left.stdout.is_empty() {
            if name == "alias" {
                continue;
            }
            report.push(format!("config section {name} kept: it has other keys"));
            continue;
        }
        // Fails harmlessly (status 128) when no such section header exists.
        let removed = git(dir, ["config", flag, "--remove-section", &name])?;
        if removed.status.success() && name != DRIVER {
            report.push(format!("config section {name} removed"));
        }
    }
    Ok(())
}

/// Unset `key` when `install` set it (it is recorded, or holds a value some version of
/// `install` writes): the line to report, `None` when it is not set.
pub(super) fn unset_ours(
    dir: Option<&Path>,
    flag: &str,
    key: &str,
    ours: &Ours,
    rec: &Record,
) -> Result<Option<String>> {
    let current = git(dir, ["config", flag, "--get-all", key])?;
    if !current.status.success() {
        return Ok(None);
    }
    let now = String::from_utf8_lossy(&current.stdout)
        .trim_end_matches('\n')
        .to_string();
    if !rec.keys.iter().any(|k| k == key) && !ours.wrote(key, &now) {
        return Ok(Some(format!(
            "config {key} kept: it is set to {now:?}, not by tscn-merge"
        )));
    }
    git_ok(dir, ["config", flag, "--unset-all", key])?;
    Ok(Some(format!("config {key} removed")))
}
