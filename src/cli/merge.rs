//! `tscn-merge merge`: git's merge-driver conventions. Reads BASE OURS THEIRS, writes
//! the result to OURS (`--git`), to `-o OUT`, or to standard output. Exit 0 clean,
//! 1 conflicts remain, 2 error (nothing written).

use super::{io, ExplainFormat, MergeArgs};
use tscn_merge::linemerge::MarkerOptions;
use tscn_merge::merge::{merge, Decision, MergeOptions, MergeOutcome, Method};

/// Print `--explain` output on stderr.
pub fn explain(outcome: &MergeOutcome, format: Option<ExplainFormat>, path: &str) {
    match format {
        None => {}
        Some(ExplainFormat::Text) => {
            if outcome.decisions.is_empty() {
                eprintln!("{path}: no automatic decisions were needed");
            }
            for d in &outcome.decisions {
                eprintln!("{path}: {d}");
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
                "decisions": outcome.decisions.iter().map(Decision::to_json).collect::<Vec<_>>(),
            });
            eprintln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
    }
}

/// Print the short per-conflict report on stderr.
pub fn report_conflicts(outcome: &MergeOutcome, path: &str) {
    // Not a conflict, but a person should know: order has no marker.
    for d in &outcome.decisions {
        if matches!(d, Decision::OrderConflictOursKept) {
            eprintln!("{path}: note: {d}");
        }
    }
    if outcome.conflict_count == 0 {
        return;
    }
    if let Method::LineFallback(reason) = &outcome.method {
        eprintln!(
            "{path}: {} conflict(s) from the line merge ({reason})",
            outcome.conflict_count
        );
        for c in &outcome.conflicts {
            if let Some(why) = &c.theirs {
                eprintln!("  {}: {why}: review it before `git add`", c.location);
            }
        }
        return;
    }
    eprintln!("{path}: {} conflict(s)", outcome.conflict_count);
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".into());
    for c in &outcome.conflicts {
        let what = c
            .property
            .as_deref()
            .map(|p| format!(" {p}"))
            .unwrap_or_default();
        eprintln!(
            "  {}{what}: base {} | ours {} | theirs {}",
            c.location,
            show(&c.base),
            show(&c.ours),
            show(&c.theirs)
        );
    }
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
pub fn merge_within<B: AsRef<[u8]> + Send + Sync + 'static>(
    base: B,
    ours: B,
    theirs: B,
    opts: MergeOptions,
    secs: f64,
) -> MergeOutcome {
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::{Duration, Instant};
    let reason = format!("the structural merge took longer than {secs} s (--timeout)");
    // No time at all: the line merge only (deterministic, unlike a zero wait on a race).
    if secs <= 0.0 || secs.is_nan() {
        return line_merge(base.as_ref(), ours.as_ref(), theirs.as_ref(), &opts, &reason);
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
fn spawn_merge<B: AsRef<[u8]> + Send + Sync + 'static>(
    inputs: &std::sync::Arc<(B, B, B, MergeOptions)>,
    tx: std::sync::mpsc::Sender<Finished>,
    fallback_reason: Option<String>,
) {
    let shared = std::sync::Arc::clone(inputs);
    std::thread::spawn(move || {
        let (b, o, t, opts) = &*shared;
        let (b, o, t) = (b.as_ref(), o.as_ref(), t.as_ref());
        let _ = tx.send(match &fallback_reason {
            None => Finished::Structural(merge(b, o, t, opts)),
            Some(reason) => Finished::Line(line_merge(b, o, t, opts, reason)),
        });
    });
}

/// The line merge, as the outcome of a fallback for `reason`.
fn line_merge(b: &[u8], o: &[u8], t: &[u8], opts: &MergeOptions, reason: &str) -> MergeOutcome {
    let lm = tscn_merge::linemerge::merge_lines(b, o, t, &opts.markers);
    MergeOutcome {
        text: lm.text,
        conflict_count: lm.conflicts,
        conflicts: Vec::new(),
        decisions: vec![Decision::FellBack {
            reason: reason.to_string(),
        }],
        method: Method::LineFallback(reason.to_string()),
    }
}

/// Run the merge command. With `--git`, a failure or panic once the arguments are
/// parsed still leaves git's line merge (markers included) in OURS: git takes OURS as
/// the result whatever the exit status, and ours unchanged would drop theirs silently.
pub fn run(a: &MergeArgs) -> anyhow::Result<i32> {
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

/// The `--git` last resort: `git merge-file`'s result written over OURS.
fn line_merge_into_ours(a: &MergeArgs, why: &str) -> anyhow::Result<i32> {
    use std::io::Write;
    let (base, ours, theirs) = (io::read(&a.base)?, io::read(&a.ours)?, io::read(&a.theirs)?);
    let lm = tscn_merge::linemerge::merge_lines(&base, &ours, &theirs, &marker_options(a));
    let path = a
        .path
        .clone()
        .unwrap_or_else(|| a.ours.display().to_string());
    // Not eprintln!: a closed stderr (one way to get here) must not stop the write.
    let _ = writeln!(
        std::io::stderr(),
        "{path}: {why}; git's line merge was written instead"
    );
    io::write_over(&a.ours, &lm.text)?;
    Ok(if lm.conflicts == 0 { 0 } else { 1 })
}

/// The conflict labels and marker size from the arguments.
fn marker_options(a: &MergeArgs) -> MarkerOptions {
    MarkerOptions {
        marker_size: a.marker_size,
        ours: a.ours_label.clone().unwrap_or_else(|| "ours".into()),
        base: a.base_label.clone().unwrap_or_else(|| "base".into()),
        theirs: a.theirs_label.clone().unwrap_or_else(|| "theirs".into()),
        ..MarkerOptions::default()
    }
}

fn run_structural(a: &MergeArgs) -> anyhow::Result<i32> {
    let base = io::read_big(&a.base)?;
    let ours = io::read_big(&a.ours)?;
    let theirs = io::read_big(&a.theirs)?;
    let opts = MergeOptions {
        markers: marker_options(a),
        // This process ends once the result is written.
        exit_after: true,
        no_layout_policy: a.no_layout_policy,
    };
    let outcome = merge_within(base, ours, theirs, opts, a.timeout);
    let path = a
        .path
        .clone()
        .unwrap_or_else(|| a.ours.display().to_string());
    explain(&outcome, a.explain, &path);
    if !a.quiet {
        report_conflicts(&outcome, &path);
    }
    // Only a result the structural merge did not validate can carry an input's errors
    // (read before `--git` writes over ours).
    if !a.quiet && outcome.method != Method::Structural {
        let read = |p: &std::path::Path| io::read(p).unwrap_or_default();
        let (b, o, t) = (read(&a.base), read(&a.ours), read(&a.theirs));
        let sides = [("base", &b[..]), ("ours", &o[..]), ("theirs", &t[..])];
        for (side, errors) in tscn_merge::check::input_errors(&sides) {
            if let Some(first) = errors.first() {
                eprintln!("{path}: note: {side} was already broken before the merge ({} error(s), the first at its line {}: {}); the merge does not repair that", errors.len(), first.line, first.message);
            }
        }
    }
    if a.git {
        io::write_atomic(&a.ours, &outcome.text)?;
    } else if let Some(out) = &a.output {
        io::write_atomic(out, &outcome.text)?;
    } else {
        io::write_stdout(&outcome.text)?;
    }
    Ok(if outcome.is_clean() { 0 } else { 1 })
}
