//! Canonical writer for whole sections: section tags, property lines and the blank lines
//! between sections, as the Godot editor lays them out (spec §4.1–4.7 and §5).
//!
//! Values inside are written by [`crate::write::value`] (or taken from an input, already in
//! editor form); this module puts them in the editor's field order and spacing, so a
//! section the merge had to build reads exactly like one the editor saved.

use super::{encode_key, Dialect};
use crate::model::SectionKind;

/// Field order of the file header: `[gd_scene …]` and `[gd_resource …]` (§4.2).
pub const HEADER_FIELDS: &[&str] = &["type", "script_class", "load_steps", "format", "uid"];
/// Field order of `[ext_resource …]` in Godot 4 (§4.3).
pub const EXT_FIELDS_4: &[&str] = &["type", "uid", "path", "id"];
/// Field order of `[ext_resource …]` in Godot 3 (§5).
pub const EXT_FIELDS_3: &[&str] = &["path", "type", "id"];
/// Field order of `[sub_resource …]` (§4.4).
pub const SUB_FIELDS: &[&str] = &["type", "id"];
/// Field order of `[node …]` (§4.6; Godot 3 writes the same order without the id fields).
pub const NODE_FIELDS: &[&str] = &[
    "name",
    "type",
    "parent",
    "parent_id_path",
    "owner",
    "owner_uid_path",
    "index",
    "unique_id",
    "node_paths",
    "groups",
    "instance_placeholder",
    "instance",
];
/// Field order of `[connection …]` (§4.7).
pub const CONNECTION_FIELDS: &[&str] = &[
    "signal",
    "from",
    "to",
    "method",
    "flags",
    "from_uid_path",
    "to_uid_path",
    "unbinds",
    "binds",
];
/// Field order of `[editable …]`.
pub const EDITABLE_FIELDS: &[&str] = &["path"];

/// The editor's field order for a section kind; unknown fields go after these, in the
/// order given.
pub fn field_order(kind: SectionKind, dialect: Dialect) -> &'static [&'static str] {
    match kind {
        SectionKind::Header => HEADER_FIELDS,
        SectionKind::ExtResource if dialect == Dialect::Godot3 => EXT_FIELDS_3,
        SectionKind::ExtResource => EXT_FIELDS_4,
        SectionKind::SubResource => SUB_FIELDS,
        SectionKind::Node => NODE_FIELDS,
        SectionKind::Connection => CONNECTION_FIELDS,
        SectionKind::Editable => EDITABLE_FIELDS,
        SectionKind::Resource | SectionKind::Other => &[],
    }
}

/// Write a section tag: `[name key=value key=value]`, fields in the editor's order for
/// the section kind. Each value is the text to write (already escaped and formatted).
/// A later field with the same key replaces an earlier one, as the loader would read it.
pub fn tag<K: AsRef<str>, V: AsRef<str>>(
    name: &str,
    fields: &[(K, V)],
    dialect: Dialect,
) -> String {
    let order = field_order(SectionKind::of(name), dialect);
    let rank = |k: &str| order.iter().position(|f| *f == k).unwrap_or(order.len());
    let mut list: Vec<(&str, &str)> = Vec::with_capacity(fields.len());
    for (k, v) in fields {
        let (k, v) = (k.as_ref(), v.as_ref());
        match list.iter_mut().find(|(x, _)| *x == k) {
            Some(slot) => slot.1 = v,
            None => list.push((k, v)),
        }
    }
    // Stable: unknown keys keep their relative order after the known ones.
    list.sort_by_key(|(k, _)| rank(k));
    let mut out = String::with_capacity(
        name.len()
            + 2
            + list
                .iter()
                .map(|(k, v)| k.len() + v.len() + 3)
                .sum::<usize>(),
    );
    out.push('[');
    out.push_str(name);
    for (k, v) in list {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        // The writer's quirk: connection binds are written `binds= [ … ]`.
        if k == "binds" && name == "connection" {
            out.push(' ');
        }
        out.push_str(v);
    }
    out.push(']');
    out
}

/// A property line without its line feed: `key = value`, the key encoded (§4.11).
pub fn property_line(key: &str, value: &str) -> String {
    format!("{} = {value}", encode_key(key))
}

/// What the editor writes between the end of one section (after its last line feed) and
/// the start of the next (§4.1, §5): a blank line, or nothing.
pub fn separator(prev: SectionKind, next: SectionKind, dialect: Dialect) -> &'static str {
    use SectionKind::*;
    match (prev, next) {
        (ExtResource, ExtResource) | (Connection, Connection) => "",
        // Godot 3 gives every editable its own blank line; Godot 4 writes them as a block.
        (Editable, Editable) if dialect != Dialect::Godot3 => "",
        _ => "\n",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scene;

    const G4: Dialect = Dialect::Godot4 { format: 3 };

    #[test]
    fn node_fields_in_editor_order() {
        let t = tag(
            "node",
            &[
                ("instance", "ExtResource(\"1_abcde\")"),
                ("parent", "\".\""),
                ("unique_id", "123"),
                ("name", "\"Player\""),
                ("groups", "[\"a\", \"b\"]"),
            ],
            G4,
        );
        assert_eq!(
            t,
            "[node name=\"Player\" parent=\".\" unique_id=123 groups=[\"a\", \"b\"] instance=ExtResource(\"1_abcde\")]"
        );
    }

    #[test]
    fn ext_resource_order_differs_between_godot_3_and_4() {
        let f = [
            ("id", "\"1_x\""),
            ("path", "\"res://a.png\""),
            ("type", "\"Texture2D\""),
            ("uid", "\"uid://b\""),
        ];
        assert_eq!(
            tag("ext_resource", &f, G4),
            "[ext_resource type=\"Texture2D\" uid=\"uid://b\" path=\"res://a.png\" id=\"1_x\"]"
        );
        let f3 = [
            ("id", "1"),
            ("type", "\"Texture\""),
            ("path", "\"res://a.png\""),
        ];
        assert_eq!(
            tag("ext_resource", &f3, Dialect::Godot3),
            "[ext_resource path=\"res://a.png\" type=\"Texture\" id=1]"
        );
    }

    #[test]
    fn connection_binds_quirk_and_unknown_fields_last() {
        let t = tag(
            "connection",
            &[
                ("binds", "[1]"),
                ("custom", "1"),
                ("method", "\"m\""),
                ("flags", "3"),
                ("signal", "\"s\""),
                ("to", "\".\""),
                ("from", "\"B\""),
            ],
            G4,
        );
        assert_eq!(
            t,
            "[connection signal=\"s\" from=\"B\" to=\".\" method=\"m\" flags=3 binds= [1] custom=1]"
        );
        // A repeated key: the later value wins, as the loader reads it.
        assert_eq!(
            tag(
                "sub_resource",
                &[("id", "1"), ("type", "\"A\""), ("id", "2")],
                G4
            ),
            "[sub_resource type=\"A\" id=2]"
        );
    }

    #[test]
    fn property_lines_and_separators() {
        assert_eq!(
            property_line("position", "Vector2(1, 2)"),
            "position = Vector2(1, 2)"
        );
        assert_eq!(property_line("a b", "1"), "\"a b\" = 1");
        use SectionKind::*;
        assert_eq!(separator(ExtResource, ExtResource, G4), "");
        assert_eq!(separator(ExtResource, SubResource, G4), "\n");
        assert_eq!(separator(Node, Node, G4), "\n");
        assert_eq!(separator(Connection, Connection, G4), "");
        assert_eq!(separator(Editable, Editable, G4), "");
        assert_eq!(separator(Editable, Editable, Dialect::Godot3), "\n");
    }

    /// The corpus is the judge: rebuild every section tag of every corpus file from its
    /// fields, given in reverse order, and count how many come out byte for byte; rebuild
    /// the blank lines between sections the same way.
    #[test]
    fn corpus_tags_and_blank_lines_are_reproduced() {
        if crate::test_support::shared_dir().is_none() {
            eprintln!("shared corpus not found; skipped");
            return;
        }
        let (mut tags, mut tag_same, mut seps, mut sep_same) = (0usize, 0usize, 0usize, 0usize);
        let mut misses: Vec<String> = Vec::new();
        for (stored, text) in crate::test_support::corpus_texts(1) {
            let Ok(scene) = Scene::parse(text.as_bytes()) else {
                continue;
            };
            let doc = &scene.doc;
            if doc.uses_crlf() {
                continue;
            }
            let dialect = if scene.is_godot3() {
                Dialect::Godot3
            } else {
                G4
            };
            for (i, s) in doc.sections.iter().enumerate() {
                let fields: Vec<(&str, &str)> = s
                    .tag
                    .fields
                    .iter()
                    .rev()
                    .map(|f| (f.key.as_str(), doc.slice(&f.value)))
                    .collect();
                let keys: Vec<&str> = s.tag.fields.iter().map(|f| f.key.as_str()).collect();
                let dupes = keys.iter().enumerate().any(|(j, k)| keys[..j].contains(k));
                if !dupes {
                    tags += 1;
                    let want = doc.slice(&s.tag.span);
                    if tag(&s.tag.name, &fields, dialect) == want {
                        tag_same += 1;
                    } else if misses.len() < 8 {
                        misses.push(format!("{stored}: {want}"));
                    }
                }
                if let Some(next) = doc.sections.get(i + 1) {
                    // The text after the section's last line, up to the next tag.
                    let body_end = s
                        .props
                        .last()
                        .map_or(s.tag.span.end(), |p| p.line.end())
                        .max(s.tag.span.end());
                    let gap = doc.slice(&(body_end..s.span.end()));
                    let ended = doc.text[..body_end].ends_with('\n');
                    if let Some(gap) = if ended {
                        Some(gap)
                    } else {
                        gap.strip_prefix('\n')
                    } {
                        seps += 1;
                        let kind = |x: &crate::syntax::Section| SectionKind::of(&x.tag.name);
                        if separator(kind(s), kind(next), dialect) == gap {
                            sep_same += 1;
                        } else if misses.len() < 16 {
                            misses.push(format!(
                                "{stored}: {:?} -> {:?}: {gap:?}",
                                kind(s),
                                kind(next)
                            ));
                        }
                    }
                }
            }
        }
        eprintln!(
            "section tags rebuilt byte for byte: {tag_same}/{tags}; blank lines: {sep_same}/{seps}"
        );
        for m in &misses {
            eprintln!("  differs: {m}");
        }
        assert!(tags > 100_000, "the corpus was read ({tags} tags)");
        // Hand-edited and very old files may differ; editor-saved ones must not.
        assert!(tag_same * 1000 >= tags * 995, "{tag_same}/{tags}");
        assert!(sep_same * 1000 >= seps * 990, "{sep_same}/{seps}");
    }
}
