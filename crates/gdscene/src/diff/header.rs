//! What changed in the file header: kind (`gd_scene`/`gd_resource`), `format`, resource
//! `type`, `script_class` and `uid`. An added `uid` and a changed `load_steps` are noise
//! (noted through [`super::noise`]); the rest of the file is the other phases'.

use super::context::Differ;
use super::report::NoiseKind;
use super::report::{Change, Detail, Subject};
use crate::model::FileKind;

/// Header changes, appended to `changes`.
pub(super) fn header_changes(d: &mut Differ, changes: &mut Vec<Change>) {
    d.note_load_steps();
    let (a, b) = (&d.old.sc.header, &d.new.sc.header);
    let mut field = |f: &str, x: Option<String>, y: Option<String>| {
        if x != y {
            let detail = Detail::Field {
                field: f.into(),
                old: x,
                new: y,
            };
            changes.push(Change {
                subject: Subject::Header,
                detail,
            });
        }
    };
    let kind = |k: FileKind| match k {
        FileKind::Scene => "gd_scene",
        _ => "gd_resource",
    };
    if d.old.sc.kind != d.new.sc.kind {
        let (x, y) = (kind(d.old.sc.kind), kind(d.new.sc.kind));
        field("kind", Some(x.into()), Some(y.into()));
    }
    let format = |f: Option<_>| f.map(|x: i64| x.to_string());
    field("format", format(a.format), format(b.format));
    field("type", a.resource_type.clone(), b.resource_type.clone());
    field(
        "script_class",
        a.script_class.clone(),
        b.script_class.clone(),
    );
    match (&a.uid, &b.uid) {
        (None, Some(u)) => {
            let detail = format!("uid {u}");
            d.note(NoiseKind::UidAdded, "header", detail);
        }
        (x, y) if x != y => field("uid", x.clone(), y.clone()),
        _ => {}
    }
}
