//! Lockstep: most nodes of ours and theirs sit where base has them, in base's order.
//! Such a node joins its base node's identity without a lookup when the keyed matching
//! (`nodes.rs`) could only answer that: same key, path and parent identity. Decides
//! when that answer is certain, reading as little of each node as it can: what base's
//! pass noted of each base node ([`BaseNode`]), a node's section from the sections'
//! kinds ([`node_sections`]), and a copied section's node not at all
//! ([`Scene::copied_from`]).

use crate::merge::shared::idents::{ParentAt, Table, B};
use crate::model::{NodeKey, Scene, SectionKind};

/// Each node's section, in node order, told by the sections' kinds: the model builds
/// one node for each `[node]` section, in file order (`model::nodes::build_nodes`), so
/// lockstep need not read a node to learn its section. `None` when the counts differ
/// (then each node is asked).
pub(super) fn node_sections(s: &Scene) -> Option<impl Iterator<Item = usize> + '_> {
    let node = |k: &SectionKind| *k == SectionKind::Node;
    let secs = || {
        (s.kinds.iter().enumerate())
            .filter(move |(_, k)| node(k))
            .map(|(i, _)| i)
    };
    (secs().count() == s.nodes.len()).then(secs)
}

/// A base node as lockstep sees it ([`Lockstep::ident`]).
#[derive(Clone, Copy)]
pub(super) struct BaseNode {
    /// Its section in base's document.
    pub(super) sec: u32,
    /// Its key is its path (no `unique_id`): a node copied from its section has that
    /// key, path and parent.
    pub(super) path_key: bool,
    /// Its `parent=`.
    pub(super) parent: ParentKind,
}

/// A node's `parent=`, as lockstep tells parents apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ParentKind {
    /// None: the root.
    Root,
    /// `"."`: under the root.
    Dot,
    /// Any other path.
    Path,
}

impl ParentKind {
    pub(super) fn of(n: &crate::model::Node) -> ParentKind {
        match n.parent.as_deref() {
            None => ParentKind::Root,
            Some(".") => ParentKind::Dot,
            Some(_) => ParentKind::Path,
        }
    }
}

impl BaseNode {
    pub(super) fn of(n: &crate::model::Node) -> BaseNode {
        BaseNode {
            sec: u32::try_from(n.section).unwrap_or(u32::MAX),
            path_key: matches!(n.key, NodeKey::Path(_)),
            parent: ParentKind::of(n),
        }
    }
}

/// Whether two nodes have one key, their paths apart: a path key is the node's path
/// (the model keys a node without `unique_id` by it), which lockstep compares next, so
/// two path keys are not compared twice (each a read of a cold part of the node).
fn same_key(a: &crate::model::Node, b: &crate::model::Node) -> bool {
    match (&a.key, &b.key) {
        (NodeKey::Path(_), NodeKey::Path(_)) => true,
        (x, y) => x == y,
    }
}

/// What [`Lockstep::ident`] reads: the scenes, the identities so far, base's parents,
/// and the side's nodes joined by lockstep so far.
pub(super) struct Lockstep<'t, 's> {
    pub(super) sc: [&'s Scene; 3],
    pub(super) t: &'t Table,
    pub(super) parent_at: &'t ParentAt,
    /// For each node of the side, the base node it joined by lockstep (`u32::MAX`:
    /// none yet).
    pub(super) locked: &'t [u32],
    pub(super) side: usize,
    /// Base's root and the side's.
    pub(super) roots: (Option<usize>, Option<usize>),
}

impl Lockstep<'_, '_> {
    /// The base identity node `n` of the side certainly joins, when `n` is the base
    /// node at `bc` (seen as `base`) unchanged in key, path and parent identity (see
    /// [`super::nodes`]'s `join_lockstep`). A node whose section was copied from the base
    /// node's ([`Scene::copied_from`]) has its path and parent, and its key when that
    /// is the path: those are not compared.
    pub(super) fn ident(
        &self,
        (n, sec): (&crate::model::Node, Option<usize>),
        bc: usize,
        base: BaseNode,
    ) -> Option<usize> {
        let (sc, t, side) = (self.sc, self.t, self.side);
        let bn = || sc[B].nodes.get(bc);
        let own = |n: &crate::model::Node| match &n.key {
            NodeKey::UniqueId { scope, .. } => scope.is_empty(),
            NodeKey::Path(_) => true,
        };
        let sec = sec.unwrap_or(n.section);
        let copied = sc[side].copied_from(sc[B], sec) == Some(base.sec as usize);
        let same = match (copied, base.path_key) {
            (true, true) => true,
            (true, false) => own(n) && bn().is_some_and(|bn| bn.key == n.key),
            (false, _) => bn().is_some_and(|bn| {
                own(n) && same_key(bn, n) && bn.path == n.path && bn.parent == n.parent
            }),
        };
        if !same {
            return None;
        }
        let id = t.of[B][bc];
        if id == usize::MAX || t.claimed(id, side) {
            return None;
        }
        let same_parent = match base.parent {
            ParentKind::Root => true,
            ParentKind::Dot => match self.roots {
                (Some(br), Some(sr)) => t.bound(side, sr) && t.of[side][sr] == t.of[B][br],
                _ => false,
            },
            ParentKind::Path => self.parent_at[B][bc]
                .and_then(|bp| Some((bp, t.at[t.of[B][bp]][side]?)))
                .is_some_and(|(bp, spi)| self.parent_path_is(spi, bp, n)),
        };
        same_parent.then_some(id)
    }

    /// Whether the side's node `spi`, base node `bp`'s, sits at `n`'s parent path. Base
    /// found `bp` at that path (base node `bc`'s parent path, which is `n`'s); a node
    /// that joined `bp` by lockstep has `bp`'s path: no compare.
    fn parent_path_is(&self, spi: usize, bp: usize, n: &crate::model::Node) -> bool {
        if self
            .locked
            .get(spi)
            .is_some_and(|&l| l != u32::MAX && l as usize == bp)
        {
            return true;
        }
        let p = n.parent.as_deref();
        p.is_some() && self.sc[self.side].nodes.get(spi).map(|s| s.path.as_str()) == p
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::merge::identity::nodes::match_nodes;

    /// A root and two children.
    const BASE: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"X\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(1, 2)\n\n[node name=\"Z\" type=\"Node2D\" parent=\".\"]\nrotation = 1.5\n";

    /// [`same_key`] leaves path keys to the path compare: a path key is the node's
    /// path, with and without unique ids around, inside an instance too.
    #[test]
    fn a_path_key_is_the_node_s_path() {
        let uid = BASE.replace(
            "name=\"X\" type=\"Node2D\"",
            "name=\"X\" type=\"Node2D\" unique_id=5",
        );
        let inst = "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://m.tscn\" id=\"1_m\"]\n\n[node name=\"W\" type=\"Node3D\"]\n\n[node name=\"P\" parent=\".\" instance=ExtResource(\"1_m\")]\n\n[node name=\"S\" parent=\"P/A\"]\n";
        let mut paths = 0;
        for text in [BASE, uid.as_str(), inst] {
            let scene = Scene::parse(text.as_bytes()).expect("parses");
            for n in &scene.nodes {
                if let NodeKey::Path(k) = &n.key {
                    paths += 1;
                    assert_eq!(k, &n.path);
                }
            }
        }
        assert!(paths > 6);
    }

    /// A base with nested nodes, and with unique ids or an instance's override entries
    /// when asked.
    pub(in crate::merge::identity) fn lockstep_base(uids: bool) -> String {
        let mut text = String::from("[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://m.tscn\" id=\"1_m\"]\n\n[node name=\"R\" type=\"Node\"]\n");
        let mut uid = 10;
        let mut id = || {
            uid += 1;
            if uids {
                format!(" unique_id={uid}")
            } else {
                String::new()
            }
        };
        for a in 0..3 {
            text += &format!(
                "\n[node name=\"A{a}\" type=\"Node\" parent=\".\"{}]\nv = {a}\n",
                id()
            );
            for b in 0..3 {
                text += &format!(
                    "\n[node name=\"B{b}\" type=\"Node\" parent=\"A{a}\"{}]\n",
                    id()
                );
                text += &format!(
                    "\n[node name=\"C\" type=\"Node\" parent=\"A{a}/B{b}\"{}]\nw = {b}\n",
                    id()
                );
            }
        }
        text += &format!(
            "\n[node name=\"P\" parent=\".\" instance=ExtResource(\"1_m\"){}]\n",
            id()
        );
        text += &format!("\n[node name=\"S\" parent=\"P/X\"{}]\nz = 1\n", id());
        text
    }

    /// Lockstep answers alike whether ours and theirs were read following base (their
    /// copied sections then skip the compares) or afresh, over edits, renames, moves,
    /// additions and removals, with and without unique ids; and the copies are there.
    #[test]
    fn lockstep_over_copies_answers_as_over_compares() {
        for uids in [false, true] {
            let base = lockstep_base(uids);
            let edits: [(&str, &str); 6] = [
                ("v = 1", "v = 9"),
                (
                    "name=\"B1\" type=\"Node\" parent=\"A0\"",
                    "name=\"B7\" type=\"Node\" parent=\"A0\"",
                ),
                ("parent=\"A2/B0\"", "parent=\"A1/B0\""),
                (
                    "w = 2",
                    "w = 2\n\n[node name=\"New\" type=\"Node\" parent=\"A1\"]\n",
                ),
                ("name=\"A1\" type=\"Node\"", "name=\"A1\" type=\"Node2D\""),
                ("z = 1", "z = 2"),
            ];
            for (i, (from, to)) in edits.iter().enumerate() {
                let (of, ot) = edits[(i + 2) % edits.len()];
                let ours = base.replacen(from, to, 1);
                let theirs = base.replacen(of, ot, 1);
                let b = Scene::parse(base.as_bytes()).expect("parses");
                let like = [&ours, &theirs].map(|t| Scene::parse_like(t.as_bytes(), &b));
                let fresh = [&ours, &theirs].map(|t| Scene::parse(t.as_bytes()));
                let [Ok(lo), Ok(lt)] = &like else {
                    panic!("parses")
                };
                let [Ok(fo), Ok(ft)] = &fresh else {
                    panic!("parses")
                };
                let copied = (0..lo.doc.sections.len())
                    .filter(|&k| lo.copied_from(&b, k).is_some())
                    .count();
                assert!(copied > 10, "{copied}");
                let a = match_nodes([&b, lo, lt]);
                let f = match_nodes([&b, fo, ft]);
                assert_eq!(
                    (&a.0.at, &a.0.of, &a.2, &a.4),
                    (&f.0.at, &f.0.of, &f.2, &f.4)
                );
            }
        }
    }

    /// The sections the kinds tell are the nodes' own, read afresh or following base.
    #[test]
    fn node_sections_are_the_nodes_own() {
        let base = lockstep_base(true);
        let b = Scene::parse(base.as_bytes()).expect("parses");
        let o = base.replace("v = 1", "v = 9\n\n[sub_resource type=\"X\" id=\"x\"]\n");
        let o = Scene::parse_like(o.as_bytes(), &b).expect("parses");
        for s in [&b, &o] {
            let secs: Vec<usize> = node_sections(s).expect("counts agree").collect();
            let own: Vec<usize> = s.nodes.iter().map(|n| n.section).collect();
            assert_eq!(secs, own);
            assert!(own.len() > 20);
        }
    }
}
