//! `ci driver`: the merge driver `ci merge` configures for its own `git merge` only. It is
//! `merge --git` (the same result, written over git's `%A`), and it also leaves a record
//! of the file in the report folder (how many conflicts git's line merge would leave,
//! what the structural merge decided, the conflicts left with their values) for `ci
//! merge`'s commit message and report. The record comes from a second, in-memory merge of
//! the same inputs, so `cli::merge` stays as it is.

use crate::driver as driver_merge;
use crate::driver::args::MergeArgs;
use anyhow::{Context, Result};
use clap::Args;
use gdscene::config::ConfigKind;
use gdscene::linemerge::{merge_lines, MarkerOptions};
use gdscene::merge::{ConflictReport, Decision, MergeOptions, Method};
use gdscene::syntax::Source;
use std::path::PathBuf;

/// `ci driver` arguments: where records go, then `merge`'s own.
#[derive(Args, Debug)]
pub struct DriverArgs {
    /// Folder the record of this file is written to.
    #[arg(long)]
    pub report_dir: PathBuf,
    #[command(flatten)]
    pub merge: MergeArgs,
}

/// What the driver did to one file, as `ci merge` reads it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Repository path (git's `%P`).
    pub path: String,
    /// Conflicts git's line merge leaves in the file.
    pub git_conflicts: usize,
    /// Conflicts the structural merge leaves.
    pub left: usize,
    /// `trivial`, `structural` or `line: WHY`.
    pub method: String,
    /// The conflicts left, one line each (location, property, three values).
    pub conflicts: Vec<String>,
    /// The automatic decisions, as sentences.
    pub decisions: Vec<String>,
}

impl Record {
    /// As JSON.
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path,
            "git_conflicts": self.git_conflicts,
            "left": self.left,
            "method": self.method,
            "conflicts": self.conflicts,
            "decisions": self.decisions,
        })
    }

    /// From the JSON [`Record::to_json`] wrote; `None` for anything else.
    pub fn from_json(v: &serde_json::Value) -> Option<Record> {
        let strings = |k: &str| -> Option<Vec<String>> {
            v.get(k)?
                .as_array()?
                .iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect()
        };
        Some(Record {
            path: v.get("path")?.as_str()?.to_string(),
            git_conflicts: usize::try_from(v.get("git_conflicts")?.as_u64()?).ok()?,
            left: usize::try_from(v.get("left")?.as_u64()?).ok()?,
            method: v.get("method")?.as_str()?.to_string(),
            conflicts: strings("conflicts")?,
            decisions: strings("decisions")?,
        })
    }
}

/// Run the driver: the record first (the inputs are read before `merge --git` writes
/// over ours), then the merge itself, whose exit code git sees.
pub fn run(a: &DriverArgs) -> Result<i32> {
    let record = record(&a.merge);
    if let Ok(r) = &record {
        let _ = write_record(a, r);
    }
    driver_merge::run(&a.merge)
}

/// A merge as the driver makes it, scene or ConfigFile, in the terms `ci` reports.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The merged text (markers where conflicts are left).
    pub text: Vec<u8>,
    /// Conflicts left in `text`.
    pub left: usize,
    /// The conflicts left, one report each (none after a line fallback of a ConfigFile).
    pub conflicts: Vec<ConflictReport>,
    /// Why the line merge was used, when it was.
    pub fell_back: Option<String>,
    /// `trivial`, `structural` or `line: WHY`.
    pub method: String,
    /// The automatic decisions, as sentences (the fallback itself left out).
    pub decisions: Vec<String>,
}

impl Merged {
    /// A scene merge's outcome.
    pub fn of_scene(outcome: gdscene::merge::MergeOutcome) -> Merged {
        let fell_back = match &outcome.method {
            Method::LineFallback(why) => Some(why.clone()),
            _ => None,
        };
        Merged {
            method: match &outcome.method {
                Method::Trivial => "trivial".to_string(),
                Method::Structural => "structural".to_string(),
                Method::LineFallback(why) => format!("line: {why}"),
            },
            left: outcome.conflict_count,
            decisions: outcome
                .decisions
                .iter()
                .filter(|d| !matches!(d, Decision::FellBack { .. }))
                .map(ToString::to_string)
                .collect(),
            conflicts: outcome.conflicts,
            text: outcome.text,
            fell_back,
        }
    }
}

/// The driver's merge of the ConfigFile `path` (`project.godot`, `*.import`, ...), by
/// section and key within `secs`, with git's default markers.
pub fn config_merge(path: &str, (b, o, t): (&[u8], &[u8], &[u8]), secs: f64) -> Merged {
    use gdscene::config::merge::ConfigMethod;
    let kind = ConfigKind::of_path(path);
    let m = driver_merge::config::merge_within(kind, (b, o, t), &MarkerOptions::default(), secs);
    let one_line = |v: &Option<String>| v.as_deref().map(|s| gdscene::merge::shorten(s, 60));
    let conflicts = m
        .conflicts
        .iter()
        .map(|c| ConflictReport {
            location: if c.section.is_empty() {
                "the lines before the first section".into()
            } else {
                format!("[{}]", c.section)
            },
            property: Some(c.key.clone().unwrap_or_else(|| "(whole section)".into())),
            base: one_line(&c.base),
            ours: one_line(&c.ours),
            theirs: one_line(&c.theirs),
        })
        .collect();
    let (method, fell_back) = match &m.method {
        ConfigMethod::Trivial => ("trivial".to_string(), None),
        ConfigMethod::Structural => ("structural".to_string(), None),
        ConfigMethod::LineFallback(why) => (format!("line: {why}"), Some(why.clone())),
    };
    Merged {
        left: m.conflict_count,
        decisions: m
            .decisions
            .iter()
            .filter(|d| d.kind != "fell_back")
            .map(ToString::to_string)
            .collect(),
        conflicts,
        text: m.text,
        fell_back,
        method,
    }
}

/// The record of one file's merge: the driver's own merge of its kind.
fn record(a: &MergeArgs) -> Result<Record> {
    let read = |p: &std::path::Path| crate::io::read(p);
    let (base, ours, theirs) = (read(&a.base)?, read(&a.ours)?, read(&a.theirs)?);
    let git_conflicts = merge_lines(&base, &ours, &theirs, &MarkerOptions::default()).conflicts;
    let path = a
        .path_text()
        .unwrap_or_else(|| a.ours.display().to_string());
    let merged = if driver_merge::config::is_config_merge(a) {
        config_merge(&path, (&base, &ours, &theirs), a.timeout)
    } else {
        let base = driver_merge::empty_base_stand_in(&base, &ours).unwrap_or(base);
        Merged::of_scene(driver_merge::merge_within(
            Source::new(base),
            Source::new(ours),
            Source::new(theirs),
            MergeOptions::default(),
            a.timeout,
        ))
    };
    Ok(Record {
        path,
        git_conflicts,
        left: merged.left,
        method: merged.method,
        conflicts: merged
            .conflicts
            .iter()
            .map(crate::driver::conflict_line)
            .collect(),
        decisions: merged.decisions,
    })
}

/// Write `r` to a new file in the report folder.
fn write_record(a: &DriverArgs, r: &Record) -> Result<()> {
    use std::io::Write;
    let mut file = tempfile::Builder::new()
        .prefix("file-")
        .suffix(".json")
        .tempfile_in(&a.report_dir)
        .context("creating a record")?;
    file.write_all(serde_json::to_string(&r.to_json())?.as_bytes())?;
    file.keep().context("keeping a record")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_json() {
        let r = Record {
            path: "scenes/a b.tscn".into(),
            git_conflicts: 2,
            left: 1,
            method: "structural".into(),
            conflicts: vec!["node \"Player\" speed: base 1 | ours 2 | theirs 3".into()],
            decisions: vec!["renamed an id".into()],
        };
        assert_eq!(Record::from_json(&r.to_json()), Some(r));
        assert_eq!(Record::from_json(&serde_json::json!({"path": 1})), None);
    }
}
