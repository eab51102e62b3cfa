//! `tscn-merge solve FILE...`: re-merge files that git left with conflict markers
//! (a merge made before `install`, a rebase, a cherry-pick, a client that ignores
//! merge drivers).
//!
//! The three versions come from git's index stages when the file is in a repository
//! and has an unmerged entry, otherwise from diff3 markers in the file itself; with
//! two-sided markers only the conflicted hunks can be re-merged (see
//! [`tscn_merge::solve`]). The file is replaced atomically, with a `FILE.orig` backup
//! unless `--no-backup`; `--stdout` prints instead. Exit 0 when every file is clean
//! (or had nothing to solve), 1 when conflicts remain, 2 on error. Never runs
//! `git add`.

use super::{git, io, merge as cli_merge, SolveArgs};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use tscn_merge::linemerge::MarkerOptions;
use tscn_merge::merge::{merge, MergeOptions, MergeOutcome};
use tscn_merge::solve::{find_markers, solve_markers, Source};

/// Run the solve command over every file; the exit code is the worst of them.
pub fn run(a: &SolveArgs) -> anyhow::Result<i32> {
    let mut code = 0;
    // No FILE: every unmerged scene of the repository around the current directory.
    let files: Vec<PathBuf> = if a.files.is_empty() {
        let repo = super::git::open_repo(Path::new("."))?;
        let root = repo
            .workdir()
            .ok_or_else(|| anyhow::anyhow!("the repository has no work tree"))?
            .to_path_buf();
        let paths = super::git::unmerged_scene_paths(&repo)?;
        if paths.is_empty() {
            println!("no unmerged scene files: nothing to solve");
        }
        paths.into_iter().map(|p| root.join(p)).collect()
    } else {
        a.files.clone()
    };
    for file in &files {
        let c = match solve_file(a, file) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("tscn-merge: error: {e:#}");
                2
            }
        };
        code = code.max(c);
    }
    Ok(code)
}

/// `FILE.orig`.
fn backup_path(file: &Path) -> PathBuf {
    let mut name: OsString = file.as_os_str().to_owned();
    name.push(".orig");
    PathBuf::from(name)
}

/// Keep the conflicted file as `FILE.orig`, with the file's permissions.
fn write_backup(file: &Path, text: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    let orig = backup_path(file);
    std::fs::write(&orig, text)
        .with_context(|| format!("cannot write the backup {}", orig.display()))?;
    if let Ok(meta) = std::fs::metadata(file) {
        let _ = std::fs::set_permissions(&orig, meta.permissions());
    }
    Ok(())
}

/// The stages of `file` when it is in a repository with an unmerged entry for it.
fn index_stages(file: &Path) -> Option<git::Stages> {
    let abs = std::fs::canonicalize(file)
        .or_else(|_| std::path::absolute(file))
        .ok()?;
    let dir = abs.parent()?;
    let repo = git::open_repo(dir).ok()?;
    git::conflict_stages(&repo, &abs).ok().flatten()
}

/// What was solved and how, before writing.
struct Plan {
    outcome: MergeOutcome,
    from_index: bool,
    /// Print the per-conflict report (not for blocks kept from two-sided markers,
    /// already counted in the message).
    report: bool,
}

fn solve_file(a: &SolveArgs, file: &Path) -> anyhow::Result<i32> {
    let shown = file.display().to_string();
    let text = io::read(file)?;
    let markers = find_markers(&text, a.marker_size);
    let plan = match index_stages(file) {
        Some(stages) => {
            let found = match &markers {
                Ok(Some(m)) => Some(m),
                Ok(None) => {
                    eprintln!(
                        "{shown}: nothing to solve: the file has no conflict markers, though git still lists it as unmerged (review it, then `git add {shown}`)"
                    );
                    return Ok(0);
                }
                Err(_) => None,
            };
            let (Some(ours), Some(theirs)) = (stages.ours, stages.theirs) else {
                eprintln!(
                    "{shown}: deleted on one side (modify/delete conflict): nothing to merge; keep it with `git add {shown}` or delete it with `git rm {shown}`"
                );
                return Ok(1);
            };
            let mut markers_opts = MarkerOptions {
                marker_size: a.marker_size,
                ..MarkerOptions::default()
            };
            if let Some(m) = found {
                markers_opts.marker_size = m.marker_size;
                if let Some(b) = m.blocks().next() {
                    let set = |dst: &mut String, l: &str| {
                        if !l.is_empty() {
                            *dst = l.to_string();
                        }
                    };
                    set(&mut markers_opts.ours, &b.ours_label);
                    set(&mut markers_opts.theirs, &b.theirs_label);
                    if let Some(l) = &b.base_label {
                        set(&mut markers_opts.base, l);
                    }
                }
            }
            let base = stages.base.unwrap_or_default();
            let outcome = merge(
                &base,
                &ours,
                &theirs,
                &MergeOptions {
                    markers: markers_opts,
                    ..MergeOptions::default()
                },
            );
            eprintln!("{shown}: re-merged from git's index stages (base, ours, theirs)");
            Plan {
                outcome,
                from_index: true,
                report: true,
            }
        }
        None => {
            let solved = match solve_markers(&text, a.marker_size) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    eprintln!("{shown}: nothing to solve (no conflict markers)");
                    return Ok(0);
                }
                Err(e) => anyhow::bail!("cannot read the conflict markers in {shown}: {e}"),
            };
            match solved.source {
                Source::Diff3Markers => {
                    eprintln!(
                        "{shown}: re-merged from the diff3 markers in the file ({} block(s))",
                        solved.blocks
                    )
                }
                Source::TwoSidedMarkers => {
                    eprintln!(
                        "{shown}: the conflict markers have no base section (git's default \"merge\" style), so only the conflicted hunks can be re-merged, each as if both sides had added it; {} of {} block(s) re-merged, the others kept as they were",
                        solved.resolved_blocks, solved.blocks
                    );
                    if solved.resolved_blocks < solved.blocks {
                        eprintln!(
                            "{shown}: hint: with `git config merge.conflictStyle diff3` (or `git checkout --conflict=diff3 {shown}` during a merge) the base is kept and everything can be re-merged"
                        );
                    }
                }
            }
            let report = solved.source == Source::Diff3Markers;
            Plan {
                outcome: solved.outcome,
                from_index: false,
                report,
            }
        }
    };
    let outcome = plan.outcome;
    cli_merge::explain(&outcome, a.explain, &shown);
    if plan.report {
        cli_merge::report_conflicts(&outcome, &shown);
    }
    if a.stdout {
        use std::io::Write;
        std::io::stdout().write_all(&outcome.text)?;
    } else if outcome.text == text {
        eprintln!("{shown}: unchanged");
    } else {
        if !a.no_backup {
            write_backup(file, &text)?;
        }
        io::write_atomic(file, &outcome.text)?;
    }
    if outcome.is_clean() {
        let review = if plan.from_index && !a.stdout {
            format!("; review it, then `git add {shown}`")
        } else {
            String::new()
        };
        eprintln!("{shown}: solved, no conflicts left{review}");
        Ok(0)
    } else {
        eprintln!("{shown}: {} conflict(s) remain", outcome.conflict_count);
        Ok(1)
    }
}
