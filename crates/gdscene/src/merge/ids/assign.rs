//! Resource ids in the file's own shape: Godot 3 integers (next free), Godot 4
//! `N_xxxxx` for ext_resources and `Type_xxxxx` for sub_resources (spec §4.3, §4.4).
//! New ids are derived from a hash of what they name, so a merge is deterministic.
//! Which id each resource gets in the result (ours keeps its ids; theirs' keep theirs
//! when free and of the file's shape) is decided here too; which resources stay and
//! their order are left to [`crate::merge::values::resources`] and [`crate::merge::tree::order`].

use crate::merge::decisions::Decision;
use crate::merge::shared::context::Ctx;
use crate::merge::shared::idents::{B, O, T};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};

/// The 34 characters Godot draws id suffixes from (no `z`, no `9`).
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxy012345678";

fn fnv(s: &str, salt: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt.wrapping_mul(0x100_0000_01b3);
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn suffix(seed: &str, attempt: u64) -> String {
    let mut h = fnv(seed, attempt);
    (0..5)
        .map(|_| {
            let c = ALPHABET[(h % ALPHABET.len() as u64) as usize] as char;
            h /= ALPHABET.len() as u64;
            c
        })
        .collect()
}

/// Whether an id is a plain integer (Godot 3, or a 4.x runtime save).
pub fn is_int_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())
}

/// Natural, case-insensitive order of ids (spec §4.3): `2_x` before `10_y`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let na = std::str::from_utf8(&a[si..i])
                .unwrap_or("0")
                .trim_start_matches('0');
            let nb = std::str::from_utf8(&b[sj..j])
                .unwrap_or("0")
                .trim_start_matches('0');
            let o = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            let o = a[i].to_ascii_lowercase().cmp(&b[j].to_ascii_lowercase());
            if o != Ordering::Equal {
                return o;
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// The next free integer id.
fn next_int(used: &BTreeSet<String>) -> String {
    let max = used
        .iter()
        .filter_map(|u| u.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    (max + 1).to_string()
}

/// A new ext_resource id, unused so far. `position` is the 1-based place of the
/// resource in the result; `seed` names it (its path) so the id is deterministic.
pub fn new_ext_id(int_style: bool, position: usize, seed: &str, used: &BTreeSet<String>) -> String {
    if int_style {
        return next_int(used);
    }
    (0..)
        .map(|attempt| format!("{position}_{}", suffix(seed, attempt)))
        .find(|c| !used.contains(c))
        .unwrap_or_default()
}

/// A new sub_resource id, unused so far, in `Type_xxxxx` shape (or an integer).
pub fn new_sub_id(int_style: bool, type_name: &str, seed: &str, used: &BTreeSet<String>) -> String {
    if int_style {
        return next_int(used);
    }
    let ty: String = type_name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let ty = if ty.is_empty() {
        "Resource".to_string()
    } else {
        ty
    };
    (0..)
        .map(|attempt| format!("{ty}_{}", suffix(seed, attempt)))
        .find(|c| !used.contains(c))
        .unwrap_or_default()
}

/// A new node `unique_id`, unused so far, in the shape Godot 4.6 gives them (a positive
/// 31-bit number), derived from `seed` so that a merge is deterministic.
pub fn new_node_uid(seed: &str, used: &BTreeSet<i64>) -> i64 {
    (0..)
        .map(|attempt| (fnv(seed, attempt) & 0x7fff_ffff) as i64)
        .find(|c| *c != 0 && !used.contains(c))
        .unwrap_or_default()
}

/// Ids in the result of the ext_resources in `order` (renames recorded).
pub(in crate::merge) fn ext_ids(ctx: &mut Ctx, order: &[usize]) -> HashMap<usize, String> {
    let sc = ctx.sc;
    let o = sc[O];
    let godot3 = o.is_godot3();
    let int_ext =
        o.ext_resources.iter().all(|e| is_int_id(&e.id)) && (godot3 || !o.ext_resources.is_empty());
    let int_ext = int_ext || (o.ext_resources.is_empty() && godot3);
    let at = &ctx.id.ext.at;
    assign_ids(
        order,
        |i| at[i][O].map(|k| o.ext_resources[k].id.clone()),
        |i| {
            let side = if at[i][T].is_some() { T } else { B };
            let e = &sc[side].ext_resources[at[i][side].unwrap_or_default()];
            (e.id.clone(), e.type_name.clone(), e.path.clone())
        },
        |id| is_int_id(id) == int_ext || o.ext_resources.is_empty(),
        |pos, _, seed, used| new_ext_id(int_ext, pos + 1, seed, used),
        "ext_resource",
        &mut ctx.decisions,
    )
}

/// Ids in the result of the sub_resources in `order` (renames recorded).
pub(in crate::merge) fn sub_ids(ctx: &mut Ctx, order: &[usize]) -> HashMap<usize, String> {
    let sc = ctx.sc;
    let o = sc[O];
    let int_sub = o.is_godot3()
        || (!o.sub_resources.is_empty() && o.sub_resources.iter().all(|s| is_int_id(&s.id)));
    let at = &ctx.id.sub.at;
    assign_ids(
        order,
        |i| at[i][O].map(|k| o.sub_resources[k].id.clone()),
        |i| {
            let side = if at[i][T].is_some() { T } else { B };
            let r = &sc[side].sub_resources[at[i][side].unwrap_or_default()];
            (
                r.id.clone(),
                r.type_name.clone(),
                format!("{}:{}", r.type_name, r.id),
            )
        },
        |id| is_int_id(id) == int_sub,
        |_, type_name, seed, used| new_sub_id(int_sub, type_name, seed, used),
        "sub_resource",
        &mut ctx.decisions,
    )
}

/// Ids in the result, for identities in output order: ours keeps its ids; a part from
/// theirs (or base) keeps its id when it is free and has the file's shape (`fits`), else
/// gets a new one from `fresh(position, type, seed, used)`, recorded as a decision.
#[allow(clippy::too_many_arguments)]
fn assign_ids(
    order: &[usize],
    ours_id: impl Fn(usize) -> Option<String>,
    other: impl Fn(usize) -> (String, String, String),
    fits: impl Fn(&str) -> bool,
    mut fresh: impl FnMut(usize, &str, &str, &BTreeSet<String>) -> String,
    section: &'static str,
    decisions: &mut Vec<Decision>,
) -> HashMap<usize, String> {
    let mut ids: HashMap<usize, String> = HashMap::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for &i in order {
        if let Some(id) = ours_id(i) {
            used.insert(id.clone());
            ids.insert(i, id);
        }
    }
    for (pos, &i) in order.iter().enumerate() {
        if ids.contains_key(&i) {
            continue;
        }
        let (id, type_name, seed) = other(i);
        let new = if !used.contains(&id) && fits(&id) {
            id
        } else {
            let n = fresh(pos, &type_name, &seed, &used);
            decisions.push(Decision::IdRenamed {
                section,
                type_name,
                from: id,
                to: n.clone(),
            });
            n
        };
        used.insert(new.clone());
        ids.insert(i, new);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_of_ids() {
        assert_eq!(natural_cmp("2_x", "10_y"), Ordering::Less);
        assert_eq!(natural_cmp("10_abcde", "9_xxxxx"), Ordering::Greater);
        assert_eq!(natural_cmp("1_ABC", "1_abd"), Ordering::Less);
        assert_eq!(natural_cmp("3", "3"), Ordering::Equal);
    }

    #[test]
    fn new_ids_have_the_file_shape_and_are_free() {
        let used: BTreeSet<String> = ["1", "2", "7"].iter().map(|s| s.to_string()).collect();
        assert_eq!(new_ext_id(true, 4, "res://a.png", &used), "8");
        assert_eq!(new_sub_id(true, "BoxShape3D", "x", &used), "8");
        let id = new_ext_id(false, 3, "res://a.png", &BTreeSet::new());
        assert!(id.starts_with("3_") && id.len() == 7, "{id}");
        assert!(id[2..].bytes().all(|b| ALPHABET.contains(&b)));
        let sub = new_sub_id(false, "BoxShape3D", "seed", &BTreeSet::new());
        assert!(sub.starts_with("BoxShape3D_") && sub.len() == 16, "{sub}");
        let taken: BTreeSet<String> = [sub.clone()].into_iter().collect();
        assert_ne!(new_sub_id(false, "BoxShape3D", "seed", &taken), sub);
        // Deterministic.
        assert_eq!(
            new_sub_id(false, "BoxShape3D", "seed", &BTreeSet::new()),
            sub
        );
    }

    #[test]
    fn new_node_uids_are_positive_31_bit_free_and_deterministic() {
        let first = new_node_uid("Title 777", &BTreeSet::new());
        assert!(first > 0 && first <= 0x7fff_ffff, "{first}");
        assert_eq!(new_node_uid("Title 777", &BTreeSet::new()), first);
        let taken = BTreeSet::from([first]);
        let second = new_node_uid("Title 777", &taken);
        assert!(second > 0 && second != first, "{second}");
    }
}
