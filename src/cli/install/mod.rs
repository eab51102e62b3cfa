//! `tscn-merge install` / `uninstall`: register the merge driver, the diff
//! driver and the difftool with git, and mark scene files in the attributes.
//!
//! Config is written with the `git config` command (it knows every quoting
//! and layout rule of config files). The pure parts (command strings,
//! attributes text editing) are separate functions with unit tests.
//!
//! Decided here: what a clone or a user's config cannot make `install` do. It
//! keeps a value the user set, records what it set and created (section
//! `[tscn-merge]`) so `uninstall` removes exactly that, refuses an attributes
//! file that is a symbolic link or lies outside the repository or the user's
//! folders, and turns the textconv cache on only where git has an identity.

mod attributes;
mod commands;
mod config;
mod links;

use std::path::PathBuf;

use anyhow::{Context, Result};

use attributes::{add_block, attributes_path, check_attributes_target, remove_block};
use commands::{config_entries, Ours};
use config::{
    git, git_ok, global_config_file, identity_configured, remove_empty_sections, scope_parts,
    set_key, Record, RECORD_CREATED, RECORD_KEYS,
};
use links::{detect_exe, link_folder, place_links, remove_created, remove_link_folders, Links};

/// Name of the merge and diff drivers (`merge=tscn-merge diff=tscn-merge`).
pub const DRIVER: &str = "tscn-merge";
/// First line of the attributes block this tool owns.
pub const BLOCK_START: &str = "# >>> tscn-merge";
/// Last line of the attributes block this tool owns.
pub const BLOCK_END: &str = "# <<< tscn-merge";
/// Patterns marked in the attributes block.
pub const PATTERNS: [&str; 3] = ["*.tscn", "*.tres", "*.escn"];

/// Config sections this tool writes (subsection is always [`DRIVER`]); the
/// record of what it did is the section [`DRIVER`] itself.
const SECTIONS: [&str; 3] = ["merge", "diff", "difftool"];

/// How the configured commands refer to the binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exe {
    /// The running binary is the `tscn-merge` found on `PATH`: use the bare name.
    OnPath,
    /// Use this absolute path (e.g. a binary in `target/`).
    Absolute(PathBuf),
}

/// Where to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The repository containing this directory: `.git/config` and the
    /// `.gitattributes` at the work tree root.
    Repo(PathBuf),
    /// `git config --global` and the global attributes file.
    Global,
}

/// Register the drivers and mark scene files. Idempotent; a value the user set
/// is kept. Returns one line per action for the caller to print.
pub fn install(scope: &Scope, exe: &Exe) -> Result<Vec<String>> {
    let (dir, flag) = scope_parts(scope);
    let attrs = attributes_path(scope)?;
    check_attributes_target(scope, &attrs)?;
    let mut rec = Record::read(dir, flag)?;
    if *scope == Scope::Global {
        if let Some(file) = global_config_file().filter(|f| !f.exists()) {
            Record::note(
                dir,
                flag,
                &mut rec.created,
                RECORD_CREATED,
                &file.to_string_lossy(),
            )?;
        }
    }
    let cache = identity_configured(scope);
    let ours = Ours {
        exes: [Exe::OnPath, exe.clone()],
        links: Links::in_folder(link_folder(scope).as_deref()),
    };
    let (placed, mut report) = place_links(exe, &ours.links, dir, flag, &mut rec)?;
    for (key, value) in config_entries(exe, &placed, cache) {
        report.push(set_key(dir, flag, &key, &value, &ours, &mut rec)?);
    }
    if !cache {
        report.push("textconv cache off: git has no commit identity here to store it".into());
    }
    report.push(add_block(&attrs, dir, flag, &mut rec)?);
    Ok(report)
}

/// Remove exactly the config keys, the attributes block and the files and
/// folders that [`install`] added; config sections left empty are removed,
/// everything else (a value the user set) is kept.
pub fn uninstall(scope: &Scope) -> Result<Vec<String>> {
    let (dir, flag) = scope_parts(scope);
    let attrs = attributes_path(scope)?;
    check_attributes_target(scope, &attrs)?;
    let rec = Record::read(dir, flag)?;
    let ours = Ours {
        exes: [Exe::OnPath, detect_exe()?],
        links: Links::in_folder(link_folder(scope).as_deref()),
    };
    let mut report = Vec::new();
    for (key, _) in config_entries(&Exe::OnPath, &Links::default(), false) {
        let current = git(dir, ["config", flag, "--get-all", &key])?;
        let now = String::from_utf8_lossy(&current.stdout)
            .trim_end_matches('\n')
            .to_string();
        if !current.status.success() {
            continue;
        }
        if !rec.keys.contains(&key) && !ours.wrote(&key, &now) {
            report.push(format!(
                "config {key} kept: it is set to {now:?}, not by tscn-merge"
            ));
            continue;
        }
        git_ok(dir, ["config", flag, "--unset-all", &key])?;
        report.push(format!("config {key} removed"));
    }
    for key in [RECORD_KEYS, RECORD_CREATED] {
        let _ = git(dir, ["config", flag, "--unset-all", key])?;
    }
    remove_empty_sections(dir, flag, &mut report)?;
    report.push(remove_block(&attrs)?);
    remove_created(&rec.created, &mut report);
    remove_link_folders(ours.links.textconv.as_deref(), &mut report);
    Ok(report)
}

/// `tscn-merge install [--global]` from the current directory, for the
/// running executable.
pub fn run_install(global: bool) -> Result<Vec<String>> {
    let scope = current_scope(global)?;
    install(&scope, &detect_exe()?)
}

/// `tscn-merge uninstall [--global]` from the current directory.
pub fn run_uninstall(global: bool) -> Result<Vec<String>> {
    uninstall(&current_scope(global)?)
}

fn current_scope(global: bool) -> Result<Scope> {
    Ok(if global {
        Scope::Global
    } else {
        Scope::Repo(std::env::current_dir().context("reading the current directory")?)
    })
}
