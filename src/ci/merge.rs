//! `ci merge BASE [--push]`: in a checkout of a pull request's head, `git merge --no-ff
//! --no-commit BASE` with the structural driver configured for this one command (`-c`
//! options and an attributes file of its own; nothing is installed), then either a commit
//! (every file merged clean and every changed scene passes `check`) or `git merge --abort`
//! and a Markdown report, the checkout exactly as before. The merging is git's and the
//! driver's; this file decides what to do with the outcome.

use super::driver::Record;
use super::report::{self, FileReport};
use super::MergeArgs;
use super::{commit_id, git, git_cmd, git_ok, handled, is_scene, nul_fields, toplevel};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// The attributes `ci merge` supplies: every scene and resource, and Godot's ConfigFile
/// files (`project.godot`, `*.import`, ...), to the driver.
fn driver_attributes() -> String {
    let scenes = ["*.tscn", "*.tres", "*.escn"].into_iter();
    scenes
        .chain(gdscene::config::ATTRIBUTE_PATTERNS.iter().copied())
        .map(|p| format!("{p} merge=tscn-merge\n"))
        .collect()
}

/// Run `ci merge`.
pub fn run(a: &MergeArgs) -> Result<i32> {
    let root = toplevel()?;
    std::env::set_current_dir(&root).context("cannot enter the work tree")?;
    refuse_dirty()?;
    let base_id = commit_id(&a.base)?;
    let head_id = commit_id("HEAD")?;
    let branch = current_branch();
    let branch_name = branch.clone().unwrap_or_else(|| "HEAD".into());
    if git(["merge-base", "--is-ancestor", &base_id, &head_id])?
        .status
        .success()
    {
        crate::io::print_line(&format!(
            "{} already contains {}: nothing to merge",
            super::shown(&branch_name),
            super::shown(&a.base)
        ))?;
        return Ok(0);
    }
    let work = tempfile::Builder::new()
        .prefix("tscn-merge-ci-")
        .tempdir()
        .context("cannot create a temporary folder")?;
    let (attrs, records) = (work.path().join("attributes"), work.path().join("records"));
    std::fs::write(&attrs, attributes()).context("cannot write the attributes file")?;
    std::fs::create_dir(&records).context("cannot create the records folder")?;
    let merged = run_git_merge(&a.base, &base_id, &attrs, &records, a.timeout);
    let outcome = merged.and_then(|stdout| {
        if !git(["rev-parse", "-q", "--verify", "MERGE_HEAD"])?
            .status
            .success()
        {
            bail!("git merge {} did not start: {}", a.base, stdout.trim());
        }
        collect(&root, &records, &stdout, &a.godot)
    });
    let files = match outcome {
        Ok(files) => files,
        Err(e) => {
            restore(&head_id)?;
            return Err(e);
        }
    };
    if files.iter().any(FileReport::blocks) {
        restore(&head_id)?;
        crate::io::print_line(report::markdown(&a.base, &branch_name, &files).trim_end())?;
        return Ok(1);
    }
    let message = report::commit_message(&a.base, &branch_name, &files);
    if let Err(e) = commit(work.path(), &message) {
        restore(&head_id)?;
        return Err(e);
    }
    let id = commit_id("HEAD")?;
    // The message quotes the repository's names and values: shown, never obeyed.
    let shown = gdscene::render::escape::visible_lines(message.trim_end());
    crate::io::print_line(&format!("Committed {id}: {shown}"))?;
    if a.push {
        push(branch.as_deref(), &id)?;
    }
    Ok(0)
}

/// Refuse (an error, nothing changed) a checkout with changes to tracked files or a
/// merge, rebase or cherry-pick in progress.
fn refuse_dirty() -> Result<()> {
    let status = git_ok(["status", "--porcelain=v1", "-z", "--untracked-files=no"])?;
    let changed: Vec<String> = nul_fields(&status)
        .into_iter()
        .filter_map(|l| l.get(3..).map(super::shown))
        .collect();
    if !changed.is_empty() {
        bail!(
            "the checkout has uncommitted changes ({}); commit or stash them first: ci merge changed nothing",
            changed.join(", ")
        );
    }
    for head in [
        "MERGE_HEAD",
        "CHERRY_PICK_HEAD",
        "REVERT_HEAD",
        "REBASE_HEAD",
    ] {
        if git(["rev-parse", "-q", "--verify", head])?.status.success() {
            bail!("{head} exists (an operation is in progress); finish or abort it first: ci merge changed nothing");
        }
    }
    Ok(())
}

/// The attributes file for the merge: the user's own global one (which the `-c
/// core.attributesFile` option replaces) first, then [`driver_attributes`], whose later lines win.
fn attributes() -> String {
    let configured = git(["config", "--path", "--get", "core.attributesFile"])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim_end_matches('\n')
                .to_string()
        });
    let default = || {
        let xdg = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty());
        let home = std::env::var_os("HOME").map(|h| Path::new(&h).join(".config"));
        xdg.map(std::path::PathBuf::from)
            .or(home)
            .map(|d| d.join("git").join("attributes"))
    };
    let own = configured
        .map(std::path::PathBuf::from)
        .or_else(default)
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let mut text = own;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&driver_attributes());
    text
}

/// The checked-out branch's short name, `None` when HEAD is detached.
fn current_branch() -> Option<String> {
    let out = git(["symbolic-ref", "-q", "--short", "HEAD"]).ok()?;
    let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !name.is_empty()).then_some(name)
}

/// The driver command line: this binary's `ci driver`, with git's placeholders each glued
/// to its option or after `--`, as `install` spells the merge driver.
fn driver_command(records: &Path) -> Result<String> {
    use crate::install::shell_quote;
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    Ok(format!(
        "{} ci driver --report-dir={} --git --path=%P --marker-size=%L -- %O %A %B",
        shell_quote(&exe.to_string_lossy()),
        shell_quote(&records.to_string_lossy())
    ))
}

/// Unix: git and the drivers it starts get a process group of their own, so a timeout
/// stops them all. Windows: nothing to set (see [`stop_tree`]).
fn own_process_group(cmd: &mut std::process::Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    #[cfg(not(unix))]
    let _ = cmd;
}

/// Stop git and what it started, as Ctrl-C would: SIGTERM to the whole process group on
/// Unix, so git removes its lock files (`.git/index.lock`) and temporary files itself,
/// then, after a grace of [`GRACE`], SIGKILL to whatever still runs. On Windows git
/// itself only (a driver it had started runs on until its own `--timeout`).
fn stop_tree(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let group = -(child.id() as libc::pid_t);
        // SAFETY: plain kill(2)s of the process group this command started.
        unsafe { libc::kill(group, libc::SIGTERM) };
        let until = Instant::now() + GRACE;
        while Instant::now() < until && !matches!(child.try_wait(), Ok(Some(_))) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above.
        unsafe { libc::kill(group, libc::SIGKILL) };
    }
    #[cfg(not(unix))]
    let _ = child.kill();
    let _ = child.wait();
}

/// How long a stopped git has to clean up before it is killed.
const GRACE: Duration = Duration::from_secs(5);

/// `.git/index.lock` of this work tree (git's own path for it).
fn index_lock() -> Option<std::path::PathBuf> {
    let out = git(["rev-parse", "--git-path", "index.lock"]).ok()?;
    let p = String::from_utf8_lossy(&out.stdout)
        .trim_end_matches('\n')
        .to_string();
    (out.status.success() && !p.is_empty()).then(|| std::path::PathBuf::from(p))
}

/// `git merge --no-ff --no-commit BASE` with the driver, stopped after `secs`: git's
/// stdout (its `CONFLICT` lines). git's stderr (the driver's reports) goes to ours.
fn run_git_merge(
    base: &str,
    base_id: &str,
    attrs: &Path,
    records: &Path,
    secs: f64,
) -> Result<String> {
    let mut cmd = git_cmd();
    cmd.args(identity()?)
        .arg("-c")
        .arg(format!(
            "merge.tscn-merge.driver={}",
            driver_command(records)?
        ))
        .arg("-c")
        .arg("merge.tscn-merge.name=tscn-merge structural merge (ci merge)")
        .arg("-c")
        .arg(format!("core.attributesFile={}", attrs.display()))
        .args(["merge", "--no-ff", "--no-commit", "--no-edit", "-m"])
        .arg(format!("Merge {base}"))
        .arg(base_id)
        .env("GIT_MERGE_AUTOEDIT", "no")
        .env_remove("TSCN_MERGE")
        .env_remove("TSCN_MERGE_FAVOR")
        .stdout(std::process::Stdio::piped());
    own_process_group(&mut cmd);
    let leftovers = driver_files();
    // A lock there before git started is someone else's; only one git left is removed.
    let lock = index_lock().filter(|l| !l.exists());
    let mut child = cmd.spawn().context("cannot run git merge")?;
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = std::io::Read::read_to_end(out, &mut s);
        }
        s
    });
    let deadline = Instant::now() + Duration::from_secs_f64(secs.clamp(1.0, 86_400.0));
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            stop_tree(&mut child);
            for f in driver_files().difference(&leftovers) {
                let _ = std::fs::remove_file(f);
            }
            if let Some(l) = lock.as_ref().filter(|l| l.exists()) {
                let _ = std::fs::remove_file(l);
            }
            bail!("git merge took longer than {secs} s (--timeout) and was stopped");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    match status.code() {
        Some(0 | 1) => Ok(out),
        _ => bail!("git merge {base} failed: {}", out.trim()),
    }
}

/// The `.merge_file_XXXXXX` files git writes in the work tree's root for a merge driver
/// (and removes, unless it is killed).
fn driver_files() -> std::collections::BTreeSet<std::path::PathBuf> {
    std::fs::read_dir(".")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".merge_file_"))
        .map(|e| e.path())
        .collect()
}

/// Every file of the merge worth reporting: the driver's records, the unmerged paths,
/// and the changed scenes and settings files that fail `check`, sorted by path.
fn collect(
    root: &Path,
    records: &Path,
    stdout: &str,
    godot: &crate::check::args::GodotArg,
) -> Result<Vec<FileReport>> {
    let mut files: BTreeMap<String, FileReport> = BTreeMap::new();
    for r in read_records(records)? {
        let path = r.path.clone();
        entry(&mut files, &path).record = Some(r);
    }
    let unmerged = nul_fields(&git_ok(["diff", "--name-only", "-z", "--diff-filter=U"])?);
    for p in &unmerged {
        let f = entry(&mut files, p);
        f.unmerged = true;
        f.git_messages = stdout
            .lines()
            .filter(|l| l.starts_with("CONFLICT") && l.contains(p.as_str()))
            .map(str::to_string)
            .collect();
    }
    let changed = git_ok([
        "diff",
        "--cached",
        "--name-only",
        "-z",
        "--no-renames",
        "--diff-filter=ACMT",
        "HEAD",
    ])?;
    let mut engine = Vec::new();
    for p in nul_fields(&changed) {
        if !handled(&p) || unmerged.contains(&p) {
            continue;
        }
        let bytes = std::fs::read(root.join(&p)).with_context(|| format!("cannot read {p}"))?;
        let errors = super::file_errors(&p, &bytes);
        if godot.godot.is_some() && is_scene(&p) {
            engine.push((p.clone(), bytes));
        }
        if !errors.is_empty() {
            entry(&mut files, &p).broken = errors
                .iter()
                .map(|e| format!("{}: {}", e.line, e.message))
                .collect();
        }
    }
    // --godot: a merged scene the user's engine does not load blocks the commit too.
    for (p, e) in crate::check::godot::problems(godot, root, engine)? {
        entry(&mut files, &p)
            .broken
            .push(format!("{}: {}", e.line, e.message));
    }
    Ok(files.into_values().collect())
}

/// The report of `p` in `files`, made when missing.
fn entry<'a>(files: &'a mut BTreeMap<String, FileReport>, p: &str) -> &'a mut FileReport {
    files.entry(p.to_string()).or_insert_with(|| FileReport {
        path: p.to_string(),
        ..FileReport::default()
    })
}

/// The records the driver left, in no particular order.
fn read_records(dir: &Path) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).context("cannot read the records")? {
        let bytes = std::fs::read(e?.path())?;
        if let Some(r) = serde_json::from_slice(&bytes)
            .ok()
            .as_ref()
            .and_then(Record::from_json)
        {
            out.push(r);
        }
    }
    Ok(out)
}

/// Undo the merge: `git merge --abort`, and HEAD, index and work tree as they were
/// (the checkout was clean, so a hard reset to `head` is exact where abort fell short).
fn restore(head: &str) -> Result<()> {
    if git(["rev-parse", "-q", "--verify", "MERGE_HEAD"])?
        .status
        .success()
    {
        let _ = git(["merge", "--abort"])?;
    }
    let now = commit_id("HEAD")?;
    let status = git_ok(["status", "--porcelain=v1", "-z", "--untracked-files=no"])?;
    if now != head || !status.is_empty() {
        git_ok(["reset", "-q", "--hard", head])?;
    }
    Ok(())
}

/// Commit the merge with `message`; an identity of its own when git has none.
fn commit(work: &Path, message: &str) -> Result<()> {
    let file = work.join("message");
    std::fs::write(&file, message).context("cannot write the commit message")?;
    let out = git_cmd()
        .args(identity()?)
        .args(["commit", "-q", "--no-edit", "-F"])
        .arg(&file)
        .output()
        .context("cannot run git commit")?;
    if !out.status.success() {
        bail!(
            "git commit failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// `-c` options naming `tscn-merge <tscn-merge@localhost>` when git has no identity
/// (a CI runner): `git merge` needs one even with `--no-commit`.
fn identity() -> Result<Vec<&'static str>> {
    let known = git(["var", "GIT_COMMITTER_IDENT"])?.status.success()
        && git(["var", "GIT_AUTHOR_IDENT"])?.status.success();
    Ok(if known {
        Vec::new()
    } else {
        vec![
            "-c",
            "user.name=tscn-merge",
            "-c",
            "user.email=tscn-merge@localhost",
        ]
    })
}

/// Push the merge commit `id` to the branch's upstream, else to `origin` under the
/// branch's own name.
fn push(branch: Option<&str>, id: &str) -> Result<()> {
    let Some(branch) = branch else {
        bail!("--push needs a branch checked out (HEAD is detached); the merge commit {id} is made here only");
    };
    let config = |key: String| -> Option<String> {
        let out = git(["config", "--get", &key]).ok()?;
        let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !v.is_empty()).then_some(v)
    };
    let remote = config(format!("branch.{branch}.remote")).filter(|r| r != ".");
    let target = config(format!("branch.{branch}.merge"));
    let (remote, target) = match (remote, target) {
        (Some(r), Some(t)) => (r, t),
        _ => ("origin".to_string(), format!("refs/heads/{branch}")),
    };
    let out = git(["push", "-q", &remote, &format!("HEAD:{target}")])?;
    if !out.status.success() {
        bail!(
            "the merge commit {id} is made here, but pushing it to {remote} {target} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    crate::io::print_line(&format!("Pushed {id} to {remote} {target}"))
}
