//! `gdscene`: Godot's text scenes, resources and project files, read, merged and
//! compared as the engine means them. `.tscn`, `.tres` and `.escn` (Godot 3's `format=2`,
//! Godot 4's `format=3` and `format=4`), and the ConfigFile files beside them
//! (`project.godot`, `export_presets.cfg`, `*.import`, `*.uid`).
//!
//! It is the engine of the `tscn-merge` git merge driver, and a library for any Godot
//! tool: an editor plugin, a linter, a CI bot. It is pure: no files, processes, network
//! or git; bytes in, bytes and reports out. Every parse is lossless (printing a parsed
//! file gives its bytes back) and no input makes it panic.
//!
//! # Merge three versions of a scene
//!
//! ```
//! use gdscene::merge::{merge, MergeOptions};
//!
//! let base = br#"[gd_scene format=3]
//!
//! [node name="Player" type="CharacterBody2D"]
//! speed = 100
//! "#;
//! // Ours renames nothing and raises the speed; theirs adds a child node.
//! let ours = br#"[gd_scene format=3]
//!
//! [node name="Player" type="CharacterBody2D"]
//! speed = 120
//! "#;
//! let theirs = br#"[gd_scene format=3]
//!
//! [node name="Player" type="CharacterBody2D"]
//! speed = 100
//!
//! [node name="Sprite" type="Sprite2D" parent="."]
//! "#;
//! let outcome = merge(base, ours, theirs, &MergeOptions::default());
//! assert!(outcome.is_clean());
//! let text = String::from_utf8(outcome.text).unwrap();
//! assert!(text.contains("speed = 120"));
//! assert!(text.contains(r#"[node name="Sprite" type="Sprite2D" parent="."]"#));
//! // Every conflict left is reported (`outcome.conflicts`), every automatic choice too.
//! for decision in &outcome.decisions {
//!     println!("{decision}");
//! }
//! ```
//!
//! # The pipeline
//!
//! Read left to right, one module per stage:
//!
//! - [`syntax`]: the lossless tree, every byte in a section, header field or property;
//! - [`value`]: typed values, decoded on demand by the pest grammar (`grammar/tscn.pest`);
//! - [`model`]: the keyed scene: nodes by `unique_id` or path, resources by id, uid and
//!   path, connections, editables;
//! - [`merge`] (whole scenes, its stages named in its own doc) with [`grain`] (inside
//!   values: tile cells, animation keys, sprite frames, dictionaries) and [`linemerge`]
//!   (git's line merge, the fallback); [`diff`] (what changed, in Godot's words);
//! - [`write`](mod@write) (Godot's own canonical text) and [`render`] (terminal text, Markdown,
//!   JSON and HTML of a diff);
//! - around them: [`check`] (does the engine's loader accept it), [`solve`] (files git
//!   left with markers), [`config`] (the ConfigFile format: parse, merge, diff, check)
//!   and [`textconv`] (a stable projection for `git log -p`).

#![warn(missing_docs)]

pub mod check;
pub mod config;
pub mod diff;
pub mod grain;
pub mod linemerge;
pub mod merge;
pub mod model;
pub mod render;
pub mod smallstr;
pub mod solve;
pub mod syntax;
pub mod textconv;
pub mod value;
pub mod write;

/// Helpers shared by the unit tests.
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::{Path, PathBuf};

    /// `$TSCN_SHARED` when set (and then only it), else `../shared` beside the project
    /// root: where the corpus and the real merges live; `None` when it is not there,
    /// with a `SKIP` line written to the process's stderr (past cargo's capture) so
    /// that a missing folder is seen.
    pub fn shared_dir() -> Option<PathBuf> {
        let beside = || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
        let found = std::env::var_os("TSCN_SHARED")
            .filter(|p| !p.is_empty())
            .map_or_else(beside, PathBuf::from);
        let found = Some(found)
            .filter(|p| p.join("corpus/INDEX.tsv").is_file() || p.join("merges").is_dir());
        if found.is_none() {
            use std::io::Write;
            let thread = std::thread::current();
            let test = thread.name().unwrap_or("a test");
            let why = "the shared test material is not there (../shared beside the clone, or $TSCN_SHARED; README, \"Try it\")";
            let _ = writeln!(std::io::stderr(), "SKIP {test}: {why}");
        }
        found
    }

    /// A fixed pseudo-random sequence (xorshift): `next(n)` is below `n` (0 for `n` of
    /// 0), the same numbers on every run, for the tests that compare a quick path with
    /// a slow one on random input.
    pub fn rng(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        }
    }

    /// Every `step`-th corpus file as (stored name, text); empty without `../shared`.
    pub fn corpus_texts(step: usize) -> Vec<(String, String)> {
        let Some(root) = shared_dir() else {
            return Vec::new();
        };
        let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).unwrap_or_default();
        index
            .lines()
            .skip(1)
            .step_by(step.max(1))
            .filter_map(|row| {
                let stored = row.split('\t').next_back()?;
                let text = std::fs::read_to_string(root.join("corpus").join(stored)).ok()?;
                Some((stored.to_string(), text))
            })
            .collect()
    }
}
