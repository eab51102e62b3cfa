//! Who uses a resource: the nodes, and the main `[resource]`, that refer to it directly
//! or through sub_resources, for a report's "used by". It decides nothing about change;
//! [`super::resources`] asks it for each resource added, removed or changed.
//!
//! Every reference of a side is read once, on first use, into flat lists of targets: a
//! target is a resource by the index its id finds in the side's lookup, so two
//! references meet exactly when their ids are equal, and a 135,000-node scene costs one
//! list, not a list and an id string per node.

use super::side::Side;
use crate::model::Scene;
use crate::syntax::Section;
use crate::value::{self, RefKind};
use std::cell::OnceCell;
use std::collections::BTreeSet;

/// A resource referred to: its kind and the index its id finds in the side's lookup (the
/// same for every spelling of one id; an id no resource has is never a target).
type Target = (RefKind, usize);

/// Every reference of every node, sub_resource and the main resource of one side.
#[derive(Default)]
pub(super) struct Refs {
    /// (node index, target), in node order.
    nodes: Vec<(usize, Target)>,
    /// (sub_resource index, target), in file order.
    subs: Vec<(usize, Target)>,
    /// The targets of `[resource]`.
    main: Vec<Target>,
}

impl Refs {
    /// Read every reference of `side`'s scene.
    pub(super) fn of(side: &Side) -> Refs {
        let sc = side.sc;
        let mut refs = Refs::default();
        for (i, n) in sc.nodes.iter().enumerate() {
            scan_section(side, sc.section(n.section), &mut |t| {
                refs.nodes.push((i, t))
            });
        }
        for (i, s) in sc.sub_resources.iter().enumerate() {
            scan_section(side, sc.section(s.section), &mut |t| refs.subs.push((i, t)));
        }
        if let Some(sec) = sc.resource {
            scan_section(side, sc.section(sec), &mut |t| refs.main.push(t));
        }
        refs
    }
}

/// The target an id finds on `side`, `None` when no resource of that kind has it.
fn target(side: &Side, kind: RefKind, id: &str) -> Option<Target> {
    let map = match kind {
        RefKind::Ext => &side.ext_by_id,
        RefKind::Sub => &side.sub_by_id,
    };
    map.get(id).map(|&i| (kind, i))
}

/// Every reference in a section's `instance`/`script` fields and its properties.
fn scan_section(side: &Side, s: &Section, out: &mut dyn FnMut(Target)) {
    let sc: &Scene = side.sc;
    let mut f = |k: RefKind, id: &str| {
        if let Some(t) = target(side, k, id) {
            out(t);
        }
    };
    for fl in &s.tag.fields {
        if fl.key == "instance" || fl.key == "script" {
            value::scan_refs_in_text(sc.slice(&fl.value), &mut f);
        }
    }
    for p in &s.props {
        value::scan_refs_in_text(sc.slice(&p.value), &mut f);
    }
}

/// [`users`], the side's references read into `refs` on first use (only a diff with a
/// resource added, removed or changed needs them).
pub(super) fn users_of(
    side: &Side,
    refs: &OnceCell<Refs>,
    kind: RefKind,
    idx: usize,
) -> Vec<String> {
    users(side, refs.get_or_init(|| Refs::of(side)), kind, idx)
}

/// Paths of the nodes using resource `idx` of `kind`, directly or through
/// sub_resources, sorted; `(resource)` for the main resource.
fn users(side: &Side, refs: &Refs, kind: RefKind, idx: usize) -> Vec<String> {
    let id = match kind {
        RefKind::Ext => &side.sc.ext_resources[idx].id,
        RefKind::Sub => &side.sc.sub_resources[idx].id,
    };
    let mut out = BTreeSet::new();
    let mut seen_subs = BTreeSet::new();
    let mut stack: Vec<Target> = target(side, kind, id).into_iter().collect();
    while let Some(t) = stack.pop() {
        for &(ni, _) in refs.nodes.iter().filter(|r| r.1 == t) {
            out.insert(side.sc.nodes[ni].path.to_string());
        }
        if refs.main.contains(&t) {
            out.insert("(resource)".to_string());
        }
        for &(si, _) in refs.subs.iter().filter(|r| r.1 == t) {
            if seen_subs.insert(si) {
                let sub_id = &side.sc.sub_resources[si].id;
                stack.extend(target(side, RefKind::Sub, sub_id));
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer by id strings, as a reference: every reference read, ids compared.
    fn users_by_id(side: &Side, kind: RefKind, idx: usize) -> Vec<String> {
        let sc = side.sc;
        let ids = |sec: usize| {
            let mut v: Vec<(RefKind, String)> = Vec::new();
            let s = sc.section(sec);
            let mut f = |k: RefKind, id: &str| v.push((k, id.to_string()));
            for fl in s
                .tag
                .fields
                .iter()
                .filter(|f| f.key == "instance" || f.key == "script")
            {
                value::scan_refs_in_text(sc.slice(&fl.value), &mut f);
            }
            for p in &s.props {
                value::scan_refs_in_text(sc.slice(&p.value), &mut f);
            }
            v
        };
        let id = match kind {
            RefKind::Ext => sc.ext_resources[idx].id.clone(),
            RefKind::Sub => sc.sub_resources[idx].id.clone(),
        };
        let (mut out, mut seen, mut stack) = (BTreeSet::new(), BTreeSet::new(), vec![(kind, id)]);
        while let Some(want) = stack.pop() {
            for n in &sc.nodes {
                if ids(n.section).contains(&want) {
                    out.insert(n.path.to_string());
                }
            }
            if sc.resource.is_some_and(|r| ids(r).contains(&want)) {
                out.insert("(resource)".to_string());
            }
            for (si, s) in sc.sub_resources.iter().enumerate() {
                if ids(s.section).contains(&want) && seen.insert(si) {
                    stack.push((RefKind::Sub, s.id.clone()));
                }
            }
        }
        out.into_iter().collect()
    }

    #[test]
    fn users_by_target_are_users_by_id() {
        let text = r#"[gd_scene format=3]

[ext_resource type="Texture2D" path="res://a.png" id="1_a"]
[ext_resource type="Script" path="res://s.gd" id="2_s"]
[ext_resource type="Texture2D" path="res://b.png" id="1_a"]

[sub_resource type="AtlasTexture" id="At_1"]
atlas = ExtResource("1_a")

[sub_resource type="SpriteFrames" id="Fr_1"]
animations = [{"frames": [{"texture": SubResource("At_1")}], "name": &"idle"}]

[sub_resource type="AtlasTexture" id="At_1"]
atlas = ExtResource("1_\u0061")

[sub_resource type="Loop" id="Loop_1"]
next = SubResource("Loop_2")

[sub_resource type="Loop" id="Loop_2"]
next = SubResource("Loop_1")
other = SubResource("Gone")

[node name="Root" type="Node2D" script=ExtResource("2_s")]
loop = SubResource("Loop_2")

[node name="Hero" type="AnimatedSprite2D" parent="."]
sprite_frames = SubResource("Fr_1")
note = "ExtResource(\"1_a\") in a string"

[node name="Icon" type="Sprite2D" parent="."]
texture = ExtResource( "1_a" )
"#;
        let scene = crate::model::Scene::parse(text.as_bytes()).expect("scene");
        let side = Side::new(&scene);
        let refs = Refs::of(&side);
        let mut nonempty = 0;
        for (kind, n) in [(RefKind::Ext, 3), (RefKind::Sub, 5)] {
            for idx in 0..n {
                let want = users_by_id(&side, kind, idx);
                nonempty += usize::from(!want.is_empty());
                assert_eq!(users(&side, &refs, kind, idx), want, "{kind:?} {idx}");
            }
        }
        assert!(nonempty >= 6, "{nonempty} resources with users");
    }
}
