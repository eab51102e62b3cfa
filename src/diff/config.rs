//! `diff` of ConfigFile-format files (`project.godot`, `*.import`, ...): key-level changes
//! rendered in the asked format, or git's line diff with a note when a side does not
//! parse in time. The diffing itself is `gdscene::config::diff`'s.

use super::args::{DiffArgs, DiffFormat};
use crate::git::paths::kind_of;
use crate::io::{self, deadline};
use gdscene::config::diff::ConfigChange;
use gdscene::config::Document;
use gdscene::render::escape::{visible, visible_lines};
use std::path::Path;

/// Whether `diff OLD NEW` (or git's external diff, by its path) is of ConfigFiles.
pub fn is_config_diff(a: &DiffArgs) -> bool {
    if a.git_external {
        return a.files.first().is_some_and(|p| kind_of(p).is_some());
    }
    a.files.len() == 2 && a.files.iter().any(|f| kind_of(f).is_some())
}

/// `diff` of ConfigFiles: key-level changes; 0 no change, 1 changes (git's external
/// diff: always 0), 2 error. A side that does not parse gets the line diff note.
/// `header` (the file's header line) goes first when anything is printed.
pub fn run_diff(a: &DiffArgs, header: Option<&str>) -> anyhow::Result<i32> {
    let header = header.unwrap_or("");
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
        Ok::<_, String>(gdscene::config::diff::diff_config(o.as_ref(), n.as_ref()))
    }) {
        Some(Ok(changes)) => changes,
        Some(Err(e)) if !a.git_external => anyhow::bail!("{e}"),
        Some(Err(e)) => {
            io::write_stdout(header.as_bytes())?;
            git_line_diff(old, new, title.as_deref().unwrap_or(""), &e)?;
            return Ok(0);
        }
        None => {
            let why = deadline::reason(secs);
            let shown = visible(&new.display().to_string()).into_owned();
            io::write_stdout(header.as_bytes())?;
            let code = git_line_diff(old, new, title.as_deref().unwrap_or(&shown), &why)?;
            return Ok(if a.git_external { 0 } else { code });
        }
    };
    let out = render_changes(a.format, &changes, title.as_deref(), new)?;
    if !out.is_empty() {
        io::write_stdout(format!("{header}{out}").as_bytes())?;
    }
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
            use gdscene::render::html::{escape, escape_code, page};
            let shown = new.display().to_string();
            let name = title.unwrap_or(&shown);
            let mut body = format!("<h1>Changes in <code>{}</code></h1>\n<ul>\n", escape(name));
            for c in changes {
                body.push_str(&format!("<li>{}</li>\n", escape_code(&c.text)));
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
                let text = match format {
                    DiffFormat::Markdown => c.text.clone(),
                    _ => gdscene::render::text::plain(&c.text),
                };
                out.push_str(&format!("{bullet}{}\n", visible(&text)));
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
