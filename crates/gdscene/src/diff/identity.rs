//! Which resource on the old side is which on the new: ext_resources by `uid`, else by
//! path; sub_resources by content (a fingerprint that sees through id renames), then by
//! id and type, then by use (first used by the same node's same property). A pair gets
//! the same label on both sides, which is what lets [`super::noise`] compare references
//! across sides. Nodes are paired in [`super::matching`]; what changed is the phases'.

use super::context::Differ;
use super::side::{props_of, Side};
use crate::syntax::Section;
use crate::value::{self, RefKind};
use std::collections::BTreeMap;

/// FNV-1a, for content fingerprints (deterministic across runs and platforms).
pub(crate) fn fnv(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

/// FNV-style hash eight bytes at a time: only for in-run fingerprints (never shown).
/// Four independent lanes take 32 bytes a step, so the multiplications overlap instead
/// of waiting on each other: a mesh's 10 MB arrays hash about three times faster.
fn fnv_wide(h: &mut u64, bytes: &[u8]) {
    let step = |h: u64, c: &[u8]| {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        (h ^ w).wrapping_mul(0x100000001b3).rotate_left(29)
    };
    let mut blocks = bytes.chunks_exact(32);
    if bytes.len() >= 32 {
        let mut lanes = [*h, *h ^ 0x9e37_79b9, *h ^ 0x85eb_ca6b, *h ^ 0xc2b2_ae35];
        for b in &mut blocks {
            for (k, lane) in lanes.iter_mut().enumerate() {
                *lane = step(*lane, &b[8 * k..8 * k + 8]);
            }
        }
        *h = lanes.iter().fold(*h, |acc, &l| step(acc, &l.to_le_bytes()));
    }
    let mut chunks = blocks.remainder().chunks_exact(8);
    for c in &mut chunks {
        *h = step(*h, c);
    }
    fnv(h, chunks.remainder());
}

/// Offset basis of [`fnv`].
pub(crate) const FNV0: u64 = 0xcbf29ce484222325;

/// A `uid://` worth matching on.
fn valid_uid(u: &Option<String>) -> Option<&str> {
    u.as_deref()
        .filter(|u| u.starts_with("uid://") && u.len() > 6)
}

/// Pair ext_resources (by uid, then by path when at most one side has a uid) and label
/// them; returns old index -> new index.
pub(super) fn pair_ext(d: &mut Differ) -> Vec<Option<usize>> {
    let (o, n) = (&d.old.sc.ext_resources, &d.new.sc.ext_resources);
    let mut pair = vec![None; o.len()];
    let mut taken = vec![false; n.len()];
    let mut by_uid: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut by_path: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (j, e) in n.iter().enumerate() {
        if let Some(u) = valid_uid(&e.uid) {
            by_uid.entry(u).or_default().push(j);
        }
        by_path.entry(e.path.as_str()).or_default().push(j);
    }
    for (i, e) in o.iter().enumerate() {
        let cands = valid_uid(&e.uid).and_then(|u| by_uid.get(u));
        if let Some(j) = cands.and_then(|v| v.iter().copied().find(|&j| !taken[j])) {
            pair[i] = Some(j);
            taken[j] = true;
        }
    }
    for (i, e) in o.iter().enumerate() {
        if pair[i].is_some() {
            continue;
        }
        let no_uid = |j: usize| valid_uid(&e.uid).is_none() || valid_uid(&n[j].uid).is_none();
        let cands = by_path.get(e.path.as_str());
        if let Some(j) = cands.and_then(|v| v.iter().copied().find(|&j| !taken[j] && no_uid(j))) {
            pair[i] = Some(j);
            taken[j] = true;
        }
    }
    let (old_len, new_len) = (o.len(), n.len());
    (d.old.ext_label, d.new.ext_label) = labels(&pair, old_len, new_len, "e");
    pair
}

/// Cross-side labels for a pairing: new item `j` is `{p}{j}`, old items take their
/// partner's label or `{p}o{i}` when unpaired.
fn labels(
    pair: &[Option<usize>],
    old_len: usize,
    new_len: usize,
    p: &str,
) -> (Vec<String>, Vec<String>) {
    let new = (0..new_len).map(|j| format!("{p}{j}")).collect();
    let old = (0..old_len)
        .map(|i| match pair.get(i).copied().flatten() {
            Some(j) => format!("{p}{j}"),
            None => format!("{p}o{i}"),
        })
        .collect();
    (old, new)
}

/// Content fingerprint of every sub_resource of a side: type and properties (sorted by
/// key), references replaced by labels (ext) or the referenced sub's fingerprint.
fn sub_fingerprints(side: &Side) -> Vec<u64> {
    let mut fp: Vec<Option<u64>> = vec![None; side.sc.sub_resources.len()];
    (0..fp.len())
        .map(|i| fingerprint(side, i, &mut fp, 0))
        .collect()
}

/// Fingerprint of sub_resource `i`, memoised in `fp`; `depth` bounds reference cycles.
fn fingerprint(side: &Side, i: usize, fp: &mut Vec<Option<u64>>, depth: usize) -> u64 {
    if let Some(h) = fp[i] {
        return h;
    }
    let sc = side.sc;
    let s = sc.section(sc.sub_resources[i].section);
    let mut props = props_of(sc, s);
    props.sort_by(|a, b| a.0.cmp(b.0));
    let mut h = FNV0;
    fnv(&mut h, sc.sub_resources[i].type_name.as_bytes());
    for (k, v) in props {
        fnv(&mut h, b"\n");
        fnv(&mut h, k.as_bytes());
        fnv(&mut h, b"=");
        if !v.contains("Resource") {
            fnv_wide(&mut h, v.trim().as_bytes());
            continue;
        }
        let t = value::rewrite_refs_in_text(v, &mut |kind, id| match kind {
            RefKind::Ext => Some(side.label(kind, id)),
            RefKind::Sub => match side.sub_by_id.get(id) {
                Some(&j) if j != i && depth < 64 => {
                    Some(format!("{:x}", fingerprint(side, j, fp, depth + 1)))
                }
                _ => Some(format!("?{id}")),
            },
        });
        fnv_wide(&mut h, t.trim().as_bytes());
    }
    fp[i] = Some(h);
    h
}

/// Where each sub_resource is first used: (user, property key).
type UseSites = Vec<Option<(String, String)>>;

/// First use of each sub_resource by the given users (label, section), in their order.
fn use_sites<'s>(side: &Side<'s>, users: impl Iterator<Item = (String, &'s Section)>) -> UseSites {
    let sc = side.sc;
    let mut out: UseSites = vec![None; sc.sub_resources.len()];
    for (owner, s) in users {
        for p in &s.props {
            value::scan_refs_in_text(sc.slice(&p.value), &mut |k, id| {
                if k != RefKind::Sub {
                    return;
                }
                if let Some(&j) = side.sub_by_id.get(id) {
                    if out[j].is_none() {
                        out[j] = Some((owner.clone(), p.key.to_string()));
                    }
                }
            });
        }
    }
    out
}

/// First use by a node (named by `node_label`, its paired identity) or the `[resource]`.
fn node_use_sites(side: &Side, node_label: &dyn Fn(usize) -> String) -> UseSites {
    let sc = side.sc;
    let nodes = sc.nodes.iter().enumerate();
    let nodes = nodes.map(|(i, n)| (node_label(i), sc.section(n.section)));
    let main = sc
        .resource
        .map(|r| ("(resource)".to_string(), sc.section(r)));
    use_sites(side, nodes.chain(main))
}

/// First use by a sub_resource that `sub_label` names (a paired one): how a Gradient used
/// only by a GradientTexture2D is found. Only for subs no node or `[resource]` uses.
fn sub_use_sites(
    side: &Side,
    sub_label: &dyn Fn(usize) -> Option<String>,
    by_nodes: &UseSites,
) -> UseSites {
    let sc = side.sc;
    let subs = sc.sub_resources.iter().enumerate();
    let subs =
        subs.filter_map(|(k, s)| Some((format!("sub {}", sub_label(k)?), sc.section(s.section))));
    let by_subs = use_sites(side, subs);
    let both = by_nodes.iter().zip(by_subs);
    both.map(|(n, s)| n.clone().or(s)).collect()
}

/// sub_resource pairing in progress: old index -> new index, and new indices taken.
struct SubPairing {
    pair: Vec<Option<usize>>,
    taken: Vec<bool>,
}

impl SubPairing {
    fn join(&mut self, i: usize, j: usize) {
        self.pair[i] = Some(j);
        self.taken[j] = true;
    }

    fn complete(&self) -> bool {
        self.pair.iter().all(Option::is_some) || self.taken.iter().all(|t| *t)
    }
}

/// Pair sub_resources (by content, then id and type, then use) and label them; needs
/// ext_resources labelled and nodes paired by key. Returns old index -> new index.
pub(super) fn pair_sub(d: &mut Differ) -> Vec<Option<usize>> {
    let (old_len, new_len) = (d.old.sc.sub_resources.len(), d.new.sc.sub_resources.len());
    let mut p = SubPairing {
        pair: vec![None; old_len],
        taken: vec![false; new_len],
    };
    pair_sub_by_content(d, &mut p);
    pair_sub_by_id(d, &mut p);
    if !p.complete() {
        pair_sub_by_use(d, &mut p);
    }
    (d.old.sub_label, d.new.sub_label) = labels(&p.pair, old_len, new_len, "s");
    p.pair
}

/// Same content (preferring the same id among equals).
fn pair_sub_by_content(d: &Differ, p: &mut SubPairing) {
    let (o, n) = (&d.old.sc.sub_resources, &d.new.sc.sub_resources);
    let fo = sub_fingerprints(&d.old);
    let mut by_fp: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (j, h) in sub_fingerprints(&d.new).into_iter().enumerate() {
        by_fp.entry(h).or_default().push(j);
    }
    for i in 0..o.len() {
        if let Some(c) = by_fp.get(&fo[i]) {
            let free: Vec<usize> = c.iter().copied().filter(|&j| !p.taken[j]).collect();
            if let Some(&j) = free.iter().find(|&&j| n[j].id == o[i].id).or(free.first()) {
                p.join(i, j);
            }
        }
    }
}

/// Same id and type.
fn pair_sub_by_id(d: &Differ, p: &mut SubPairing) {
    let (o, n) = (&d.old.sc.sub_resources, &d.new.sc.sub_resources);
    for (i, os) in o.iter().enumerate() {
        if p.pair[i].is_some() {
            continue;
        }
        if let Some(&j) = d.new.sub_by_id.get(os.id.as_str()) {
            if !p.taken[j] && n[j].type_name == os.type_name {
                p.join(i, j);
            }
        }
    }
}

/// Same use: first used by the same (paired) node's, `[resource]`'s or, round after
/// round, paired sub_resource's same property, with the same type.
fn pair_sub_by_use(d: &Differ, p: &mut SubPairing) {
    let np = &d.node_pair;
    let old_nodes = node_use_sites(&d.old, &|i| {
        np[i].map_or(format!("old{i}"), |j| format!("n{j}"))
    });
    let new_nodes = node_use_sites(&d.new, &|j| format!("n{j}"));
    for _ in 0..=d.old.sc.sub_resources.len() {
        let old_label = |i: usize| p.pair[i].map(|j| format!("s{j}"));
        let so = sub_use_sites(&d.old, &old_label, &old_nodes);
        let sn = sub_use_sites(&d.new, &|j| Some(format!("s{j}")), &new_nodes);
        if !pair_by_sites(d, p, &so, &sn) || p.complete() {
            break;
        }
    }
}

/// Pair unpaired old subs with free new subs first used at the same site; whether any.
fn pair_by_sites(d: &Differ, p: &mut SubPairing, so: &UseSites, sn: &UseSites) -> bool {
    let (o, n) = (&d.old.sc.sub_resources, &d.new.sc.sub_resources);
    let mut by_use: BTreeMap<(&String, &String, &str), usize> = BTreeMap::new();
    for (j, u) in sn.iter().enumerate() {
        if let (Some((a, b)), false) = (u, p.taken[j]) {
            by_use.entry((a, b, n[j].type_name.as_str())).or_insert(j);
        }
    }
    let mut progress = false;
    for i in 0..o.len() {
        let Some((a, b)) = so[i].as_ref().filter(|_| p.pair[i].is_none()) else {
            continue;
        };
        if let Some(&j) = by_use.get(&(a, b, o[i].type_name.as_str())) {
            if !p.taken[j] {
                p.join(i, j);
                progress = true;
            }
        }
    }
    progress
}
