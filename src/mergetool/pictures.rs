//! The pictures of a scene's conflicts: the whole file with every conflict taken from
//! ours, and with every one taken from theirs, drawn side by side in one view (a node
//! each side moved stands at two places), the conflicted nodes outlined, the textures
//! read from the project in the work tree around the file. Drawn once, when the page's
//! state is built, within [`SECS`] and the library's [`Limits`]; a ConfigFile gets
//! none, and so does a side whose text does not parse.
//!
//! Drawing is the library's, reading the project `diff::assets`', showing it
//! `page.html`'s.

use super::hunks::Merged;
use crate::diff::assets::WorkTree;
use crate::io::deadline;
use gdscene::model::Scene;
use gdscene::render::picture::{self, Limits, Mark, Marks, Pictures, Side};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Longest the pictures may take before the page goes without them.
pub const SECS: f64 = 20.0;

/// The pictures of ours and theirs as the page's JSON (`defs`, once for both; `sides`,
/// each `{label, svg, notes}` or `null`; `notes`), the nodes `conflicted` (by path)
/// outlined.
pub fn pictures(target: &Path, merged: &Merged, conflicted: Vec<String>) -> Value {
    let texts = [merged.all(|c| &c.ours), merged.all(|c| &c.theirs)];
    let target = target.to_path_buf();
    let drawn = deadline::within(SECS, move || draw(&target, &texts, &conflicted));
    let p = drawn.unwrap_or_else(|| {
        Pictures::none(format!("No picture: drawing it took longer than {SECS} s."))
    });
    let sides: Vec<Value> = p
        .sides
        .iter()
        .zip(["ours", "theirs"])
        .map(|(s, label)| match s {
            Some(pic) => json!({"label": label, "svg": pic.svg, "notes": pic.notes}),
            None => Value::Null,
        })
        .collect();
    json!({"defs": p.defs, "sides": sides, "notes": p.notes})
}

/// Both sides drawn with the project at `target`'s work tree.
fn draw(target: &PathBuf, texts: &[String; 2], conflicted: &[String]) -> Pictures {
    let scenes: Vec<Option<Scene>> = texts
        .iter()
        .map(|t| Scene::parse(t.as_bytes()).ok())
        .collect();
    let assets = WorkTree::around(target);
    let res = assets.res_path(target);
    let marks = Marks {
        nodes: conflicted
            .iter()
            .map(|n| (n.clone(), Mark::Changed))
            .collect(),
        ..Marks::default()
    };
    let sides: Vec<Option<Side>> = scenes
        .iter()
        .map(|s| {
            s.as_ref().map(|scene| Side {
                scene,
                path: &res,
                assets: &assets,
                marks: &marks,
            })
        })
        .collect();
    picture::draw_labelled(&sides, &Limits::default(), "mt", &["ours", "theirs"])
}
