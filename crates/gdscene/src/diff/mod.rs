//! Semantic diff of two versions of a scene or resource.
//!
//! Parts are matched by identity, not by position: nodes by `unique_id` when both sides
//! carry it, else by path (parents renamed or moved are followed); ext_resources by uid,
//! else path; sub_resources by content, then id, then use. Values are compared with their
//! references resolved to what they point at and with engine equality
//! ([`crate::value::sem_eq_top`]), so a re-save that only renamed ids, re-spelled floats,
//! dropped `load_steps`, added uids or `unique_id`s, or reordered resources reports no
//! change. Such differences are kept apart as [`Noise`].
//!
//! The result is a flat, ordered list of [`Change`]s: grouped by node in tree order, then
//! the main resource, ext_resources, sub_resources, connections, editables and the header.
//!
//! Files, in the order [`diff`] runs them:
//! - `side.rs`: one version with its lookups, labels and resource users;
//! - `context.rs`: the state the phases share (`Differ`);
//! - `identity.rs`: which ext_resource / sub_resource is which (pairing and labels);
//! - `matching.rs`: which node is which (unique_id, path, renames, moves), with
//!   `godot3.rs`, the node classes Godot 4 renamed;
//! - `noise.rs`: whether a difference counts, and the re-save noise found;
//! - `properties.rs`: property lists and header fields of two paired sections, with
//!   `grain.rs` describing a changed value by its own parts (cells, tracks, keys, ...);
//! - `agree.rs`: which texts may name a resource whose label differs between the sides;
//! - `nodes.rs`, `resources.rs`, `connections.rs`, `header.rs`: the changes of each part;
//! - `users.rs`: who uses a resource (a report's "used by");
//! - `report.rs`: the result types; `show.rs`: how values read in a report.

mod agree;
mod connections;
mod context;
mod godot3;
mod grain;
mod header;
mod identity;
mod matching;
mod nodes;
mod noise;
mod properties;
mod report;
mod resources;
pub mod show;
mod side;
mod users;

use crate::model::{id_text, Scene};
use crate::syntax::Section;
use context::Differ;
pub use report::{Change, Delta, Detail, DiffReport, Noise, NoiseKind, Subject};
pub use side::sub_display;

/// Byte budget of one value in a report line.
pub const VALUE_LIMIT: usize = 100;

/// Compare two versions of a file. Pure and deterministic.
///
/// Phases: pair ext_resources (by uid, path), nodes by unique_id and path, sub_resources
/// (by content, id, use), then renamed and moved nodes; then list the changes of nodes,
/// the `[resource]`, ext_resources, sub_resources, connections, editables and the header,
/// collecting re-save noise on the way.
pub fn diff(old: &Scene, new: &Scene) -> DiffReport {
    let mut d = Differ::new(old, new);
    let ext_pair = identity::pair_ext(&mut d);
    matching::pair_nodes_by_key(&mut d);
    let sub_pair = identity::pair_sub(&mut d);
    matching::pair_renamed_and_moved(&mut d);
    let mut changes = Vec::new();
    nodes::node_changes(&mut d, &mut changes);
    resources::main_resource_changes(&mut d, &mut changes);
    resources::ext_changes(&mut d, &ext_pair, &mut changes);
    resources::sub_changes(&mut d, &sub_pair, &mut changes);
    connections::connection_changes(&mut d, &mut changes);
    connections::editable_changes(&d, &mut changes);
    header::header_changes(&mut d, &mut changes);
    let mut noise = std::mem::take(&mut d.noise);
    noise.sort();
    noise.dedup();
    DiffReport { changes, noise }
}

/// Compare two optional versions: `None` is a file that does not exist on that side
/// (added or deleted), reported as every part added or removed.
pub fn diff_files(old: Option<&Scene>, new: Option<&Scene>) -> DiffReport {
    match (old, new) {
        (Some(o), Some(n)) => diff(o, n),
        (None, Some(n)) => diff(&empty_like(n), n),
        (Some(o), None) => diff(o, &empty_like(o)),
        (None, None) => DiffReport::default(),
    }
}

/// A file with only the header of `s`: the other side of an added or deleted file.
fn empty_like(s: &Scene) -> Scene {
    let header = s
        .doc
        .sections
        .first()
        .map(|h| s.doc.slice(&h.tag.span))
        .unwrap_or("[gd_scene]");
    Scene::parse(format!("{header}\n").as_bytes())
        .or_else(|_| Scene::parse(b"[gd_scene]\n"))
        .unwrap_or_else(|_| s.clone())
}

/// The id text a `[sub_resource]`/`[ext_resource]` id field holds, as the loader sees it.
pub fn section_id(sc: &Scene, s: &Section) -> Option<String> {
    s.tag.field("id").map(|r| id_text(sc.slice(&r)))
}

#[cfg(test)]
mod shortcut_tests;
#[cfg(test)]
mod tests;
