//! `tscn-merge merge`: git's merge-driver conventions. Reads BASE OURS THEIRS, writes
//! the result to OURS (`--git`), to `-o OUT`, or to standard output. Exit 0 clean,
//! 1 conflicts remain, 2 error (nothing written).

pub mod args;
pub mod config;
pub mod gitconfig;
pub mod markers;

use markers::{favor_decisions, favor_markers, favored, marker_options};

use crate::driver::args::ExplainFormat;
use crate::driver::args::FavorArg;
use crate::driver::args::MergeArgs;
use crate::io;
use crate::io::stderr_line;
use gdscene::linemerge::MarkerOptions;
use gdscene::merge::{merge_sources, Decision, MergeOptions, MergeOutcome, Method};
use gdscene::render::escape::{visible, visible_lines};
use gdscene::syntax::Source;

/// Print `--explain` output on stderr.
pub fn explain(outcome: &MergeOutcome, format: Option<ExplainFormat>, path: &str) {
    match format {
        None => {}
        Some(ExplainFormat::Text) => {
            let shown = visible(path);
            if outcome.decisions.is_empty() {
                stderr_line!("{shown}: no automatic decisions were needed");
            }
            for d in &outcome.decisions {
                stderr_line!("{shown}: {}", visible_lines(&d.to_string()));
            }
        }
        Some(ExplainFormat::Json) => {
            let method = match &outcome.method {
                Method::Trivial => "trivial".to_string(),
                Method::Structural => "structural".to_string(),
                Method::LineFallback(_) => "line".to_string(),
            };
            let doc = serde_json::json!({
                "schema": "tscn-merge/explain",
                "version": 1,
                "path": path,
                "method": method,
                "conflicts": outcome.conflict_count,
                "conflict_reports": outcome.conflicts.iter().map(report_json).collect::<Vec<_>>(),
                "decisions": outcome.decisions.iter().map(Decision::to_json).collect::<Vec<_>>(),
            });
            stderr_line!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
    }
}

/// One conflict of the report as JSON (`--explain=json`, in file order).
fn report_json(c: &gdscene::merge::ConflictReport) -> serde_json::Value {
    serde_json::json!({
        "location": c.location,
        "property": c.property,
        "base": c.base,
        "ours": c.ours,
        "theirs": c.theirs,
    })
}

/// Print the short per-conflict report on stderr.
pub fn report_conflicts(outcome: &MergeOutcome, path: &str) {
    // Node names and values are the repository's: shown, never obeyed by the terminal.
    let path = &*visible(path);
    // Not a conflict, but a person should know: order has no marker.
    for d in &outcome.decisions {
        if matches!(d, Decision::OrderConflictOursKept) {
            stderr_line!("{path}: note: {}", visible_lines(&d.to_string()));
        }
    }
    if outcome.conflict_count == 0 {
        return;
    }
    if let Method::LineFallback(reason) = &outcome.method {
        stderr_line!(
            "{path}: {} conflict(s) from the line merge ({})",
            outcome.conflict_count,
            visible(&gdscene::merge::shorten(reason, 400))
        );
        for c in &outcome.conflicts {
            if let Some(why) = &c.theirs {
                stderr_line!(
                    "  {}: {}: review it before `git add`",
                    visible(&c.location),
                    visible(&gdscene::merge::shorten(why, 400))
                );
            }
        }
        return;
    }
    let n = outcome.conflict_count;
    match outcome.conflicts.len() {
        m if m > n => stderr_line!("{path}: {n} conflict(s), over {m} parts (neighbouring conflicts share a hunk, as git joins them):"),
        _ => stderr_line!("{path}: {n} conflict(s)"),
    }
    for c in &outcome.conflicts {
        stderr_line!("  {}", visible(&conflict_line(c)));
    }
}

/// One conflict as the stderr report of `merge` shows it (the caller makes it safe to
/// print: [`visible`] on a terminal, code spans in Markdown).
pub fn conflict_line(c: &gdscene::merge::ConflictReport) -> String {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
    let what = c
        .property
        .as_deref()
        .map(|p| format!(" {p}"))
        .unwrap_or_default();
    format!(
        "{}{what}: base {} | ours {} | theirs {}",
        c.location,
        show(&c.base),
        show(&c.ours),
        show(&c.theirs)
    )
}

/// A merge that finished in [`merge_within`].
enum Finished {
    Structural(MergeOutcome),
    Line(MergeOutcome),
}

/// The structural merge, or the line merge when the structural one is still running after
/// `secs`: a merge driver must never hang a `git merge`, and `secs` bounds the whole run,
/// not just the wait. The line merge starts in parallel once half of `secs` has gone by
/// (a quick structural merge never pays for it; a slow one leaves it the other half), and
/// from the deadline on the first result in is used. The line merge is what
/// `git merge-file` does and takes about git's time: only that can outlast `secs`. The
/// library stays free of clocks and threads.
pub fn merge_within(
    base: Source,
    ours: Source,
    theirs: Source,
    opts: MergeOptions,
    secs: f64,
) -> MergeOutcome {
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::{Duration, Instant};
    let reason = format!("the structural merge took longer than {secs} s (--timeout)");
    // No time at all: the line merge only (deterministic, unlike a zero wait on a race).
    if secs <= 0.0 || secs.is_nan() {
        return line_merge(
            base.as_ref(),
            ours.as_ref(),
            theirs.as_ref(),
            &opts,
            &reason,
        );
    }
    let limit = Duration::from_secs_f64(secs.min(86_400.0));
    let (start, deadline) = (Instant::now(), Instant::now() + limit);
    let inputs = std::sync::Arc::new((base, ours, theirs, opts));
    let (tx, rx) = std::sync::mpsc::channel();
    spawn_merge(&inputs, tx.clone(), None);
    let mut tx = Some(tx);
    let mut line = None;
    loop {
        let now = Instant::now();
        if now >= start + limit / 2 {
            if let Some(tx) = tx.take() {
                spawn_merge(&inputs, tx, Some(reason.clone()));
            }
        }
        let msg = if now >= deadline {
            if let Some(lm) = line.take() {
                return lm;
            }
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            let half = (start + limit / 2).max(now + Duration::from_millis(1));
            rx.recv_timeout(if tx.is_some() { half } else { deadline } - now)
        };
        match msg {
            Ok(Finished::Structural(outcome)) => return outcome,
            Ok(Finished::Line(lm)) => line = Some(lm),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    // Only if the structural merge died, which it should never do.
    let (b, o, t, opts) = &*inputs;
    line.unwrap_or_else(|| line_merge(b.as_ref(), o.as_ref(), t.as_ref(), opts, &reason))
}

/// Run the structural merge (`fallback_reason` None) or the line merge in a thread of its
/// own, sending the outcome to `tx`.
fn spawn_merge(
    inputs: &std::sync::Arc<(Source, Source, Source, MergeOptions)>,
    tx: std::sync::mpsc::Sender<Finished>,
    fallback_reason: Option<String>,
) {
    let shared = std::sync::Arc::clone(inputs);
    std::thread::spawn(move || {
        let (b, o, t, opts) = &*shared;
        let _ = tx.send(match &fallback_reason {
            None => Finished::Structural(merge_sources(b, o, t, opts)),
            Some(reason) => Finished::Line(line_merge(b, o, t, opts, reason)),
        });
    });
}

/// The line merge, as the outcome of a fallback for `reason`, checked as every fallback
/// is: clean but broken (a dangling `parent=`) is a conflict.
fn line_merge(b: &[u8], o: &[u8], t: &[u8], opts: &MergeOptions, reason: &str) -> MergeOutcome {
    gdscene::merge::checked_line_merge(b, o, t, opts, reason.to_string())
}

/// Run the merge command. With `--git`, a failure or panic once the arguments are
/// parsed still leaves git's line merge (markers included) in OURS: git takes OURS as
/// the result whatever the exit status, and ours unchanged would drop theirs silently.
pub fn run(a: &MergeArgs) -> anyhow::Result<i32> {
    if let Some(code) = binary_merge(a)? {
        return Ok(code);
    }
    if gitconfig::driver_off() {
        return plain_line_merge(a);
    }
    if !a.git {
        return run_structural(a);
    }
    let why = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_structural(a))) {
        Ok(Ok(code)) => return Ok(code),
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "the structural merge panicked".to_string(),
    };
    line_merge_into_ours(a, &why)
}

/// Whether git would call the file binary: a NUL byte in its first 8,000 bytes (git's
/// `buffer_is_binary`). A file that cannot be read is left to the merge's own error.
fn looks_binary(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(8000);
    std::fs::File::open(path)
        .and_then(|f| f.take(8000).read_to_end(&mut head))
        .is_ok()
        && head.contains(&0)
}

/// Binary input (a `.png` caught by `* merge=tscn-merge`) gets git's behaviour for binary
/// files, never a splice of bytes: ours is the result and the merge conflicts, with git's
/// one-line message (`--favor` takes that side, as `-X ours|theirs` does). `None`: text.
fn binary_merge(a: &MergeArgs) -> anyhow::Result<Option<i32>> {
    if ![&a.base, &a.ours, &a.theirs]
        .iter()
        .any(|p| looks_binary(p))
    {
        return Ok(None);
    }
    let path = display_path(a);
    let favor = a.favor.or_else(gitconfig::favor_from_env);
    if favor.is_none() && !a.quiet {
        stderr_line!(
            "warning: Cannot merge binary files: {} ({} vs. {})",
            visible(&path),
            visible(&crate::driver::args::label_text(&a.ours_label, "ours")),
            visible(&crate::driver::args::label_text(&a.theirs_label, "theirs"))
        );
    }
    let kept = if favor == Some(FavorArg::Theirs) {
        &a.theirs
    } else {
        &a.ours
    };
    if !a.git || kept != &a.ours {
        write_result(a, &io::read(kept)?)?;
    }
    Ok(Some(if favor.is_some() { 0 } else { 1 }))
}

/// The `--git` last resort: `git merge-file`'s result written over OURS.
fn line_merge_into_ours(a: &MergeArgs, why: &str) -> anyhow::Result<i32> {
    use std::io::Write;
    let (ours, ending) = io::read_lf(&a.ours)?;
    let (base, theirs) = (io::read_lf(&a.base)?.0, io::read_lf(&a.theirs)?.0);
    let lm = gdscene::linemerge::merge_lines(&base, &ours, &theirs, &marker_options(a));
    let path = display_path(a);
    // Atomic, never in place: a write that fails part way (a full disk) would leave OURS
    // neither ours nor the merge. On that error OURS is as it was.
    if let Err(e) = io::write_atomic(&a.ours, &ending.apply(lm.text)) {
        anyhow::bail!("{path}: {why}; git's line merge could not be written either ({e:#}); {} is left as it was", a.ours.display());
    }
    // Not eprintln!: a closed stderr (one way to get here) must not stop the work.
    let _ = writeln!(
        std::io::stderr(),
        "{}: {}; git's line merge was written instead",
        visible(&path),
        visible_lines(why)
    );
    crate::explain::record_fallback(&path, why);
    Ok(if lm.conflicts == 0 { 0 } else { 1 })
}

/// A `merge --git` call the argument parser refused (`args` as the process got them):
/// git has called the driver, and takes `%A` as the result whatever the exit status,
/// so ours left as it is would drop theirs silently. When the last three arguments are
/// files, git's line merge (markers included; ours kept for binary input, as git keeps
/// it) is written over the last but one, and the exit code is the line merge's.
/// `None`: not such a call, or nothing could be written; the parser's error stands.
pub fn rescue_refused_git_call(args: &[std::ffi::OsString], error: &str) -> Option<i32> {
    use std::path::Path;
    if args.get(1).is_none_or(|a| a != "merge") || !args.iter().any(|a| a == "--git") {
        return None;
    }
    let [base, ours, theirs] = args.get(args.len().checked_sub(3)?..)? else {
        return None;
    };
    let (base, ours, theirs) = (Path::new(base), Path::new(ours), Path::new(theirs));
    if ![base, ours, theirs].iter().all(|p| p.is_file()) || args.len() < 5 {
        return None;
    }
    let why = format!(
        "the arguments were refused ({})",
        error
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ")
    );
    if [base, ours, theirs].iter().any(|p| looks_binary(p)) {
        stderr_line!(
            "{}: {}; binary input: ours is kept",
            visible(&ours.display().to_string()),
            visible(&why)
        );
        return Some(1);
    }
    let (b, o, t) = (
        io::read(base).ok()?,
        io::read(ours).ok()?,
        io::read(theirs).ok()?,
    );
    let opts = MarkerOptions {
        style: gitconfig::git_conflict_style(),
        ..MarkerOptions::default()
    };
    let lm = gdscene::linemerge::merge_lines(&b, &o, &t, &opts);
    io::write_atomic(ours, &lm.text).ok()?;
    stderr_line!(
        "{}: {}; git's line merge was written instead",
        visible(&ours.display().to_string()),
        visible(&why)
    );
    Some(if lm.conflicts == 0 { 0 } else { 1 })
}

/// `TSCN_MERGE=off`: what `git merge-file` would do, written where the result goes.
fn plain_line_merge(a: &MergeArgs) -> anyhow::Result<i32> {
    let (base, ours, theirs) = (io::read(&a.base)?, io::read(&a.ours)?, io::read(&a.theirs)?);
    let markers = favor_markers(a, &[&base, &ours, &theirs]);
    let lm = gdscene::linemerge::merge_lines(&base, &ours, &theirs, &markers);
    let (text, conflicts) = favored(
        a,
        (lm.text, lm.conflicts),
        &display_path(a),
        &markers,
        false,
    );
    write_result(a, &text)?;
    Ok(if conflicts == 0 { 0 } else { 1 })
}

/// The path for messages: git's `%P`, else OURS.
fn display_path(a: &MergeArgs) -> String {
    a.path_text()
        .unwrap_or_else(|| a.ours.display().to_string())
}

/// The result written over OURS (`--git`), to `-o`, or to standard output.
fn write_result(a: &MergeArgs, text: &[u8]) -> anyhow::Result<()> {
    if a.git {
        io::write_atomic(&a.ours, text)
    } else if let Some(out) = &a.output {
        io::write_atomic(out, text)
    } else {
        io::write_stdout(text)
    }
}

/// Under git, a clean structural merge says what it did in one line: git shows nothing
/// else, and the person should know that the file did not merge as text.
fn report_clean_merge(a: &MergeArgs, outcome: &MergeOutcome, path: &str) {
    let read = |p: &std::path::Path| io::read(p).unwrap_or_default();
    let (b, o, t) = (read(&a.base), read(&a.ours), read(&a.theirs));
    let git = gdscene::linemerge::merge_lines(&b, &o, &t, &marker_options(a)).conflicts;
    let renamed = outcome
        .decisions
        .iter()
        .filter(|d| matches!(d, Decision::IdRenamed { .. }))
        .count();
    let mut what = match git {
        0 => "merged structurally (git's line merge is clean too)".to_string(),
        n => format!("{n} conflict(s) resolved structurally"),
    };
    if renamed > 0 {
        what.push_str(&format!(" ({renamed} id(s) renamed)"));
    }
    if let Some(Decision::HeaderUidOurs { theirs, .. }) = outcome
        .decisions
        .iter()
        .find(|d| matches!(d, Decision::HeaderUidOurs { .. }))
    {
        what.push_str(&format!(
            " (both sides gave the file a new uid: ours' kept; files referring to {theirs} load it by path, with Godot's warning)"
        ));
    }
    let more = outcome.decisions.len();
    stderr_line!(
        "tscn-merge: {}: {what}; {more} automatic decision(s); details: tscn-merge explain {}",
        visible(path),
        visible(&crate::install::shell_quote(path))
    );
}

/// Both branches added the file (git passes an empty base): the base is taken to be a
/// file with ours' header and nothing else, without its `uid` and `load_steps`, so that
/// the two additions merge structurally, each node and resource an addition of its own.
pub(crate) fn empty_base_stand_in(base: &[u8], ours: &[u8]) -> Option<Vec<u8>> {
    if !base.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let text = std::str::from_utf8(ours).ok()?;
    let first = text.lines().next()?.trim_end();
    if !(first.starts_with("[gd_scene") || first.starts_with("[gd_resource")) {
        return None;
    }
    let fields: Vec<&str> = first
        .split(' ')
        .filter(|f| !f.starts_with("uid=") && !f.starts_with("load_steps="))
        .collect();
    let mut header = fields.join(" ");
    if !header.ends_with(']') {
        header.push(']');
    }
    header.push('\n');
    Some(header.into_bytes())
}

fn run_structural(a: &MergeArgs) -> anyhow::Result<i32> {
    if config::is_config_merge(a) {
        return config::run_merge(a); // project.godot, *.import, ...: issue 28
    }
    // Each input is held once: the parsed scenes share these bytes. All are merged
    // with LF line ends; the result gets ours' ending on every line (io/eol.rs).
    // Big inputs are mapped, not copied (io/mapped.rs).
    let (ours, ending) = io::source(&a.ours)?;
    let theirs = io::source(&a.theirs)?.0;
    let base = io::source(&a.base)?.0;
    let stand_in = empty_base_stand_in(&base, &ours);
    let header = stand_in
        .as_deref()
        .map(|h| String::from_utf8_lossy(h).trim_end().to_string());
    let base = stand_in.map_or(base, Source::new);
    let markers = favor_markers(a, &[&base, &ours, &theirs]);
    let opts = MergeOptions {
        markers: markers.clone(),
        // This process ends once the result is written.
        exit_after: true,
        no_layout_policy: a.no_layout_policy,
        saved_state_conflicts: match a.state {
            Some(s) => s == crate::driver::args::StateArg::Conflict,
            None => std::env::var("TSCN_MERGE_STATE").is_ok_and(|v| v.trim() == "conflict"),
        },
    };
    let mut outcome = merge_within(base, ours, theirs, opts, a.timeout);
    if let (Some(header), false) = (header, outcome.method == Method::Trivial) {
        outcome
            .decisions
            .insert(0, Decision::AddAddStandInBase { header });
    }
    let path = display_path(a);
    if outcome.conflict_count > 0 {
        let favored = favor_decisions(a, &outcome.text, &path, &markers);
        outcome.decisions.extend(favored);
    }
    let explain_as = a.explain.or_else(|| {
        if a.git {
            gitconfig::explain_from_git()
        } else {
            None
        }
    });
    explain(&outcome, explain_as, &path);
    if a.git {
        crate::explain::record_merge(&path, &outcome);
        if let Method::LineFallback(why) = &outcome.method {
            crate::explain::record_fallback(&path, why);
        }
    }
    if !a.quiet {
        report_conflicts(&outcome, &path);
        note_broken_inputs(a, &outcome, &path);
        if a.git && outcome.is_clean() && outcome.method == Method::Structural {
            report_clean_merge(a, &outcome, &path);
        }
    }
    let (text, left) = favored(
        a,
        (outcome.text, outcome.conflict_count),
        &path,
        &markers,
        true,
    );
    write_result(a, &ending.apply(text))?;
    Ok(if left == 0 { 0 } else { 1 })
}

/// Only a result the structural merge did not validate can carry an input's errors
/// (read before `--git` writes over ours).
fn note_broken_inputs(a: &MergeArgs, outcome: &MergeOutcome, path: &str) {
    if outcome.method == Method::Structural {
        return;
    }
    let read = |p: &std::path::Path| io::read(p).unwrap_or_default();
    let (b, o, t) = (read(&a.base), read(&a.ours), read(&a.theirs));
    let sides = [("base", &b[..]), ("ours", &o[..]), ("theirs", &t[..])];
    for (side, errors) in gdscene::check::input_errors(&sides) {
        if let Some(first) = errors.first() {
            stderr_line!("{}: note: {side} was already broken before the merge ({} error(s), the first at its line {}: {}); the merge does not repair that", visible(path), errors.len(), first.line, visible_lines(&first.message));
        }
    }
}
