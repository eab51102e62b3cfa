//! The command line for ConfigFile-format files (`project.godot`, `export_presets.cfg`,
//! `override.cfg`, `plugin.cfg`, `*.import`, `*.uid`): `merge`, `check` and `diff` route
//! here by file name (git's `%P`, else the file's own name). Reading, writing and
//! reporting only; the deciding is `tscn_merge::config`'s.

use super::deadline;
use super::gitconfig;
use super::io::{self, stderr_line};
use super::{DiffArgs, DiffFormat, ExplainFormat, FavorArg, MergeArgs};
use std::path::Path;
use tscn_merge::config::decision::ConfigDecision;
use tscn_merge::config::diff::ConfigChange;
use tscn_merge::config::merge::{line_fallback, merge_config, ConfigMerge, ConfigMethod};
use tscn_merge::config::{ConfigKind, Document};
use tscn_merge::linemerge::MarkerOptions;
use tscn_merge::render::escape::{visible, visible_lines};

/// The kind of a path given on the command line: by its name, or (files named like
/// `ours.godot` in a test folder) by extension.
fn kind_of(path: &Path) -> Option<ConfigKind> {
    let name = path.to_string_lossy();
    ConfigKind::of_path(&name).or_else(|| match path.extension()?.to_str()? {
        "godot" => Some(ConfigKind::Project),
        "cfg" => Some(ConfigKind::Override),
        _ => None,
    })
}

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

/// Whether `check` should read `path` as a ConfigFile (by name, or `*.godot`/`*.cfg`).
pub fn is_config_file(path: &Path) -> bool {
    kind_of(path).is_some()
}

/// Whether `diff OLD NEW` (or git's external diff, by its path) is of ConfigFiles.
pub fn is_config_diff(a: &DiffArgs) -> bool {
    if a.git_external {
        return a.files.first().is_some_and(|p| kind_of(p).is_some());
    }
    a.files.len() == 2 && a.files.iter().any(|f| kind_of(f).is_some())
}

/// `merge` of a ConfigFile: 0 merged, 1 conflicts left, 2 error (nothing written).
pub fn run_merge(a: &MergeArgs) -> anyhow::Result<i32> {
    let (base, ours, theirs) = (io::read(&a.base)?, io::read(&a.ours)?, io::read(&a.theirs)?);
    let path = a
        .path_text()
        .unwrap_or_else(|| a.ours.display().to_string());
    // With --favor, labels no input holds: only the blocks the merge writes are resolved.
    let markers = super::merge::favor_markers(a, &[&base, &ours, &theirs]);
    let m = merge_bounded(a, &base, &ours, &theirs, &markers);
    let explain = a
        .explain
        .or_else(|| a.git.then(gitconfig::explain_from_git).flatten());
    explain_merge(&m, explain, &path);
    if !a.quiet {
        report(&m, &path, a.git);
    }
    let mut text = m.text;
    let mut left = m.conflict_count;
    if let (Some(side), true) = (a.favor.or_else(gitconfig::favor_from_env), left > 0) {
        let name = if side == FavorArg::Ours {
            "ours"
        } else {
            "theirs"
        };
        if !a.quiet {
            stderr_line!("{path}: {left} conflict(s) resolved in favour of {name} (--favor)");
        }
        text = gitconfig::resolve_own_markers(&text, &markers, side).0;
        left = 0;
    }
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
    let kind = merge_kind(a);
    let owned = (
        base.to_vec(),
        ours.to_vec(),
        theirs.to_vec(),
        markers.clone(),
    );
    let done = deadline::within(a.timeout, move || {
        let (b, o, t, m) = owned;
        merge_config(kind, &b, &o, &t, &m)
    });
    done.unwrap_or_else(|| {
        let why = format!(
            "the structural merge took longer than {} s (--timeout)",
            a.timeout
        );
        line_fallback(base, ours, theirs, markers, why)
    })
}

fn explain_merge(m: &ConfigMerge, format: Option<ExplainFormat>, path: &str) {
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

fn report(m: &ConfigMerge, path: &str, git: bool) {
    // Keys and values are the repository's: shown, never obeyed by the terminal.
    let path = &*visible(path);
    let show = |v: &Option<String>| {
        v.as_deref()
            .map(|s| {
                let s = tscn_merge::merge::shorten(
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
            "tscn-merge: {path}: merged by section and key; {} automatic decision(s); details: tscn-merge merge --explain",
            m.decisions.len()
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
    let repo = super::git::open_repo(Path::new(".")).ok()?;
    let root = repo.workdir()?;
    let found = super::uid_refs::scenes_referring_to(root, uid);
    super::uid_refs::note(&found, uid)
}

/// What `check` found in one ConfigFile's bytes: (status, exit code, problems, error).
pub type Checked = (
    &'static str,
    i32,
    Vec<tscn_merge::check::Problem>,
    Option<String>,
);

/// `check` of one ConfigFile's bytes: valid 0, broken 1, unreadable or not parsable 2,
/// 3 (`--roundtrip`) printing does not give the bytes back.
pub fn check_bytes(bytes: Vec<u8>, roundtrip: bool) -> Checked {
    match String::from_utf8(bytes) {
        Err(_) => (
            "error",
            2,
            Vec::new(),
            Some("1:1: expected UTF-8 text".to_string()),
        ),
        Ok(t) => check_text(&t, roundtrip),
    }
}

fn check_text(t: &str, roundtrip: bool) -> Checked {
    match tscn_merge::config::check::check_config(t) {
        Err(e) => ("error", 2, Vec::new(), Some(e.to_string())),
        Ok(p) if !p.is_empty() => ("broken", 1, p, None),
        Ok(p) if roundtrip && Document::parse(t).map(|d| d.print()).ok().as_deref() != Some(t) => {
            ("roundtrip-mismatch", 3, p, Some("printing the parsed file does not reproduce its bytes (a tscn-merge bug: please report it)".into()))
        }
        Ok(p) => ("valid", 0, p, None),
    }
}

/// `diff` of ConfigFiles: key-level changes; 0 no change, 1 changes (git's external
/// diff: always 0), 2 error. A side that does not parse gets the line diff note.
pub fn run_diff(a: &DiffArgs) -> anyhow::Result<i32> {
    let (old, new, title) = if a.git_external {
        anyhow::ensure!(
            a.files.len() >= 7,
            "--git-external expects git's seven arguments, got {}",
            a.files.len()
        );
        (
            &a.files[1],
            &a.files[4],
            // A newline in a file name would forge lines of the output.
            Some(visible(&a.files[0].display().to_string()).into_owned()),
        )
    } else {
        (&a.files[0], &a.files[1], None)
    };
    let read = |p: &Path| -> anyhow::Result<Option<Vec<u8>>> {
        if p == Path::new("/dev/null") {
            return Ok(None);
        }
        io::read(p).map(Some)
    };
    let (old_bytes, new_bytes) = (read(old)?, read(new)?);
    let names = (old.display().to_string(), new.display().to_string());
    let secs = deadline::limit(a.timeout);
    let changes = match deadline::within(secs, move || {
        let o = parse_side(&names.0, old_bytes)?;
        let n = parse_side(&names.1, new_bytes)?;
        Ok::<_, String>(tscn_merge::config::diff::diff_config(
            o.as_ref(),
            n.as_ref(),
        ))
    }) {
        Some(Ok(changes)) => changes,
        Some(Err(e)) if !a.git_external => anyhow::bail!("{e}"),
        Some(Err(e)) => {
            git_line_diff(old, new, title.as_deref().unwrap_or(""), &e)?;
            return Ok(0);
        }
        None => {
            let why = deadline::reason(secs);
            let shown = visible(&new.display().to_string()).into_owned();
            let code = git_line_diff(old, new, title.as_deref().unwrap_or(&shown), &why)?;
            return Ok(if a.git_external { 0 } else { code });
        }
    };
    let out = render_changes(a.format, &changes, title.as_deref(), new)?;
    io::write_stdout(out.as_bytes())?;
    Ok(if changes.is_empty() || a.git_external {
        0
    } else {
        1
    })
}

/// The config diff in the asked format, after git's header line when `title` is given.
fn render_changes(
    format: DiffFormat,
    changes: &[ConfigChange],
    title: Option<&str>,
    new: &Path,
) -> anyhow::Result<String> {
    let mut out = String::new();
    if let Some(t) = title {
        out.push_str(&format!("diff --tscn-merge a/{t} b/{t}\n"));
    }
    match format {
        DiffFormat::Json => {
            let doc = serde_json::json!({
                "schema": "tscn-merge/config-diff", "version": 1,
                "changes": changes.iter().map(|c| serde_json::json!({
                    "section": c.section, "key": c.key, "text": c.text,
                })).collect::<Vec<_>>(),
            });
            out.push_str(&serde_json::to_string_pretty(&doc)?);
            out.push('\n');
        }
        DiffFormat::Html => {
            use tscn_merge::render::html::{escape, page};
            let shown = new.display().to_string();
            let name = title.unwrap_or(&shown);
            let mut body = format!("<h1>Changes in <code>{}</code></h1>\n<ul>\n", escape(name));
            for c in changes {
                body.push_str(&format!("<li>{}</li>\n", escape(&c.text)));
            }
            body.push_str("</ul>\n");
            out.push_str(&page(&format!("tscn-merge diff: {name}"), &body));
        }
        DiffFormat::Markdown | DiffFormat::Text => {
            let bullet = if format == DiffFormat::Markdown {
                "- "
            } else {
                ""
            };
            for c in changes {
                out.push_str(&format!("{bullet}{}\n", visible(&c.text)));
            }
        }
    }
    Ok(out)
}

/// One side of a config diff as a document (`None`: the file is absent, `/dev/null`).
fn parse_side(name: &str, bytes: Option<Vec<u8>>) -> Result<Option<Document>, String> {
    let Some(bytes) = bytes else { return Ok(None) };
    let text = String::from_utf8(bytes).map_err(|_| format!("{name}: 1:1: expected UTF-8 text"))?;
    Document::parse(&text)
        .map(Some)
        .map_err(|e| format!("{name}:{e}"))
}

/// Under git, a side that does not parse gets a line diff after a note (`git diff` must
/// not break on a broken file); so does a diff past its time limit. 1 when the lines
/// differ (the caller under git exits 0 regardless).
fn git_line_diff(old: &Path, new: &Path, path: &str, why: &str) -> anyhow::Result<i32> {
    let read = |p: &Path| -> anyhow::Result<String> {
        if p == Path::new("/dev/null") {
            return Ok(String::new());
        }
        Ok(String::from_utf8_lossy(&io::read(p)?).into_owned())
    };
    let (a, b) = (read(old)?, read(new)?);
    let body = similar::TextDiff::from_lines(&a, &b)
        .unified_diff()
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    let why = visible_lines(why);
    let out = format!("diff --tscn-merge a/{path} b/{path}\nnote: semantic diff unavailable ({why}); line diff follows\n{body}");
    io::write_stdout(out.as_bytes())?;
    Ok(if a == b { 0 } else { 1 })
}
