//! What the mergetool works on: the three versions of the file and the merged text with
//! diff3 markers, re-merged by the same rules the driver uses: a scene through the scene
//! merge (both sides adding the file merge against the driver's stand-in base, so each
//! node is an addition of its own), a ConfigFile (`project.godot`, `*.import`, ... by
//! name) through `gdscene::config`'s merge. Every text is read with LF line ends and the
//! line ending of ours is remembered, for Save to put back on every line. What the page
//! shows is `state`'s; the labels of the sides `labels`'.

use super::MergetoolArgs;
use crate::io::eol::{self, Ending};
use anyhow::{bail, Context, Result};
use gdscene::config::merge::merge_config;
use gdscene::config::ConfigKind;
use gdscene::linemerge::{ConflictStyle, MarkerOptions};
use gdscene::merge::{merge, MergeOptions};
use std::path::{Path, PathBuf};

/// Which merge rules a file follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A scene or resource (`.tscn`, `.tres`, `.escn`, or any other name).
    Scene,
    /// A ConfigFile-format file, merged and checked by `gdscene::config`.
    Config(ConfigKind),
}

/// The file to resolve, loaded.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Base (for a scene both sides added: the driver's stand-in), ours, theirs; LF.
    pub sides: [String; 3],
    /// The merged text with diff3 markers (or a file's own two-sided markers); LF.
    pub text: String,
    /// The file Save writes.
    pub target: PathBuf,
    /// Its merge rules.
    pub kind: FileKind,
    /// The line ending Save writes on every line (ours' or the marked file's).
    pub ending: Ending,
    /// The marked text as it was before the mergetool (`$MERGED`, or the FILE), LF:
    /// where the labels git gave are read.
    pub before: String,
}

/// The text of a file with LF line ends and its ending (an absent base is empty, as
/// after both sides added it).
fn read_text(path: &Path, may_be_absent: bool) -> Result<(String, Ending)> {
    let bytes = match std::fs::read(path) {
        Err(e) if may_be_absent && e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        r => r.with_context(|| format!("{}: cannot read", path.display()))?,
    };
    let ending = Ending::of(&bytes);
    let text = String::from_utf8(eol::to_lf(bytes)).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok((text, ending))
}

/// The merge of `sides` with diff3 markers of `marker_size`, by `kind`'s rules; the
/// sides returned are the ones merged (a scene's empty base replaced by its stand-in).
pub fn remerge(kind: FileKind, sides: [String; 3], marker_size: usize) -> ([String; 3], String) {
    let markers = MarkerOptions {
        marker_size,
        style: ConflictStyle::Diff3,
        ..MarkerOptions::default()
    };
    let [base, ours, theirs] = sides;
    let (base, text) = match kind {
        FileKind::Config(k) => {
            let m = merge_config(
                Some(k),
                base.as_bytes(),
                ours.as_bytes(),
                theirs.as_bytes(),
                &markers,
            );
            (base, m.text)
        }
        FileKind::Scene => {
            let stand_in = crate::driver::empty_base_stand_in(base.as_bytes(), ours.as_bytes());
            let base = stand_in.map_or(base, |b| String::from_utf8_lossy(&b).into_owned());
            let opts = MergeOptions {
                markers,
                ..MergeOptions::default()
            };
            let out = merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), &opts);
            (base, out.text)
        }
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    ([base, ours, theirs], text)
}

/// Which rules the file at `path` follows (by its name, as `install` routes files).
pub fn kind_of(path: &Path) -> FileKind {
    crate::git::paths::kind_of(path).map_or(FileKind::Scene, FileKind::Config)
}

/// Base, ours, theirs, the merged text with markers, and the file to write.
pub fn load(a: &MergetoolArgs) -> Result<Loaded> {
    if a.git {
        let [base, local, remote, merged] = &a.files[..] else {
            bail!(
                "--git takes BASE LOCAL REMOTE MERGED (got {} files)",
                a.files.len()
            );
        };
        let kind = kind_of(merged);
        let (ours, ending) = read_text(local, false)?;
        let sides = [read_text(base, true)?.0, ours, read_text(remote, false)?.0];
        let before = read_text(merged, true)?.0;
        let (sides, text) = remerge(kind, sides, a.marker_size);
        return Ok(Loaded {
            sides,
            text,
            target: merged.clone(),
            kind,
            ending,
            before,
        });
    }
    let [file] = &a.files[..] else {
        bail!("mergetool takes one FILE with conflict markers (or --git and four files)");
    };
    let kind = kind_of(file);
    let (text, ending) = read_text(file, false)?;
    let marked = gdscene::solve::parse_markers(text.as_bytes(), a.marker_size)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    if marked.block_count() == 0 {
        bail!("{}: no conflict markers to resolve", file.display());
    }
    let s = marked.sides();
    let lossy = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    let sides = [lossy(s.base), lossy(s.ours), lossy(s.theirs)];
    let (sides, merged) = if marked.has_base() {
        remerge(kind, sides, a.marker_size)
    } else {
        (sides, text.clone())
    };
    Ok(Loaded {
        sides,
        text: merged,
        target: file.clone(),
        kind,
        ending,
        before: text,
    })
}
