//! Stale uid references (issue 30.1): a scene or resource whose `ext_resource` names a
//! file by a `uid=` that no file of the project carries (as its header `uid`, in a `.uid`
//! file or in an `.import` file), while its `path=` names a file that now has another
//! uid. That is what a merge leaves when both sides regenerated a resource's own header
//! uid and ours' was kept (`Decision::HeaderUidOurs`): the files that referred to theirs'
//! load it by path, and Godot warns, until re-saved.
//!
//! Decides which references are stale and how they read; which files to read is the
//! callers' (`doctor`: the work tree, [`read_work_tree`]; `review`: the tree a range
//! ends at), always within [`Limits`].

use gdscene::render::escape::visible;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How much a search may read: files, bytes and time.
#[derive(Clone, Copy)]
pub struct Limits {
    /// Most files read.
    pub files: usize,
    /// Most bytes read in all.
    pub bytes: u64,
    /// Most time spent reading.
    pub time: Duration,
}

/// The bounds `doctor` and `review` use: the sidecar note's, and 5 seconds.
pub const LIMITS: Limits = Limits {
    files: super::MAX_FILES,
    bytes: super::MAX_BYTES,
    time: Duration::from_secs(5),
};

/// Most stale references named one by one.
pub const MAX_LISTED: usize = 20;

/// One stale reference.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StaleRef {
    /// The referring file, repository-relative (`/`-separated).
    pub file: String,
    /// The `path=` it names (`res://...`).
    pub target: String,
    /// The `uid=` it names, which no file carries.
    pub uid: String,
    /// The uid the target carries now.
    pub now: String,
}

impl StaleRef {
    /// "X refers to res://Y by uid://A, but res://Y now has uid://B (Godot loads it by
    /// path and warns)", every name escaped for the terminal.
    pub fn sentence(&self) -> String {
        let target = visible(&self.target);
        format!(
            "{} refers to {target} by {}, but {target} now has {} (Godot loads it by path and warns)",
            visible(&self.file),
            visible(&self.uid),
            visible(&self.now)
        )
    }
}

impl StaleRef {
    /// [`StaleRef::sentence`] for Markdown: every name a code span.
    pub fn markdown(&self) -> String {
        use gdscene::render::escape::code;
        let target = code(&self.target);
        format!(
            "{} refers to {target} by {}, but {target} now has {} (Godot loads it by path and warns)",
            code(&self.file),
            code(&self.uid),
            code(&self.now)
        )
    }
}

/// The files a search reads: scenes and resources, `.uid` and `.import` files, and
/// `project.godot` (it marks where `res://` starts).
pub fn is_read(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    is_scene(&p)
        || p.ends_with(".uid")
        || p.ends_with(".import")
        || p == "project.godot"
        || p.ends_with("/project.godot")
}

fn is_scene(lower: &str) -> bool {
    lower.ends_with(".tscn") || lower.ends_with(".tres") || lower.ends_with(".escn")
}

/// The quoted value of ` name="..."` in `line`, backslash escapes kept as written.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = line.find(&key)? + key.len();
    let rest = &line[start..];
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(&rest[..i]),
            _ => escaped = false,
        }
    }
    None
}

/// The project folders (`""` or `dir/`) holding a `project.godot`, deepest first.
fn project_roots(files: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut roots: Vec<String> = files
        .iter()
        .filter_map(|(p, _)| {
            let lower = p.to_ascii_lowercase();
            (lower == "project.godot").then(String::new).or_else(|| {
                lower
                    .ends_with("/project.godot")
                    .then(|| p[..p.len() - 13].to_string())
            })
        })
        .collect();
    roots.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    if roots.is_empty() {
        roots.push(String::new());
    }
    roots
}

/// `path`'s project (its root) and its `res://` path there.
fn res_path(roots: &[String], path: &str) -> Option<(usize, String)> {
    let i = roots.iter().position(|r| path.starts_with(r.as_str()))?;
    Some((i, format!("res://{}", &path[roots[i].len()..])))
}

/// The uid a file carries for `res`: a scene's header `uid`, a `.uid` file's (for the
/// file beside it), an `.import` file's `uid=` (for the asset beside it).
fn carried(res: &str, text: &str) -> Option<(String, String)> {
    let lower = res.to_ascii_lowercase();
    if is_scene(&lower) {
        let head = text.lines().find(|l| l.starts_with("[gd_"))?;
        return Some((res.to_string(), field(head, "uid")?.to_string()));
    }
    if let Some(asset) = res.strip_suffix(".uid") {
        let uid = text.trim();
        return uid
            .starts_with("uid://")
            .then(|| (asset.to_string(), uid.to_string()));
    }
    let asset = res.strip_suffix(".import")?;
    let uid = text
        .lines()
        .find_map(|l| l.strip_prefix("uid=\"")?.strip_suffix('"'))?;
    Some((asset.to_string(), uid.to_string()))
}

/// Every stale reference among `files` (repository-relative path, bytes), sorted. With
/// `touching`, only those whose referring file or target (or the target's `.uid` or
/// `.import` file) is in it: the references a range of commits is answerable for.
pub fn find(files: &[(String, Vec<u8>)], touching: Option<&BTreeSet<String>>) -> Vec<StaleRef> {
    let roots = project_roots(files);
    let mut uid_of: BTreeMap<(usize, String), String> = BTreeMap::new();
    let mut known: BTreeSet<(usize, String)> = BTreeSet::new();
    let texts: Vec<(&str, usize, String, std::borrow::Cow<str>)> = files
        .iter()
        .filter_map(|(p, b)| {
            let (root, res) = res_path(&roots, p)?;
            Some((p.as_str(), root, res, String::from_utf8_lossy(b)))
        })
        .collect();
    for (_, root, res, text) in &texts {
        if let Some((asset, uid)) = carried(res, text) {
            known.insert((*root, uid.clone()));
            uid_of.entry((*root, asset)).or_insert(uid);
        }
    }
    let repo_path = |root: usize, res: &str| format!("{}{}", roots[root], &res[6..]);
    let mut out = Vec::new();
    for (path, root, _, text) in &texts {
        if !is_scene(&path.to_ascii_lowercase()) {
            continue;
        }
        for line in text.lines().filter(|l| l.starts_with("[ext_resource")) {
            let (Some(uid), Some(target)) = (field(line, "uid"), field(line, "path")) else {
                continue;
            };
            if known.contains(&(*root, uid.to_string())) {
                continue;
            }
            let Some(now) = uid_of.get(&(*root, target.to_string())) else {
                continue;
            };
            let answerable = touching.is_none_or(|t| {
                let y = repo_path(*root, target);
                [
                    path.to_string(),
                    format!("{y}.uid"),
                    format!("{y}.import"),
                    y,
                ]
                .iter()
                .any(|p| t.contains(p))
            });
            if now != uid && answerable {
                out.push(StaleRef {
                    file: path.to_string(),
                    target: target.to_string(),
                    uid: uid.to_string(),
                    now: now.clone(),
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The files of the work tree under `root` that [`is_read`] accepts (`.git` and
/// `.godot` skipped), sorted, within `limits`; and whether a bound cut the search short.
pub fn read_work_tree(root: &Path, limits: Limits) -> (Vec<(String, Vec<u8>)>, bool) {
    let started = Instant::now();
    let mut paths = Vec::new();
    let mut cut = false;
    walk(root, &mut paths, limits.files, &mut cut);
    paths.sort();
    let (mut read, mut out) = (0u64, Vec::new());
    for p in paths {
        let len = std::fs::metadata(&p).map_or(0, |m| m.len());
        if read + len > limits.bytes || started.elapsed() > limits.time {
            cut = true;
            break;
        }
        read += len;
        if let Ok(bytes) = std::fs::read(&p) {
            let rel = p.strip_prefix(root).unwrap_or(&p);
            out.push((rel.to_string_lossy().replace('\\', "/"), bytes));
        }
    }
    (out, cut)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, max: usize, cut: &mut bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= max {
            *cut = true;
            return;
        }
        let (path, name) = (entry.path(), entry.file_name());
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && name != ".git" && name != ".godot" {
            walk(&path, out, max, cut);
        } else if kind.is_file() && is_read(&name.to_string_lossy()) {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect()
    }

    const LEVEL: &str = "[gd_scene format=3 uid=\"uid://lvl\"]\n\n[ext_resource type=\"Resource\" uid=\"uid://theirs\" path=\"res://stats.tres\" id=\"1\"]\n[ext_resource type=\"Texture2D\" uid=\"uid://icon\" path=\"res://icon.png\" id=\"2\"]\n[ext_resource type=\"Script\" uid=\"uid://gone\" path=\"res://gone.gd\" id=\"3\"]\n";

    #[test]
    fn names_a_reference_whose_uid_no_file_carries_and_whose_path_has_another() {
        let f = files(&[
            ("game/project.godot", "config_version=5\n"),
            ("game/level.tscn", LEVEL),
            (
                "game/stats.tres",
                "[gd_resource type=\"Resource\" format=3 uid=\"uid://ours\"]\n",
            ),
            (
                "game/icon.png.import",
                "[remap]\n\nimporter=\"texture\"\nuid=\"uid://icon\"\n",
            ),
        ]);
        let found = find(&f, None);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].sentence(),
            "game/level.tscn refers to res://stats.tres by uid://theirs, but res://stats.tres now has uid://ours (Godot loads it by path and warns)"
        );
        // A uid some other file still carries is no stale reference.
        let mut f2 = f.clone();
        f2.push(("game/old.gd.uid".into(), b"uid://theirs\n".to_vec()));
        assert!(find(&f2, None).is_empty());
        // Only what a range touched, when asked.
        let touched: BTreeSet<String> = ["game/icon.png.import".to_string()].into();
        assert!(find(&f, Some(&touched)).is_empty());
        let touched: BTreeSet<String> = ["game/stats.tres".to_string()].into();
        assert_eq!(find(&f, Some(&touched)).len(), 1);
    }

    #[test]
    fn names_are_escaped() {
        let r = StaleRef {
            file: "a\x1b[31m.tscn".into(),
            target: "res://b.tres".into(),
            uid: "uid://x".into(),
            now: "uid://y".into(),
        };
        assert!(!r.sentence().contains('\x1b'), "{}", r.sentence());
        assert!(
            r.sentence().starts_with("a\\x1b[31m.tscn refers to"),
            "{}",
            r.sentence()
        );
        assert!(
            r.markdown()
                .starts_with("`a\\x1b[31m.tscn` refers to `res://b.tres`"),
            "{}",
            r.markdown()
        );
    }
}
