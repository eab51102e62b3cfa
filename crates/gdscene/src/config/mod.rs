//! Godot's ConfigFile-format files: `project.godot`, `export_presets.cfg`, `override.cfg`,
//! `plugin.cfg`, `.import` sidecars and `.uid` sidecars (issue 28).
//!
//! The pipeline mirrors the scene one: [`syntax`] (lossless tree, `grammar/config.pest`
//! composed with the scene grammar's values) -> [`model`] (sections and keys by name,
//! values through [`crate::value`]) -> [`check`], [`merge`] (three-way, by section and
//! key, with the value rules of [`values`]) and [`diff`] (key-level changes). Pure: the
//! command line's `src/cli/config.rs` does the reading and writing.

pub mod check;
pub mod decision;
pub mod diff;
pub mod merge;
pub mod model;
pub mod syntax;
pub mod values;

pub use syntax::{ConfigError, Document};

/// Which kind of ConfigFile a path names (by its file name), `None` for any other file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    /// `project.godot` (and Godot 2's `engine.cfg`).
    Project,
    /// `export_presets.cfg`.
    ExportPresets,
    /// `override.cfg`.
    Override,
    /// An addon's `plugin.cfg`.
    Plugin,
    /// An `.import` sidecar, written by the importer.
    Import,
    /// A `.uid` sidecar (Godot 4.4+), written by the editor.
    Uid,
}

impl ConfigKind {
    /// The kind of the file `path` names, from its last component.
    pub fn of_path(path: &str) -> Option<ConfigKind> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        match name {
            "project.godot" | "engine.cfg" => Some(ConfigKind::Project),
            "export_presets.cfg" => Some(ConfigKind::ExportPresets),
            "override.cfg" => Some(ConfigKind::Override),
            "plugin.cfg" => Some(ConfigKind::Plugin),
            n if n.len() > 7 && n.ends_with(".import") => Some(ConfigKind::Import),
            n if n.len() > 4 && n.ends_with(".uid") => Some(ConfigKind::Uid),
            _ => None,
        }
    }

    /// Generated sidecars: both sides creating one differently has a stated clean rule.
    pub fn is_sidecar(self) -> bool {
        matches!(self, ConfigKind::Import | ConfigKind::Uid)
    }
}

/// The attribute patterns `install` should route to the driver for these files.
pub const ATTRIBUTE_PATTERNS: &[&str] = &[
    "project.godot",
    "export_presets.cfg",
    "override.cfg",
    "plugin.cfg",
    "*.import",
    "*.uid",
];

#[cfg(test)]
mod tests {
    use super::ConfigKind;

    #[test]
    fn kinds_come_from_the_file_name() {
        assert_eq!(
            ConfigKind::of_path("a/b/project.godot"),
            Some(ConfigKind::Project)
        );
        assert_eq!(
            ConfigKind::of_path("icon.png.import"),
            Some(ConfigKind::Import)
        );
        assert_eq!(
            ConfigKind::of_path("x\\player.gd.uid"),
            Some(ConfigKind::Uid)
        );
        assert_eq!(
            ConfigKind::of_path("export_presets.cfg"),
            Some(ConfigKind::ExportPresets)
        );
        assert_eq!(ConfigKind::of_path("main.tscn"), None);
        assert_eq!(ConfigKind::of_path("other.cfg"), None);
        assert_eq!(ConfigKind::of_path(".import"), None);
    }
}
