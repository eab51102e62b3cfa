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

use crate::syntax::{unescape, ByteRange, Document, ParseError, Section, SmallStr, Source};
use std::collections::BTreeSet;

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
    /// `type=`; absent on instanced roots and on override entries.
    pub type_name: Option<SmallStr>,
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
}

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

    /// Key an already split document.
    pub fn from_document(doc: Document) -> Result<Scene, ModelError> {
        Scene::from_document_with(doc, PARALLEL_NODES_MIN)
    }

    /// [`Scene::from_document`], building nodes on two threads from `parallel_min` on.
    fn from_document_with(doc: Document, parallel_min: usize) -> Result<Scene, ModelError> {
        let kinds = section_kinds(&doc);
        let mut scene = Scene {
            kind: file_kind(&doc)?,
            header: read_header(&doc),
            nodes: build_nodes(&doc, &kinds, parallel_min),
            kinds,
            ext_resources: Vec::new(),
            sub_resources: Vec::new(),
            resource: None,
            connections: Vec::new(),
            editables: Vec::new(),
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
    let first = doc
        .sections
        .first()
        .map(|s| s.tag.name.clone())
        .unwrap_or_default();
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

/// The nodes in file order, keyed by path (see [`key_nodes`]); on two threads from
/// `parallel_min` nodes on.
fn build_nodes(doc: &Document, kinds: &[SectionKind], parallel_min: usize) -> Vec<Node> {
    let node_secs: Vec<usize> = (0..doc.sections.len())
        .filter(|&i| kinds.get(i) == Some(&SectionKind::Node))
        .collect();
    let build = |list: &[usize]| -> Vec<Node> {
        list.iter()
            .map(|&i| build_node(doc, i, &doc.sections[i]))
            .collect()
    };
    if node_secs.len() >= parallel_min.max(2) {
        build_nodes_split(doc, &node_secs).unwrap_or_else(|| build(&node_secs))
    } else {
        build(&node_secs)
    }
}

/// Key each node by its `unique_id` when it has one, scoped by the instance an override
/// entry sits in (instance roots are known only once every node is built).
fn key_nodes(nodes: &mut [Node]) {
    let mut instanced: BTreeSet<SmallStr> = BTreeSet::new();
    let mut root_inherited = false;
    for node in nodes.iter().filter(|n| n.instance().is_some()) {
        root_inherited |= node.parent.is_none();
        instanced.insert(node.path.clone());
    }
    for n in nodes {
        if let Some(id) = n.unique_id {
            let scope = if n.is_override() {
                let parent = n.parent.as_deref().unwrap_or(".");
                override_scope(parent, &instanced, root_inherited)
            } else {
                SmallStr::new()
            };
            n.key = NodeKey::UniqueId { scope, id };
        }
    }
}

/// The model of one `[node]` section (its key is the path; unique ids are keyed later,
/// once every instance is known).
fn build_node(doc: &Document, i: usize, s: &Section) -> Node {
    // One pass over the fields (the last of a repeated key wins, as in
    // `Tag::field`), decoding only the ones present.
    let mut name = None;
    let mut type_name = None;
    let mut parent = None;
    let mut instance = None;
    let mut placeholder = None;
    let mut owner = None;
    let mut index = None;
    let mut unique_id = None;
    for f in &s.tag.fields {
        let slot = match f.key.as_str() {
            "name" => &mut name,
            "type" => &mut type_name,
            "parent" => &mut parent,
            "instance" => &mut instance,
            "instance_placeholder" => &mut placeholder,
            "owner" => &mut owner,
            "index" => &mut index,
            "unique_id" => &mut unique_id,
            _ => continue,
        };
        *slot = Some(&f.value);
    }
    let instance = instance.and_then(|r| ref_id(doc.slice(r), "ExtResource"));
    let name = name.map(|r| field_small(doc, r)).unwrap_or_default();
    let parent = parent.map(|r| field_small(doc, r));
    let path = match &parent {
        None => SmallStr::copy_from("."),
        Some(p) if p == "." || p.is_empty() => name.clone(),
        Some(p) => SmallStr::concat(&[p, "/", &name]),
    };
    Node {
        section: i,
        type_name: type_name.map(|r| field_small(doc, r)),
        rare: (instance.is_some() || placeholder.is_some() || owner.is_some() || index.is_some())
            .then(|| {
                Box::new(RareNodeFields {
                    instance,
                    instance_placeholder: placeholder.map(|r| field_text(doc, r)),
                    owner: owner.map(|r| field_text(doc, r)),
                    index: index.and_then(|r| field_int(doc, r)),
                })
            }),
        key: NodeKey::Path(path.clone()),
        name,
        parent,
        path,
        unique_id: unique_id.and_then(|r| field_int(doc, r)),
    }
}

/// Nodes of a big scene are built on two threads: each is read from its own section only.
const PARALLEL_NODES_MIN: usize = 20_000;

/// Build the nodes of `secs` on two threads, each writing its half of one vector's
/// slots: nothing is copied afterwards (the nodes of a 100,000-node scene take 24 MB,
/// and a copy costs as much again in fresh pages). `None` when the second thread could
/// not be started or did not finish; the caller then builds them all itself.
fn build_nodes_split(doc: &Document, secs: &[usize]) -> Option<Vec<Node>> {
    let n = secs.len();
    let (a, b) = secs.split_at(n / 2);
    let fill = |slots: &mut [std::mem::MaybeUninit<Node>], list: &[usize]| {
        for (slot, &i) in slots.iter_mut().zip(list) {
            slot.write(build_node(doc, i, &doc.sections[i]));
        }
    };
    let mut nodes: Vec<Node> = Vec::with_capacity(n);
    let (first, second) = nodes.spare_capacity_mut()[..n].split_at_mut(a.len());
    std::thread::scope(|scope| {
        let other = std::thread::Builder::new()
            .spawn_scoped(scope, || fill(second, b))
            .ok()?;
        fill(first, a);
        other.join().ok()
    })?;
    // SAFETY: the first `n` slots are all initialised: `first` holds `a.len()` slots and
    // `fill` wrote one node into each (it zips them with `a`); `second` holds
    // `n - a.len() == b.len()` slots, each written the same way by the other thread,
    // which has finished without panicking. (Had anything failed, we returned above
    // with the length still 0: the written nodes are then leaked, never read.)
    unsafe { nodes.set_len(n) };
    Some(nodes)
}

/// The instance an override entry belongs to: the deepest listed instanced node whose
/// path is the parent or an ancestor of it; the root when the scene is inherited.
fn override_scope(parent: &str, instanced: &BTreeSet<SmallStr>, root_inherited: bool) -> SmallStr {
    let mut p = parent;
    loop {
        if let Some(found) = instanced.get(p) {
            return found.clone();
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => break,
        }
    }
    if root_inherited {
        SmallStr::copy_from(".")
    } else {
        // An override whose instance is not listed: scope by its parent path.
        SmallStr::concat(&["?", parent])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = r#"[gd_scene load_steps=3 format=3 uid="uid://abc"]

[ext_resource type="Script" path="res://a.gd" id="1_x"]
[ext_resource type="PackedScene" uid="uid://enemy" path="res://enemy.tscn" id="2_y"]

[sub_resource type="CircleShape2D" id="CircleShape2D_a"]
radius = 4.0

[node name="Root" type="Node2D" unique_id=10]
script = ExtResource("1_x")

[node name="Enemy" parent="." unique_id=11 instance=ExtResource("2_y")]

[node name="Sprite" parent="Enemy" unique_id=5]
modulate = Color(1, 0, 0, 1)

[node name="Enemy2" parent="." unique_id=12 instance=ExtResource("2_y")]

[node name="Sprite" parent="Enemy2" unique_id=5]

[node name="Shape" type="CollisionShape2D" parent="."]
shape = SubResource("CircleShape2D_a")

[connection signal="hit" from="Enemy" to="." method="_on_hit"]

[editable path="Enemy"]
"#;

    #[test]
    fn keys_every_part() {
        let s = Scene::parse(SCENE.as_bytes()).unwrap();
        assert_eq!(s.kind, FileKind::Scene);
        assert_eq!(s.header.format, Some(3));
        assert_eq!(s.header.load_steps, Some(3));
        assert_eq!(s.header.uid.as_deref(), Some("uid://abc"));
        assert_eq!(s.ext_resources.len(), 2);
        assert_eq!(s.ext_resources[0].key(), "path:res://a.gd");
        assert_eq!(s.ext_resources[1].key(), "uid:uid://enemy");
        assert_eq!(s.sub_resources[0].id, "CircleShape2D_a");
        let paths: Vec<_> = s.nodes.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                ".",
                "Enemy",
                "Enemy/Sprite",
                "Enemy2",
                "Enemy2/Sprite",
                "Shape"
            ]
        );
        assert_eq!(s.nodes[1].instance(), Some("2_y"));
        // The two overrides share unique_id 5 but live in different instances.
        assert_eq!(
            s.nodes[2].key,
            NodeKey::UniqueId {
                scope: "Enemy".into(),
                id: 5
            }
        );
        assert_eq!(
            s.nodes[4].key,
            NodeKey::UniqueId {
                scope: "Enemy2".into(),
                id: 5
            }
        );
        assert_eq!(
            s.nodes[0].key,
            NodeKey::UniqueId {
                scope: SmallStr::new(),
                id: 10
            }
        );
        assert_eq!(s.nodes[5].key, NodeKey::Path("Shape".into()));
        assert_eq!(s.connections[0].key.signal, "hit");
        assert_eq!(s.editables[0].path, "Enemy");
        assert_eq!(s.expected_load_steps(), 4);
    }

    /// A scene parsed from a [`Source`] holds the caller's bytes, not a copy, and keys
    /// them exactly as a scene parsed from a slice.
    #[test]
    fn a_scene_from_a_source_shares_its_bytes() {
        let src = Source::new(SCENE.as_bytes().to_vec());
        let shared = Scene::parse_source(&src).unwrap();
        assert_eq!(shared.doc.text.as_ptr(), src.as_ptr());
        let copied = Scene::parse(SCENE.as_bytes()).unwrap();
        assert_ne!(copied.doc.text.as_ptr(), SCENE.as_ptr());
        assert_eq!(format!("{:?}", shared.nodes), format!("{:?}", copied.nodes));
        assert_eq!(shared.doc.print(), SCENE);
        let bad = Source::new(b"[gd_scene format=3]\n\xff\n".to_vec());
        let e = Scene::parse_source(&bad).unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }

    #[test]
    fn godot3_int_ids_and_spaced_refs() {
        let src = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://p.tscn\" type=\"PackedScene\" id=1]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"P\" parent=\".\" instance=ExtResource( 1 )]\n";
        let s = Scene::parse(src.as_bytes()).unwrap();
        assert!(s.is_godot3());
        assert_eq!(s.ext_resources[0].id, "1");
        assert_eq!(s.nodes[1].instance(), Some("1"));
        assert_eq!(s.nodes[1].path, "P");
    }

    #[test]
    fn rejects_a_file_that_is_not_a_scene() {
        let e = Scene::parse(b"[remap]\npath=\"x\"\n").unwrap_err();
        assert!(e.to_string().contains("gd_scene"), "{e}");
    }

    /// Nodes built on two threads equal nodes built on one, keys included (override
    /// entries are scoped by instances listed in either half).
    #[test]
    fn nodes_built_on_two_threads_equal_one_thread() {
        let mut text = String::from(
            "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1_e\"]\n\n[node name=\"Root\" type=\"Node\" unique_id=1]\n",
        );
        for i in 0..300 {
            text.push_str(&format!(
                "\n[node name=\"N{i}\" type=\"Node\" parent=\".\" unique_id={}]\n",
                i + 2
            ));
            if i % 50 == 7 {
                text.push_str(&format!("\n[node name=\"E{i}\" parent=\"N{i}\" unique_id={} instance=ExtResource(\"1_e\")]\n", 1000 + i));
            }
        }
        // Overrides of nodes inside the instances, at the end (in the second half).
        for i in (7..300).step_by(50) {
            text.push_str(&format!(
                "\n[node name=\"Inner\" parent=\"N{i}/E{i}\" unique_id=77]\nvisible = false\n"
            ));
        }
        let mut texts = vec![text];
        texts.extend(
            crate::test_support::corpus_texts(5)
                .into_iter()
                .map(|(_, t)| t),
        );
        assert!(texts.len() > 1000 || crate::test_support::shared_dir().is_none());
        for text in &texts {
            let Ok(doc) = Document::parse(text.as_bytes()) else {
                continue;
            };
            let one = Scene::from_document_with(doc.clone(), usize::MAX)
                .map(|s| format!("{:?}", s.nodes));
            let two = Scene::from_document_with(doc, 0).map(|s| format!("{:?}", s.nodes));
            match (one, two) {
                (Ok(a), Ok(b)) => assert!(a == b, "nodes differ:\n{text}"),
                (a, b) => assert_eq!(a.is_ok(), b.is_ok()),
            }
        }
    }
}
