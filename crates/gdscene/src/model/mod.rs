//! Keyed scene model: the sections of a [`Document`] given Godot's meaning and an
//! identity that survives re-saves, so that merge and diff can match the same node or
//! resource across versions of a file.
//!
//! - ext_resources are keyed by `uid`, else by `path`;
//! - sub_resources by id (content and use are compared by the merger);
//! - nodes by `unique_id` (Godot 4.6+) scoped by the instance an override entry sits
//!   in, else by node path;
//! - connections by signal/from/to/method; editables by path.
//!
//! The model borrows nothing: it records section indexes into the document and the
//! decoded header fields, so later stages can both reason about meaning and copy the
//! exact bytes of untouched parts.
//!
//! This file holds the model's types and the reading of every part but the nodes, which
//! `nodes.rs` builds.

pub mod likeness;
mod nodes;

use crate::syntax::{unescape, ByteRange, Document, ParseError, Section, SmallStr, Source, Text};
use nodes::{build_nodes, key_nodes, Copied, PARALLEL_NODES_MIN};

/// Whether the file is a scene (`gd_scene`) or a resource (`gd_resource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.tscn` / `.escn`: `[gd_scene]` with nodes.
    Scene,
    /// `.tres`: `[gd_resource]` with a `[resource]` section.
    Resource,
}

/// What a section is, by its tag name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SectionKind {
    /// The file header.
    Header,
    /// `[ext_resource]`.
    ExtResource,
    /// `[sub_resource]`.
    SubResource,
    /// `[resource]`, the main resource of a `.tres`.
    Resource,
    /// `[node]`.
    Node,
    /// `[connection]`.
    Connection,
    /// `[editable]`.
    Editable,
    /// Any other tag (an error for the loader).
    Other,
}

impl SectionKind {
    /// Classify a tag name.
    pub fn of(name: &str) -> SectionKind {
        match name {
            "gd_scene" | "gd_resource" => SectionKind::Header,
            "ext_resource" => SectionKind::ExtResource,
            "sub_resource" => SectionKind::SubResource,
            "resource" => SectionKind::Resource,
            "node" => SectionKind::Node,
            "connection" => SectionKind::Connection,
            "editable" => SectionKind::Editable,
            _ => SectionKind::Other,
        }
    }

    /// Loader phase (spec §3.10): sections must come in non-decreasing phase order.
    pub fn phase(self) -> u8 {
        match self {
            SectionKind::Header => 0,
            SectionKind::ExtResource => 1,
            SectionKind::SubResource => 2,
            SectionKind::Resource
            | SectionKind::Node
            | SectionKind::Connection
            | SectionKind::Editable => 3,
            SectionKind::Other => 3,
        }
    }
}

/// The decoded file header.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// `format=`; `None` when absent (the loader then assumes the current version).
    pub format: Option<i64>,
    /// `load_steps=` as written.
    pub load_steps: Option<i64>,
    /// `uid="uid://..."`.
    pub uid: Option<String>,
    /// `type=` of a `gd_resource`.
    pub resource_type: Option<String>,
    /// `script_class=` of a `gd_resource`.
    pub script_class: Option<String>,
}

/// An `[ext_resource]`: a file this one depends on.
#[derive(Debug, Clone)]
pub struct ExtResource {
    /// Index into [`Document::sections`].
    pub section: usize,
    /// The id as the loader sees it (`1` and `"1"` both give `1`).
    pub id: String,
    /// `type=`.
    pub type_name: String,
    /// `path=`.
    pub path: String,
    /// `uid=`, when present.
    pub uid: Option<String>,
}

impl ExtResource {
    /// Identity across versions: the uid when present, else the path.
    pub fn key(&self) -> String {
        match &self.uid {
            Some(u) if u.starts_with("uid://") && u.len() > 6 => format!("uid:{u}"),
            _ => format!("path:{}", self.path),
        }
    }
}

/// A `[sub_resource]`: a resource stored inside this file.
#[derive(Debug, Clone)]
pub struct SubResource {
    /// Index into [`Document::sections`].
    pub section: usize,
    /// The id as the loader sees it.
    pub id: String,
    /// `type=`.
    pub type_name: String,
}

/// Identity of a node across versions of a scene.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeKey {
    /// Godot 4.6+: `unique_id`, scoped by the path of the instance whose node an override
    /// entry names (empty for the scene's own nodes).
    UniqueId {
        /// Path of the instanced (or inherited) scene root the id belongs to; "" for own nodes.
        scope: SmallStr,
        /// The `unique_id` value.
        id: i64,
    },
    /// Older files: the node's path relative to the root (`.` for the root).
    Path(SmallStr),
}

/// A `[node]` entry.
#[derive(Debug, Clone)]
pub struct Node {
    /// Index into [`Document::sections`].
    pub section: usize,
    /// `name=`.
    pub name: SmallStr,
    /// `type=`; absent on instanced roots and on override entries. A [`Key`]: node types
    /// are a small vocabulary, and a scene has a hundred thousand nodes.
    pub type_name: Option<crate::syntax::Key>,
    /// `parent=` as written (decoded); `None` on the root.
    pub parent: Option<SmallStr>,
    /// Path relative to the root: `.` for the root, `A/B` for a grandchild.
    pub path: SmallStr,
    /// `unique_id=` (4.6+).
    pub unique_id: Option<i64>,
    /// Fields few nodes carry, boxed so that the common node stays small (a scene of
    /// 100,000 nodes holds three or four copies of its nodes during a merge).
    pub rare: Option<Box<RareNodeFields>>,
    /// Identity across versions.
    pub key: NodeKey,
}

/// The `[node]` fields that few nodes carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RareNodeFields {
    /// Id of the `ExtResource` in `instance=`.
    pub instance: Option<String>,
    /// `instance_placeholder=`.
    pub instance_placeholder: Option<String>,
    /// `owner=`.
    pub owner: Option<String>,
    /// `index=`.
    pub index: Option<i64>,
}

impl Node {
    /// Id of the `ExtResource` in `instance=`.
    pub fn instance(&self) -> Option<&str> {
        self.rare.as_ref()?.instance.as_deref()
    }

    /// `instance_placeholder=`.
    pub fn instance_placeholder(&self) -> Option<&str> {
        self.rare.as_ref()?.instance_placeholder.as_deref()
    }

    /// `owner=`.
    pub fn owner(&self) -> Option<&str> {
        self.rare.as_ref()?.owner.as_deref()
    }

    /// `index=`.
    pub fn index(&self) -> Option<i64> {
        self.rare.as_ref()?.index
    }

    /// An entry that only overrides properties of a node inside an instanced or
    /// inherited scene: it has neither `type` nor `instance`.
    pub fn is_override(&self) -> bool {
        self.type_name.is_none()
            && self.instance().is_none()
            && self.instance_placeholder().is_none()
    }
}

/// Identity of a connection.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnectionKey {
    /// `signal=`.
    pub signal: String,
    /// `from=` (a node path).
    pub from: String,
    /// `to=` (a node path).
    pub to: String,
    /// `method=`.
    pub method: String,
}

/// A `[connection]` entry.
#[derive(Debug, Clone)]
pub struct Connection {
    /// Index into [`Document::sections`].
    pub section: usize,
    /// Identity.
    pub key: ConnectionKey,
}

/// An `[editable path="..."]` entry.
#[derive(Debug, Clone)]
pub struct Editable {
    /// Index into [`Document::sections`].
    pub section: usize,
    /// `path=`.
    pub path: String,
}

/// A scene or resource file with keyed, resolved parts.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The lossless tree.
    pub doc: Document,
    /// Scene or resource.
    pub kind: FileKind,
    /// Decoded header.
    pub header: Header,
    /// Kind of each section, parallel to `doc.sections`.
    pub kinds: Vec<SectionKind>,
    /// `[ext_resource]`s in file order.
    pub ext_resources: Vec<ExtResource>,
    /// `[sub_resource]`s in file order.
    pub sub_resources: Vec<SubResource>,
    /// Section index of `[resource]`, if any.
    pub resource: Option<usize>,
    /// `[node]`s in file order.
    pub nodes: Vec<Node>,
    /// `[connection]`s in file order.
    pub connections: Vec<Connection>,
    /// `[editable]`s in file order.
    pub editables: Vec<Editable>,
    /// Which sections were copied byte for byte from the scene this one was read
    /// following ([`Scene::copied_from`]).
    pub copies: Copies,
}

/// The record a reading following another scene leaves ([`Scene::parse_like`]): which of
/// the scene's sections are, byte for byte, a section of the followed scene. A merge
/// asks it instead of comparing the bytes again. Kept as runs of sections copied in a
/// row: a side of a merge differs from base in a few places, so a few runs say it all.
///
/// Bookkeeping, not content: two scenes read from the same text are the same scene
/// whether or not one followed another, and their `Debug` output says so.
#[derive(Clone, Default)]
pub struct Copies {
    /// This scene's serial: unique to each scene read (a clone shares it, and its
    /// content).
    own: u64,
    /// The serial of the scene followed; 0 when none was.
    like: u64,
    /// The runs of sections copied in a row, in section order.
    runs: Vec<CopyRun>,
}

/// Sections `at..at + len` of a scene, copied from sections `from..from + len` of the
/// scene it followed.
#[derive(Clone, Copy, Default)]
struct CopyRun {
    at: u32,
    from: u32,
    len: u32,
}

impl Copies {
    /// The runs of `from`: for each section, the followed scene's section it was copied
    /// from, or `u32::MAX` (see [`Document::read_like`]).
    fn runs_of(from: &[u32]) -> Vec<CopyRun> {
        let mut runs: Vec<CopyRun> = Vec::new();
        for (at, &k) in (0u32..).zip(from) {
            if k == u32::MAX {
                continue;
            }
            match runs.last_mut() {
                Some(r) if r.at + r.len == at && r.from.checked_add(r.len) == Some(k) => r.len += 1,
                _ => runs.push(CopyRun {
                    at,
                    from: k,
                    len: 1,
                }),
            }
        }
        runs
    }

    /// The followed scene's section that section `sec` was copied from.
    fn from(&self, sec: usize) -> Option<usize> {
        let sec = u32::try_from(sec).ok()?;
        let i = self.runs.partition_point(|r| r.at <= sec).checked_sub(1)?;
        let r = self.runs.get(i)?;
        (sec - r.at < r.len).then(|| (r.from + (sec - r.at)) as usize)
    }
}

#[cfg(test)]
mod copies_tests {
    use super::Copies;

    /// The runs answer for every section what the list they were made of says, across
    /// gaps, jumps back and forth, and sections read afresh.
    #[test]
    fn runs_say_what_the_list_said() {
        let m = u32::MAX;
        let from = [0, 1, 2, m, 4, 5, 9, 10, 3, m, m, 11, 12, 12];
        let copies = Copies {
            runs: Copies::runs_of(&from),
            ..Copies::default()
        };
        assert_eq!(copies.runs.len(), 6);
        for (i, &k) in from.iter().enumerate() {
            let want = (k != m).then_some(k as usize);
            assert_eq!(copies.from(i), want, "section {i}");
        }
        assert_eq!(copies.from(from.len()), None);
        assert_eq!(Copies::default().from(0), None);
    }
}

impl std::fmt::Debug for Copies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Copies")
    }
}

/// The next scene serial (0 stands for none).
static NEXT_SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Why a document could not be given a scene model.
#[derive(Debug, Clone)]
pub enum ModelError {
    /// The text does not parse.
    Syntax(ParseError),
    /// The first section is not `[gd_scene]` / `[gd_resource]`.
    NotAScene {
        /// The tag found instead.
        found: String,
        /// Where.
        error: ParseError,
    },
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Syntax(e) => write!(f, "{e}"),
            ModelError::NotAScene { error, .. } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<ParseError> for ModelError {
    fn from(e: ParseError) -> Self {
        ModelError::Syntax(e)
    }
}

/// Decode a header field value written as a string (`"..."`) or bare (`1`).
pub fn field_text<R: ByteRange + ?Sized>(doc: &Document, r: &R) -> String {
    let t = doc.slice(r);
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        unescape(&t[1..t.len() - 1]).unwrap_or_else(|_| t[1..t.len() - 1].to_string())
    } else {
        t.trim().to_string()
    }
}

/// The id a reference or id field names, as the loader sees it: `1`, `"1"` and `( 1 )`
/// all give `1`.
pub fn id_text(raw: &str) -> String {
    let t = raw.trim();
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        unescape(&t[1..t.len() - 1]).unwrap_or_else(|_| t[1..t.len() - 1].to_string())
    } else {
        t.to_string()
    }
}

fn get(doc: &Document, s: &Section, key: &str) -> Option<String> {
    s.tag.field(key).map(|r| field_text(doc, &r))
}

fn get_int(doc: &Document, s: &Section, key: &str) -> Option<i64> {
    get(doc, s, key).and_then(|t| t.parse::<i64>().ok())
}

/// [`field_text`] as a [`SmallStr`]: no allocation for a short value without escapes.
fn field_small<R: ByteRange + ?Sized>(doc: &Document, r: &R) -> SmallStr {
    let t = doc.slice(r);
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        let body = &t[1..t.len() - 1];
        if body.contains('\\') {
            unescape(body).map_or_else(|_| SmallStr::copy_from(body), SmallStr::from)
        } else {
            SmallStr::copy_from(body)
        }
    } else {
        SmallStr::copy_from(t.trim())
    }
}

/// A field read as an integer, like `field_text(..).parse()`, without allocating.
fn field_int<R: ByteRange + ?Sized>(doc: &Document, r: &R) -> Option<i64> {
    field_small(doc, r).parse::<i64>().ok()
}

/// Join a parent path (as written in `parent=`) and a name into a node path.
pub fn join_path(parent: &str, name: &str) -> String {
    if parent == "." || parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

/// The id inside `ExtResource( 1 )` / `ExtResource("1_x")` written as a field value.
pub fn ref_id(raw: &str, ctor: &str) -> Option<String> {
    let t = raw.trim();
    let inner = t.strip_prefix(ctor)?.trim_start().strip_prefix('(')?;
    let inner = inner.trim_end().strip_suffix(')')?;
    Some(id_text(inner))
}

impl Scene {
    /// Parse and key a file.
    pub fn parse(bytes: &[u8]) -> Result<Scene, ModelError> {
        Scene::from_document(Document::parse(bytes)?)
    }

    /// [`Scene::parse`] of bytes the caller keeps as well, sharing them (see
    /// [`Document::parse_source`]).
    pub fn parse_source(src: &Source) -> Result<Scene, ModelError> {
        Scene::from_document(Document::parse_source(src)?)
    }

    /// [`Scene::parse`] of bytes expected to share most sections with `like` (ours or
    /// theirs with base): those are copied from its tree instead of read again
    /// ([`Document::parse_like`]); the scene is the same.
    /// Nodes of the copied sections are copied from `like` too.
    pub fn parse_like(bytes: &[u8], like: &Scene) -> Result<Scene, ModelError> {
        match std::str::from_utf8(bytes) {
            Ok(t) => Scene::read_like(Text::from(t.to_string()), like),
            Err(_) => Scene::parse(bytes),
        }
    }

    /// [`Scene::parse_source`] following `like` as [`Scene::parse_like`] does.
    pub fn parse_source_like(src: &Source, like: &Scene) -> Result<Scene, ModelError> {
        match src.text() {
            Some(text) => Scene::read_like(text.clone(), like),
            None => Scene::parse_source(src),
        }
    }

    /// A text given away (a merged result), read following `like` as
    /// [`Scene::parse_like`] does.
    pub fn from_text_like(text: String, like: &Scene) -> Result<Scene, ModelError> {
        Scene::read_like(Text::from(text), like)
    }

    /// [`Scene::from_text_like`], the tree's lists filled into the room of a dropped one
    /// ([`crate::syntax::Spare`]): the same scene.
    pub fn from_text_like_in(
        text: String,
        like: &Scene,
        spare: crate::syntax::Spare,
    ) -> Result<Scene, ModelError> {
        Scene::read_like_in(Text::from(text), like, spare)
    }

    /// Read following `like`, keeping the record of the sections copied from it.
    fn read_like(text: Text, like: &Scene) -> Result<Scene, ModelError> {
        Scene::read_like_in(text, like, crate::syntax::Spare::default())
    }

    /// [`Scene::read_like`] into the room of `spare`.
    fn read_like_in(
        text: Text,
        like: &Scene,
        spare: crate::syntax::Spare,
    ) -> Result<Scene, ModelError> {
        let (doc, from) = Document::read_like_in(text, &like.doc, spare)?;
        let copied = Copied {
            nodes: &like.nodes,
            from: &from,
        };
        let mut scene = Scene::from_document_with(doc, PARALLEL_NODES_MIN, Some(copied))?;
        scene.copies.like = like.copies.own;
        scene.copies.runs = Copies::runs_of(&from);
        Ok(scene)
    }

    /// The section of `like` that section `sec` of this scene was copied from byte for
    /// byte (its whole span, trailing blank lines and comments included), when this
    /// scene was read following `like`; `None` when it was read afresh or followed
    /// another scene. A section not copied may still equal one of `like`'s.
    pub fn copied_from(&self, like: &Scene, sec: usize) -> Option<usize> {
        if self.copies.like == 0 || self.copies.like != like.copies.own {
            return None;
        }
        self.copies.from(sec)
    }

    /// Key an already split document.
    pub fn from_document(doc: Document) -> Result<Scene, ModelError> {
        Scene::from_document_with(doc, PARALLEL_NODES_MIN, None)
    }

    /// [`Scene::from_document`], building nodes on two threads from `parallel_min` on,
    /// copying those `copied` has.
    fn from_document_with(
        doc: Document,
        parallel_min: usize,
        copied: Option<Copied>,
    ) -> Result<Scene, ModelError> {
        let kinds = section_kinds(&doc);
        let mut scene = Scene {
            kind: file_kind(&doc)?,
            header: read_header(&doc),
            nodes: build_nodes(&doc, &kinds, parallel_min, copied),
            kinds,
            ext_resources: Vec::new(),
            sub_resources: Vec::new(),
            resource: None,
            connections: Vec::new(),
            editables: Vec::new(),
            copies: Copies {
                own: NEXT_SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                like: 0,
                runs: Vec::new(),
            },
            doc: Document {
                text: Default::default(),
                prefix: 0..0,
                sections: Vec::new(),
            },
        };
        scene.read_parts(&doc);
        key_nodes(&mut scene.nodes);
        scene.doc = doc;
        Ok(scene)
    }

    /// Every part but the nodes, in file order: ext_resources, sub_resources, the
    /// `[resource]`, connections, editables.
    fn read_parts(&mut self, doc: &Document) {
        for (i, (s, &k)) in doc.sections.iter().zip(&self.kinds).enumerate() {
            match k {
                SectionKind::ExtResource => self.ext_resources.push(ExtResource {
                    section: i,
                    id: id_of(doc, s),
                    type_name: get(doc, s, "type").unwrap_or_default(),
                    path: get(doc, s, "path").unwrap_or_default(),
                    uid: get(doc, s, "uid"),
                }),
                SectionKind::SubResource => self.sub_resources.push(SubResource {
                    section: i,
                    id: id_of(doc, s),
                    type_name: get(doc, s, "type").unwrap_or_default(),
                }),
                SectionKind::Resource => {
                    self.resource.get_or_insert(i);
                }
                SectionKind::Connection => self.connections.push(Connection {
                    section: i,
                    key: ConnectionKey {
                        signal: get(doc, s, "signal").unwrap_or_default(),
                        from: get(doc, s, "from").unwrap_or_default(),
                        to: get(doc, s, "to").unwrap_or_default(),
                        method: get(doc, s, "method").unwrap_or_default(),
                    },
                }),
                SectionKind::Editable => self.editables.push(Editable {
                    section: i,
                    path: get(doc, s, "path").unwrap_or_default(),
                }),
                // Nodes are built apart, on two threads for a big scene.
                SectionKind::Node | SectionKind::Header | SectionKind::Other => {}
            }
        }
    }

    /// The section of a part.
    pub fn section(&self, index: usize) -> &Section {
        &self.doc.sections[index]
    }

    /// Text of a byte range.
    pub fn slice<R: crate::syntax::ByteRange + ?Sized>(&self, r: &R) -> &str {
        self.doc.slice(r)
    }

    /// Whether this is a Godot 3 (`format=2`) or older file.
    pub fn is_godot3(&self) -> bool {
        matches!(self.header.format, Some(f) if f <= 2)
    }

    /// The node with this path, if the file lists it.
    pub fn node_by_path(&self, path: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.path == path)
    }

    /// What `load_steps` should be (spec §4.12): subs + exts + 1.
    pub fn expected_load_steps(&self) -> i64 {
        (self.sub_resources.len() + self.ext_resources.len() + 1) as i64
    }
}

/// Scene or resource, by the first tag; any other first tag is an error.
fn file_kind(doc: &Document) -> Result<FileKind, ModelError> {
    let first = doc.sections.first().map(|s| s.tag.name).unwrap_or_default();
    match first.as_str() {
        "gd_scene" => Ok(FileKind::Scene),
        "gd_resource" => Ok(FileKind::Resource),
        _ => {
            let at = doc.sections.first().map_or(0, |s| s.span.start());
            Err(ModelError::NotAScene {
                error: ParseError::at(
                    doc.text.as_bytes(),
                    at,
                    format!("`[gd_scene ...]` or `[gd_resource ...]` as the first tag, found `[{first}`"),
                ),
                found: first.to_string(),
            })
        }
    }
}

/// The decoded fields of the first section (empty when there is none).
fn read_header(doc: &Document) -> Header {
    let Some(h) = doc.sections.first() else {
        return Header::default();
    };
    Header {
        format: get_int(doc, h, "format"),
        load_steps: get_int(doc, h, "load_steps"),
        uid: get(doc, h, "uid"),
        resource_type: get(doc, h, "type"),
        script_class: get(doc, h, "script_class"),
    }
}

/// The kind of each section; the first is the header whatever its tag.
fn section_kinds(doc: &Document) -> Vec<SectionKind> {
    doc.sections
        .iter()
        .enumerate()
        .map(|(i, s)| match i {
            0 => SectionKind::Header,
            _ => SectionKind::of(&s.tag.name),
        })
        .collect()
}

/// `id=` of a resource section as the loader sees it ("" when absent).
fn id_of(doc: &Document, s: &Section) -> String {
    s.tag
        .field("id")
        .map(|r| id_text(doc.slice(&r)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
