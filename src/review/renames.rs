//! Rename detection over a range, as git does it (`-M`, 50% similarity): a deleted and
//! an added scene whose contents are identical, or similar enough, are one file that
//! moved. Similarity is git's measure in spirit: the bytes of the old file's lines found
//! again in the new file, over the larger size.
//!
//! Decides only which deletions and additions pair up; reading the trees is `git.rs`'s
//! business and diffing the pair is the library's.

use crate::git::FileChange;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Least similarity (percent) for a deletion and an addition to be one rename: git's
/// default.
pub const MIN_SIMILARITY: u8 = 50;

/// Most deletion × addition pairs compared by content; beyond it only identical files
/// pair (git's `diff.renameLimit` plays the same part).
const MAX_PAIRS: usize = 100_000;

/// A changed file after rename detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// Repository-relative path (the new one for a rename).
    pub path: String,
    /// Old path and similarity (0-100) when the file was renamed or moved.
    pub renamed_from: Option<(String, u8)>,
    /// Old contents (`None`: added).
    pub old: Option<Vec<u8>>,
    /// New contents (`None`: deleted).
    pub new: Option<Vec<u8>>,
}

/// Pair deletions with additions (identical contents first, then the most similar),
/// and return every change sorted by path.
pub fn detect(changes: Vec<FileChange>) -> Vec<Paired> {
    let (mut deleted, mut added, mut out) = (Vec::new(), Vec::new(), Vec::new());
    for c in changes {
        let p = Paired {
            path: c.path,
            renamed_from: None,
            old: c.old,
            new: c.new,
        };
        match (&p.old, &p.new) {
            (Some(_), None) => deleted.push(Some(p)),
            (None, Some(_)) => added.push(p),
            _ => out.push(p),
        }
    }
    for (a, d, score) in pairs(&deleted, &added) {
        let (Some(Some(old)), Some(new)) = (deleted.get_mut(d).map(Option::take), added.get_mut(a))
        else {
            continue;
        };
        new.renamed_from = Some((old.path, score));
        new.old = old.old;
    }
    out.extend(added);
    out.extend(deleted.into_iter().flatten());
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// (added index, deleted index, similarity) of the renames, each file in at most one.
fn pairs(deleted: &[Option<Paired>], added: &[Paired]) -> Vec<(usize, usize, u8)> {
    let bytes = |b: &Option<Vec<u8>>| b.as_deref().unwrap_or_default().to_vec();
    let old: Vec<Vec<u8>> = deleted.iter().flatten().map(|p| bytes(&p.old)).collect();
    let new: Vec<Vec<u8>> = added.iter().map(|p| bytes(&p.new)).collect();
    let mut candidates = Vec::new();
    let by_content = old.len() * new.len() <= MAX_PAIRS;
    let old_lines: Vec<Lines> = old.iter().map(|b| lines(b, by_content)).collect();
    for (a, n) in new.iter().enumerate() {
        let new_lines = lines(n, by_content);
        for (d, o) in old.iter().enumerate() {
            let score = if o == n {
                100
            } else if by_content {
                similarity(&old_lines[d], &new_lines, o.len(), n.len())
            } else {
                0
            };
            if score >= MIN_SIMILARITY {
                candidates.push((score, a, d));
            }
        }
    }
    // Best score first; ties by path order (the lists are sorted by path).
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let (mut used_a, mut used_d) = (vec![false; new.len()], vec![false; old.len()]);
    let mut out = Vec::new();
    for (score, a, d) in candidates {
        if !used_a[a] && !used_d[d] {
            used_a[a] = true;
            used_d[d] = true;
            out.push((a, d, score));
        }
    }
    out
}

/// Line hashes with the bytes each accounts for, sorted by hash.
type Lines = Vec<(u64, usize)>;

fn lines(bytes: &[u8], wanted: bool) -> Lines {
    let mut counts: HashMap<u64, usize> = HashMap::new();
    if wanted {
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let mut h = DefaultHasher::new();
            line.hash(&mut h);
            *counts.entry(h.finish()).or_default() += line.len();
        }
    }
    let mut v: Lines = counts.into_iter().collect();
    v.sort_unstable();
    v
}

/// Percent of the larger file made of lines both files hold.
fn similarity(old: &Lines, new: &Lines, old_len: usize, new_len: usize) -> u8 {
    let larger = old_len.max(new_len);
    if larger == 0 {
        return 100;
    }
    // A size difference alone can rule the pair out, as in git.
    if old_len.min(new_len) * 100 < larger * MIN_SIMILARITY as usize {
        return 0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while let (Some(&(ho, bo)), Some(&(hn, bn))) = (old.get(i), new.get(j)) {
        match ho.cmp(&hn) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += bo.min(bn);
                i += 1;
                j += 1;
            }
        }
    }
    u8::try_from(common * 100 / larger).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, old: Option<&str>, new: Option<&str>) -> FileChange {
        FileChange {
            path: path.into(),
            old: old.map(|s| s.as_bytes().to_vec()),
            new: new.map(|s| s.as_bytes().to_vec()),
        }
    }

    fn text(lines: usize, changed: usize) -> String {
        (0..lines)
            .map(|i| {
                if i < changed {
                    format!("new {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect()
    }

    #[test]
    fn identical_and_similar_files_pair_dissimilar_do_not() {
        let got = detect(vec![
            change("a/same.tscn", Some("x\ny\n"), None),
            change("b/same.tscn", None, Some("x\ny\n")),
            change("old.tscn", Some(&text(10, 0)), None),
            change("new.tscn", None, Some(&text(10, 3))),
            change(
                "gone.tscn",
                Some(&text(10, 0).replace("line", "gone")),
                None,
            ),
            change("fresh.tscn", None, Some(&text(10, 10))),
        ]);
        let names: Vec<(&str, Option<(&str, u8)>)> = got
            .iter()
            .map(|p| {
                (
                    p.path.as_str(),
                    p.renamed_from.as_ref().map(|(o, s)| (o.as_str(), *s)),
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("b/same.tscn", Some(("a/same.tscn", 100))),
                ("fresh.tscn", None),
                ("gone.tscn", None),
                ("new.tscn", Some(("old.tscn", 70))),
            ]
        );
        assert_eq!(got[3].old.as_deref(), Some(text(10, 0).as_bytes()));
    }

    #[test]
    fn each_file_pairs_once_best_first() {
        let got = detect(vec![
            change("a.tscn", Some(&text(10, 0)), None),
            change("b.tscn", None, Some(&text(10, 4))),
            change("c.tscn", None, Some(&text(10, 1))),
        ]);
        let from: Vec<Option<&str>> = got
            .iter()
            .map(|p| p.renamed_from.as_ref().map(|(o, _)| o.as_str()))
            .collect();
        assert_eq!(from, vec![None, Some("a.tscn")]);
        assert_eq!(got[1].path, "c.tscn");
    }
}
