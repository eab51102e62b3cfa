//! tscn-merge: structural merge and semantic diff for Godot text scenes.
pub mod linemerge;
