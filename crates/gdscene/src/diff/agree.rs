//! Which texts may hold a reference that points elsewhere on the other side: the ids whose
//! labels differ between the sides, found once per diff, so that an unchanged node's text
//! is scanned for references only when it could name one of them. It decides nothing
//! about a change; [`super::nodes`] asks it before [`super::context::Differ::same_refs`].

use super::context::Differ;
use super::side::Side;
use crate::value::RefKind;
use memchr::memmem::Finder;

/// More ids than this that disagree, and each text is scanned instead of searched.
const MOST_SEARCHED: usize = 8;

/// Where references may disagree between the two sides.
pub(super) enum Agreement {
    /// Every id of either side has the same label on both: any text's references agree.
    All,
    /// Only these ids disagree: a text that spells none of them, and holds no escape (an
    /// id written with one), has references that agree.
    Except(Vec<Finder<'static>>),
    /// Too many disagree to search for: scan every text.
    Scan,
}

impl Agreement {
    /// The ids of either side whose labels differ ([`Side::label`]).
    pub(super) fn of(d: &Differ) -> Agreement {
        let mut differ: Vec<String> = Vec::new();
        for k in [RefKind::Ext, RefKind::Sub] {
            for id in ids(&d.old, k).chain(ids(&d.new, k)) {
                if d.old.label(k, id) != d.new.label(k, id) && !differ.iter().any(|x| x == id) {
                    if differ.len() == MOST_SEARCHED {
                        // Stop here: thousands of relabelled ids would cost a square.
                        return Agreement::Scan;
                    }
                    differ.push(id.to_string());
                }
            }
        }
        if differ.is_empty() {
            return Agreement::All;
        }
        let finders = differ.iter().map(|id| Finder::new(id.as_bytes()));
        Agreement::Except(finders.map(Finder::into_owned).collect())
    }

    /// Whether `text`'s references surely point to the same things on both sides
    /// (`false`: scan it to know).
    pub(super) fn surely_holds_for(&self, text: &str) -> bool {
        match self {
            Agreement::All => true,
            Agreement::Except(ids) => {
                let b = text.as_bytes();
                memchr::memchr(b'\\', b).is_none() && ids.iter().all(|f| f.find(b).is_none())
            }
            Agreement::Scan => false,
        }
    }
}

/// The resource ids of one kind on `side`.
fn ids<'s>(side: &'s Side, k: RefKind) -> Box<dyn Iterator<Item = &'s str> + 's> {
    match k {
        RefKind::Ext => Box::new(side.sc.ext_resources.iter().map(|e| e.id.as_str())),
        RefKind::Sub => Box::new(side.sc.sub_resources.iter().map(|e| e.id.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Scene;

    const OLD: &str = r#"[gd_scene format=3]

[ext_resource type="Texture2D" path="res://a.png" id="1_a"]
[ext_resource type="Texture2D" path="res://b.png" id="2_b"]

[sub_resource type="CircleShape2D" id="Shape_1"]
radius = 4.0

[node name="Root" type="Node2D"]

[node name="A" type="Sprite2D" parent="."]
texture = ExtResource("1_a")

[node name="B" type="Sprite2D" parent="."]
texture = ExtResource("2_b")

[node name="C" type="Sprite2D" parent="."]
texture = ExtResource("2_\u0062")

[node name="D" type="CollisionShape2D" parent="."]
shape = SubResource("Shape_1")
note = "no reference: ExtResource(\"2_b\") in a string"
"#;

    /// For each new version, every node text the agreement passes has references
    /// that agree when scanned: the shortcut never says "same" where the scan says not.
    #[test]
    fn a_text_passed_without_a_scan_would_pass_the_scan() {
        let news = [
            OLD.to_string(),
            // 2_b now names another file: B and C (escaped) name an id that disagrees.
            OLD.replace("res://b.png", "res://c.png"),
            // A sub_resource added: its id disagrees, no old text names it.
            OLD.replace(
                "[node name=\"Root\"",
                "[sub_resource type=\"RectangleShape2D\" id=\"Rect_1\"]\n\n[node name=\"Root\"",
            ),
        ];
        let mut searched = 0;
        for new in &news {
            let (old, new) = (
                Scene::parse(OLD.as_bytes()).unwrap(),
                Scene::parse(new.as_bytes()).unwrap(),
            );
            let mut d = Differ::new(&old, &new);
            super::super::identity::pair_ext(&mut d);
            super::super::identity::pair_sub(&mut d);
            let agreement = Agreement::of(&d);
            searched += usize::from(matches!(agreement, Agreement::Except(_)));
            for n in &old.nodes {
                let text = old.slice(&old.section(n.section).span);
                if agreement.surely_holds_for(text) {
                    assert!(d.same_refs(text), "{text}");
                }
            }
        }
        assert_eq!(searched, 2, "two versions with ids that disagree");
    }
}
