//! Which scenes of the work tree refer to a uid, for the note a sidecar merge prints
//! when it kept ours' uid and dropped theirs' (issue 28): those scenes load by path
//! (with Godot's warning) until re-saved. A bounded, cheap search: `.tscn`/`.tres` files
//! only, `.git` and `.godot` skipped, at most [`MAX_FILES`] files and [`MAX_BYTES`] read.
//! [`stale`] finds the other half of that story for `doctor` and `review`: references by
//! a uid no file carries while the path names a file with another uid.

pub mod stale;

use std::path::{Path, PathBuf};

/// Most files looked into.
pub const MAX_FILES: usize = 20_000;
/// Most bytes read in all.
pub const MAX_BYTES: u64 = 64 << 20;
/// Most names listed.
pub const MAX_NAMES: usize = 10;

/// What the search found.
pub struct Found {
    /// Work-tree-relative paths (`/`-separated) of the files holding the uid, sorted.
    pub files: Vec<String>,
    /// Whether a bound stopped the search before every file was read.
    pub cut_short: bool,
}

/// The `.tscn`/`.tres` files under `root` that hold `"uid"` (quoted, so `uid://ab` does
/// not match `uid://abc`), within the bounds.
pub fn scenes_referring_to(root: &Path, uid: &str) -> Found {
    let needle = format!("\"{uid}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut files = Vec::new();
    collect(root, &mut files, &mut 0);
    files.sort();
    let (mut read, mut cut_short, mut out) = (0u64, files.len() >= MAX_FILES, Vec::new());
    for f in files {
        let len = std::fs::metadata(&f).map_or(0, |m| m.len());
        if read + len > MAX_BYTES {
            cut_short = true;
            break;
        }
        read += len;
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        if finder.find(&bytes).is_some() {
            let rel = f.strip_prefix(root).unwrap_or(&f);
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Found {
        files: out,
        cut_short,
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>, seen: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *seen >= MAX_FILES {
            return;
        }
        let (path, name) = (entry.path(), entry.file_name());
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && name != ".git" && name != ".godot" {
            collect(&path, out, seen);
        } else if kind.is_file() {
            let n = name.to_string_lossy().to_ascii_lowercase();
            if n.ends_with(".tscn") || n.ends_with(".tres") {
                *seen += 1;
                out.push(path);
            }
        }
    }
}

/// The note's sentence: "scenes in the work tree that refer to theirs' uid://b: a.tscn,
/// b.tscn (they load by path until re-saved)", `None` when there are none.
pub fn note(found: &Found, uid: &str) -> Option<String> {
    if found.files.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = found
        .files
        .iter()
        .take(MAX_NAMES)
        .map(String::as_str)
        .collect();
    let more = found.files.len().saturating_sub(MAX_NAMES);
    let extra = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let cut = if found.cut_short {
        " (search stopped at its bound; there may be more)"
    } else {
        ""
    };
    names.dedup();
    Some(format!(
        "scenes in the work tree that refer to theirs' {uid}: {}{extra}{cut}; they load by path (Godot warns) until re-saved",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_quoted_uids_in_scenes_only_and_skips_the_caches() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, s: &str| {
            let f = dir.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, s).unwrap();
        };
        let uses =
            "[ext_resource type=\"Texture2D\" uid=\"uid://b2\" path=\"res://icon.png\" id=\"1\"]\n";
        w("levels/a.tscn", uses);
        w("b.tres", uses);
        w("c.tscn", &uses.replace("uid://b2", "uid://b23"));
        w("notes.txt", uses);
        w(".godot/x.tscn", uses);
        w(".git/y.tscn", uses);
        let found = scenes_referring_to(dir.path(), "uid://b2");
        assert_eq!(found.files, ["b.tres", "levels/a.tscn"]);
        assert!(!found.cut_short);
        let n = note(&found, "uid://b2").unwrap();
        assert!(n.contains("uid://b2: b.tres, levels/a.tscn;"), "{n}");
        assert!(note(&scenes_referring_to(dir.path(), "uid://zz"), "uid://zz").is_none());
    }
}
