//! Where the merge puts what only theirs added: a section among the result's sections, a
//! key among a section's pieces (Godot's sorted order when both sides are sorted, else
//! after what it follows in theirs, after anything ours added there). What to add is
//! [`super`]'s decision; this only finds the index.

use super::{Piece, SectionRef};

/// Where a section theirs added goes in `plan`: its sorted place, or after the section it
/// follows in theirs (after any that ours added there), never before the head.
pub(super) fn place<T>(
    plan: &[T],
    before: &[SectionRef<'_>],
    name: &str,
    sorted: bool,
    base: &[SectionRef<'_>],
    name_of: impl Fn(&T) -> &str,
) -> usize {
    if sorted {
        return (1..plan.len())
            .find(|&i| name_of(&plan[i]) > name)
            .unwrap_or(plan.len());
    }
    let pred = before
        .iter()
        .rev()
        .find_map(|p| plan.iter().position(|x| name_of(x) == p.name));
    let mut at = pred.map_or(1, |p| p + 1).min(plan.len());
    let ours_added =
        |n: &str| !base.iter().any(|b| b.name == n) && !before.iter().any(|b| b.name == n);
    while at < plan.len() && ours_added(name_of(&plan[at])) {
        at += 1;
    }
    at
}

/// Where a key theirs added goes among a section's pieces: its sorted place among the
/// keys, or after the key it follows in theirs (after any ours added there), before the
/// blank lines that end the section.
pub(super) fn place_key(
    pieces: &[(Option<String>, Piece)],
    before: &[&str],
    key: &str,
    sorted: bool,
    known: impl Fn(&str) -> bool,
) -> usize {
    let keyed: Vec<usize> = (0..pieces.len())
        .filter(|&i| pieces[i].0.is_some())
        .collect();
    let after_last = keyed
        .last()
        .map_or_else(|| first_content(pieces), |&l| l + 1);
    if sorted {
        return keyed
            .iter()
            .copied()
            .find(|&i| pieces[i].0.as_deref().is_some_and(|k| k > key))
            .unwrap_or(after_last);
    }
    let pred = before
        .iter()
        .rev()
        .find_map(|p| pieces.iter().position(|x| x.0.as_deref() == Some(p)));
    let Some(p) = pred else {
        return keyed.first().copied().unwrap_or(after_last);
    };
    let mut at = p + 1;
    while at < pieces.len() && pieces[at].0.as_deref().is_some_and(|k| !known(k)) {
        at += 1;
    }
    at
}

/// In a section without keys: after its header and the blank line under it.
fn first_content(pieces: &[(Option<String>, Piece)]) -> usize {
    let mut at = 0;
    while at < pieces.len() && pieces[at].0.is_none() {
        if at > 0 && !matches!(pieces[at].1, Piece::Same { blank: true, .. }) {
            break;
        }
        at += 1;
    }
    at.min(pieces.len())
}
