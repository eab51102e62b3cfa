//! Re-save noise: what differs in the text but not for the engine. Decides whether two
//! values are the same, the same with ids renamed or floats re-spelled, or really
//! different ([`Eq3`]; an int that became a float, `1` -> `1.0`, is different); and notes the other kinds of noise (dropped `load_steps`, added
//! `uid`s and `unique_id`s, changed 4.6 id paths, resources or properties listed in
//! another order). Which parts to compare is the phases' decision; this file only says
//! whether a difference it is shown counts. The kinds themselves ([`NoiseKind`],
//! [`super::Noise`]) are report types, in `report.rs`.

use super::context::Differ;
use super::report::NoiseKind;
use super::side::Side;
use crate::value::{self, ResId, Value};

/// How two value texts compare.
pub(super) enum Eq3 {
    /// The same text, pointing at the same things.
    Same,
    /// Different text, the same for the engine.
    Noise(NoiseKind),
    /// Different; the parsed (unlabelled) values when both parsed.
    Differs(Option<Box<(Value, Value)>>),
}

impl<'a> Differ<'a> {
    /// Whether every reference in `text` points to the same thing on both sides.
    pub(super) fn same_refs(&self, text: &str) -> bool {
        let mut same = true;
        if text.contains("Resource") {
            value::scan_refs_in_text(text, &mut |k, id| {
                if same && self.old.label(k, id) != self.new.label(k, id) {
                    same = false;
                }
            });
        }
        same
    }

    /// Compare an old value text with a new one: references by what they point at,
    /// values by engine equality.
    pub(super) fn compare(&self, a: &str, b: &str) -> Eq3 {
        if a == b && self.same_refs(a) {
            // Same text: the same unless a reference now points elsewhere.
            return Eq3::Same;
        }
        let (ra, rb) = (self.old.relabel(a), self.new.relabel(b));
        if ra == rb {
            return if a == b {
                Eq3::Same
            } else {
                Eq3::Noise(NoiseKind::IdRenamed)
            };
        }
        let (Ok(x), Ok(y)) = (value::parse(a), value::parse(b)) else {
            return Eq3::Differs(None);
        };
        let (lx, ly) = (labelled(&self.old, a, &x), labelled(&self.new, b, &y));
        // Engine equality, except that an int and a float are never the same value:
        // `1` -> `1.0` is a property that changed type (scripts see it), not a re-spelling.
        if lx.as_ref().unwrap_or(&x).sem_eq(ly.as_ref().unwrap_or(&y)) {
            return Eq3::Noise(NoiseKind::Respelled);
        }
        Eq3::Differs(Some(Box::new((x, y))))
    }

    /// A node gained a `unique_id` (4.6 re-save), or its 4.6 id paths changed.
    pub(super) fn note_node_ids(&mut self, path: &str, pair: (usize, usize)) {
        let (on, nn) = (&self.old.sc.nodes[pair.0], &self.new.sc.nodes[pair.1]);
        if on.unique_id.is_none() && nn.unique_id.is_some() {
            let detail = format!("unique_id={}", nn.unique_id.unwrap_or(0));
            self.note(NoiseKind::UniqueIdAdded, path, detail);
        }
        let os = self.old.sc.section(on.section);
        let ns = self.new.sc.section(nn.section);
        for f in ["parent_id_path", "owner_uid_path"] {
            let (a, b) = (self.old.raw_field(os, f), self.new.raw_field(ns, f));
            if a.is_some() && b.is_some() && a != b {
                self.note(NoiseKind::IdPath, path, format!("{f} changed"));
            }
        }
    }

    /// Paired resources listed in another order.
    pub(super) fn note_order(&mut self, pair: &[Option<usize>], what: &str) {
        if !order_kept(pair) {
            self.note(NoiseKind::Reordered, what, "listed in another order".into());
        }
    }

    /// `load_steps` changed or was dropped.
    pub(super) fn note_load_steps(&mut self) {
        let (a, b) = (self.old.sc.header.load_steps, self.new.sc.header.load_steps);
        if a != b {
            let s = |x: Option<i64>| x.map_or("none".to_string(), |v| v.to_string());
            let detail = format!("load_steps {} -> {}", s(a), s(b));
            self.note(NoiseKind::LoadSteps, "header", detail);
        }
    }
}

/// `v` with its references replaced by cross-side labels (`None` when `text` has none).
pub(super) fn labelled(side: &Side, text: &str, v: &Value) -> Option<Value> {
    if !text.contains("Resource") {
        return None;
    }
    let mut v = v.clone();
    v.map_refs(&mut |k, id| Some(ResId::Str(side.label(k, &id.key()))));
    Some(v)
}

/// Whether the paired items keep their relative order.
fn order_kept(pair: &[Option<usize>]) -> bool {
    let v: Vec<usize> = pair.iter().flatten().copied().collect();
    v.windows(2).all(|w| w[0] < w[1])
}
