//! Key-by-key merge of dictionary values: `__meta__`, `AnimationLibrary` `_data` (name ->
//! SubResource), `metadata/...` dictionaries and any other dictionary-valued property.
//!
//! Entries are matched by their key's meaning (`"a"` and `&"a"` alike) and compared with
//! engine equality; an entry changed differently on both sides is a conflict naming the key.
//! The editor writes dictionaries with their keys sorted, so a merged dictionary whose keys
//! are all strings is sorted the same way; other key mixes keep ours' order.

use super::change::ValueChange;
use super::text::{same_value, shape, string_of, write_dict, Shape, Spelling};
use super::three::merge_keyed;
use super::{ConflictAt, Grain, GrainConflict, GrainOutcome, PropertyContext};

/// A dictionary's entries as written (key text, value text); `None` if not a dictionary.
pub(crate) fn entries(text: &str) -> Option<Vec<(String, String)>> {
    match shape(text)? {
        Shape::Dict(e) => Some(
            e.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ),
        _ => None,
    }
}

/// The identity of a key: its decoded text for strings, else the text as written.
fn identity(key: &str) -> String {
    string_of(key).unwrap_or_else(|| format!("\u{0}{key}"))
}

pub(crate) fn merge_top(
    ctx: &PropertyContext,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> GrainOutcome {
    let (Some(o), Some(t)) = (entries(ours), entries(theirs)) else {
        return Grain::NotMine;
    };
    let b = match base.map(entries) {
        Some(Some(b)) => b,
        Some(None) => return Grain::NotMine,
        None => Vec::new(),
    };
    match merge_entries(&b, &o, &t) {
        Ok(merged) => Grain::Merged(write_dict(&merged, &Spelling::of(ctx.godot3(), ours))),
        Err(c) => Grain::Conflict(c),
    }
}

/// Whether a side's string keys are in the editor's sorted order (then the merge sorts too).
fn is_sorted(side: &[(String, String)]) -> bool {
    let names: Option<Vec<String>> = side.iter().map(|(k, _)| string_of(k)).collect();
    names.is_some_and(|n| n.windows(2).all(|w| w[0] <= w[1]))
}

/// Merge three entry lists key by key; sorted by key when every key is a string and ours
/// was sorted (as the editor writes it), else ours' order then theirs' additions.
pub(crate) fn merge_entries(
    base: &[(String, String)],
    ours: &[(String, String)],
    theirs: &[(String, String)],
) -> Result<Vec<(String, String)>, Vec<GrainConflict>> {
    let keyed = |side: &[(String, String)]| -> Vec<(String, (String, String))> {
        side.iter()
            .map(|(k, v)| (identity(k), (k.clone(), v.clone())))
            .collect()
    };
    let (b, o, t) = (keyed(base), keyed(ours), keyed(theirs));
    let merged = merge_keyed(
        &b,
        &o,
        &t,
        |x, y| same_value(&x.1, &y.1),
        |_, b, o, t| {
            let key = o.or(t).or(b).map(|e| e.0.clone()).unwrap_or_default();
            let v = |e: Option<&(String, String)>| e.map(|e| e.1.clone());
            Err(vec![GrainConflict {
                at: ConflictAt::Entry(key),
                base: v(b),
                ours: v(o),
                theirs: v(t),
            }])
        },
    )?;
    let mut out: Vec<(String, String)> = merged.into_iter().map(|(_, e)| e).collect();
    let names: Option<Vec<String>> = out.iter().map(|(k, _)| string_of(k)).collect();
    if let (Some(names), true) = (names, is_sorted(ours)) {
        let mut order: Vec<usize> = (0..out.len()).collect();
        order.sort_by(|&a, &b| names[a].cmp(&names[b]));
        out = order
            .into_iter()
            .filter_map(|i| out.get(i).cloned())
            .collect();
    }
    Ok(out)
}

/// One change per entry added, removed or changed between two entry lists.
pub(crate) fn describe_entries(
    old: &[(String, String)],
    new: &[(String, String)],
) -> Vec<ValueChange> {
    describe_entries_by(old, new, same_value)
}

/// [`describe_entries`] with the caller's equality of values.
pub(crate) fn describe_entries_by(
    old: &[(String, String)],
    new: &[(String, String)],
    same: impl Fn(&str, &str) -> bool,
) -> Vec<ValueChange> {
    let keyed = |side: &[(String, String)]| -> Vec<(String, (String, String))> {
        side.iter()
            .map(|(k, v)| (identity(k), (k.clone(), v.clone())))
            .collect()
    };
    let (a, b) = (keyed(old), keyed(new));
    super::three::diff_keyed(&a, &b, |x, y| same(&x.1, &y.1))
        .into_iter()
        .filter_map(|(_, x, y)| {
            let key = x.or(y)?.0.clone();
            let (x, y) = (x.map(|e| e.1.as_str()), y.map(|e| e.1.as_str()));
            Some(ValueChange::of("entry", key, x, y))
        })
        .collect()
}

/// Entries added, removed or changed between two dictionary values.
pub(crate) fn describe(old: &str, new: &str) -> Option<Vec<ValueChange>> {
    Some(describe_entries(&entries(old)?, &entries(new)?))
}
