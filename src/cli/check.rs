//! `tscn-merge check`: validate files. Exit 0 all valid, 1 one is structurally broken,
//! 2 one cannot be read or parsed, 3 (with `--roundtrip`) printing does not reproduce
//! a file's bytes (a bug of ours). The highest code wins.
//!
//! The text report spells out control, bidi and zero-width characters in file names
//! and messages (a node named `\x1b[2J` must not clear the terminal); `--json` keeps
//! them exact.

use super::io::stderr_line;
use super::CheckArgs;
use tscn_merge::check::{check, check_markers, is_broken, Problem, Severity};
use tscn_merge::model::Scene;
use tscn_merge::render::escape::visible;

/// What happened to one file.
enum Outcome {
    Valid(Vec<Problem>),
    Broken(Vec<Problem>),
    Unreadable(String),
    RoundtripMismatch,
}

fn check_file(bytes: &[u8], roundtrip: bool) -> Outcome {
    let markers = check_markers(bytes);
    let scene = match Scene::parse(bytes) {
        Ok(s) => s,
        Err(e) if !markers.is_empty() => {
            let _ = e;
            return Outcome::Broken(markers);
        }
        Err(e) => return Outcome::Unreadable(e.to_string()),
    };
    if roundtrip && scene.doc.print().as_bytes() != bytes {
        return Outcome::RoundtripMismatch;
    }
    let mut problems = markers;
    problems.extend(check(&scene));
    if is_broken(&problems) {
        Outcome::Broken(problems)
    } else {
        Outcome::Valid(problems)
    }
}

/// One file's text report: problems on stderr, `NAME: ok` on stdout when no error,
/// every name and message with its hidden characters spelled out.
fn print_human(name: &str, error: Option<&str>, problems: &[Problem]) -> anyhow::Result<()> {
    let name = visible(name);
    if let Some(e) = error {
        // Line by line: the caret line goes under the source line, not after a `\n`.
        let lines: Vec<_> = e.split('\n').map(visible).collect();
        stderr_line!("{name}:{}", lines.join("\n"));
    }
    for p in problems {
        let sev = if p.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        stderr_line!("{name}:{}: {sev}: {}", p.line, visible(&p.message));
    }
    if error.is_none() && !problems.iter().any(|p| p.severity == Severity::Error) {
        super::io::print_line(&format!("{name}: ok"))?;
    }
    Ok(())
}

/// Run `check` over every file.
pub fn run(args: &CheckArgs) -> anyhow::Result<i32> {
    if super::config::is_config_check(args) {
        return super::config::run_check(args); // project.godot, *.import, ...: issue 28
    }
    let mut code = 0;
    let mut report = Vec::new();
    for path in &args.files {
        let name = path.display().to_string();
        let outcome = match std::fs::read(path) {
            Ok(b) => check_file(&b, args.roundtrip),
            Err(e) => Outcome::Unreadable(format!("cannot read: {e}")),
        };
        let (status, file_code, problems, error) = match outcome {
            Outcome::Valid(p) => ("valid", 0, p, None),
            Outcome::Broken(p) => ("broken", 1, p, None),
            Outcome::Unreadable(e) => ("error", 2, Vec::new(), Some(e)),
            Outcome::RoundtripMismatch => (
                "roundtrip-mismatch",
                3,
                Vec::new(),
                Some("printing the parsed file does not reproduce its bytes (a tscn-merge bug: please report it)".to_string()),
            ),
        };
        code = code.max(file_code);
        if args.json {
            report.push(serde_json::json!({
                "file": name,
                "status": status,
                "error": error,
                "problems": problems.iter().map(|p| serde_json::json!({
                    "severity": if p.severity == Severity::Error { "error" } else { "warning" },
                    "line": p.line,
                    "message": p.message,
                })).collect::<Vec<_>>(),
            }));
        } else {
            print_human(&name, error.as_deref(), &problems)?;
        }
    }
    if args.json {
        let doc = serde_json::json!({ "schema": "tscn-merge/check", "version": 1, "files": report, "exit": code });
        super::io::print_line(&serde_json::to_string_pretty(&doc)?)?;
    }
    Ok(code)
}
