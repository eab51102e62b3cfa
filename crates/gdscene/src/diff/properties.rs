//! Property lists and header fields of two paired sections: which keys were set, removed
//! or changed, with per-component or per-element detail ([`Delta`]) for math types and
//! packed arrays, and at the value's own grain (`grain.rs`). Whether a difference counts is [`super::noise`]'s decision; which
//! sections are paired is the matching's.

use super::context::Differ;
use super::grain::Owner;
use super::noise::Eq3;
use super::report::NoiseKind;
use super::report::{Delta, Detail};
use super::show::{self, component_names, packed_len, Detail as ShowDetail};
use super::side::props_of;
use super::VALUE_LIMIT;
use crate::grain::{ValueChange, ValueDiff};
use crate::syntax::Section;
use crate::value::{self, PackedElems, PackedKind, RefKind, Value};
use std::collections::BTreeMap;

impl<'a> Differ<'a> {
    /// Compare property lists; `subject` names where for noise. With `script_as_field`
    /// (nodes, `[resource]`) a changed `script` reads as a field change.
    pub(super) fn props(
        &mut self,
        subject: &str,
        os: &Section,
        ns: &Section,
        out: &mut Vec<Detail>,
        script_as_field: bool,
    ) {
        let mut op = props_of(self.old.sc, os);
        let mut np = props_of(self.new.sc, ns);
        let owner = Owner::of(&self.new, ns);
        if let Some((before, after, changes)) = self.tracks_delta(&owner, &op, &np) {
            if changes.is_empty() {
                let detail = "tracks renumbered".into();
                self.note(NoiseKind::Reordered, subject, detail);
            }
            out.extend(tracks_change(before, after, changes));
            op.retain(|(k, _)| !k.starts_with("tracks/"));
            np.retain(|(k, _)| !k.starts_with("tracks/"));
        }
        let omap: BTreeMap<&str, &str> = op.iter().copied().collect();
        let nmap: BTreeMap<&str, &str> = np.iter().copied().collect();
        let script = |k: &str| script_as_field && k == "script";
        for (k, nv) in &np {
            match omap.get(k) {
                None if script(k) => out.push(script_field(None, Some(self.new.short(nv)))),
                None => out.push(Detail::PropertyAdded {
                    key: k.to_string(),
                    value: self.new.short(nv),
                }),
                Some(ov) => self.prop_pair(subject, &owner, k, (ov, nv), script(k), out),
            }
        }
        for (k, ov) in &op {
            if nmap.contains_key(k) {
                continue;
            }
            out.push(if script(k) {
                script_field(Some(self.old.short(ov)), None)
            } else {
                Detail::PropertyRemoved {
                    key: k.to_string(),
                    value: self.old.short(ov),
                }
            });
        }
        // Property order is the engine's: old keys in another order are noise.
        let common_old = op.iter().map(|p| p.0).filter(|k| nmap.contains_key(k));
        let common_new = np.iter().map(|p| p.0).filter(|k| omap.contains_key(k));
        if !common_old.eq(common_new) {
            let detail = "properties listed in another order".into();
            self.note(NoiseKind::Reordered, subject, detail);
        }
    }

    /// One property present on both sides.
    fn prop_pair(
        &mut self,
        subject: &str,
        owner: &Owner,
        k: &str,
        (ov, nv): (&str, &str),
        script: bool,
        out: &mut Vec<Detail>,
    ) {
        match self.compare(ov, nv) {
            Eq3::Same => {}
            Eq3::Noise(kind) => {
                let (a, b) = (show::shorten(ov.trim(), 60), show::shorten(nv.trim(), 60));
                self.note(kind, subject, format!("{k}: {a} -> {b}"));
            }
            Eq3::Differs(_) if script => {
                out.push(script_field(
                    Some(self.old.short(ov)),
                    Some(self.new.short(nv)),
                ));
            }
            Eq3::Differs(parsed) => out.push(self.changed(owner, k, ov, nv, parsed)),
        }
    }

    /// A changed property, shown from the parsed values when there are some.
    fn changed(
        &self,
        owner: &Owner,
        key: &str,
        ov: &str,
        nv: &str,
        parsed: Option<Box<(Value, Value)>>,
    ) -> Detail {
        let short = ShowDetail::Short { limit: VALUE_LIMIT };
        let grain = self.grain_delta(owner, key, (ov, nv), parsed.as_deref());
        let (old, new, delta) = match parsed {
            Some(p) => (
                show::show(&p.0, &|k, id| self.old.display(k, id), short),
                show::show(&p.1, &|k, id| self.new.display(k, id), short),
                delta(&p.0, &p.1),
            ),
            None => (self.old.short(ov), self.new.short(nv), Delta::None),
        };
        let delta = match (delta, crate::grain::describe_transform(ov, nv)) {
            (Delta::Components(components), Some(parts)) if !parts.is_empty() => {
                Delta::Transform { parts, components }
            }
            (d, _) => d,
        };
        Detail::PropertyChanged {
            key: key.to_string(),
            old,
            new,
            delta: grain.map_or(delta, Delta::Grain),
        }
    }

    /// Compare one header field (`key=` in the section tag) of two paired sections.
    pub(super) fn field_cmp(
        &mut self,
        subject: &str,
        os: &Section,
        ns: &Section,
        key: &str,
        out: &mut Vec<Detail>,
    ) {
        let (a, b) = (self.old.raw_field(os, key), self.new.raw_field(ns, key));
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b)) => match self.compare(a, b) {
                Eq3::Same => {}
                Eq3::Noise(k) => {
                    self.note(k, subject, format!("{key}: {} -> {}", a.trim(), b.trim()))
                }
                Eq3::Differs(_) => out.push(Detail::Field {
                    field: key.into(),
                    old: Some(self.old.short(a)),
                    new: Some(self.new.short(b)),
                }),
            },
            (a, b) => out.push(Detail::Field {
                field: key.into(),
                old: a.map(|t| self.old.short(t)),
                new: b.map(|t| self.new.short(t)),
            }),
        }
    }
}

/// An Animation's tracks as one change (`N tracks -> M tracks`, the parts below); none
/// when only the numbering changed.
fn tracks_change(before: usize, after: usize, changes: Vec<ValueChange>) -> Option<Detail> {
    let n = |c: usize| format!("{c} track{}", if c == 1 { "" } else { "s" });
    (!changes.is_empty()).then(|| Detail::PropertyChanged {
        key: "tracks".into(),
        old: n(before),
        new: n(after),
        delta: Delta::Grain(ValueDiff {
            changes,
            picture: Vec::new(),
        }),
    })
}

/// `script` set, changed or cleared, reported as a field.
fn script_field(old: Option<String>, new: Option<String>) -> Detail {
    Detail::Field {
        field: "script".into(),
        old,
        new,
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn no_names(_: RefKind, id: &str) -> String {
    id.to_string()
}

/// Per-component or per-element detail of a changed value.
fn delta(a: &Value, b: &Value) -> Delta {
    match (a, b) {
        (Value::Ctor { name: an, args: aa }, Value::Ctor { name: bn, args: ba })
            if value::canonical_ctor_name(an) == value::canonical_ctor_name(bn)
                && aa.len() == ba.len()
                && aa.len() > 1 =>
        {
            ctor_delta(bn, aa, ba)
        }
        (Value::Packed(pa), Value::Packed(pb)) if pa.kind().is_some() && pa.kind() == pb.kind() => {
            let kind = pa.kind().unwrap_or(PackedKind::Byte);
            let (Ok(ea), Ok(eb)) = (pa.elements(), pb.elements()) else {
                return Delta::None;
            };
            let comps = kind.components();
            let (old_len, new_len) = (packed_len(&ea, comps), packed_len(&eb, comps));
            Delta::Packed {
                kind: kind.name().to_string(),
                old_len,
                new_len,
                changed: packed_changed(&ea, &eb, comps, old_len.min(new_len)),
            }
        }
        _ => Delta::None,
    }
}

/// The components of a math value (`Vector2`, `Transform3D`, ...) that changed.
fn ctor_delta(name: &str, aa: &[Value], ba: &[Value]) -> Delta {
    let names = component_names(name, ba.len());
    let mut comps = Vec::new();
    for (i, (x, y)) in aa.iter().zip(ba).enumerate() {
        let same = match (num(x), num(y)) {
            (Some(p), Some(q)) => value::float_eq(p, q),
            _ => x.sem_eq(y),
        };
        if !same {
            let s = |v: &Value| show::show(v, &no_names, ShowDetail::Short { limit: 40 });
            comps.push((names[i].clone(), s(x), s(y)));
        }
    }
    if comps.is_empty() {
        Delta::None
    } else {
        Delta::Components(comps)
    }
}

/// How many of the first `n` elements (of `comps` components each) differ.
fn packed_changed(ea: &PackedElems, eb: &PackedElems, comps: usize, n: usize) -> usize {
    match (ea, eb) {
        (PackedElems::Bytes(x), PackedElems::Bytes(y)) => (0..n).filter(|&i| x[i] != y[i]).count(),
        (PackedElems::Ints(x), PackedElems::Ints(y)) => (0..n).filter(|&i| x[i] != y[i]).count(),
        (PackedElems::Strings(x), PackedElems::Strings(y)) => {
            (0..n).filter(|&i| x[i] != y[i]).count()
        }
        (PackedElems::Floats(x), PackedElems::Floats(y)) => (0..n)
            .filter(|&i| (0..comps).any(|c| !value::float_eq(x[i * comps + c], y[i * comps + c])))
            .count(),
        _ => 0,
    }
}
