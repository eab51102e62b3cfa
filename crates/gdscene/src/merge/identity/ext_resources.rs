//! Which ext_resource of base, ours and theirs is the same file: by uid, then by path.

use crate::merge::shared::idents::Table;
use crate::model::Scene;
use std::collections::HashMap;

/// The ext_resource identities: by uid, else by path and type (a re-import).
pub(super) fn match_exts(sc: [&Scene; 3]) -> Table {
    let mut t = Table::new([
        sc[0].ext_resources.len(),
        sc[1].ext_resources.len(),
        sc[2].ext_resources.len(),
    ]);
    let mut by_uid: HashMap<String, usize> = HashMap::new();
    let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
    let mut uid_of: Vec<Option<String>> = Vec::new();
    let mut type_of: Vec<&str> = Vec::new();
    for (side, scene) in sc.iter().enumerate() {
        for (i, e) in scene.ext_resources.iter().enumerate() {
            let uid = e.uid.clone().filter(|u| u.len() > 6);
            let mut cand = uid
                .as_ref()
                .and_then(|u| by_uid.get(u).copied())
                .filter(|&id| !t.claimed(id, side));
            if cand.is_none() {
                // Same path and type with another uid: the file was re-imported, and
                // its uid merges like any field.
                cand = by_path.get(&e.path).and_then(|v| {
                    v.iter().copied().find(|&id| {
                        !t.claimed(id, side)
                            && match (&uid, &uid_of[id]) {
                                (Some(a), Some(b)) => a == b || type_of[id] == e.type_name,
                                _ => true,
                            }
                    })
                });
            }
            let id = match cand {
                Some(id) => {
                    t.bind(id, side, i);
                    id
                }
                None => {
                    uid_of.push(None);
                    type_of.push(e.type_name.as_str());
                    t.fresh(side, i)
                }
            };
            if let Some(u) = uid {
                by_uid.entry(u.clone()).or_insert(id);
                if uid_of[id].is_none() {
                    uid_of[id] = Some(u);
                }
            }
            by_path.entry(e.path.clone()).or_default().push(id);
        }
    }
    t
}
