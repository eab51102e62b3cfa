//! Which files are tscn-merge's: scenes and resources by extension, Godot's ConfigFile
//! files (`project.godot`, `*.import`, ...) by name. The same rule routes `merge`,
//! `diff`, `check`, `solve`, `review` and `ci`; what each does with a file is theirs.

use gdscene::config::ConfigKind;
use std::path::Path;

/// File name extensions of the files this tool understands.
pub const SCENE_EXTENSIONS: [&str; 3] = ["tscn", "tres", "escn"];

/// True for paths ending in `.tscn`, `.tres` or `.escn` (ASCII case-insensitive).
pub fn is_scene_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            SCENE_EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e))
        }
        _ => false,
    }
}

/// The kind of a path given on the command line: by its name, or (files named like
/// `ours.godot` in a test folder) by extension.
pub fn kind_of(path: &Path) -> Option<ConfigKind> {
    let name = path.to_string_lossy();
    ConfigKind::of_path(&name).or_else(|| match path.extension()?.to_str()? {
        "godot" => Some(ConfigKind::Project),
        "cfg" => Some(ConfigKind::Override),
        _ => None,
    })
}

/// Whether `check` should read `path` as a ConfigFile (by name, or `*.godot`/`*.cfg`).
pub fn is_config_file(path: &Path) -> bool {
    kind_of(path).is_some()
}
