//! tscn-merge: structural merge and semantic diff for Godot text scenes and resources.
//!
//! The pipeline reads left to right: [`syntax`] (lossless tree) -> [`value`] (typed
//! values, decoded on demand by the pest grammar) -> [`model`] (keyed scene) ->
//! `merge` / `diff` -> [`write`] (canonical text) / `render`. The library is pure:
//! no I/O and no printing; the `tscn-merge` binary does those.

pub mod check;
pub mod diff;
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
