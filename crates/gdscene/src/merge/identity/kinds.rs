//! What a node is, apart from where it is: the scene's root, a node's kind (its name and
//! type, or the scene it instances, known by uid too), its values with SubResource ids
//! blanked, and how many rounds pairing by shared parents may take. Asked by both the
//! node matching (`nodes.rs`) and the following of renames and moves (`moves.rs`);
//! deciding which node is which is theirs.

use crate::model::Scene;

/// Rounds of `SharedBy::Parent` pairing (levels of a re-saved subtree under a renamed
/// or moved ancestor).
pub(super) const MAX_SHARED_ROUNDS: usize = 32;

/// Index of the scene root (the node without `parent`), normally the first node.
pub(super) fn root_of(s: &Scene) -> Option<usize> {
    match s.nodes.first() {
        Some(n) if n.parent.is_none() => Some(0),
        _ => s.nodes.iter().position(|n| n.parent.is_none()),
    }
}

/// What a node is, apart from where it is: its name and its type (or instanced scene).
pub(super) fn node_kind(s: &Scene, i: usize) -> (String, String) {
    let n = &s.nodes[i];
    let what = match (&n.type_name, n.instance()) {
        (Some(t), _) => t.to_string(),
        (None, Some(ext)) => {
            let path = s
                .ext_resources
                .iter()
                .rev()
                .find(|e| e.id == ext)
                .map_or("", |e| e.path.as_str());
            format!("instance:{path}")
        }
        _ => String::new(),
    };
    (n.name.to_string(), what)
}

/// Whether two nodes are of one [`node_kind`], an instanced scene known by its
/// ext_resource's `uid` as well as by its path (a moved scene file keeps its uid).
pub(super) fn same_kind(a: (&Scene, usize), b: (&Scene, usize)) -> bool {
    let uid = |(s, i): (&Scene, usize)| {
        let ext = s.nodes[i].instance()?;
        s.ext_resources
            .iter()
            .rev()
            .find(|e| e.id == ext)?
            .uid
            .clone()
    };
    let (ka, kb) = (node_kind(a.0, a.1), node_kind(b.0, b.1));
    ka == kb || (ka.0 == kb.0 && uid(a).is_some() && uid(a) == uid(b))
}

/// A value with every SubResource id left out: sub_resources are matched after nodes, and
/// a re-save that renumbers them must not hide a rename.
pub(super) fn sub_ids_blank(text: &str) -> String {
    if !text.contains("SubResource") {
        return text.to_string();
    }
    crate::value::rewrite_refs_in_text(text, &mut |kind, _| {
        (kind == crate::value::RefKind::Sub).then(String::new)
    })
}
