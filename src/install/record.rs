//! What `install` noted it did, so `uninstall` removes exactly that: the section
//! `[tscn-merge]` of the scope's git config (keys set, files and folders created,
//! attributes files given a block), read and written by running `git config`. How a
//! path is named there is [`super::places`]'s.

use super::shared::Scope;
use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// `git` run in `dir` (the process's own directory when `None`), its output whatever
/// its exit status.
pub(super) fn git<I, S>(dir: Option<&Path>, args: I) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(args);
    cmd.output()
        .context("running git (is it installed and on PATH?)")
}

/// [`git`], failing with git's message unless it exits 0.
pub(super) fn git_ok<I, S>(dir: Option<&Path>, args: I) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    let out = git(dir, &args)?;
    if !out.status.success() {
        bail!(
            "git {} failed: {}",
            shown.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out)
}

/// The directory to run git in and the `git config` scope flag.
pub(super) fn scope_parts(scope: &Scope) -> (Option<&Path>, &'static str) {
    match scope {
        Scope::Repo(dir) => (Some(dir.as_path()), "--local"),
        Scope::Global => (None, "--global"),
    }
}

/// Config keys (in the section `tscn-merge`) where `install` notes what it did, so
/// `uninstall` removes exactly that: each key it set, and each file or folder it created.
pub(super) const RECORD_KEYS: &str = "tscn-merge.installed";
pub(super) const RECORD_CREATED: &str = "tscn-merge.created";
/// The attributes files `install` added its block to (only from there does `uninstall`
/// take it out: a block that came with a clone's `.gitattributes` stays).
pub(super) const RECORD_ATTRS: &str = "tscn-merge.attributes";

/// What `install` noted in the config.
pub(super) struct Record {
    pub(super) keys: Vec<String>,
    pub(super) created: Vec<String>,
    pub(super) attributes: Vec<String>,
}

impl Record {
    pub(super) fn read(dir: Option<&Path>, flag: &str) -> Result<Record> {
        let all = |key: &str| -> Result<Vec<String>> {
            let out = git(dir, ["config", flag, "--get-all", key])?;
            Ok(String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect())
        };
        Ok(Record {
            keys: all(RECORD_KEYS)?,
            created: all(RECORD_CREATED)?,
            attributes: all(RECORD_ATTRS)?,
        })
    }

    /// Take `values` out of the list under `key` in the config (what `install` made and
    /// then removed again): the list is written anew without them.
    pub(super) fn forget(
        dir: Option<&Path>,
        flag: &str,
        list: &mut Vec<String>,
        key: &str,
        values: &[String],
    ) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        list.retain(|v| !values.contains(v));
        let _ = git(dir, ["config", flag, "--unset-all", key])?;
        for value in list.iter() {
            git_ok(dir, ["config", flag, "--add", key, value])?;
        }
        Ok(())
    }

    /// Add `value` under `key` in the config unless it is there.
    pub(super) fn note(
        dir: Option<&Path>,
        flag: &str,
        list: &mut Vec<String>,
        key: &str,
        value: &str,
    ) -> Result<()> {
        if !list.iter().any(|v| v == value) {
            git_ok(dir, ["config", flag, "--add", key, value])?;
            list.push(value.to_string());
        }
        Ok(())
    }
}
