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

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context, Result};

use super::diff::{DIFF_LINK, TEXTCONV_LINK};

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

/// Quote `s` for a POSIX shell: unchanged when it only has safe characters,
/// else in single quotes.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How commands start the binary: `tscn-merge` or the quoted absolute path.
pub fn exe_word(exe: &Exe) -> String {
    match exe {
        Exe::OnPath => DRIVER.to_string(),
        Exe::Absolute(p) => shell_quote(&p.to_string_lossy()),
    }
}

/// Shell prelude of the merge driver: the conflict labels in `$s` (base),
/// `$x` (ours), `$y` (theirs). git 2.44+ replaces %S/%X/%Y with quoted
/// labels; older git leaves them as they are, which the test spots (`'%''X'`
/// is `%X` to the shell but no placeholder to git) to use plain names.
const LABELS: &str = "s=%S; x=%X; y=%Y; if [ \"$x\" = '%''X' ]; then s=base; x=ours; y=theirs; fi";
/// The arguments of the structural merge. git single-quotes %P; %O, %A, %B
/// are temp file names; %L is a number. Every substituted value is glued to
/// its option (`--path=%P`) or follows `--`, so a path like `-Game.tscn` can
/// never read as an option.
const MERGE_ARGS: &str = "merge --git --path=%P --marker-size=%L --base-label=\"$s\" \
                          --ours-label=\"$x\" --theirs-label=\"$y\" -- %O %A %B";
/// The text merge used when the binary is missing (labels: ours, base, theirs).
const FALLBACK: &str = "git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L -- %A %O %B";

/// `merge.tscn-merge.driver`: run tscn-merge when it exists, otherwise fall
/// back to git's own line merge, so a missing binary never breaks merges.
/// Exit status is the driver's (1 = conflicts), never a trigger for fallback.
pub fn merge_driver_command(exe: &Exe) -> String {
    merge_driver_with(exe, MERGE_ARGS, FALLBACK)
}

fn merge_driver_with(exe: &Exe, args: &str, fallback: &str) -> String {
    match exe {
        Exe::OnPath => format!(
            "{LABELS}; if command -v {DRIVER} >/dev/null 2>&1; \
             then {DRIVER} {args}; else {fallback}; fi"
        ),
        Exe::Absolute(p) => format!(
            "{LABELS}; exe={}; if [ -x \"$exe\" ]; \
             then \"$exe\" {args}; else {fallback}; fi",
            shell_quote(&p.to_string_lossy())
        ),
    }
}

/// The values earlier versions of `install` wrote (a `%P` or path starting with `-`
/// broke them): still ours, so `install` replaces them and `uninstall` removes them.
fn legacy_entries(exe: &Exe) -> Vec<(String, String)> {
    const ARGS: &str = "merge --git -p %P -l %L -s \"$s\" -x \"$x\" -y \"$y\" %O %A %B";
    const MERGE_FILE: &str =
        "git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L %A %O %B";
    let word = exe_word(exe);
    vec![
        (
            format!("merge.{DRIVER}.driver"),
            merge_driver_with(exe, ARGS, MERGE_FILE),
        ),
        (
            format!("diff.{DRIVER}.command"),
            format!("{word} diff --git-external"),
        ),
        (
            format!("diff.{DRIVER}.textconv"),
            format!("{word} textconv"),
        ),
        (
            format!("difftool.{DRIVER}.cmd"),
            format!("{word} diff \"$LOCAL\" \"$REMOTE\""),
        ),
    ]
}

/// `diff.tscn-merge.command` (git appends: path old-file old-hex old-mode
/// new-file new-hex new-mode): the [`DIFF_LINK`] `install` made, which git starts
/// without a shell and which takes every argument as a value; else the shell command,
/// where the path may start with `-`, hence `--`.
pub fn diff_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} diff --git-external --", exe_word(exe)),
    }
}

/// `diff.tscn-merge.textconv`: the [`TEXTCONV_LINK`] `install` made, which git starts
/// without a shell when its path has no shell metacharacter, else `tscn-merge textconv --`
/// through `sh -c`.
pub fn textconv_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} textconv --", exe_word(exe)),
    }
}

/// `difftool.tscn-merge.cmd`.
pub fn difftool_command(exe: &Exe) -> String {
    format!("{} diff -- \"$LOCAL\" \"$REMOTE\"", exe_word(exe))
}

/// `diff.tscn-merge.xfuncname`: hunk headers of `git diff` (raw or textconv'd) name
/// the section a change is in (`[node name="Player" ...]`, `[sub_resource ...]`).
pub const XFUNCNAME: &str = r"^(\[(node|sub_resource|ext_resource|resource)( .*)?\])";

/// Every config key and value that install writes, in order. `cache` turns on
/// `cachetextconv`, which git keeps as a notes commit: only safe where git has a
/// commit identity, or every `git log -p` dies ("Author identity unknown").
pub fn config_entries(exe: &Exe, links: &Links, cache: bool) -> Vec<(String, String)> {
    vec![
        (
            format!("merge.{DRIVER}.name"),
            "tscn-merge: structural merge for Godot scenes".to_string(),
        ),
        (format!("merge.{DRIVER}.driver"), merge_driver_command(exe)),
        (
            format!("diff.{DRIVER}.command"),
            diff_command(exe, links.diff.as_deref()),
        ),
        (
            format!("diff.{DRIVER}.textconv"),
            textconv_command(exe, links.textconv.as_deref()),
        ),
        (format!("diff.{DRIVER}.cachetextconv"), cache.to_string()),
        (format!("diff.{DRIVER}.xfuncname"), XFUNCNAME.to_string()),
        (format!("difftool.{DRIVER}.cmd"), difftool_command(exe)),
    ]
}

/// The links `install` makes in a scope's folder, each a name under which the binary
/// does one job ([`TEXTCONV_LINK`], [`DIFF_LINK`]) so git can start it without a shell;
/// `None` where there is no such link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// Git's textconv, once per blob of `git log -p`.
    pub textconv: Option<PathBuf>,
    /// Git's external diff, once per changed file of `git diff`.
    pub diff: Option<PathBuf>,
}

impl Links {
    /// Both links in `folder`.
    fn in_folder(folder: Option<&Path>) -> Links {
        Links {
            textconv: folder.map(|f| f.join(TEXTCONV_LINK)),
            diff: folder.map(|f| f.join(DIFF_LINK)),
        }
    }

    /// Every mix of these links and their absence: the commands `install` may have
    /// written with or without each.
    fn variants(&self) -> Vec<Links> {
        let (t, d) = (&self.textconv, &self.diff);
        [
            (None, None),
            (t.clone(), None),
            (None, d.clone()),
            (t.clone(), d.clone()),
        ]
        .into_iter()
        .map(|(textconv, diff)| Links { textconv, diff })
        .collect()
    }
}

/// What `install` may have written in a scope: the commands for these binaries, with or
/// without the scope's links.
struct Ours {
    exes: [Exe; 2],
    links: Links,
}

impl Ours {
    /// Whether `value` of `key` is one `install` writes (now or in an earlier version).
    fn wrote(&self, key: &str, value: &str) -> bool {
        let variants = self.links.variants();
        self.exes.iter().any(|exe| {
            variants
                .iter()
                .flat_map(|l| [config_entries(exe, l, true), config_entries(exe, l, false)])
                .flatten()
                .chain(legacy_entries(exe))
                .any(|(k, v)| k == key && v == value)
        })
    }
}

/// The attributes block, markers included, each line ending in `\n`.
pub fn attributes_block() -> String {
    let mut s = format!("{BLOCK_START}\n");
    for p in PATTERNS {
        s.push_str(&format!("{p} merge={DRIVER} diff={DRIVER}\n"));
    }
    s.push_str(BLOCK_END);
    s.push('\n');
    s
}

/// Byte range of our block in `text`, from the start marker line through the
/// end marker line (with its newline, if any).
fn find_block(text: &str) -> Option<(usize, usize)> {
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
    let block = attributes_block();
    if let Some((s, e)) = find_block(text) {
        let current = &text[s..e];
        let wanted = if e == text.len() && !current.ends_with('\n') {
            block.trim_end_matches('\n')
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
        format!("{text}\n{}", block.trim_end_matches('\n'))
    })
}

/// `text` without our block, or `None` when there is no block.
pub fn remove_attributes_block(text: &str) -> Option<String> {
    let (s, e) = find_block(text)?;
    let mut start = s;
    if e == text.len() && !text.ends_with('\n') && start > 0 {
        // Added after a last line without newline: drop the `\n` we added.
        start -= 1;
    }
    Some(format!("{}{}", &text[..start], &text[e..]))
}

/// Decide how the configured commands should start the binary: the bare name
/// when `tscn-merge` on `PATH` is this very executable, else its absolute path.
pub fn detect_exe() -> Result<Exe> {
    let me = std::env::current_exe().context("locating the running executable")?;
    let me = me.canonicalize().unwrap_or(me);
    if me.to_str().is_none() {
        bail!("the executable path is not valid UTF-8: {}", me.display());
    }
    Ok(match first_on_path() {
        Some(found) if found.canonicalize().is_ok_and(|c| c == me) => Exe::OnPath,
        _ => Exe::Absolute(me),
    })
}

/// The `tscn-merge` a shell would start: the first one on `PATH`.
fn first_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(DRIVER))
        .find(|candidate| candidate.canonicalize().is_ok())
}

fn git<I, S>(dir: Option<&Path>, args: I) -> Result<Output>
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

fn git_ok<I, S>(dir: Option<&Path>, args: I) -> Result<Output>
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
fn scope_parts(scope: &Scope) -> (Option<&Path>, &'static str) {
    match scope {
        Scope::Repo(dir) => (Some(dir.as_path()), "--local"),
        Scope::Global => (None, "--global"),
    }
}

/// The attributes file the scope uses: `<worktree>/.gitattributes`, or for
/// `--global` the file named by `core.attributesFile`, else git's default
/// `$XDG_CONFIG_HOME/git/attributes` (`~/.config/git/attributes`).
pub fn attributes_path(scope: &Scope) -> Result<PathBuf> {
    match scope {
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

fn default_global_attributes() -> Result<PathBuf> {
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

/// Config keys (in the section `tscn-merge`) where `install` notes what it did, so
/// `uninstall` removes exactly that: each key it set, and each file or folder it created.
const RECORD_KEYS: &str = "tscn-merge.installed";
const RECORD_CREATED: &str = "tscn-merge.created";

/// What `install` noted in the config.
struct Record {
    keys: Vec<String>,
    created: Vec<String>,
}

impl Record {
    fn read(dir: Option<&Path>, flag: &str) -> Result<Record> {
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
        })
    }

    /// Add `value` under `key` in the config unless it is there.
    fn note(
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

/// Refuse an attributes file that is a symbolic link (a committed `.gitattributes`
/// link would have `install` write wherever it points) or that lies outside the
/// repository (`--global`: outside the home and config folders).
fn check_attributes_target(scope: &Scope, attrs: &Path) -> Result<()> {
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

/// `path` with its longest existing ancestor resolved through symbolic links.
fn resolve_existing(path: &Path) -> PathBuf {
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

/// Whether git can make commits here with an identity from its config (not from
/// environment variables, which a later shell or CI job may not have).
fn identity_configured(scope: &Scope) -> bool {
    let dir = match scope {
        Scope::Repo(d) => d.as_path(),
        Scope::Global => Path::new("/"),
    };
    ["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"]
        .iter()
        .all(|var| {
            let mut cmd = Command::new("git");
            for env in [
                "GIT_AUTHOR_NAME",
                "GIT_AUTHOR_EMAIL",
                "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL",
                "EMAIL",
            ] {
                cmd.env_remove(env);
            }
            cmd.current_dir(dir)
                .args(["var", var])
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// The file `git config --global` writes: `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, or
/// the XDG one when only it exists.
fn global_config_file() -> Option<PathBuf> {
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
fn set_key(
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

/// Add the attributes block to `attrs`, noting the folders created for it.
fn add_block(attrs: &Path, dir: Option<&Path>, flag: &str, rec: &mut Record) -> Result<String> {
    let existing = match std::fs::read(attrs) {
        Ok(bytes) => {
            String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", attrs.display()))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", attrs.display())),
    };
    let Some(updated) = add_attributes_block(&existing) else {
        return Ok(format!("attributes already in {}", attrs.display()));
    };
    let missing = attrs.ancestors().skip(1);
    for folder in missing.take_while(|a| !a.as_os_str().is_empty() && !a.exists()) {
        Record::note(
            dir,
            flag,
            &mut rec.created,
            RECORD_CREATED,
            &folder.to_string_lossy(),
        )?;
    }
    if let Some(parent) = attrs.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(attrs, updated).with_context(|| format!("writing {}", attrs.display()))?;
    Ok(format!("attributes added to {}", attrs.display()))
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

/// Remove our config sections that no longer hold a key.
fn remove_empty_sections(dir: Option<&Path>, flag: &str, report: &mut Vec<String>) -> Result<()> {
    let names = SECTIONS
        .iter()
        .map(|s| format!("{s}.{DRIVER}"))
        .chain([DRIVER.to_string()]);
    for name in names {
        let pattern = format!("^{}\\.", name.replace('.', "\\.").replace('-', "\\-"));
        let left = git(dir, ["config", flag, "--get-regexp", &pattern])?;
        if left.status.success() && !left.stdout.is_empty() {
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

/// Take our block out of the attributes file; a file left empty is removed.
fn remove_block(attrs: &Path) -> Result<String> {
    let bytes = match std::fs::read(attrs) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("no attributes file at {}", attrs.display()))
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", attrs.display())),
    };
    let text =
        String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", attrs.display()))?;
    match remove_attributes_block(&text) {
        None => Ok(format!("no tscn-merge attributes in {}", attrs.display())),
        Some(rest) if rest.is_empty() => {
            std::fs::remove_file(attrs).with_context(|| format!("removing {}", attrs.display()))?;
            Ok(format!(
                "removed {} (it held only tscn-merge attributes)",
                attrs.display()
            ))
        }
        Some(rest) => {
            std::fs::write(attrs, rest).with_context(|| format!("writing {}", attrs.display()))?;
            Ok(format!("attributes removed from {}", attrs.display()))
        }
    }
}

/// Remove the files and folders `install` created, when nothing is left in them: the
/// links first, so the folders made for the first one are empty when their turn comes.
fn remove_created(created: &[String], report: &mut Vec<String>) {
    let is_link =
        |p: &&Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let (links, rest): (Vec<&Path>, Vec<&Path>) = created.iter().map(Path::new).partition(is_link);
    for path in links.into_iter().chain(rest) {
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            if is_our_link(path) && std::fs::remove_file(path).is_ok() {
                report.push(format!("removed {} (install created it)", path.display()));
            }
            continue;
        }
        let empty_file = std::fs::read(path).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace));
        let gone = if empty_file {
            std::fs::remove_file(path).is_ok()
        } else {
            std::fs::remove_dir(path).is_ok()
        };
        if gone {
            report.push(format!("removed {} (install created it)", path.display()));
        }
    }
}

/// Where `install` links [`TEXTCONV_LINK`] and [`DIFF_LINK`] for `scope`: a folder of its own under the
/// user's data folder (`$XDG_DATA_HOME`, else `~/.local/share`), `tscn-merge/global` or
/// `tscn-merge/repo-HASH` (of the repository's git folder), so moving or copying the
/// repository keeps the link and each scope's `uninstall` removes only its own.
/// `None` without a home folder, a git folder, or a UTF-8 path (git's config holds text).
fn link_folder(scope: &Scope) -> Option<PathBuf> {
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
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Whether `path` is a symbolic link to a `tscn-merge` binary.
fn is_our_link(path: &Path) -> bool {
    std::fs::read_link(path).is_ok_and(|t| {
        t.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(DRIVER))
    })
}

/// Make both [`Links`] (see [`place_link`]); returns the links in place and one line
/// each to report.
fn place_links(
    exe: &Exe,
    links: &Links,
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
        let (made, line) = place_link(exe, link, what, dir, flag, rec)?;
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
fn place_link(
    exe: &Exe,
    link: Option<&Path>,
    what: &str,
    dir: Option<&Path>,
    flag: &str,
    rec: &mut Record,
) -> Result<(bool, String)> {
    let Some(link) = link else {
        let why = "no data folder (HOME), git folder, or UTF-8 path for it";
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
        let path = path.to_string_lossy();
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
fn remove_link_folders(link: Option<&Path>, report: &mut Vec<String>) {
    let folders = link.into_iter().flat_map(|l| l.ancestors().skip(1).take(2));
    for folder in folders {
        if std::fs::remove_dir(folder).is_ok() {
            report.push(format!("removed {} (empty)", folder.display()));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(p: &str) -> Exe {
        Exe::Absolute(PathBuf::from(p))
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/tscn-merge"), "/usr/bin/tscn-merge");
        assert_eq!(shell_quote("/a b/x"), "'/a b/x'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote(""), "''");
    }

    const PRELUDE: &str =
        r#"s=%S; x=%X; y=%Y; if [ "$x" = '%''X' ]; then s=base; x=ours; y=theirs; fi; "#;
    const ARGS: &str = r#"merge --git --path=%P --marker-size=%L --base-label="$s" --ours-label="$x" --theirs-label="$y" -- %O %A %B"#;
    const FALLBACK_CMD: &str =
        r#"git merge-file -L "$x" -L "$s" -L "$y" --marker-size=%L -- %A %O %B"#;

    #[test]
    fn merge_driver_on_path() {
        assert_eq!(
            merge_driver_command(&Exe::OnPath),
            format!(
                "{PRELUDE}if command -v tscn-merge >/dev/null 2>&1; \
                 then tscn-merge {ARGS}; else {FALLBACK_CMD}; fi"
            )
        );
    }

    #[test]
    fn merge_driver_absolute_with_space() {
        assert_eq!(
            merge_driver_command(&abs("/opt/my tools/tscn-merge")),
            format!(
                "{PRELUDE}exe='/opt/my tools/tscn-merge'; if [ -x \"$exe\" ]; \
                 then \"$exe\" {ARGS}; else {FALLBACK_CMD}; fi"
            )
        );
    }

    #[test]
    fn diff_commands() {
        let e = abs("/t/debug/tscn-merge");
        assert_eq!(
            diff_command(&e, None),
            "/t/debug/tscn-merge diff --git-external --"
        );
        let diff_link = Path::new("/home/me/.local/share/tscn-merge/global/tscn-merge-diff");
        assert_eq!(
            diff_command(&e, Some(diff_link)),
            diff_link.to_str().unwrap()
        );
        assert_eq!(
            textconv_command(&Exe::OnPath, None),
            "tscn-merge textconv --"
        );
        let link = Path::new("/home/me/.local/share/tscn-merge/global/tscn-merge-textconv");
        assert_eq!(textconv_command(&e, Some(link)), link.to_str().unwrap());
        let spaced = Path::new("/a b/tscn-merge-textconv");
        assert_eq!(
            textconv_command(&e, Some(spaced)),
            "'/a b/tscn-merge-textconv'"
        );
        assert_eq!(
            difftool_command(&abs("/a b/t")),
            "'/a b/t' diff -- \"$LOCAL\" \"$REMOTE\""
        );
        let keys: Vec<String> = config_entries(&e, &Links::default(), false)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            [
                "merge.tscn-merge.name",
                "merge.tscn-merge.driver",
                "diff.tscn-merge.command",
                "diff.tscn-merge.textconv",
                "diff.tscn-merge.cachetextconv",
                "diff.tscn-merge.xfuncname",
                "difftool.tscn-merge.cmd"
            ]
        );
    }

    #[test]
    fn a_path_names_its_link_folder_alone() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(fnv1a(b"/a/.git"), fnv1a(b"/b/.git"));
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
