//! The identity tables the identity stage fills and every later stage reads: for each
//! ext_resource, sub_resource and node, which part of base, ours and theirs it is
//! (sides indexed by [`B`], [`O`], [`T`]), and the per-side lookups by id. The types
//! only; the matching itself is [`crate::merge::identity`]'s.

use crate::model::Scene;
pub(crate) use rustc_hash::FxHashMap as FxMap;

/// Side indexes.
pub const B: usize = 0;
/// Ours.
pub const O: usize = 1;
/// Theirs.
pub const T: usize = 2;

/// An identity table: for each identity, the index of the part on each side.
#[derive(Debug, Default, Clone)]
pub struct Table {
    /// identity -> [base, ours, theirs] index into the side's list.
    pub at: Vec<[Option<usize>; 3]>,
    /// side -> (index in the side's list -> identity).
    pub of: [Vec<usize>; 3],
}

impl Table {
    pub(in crate::merge) fn new(sizes: [usize; 3]) -> Table {
        Table {
            at: Vec::new(),
            of: [
                vec![usize::MAX; sizes[0]],
                vec![usize::MAX; sizes[1]],
                vec![usize::MAX; sizes[2]],
            ],
        }
    }
    pub(in crate::merge) fn bind(&mut self, ident: usize, side: usize, i: usize) {
        self.at[ident][side] = Some(i);
        self.of[side][i] = ident;
    }
    pub(in crate::merge) fn fresh(&mut self, side: usize, i: usize) -> usize {
        self.at.push([None; 3]);
        let id = self.at.len() - 1;
        self.bind(id, side, i);
        id
    }
    pub(in crate::merge) fn bound(&self, side: usize, i: usize) -> bool {
        self.of[side][i] != usize::MAX
    }
    pub(in crate::merge) fn claimed(&self, ident: usize, side: usize) -> bool {
        self.at[ident][side].is_some()
    }
}

/// How a sub_resource of ours or theirs was matched (for `--explain`).
#[derive(Debug, Clone)]
pub struct SubMatch {
    /// Side of the matched resource.
    pub side: usize,
    /// Its index on that side.
    pub index: usize,
    /// Identity it joined.
    pub ident: usize,
    /// By what.
    pub how: &'static str,
}

/// All identities of a three-way merge.
#[derive(Debug, Clone)]
pub struct Idents<'a> {
    /// Each side's node paths to node indexes.
    pub paths: Paths<'a>,
    /// Each side's parent node index of each node, when listed.
    pub parent_at: ParentAt,
    /// ext_resources.
    pub ext: Table,
    /// sub_resources.
    pub sub: Table,
    /// nodes.
    pub node: Table,
    /// Sub_resource matches made by use or content where ids differ.
    pub sub_matches: Vec<SubMatch>,
    /// Base nodes paired with the node both sides now share (see `identity::nodes::follow_shared`).
    pub shared_changes: Vec<SharedChange>,
    /// By node identity: its node has one name and one parent identity on base, ours
    /// and theirs (neither side renamed or moved it; never the root). Most nodes of a
    /// big scene are such; a merged place is picked from the sides', so such a node
    /// sits where every side put it, which later stages need not check node by node.
    /// `false` says nothing.
    pub same_place: Vec<bool>,
}

impl Idents<'_> {
    /// Whether node identity `ident` has one name and one parent identity on all three
    /// sides (see [`Idents::same_place`]).
    pub fn same_place(&self, ident: usize) -> bool {
        self.same_place.get(ident).copied().unwrap_or(false)
    }
}

/// Each side's node paths (the last node of a path wins).
pub type Paths<'a> = [NodePaths<'a>; 3];

/// One side's node paths to node indexes (the last node of a path wins). A table of
/// indexes hashed by path, compared through the node list: 9 bytes a slot where a map
/// keyed by `&str` takes 25 (three sides of 135,000 nodes: 7 MB instead of 19 MB).
#[derive(Clone, Default)]
pub struct NodePaths<'a> {
    nodes: &'a [crate::model::Node],
    table: hashbrown::HashTable<usize>,
}

fn path_hash(p: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(p)
}

impl<'a> NodePaths<'a> {
    /// The paths of `nodes`.
    pub fn of(nodes: &'a [crate::model::Node]) -> NodePaths<'a> {
        let mut table = hashbrown::HashTable::with_capacity(nodes.len());
        let path = |j: &usize| nodes[*j].path.as_str();
        for (i, n) in nodes.iter().enumerate() {
            let (p, h) = (n.path.as_str(), path_hash(n.path.as_str()));
            match table.find_mut(h, |j| path(j) == p) {
                Some(slot) => *slot = i,
                None => {
                    table.insert_unique(h, i, |j| path_hash(path(j)));
                }
            }
        }
        NodePaths { nodes, table }
    }

    /// The (last) node at path `p`.
    pub fn get(&self, p: &str) -> Option<&usize> {
        let nodes = self.nodes;
        self.table
            .find(path_hash(p), |&j| nodes[j].path.as_str() == p)
    }

    /// How many different paths.
    pub(in crate::merge) fn len(&self) -> usize {
        self.table.len()
    }
}

impl std::fmt::Debug for NodePaths<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NodePaths({} paths)", self.len())
    }
}

/// Each side's node index of each node's parent, when its parent path names a listed
/// node (or is "."; then the root).
pub type ParentAt = [Vec<Option<usize>>; 3];

/// A base node and the node both sides now hold in its place, paired by
/// `follow_shared` (identity).
#[derive(Debug, Clone)]
pub struct SharedChange {
    /// The identity (base's).
    pub ident: usize,
    /// Whether both sides gave it the same new unique_id (else: same name, type and
    /// new parent).
    pub by_unique_id: bool,
}

/// Per-side lookups from id to index.
pub struct IdIndex<'a> {
    /// ext id -> index.
    pub ext: FxMap<&'a str, usize>,
    /// sub id -> index (the last definition wins, as in the loader).
    pub sub: FxMap<&'a str, usize>,
}

impl<'a> IdIndex<'a> {
    /// Build the lookups of a scene.
    pub fn new(s: &'a Scene) -> IdIndex<'a> {
        IdIndex {
            ext: s
                .ext_resources
                .iter()
                .enumerate()
                .map(|(i, e)| (e.id.as_str(), i))
                .collect(),
            sub: s
                .sub_resources
                .iter()
                .enumerate()
                .map(|(i, e)| (e.id.as_str(), i))
                .collect(),
        }
    }
}
