//! The merge driver for ConfigFile-format files (`project.godot`, `export_presets.cfg`,
//! `override.cfg`, `plugin.cfg`, `*.import`, `*.uid`): `merge` routes here by file name
//! (git's `%P`, else the file's own name). Reading, writing and reporting only; the
//! deciding is `gdscene::config`'s, the marker labels [`super::markers`]'.

use super::args::{ExplainFormat, MergeArgs};
use super::gitconfig;
use crate::git::paths::kind_of;
use crate::io::deadline;
use crate::io::{self, stderr_line};
use gdscene::config::decision::ConfigDecision;
use gdscene::config::merge::{line_fallback, merge_config, ConfigMerge, ConfigMethod};
use gdscene::config::ConfigKind;
use gdscene::linemerge::MarkerOptions;
use gdscene::render::escape::{visible, visible_lines};
use std::path::Path;

/// Whether `merge` should use the ConfigFile merge: `--path` (git's `%P`) names one,
/// or, without it, OURS does.
pub fn is_config_merge(a: &MergeArgs) -> bool {
    merge_kind(a).is_some()
}

fn merge_kind(a: &MergeArgs) -> Option<ConfigKind> {
    match &a.path_text() {
        Some(p) => ConfigKind::of_path(p),
        None => kind_of(&a.ours),
    }
}

/// `merge` of a ConfigFile: 0 merged, 1 conflicts left, 2 error (nothing written).
pub fn run_merge(a: &MergeArgs) -> anyhow::Result<i32> {
    let (base, ours, theirs) = (io::read(&a.base)?, io::read(&a.ours)?, io::read(&a.theirs)?);
    let path = a
        .path_text()
        .unwrap_or_else(|| a.ours.display().to_string());
    // With --favor, labels no input holds: only the blocks the merge writes are resolved.
    let markers = super::markers::favor_markers(a, &[&base, &ours, &theirs]);
    let m = merge_bounded(a, &base, &ours, &theirs, &markers);
    let explain = a
        .explain
        .or_else(|| a.git.then(gitconfig::explain_from_git).flatten());
    explain_merge(&m, explain, &path);
    if a.git {
        crate::explain::record_config_merge(&path, &m);
        if let ConfigMethod::LineFallback(why) = &m.method {
            crate::explain::record_fallback(&path, why);
        }
    }
    if !a.quiet {
        report(&m, &path, a.git);
    }
    let (text, left) =
        super::markers::favored(a, (m.text, m.conflict_count), &path, &markers, true);
    if a.git {
        io::write_atomic(&a.ours, &text)?;
    } else if let Some(out) = &a.output {
        io::write_atomic(out, &text)?;
    } else {
        io::write_stdout(&text)?;
    }
    Ok(if left == 0 { 0 } else { 1 })
}

/// `merge_config` within `--timeout`'s seconds, as a scene merge is bounded: past the
/// limit (or with 0) the line merge git would make is the result, and `--explain` says why.
fn merge_bounded(
    a: &MergeArgs,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    markers: &MarkerOptions,
) -> ConfigMerge {
    merge_within(merge_kind(a), (base, ours, theirs), markers, a.timeout)
}

/// `merge_config` of a file of `kind` within `secs` seconds, else (or with 0) the line
/// merge git would make, with the reason. The driver's merge; `ci check` previews with it.
pub fn merge_within(
    kind: Option<ConfigKind>,
    (base, ours, theirs): (&[u8], &[u8], &[u8]),
    markers: &MarkerOptions,
    secs: f64,
) -> ConfigMerge {
    let owned = (
        base.to_vec(),
        ours.to_vec(),
        theirs.to_vec(),
        markers.clone(),
    );
    let done = deadline::within(secs, move || {
        let (b, o, t, m) = owned;
        merge_config(kind, &b, &o, &t, &m)
    });
    done.unwrap_or_else(|| {
        let why = format!("the structural merge took longer than {secs} s (--timeout)");
        line_fallback(base, ours, theirs, markers, why)
    })
}

/// `--explain` of a ConfigFile merge (text or JSON), on stderr.
pub fn explain_merge(m: &ConfigMerge, format: Option<ExplainFormat>, path: &str) {
    match format {
        None => {}
        Some(ExplainFormat::Text) => {
            let path = visible(path);
            if m.decisions.is_empty() {
                stderr_line!("{path}: no automatic decisions were needed");
            }
            for d in &m.decisions {
                stderr_line!("{path}: {}", visible_lines(&d.to_string()));
            }
        }
        Some(ExplainFormat::Json) => {
            let method = match &m.method {
                ConfigMethod::Trivial => "trivial",
                ConfigMethod::Structural => "structural",
                ConfigMethod::LineFallback(_) => "line",
            };
            let doc = serde_json::json!({
                "schema": "tscn-merge/explain",
                "version": 1,
                "path": path,
                "method": method,
                "conflicts": m.conflict_count,
                "conflict_reports": m.conflicts.iter().map(|c| serde_json::json!({
                    "location": if c.section.is_empty() { String::new() } else { format!("[{}]", c.section) },
                    "property": c.key, "base": c.base, "ours": c.ours, "theirs": c.theirs,
                })).collect::<Vec<_>>(),
                "decisions": m.decisions.iter().map(ConfigDecision::to_json).collect::<Vec<_>>(),
            });
            stderr_line!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
    }
}

/// The per-conflict report of a ConfigFile merge on stderr (`git`: the one-line note of a
/// clean merge too).
pub fn report(m: &ConfigMerge, path: &str, git: bool) {
    // Keys and values are the repository's: shown, never obeyed by the terminal.
    let path = &*visible(path);
    let show = |v: &Option<String>| {
        v.as_deref()
            .map(|s| {
                let s = gdscene::merge::shorten(
                    &s.split_whitespace().collect::<Vec<_>>().join(" "),
                    60,
                );
                visible(&s).into_owned()
            })
            .unwrap_or_else(|| "(absent)".into())
    };
    if m.conflict_count > 0 {
        if let ConfigMethod::LineFallback(why) = &m.method {
            stderr_line!(
                "{path}: {} conflict(s) from the line merge ({})",
                m.conflict_count,
                visible_lines(why)
            );
            return;
        }
        stderr_line!("{path}: {} conflict(s)", m.conflict_count);
        for c in &m.conflicts {
            let at = if c.section.is_empty() {
                String::new()
            } else {
                format!("[{}] ", visible(&c.section))
            };
            let key = visible(c.key.as_deref().unwrap_or("(whole section)"));
            stderr_line!(
                "  {at}{key}: base {} | ours {} | theirs {}",
                show(&c.base),
                show(&c.ours),
                show(&c.theirs)
            );
        }
    } else if git && m.method == ConfigMethod::Structural {
        stderr_line!(
            "tscn-merge: {path}: merged by section and key; {} automatic decision(s); details: tscn-merge explain {}",
            m.decisions.len(),
            visible(&crate::install::shell_quote(path))
        );
    }
    for d in m
        .decisions
        .iter()
        .filter(|d| d.kind == "sidecar_uid_kept_ours")
    {
        stderr_line!("{path}: note: {}", visible_lines(&d.to_string()));
        if let Some(refs) = d.dropped.as_deref().and_then(scenes_referring_to) {
            stderr_line!("{path}: note: {}", visible_lines(&refs));
        }
    }
}

/// The note naming the work tree's scenes that refer to `uid` (theirs' uid, not kept),
/// when run in a repository and there are any.
fn scenes_referring_to(uid: &str) -> Option<String> {
    let repo = crate::git::open_repo(Path::new(".")).ok()?;
    let root = repo.workdir()?;
    let found = crate::uid_refs::scenes_referring_to(root, uid);
    crate::uid_refs::note(&found, uid)
}
