//! The state every phase shares: both [`Side`]s, the node pairing and the noise found so
//! far, with the path translation (old tree to new tree) that the pairing makes possible.
//! It decides nothing itself: matching fills the pairing, the phases read it and add noise.

use super::report::{Noise, NoiseKind};
use super::side::{parent_path, Side};
use super::users::Refs;
use crate::model::{join_path, Scene};
use std::cell::OnceCell;

/// Shared state of one diff.
pub(super) struct Differ<'a> {
    /// The old version.
    pub(super) old: Side<'a>,
    /// The new version.
    pub(super) new: Side<'a>,
    /// Old node index -> paired new node index.
    pub(super) node_pair: Vec<Option<usize>>,
    /// New node index -> paired old node index.
    pub(super) node_pair_rev: Vec<Option<usize>>,
    /// Re-save noise found so far (sorted and deduplicated at the end).
    pub(super) noise: Vec<Noise>,
    /// Every reference of the old side, read when a resource's users are first asked.
    pub(super) old_refs: OnceCell<Refs>,
    /// The same of the new side.
    pub(super) new_refs: OnceCell<Refs>,
}

impl<'a> Differ<'a> {
    /// Both sides, nothing paired yet.
    pub(super) fn new(old: &'a Scene, new: &'a Scene) -> Differ<'a> {
        Differ {
            old: Side::new(old),
            new: Side::new(new),
            node_pair: vec![None; old.nodes.len()],
            node_pair_rev: vec![None; new.nodes.len()],
            noise: Vec::new(),
            old_refs: OnceCell::new(),
            new_refs: OnceCell::new(),
        }
    }

    /// Record re-save noise on `subject`.
    pub(super) fn note(&mut self, kind: NoiseKind, subject: &str, detail: String) {
        self.noise.push(Noise {
            kind,
            subject: subject.to_string(),
            detail,
        });
    }

    /// Translate an old node path to the new tree (following renames and moves).
    pub(super) fn translate(&self, old_path: &str) -> String {
        if let Some(i) = self.old.node_at(old_path) {
            if let Some(j) = self.node_pair[i] {
                return self.new.sc.nodes[j].path.to_string();
            }
        }
        match old_path.rfind('/') {
            Some(k) => {
                let parent = self.translate(&old_path[..k]);
                join_path(&parent, &old_path[k + 1..])
            }
            None => {
                if old_path == "." || old_path.is_empty() {
                    ".".to_string()
                } else {
                    join_path(".", old_path)
                }
            }
        }
    }

    /// Whether old node `i`'s parent is paired with new node `j`'s parent: the quick
    /// answer to "same parent" (a `false` is rechecked by path).
    pub(super) fn parents_paired(&self, i: usize, j: usize) -> bool {
        match (self.old.parent_of[i], self.new.parent_of[j]) {
            (Some(p), Some(q)) => self.node_pair[p] == Some(q),
            _ => false,
        }
    }

    /// Whether old node `i` and new node `j` have the same parent (old parent translated).
    pub(super) fn same_parent(&self, i: usize, j: usize) -> bool {
        if self.parents_paired(i, j) {
            return true;
        }
        let np = self.new.sc.nodes[j].parent.as_deref().map(parent_path);
        self.old_parent_translated(i).as_deref() == np
    }

    /// Old node `i`'s parent path, translated to the new tree (`None` for the root).
    pub(super) fn old_parent_translated(&self, i: usize) -> Option<String> {
        self.old.sc.nodes[i]
            .parent
            .as_ref()
            .map(|p| self.translate(if p.is_empty() { "." } else { p }))
    }
}
