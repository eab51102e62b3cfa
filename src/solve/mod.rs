//! `tscn-merge solve FILE...`: re-merge files that git left with conflict markers
//! (a merge made before `install`, a rebase, a cherry-pick, a client that ignores
//! merge drivers).
//!
//! The three versions come from git's index stages when the file is unmerged in a
//! repository and is still exactly what git's line merge left; a file edited since
//! (a hunk resolved by hand, a node added) is solved from its own markers instead, so
//! the edits stay, and one whose markers cannot be read any more is refused (exit 2,
//! untouched). Outside a repository the markers are all there is (see
//! [`gdscene::solve`] for what diff3 and two-sided markers allow). `--favor` resolves
//! what is left to one side. The file (a symbolic link's target) is replaced
//! atomically, after a backup unless `--no-backup`: `.git/tscn-merge/backup/PATH.orig`
//! in a repository (never in the work tree, where `git add -A` would take it), else
//! `FILE.orig` beside it (or the first free `.orig.N`: no backup is overwritten);
//! `--stdout` prints instead. Exit 0 when every file is clean (or had nothing to
//! solve), 1 when conflicts remain, 2 on error. Never runs `git add`.

pub mod args;
mod config;

use crate::driver as cli_merge;
use crate::driver::args::FavorArg;
use crate::git;
use crate::io;
use crate::io::stderr_line;
use crate::solve::args::SolveArgs;
use gdscene::config::merge::ConfigMerge;
use gdscene::config::ConfigKind;
use gdscene::linemerge::{ConflictStyle, MarkerOptions};
use gdscene::merge::{merge, Decision, MergeOptions, MergeOutcome, Method};
use gdscene::render::escape::visible;
use gdscene::solve::{find_markers, is_untouched_line_merge, solve_markers_styled, Source};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Run the solve command over every file; the exit code is the worst of them.
pub fn run(a: &SolveArgs) -> anyhow::Result<i32> {
    let mut code = 0;
    // No FILE: every unmerged scene of the repository around the current directory.
    let files: Vec<PathBuf> = if a.files.is_empty() {
        let repo = crate::git::open_repo(Path::new("."))?;
        let root = repo
            .workdir()
            .ok_or_else(|| anyhow::anyhow!("the repository has no work tree"))?
            .to_path_buf();
        let (paths, others) = solvable_paths(&repo)?;
        if paths.is_empty() {
            io::print_line("no unmerged scene or Godot settings file: nothing to solve")?;
        }
        if !others.is_empty() {
            let names: Vec<String> = others.iter().map(|p| visible(p).into_owned()).collect();
            stderr_line!(
                "tscn-merge: {} other unmerged file(s), not Godot files that solve re-merges (resolve them as git says): {}",
                others.len(),
                names.join(", ")
            );
        }
        let mut files = Vec::new();
        for p in paths {
            match inside_work_tree(&root, &root.join(&p)) {
                Ok(f) => files.push(f),
                Err(e) => {
                    stderr_line!(
                        "tscn-merge: error: {}",
                        gdscene::render::escape::visible_lines(&format!("{e:#}"))
                    );
                    code = 2;
                }
            }
        }
        files
    } else {
        a.files.clone()
    };
    for file in &files {
        let c = match solve_file(a, file) {
            Ok(c) => c,
            Err(e) => {
                stderr_line!(
                    "tscn-merge: error: {}",
                    gdscene::render::escape::visible_lines(&format!("{e:#}"))
                );
                2
            }
        };
        code = code.max(c);
    }
    Ok(code)
}

/// The unmerged paths of the index (from the work tree's top), sorted: those `solve`
/// re-merges (scenes and resources, and the ConfigFile files the driver merges:
/// `project.godot`, `*.import`, `*.uid`, ...), and the others.
fn solvable_paths(repo: &gix::Repository) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    Ok(crate::git::unmerged_paths(repo)?
        .into_iter()
        .partition(|p| crate::git::paths::is_scene_path(p) || ConfigKind::of_path(p).is_some()))
}

/// An unmerged entry found without being named: `file` itself, unless it is a symbolic
/// link or lies outside the work tree `root` once links in its folders are followed. A
/// branch chooses what its links point to, so solving through one could rewrite any file
/// of the user's; refused with nothing written, the link named.
fn inside_work_tree(root: &Path, file: &Path) -> anyhow::Result<PathBuf> {
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
        let to = std::fs::read_link(file)
            .map(|t| format!(" (to {})", t.display()))
            .unwrap_or_default();
        anyhow::bail!("{shown}: not solved: the unmerged entry is a symbolic link{to}, and solve never writes through a link it was not named; nothing written (solve the file it points to by naming it, or resolve the link with `git checkout --ours|--theirs -- {shown}`)");
    }
    let Ok(real) = std::fs::canonicalize(file) else {
        return Ok(file.to_path_buf()); // not there: solve_file says so
    };
    let top = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if !real.starts_with(&top) {
        anyhow::bail!("{shown}: not solved: it lies outside the work tree ({}) through a symbolic link in its folders; nothing written", real.display());
    }
    Ok(file.to_path_buf())
}

/// Where the backups of `file` go, before `.orig`: `.git/tscn-merge/backup/PATH` (PATH
/// from the work tree's top) in a repository, else `file` itself.
fn backup_base(file: &Path) -> PathBuf {
    let in_repo = || -> Option<PathBuf> {
        let abs = std::path::absolute(file).ok()?;
        let dir = abs.parent()?.canonicalize().ok()?;
        let out = std::process::Command::new("git")
            .current_dir(&dir)
            .args(["rev-parse", "--show-toplevel"])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let top = String::from_utf8(out.stdout).ok()?;
        let top = Path::new(top.trim_end_matches(['\n', '\r']))
            .canonicalize()
            .ok()?;
        let rel = dir.strip_prefix(&top).ok()?.join(abs.file_name()?);
        Some(
            crate::explain::state_dir(Some(&dir))?
                .join("backup")
                .join(rel),
        )
    };
    in_repo().unwrap_or_else(|| file.to_path_buf())
}

/// The first free backup name for `file` (see [`backup_base`]): `.orig`, else `.orig.1`,
/// `.2`, ... An existing backup (of an earlier solve, or the user's) is never overwritten,
/// and a backup that cannot be written whole (a full disk) leaves no file behind.
fn write_backup(file: &Path, text: &[u8]) -> anyhow::Result<PathBuf> {
    use anyhow::Context;
    let base = backup_base(file);
    let dir = match base.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot make the backup folder {}", parent.display()))?;
            parent.to_path_buf()
        }
        None => PathBuf::from("."),
    };
    let names = (0..1000u32).map(|n| {
        let mut name: OsString = base.as_os_str().to_owned();
        name.push(if n == 0 {
            ".orig".to_string()
        } else {
            format!(".orig.{n}")
        });
        PathBuf::from(name)
    });
    let written = io::write_new(&dir, names, text, Some(file))
        .with_context(|| format!("cannot write a backup of {}", file.display()))?;
    written.ok_or_else(|| {
        anyhow::anyhow!(
            "cannot write a backup of {}: {}.orig to .orig.999 all exist",
            file.display(),
            base.display()
        )
    })
}

/// Where to write `file`: its target when it is a symbolic link (the link stays a link).
fn write_target(file: &Path) -> PathBuf {
    match std::fs::symlink_metadata(file) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
        }
        _ => file.to_path_buf(),
    }
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

/// The index stages with LF line ends, as the work tree's text is solved
/// ([`io::eol::to_lf`]): blobs committed with CRLF compare with git's line merge of
/// them, and merge, like the work tree's file.
fn stages_lf(s: git::Stages) -> git::Stages {
    git::Stages {
        base: s.base.map(io::eol::to_lf),
        ours: s.ours.map(io::eol::to_lf),
        theirs: s.theirs.map(io::eol::to_lf),
    }
}

/// The style of the markers a solve writes: `--style`, else `merge.conflictStyle` as
/// git sees it in the file's directory (`-c` overrides included, the same lookup as
/// `merge --git`), else git's default (`merge`) inside a repository and diff3 outside
/// one (the base section lets a later solve re-merge everything).
fn style_for(a: &SolveArgs, file: &Path) -> ConflictStyle {
    if let Some(s) = a.style {
        return crate::driver::gitconfig::style_of(s);
    }
    let abs = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let Some(dir) = abs.parent().filter(|d| d.is_dir()) else {
        return ConflictStyle::Diff3;
    };
    match crate::driver::gitconfig::configured_style_in(dir) {
        Some(s) => s,
        None if git::open_repo(dir).is_ok() => ConflictStyle::Merge,
        None => ConflictStyle::Diff3,
    }
}

/// A re-merge's outcome: a scene's, or a ConfigFile's (`project.godot`, `*.import`, ...).
enum Solved {
    Scene(MergeOutcome),
    Config(ConfigMerge),
}

impl Solved {
    /// `--explain`, as `merge` prints it.
    fn explain(&self, format: Option<crate::driver::args::ExplainFormat>, shown: &str) {
        match self {
            Solved::Scene(o) => cli_merge::explain(o, format, shown),
            Solved::Config(m) => cli_merge::config::explain_merge(m, format, shown),
        }
    }

    /// The per-conflict report, as `merge` prints it.
    fn report(&self, shown: &str) {
        match self {
            Solved::Scene(o) => cli_merge::report_conflicts(o, shown),
            Solved::Config(m) => cli_merge::config::report(m, shown, false),
        }
    }

    /// The text and the number of conflicts left in it.
    fn into_parts(self) -> (Vec<u8>, usize) {
        match self {
            Solved::Scene(o) => (o.text, o.conflict_count),
            Solved::Config(m) => (m.text, m.conflict_count),
        }
    }
}

/// What was solved and how, before writing.
struct Plan {
    outcome: Solved,
    /// The file is unmerged in a repository (the user is told to `git add` it).
    unmerged: bool,
    /// Print the per-conflict report (not when blocks were kept as they were, already
    /// counted in the message).
    report: bool,
}

/// What the index stages allow.
enum FromIndex {
    /// Nothing to write; the exit code.
    Done(i32),
    /// Re-merged from the stages.
    Plan(Plan),
    /// The file was edited since git left it: solve from its own markers.
    Edited,
}

/// Re-merge from git's index stages, but only when the file is still exactly what
/// git's line merge left: otherwise its text holds someone's work, which a merge of
/// the stages would throw away.
fn from_index(
    (a, kind): (&SolveArgs, Option<ConfigKind>),
    style: ConflictStyle,
    shown: &str,
    text: &[u8],
    stages: git::Stages,
) -> anyhow::Result<FromIndex> {
    let markers = match find_markers(text, a.marker_size) {
        Ok(Some(m)) => m,
        Ok(None) => {
            stderr_line!(
                "{shown}: nothing to solve: the file has no conflict markers, though git still lists it as unmerged (review it, then `git add {shown}`)"
            );
            return Ok(FromIndex::Done(0));
        }
        Err(e) => anyhow::bail!(
            "cannot read the conflict markers in {shown} ({e}); the file is no longer what git left, and re-merging from the index stages would throw its edits away: finish it by hand (or, to start over and lose those edits, `git checkout --merge -- {shown}`)"
        ),
    };
    let (Some(ours), Some(theirs)) = (stages.ours, stages.theirs) else {
        stderr_line!(
            "{shown}: deleted on one side (modify/delete conflict): nothing to merge; keep it with `git add {shown}` or delete it with `git rm {shown}`"
        );
        return Ok(FromIndex::Done(1));
    };
    let base = stages.base.unwrap_or_default();
    if !is_untouched_line_merge(text, &base, &ours, &theirs, markers.marker_size) {
        stderr_line!(
            "{shown}: the file was edited since git left it (it is not git's line merge of the index stages), so it is solved from its own conflict markers and the edits are kept"
        );
        return Ok(FromIndex::Edited);
    }
    let markers_opts = labelled_markers(&markers, style);
    let outcome = match kind {
        Some(k) => config::merge_stages(k, (&base, &ours, &theirs), &markers_opts),
        None => Solved::Scene(merge_stages(&base, &ours, &theirs, markers_opts)),
    };
    stderr_line!("{shown}: re-merged from git's index stages (base, ours, theirs)");
    Ok(FromIndex::Plan(Plan {
        outcome,
        unmerged: true,
        report: true,
    }))
}

/// Marker options for a re-merge: the style asked for, and the size and labels of the
/// markers git wrote.
fn labelled_markers(markers: &gdscene::solve::Marked, style: ConflictStyle) -> MarkerOptions {
    let mut opts = MarkerOptions {
        marker_size: markers.marker_size,
        style,
        ..MarkerOptions::default()
    };
    if let Some(b) = markers.blocks().next() {
        let set = |dst: &mut String, l: &str| {
            if !l.is_empty() {
                *dst = l.to_string();
            }
        };
        set(&mut opts.ours, &b.ours_label);
        set(&mut opts.theirs, &b.theirs_label);
        if let Some(l) = &b.base_label {
            set(&mut opts.base, l);
        }
    }
    opts
}

/// Merge the index stages as the merge driver does: when both sides added the file (no
/// stage 1, git's base is empty), against a stand-in base of ours' header.
fn merge_stages(base: &[u8], ours: &[u8], theirs: &[u8], markers: MarkerOptions) -> MergeOutcome {
    let stand_in = cli_merge::empty_base_stand_in(base, ours);
    let opts = MergeOptions {
        markers,
        ..MergeOptions::default()
    };
    let mut outcome = merge(stand_in.as_deref().unwrap_or(base), ours, theirs, &opts);
    if let (Some(h), false) = (stand_in, outcome.method == Method::Trivial) {
        let header = String::from_utf8_lossy(&h).trim_end().to_string();
        outcome
            .decisions
            .insert(0, Decision::AddAddStandInBase { header });
    }
    outcome
}

/// Solve from the conflict markers in the file. `None`: nothing to solve.
fn from_markers(
    (a, kind): (&SolveArgs, Option<ConfigKind>),
    style: ConflictStyle,
    shown: &str,
    text: &[u8],
) -> anyhow::Result<Option<Plan>> {
    if let Some(kind) = kind {
        let marked = match find_markers(text, a.marker_size) {
            Ok(Some(m)) => m,
            Ok(None) => return Ok(None),
            Err(e) => anyhow::bail!("cannot read the conflict markers in {shown}: {e}"),
        };
        let opts = labelled_markers(&marked, style);
        let outcome = config::from_markers(kind, shown, &marked, text, &opts);
        let report = marked.has_base();
        return Ok(Some(Plan {
            outcome,
            unmerged: false,
            report,
        }));
    }
    let solved = match solve_markers_styled(text, a.marker_size, style) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(None),
        Err(e) => anyhow::bail!("cannot read the conflict markers in {shown}: {e}"),
    };
    let kept = format!(
        "{} of {} block(s) re-merged, the others kept as they were",
        solved.resolved_blocks, solved.blocks
    );
    match solved.source {
        Source::Diff3Markers => match &solved.doubt {
            None => stderr_line!(
                "{shown}: re-merged from the diff3 markers in the file ({} block(s))",
                solved.blocks
            ),
            Some(why) => stderr_line!(
                "{shown}: diff3 markers give the three versions exactly only inside the blocks (git put each side's clean changes into all three), and {why}; so block by block: {kept}"
            ),
        },
        Source::TwoSidedMarkers => {
            let why = solved
                .doubt
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            stderr_line!(
                "{shown}: the conflict markers have no base section (git's default \"merge\" style), so only the conflicted hunks can be re-merged, each as if both sides had added it; {kept}{why}"
            );
            if solved.resolved_blocks < solved.blocks {
                stderr_line!(
                    "{shown}: hint: finish the blocks left by hand; with `git config merge.conflictStyle diff3` set before the next merge, git keeps the base in its markers and `tscn-merge solve` can re-merge every block"
                );
            }
        }
    }
    let report = solved.source == Source::Diff3Markers && solved.doubt.is_none();
    Ok(Some(Plan {
        outcome: Solved::Scene(solved.outcome),
        unmerged: false,
        report,
    }))
}

/// `--favor` by the rule of `merge --favor`: only the blocks with the labels of the
/// file's own markers (those the re-merge writes too), found where the parser would see
/// them, take the favoured side; marker-shaped lines of a string are text. The text and
/// the blocks still left (none unless a block's labels differ from the first's).
fn favor_blocks(
    input: &[u8],
    solved: &[u8],
    style: ConflictStyle,
    a: &SolveArgs,
    side: FavorArg,
) -> (Vec<u8>, usize) {
    let labels = match find_markers(input, a.marker_size) {
        Ok(Some(m)) => labelled_markers(&m, style),
        _ => MarkerOptions {
            marker_size: a.marker_size,
            ..MarkerOptions::default()
        },
    };
    let text = crate::driver::gitconfig::resolve_own_markers(solved, &labels, side).0;
    let left = find_markers(&text, labels.marker_size)
        .map(|m| m.map_or(0, |m| m.block_count()))
        .unwrap_or(1);
    (text, left)
}

/// The plan for `file` (text with LF line ends): from git's index stages when the file
/// is unmerged and untouched, else from its own markers. `Err(code)`: nothing to write.
fn plan_for(
    a: &SolveArgs,
    file: &Path,
    (shown, style): (&str, ConflictStyle),
    text: &[u8],
) -> anyhow::Result<Result<Plan, i32>> {
    // project.godot, *.import, ...: merged by section and key, as the driver does.
    let kind = crate::git::paths::kind_of(file);
    let (from_index_plan, unmerged) = match index_stages(file) {
        Some(stages) => match from_index((a, kind), style, shown, text, stages_lf(stages))? {
            FromIndex::Done(code) => return Ok(Err(code)),
            FromIndex::Plan(p) => (Some(p), true),
            FromIndex::Edited => (None, true),
        },
        None => (None, false),
    };
    Ok(Ok(match from_index_plan {
        Some(p) => p,
        None => match from_markers((a, kind), style, shown, text)? {
            Some(p) => Plan { unmerged, ..p },
            None => {
                stderr_line!("{shown}: nothing to solve (no conflict markers)");
                return Ok(Err(0));
            }
        },
    }))
}

/// `--favor`: the conflicts left resolved to `side`, unless that leaves a broken file
/// while the favoured side is valid (then they stay, and stderr says why).
fn favor(
    a: &SolveArgs,
    (file, shown, style): (&Path, &str, ConflictStyle),
    input: &[u8],
    (text, left): (Vec<u8>, usize),
    side: FavorArg,
) -> (Vec<u8>, usize) {
    let name = crate::driver::markers::side_name(side);
    let resolved = favor_blocks(input, &text, style, a, side);
    let path = file.display().to_string();
    let favoured = || favor_blocks(input, input, style, a, side).0;
    if let Some(why) = crate::driver::markers::broken_by_favor(&path, &resolved.0, favoured) {
        crate::driver::markers::refused_favor(&path, name, left, &why);
        return (text, left);
    }
    stderr_line!("{shown}: {left} conflict(s) resolved in favour of {name} (--favor)");
    resolved
}

fn solve_file(a: &SolveArgs, file: &Path) -> anyhow::Result<i32> {
    // A file name is the repository's: shown, never obeyed by the terminal.
    let shown = visible(&file.display().to_string()).into_owned();
    // Solved with LF line ends, written back in the file's own (io/eol.rs); the
    // backup keeps the bytes as they were.
    let original = io::read(file)?;
    let ending = io::eol::Ending::of(&original);
    let text = io::eol::lf_view(&original).into_owned();
    let style = style_for(a, file);
    let plan = match plan_for(a, file, (&shown, style), &text)? {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    plan.outcome.explain(a.explain, &shown);
    if plan.report {
        plan.outcome.report(&shown);
    }
    let (mut out, mut left) = plan.outcome.into_parts();
    if let (Some(side), true) = (a.favor, left > 0) {
        (out, left) = favor(a, (file, &shown, style), &text, (out, left), side);
    }
    if a.stdout {
        io::write_stdout(&ending.apply(out))?;
    } else if out == text {
        stderr_line!("{shown}: unchanged");
    } else {
        if !a.no_backup {
            let orig = write_backup(file, &original)?;
            stderr_line!(
                "{shown}: the file as it was is kept in {}",
                visible(&orig.display().to_string())
            );
        }
        io::write_atomic(&write_target(file), &ending.apply(out))?;
    }
    if left == 0 {
        let review = if plan.unmerged && !a.stdout {
            format!("; review it, then `git add {shown}`")
        } else {
            String::new()
        };
        stderr_line!("{shown}: solved, no conflicts left{review}");
        Ok(0)
    } else {
        stderr_line!("{shown}: {left} conflict(s) remain");
        Ok(1)
    }
}
