//! What a diff returns: the [`DiffReport`] with its [`Change`]s, each a [`Subject`] (which
//! part of the file) and a [`Detail`] (how it changed). Plain data; deciding what changed
//! is the other phases' work, and rendering it is `crate::render`'s. The re-save noise
//! kept apart ([`Noise`], [`NoiseKind`]) is here too; which difference is noise is
//! `noise.rs`'s to decide.

/// The result of comparing two versions of a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffReport {
    /// Real changes, in report order (nodes in tree order, then resources, ...).
    pub changes: Vec<Change>,
    /// Differences that change nothing for the engine (re-save noise).
    pub noise: Vec<Noise>,
}

impl DiffReport {
    /// Whether anything really changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// One change, on one part of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// What changed.
    pub subject: Subject,
    /// How it changed.
    pub detail: Detail,
}

/// The part of a file a change is about; consecutive changes with equal subjects belong
/// together.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// A node: its path (new path, or old path when removed) and type.
    Node {
        /// Path relative to the root (`.` is the root).
        path: String,
        /// `type=` (absent for instances and overrides).
        type_name: Option<String>,
        /// `instance=` resolved to the scene's path.
        instance: Option<String>,
    },
    /// The `[resource]` of a `.tres`.
    MainResource {
        /// `type=` of the header.
        type_name: Option<String>,
    },
    /// An `[ext_resource]`.
    ExtResource {
        /// `path=` (new, or old when removed).
        path: String,
        /// `type=`.
        type_name: String,
        /// Nodes (paths) that use it directly or through sub_resources.
        users: Vec<String>,
    },
    /// A `[sub_resource]`.
    SubResource {
        /// Its id (new, or old when removed): an ordinary id is where to find it.
        id: String,
        /// `type=`.
        type_name: String,
        /// Nodes (paths) that use it directly or through other sub_resources.
        users: Vec<String>,
    },
    /// A `[connection]`.
    Connection {
        /// `signal=`.
        signal: String,
        /// `from=`.
        from: String,
        /// `to=`.
        to: String,
        /// `method=`.
        method: String,
    },
    /// An `[editable]`.
    Editable {
        /// `path=`.
        path: String,
    },
    /// The file header.
    Header,
}

impl Subject {
    /// Short machine name of the subject kind (JSON `subject.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Node { .. } => "node",
            Subject::MainResource { .. } => "resource",
            Subject::ExtResource { .. } => "ext_resource",
            Subject::SubResource { .. } => "sub_resource",
            Subject::Connection { .. } => "connection",
            Subject::Editable { .. } => "editable",
            Subject::Header => "header",
        }
    }
}

/// How a part changed. Values are canonical display text (references resolved, floats
/// normalised, long values shortened).
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    /// The part is new. `properties` lists its stored properties (key, value).
    Added {
        /// Its properties.
        properties: Vec<(String, String)>,
    },
    /// The part is gone.
    Removed {
        /// Its properties as they were.
        properties: Vec<(String, String)>,
    },
    /// A node's name changed.
    Renamed {
        /// Old name.
        old: String,
        /// New name.
        new: String,
    },
    /// A node moved to another parent.
    Moved {
        /// Old parent path.
        old_parent: String,
        /// New parent path.
        new_parent: String,
    },
    /// A node changed place among its siblings.
    Reordered {
        /// Old position among the siblings.
        old_index: usize,
        /// New position.
        new_index: usize,
    },
    /// A header field changed (`type`, `instance`, `owner`, `index`, `path`, `format`, ...).
    Field {
        /// Field name (`script` is reported this way too).
        field: String,
        /// Old value, `None` when absent.
        old: Option<String>,
        /// New value, `None` when absent.
        new: Option<String>,
    },
    /// A node joined a group.
    GroupAdded {
        /// The group.
        group: String,
    },
    /// A node left a group.
    GroupRemoved {
        /// The group.
        group: String,
    },
    /// A property was set.
    PropertyAdded {
        /// Property key.
        key: String,
        /// Its value.
        value: String,
    },
    /// A property was removed (back to its default).
    PropertyRemoved {
        /// Property key.
        key: String,
        /// Its old value.
        value: String,
    },
    /// Several changes of one part shown as one line, as the renderers fold them
    /// ([`crate::render::shown`]: a Skeleton3D's bone poses, `Skeleton3D pose re-saved,
    /// 24 bones`); never produced by the diff itself.
    Folded {
        /// The line.
        text: String,
        /// How many changes it stands for.
        count: usize,
    },
    /// A property changed value.
    PropertyChanged {
        /// Property key.
        key: String,
        /// Old value.
        old: String,
        /// New value.
        new: String,
        /// Finer detail for math types and packed arrays.
        delta: Delta,
    },
}

impl Detail {
    /// Short machine name of the change kind (JSON `kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            Detail::Added { .. } => "added",
            Detail::Removed { .. } => "removed",
            Detail::Renamed { .. } => "renamed",
            Detail::Moved { .. } => "moved",
            Detail::Reordered { .. } => "reordered",
            Detail::Field { .. } => "field_changed",
            Detail::GroupAdded { .. } => "group_added",
            Detail::GroupRemoved { .. } => "group_removed",
            Detail::PropertyAdded { .. } => "property_added",
            Detail::PropertyRemoved { .. } => "property_removed",
            Detail::PropertyChanged { .. } => "property_changed",
            Detail::Folded { .. } => "folded",
        }
    }
}

/// Finer detail of a changed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// Nothing finer to say.
    None,
    /// Same math type: the components that changed (name, old, new).
    Components(Vec<(String, String, String)>),
    /// A transform (`Transform3D`, `Transform2D`, Godot 3 `Transform`): what changed in
    /// words, by the parts the inspector shows (`moved by (0, 2, 0)`, `rotated by 45°`,
    /// `scaled by (2, 2, 2)`, `basis changed` for a sheared one), and the components.
    Transform {
        /// The parts that changed, in words.
        parts: Vec<String>,
        /// The components that changed (name, old, new).
        components: Vec<(String, String, String)>,
    },
    /// Same packed array kind: lengths and how many elements (of the common prefix) differ.
    Packed {
        /// Canonical packed type name.
        kind: String,
        /// Old length in elements.
        old_len: usize,
        /// New length in elements.
        new_len: usize,
        /// Elements of the common prefix that differ.
        changed: usize,
    },
    /// The value's own parts that changed: tile cells, Animation tracks and keys,
    /// SpriteFrames animations and frames, dictionary entries, the lines of a long string
    /// or the elements of a long array ([`crate::grain::describe_change`]).
    Grain(crate::grain::ValueDiff),
}

/// Kinds of re-save noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NoiseKind {
    /// A resource id changed, content the same.
    IdRenamed,
    /// A value spelled differently with the same meaning (float digits, legacy names, ...).
    Respelled,
    /// `load_steps` changed or was dropped.
    LoadSteps,
    /// A `uid` was added (ext_resource or header).
    UidAdded,
    /// A `unique_id` was added to a node (4.6 re-save).
    UniqueIdAdded,
    /// Resources listed in another order.
    Reordered,
    /// 4.6 id paths (`parent_id_path`, `owner_uid_path`, `from_uid_path`, ...) changed.
    IdPath,
}

impl NoiseKind {
    /// Machine name (JSON).
    pub fn name(self) -> &'static str {
        match self {
            NoiseKind::IdRenamed => "id_renamed",
            NoiseKind::Respelled => "respelled",
            NoiseKind::LoadSteps => "load_steps",
            NoiseKind::UidAdded => "uid_added",
            NoiseKind::UniqueIdAdded => "unique_id_added",
            NoiseKind::Reordered => "reordered",
            NoiseKind::IdPath => "id_path",
        }
    }
}

/// A difference that is not a change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Noise {
    /// Which kind.
    pub kind: NoiseKind,
    /// Where (a node path, resource, `header`, ...).
    pub subject: String,
    /// What, in words.
    pub detail: String,
}
