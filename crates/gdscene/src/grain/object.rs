//! Property-by-property merge of `Object(Class, "prop": value, ...)` values: one side's
//! change of one property and the other's of another both land. Godot 4.8 writes such a
//! value over several lines (`Object(Class,` LF `"a": 1,` LF `"b": 2` LF `)`), earlier
//! editors on one; the merged value keeps ours' layout. The class must be the same on all
//! three sides (else the value is not merged here).

use super::text::{same_value, shape, Shape};
use super::three::merge_keyed;
use super::{ConflictAt, Grain, GrainConflict, GrainOutcome};

/// An Object value: its class, its properties as written, and whether it is written one
/// property a line (Godot 4.8).
struct Object {
    class: String,
    props: Vec<(String, String)>,
    multi_line: bool,
}

fn object(text: &str) -> Option<Object> {
    let Shape::Call("Object", items) = shape(text)? else {
        return None;
    };
    let (class, rest) = items.split_first()?;
    let props = rest
        .iter()
        .map(|p| {
            let (k, v) = p.split_once(':')?;
            let k = k.trim();
            (k.starts_with('"') && k.ends_with('"') && k.len() >= 2)
                .then(|| (k.to_string(), v.trim().to_string()))
        })
        .collect::<Option<Vec<_>>>()?;
    let head = format!("Object({class},");
    let multi_line = text.trim_start().strip_prefix(&head)?.starts_with('\n');
    Some(Object {
        class: class.to_string(),
        props,
        multi_line,
    })
}

/// Write an Object in the layout of `like`.
fn write(like: &Object, props: &[(String, String)]) -> String {
    let list: Vec<String> = props.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    if like.multi_line {
        format!("Object({},\n{}\n)", like.class, list.join(",\n"))
    } else {
        format!("Object({},{})", like.class, list.join(","))
    }
}

/// Merge three Object values property by property.
pub(crate) fn merge(base: Option<&str>, ours: &str, theirs: &str) -> GrainOutcome {
    let (Some(o), Some(t), Some(b)) = (object(ours), object(theirs), base.and_then(object)) else {
        return Grain::NotMine;
    };
    if o.class != t.class || o.class != b.class {
        return Grain::NotMine;
    }
    let merged = merge_keyed(
        &b.props,
        &o.props,
        &t.props,
        |x, y| same_value(x, y),
        |k, b, o, t| {
            Err(vec![GrainConflict {
                at: ConflictAt::Entry(k.clone()),
                base: b.cloned(),
                ours: o.cloned(),
                theirs: t.cloned(),
            }])
        },
    );
    match merged {
        Ok(props) => Grain::Merged(write(&o, &props)),
        Err(c) => Grain::Conflict(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "Object(RefCounted,\n\"script\":null,\n\"x\":1,\n\"y\":2\n)";

    #[test]
    fn godot_48_multi_line_objects_merge_property_by_property() {
        let ours = BASE.replace("\"x\":1", "\"x\":5");
        let theirs = BASE.replace("\"y\":2", "\"y\":7");
        let Grain::Merged(m) = merge(Some(BASE), &ours, &theirs) else {
            panic!("not merged");
        };
        assert_eq!(
            m,
            "Object(RefCounted,\n\"script\":null,\n\"x\":5,\n\"y\":7\n)"
        );
        let one = "Object(RefCounted,\"script\":null,\"x\":1)";
        let Grain::Merged(m) = merge(
            Some(one),
            &one.replace(":1", ":2"),
            &one.replace("null", "ExtResource(\"1\")"),
        ) else {
            panic!("not merged");
        };
        assert_eq!(
            m,
            "Object(RefCounted,\"script\":ExtResource(\"1\"),\"x\":2)"
        );
    }

    #[test]
    fn a_property_changed_differently_on_both_sides_conflicts() {
        let ours = BASE.replace("\"x\":1", "\"x\":5");
        let theirs = BASE.replace("\"x\":1", "\"x\":6");
        let Grain::Conflict(c) = merge(Some(BASE), &ours, &theirs) else {
            panic!("no conflict");
        };
        assert_eq!(c[0].at, ConflictAt::Entry("\"x\"".into()));
        let other = BASE.replace("RefCounted", "Node");
        assert!(matches!(merge(Some(BASE), &ours, &other), Grain::NotMine));
    }
}
