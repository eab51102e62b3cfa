//! A stable, readable projection of a scene for git's `textconv`, so that `git diff`,
//! `git log -p`, `git blame` and `--word-diff` show what changed and nothing else.
//!
//! What it normalises away (re-save noise):
//! - `load_steps`, `unique_id`, and 4.6 id paths (`parent_id_path`, `owner_uid_path`,
//!   `from_uid_path`, `to_uid_path`) are dropped;
//! - ext_resources are listed by path, without id or uid, sorted by path;
//!   `ExtResource("1_abc")` prints as `ExtResource(res://player.gd)`;
//! - sub_resources are named by type plus a hash of their content
//!   (`SubResource(CircleShape2D_3fa2c1)`) and listed in order of first use;
//! - values are printed canonically: floats to 6 significant digits, legacy names
//!   (`Quat`, `PoolIntArray`, ...) in their Godot 4 spelling, spacing normalised.

use crate::diff::show::{self, Detail};
use crate::diff::{fnv, FNV0};
use crate::model::Scene;
use crate::syntax::Section;
use crate::value::{self, RefKind};
use std::collections::BTreeMap;

/// Header fields, node fields and connection fields dropped from the projection.
const DROPPED_FIELDS: [&str; 7] = [
    "load_steps",
    "unique_id",
    "parent_id_path",
    "owner_uid_path",
    "from_uid_path",
    "to_uid_path",
    "id",
];

/// Deepest chain of sub_resource references followed (guards the stack).
const MAX_DEPTH: usize = 256;

struct Names<'a> {
    sc: &'a Scene,
    ext_by_id: BTreeMap<&'a str, usize>,
    sub_by_id: BTreeMap<&'a str, usize>,
    sub_name: Vec<Option<String>>,
}

impl<'a> Names<'a> {
    fn name(&self, k: RefKind, id: &str) -> String {
        match k {
            RefKind::Ext => match self.ext_by_id.get(id) {
                Some(&i) => self.sc.ext_resources[i].path.clone(),
                None => format!("missing:{id}"),
            },
            RefKind::Sub => match self
                .sub_by_id
                .get(id)
                .and_then(|&i| self.sub_name[i].clone())
            {
                Some(n) => n,
                None => format!("missing:{id}"),
            },
        }
    }

    fn value(&self, raw: &str) -> String {
        match value::parse(raw) {
            Ok(v) => show::show(&v, &|k, id| self.name(k, id), Detail::Full),
            Err(_) => raw.trim().to_string(),
        }
    }

    /// Sub refs of a section's properties, in order.
    fn sub_refs(&self, s: &Section) -> Vec<usize> {
        let mut out = Vec::new();
        for p in &s.props {
            value::scan_refs_in_text(self.sc.slice(&p.value), &mut |k, id| {
                if k == RefKind::Sub {
                    if let Some(&j) = self.sub_by_id.get(id) {
                        out.push(j);
                    }
                }
            });
        }
        out
    }
}

fn props(names: &Names, s: &Section, out: &mut String) {
    // Last occurrence of a key wins, at the place of the first.
    let mut order: Vec<&str> = Vec::new();
    let mut last: BTreeMap<&str, &str> = BTreeMap::new();
    for p in &s.props {
        if last
            .insert(p.key.as_str(), names.sc.slice(&p.value))
            .is_none()
        {
            order.push(p.key.as_str());
        }
    }
    for k in order {
        out.push_str(&crate::write::encode_key(k));
        out.push_str(" = ");
        out.push_str(&names.value(last[k]));
        out.push('\n');
    }
}

fn tag(names: &Names, s: &Section, out: &mut String) {
    out.push('[');
    out.push_str(&s.tag.name);
    for f in &s.tag.fields {
        if DROPPED_FIELDS.contains(&f.key.as_str()) {
            continue;
        }
        out.push(' ');
        out.push_str(&f.key);
        out.push('=');
        out.push_str(&names.value(names.sc.slice(&f.value)));
    }
    out.push_str("]\n");
}

/// Name every sub_resource by type and a hash of its canonical content (references to
/// other sub_resources by their names, so the name survives id renames).
fn name_subs(names: &mut Names) {
    let n = names.sc.sub_resources.len();
    let mut state = vec![0u8; n]; // 0 todo, 1 in progress, 2 done
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    fn go(
        names: &mut Names,
        i: usize,
        state: &mut Vec<u8>,
        used: &mut BTreeMap<String, usize>,
        depth: usize,
    ) {
        if state[i] != 0 {
            return;
        }
        state[i] = 1;
        let s = names.sc.section(names.sc.sub_resources[i].section);
        if depth < MAX_DEPTH {
            for j in names.sub_refs(s) {
                go(names, j, state, used, depth + 1);
            }
        }
        let mut body = String::new();
        props(names, s, &mut body);
        let ty = &names.sc.sub_resources[i].type_name;
        let mut h = FNV0;
        fnv(&mut h, ty.as_bytes());
        fnv(&mut h, b"\n");
        fnv(&mut h, body.as_bytes());
        let base = format!("{ty}_{:06x}", h & 0xff_ffff);
        let count = used.entry(base.clone()).or_insert(0);
        *count += 1;
        names.sub_name[i] = Some(if *count == 1 {
            base
        } else {
            format!("{base}~{count}")
        });
        state[i] = 2;
    }
    for i in 0..n {
        go(names, i, &mut state, &mut used, 0);
    }
}

/// Sub_resources in order of first use (each after what it uses), unused ones last.
fn sub_order(names: &Names) -> Vec<usize> {
    let sc = names.sc;
    let mut done = vec![false; sc.sub_resources.len()];
    let mut out = Vec::new();
    fn visit(names: &Names, i: usize, done: &mut Vec<bool>, out: &mut Vec<usize>, depth: usize) {
        if done[i] {
            return;
        }
        done[i] = true;
        if depth < MAX_DEPTH {
            for j in names.sub_refs(names.sc.section(names.sc.sub_resources[i].section)) {
                visit(names, j, done, out, depth + 1);
            }
        }
        out.push(i);
    }
    let roots: Vec<usize> = sc
        .nodes
        .iter()
        .map(|n| n.section)
        .chain(sc.resource)
        .collect();
    for r in roots {
        for j in names.sub_refs(sc.section(r)) {
            visit(names, j, &mut done, &mut out, 0);
        }
    }
    for i in 0..sc.sub_resources.len() {
        visit(names, i, &mut done, &mut out, 0);
    }
    out
}

/// The textconv projection of a scene or resource.
pub fn textconv(sc: &Scene) -> String {
    let mut names = Names {
        sc,
        ext_by_id: sc
            .ext_resources
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect(),
        sub_by_id: sc
            .sub_resources
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect(),
        sub_name: vec![None; sc.sub_resources.len()],
    };
    name_subs(&mut names);
    let mut out = String::new();
    if let Some(h) = sc.doc.sections.first() {
        tag(&names, h, &mut out);
    }
    // ext_resources: by path, then type; duplicates collapse.
    let mut exts: Vec<(String, String)> = sc
        .ext_resources
        .iter()
        .map(|e| (e.path.clone(), e.type_name.clone()))
        .collect();
    exts.sort();
    exts.dedup();
    if !exts.is_empty() {
        out.push('\n');
        for (p, t) in exts {
            out.push_str(&format!(
                "[ext_resource type=\"{}\" path=\"{}\"]\n",
                crate::write::c_escape(&t),
                crate::write::c_escape(&p)
            ));
        }
    }
    for i in sub_order(&names) {
        let s = sc.section(sc.sub_resources[i].section);
        out.push('\n');
        out.push_str(&format!(
            "[sub_resource type=\"{}\" name=\"{}\"]\n",
            crate::write::c_escape(&sc.sub_resources[i].type_name),
            names.sub_name[i].as_deref().unwrap_or("?")
        ));
        props(&names, s, &mut out);
    }
    // Everything else in file order: [resource], nodes, connections, editables.
    for (k, s) in sc.kinds.iter().zip(&sc.doc.sections).skip(1) {
        use crate::model::SectionKind::*;
        match k {
            ExtResource | SubResource | Header => continue,
            Connection | Editable => {}
            _ => out.push('\n'),
        }
        tag(&names, s, &mut out);
        props(&names, s, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"[gd_scene load_steps=4 format=3 uid="uid://s"]

[ext_resource type="Script" path="res://player.gd" id="1_abc"]
[ext_resource type="Texture2D" path="res://icon.png" id="2_def"]

[sub_resource type="CircleShape2D" id="CircleShape2D_aaaaa"]
radius = 0.707107

[sub_resource type="RectangleShape2D" id="RectangleShape2D_bbbbb"]
size = Vector2(1, 2)

[node name="Root" type="Node2D" unique_id=5]
script = ExtResource("1_abc")

[node name="Box" type="CollisionShape2D" parent="." unique_id=6]
shape = SubResource("RectangleShape2D_bbbbb")

[node name="Ball" type="CollisionShape2D" parent="." unique_id=7]
shape = SubResource("CircleShape2D_aaaaa")

[connection signal="a" from="." to="." method="b" from_uid_path=PackedInt32Array(5)]
"#;

    fn tc(s: &str) -> String {
        textconv(&Scene::parse(s.as_bytes()).unwrap())
    }

    #[test]
    fn resolves_ids_and_drops_noise() {
        let t = tc(A);
        assert!(
            t.starts_with("[gd_scene format=3 uid=\"uid://s\"]\n"),
            "{t}"
        );
        assert!(t.contains("script = ExtResource(res://player.gd)\n"), "{t}");
        assert!(
            !t.contains("unique_id") && !t.contains("1_abc") && !t.contains("from_uid_path"),
            "{t}"
        );
        // Sub_resources in order of first use: the box (used first) before the ball.
        let box_at = t.find("[sub_resource type=\"RectangleShape2D\"").unwrap();
        let ball_at = t.find("[sub_resource type=\"CircleShape2D\"").unwrap();
        assert!(box_at < ball_at, "{t}");
        assert!(t.contains("shape = SubResource(RectangleShape2D_"), "{t}");
    }

    #[test]
    fn resave_with_renamed_ids_and_respelled_floats_projects_the_same() {
        let b = A
            .replace("load_steps=4 ", "")
            .replace("1_abc", "1_xyz")
            .replace("CircleShape2D_aaaaa", "CircleShape2D_k2m3n")
            .replace("0.707107", "0.70710677")
            .replace(" unique_id=5", "");
        assert_eq!(tc(A), tc(&b));
    }

    #[test]
    fn real_changes_show() {
        let b = A.replace("size = Vector2(1, 2)", "size = Vector2(1, 3)");
        assert_ne!(tc(A), tc(&b));
        assert!(tc(&b).contains("size = Vector2(1, 3)"));
    }

    #[test]
    fn identical_content_gets_distinct_names() {
        let b = A
            .replace("radius = 0.707107", "size = Vector2(1, 2)")
            .replace("type=\"CircleShape2D\"", "type=\"RectangleShape2D\"");
        let t = tc(&b);
        assert!(t.contains("~2\"]"), "{t}");
    }
}
