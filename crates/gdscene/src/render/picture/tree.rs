//! The scene as the engine would instance it, for drawing: every node of the file, and
//! the nodes of each instanced scene (`instance=ExtResource(...)`, an inherited root)
//! read through the caller's [`Assets`] and mounted where the instance sits, override
//! entries laid over them. A node's properties are looked up through its layers (the
//! instanced scene's section first, the outer file's overrides last), each in the file
//! that wrote it, so `ExtResource`/`SubResource` ids resolve in their own file.
//!
//! Decides which files are read (bounded in number and bytes) and how a reference names
//! a resource or an image; what is drawn from them is the drawers'.

use super::{Assets, Limits};
use crate::model::{join_path, Scene};
use crate::value::{parse, Value};
use std::collections::BTreeMap;

/// Index of a file: 0 is the scene drawn, others were read through [`Assets`].
pub type FileId = usize;

/// Files read for one picture, at most this many.
const MAX_FILES: usize = 64;
/// Nested instances followed, at most this deep.
const MAX_DEPTH: usize = 6;

/// The scene drawn and the files it leads to.
pub struct Files<'a> {
    top: &'a Scene,
    top_path: String,
    loaded: Vec<(String, Scene)>,
    by_path: BTreeMap<String, Option<FileId>>,
    assets: &'a dyn Assets,
    bytes_read: usize,
    /// What could not be read or was left out, for the picture's notes.
    pub notes: Vec<String>,
}

/// A resource: the section that holds it, in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Res {
    /// The file.
    pub file: FileId,
    /// Its section (a `[sub_resource]` or the `[resource]` of a `.tres`).
    pub section: usize,
}

/// What a reference names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A resource written as text (here or in a `.tres`).
    Res(Res),
    /// An image file (`res://...png`), by its normalised path.
    Image(String),
}

/// Image files the engine imports as textures, by extension.
const IMAGES: [&str; 8] = ["png", "jpg", "jpeg", "webp", "svg", "bmp", "tga", "gif"];

/// `p` made absolute (`res://...`) against the folder of `from` (a `res://` path),
/// `..` and `.` resolved; `None` for a `uid://` or a path leaving the project.
pub fn res_path(from: &str, p: &str) -> Option<String> {
    let rel = if let Some(r) = p.strip_prefix("res://") {
        r.to_string()
    } else if p.contains("://") {
        return None;
    } else {
        let dir = from
            .strip_prefix("res://")?
            .rsplit_once('/')
            .map_or("", |d| d.0);
        format!("{dir}/{p}")
    };
    let mut out: Vec<&str> = Vec::new();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(format!("res://{}", out.join("/")))
}

impl<'a> Files<'a> {
    /// The files of a picture of `top`, which lives at `top_path` (`res://...`).
    pub fn new(top: &'a Scene, top_path: &str, assets: &'a dyn Assets) -> Files<'a> {
        Files {
            top,
            top_path: top_path.to_string(),
            loaded: Vec::new(),
            by_path: BTreeMap::new(),
            assets,
            bytes_read: 0,
            notes: Vec::new(),
        }
    }

    /// The parsed file `f`.
    pub fn scene(&self, f: FileId) -> &Scene {
        match f {
            0 => self.top,
            n => &self.loaded[n - 1].1,
        }
    }

    /// The `res://` path of file `f`.
    pub fn path(&self, f: FileId) -> &str {
        match f {
            0 => &self.top_path,
            n => &self.loaded[n - 1].0,
        }
    }

    /// Bytes of any project file (`res://...`), through the caller's assets, counted
    /// against `limits`.
    pub fn bytes(&mut self, path: &str, limits: &Limits) -> Option<Vec<u8>> {
        if self.bytes_read > limits.read_bytes {
            return None;
        }
        let b = self.assets.read(path)?;
        self.bytes_read += b.len();
        Some(b)
    }

    /// The text file at `path` (a `.tscn` or `.tres`), read and parsed once.
    pub fn load(&mut self, path: &str, limits: &Limits) -> Option<FileId> {
        if let Some(known) = self.by_path.get(path) {
            return *known;
        }
        let id = if self.loaded.len() >= MAX_FILES {
            None
        } else {
            self.bytes(path, limits)
                .and_then(|b| Scene::parse(&b).ok())
                .map(|s| {
                    self.loaded.push((path.to_string(), s));
                    self.loaded.len()
                })
        };
        if id.is_none() {
            self.notes.push(format!(
                "{path}: not in the repository, or not a text resource"
            ));
        }
        self.by_path.insert(path.to_string(), id);
        id
    }

    /// The text of property `key` of section `section` in file `f`, parsed.
    pub fn value(&self, f: FileId, section: usize, key: &str) -> Option<Value> {
        let s = self.scene(f);
        let p = s.section(section).prop(key)?;
        parse(s.slice(&p.value)).ok()
    }

    /// What reference `v` (written in file `f`) names; reads a `.tres` it leads to.
    pub fn target(&mut self, f: FileId, v: &Value, limits: &Limits) -> Option<Target> {
        match v {
            Value::SubResource(id) => {
                let id = id.key();
                let s = self.scene(f);
                let sub = s.sub_resources.iter().find(|r| r.id == id.as_ref())?;
                Some(Target::Res(Res {
                    file: f,
                    section: sub.section,
                }))
            }
            Value::ExtResource(id) => {
                let id = id.key();
                let ext = self
                    .scene(f)
                    .ext_resources
                    .iter()
                    .find(|r| r.id == id.as_ref())?;
                let path = res_path(self.path(f), &ext.path)?;
                self.file_target(path, limits)
            }
            Value::Ctor { name, args } if name == "Resource" => match args.last()? {
                Value::String(p) => {
                    let path = res_path(self.path(f), p)?;
                    self.file_target(path, limits)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn file_target(&mut self, path: String, limits: &Limits) -> Option<Target> {
        let ext = path.rsplit_once('.').map(|e| e.1.to_ascii_lowercase())?;
        if IMAGES.contains(&ext.as_str()) {
            return Some(Target::Image(path));
        }
        let file = self.load(&path, limits)?;
        let section = self.scene(file).resource?;
        Some(Target::Res(Res { file, section }))
    }

    /// The `type=` of a resource's section (`[resource]` takes the header's `type=`).
    pub fn res_type(&self, r: Res) -> String {
        let s = self.scene(r.file);
        s.sub_resources
            .iter()
            .find(|x| x.section == r.section)
            .map(|x| x.type_name.clone())
            .or_else(|| s.header.resource_type.clone())
            .unwrap_or_default()
    }
}

/// A node as the engine instances it.
#[derive(Debug, Clone)]
pub struct FNode {
    /// Its path in the scene drawn (`.` for the root).
    pub path: String,
    /// Its class (through instances: the instanced scene root's).
    pub type_name: String,
    /// Its parent's index in the list.
    pub parent: Option<usize>,
    /// The sections that set its properties, first the deepest instance's.
    pub layers: Vec<(FileId, usize)>,
}

impl FNode {
    /// Property `key` and the file it was written in (the last layer that sets it).
    pub fn get(&self, files: &Files, key: &str) -> Option<(FileId, Value)> {
        self.layers
            .iter()
            .rev()
            .find_map(|&(f, s)| files.value(f, s, key).map(|v| (f, v)))
    }

    /// Property `key` when it is a number.
    pub fn num(&self, files: &Files, key: &str) -> Option<f64> {
        super::geometry::number(&self.get(files, key)?.1)
    }

    /// Property `key` when it is a boolean.
    pub fn flag(&self, files: &Files, key: &str) -> Option<bool> {
        match self.get(files, key)?.1 {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The node's name: the last part of its path (the root: its `name=`).
    pub fn name<'n>(&'n self, files: &'n Files) -> &'n str {
        match self.path.as_str() {
            "." => files
                .scene(0)
                .node_by_path(".")
                .map_or(".", |n| n.name.as_str()),
            p => p.rsplit('/').next().unwrap_or(p),
        }
    }
}

/// The nodes of `files`' scene with its instances mounted, parents before children, at
/// most `limits.nodes`; and whether the limit cut the list short.
pub fn flatten(files: &mut Files, limits: &Limits) -> (Vec<FNode>, bool) {
    let mut out = Flat::default();
    mount(files, 0, ".", 0, limits, &mut out);
    (out.nodes, out.cut)
}

#[derive(Default)]
struct Flat {
    nodes: Vec<FNode>,
    index: BTreeMap<String, usize>,
    cut: bool,
}

/// Where a node of a file mounted at `at` lands in the scene drawn.
fn mounted(at: &str, path: &str) -> String {
    match (at, path) {
        (a, ".") => a.to_string(),
        (".", p) => p.to_string(),
        (a, p) => join_path(a, p),
    }
}

/// Add the nodes of file `f`, its root at path `at`.
fn mount(files: &mut Files, f: FileId, at: &str, depth: usize, limits: &Limits, out: &mut Flat) {
    let list: Vec<(String, Option<String>, Option<String>, usize)> = files
        .scene(f)
        .nodes
        .iter()
        .map(|n| {
            (
                n.path.to_string(),
                n.type_name.as_ref().map(|t| t.to_string()),
                n.instance().map(str::to_string),
                n.section,
            )
        })
        .collect();
    for (path, type_name, instance, section) in list {
        if out.nodes.len() >= limits.nodes {
            out.cut = true;
            return;
        }
        let path = mounted(at, &path);
        if let Some(id) = instance.filter(|_| depth < MAX_DEPTH) {
            let ext = files.scene(f).ext_resources.iter().find(|r| r.id == id);
            let target = ext.and_then(|e| res_path(files.path(f), &e.path));
            if let Some(sub) = target.and_then(|p| files.load(&p, limits)) {
                if sub != f {
                    mount(files, sub, &path, depth + 1, limits, out);
                }
            }
        }
        match out.index.get(&path) {
            Some(&i) => {
                out.nodes[i].layers.push((f, section));
                if let Some(t) = type_name {
                    out.nodes[i].type_name = t;
                }
            }
            None => {
                let parent =
                    crate::render::parent_path(&path).and_then(|p| out.index.get(p).copied());
                out.index.insert(path.clone(), out.nodes.len());
                out.nodes.push(FNode {
                    path,
                    type_name: type_name.unwrap_or_default(),
                    parent,
                    layers: vec![(f, section)],
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_file() {
        assert_eq!(
            res_path("res://a/b.tscn", "c.png").as_deref(),
            Some("res://a/c.png")
        );
        assert_eq!(
            res_path("res://a/b.tscn", "../c.png").as_deref(),
            Some("res://c.png")
        );
        assert_eq!(
            res_path("res://x.tscn", "res://./i/../j.png").as_deref(),
            Some("res://j.png")
        );
        assert_eq!(res_path("res://x.tscn", "../../up.png"), None);
        assert_eq!(res_path("res://x.tscn", "uid://abc"), None);
    }
}
