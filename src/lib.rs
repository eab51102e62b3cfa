//! tscn-merge: structural merge and semantic diff for Godot text scenes and resources.
//!
//! The pipeline reads left to right: [`syntax`] (lossless tree) -> [`value`] (typed
//! values, decoded on demand by the pest grammar) -> [`model`] (keyed scene) ->
//! `merge` / `diff` -> [`write`] (canonical text) / `render`. The library is pure:
//! no I/O and no printing; the `tscn-merge` binary does those.

pub mod check;
pub mod config;
pub mod diff;
mod fxhash;
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

    /// `../shared` beside the project root (or `$TSCN_SHARED`), where the corpus and the
    /// real merges live; `None` when it is not there.
    pub fn shared_dir() -> Option<PathBuf> {
        [
            std::env::var_os("TSCN_SHARED").map(PathBuf::from),
            Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")),
        ]
        .into_iter()
        .flatten()
        .find(|p| p.join("corpus/INDEX.tsv").is_file() || p.join("merges").is_dir())
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
