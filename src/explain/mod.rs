//! What the merge driver leaves behind under `.git/tscn-merge/` once git has deleted
//! the merge's inputs: `merges`, the decisions of the last merges (bounded in count and
//! bytes), which `tscn-merge explain [PATH]` prints, and `fallbacks`, one line per merge
//! that fell back to git's line merge (also written by the driver's shell command when
//! the binary is missing), which `tscn-merge doctor` shows. Writing never fails a merge:
//! a record that cannot be written is skipped. The merge itself is left to
//! [`crate::driver`].

pub mod args;

use crate::io::{self, stderr_line};
use gdscene::config::merge::{ConfigMerge, ConfigMethod};
use gdscene::merge::{MergeOutcome, Method};
use gdscene::render::escape::{visible, visible_lines};
use std::path::{Path, PathBuf};

/// The file of the last merges' decisions, in [`state_dir`].
pub const MERGES_FILE: &str = "merges";
/// The file of fallbacks to the line merge, in [`state_dir`].
pub const FALLBACKS_FILE: &str = "fallbacks";
/// Most merges kept in [`MERGES_FILE`].
const MAX_MERGES: usize = 20;
/// Most bytes kept in [`MERGES_FILE`] (older merges go first).
const MAX_BYTES: usize = 64 * 1024;
/// Most lines kept in [`FALLBACKS_FILE`].
const MAX_FALLBACKS: usize = 100;
/// The first line of each merge's entry: `=== PATH`.
const ENTRY: &str = "=== ";

/// `.git/tscn-merge` of the repository git runs in from `dir` (the current directory
/// when `None`; git runs a merge driver at the work tree's top). `None` outside one.
pub fn state_dir(dir: Option<&Path>) -> Option<PathBuf> {
    let mut cmd = std::process::Command::new("git");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd
        .args(["rev-parse", "--path-format=absolute", "--git-dir"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let git_dir = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(git_dir.trim_end_matches(['\n', '\r'])).join("tscn-merge"))
}

/// Now as `2026-12-01T22:06:21Z` (UTC), from the system clock.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc(secs)
}

/// `secs` after the epoch as an ISO 8601 UTC time (days to a civil date, after Howard
/// Hinnant's algorithm).
fn utc(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (rem / 3600, rem / 60 % 60, rem % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
}

/// The entry of one merge: `=== PATH`, a line of what was done (`method`, the number of
/// conflicts left), one line per decision.
fn entry(path: &str, method: &str, conflicts: usize, decisions: &[String]) -> String {
    let mut text = format!(
        "{ENTRY}{}\n{} {method}, {conflicts} conflict(s)\n",
        path.replace('\n', "\\n"),
        now_utc(),
    );
    for d in decisions {
        text.push_str(&format!("  {}\n", d.replace('\n', "\\n")));
    }
    text
}

/// The entries of a [`MERGES_FILE`], oldest first.
fn entries(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        match out.last_mut() {
            Some(last) if !line.starts_with(ENTRY) => last.push_str(line),
            _ => out.push(line.to_string()),
        }
    }
    out
}

/// Keep what the merge of the scene `path` decided in [`MERGES_FILE`].
pub fn record_merge(path: &str, outcome: &MergeOutcome) {
    let method = match &outcome.method {
        Method::Trivial => "one side unchanged, the other taken".to_string(),
        Method::Structural => "structural merge".to_string(),
        Method::LineFallback(why) => format!("git's line merge ({why})"),
    };
    let decisions: Vec<String> = outcome.decisions.iter().map(|d| d.to_string()).collect();
    record(&entry(path, &method, outcome.conflict_count, &decisions));
}

/// Keep what the merge of the ConfigFile `path` (`project.godot`, an `.import`, ...)
/// decided in [`MERGES_FILE`], as a scene's.
pub fn record_config_merge(path: &str, m: &ConfigMerge) {
    let method = match &m.method {
        ConfigMethod::Trivial => "one side unchanged, the other taken".to_string(),
        ConfigMethod::Structural => "merged by section and key".to_string(),
        ConfigMethod::LineFallback(why) => format!("git's line merge ({why})"),
    };
    let decisions: Vec<String> = m.decisions.iter().map(|d| d.to_string()).collect();
    record(&entry(path, &method, m.conflict_count, &decisions));
}

/// Add one entry to [`MERGES_FILE`], the oldest merges dropped beyond [`MAX_MERGES`] or
/// [`MAX_BYTES`].
fn record(entry: &str) {
    let Some(dir) = state_dir(None) else { return };
    let file = dir.join(MERGES_FILE);
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    let mut all = entries(&old);
    all.push(entry.to_string());
    let mut start = all.len().saturating_sub(MAX_MERGES);
    while start + 1 < all.len() && all[start..].iter().map(String::len).sum::<usize>() > MAX_BYTES {
        start += 1;
    }
    let mut text = all[start..].concat();
    text.truncate(floor_char_boundary(&text, MAX_BYTES));
    let _ = std::fs::create_dir_all(&dir).map(|()| io::write_atomic(&file, text.as_bytes()));
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    (0..=at.min(s.len()))
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

/// Say on stderr that `path` fell back to git's line merge and why, and add it to
/// [`FALLBACKS_FILE`] (the last [`MAX_FALLBACKS`] lines kept).
pub fn record_fallback(path: &str, why: &str) {
    stderr_line!(
        "tscn-merge: {}: git's line merge was used: {} (see tscn-merge doctor)",
        visible(path),
        visible_lines(why)
    );
    let Some(dir) = state_dir(None) else { return };
    let file = dir.join(FALLBACKS_FILE);
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    let mut lines: Vec<&str> = old.lines().collect();
    let line = format!(
        "{} {}: {}",
        now_utc(),
        path.replace('\n', "\\n"),
        why.replace('\n', "\\n")
    );
    lines.push(&line);
    let keep = &lines[lines.len().saturating_sub(MAX_FALLBACKS)..];
    let text = format!("{}\n", keep.join("\n"));
    let _ = std::fs::create_dir_all(&dir).map(|()| io::write_atomic(&file, text.as_bytes()));
}

/// The last `n` fallbacks recorded in the repository around `dir`, each made safe to
/// print ([`visible`]: the file names and reasons are the repository's, and the driver's
/// shell command writes `%P` as git gave it).
pub fn recent_fallbacks(dir: &Path, n: usize) -> Vec<String> {
    let Some(state) = state_dir(Some(dir)) else {
        return Vec::new();
    };
    let bytes = std::fs::read(state.join(FALLBACKS_FILE)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<String> = text.lines().map(|l| visible(l).into_owned()).collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// Whether an entry is about `path` (as git names it, from the work tree's top, or a
/// path ending in it).
fn is_about(entry: &str, path: &str) -> bool {
    let first = entry.lines().next().unwrap_or_default();
    let named = first.strip_prefix(ENTRY).unwrap_or_default();
    let path = path.trim_start_matches("./");
    named == path || named.ends_with(&format!("/{path}")) || path.ends_with(&format!("/{named}"))
}

/// `tscn-merge explain [PATH]`: the decisions of the last merges the driver made (of
/// PATH only, when given), oldest first. Exit 0 when something was shown, 1 when
/// nothing is recorded.
pub fn run(path: Option<&str>) -> anyhow::Result<i32> {
    let state = state_dir(None).ok_or_else(|| anyhow::anyhow!("not inside a git repository"))?;
    let bytes = std::fs::read(state.join(MERGES_FILE)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let shown: Vec<String> = entries(&text)
        .into_iter()
        .filter(|e| path.is_none_or(|p| is_about(e, p)))
        .collect();
    if shown.is_empty() {
        let what = path
            .map(|p| format!(" of {}", visible(p)))
            .unwrap_or_default();
        stderr_line!(
            "no merge{what} recorded: the merge driver keeps the last {MAX_MERGES} merges' decisions in {}",
            visible(&state.join(MERGES_FILE).display().to_string())
        );
        return Ok(1);
    }
    // Names and values are the repository's: shown, never obeyed by the terminal.
    io::write_stdout(visible_lines(&shown.concat()).as_bytes())?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_civil_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_796_162_781), "2026-12-01T22:06:21Z");
    }

    #[test]
    fn entries_split_on_their_header_and_match_a_path() {
        let text = "=== a.tscn\nx\n  d\n=== dir/b.tscn\ny\n";
        let e = entries(text);
        assert_eq!(e, ["=== a.tscn\nx\n  d\n", "=== dir/b.tscn\ny\n"]);
        assert!(is_about(&e[1], "b.tscn") && is_about(&e[1], "./dir/b.tscn"));
        assert!(!is_about(&e[0], "b.tscn"));
        assert_eq!(floor_char_boundary("aé", 2), 1);
    }
}
