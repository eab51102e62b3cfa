//! `tscn-merge install` / `uninstall`: register the merge driver, the diff
//! driver and the difftool with git, and mark scene files in the attributes.
//!
//! Config is written with the `git config` command (it knows every quoting
//! and layout rule of config files). The pure parts (command strings,
//! attributes text editing) are separate functions with unit tests.
//!
//! Decided here: what a clone or a user's config cannot make `install` do. It
//! keeps a value the user set, records what it set and created (section
//! `[tscn-merge]`, paths relative to the repository) so `uninstall` removes exactly
//! that and only inside the repository it runs in, leaves a block the team committed
//! alone, refuses an attributes file that is a symbolic link or lies outside the
//! repository or the user's folders, and by default leaves what `git diff` prints to
//! git (an earlier `install --diff`'s links go).

pub mod args;

mod attributes;
mod commands;
mod config;
mod links;
mod places;
mod record;
mod shared;

pub use commands::merge_driver_command;
pub use links::first_on_path;
pub use shared::{shell_quote, Exe, Scope, DRIVER};

use anyhow::{Context, Result};
use std::path::Path;

use attributes::{
    add_block, attributes_path, check_attributes_target, committed_block, remove_block,
};
use commands::{all_keys, config_entries, Ours, ALIAS};
use config::{global_config_file, remove_empty_sections, set_key, unset_ours};
use links::{
    detect_exe, link_folder, place_links, remove_created, remove_link_folders, remove_links,
};
use places::Places;
use record::{git, git_ok, scope_parts, Record, RECORD_ATTRS, RECORD_CREATED, RECORD_KEYS};
use shared::Links;

/// What `install` was asked for beyond the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `--diff`: `git diff` and `git log -p` show tscn-merge's view of scenes (an
    /// external diff and a textconv), which is no patch for `git apply`.
    pub diff: bool,
    /// `--local`: the attributes go to `.git/info/attributes` (every branch of this
    /// clone, nothing to commit) instead of `.gitattributes`.
    pub local: bool,
}

/// Register the drivers and mark scene files. Idempotent; a value the user set
/// is kept, and a key an earlier `install` set that this one does not want (the
/// external diff after `install --diff`, the textconv cache) is removed. Returns one
/// line per action for the caller to print, the team's next steps last.
pub fn install(scope: &Scope, exe: &Exe, opts: Options) -> Result<Vec<String>> {
    let (dir, flag) = scope_parts(scope);
    let attrs = attributes_path(scope, opts.local)?;
    check_attributes_target(scope, &attrs)?;
    let mut rec = Record::read(dir, flag)?;
    if *scope == Scope::Global {
        if let Some(file) = global_config_file().filter(|f| !f.exists()) {
            let file = file.to_string_lossy();
            Record::note(dir, flag, &mut rec.created, RECORD_CREATED, &file)?;
        }
    }
    let ours = Ours {
        exes: [Exe::OnPath, exe.clone()],
        links: Links::in_folder(link_folder(scope).as_deref()),
    };
    let places = Places::of(scope, ours.links.textconv.as_deref().and_then(Path::parent));
    let (placed, mut report) = match opts.diff {
        true => place_links(exe, &ours.links, &places, dir, flag, &mut rec)?,
        false => (Links::default(), Vec::new()),
    };
    let wanted = config_entries(exe, &placed, opts.diff);
    for (key, value) in &wanted {
        report.push(set_key(dir, flag, key, value, &ours, &mut rec)?);
    }
    for key in all_keys() {
        if wanted.iter().all(|(k, _)| *k != key) {
            report.extend(unset_ours(dir, flag, &key, &ours, &rec)?);
        }
    }
    if !opts.diff {
        remove_links(&ours.links, &places, dir, flag, &mut rec, &mut report)?;
    }
    report.push(add_block(&attrs, &places, dir, flag, &mut rec)?);
    let committed = committed_block(&attrs, &places).is_some();
    report.extend(next_steps(scope, opts, committed));
    Ok(report)
}

/// What the team does next, after the report of what `install` did; `committed`: `HEAD`
/// holds the block in `.gitattributes` already.
fn next_steps(scope: &Scope, opts: Options, committed: bool) -> Vec<String> {
    let mut lines = vec!["next steps:".to_string()];
    let mut steps: Vec<String> = match (scope, opts.local) {
        (Scope::Global, _) => vec![
            "every repository of this user now merges scenes with tscn-merge".into(),
        ],
        (Scope::Repo(_), true) => vec![
            "every branch of this clone merges scenes with tscn-merge (.git/info/attributes, nothing to commit)".into(),
            "teammates: run `tscn-merge install --local` in their clone, or commit a `.gitattributes` with `tscn-merge install`".into(),
        ],
        (Scope::Repo(_), false) if committed => vec![
            "the attributes are committed (.gitattributes): each teammate runs tscn-merge install in their clone (git does not share config)".into(),
        ],
        (Scope::Repo(dir), false) => vec![
            format!("commit the attributes: git add {} && git commit -m \"Merge Godot scenes with tscn-merge\"", shell_quote(&from_here(dir, ".gitattributes"))),
            "each teammate, in their clone: tscn-merge install (git does not share config)".into(),
        ],
    };
    if let (Scope::Repo(_), false) = (scope, opts.local) {
        steps.push("branches made before that commit: tscn-merge install --local (every branch, no commit)".into());
    }
    lines.extend(steps.iter().map(|s| format!("  {s}")));
    if !opts.diff {
        lines.push("  semantic diff: git scene-diff [COMMIT] (git diff stays git's; `install --diff` makes it tscn-merge's)".into());
    }
    lines.push("  check the setup any time: tscn-merge doctor".into());
    lines
}

/// The textconv cache earlier versions kept (a notes ref `git log --all` shows).
pub const CACHE_REF: &str = "refs/notes/textconv/tscn-merge";

/// Remove exactly the config keys, the attributes block and the files and
/// folders that [`install`] added, and the textconv cache ref; config sections left
/// empty are removed, everything else (a value the user set, a block that came with a
/// clone's committed `.gitattributes`) is kept.
pub fn uninstall(scope: &Scope) -> Result<Vec<String>> {
    let (dir, flag) = scope_parts(scope);
    check_attributes_target(scope, &attributes_path(scope, false)?)?;
    let rec = Record::read(dir, flag)?;
    let ours = Ours {
        exes: [Exe::OnPath, detect_exe()?],
        links: Links::in_folder(link_folder(scope).as_deref()),
    };
    let places = Places::of(scope, ours.links.textconv.as_deref().and_then(Path::parent));
    let mut report = Vec::new();
    for key in all_keys() {
        report.extend(unset_ours(dir, flag, &key, &ours, &rec)?);
    }
    for key in [RECORD_KEYS, RECORD_CREATED, RECORD_ATTRS] {
        let _ = git(dir, ["config", flag, "--unset-all", key])?;
    }
    let alias = rec.keys.iter().any(|k| k == ALIAS.0);
    remove_empty_sections(dir, flag, alias, &mut report)?;
    for recorded in &rec.attributes {
        match places.resolve(recorded) {
            Ok(file) => {
                check_attributes_target(scope, &file)?;
                report.push(remove_block(&file, &places)?);
            }
            Err(why) => report.push(format!("left {recorded}: {why}")),
        }
    }
    if rec.attributes.is_empty() {
        report.push(nothing_added_here(scope, &rec, &places));
    }
    remove_created(&rec.created, &places, &mut report);
    remove_link_folders(ours.links.textconv.as_deref(), &mut report);
    if let Scope::Repo(_) = scope {
        let exists = git(dir, ["rev-parse", "--verify", "-q", CACHE_REF])?;
        if exists.status.success() {
            git_ok(dir, ["update-ref", "-d", CACHE_REF])?;
            report.push(format!("textconv cache {CACHE_REF} removed"));
        }
    }
    Ok(report)
}

/// The line for an `uninstall` whose `install` added no attributes block in `scope`: a
/// committed block is the team's; nothing recorded at all means `install` never ran
/// here (a global install, if any, is `uninstall --global`'s).
fn nothing_added_here(scope: &Scope, rec: &Record, places: &Places) -> String {
    if !matches!(scope, Scope::Repo(_)) {
        return "attributes kept: this install did not add them".into();
    }
    let team = attributes_path(scope, false)
        .ok()
        .and_then(|f| committed_block(&f, places));
    if team.is_some() {
        return "attributes kept: this install did not add them (a committed .gitattributes is the team's)".into();
    }
    if !(rec.keys.is_empty() && rec.created.is_empty()) {
        return "attributes kept: this install did not add them".into();
    }
    let global = Record::read(None, "--global").is_ok_and(|g| !g.keys.is_empty());
    if global {
        "nothing to uninstall: tscn-merge install was not run in this repository; the global install (every repository of yours) stays: tscn-merge uninstall --global".into()
    } else {
        "nothing to uninstall: tscn-merge install was not run in this repository".into()
    }
}

/// `tscn-merge install [--global] [--local] [--diff]` from the current directory, for
/// the running executable.
pub fn run_install(global: bool, opts: Options) -> Result<Vec<String>> {
    let scope = current_scope(global)?;
    install(&scope, &detect_exe()?, opts)
}

/// `path` (relative to the work tree's top) as the shell in `dir`, inside the work tree,
/// names it: `../../.gitattributes` from a sub-folder.
fn from_here(dir: &Path, path: &str) -> String {
    let up = git(Some(dir), ["rev-parse", "--show-cdup"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
        .unwrap_or_default();
    format!("{up}{path}")
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
