//! The pictures of a scene's conflicts: the whole file with every conflict taken from
//! ours, with every one taken from theirs, and as the user's current choices resolve it
//! (a conflict not chosen yet drawn from ours), drawn side by side in one view (a node
//! the sides moved stands at two places), the conflicted nodes outlined (on the choices'
//! picture, only those of conflicts still open), the textures read from the project in
//! the work tree around the file. Drawn when the page's state is built and again for
//! each set of choices the page sends (`api/picture`), within [`SECS`] and the
//! library's [`Limits`]; a ConfigFile gets none, and so does a side whose text does not
//! parse.
//!
//! Drawing is the library's, reading the project `diff::assets`', composing the text
//! `hunks`', showing it `page.html`'s.

use super::hunks::{Choice, Merged};
use crate::diff::assets::WorkTree;
use crate::io::deadline;
use gdscene::model::Scene;
use gdscene::render::picture::{self, Limits, Mark, Marks, Pictures, Side};
use serde_json::{json, Value};
use std::path::Path;

/// Longest the pictures may take before the page goes without them.
pub const SECS: f64 = 20.0;

/// The labels of the three pictures, in order.
const LABELS: [&str; 3] = ["ours", "theirs", "choices"];

/// The pictures of ours, theirs and `choices` as the page's JSON (`defs`, once for all;
/// `sides`, each `{label, svg, notes}` or `null`; `open`, how many conflicts the choices
/// leave open; `notes`). `nodes[i]` are the nodes (by path) conflict `i` touches:
/// outlined on ours and theirs, and on the choices' picture while conflict `i` is open.
pub fn pictures(
    target: &Path,
    merged: &Merged,
    nodes: &[Vec<String>],
    choices: &[Option<Choice>],
) -> Value {
    let open: Vec<usize> = (0..merged.conflicts.len())
        .filter(|i| choices.get(*i).is_none_or(Option::is_none))
        .collect();
    let filled: Vec<Option<Choice>> = (0..merged.conflicts.len())
        .map(|i| choices.get(i).cloned().flatten().or(Some(Choice::Ours)))
        .collect();
    let texts = [
        merged.all(|c| &c.ours),
        merged.all(|c| &c.theirs),
        merged.compose(&filled).unwrap_or_default(),
    ];
    let all: Vec<String> = nodes.iter().flatten().cloned().collect();
    let still: Vec<String> = open
        .iter()
        .filter_map(|i| nodes.get(*i))
        .flatten()
        .cloned()
        .collect();
    let target = target.to_path_buf();
    let drawn = deadline::within(SECS, move || draw(&target, &texts, [&all, &still]));
    let p = drawn.unwrap_or_else(|| {
        Pictures::none(format!("No picture: drawing it took longer than {SECS} s."))
    });
    let sides: Vec<Value> = p
        .sides
        .iter()
        .zip(LABELS)
        .map(|(s, label)| match s {
            Some(pic) => json!({"label": label, "svg": pic.svg, "notes": pic.notes}),
            None => Value::Null,
        })
        .collect();
    json!({"defs": p.defs, "sides": sides, "open": open.len(), "notes": p.notes})
}

/// The three texts drawn with the project at `target`'s work tree; `outlined`: the
/// nodes outlined on ours and theirs, and on the choices' picture.
fn draw(target: &Path, texts: &[String; 3], outlined: [&Vec<String>; 2]) -> Pictures {
    let scenes: Vec<Option<Scene>> = texts
        .iter()
        .map(|t| Scene::parse(t.as_bytes()).ok())
        .collect();
    let assets = WorkTree::around(target);
    let res = assets.res_path(target);
    let marks = outlined.map(|nodes| Marks {
        nodes: nodes.iter().map(|n| (n.clone(), Mark::Changed)).collect(),
        ..Marks::default()
    });
    let sides: Vec<Option<Side>> = scenes
        .iter()
        .enumerate()
        .map(|(k, s)| {
            s.as_ref().map(|scene| Side {
                scene,
                path: &res,
                assets: &assets,
                marks: &marks[usize::from(k == 2)],
            })
        })
        .collect();
    picture::draw_labelled(&sides, &Limits::default(), "mt", &LABELS)
}
