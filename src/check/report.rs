//! What `check` prints: per file its problems (and, with `--godot`, what the engine said),
//! `FILE: ok` for a file without any (not under `-q`), one summary line; or one JSON
//! document. Everything on standard output, every name and message with its hidden
//! characters spelled out (`--json` keeps them exact). The checking is the caller's.

use super::args::CheckArgs;
use super::godot::{Godot, Verdict};
use crate::io::print_line;
use gdscene::check::{Problem, Severity};
use gdscene::render::escape::visible;
use std::path::PathBuf;

/// One file's outcome.
pub struct FileResult {
    /// The name printed.
    pub name: String,
    /// Where it was read (none: a folder that could not be read).
    pub path: Option<PathBuf>,
    /// `valid`, `broken`, `unparsable`, `error` or `roundtrip-mismatch`.
    pub status: &'static str,
    /// Its exit code (the engine's verdict aside).
    pub code: i32,
    /// What `check` found.
    pub problems: Vec<Problem>,
    /// Why it could not be checked (a parse error, located).
    pub error: Option<String>,
    /// What the engine said, with `--godot`.
    pub godot: Option<Verdict>,
}

impl FileResult {
    /// A result from [`super::config::Checked`]'s parts.
    pub fn new(name: String, path: Option<PathBuf>, checked: super::config::Checked) -> Self {
        let (status, code, problems, error) = checked;
        FileResult {
            name,
            path,
            status,
            code,
            problems,
            error,
            godot: None,
        }
    }

    /// The exit code with the engine's verdict: a file it does not load is 1.
    fn exit(&self) -> i32 {
        let engine = self.godot.as_ref().map_or(0, |v| i32::from(!v.loaded));
        self.code.max(engine)
    }

    /// How many problems the summary counts for this file: each finding, an error that
    /// kept it from being checked, the engine not loading it.
    fn count(&self) -> usize {
        let engine = self.godot.as_ref().is_some_and(|v| !v.loaded);
        self.problems.len() + usize::from(self.error.is_some()) + usize::from(engine)
    }
}

fn severity(p: &Problem) -> &'static str {
    if p.severity == Severity::Error {
        "error"
    } else {
        "warning"
    }
}

/// Print the report; the exit code (the highest of any file's).
pub fn print(
    args: &CheckArgs,
    engine: Option<&Godot>,
    results: &[FileResult],
) -> anyhow::Result<i32> {
    let code = results.iter().map(FileResult::exit).max().unwrap_or(0);
    if args.json {
        json(engine, results, code)?;
    } else {
        for r in results {
            text(r, args.quiet)?;
        }
        print_line(&summary(engine, results))?;
    }
    Ok(code)
}

/// One file in text.
fn text(r: &FileResult, quiet: bool) -> anyhow::Result<()> {
    let name = visible(&r.name);
    if let Some(e) = &r.error {
        // Line by line: the caret line goes under the source line, not after a `\n`.
        let lines: Vec<_> = e.split('\n').map(visible).collect();
        print_line(&format!("{name}:{}", lines.join("\n")))?;
    }
    for p in &r.problems {
        print_line(&format!(
            "{name}:{}: {}: {}",
            p.line,
            severity(p),
            visible(&p.message)
        ))?;
    }
    if let Some(v) = &r.godot {
        if !v.loaded {
            print_line(&format!("{name}: godot: does not load"))?;
        } else if !quiet {
            print_line(&format!("{name}: godot: loads"))?;
        }
        if !v.loaded || !quiet {
            for m in &v.messages {
                print_line(&format!("{name}: godot: {}", visible(m)))?;
            }
        }
    }
    let clean = r.error.is_none() && !r.problems.iter().any(|p| p.severity == Severity::Error);
    if clean && !quiet && r.godot.as_ref().is_none_or(|v| v.loaded) {
        print_line(&format!("{name}: ok"))?;
    }
    Ok(())
}

/// `2,363 files: 2 problems`, and with `--godot` how many the engine loaded.
pub fn summary(engine: Option<&Godot>, results: &[FileResult]) -> String {
    let plural = |n: usize, one: &str, many: &str| {
        format!("{} {}", thousands(n), if n == 1 { one } else { many })
    };
    let problems: usize = results.iter().map(FileResult::count).sum();
    let mut s = format!(
        "{}: {}",
        plural(results.len(), "file", "files"),
        plural(problems, "problem", "problems")
    );
    if let Some(g) = engine {
        let judged: Vec<&Verdict> = results.iter().filter_map(|r| r.godot.as_ref()).collect();
        let loaded = judged.iter().filter(|v| v.loaded).count();
        s.push_str(&format!(
            "; Godot {} loaded {} of {}",
            visible(&g.version),
            thousands(loaded),
            thousands(judged.len())
        ));
    }
    s
}

/// `2363` as `2,363`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The JSON document: per file its status, error and problems (and the engine's verdict).
fn json(engine: Option<&Godot>, results: &[FileResult], code: i32) -> anyhow::Result<()> {
    let files: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let mut f = serde_json::json!({
                "file": r.name,
                "status": r.status,
                "error": r.error,
                "problems": r.problems.iter().map(|p| serde_json::json!({
                    "severity": severity(p),
                    "line": p.line,
                    "message": p.message,
                })).collect::<Vec<_>>(),
            });
            if let Some(v) = &r.godot {
                f["godot"] = serde_json::json!({ "loaded": v.loaded, "messages": v.messages });
            }
            f
        })
        .collect();
    let mut doc = serde_json::json!({ "schema": "tscn-merge/check", "version": 1, "files": files, "exit": code });
    if let Some(g) = engine {
        doc["godot"] = serde_json::json!({
            "binary": g.binary.display().to_string(),
            "version": g.version,
        });
    }
    print_line(&serde_json::to_string_pretty(&doc)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_group_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(2363), "2,363");
        assert_eq!(thousands(1234567), "1,234,567");
        let r = |problems: usize| FileResult {
            name: "a.tscn".into(),
            path: None,
            status: "valid",
            code: 0,
            problems: (0..problems)
                .map(|i| Problem {
                    severity: Severity::Error,
                    line: i,
                    message: "x".into(),
                })
                .collect(),
            error: None,
            godot: None,
        };
        assert_eq!(summary(None, &[r(1)]), "1 file: 1 problem");
        assert_eq!(summary(None, &[r(0), r(2)]), "2 files: 2 problems");
    }
}
