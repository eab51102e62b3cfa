//! The fuzzer's edge generators (issue 29): inputs at the edges the corpus rarely holds,
//! each with its laws. They draw from a random stream of their own, so the corpus cases
//! of a seeded run (`FUZZ_SEED`, `FUZZ_MAX_MERGES`) stay exactly what they were.
//!
//! - `marker_strings`: a node whose string holds marker-shaped lines (a tutorial, a
//!   Markdown underline), merged with edits around it: a clean merge keeps the string
//!   byte for byte and has no marker anywhere the parser would see one; a real conflict
//!   next to it is found as exactly the merge's blocks, and ours rebuilt keeps the string.
//! - `crlf`: a generated disjoint triple with CRLF line endings: no panic, identities,
//!   a clean merge of valid inputs is valid. (One line ending throughout the output is
//!   issue 29.9's; set `FUZZ_CRLF_ENDINGS=1` to check it too.)
//!
//! Hook: a generator is one more arm of [`GENERATORS`] and [`run`] (the
//! rename-onto-one-path generator of issue 29.3 goes there).

use super::hostile::mutate::{library_laws, small_edit, Rng};
use super::laws::gen::{identity_laws, invalid, safe_merge, triple};

/// The generators, by name, in the order [`run`] numbers them.
pub const GENERATORS: &[&str] = &["marker_strings", "crlf"];

/// Run generator `which` on corpus file `base`: the violations, and the three inputs
/// (`None` when the file does not suit the generator).
pub fn run(which: usize, base: &[u8], rng: &mut Rng) -> Option<(Vec<String>, [Vec<u8>; 3])> {
    match GENERATORS[which % GENERATORS.len()] {
        "marker_strings" => marker_strings(base, rng),
        "crlf" => crlf(base, rng),
        _ => None,
    }
}

/// Texts with marker-shaped lines, as people put them in strings.
const TUTORIALS: &[&str] = &[
    "How a conflict looks:\n<<<<<<< HEAD\nvar a = 1\n=======\nvar a = 2\n>>>>>>> feature\n",
    "Title\n=======\nbody",
    "<<<<<<< x\n||||||| base\n=======\n>>>>>>> y",
    "diff3:\n<<<<<<< ours\n\\\"quoted\\\"\n||||||| base\n=======\n>>>>>>> theirs\nend",
    "=======\n",
];

fn marker_strings(base: &[u8], rng: &mut Rng) -> Option<(Vec<String>, [Vec<u8>; 3])> {
    let text = std::str::from_utf8(base).ok()?;
    if !text.starts_with("[gd_scene") || !gdscene::check::conflict_marker_lines(base).is_empty() {
        return None;
    }
    let tutorial = TUTORIALS[rng.below(TUTORIALS.len())];
    let string = format!("editor_description = \"{tutorial}\"\n");
    let conflict = rng.below(2) == 0;
    let node = |v: u32| {
        let value = if conflict {
            format!("fuzz_value = {v}\n")
        } else {
            String::new()
        };
        format!(
            "{}\n[node name=\"FuzzTutorial\" type=\"Node\" parent=\".\"]\n{string}{value}",
            if text.ends_with('\n') { "" } else { "\n" }
        )
    };
    let b = format!("{text}{}", node(1));
    let (o, t) = if conflict {
        (format!("{text}{}", node(2)), format!("{text}{}", node(3)))
    } else {
        (
            String::from_utf8(small_edit(b.as_bytes(), "o")).ok()?,
            String::from_utf8(small_edit(b.as_bytes(), "t")).ok()?,
        )
    };
    let mut v = library_laws(b.as_bytes(), o.as_bytes(), t.as_bytes(), false);
    let m = match safe_merge(b.as_bytes(), o.as_bytes(), t.as_bytes()) {
        Ok(m) => m,
        Err(_) => return Some((v, [b.into(), o.into(), t.into()])), // reported above
    };
    let found = gdscene::solve::find_markers(&m.text, 7);
    if m.is_clean() {
        if !String::from_utf8_lossy(&m.text).contains(&string) {
            v.push("a clean merge changed the string holding marker-shaped lines".into());
        }
        if !gdscene::check::conflict_marker_lines(&m.text).is_empty() {
            v.push("check sees markers in a clean merge's string".into());
        }
        if !matches!(found, Ok(None)) {
            v.push(format!("solve reads blocks in a clean merge: {found:?}"));
        }
    } else {
        match found {
            Ok(Some(marked)) => {
                if marked.block_count() != m.conflict_count {
                    v.push(format!(
                        "{} conflict(s) written, {} block(s) read back",
                        m.conflict_count,
                        marked.block_count()
                    ));
                }
                let ours = String::from_utf8_lossy(&marked.sides().ours).into_owned();
                if !ours.contains(&string) {
                    v.push("ours rebuilt from the blocks lost the string".into());
                }
            }
            other => v.push(format!(
                "the merge's conflict blocks are not read back: {other:?}"
            )),
        }
    }
    Some((v, [b.into(), o.into(), t.into()]))
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

fn crlf(base: &[u8], rng: &mut Rng) -> Option<(Vec<String>, [Vec<u8>; 3])> {
    let text = std::str::from_utf8(base).ok()?;
    let choice = |rng: &mut Rng| {
        vec![(
            rng.below(256) as u8,
            rng.below(65536) as u16,
            rng.below(65536) as u16,
            rng.below(256) as u8,
        )]
    };
    let (co, ct) = (choice(rng), choice(rng));
    let t = std::panic::catch_unwind(|| triple(text, &co, &ct, true)).ok()??;
    let (b, o, th) = (to_crlf(&t.base), to_crlf(&t.ours), to_crlf(&t.theirs));
    let (b, o, th) = (b.into_bytes(), o.into_bytes(), th.into_bytes());
    let mut v = identity_laws(&b, &o);
    match safe_merge(&b, &o, &th) {
        Ok(m) => {
            let valid = invalid(&b).is_none() && invalid(&o).is_none() && invalid(&th).is_none();
            if valid && m.is_clean() {
                if let Some(why) = invalid(&m.text) {
                    v.push(format!(
                        "clean CRLF merge of valid inputs is invalid: {why}"
                    ));
                }
            }
            let bare = m.text.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r')
                || m.text.first() == Some(&b'\n');
            if bare && std::env::var_os("FUZZ_CRLF_ENDINGS").is_some() {
                v.push("CRLF inputs gave an output with bare LF line endings".into());
            }
        }
        Err(p) => v.push(format!("merge panicked: {p}")),
    }
    Some((v, [b, o, th]))
}
