//! Between steps 1a and 1b of the line diff: the last big Myers search, remembered.
//!
//! A structural merge whose one huge string (a built-in script's source, a shader's code)
//! both sides changed line-merges that string, and when the string conflicts, line-merges
//! the whole file too: the same lines diffed twice, each time at the cost of a whole
//! `git merge-file`. Decides when a search is worth remembering (at least [`MEMO_MIN`]
//! lines) and recognises it again by the exact text of its lines (each sequence kept as its
//! lines' bytes, every line prefixed by its length), not by ids, which each merge numbers
//! afresh, and not by a hash, whose rare collision would silently give another file's diff. The search
//! itself is [`super::myers`]'s; what is remembered is exactly its answer, so outputs do
//! not change.

use std::sync::Mutex;

use super::myers::myers_reduced;

/// Searches smaller than this (lines on both sides) are cheap enough to redo.
pub(super) const MEMO_MIN: usize = 20_000;

/// What identifies a search: the text of each sequence, lines prefixed by their length.
#[derive(PartialEq, Eq)]
struct Key([Vec<u8>; 2]);

/// The answer of a search: changed flags on each side.
type Answer = (Vec<bool>, Vec<bool>);

static LAST: Mutex<Option<(Key, Answer)>> = Mutex::new(None);

/// [`myers_reduced`] of `h1` against `h2` (line ids whose text is `texts[id]`), reusing
/// the last big search when it compared the same lines.
pub(super) fn myers_remembered(h1: &[u32], h2: &[u32], texts: &[&[u8]]) -> Answer {
    if h1.len() + h2.len() < MEMO_MIN {
        return myers_reduced(h1, h2);
    }
    let key = Key([spell_lines(h1, texts), spell_lines(h2, texts)]);
    if let Ok(last) = LAST.lock() {
        if let Some((k, answer)) = last.as_ref() {
            if *k == key {
                return answer.clone();
            }
        }
    }
    let answer = myers_reduced(h1, h2);
    if let Ok(mut last) = LAST.lock() {
        *last = Some((key, answer.clone()));
    }
    answer
}

/// The lines' text in order, each line after its length (so the split between lines
/// counts).
fn spell_lines(ids: &[u32], texts: &[&[u8]]) -> Vec<u8> {
    let size: usize = ids
        .iter()
        .map(|&id| 8 + texts.get(id as usize).map_or(0, |t| t.len()))
        .sum();
    let mut out = Vec::with_capacity(size);
    for &id in ids {
        let text = texts.get(id as usize).copied().unwrap_or_default();
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text);
    }
    out
}
