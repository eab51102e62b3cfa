//! Merge three versions of a Godot scene with `gdscene`'s public API and print what a
//! reviewer needs: the result (to stdout), then each conflict left and each automatic
//! decision (to stderr). An input that cannot be read is an error.
//!
//!     cargo run -p gdscene --example merge_report -- BASE OURS THEIRS

use gdscene::merge::{merge, MergeOptions, Method};
use std::io::Write;

fn main() -> Result<(), String> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    let [base, ours, theirs] = paths.as_slice() else {
        return Err("usage: merge_report BASE OURS THEIRS".into());
    };
    let read = |p: &String| std::fs::read(p).map_err(|e| format!("{p}: {e}"));
    let outcome = merge(
        &read(base)?,
        &read(ours)?,
        &read(theirs)?,
        &MergeOptions::default(),
    );
    std::io::stdout()
        .write_all(&outcome.text)
        .map_err(|e| e.to_string())?;
    if let Method::LineFallback(why) = &outcome.method {
        eprintln!("line merge: {why}");
    }
    for c in &outcome.conflicts {
        let property = c.property.as_deref().unwrap_or("");
        eprintln!("conflict: {} {property}", c.location);
    }
    for d in &outcome.decisions {
        eprintln!("decided: {d}");
    }
    eprintln!(
        "{} conflict(s), {} decision(s)",
        outcome.conflict_count,
        outcome.decisions.len()
    );
    Ok(())
}
