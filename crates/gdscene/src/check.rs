//! Structural validation of a scene or resource: what makes the engine drop nodes, fail
//! to resolve a resource, or refuse the file. The merge driver runs it on every result
//! before calling a merge clean, and `tscn-merge check` exposes it.
//!
//! Broken (an [`Severity::Error`]): not exactly one scene root; a parent that does not
//! exist (a parent inside an instanced or inherited scene is fine); an `ExtResource` /
//! `SubResource` that does not resolve, or a `SubResource` used before it is defined;
//! duplicate ids or node paths, or a `unique_id` repeated within one owner; sections out
//! of order; leftover conflict markers; a `[connection]` whose `from` or `to` names no
//! node (ends inside an instanced or inherited scene are not checked). A stale
//! `load_steps` or a BOM is a warning.

use crate::model::{FileKind, Scene, SectionKind};
use crate::value::{scan_refs_in_text, RefKind, WordAhead};
use rustc_hash::FxHashSet as FxSet;
use std::cell::OnceCell;
use std::collections::BTreeSet;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The file loads, but something is off (stale `load_steps`, a BOM).
    Warning,
    /// The file is structurally broken.
    Error,
}

/// One finding, with the line it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line.
    pub line: usize,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl Problem {
    fn error(line: usize, message: String) -> Problem {
        Problem {
            severity: Severity::Error,
            line,
            message,
        }
    }
    fn warning(line: usize, message: String) -> Problem {
        Problem {
            severity: Severity::Warning,
            line,
            message,
        }
    }
}

/// Lines (1-based) that are git conflict markers: `<<<<<<<`, `|||||||`, `=======` or
/// `>>>>>>>` (at least 7 characters) where a section or property could start, at the
/// start of a line outside any string, as the parser reads the file (a tutorial's
/// marker-shaped lines in a script's `source` are text). Inside a block opened so, the
/// block's own markers count whatever its sections hold; strings are followed through
/// ours' sections, as `solve`'s marker reader does.
pub fn conflict_marker_lines(text: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut in_string, mut in_block, mut in_ours) = (false, false, false);
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let kind = [b'<', b'|', b'=', b'>'].into_iter().find(|&m| {
            let n = line.iter().take_while(|&&b| b == m).count();
            n >= 7 && (n == line.len() || (m != b'=' && line[n] == b' '))
        });
        match kind {
            Some(k) if in_block || !in_string => {
                out.push(i + 1);
                in_ours = k == b'<' || (in_ours && k == b'>');
                in_block = k != b'>';
            }
            _ if !in_block || in_ours => {
                in_string = crate::syntax::string_open_after(line, in_string);
            }
            _ => {}
        }
    }
    out
}

/// Problems found in raw bytes before parsing: leftover conflict markers.
pub fn check_markers(text: &[u8]) -> Vec<Problem> {
    conflict_marker_lines(text)
        .into_iter()
        .map(|l| {
            Problem::error(
                l,
                "leftover conflict markers: this line is a git conflict marker".into(),
            )
        })
        .collect()
}

/// Line numbers of a document, indexed on the first question: only a problem needs one.
struct LazyLines<'a> {
    doc: &'a crate::syntax::Document,
    index: OnceCell<crate::syntax::LineIndex>,
}

impl<'a> LazyLines<'a> {
    fn new(doc: &'a crate::syntax::Document) -> Self {
        LazyLines {
            doc,
            index: OnceCell::new(),
        }
    }

    /// 1-based line of a byte offset.
    fn at(&self, offset: usize) -> usize {
        self.index
            .get_or_init(|| crate::syntax::LineIndex::new(&self.doc.text))
            .line(offset)
    }

    /// 1-based line where section `i` starts.
    fn of_section(&self, i: usize) -> usize {
        self.at(self.doc.sections[i].span.start())
    }
}

/// Validate a keyed scene. Problems come sorted by line.
pub fn check(scene: &Scene) -> Vec<Problem> {
    let doc = &scene.doc;
    let mut out = Vec::new();
    let lines = LazyLines::new(doc);

    if doc.has_bom() {
        out.push(Problem::warning(
            1,
            "the file starts with a UTF-8 byte-order mark, which Godot does not read".into(),
        ));
    }

    section_order(scene, &lines, &mut out);

    let (ext_ids, sub_ids) = duplicate_ids(scene, &lines, &mut out);
    reference_problems(scene, &lines, (&ext_ids, &sub_ids), true, &mut out);

    // Nodes: on a second thread for a big scene (they are independent of the rest).
    if scene.nodes.len() >= PARALLEL_NODES_MIN {
        let nodes = std::thread::scope(|scope| {
            let other = std::thread::Builder::new().spawn_scoped(scope, || node_problems(scene));
            // The checker does not panic; if it ever did, check here again.
            other.ok().and_then(|h| h.join().ok())
        });
        out.extend(nodes.unwrap_or_else(|| node_problems(scene)));
    } else {
        out.extend(node_problems(scene));
    }

    out.extend(connection_problems(scene, &lines));

    // load_steps (3.x-4.5): a warning only.
    if let Some(ls) = scene.header.load_steps {
        let want = scene.expected_load_steps();
        if ls != want {
            out.push(Problem::warning(
                1,
                format!(
                    "stale load_steps={ls}: the file has {} resources, so it should be {want}",
                    want - 1
                ),
            ));
        }
    }
    out.sort_by(|a, b| (a.line, b.severity).cmp(&(b.line, a.severity)));
    out
}

/// Ids: an ext_resource or sub_resource id used twice. Gives the ids of
/// each kind, for [`reference_problems`].
fn duplicate_ids<'a>(
    scene: &'a Scene,
    lines: &LazyLines,
    out: &mut Vec<Problem>,
) -> (BTreeSet<&'a str>, BTreeSet<&'a str>) {
    let line_of = |i: usize| lines.of_section(i);
    let mut ext_ids = BTreeSet::new();
    for e in &scene.ext_resources {
        if !ext_ids.insert(e.id.as_str()) {
            out.push(Problem::error(
                line_of(e.section),
                format!("duplicate ext_resource id \"{}\"", e.id),
            ));
        }
    }
    let mut sub_ids = BTreeSet::new();
    for s in &scene.sub_resources {
        if !sub_ids.insert(s.id.as_str()) {
            out.push(Problem::error(
                line_of(s.section),
                format!("duplicate sub_resource id \"{}\"", s.id),
            ));
        }
    }
    (ext_ids, sub_ids)
}

/// References, in file order: an ExtResource must resolve, a SubResource must be
/// defined earlier (and not be the section itself). `quick`: sections without the word
/// `Resource`, and short values read before without a problem, are passed over (tests
/// compare with reading every one).
fn reference_problems(
    scene: &Scene,
    lines: &LazyLines,
    (ext_ids, sub_ids): (&BTreeSet<&str>, &BTreeSet<&str>),
    quick: bool,
    out: &mut Vec<Problem>,
) {
    let doc = &scene.doc;
    let line_at = |offset: usize| lines.at(offset);
    let mut defined: BTreeSet<&str> = BTreeSet::new();
    let mut ahead = WordAhead::any_ref(&doc.text);
    // The short values read without a problem: one met again has none again (the ext
    // ids stay, and the sub ids it names were defined then and still are), and is
    // passed over (a big scene repeats `texture = ExtResource("1_t1l3s")` thousands
    // of times).
    let mut fine: FxSet<&str> = FxSet::default();
    for (i, s) in doc.sections.iter().enumerate() {
        // The many sections that name no resource are passed over (one search ahead
        // through the text); a sub_resource's own id still counts as defined after it.
        if quick && !ahead.within(s.span.range()) {
            defined.extend(own_sub(scene, i).map(|r| r.id.as_str()));
            continue;
        }
        let own_sub = own_sub(scene, i);
        // Whether the text added no problem.
        let mut check_text = |start: usize, text: &str| {
            let before = out.len();
            scan_refs_in_text(text, &mut |kind, id| match kind {
                RefKind::Ext => {
                    if !ext_ids.contains(id) {
                        out.push(Problem::error(
                            line_at(start),
                            format!("ExtResource(\"{id}\") does not resolve: no ext_resource has that id"),
                        ));
                    }
                }
                RefKind::Sub => {
                    if !defined.contains(id) {
                        let msg = if own_sub.is_some_and(|r| r.id == id) {
                            format!("SubResource(\"{id}\") refers to itself")
                        } else if sub_ids.contains(id) {
                            format!("SubResource(\"{id}\") is used before it is defined")
                        } else {
                            format!("SubResource(\"{id}\") does not resolve: no sub_resource has that id")
                        };
                        out.push(Problem::error(line_at(start), msg));
                    }
                }
            });
            out.len() == before
        };
        // And so are the values without the word, in a section with it somewhere.
        let fields = s.tag.fields.iter().filter(|f| f.key != "id");
        let values = fields
            .map(|f| f.value)
            .chain(s.props.iter().map(|p| p.value));
        for v in values {
            if quick && !ahead.within(v.range()) {
                continue;
            }
            let text = doc.slice(&v);
            let short = quick && text.len() <= FINE_TEXT;
            if short && fine.contains(text) {
                continue;
            }
            if check_text(v.start(), text) && short {
                fine.insert(text);
            }
        }
        if let Some(r) = own_sub {
            defined.insert(r.id.as_str());
        }
    }
}

/// A value at most this long is remembered by [`reference_problems`] when it has no
/// problem (hashing a long one costs about what reading it does).
const FINE_TEXT: usize = 256;

/// The sub_resource section `i` is, if it is one. sub_resources are in file order: found
/// by bisection.
fn own_sub(scene: &Scene, i: usize) -> Option<&crate::model::SubResource> {
    if scene.kinds[i] != SectionKind::SubResource {
        return None;
    }
    let k = scene
        .sub_resources
        .binary_search_by_key(&i, |r| r.section)
        .ok()?;
    scene.sub_resources.get(k)
}

/// Section order (spec §3.10): one header first, known tags only, ext_resources and
/// sub_resources before nodes, nothing after a `[resource]`, and the kinds the file's
/// header allows.
fn section_order(scene: &Scene, lines: &LazyLines, out: &mut Vec<Problem>) {
    let doc = &scene.doc;
    let mut phase = 0u8;
    let mut after_resource = false;
    for (i, k) in scene.kinds.iter().enumerate() {
        let name = &doc.sections[i].tag.name;
        if i > 0 && *k == SectionKind::Header {
            out.push(Problem::error(
                lines.of_section(i),
                format!("a second file header `[{name}]`"),
            ));
            continue;
        }
        if *k == SectionKind::Other {
            out.push(Problem::error(
                lines.of_section(i),
                format!("unknown tag `[{name}]`"),
            ));
            continue;
        }
        if after_resource {
            out.push(Problem::error(
                lines.of_section(i),
                format!("`[{name}]` after `[resource]`: nothing may follow the main resource"),
            ));
        }
        match (scene.kind, k) {
            (FileKind::Scene, SectionKind::Resource) => out.push(Problem::error(
                lines.of_section(i),
                "`[resource]` in a scene file".into(),
            )),
            (
                FileKind::Resource,
                SectionKind::Node | SectionKind::Connection | SectionKind::Editable,
            ) => out.push(Problem::error(
                lines.of_section(i),
                format!("`[{name}]` in a resource file"),
            )),
            _ => {}
        }
        if k.phase() < phase {
            out.push(Problem::error(
                lines.of_section(i),
                format!("sections out of order: `[{name}]` must come before every sub_resource and node"),
            ));
        }
        phase = phase.max(k.phase());
        if *k == SectionKind::Resource {
            after_resource = true;
        }
    }
    if scene.kind == FileKind::Resource && scene.resource.is_none() {
        out.push(Problem::error(
            lines.at(doc.text.len()),
            "no `[resource]` section".into(),
        ));
    }
}

/// Scenes with this many nodes check them on a second thread.
const PARALLEL_NODES_MIN: usize = 20_000;

/// The node problems of a scene: roots, parents, duplicate paths and unique_ids.
fn node_problems(scene: &Scene) -> Vec<Problem> {
    let doc = &scene.doc;
    let mut out = Vec::new();
    let lines = LazyLines::new(doc);
    let line_at = |offset: usize| lines.at(offset);
    let line_of = |i: usize| lines.of_section(i);
    if scene.kind == FileKind::Scene {
        let roots: Vec<_> = scene.nodes.iter().filter(|n| n.parent.is_none()).collect();
        if let Some(first) = scene.nodes.first().filter(|_| roots.is_empty()) {
            out.push(Problem::error(
                line_of(first.section),
                "no scene root: every node has a parent".into(),
            ));
        } else if scene.nodes.is_empty() {
            // A header and nothing else (or resources only): Godot cannot instance it.
            out.push(Problem::error(
                line_at(doc.text.len().saturating_sub(1)),
                "no nodes: a scene needs a root `[node]` (one without `parent`)".into(),
            ));
        }
        for extra in roots.iter().skip(1) {
            out.push(Problem::error(
                line_of(extra.section),
                format!(
                    "a second scene root \"{}\" (a node without `parent`)",
                    extra.name
                ),
            ));
        }
        let inherited = scene
            .nodes
            .first()
            .is_some_and(|n| n.parent.is_none() && n.instance().is_some());
        let n_nodes = scene.nodes.len();
        let mut seen_paths: FxSet<&str> =
            FxSet::with_capacity_and_hasher(n_nodes, Default::default());
        let mut instanced: FxSet<&str> = FxSet::default();
        let mut unique: FxSet<&crate::model::NodeKey> = FxSet::default();
        for n in &scene.nodes {
            let l = || line_of(n.section);
            if let Some(p) = &n.parent {
                // A parent inside an instance: some ancestor path of it is instanced.
                let ok = p == "."
                    || inherited
                    || seen_paths.contains(p.as_str())
                    || p.match_indices('/')
                        .any(|(k, _)| instanced.contains(&p[..k]));
                if !ok && !roots.is_empty() {
                    out.push(Problem::error(
                        l(),
                        format!("node \"{}\" has parent \"{p}\", which does not exist (at this point of the file)", n.name),
                    ));
                }
            }
            if !seen_paths.insert(n.path.as_str()) {
                out.push(Problem::error(
                    l(),
                    format!("duplicate node path \"{}\"", n.path),
                ));
            }
            if n.instance().is_some() {
                instanced.insert(n.path.as_str());
            }
            if n.unique_id.is_some()
                && matches!(n.key, crate::model::NodeKey::UniqueId { .. })
                && !unique.insert(&n.key)
            {
                out.push(Problem::error(
                    l(),
                    format!(
                        "unique_id={} is repeated within the same scene",
                        n.unique_id.unwrap_or_default()
                    ),
                ));
            }
        }
    }

    out
}

/// Connections whose `from` or `to` names no node: Godot reports an error on load and
/// drops the connection. Paths are relative to the scene root (`.` is the root). Not
/// checked, because the nodes live in another file: an end that passes through an
/// instanced (or placeholder) node, every end in an inherited scene, an end with a
/// `from_uid_path`/`to_uid_path` (4.6 resolves those through instances), and ends
/// written as absolute or upward paths.
fn connection_problems(scene: &Scene, lines: &LazyLines) -> Vec<Problem> {
    let mut out = Vec::new();
    if scene.kind != FileKind::Scene || scene.connections.is_empty() {
        return out;
    }
    let Some(root) = scene.nodes.first() else {
        return out;
    };
    if root.parent.is_none() && root.instance().is_some() {
        return out;
    }
    let paths: BTreeSet<&str> = scene.nodes.iter().map(|n| n.path.as_str()).collect();
    let instanced: BTreeSet<&str> = scene
        .nodes
        .iter()
        .filter(|n| n.instance().is_some() || n.instance_placeholder().is_some())
        .map(|n| n.path.as_str())
        .collect();
    let resolves = |p: &str| {
        p == "."
            || p.is_empty()
            || p.starts_with('/')
            || p.starts_with("..")
            || paths.contains(p)
            || p.match_indices('/')
                .any(|(k, _)| instanced.contains(&p[..k]))
    };
    for c in &scene.connections {
        let section = &scene.doc.sections[c.section];
        let has = |key: &str| section.tag.fields.iter().any(|f| f.key == key);
        for (end, path, uid_path) in [
            ("from", &c.key.from, "from_uid_path"),
            ("to", &c.key.to, "to_uid_path"),
        ] {
            if !resolves(path.trim()) && !has(uid_path) {
                out.push(Problem::error(
                    lines.of_section(c.section),
                    format!(
                        "connection \"{}\" {end}=\"{path}\": no node has that path (Godot drops the connection with an error)",
                        c.key.signal
                    ),
                ));
            }
        }
    }
    out
}

/// The structural errors the inputs of a merge already have, per side (`sides` pairs a
/// name such as "ours" with the bytes), leaving out sides without errors and sides that
/// do not parse (the merge reports those itself). A merge cannot be expected to repair
/// such errors: when one of them survives into a result that is otherwise clean, the
/// caller says so instead of letting "clean" suggest a valid file.
pub fn input_errors<'a>(sides: &[(&'a str, &[u8])]) -> Vec<(&'a str, Vec<Problem>)> {
    sides
        .iter()
        .filter_map(|&(name, bytes)| {
            let scene = Scene::parse(bytes).ok()?;
            let errors: Vec<Problem> = check(&scene)
                .into_iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            (!errors.is_empty()).then_some((name, errors))
        })
        .collect()
}

/// Whether any problem is an error.
pub fn is_broken(problems: &[Problem]) -> bool {
    problems.iter().any(|p| p.severity == Severity::Error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(src: &str) -> Vec<Problem> {
        check(&Scene::parse(src.as_bytes()).expect("parses"))
    }

    fn errors(src: &str) -> Vec<String> {
        problems(src)
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| p.message)
            .collect()
    }

    const OK: &str = "[gd_scene load_steps=3 format=3]\n\n[ext_resource type=\"Script\" path=\"res://a.gd\" id=\"1_a\"]\n\n[sub_resource type=\"CircleShape2D\" id=\"C_1\"]\n\n[node name=\"R\" type=\"Node2D\"]\nscript = ExtResource(\"1_a\")\n\n[node name=\"S\" type=\"CollisionShape2D\" parent=\".\"]\nshape = SubResource(\"C_1\")\n\n[node name=\"T\" type=\"Node\" parent=\"S\"]\n";

    /// The references' problems found passing over sections without the word
    /// `Resource`, and reading every section.
    fn both_ways(src: &str) -> [Vec<Problem>; 2] {
        let Ok(scene) = Scene::parse(src.as_bytes()) else {
            return [Vec::new(), Vec::new()];
        };
        let lines = LazyLines::new(&scene.doc);
        let mut ids = Vec::new();
        let (ext, sub) = duplicate_ids(&scene, &lines, &mut ids);
        [true, false].map(|quick| {
            let mut out = Vec::new();
            reference_problems(&scene, &lines, (&ext, &sub), quick, &mut out);
            out
        })
    }

    /// Passing over sections changes no finding: broken references (before, after
    /// and without their sub_resource, which names nothing itself) and the corpus.
    #[test]
    fn passing_over_sections_without_resources_finds_the_same() {
        let fwd = "[gd_resource type=\"X\" format=3]\n\n[sub_resource type=\"A\" id=\"a\"]\nb = SubResource(\"b\")\n\n[sub_resource type=\"B\" id=\"b\"]\n\n[resource]\nx = SubResource(\"a\")\ny = ExtResource(\"1\")\n";
        let [quick, slow] = both_ways(fwd);
        assert_eq!(quick.len(), 2, "{quick:?}");
        assert_eq!(quick, slow);
        let broken = OK.replace("SubResource(\"C_1\")", "SubResource(\"C_2\")");
        // The same values again: a broken one is reported each time, and a sub_resource
        // used before its definition and after it only before.
        let twice = OK.replace(
            "shape = SubResource(\"C_1\")\n",
            "shape = SubResource(\"C_1\")\nx = SubResource(\"C_2\")\ny = ExtResource(\"9\")\n",
        );
        let early = twice.replace(
            "[sub_resource type=\"CircleShape2D\" id=\"C_1\"]\n",
            "[sub_resource type=\"CircleShape2D\" id=\"C_0\"]\nshape = SubResource(\"C_1\")\nx = SubResource(\"C_2\")\ny = ExtResource(\"9\")\n\n[sub_resource type=\"CircleShape2D\" id=\"C_1\"]\n",
        );
        let [quick, slow] = both_ways(&early);
        assert_eq!(quick.len(), 5, "{quick:?}");
        assert_eq!(quick, slow);
        for src in [OK.to_string(), broken, twice] {
            let [quick, slow] = both_ways(&src);
            assert_eq!(quick, slow, "{src}");
        }
        for (stored, text) in crate::test_support::corpus_texts(5) {
            let [quick, slow] = both_ways(&text);
            assert_eq!(quick, slow, "{stored}");
        }
    }

    #[test]
    fn a_valid_scene_has_no_problems() {
        assert_eq!(problems(OK), vec![]);
    }

    #[test]
    fn dangling_and_forward_references() {
        let e = errors(&OK.replace("ExtResource(\"1_a\")", "ExtResource(\"9_z\")"));
        assert!(
            e[0].contains("ExtResource(\"9_z\") does not resolve"),
            "{e:?}"
        );
        let e = errors(&OK.replace("SubResource(\"C_1\")", "SubResource(\"nope\")"));
        assert!(e[0].contains("does not resolve"), "{e:?}");
        let fwd = "[gd_resource type=\"X\" format=3]\n\n[sub_resource type=\"A\" id=\"a\"]\nb = SubResource(\"b\")\n\n[sub_resource type=\"B\" id=\"b\"]\n\n[resource]\nx = SubResource(\"a\")\n";
        let e = errors(fwd);
        assert!(e[0].contains("used before it is defined"), "{e:?}");
        let selfref = "[gd_resource type=\"X\" format=3]\n\n[sub_resource type=\"A\" id=\"a\"]\nb = SubResource(\"a\")\n\n[resource]\n";
        assert!(errors(selfref)[0].contains("refers to itself"));
    }

    #[test]
    fn roots_parents_and_duplicates() {
        assert!(
            errors(&OK.replace("parent=\"S\"", "parent=\"Missing\""))[0].contains("does not exist")
        );
        let header_only = errors("[gd_scene format=3 uid=\"uid://a\"]\n");
        assert_eq!(header_only.len(), 1, "{header_only:?}");
        assert!(header_only[0].contains("no nodes"), "{header_only:?}");
        let two_roots = format!("{OK}\n[node name=\"X\" type=\"Node\"]\n");
        assert!(errors(&two_roots)[0].contains("second scene root"));
        let dup = format!("{OK}\n[node name=\"T\" type=\"Node\" parent=\"S\"]\n");
        assert!(errors(&dup)[0].contains("duplicate node path"));
        let dup_id = OK.replace(
            "id=\"C_1\"]",
            "id=\"C_1\"]\n\n[sub_resource type=\"X\" id=\"C_1\"]",
        );
        assert!(errors(&dup_id)
            .iter()
            .any(|e| e.contains("duplicate sub_resource id")));
    }

    #[test]
    fn parents_inside_instances_and_inherited_scenes_are_fine() {
        let src = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"E\" parent=\".\" instance=ExtResource(\"1\")]\n\n[node name=\"X\" parent=\"E/Inner/Deep\"]\n";
        assert_eq!(errors(src), Vec::<String>::new());
        let inherited = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n\n[node name=\"R\" instance=ExtResource(\"1\")]\n\n[node name=\"X\" parent=\"Some/Inner\" index=\"2\"]\n";
        assert_eq!(errors(inherited), Vec::<String>::new());
    }

    #[test]
    fn unique_ids_repeat_only_across_instances() {
        let src = "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n\n[node name=\"R\" type=\"Node\" unique_id=1]\n\n[node name=\"A\" parent=\".\" unique_id=2 instance=ExtResource(\"1\")]\n\n[node name=\"S\" parent=\"A\" unique_id=9]\n\n[node name=\"B\" parent=\".\" unique_id=3 instance=ExtResource(\"1\")]\n\n[node name=\"S\" parent=\"B\" unique_id=9]\n";
        assert_eq!(errors(src), Vec::<String>::new());
        let bad = src.replace("unique_id=3", "unique_id=2");
        assert!(errors(&bad)[0].contains("unique_id=2 is repeated"));
    }

    #[test]
    fn order_and_load_steps() {
        let bad = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[ext_resource type=\"Script\" path=\"res://a.gd\" id=\"1\"]\n";
        assert!(errors(bad)[0].contains("out of order"));
        let stale = OK.replace("load_steps=3", "load_steps=7");
        let p = problems(&stale);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].severity, Severity::Warning);
        assert!(p[0].message.contains("stale load_steps=7"));
    }

    #[test]
    fn connections_to_missing_nodes_are_errors() {
        let with = |c: &str| format!("{OK}\n{c}\n");
        let ok = with("[connection signal=\"ready\" from=\"S/T\" to=\".\" method=\"_on\"]");
        assert_eq!(errors(&ok), Vec::<String>::new());
        let e = errors(&with(
            "[connection signal=\"area_entered\" from=\"Hurtbox\" to=\".\" method=\"_on\"]",
        ));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("from=\"Hurtbox\": no node has that path"),
            "{e:?}"
        );
        let e = errors(&with(
            "[connection signal=\"s\" from=\".\" to=\"S/Gone\" method=\"m\"]",
        ));
        assert!(e[0].contains("to=\"S/Gone\""), "{e:?}");
        let p = problems(&with(
            "[connection signal=\"s\" from=\"X\" to=\".\" method=\"m\"]",
        ));
        assert_eq!(p[0].line, OK.lines().count() + 2);
    }

    #[test]
    fn connections_through_instances_are_not_checked() {
        let inst = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"E\" parent=\".\" instance=ExtResource(\"1\")]\n\n[connection signal=\"s\" from=\"E/Inner/Button\" to=\"E\" method=\"m\"]\n";
        assert_eq!(errors(inst), Vec::<String>::new());
        // Not through the instance: a sibling path is still checked.
        let bad = inst.replace("from=\"E/Inner/Button\"", "from=\"F/Inner\"");
        assert_eq!(errors(&bad).len(), 1);
        let inherited = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://e.tscn\" id=\"1\"]\n\n[node name=\"R\" instance=ExtResource(\"1\")]\n\n[connection signal=\"s\" from=\"Base/Child\" to=\".\" method=\"m\"]\n";
        assert_eq!(errors(inherited), Vec::<String>::new());
        let uid = format!("{OK}\n[connection signal=\"s\" from=\"Moved\" to=\".\" method=\"m\" from_uid_path=PackedInt32Array(5, 7)]\n");
        assert_eq!(errors(&uid), Vec::<String>::new());
    }

    #[test]
    fn input_errors_name_the_broken_sides_only() {
        let dup = format!("{OK}\n[node name=\"T\" type=\"Node\" parent=\"S\"]\n");
        let got = input_errors(&[
            ("base", OK.as_bytes()),
            ("ours", dup.as_bytes()),
            ("theirs", b"not a scene"),
        ]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, "ours");
        assert!(
            got[0].1[0].message.contains("duplicate node path \"S/T\""),
            "{got:?}"
        );
        // Warnings alone are not errors.
        let stale = OK.replace("load_steps=3", "load_steps=9");
        assert!(input_errors(&[("base", stale.as_bytes())]).is_empty());
    }

    #[test]
    fn conflict_markers_are_found_with_their_lines() {
        let t = b"a\n<<<<<<< ours\nb\n||||||| base\n=======\nc\n>>>>>>> theirs\n========== not\n";
        assert_eq!(conflict_marker_lines(t), vec![2, 4, 5, 7]);
        // Marker-shaped lines inside a string are text; a block's own markers count.
        let s = b"a = \"x\n<<<<<<< x\n=======\n>>>>>>> y\n\"\n<<<<<<< ours\nb = \"1\n=======\nb = \"2\n>>>>>>> theirs\nc\"\n";
        assert_eq!(conflict_marker_lines(s), vec![6, 8, 10]);
        let p = check_markers(t);
        assert!(p[0].message.starts_with("leftover conflict markers"));
    }

    #[test]
    fn a_big_scene_reports_node_and_reference_problems_in_line_order() {
        // Enough nodes for the two-thread check; a problem of each kind near the end,
        // where line numbers need the whole file counted.
        let mut src = String::from("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n");
        for i in 0..PARALLEL_NODES_MIN {
            src.push_str(&format!(
                "\n[node name=\"N{i}\" type=\"Node\" parent=\".\"]\n"
            ));
        }
        src.push_str("\n[node name=\"N7\" type=\"Node\" parent=\".\"]\n");
        src.push_str("\n[node name=\"Lost\" type=\"Node\" parent=\"Nowhere\"]\n");
        src.push_str("shape = SubResource(\"missing\")\n");
        let lines = src.lines().count();
        let got: Vec<(usize, String)> = problems(&src)
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| (p.line, p.message))
            .collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].0, lines - 3);
        assert!(got[0].1.contains("duplicate node path \"N7\""), "{got:?}");
        assert_eq!(got[1].0, lines - 1);
        assert!(
            got[1].1.contains("\"Nowhere\", which does not exist"),
            "{got:?}"
        );
        assert_eq!(got[2].0, lines);
        assert!(
            got[2]
                .1
                .contains("SubResource(\"missing\") does not resolve"),
            "{got:?}"
        );
    }
}
