//! What the page calls each side besides "ours" and "theirs": the labels git gave the
//! conflict markers (`<<<<<<< HEAD`, `>>>>>>> feature`: the driver writes git's own),
//! `HEAD` named by the branch it is on, and, when the markers carry no label, the
//! current branch and the branch being merged (`MERGE_HEAD`, named in `MERGE_MSG`).
//! Read-only; an unknown label is empty and the page says only "ours" / "theirs".

use std::path::Path;

/// The sides' names as git knows them (empty: unknown).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels {
    /// Ours: a branch name, `HEAD`, or a commit (`abc1234 (message)` in a rebase).
    pub ours: String,
    /// Theirs.
    pub theirs: String,
}

/// The label after the first marker line of `marker` repeated `size` times.
fn marker_label(text: &str, marker: char, size: usize) -> String {
    let open: String = std::iter::repeat_n(marker, size).collect();
    text.lines()
        .find_map(|l| {
            let rest = l.strip_prefix(&open)?;
            rest.strip_prefix(' ')
                .or(rest.is_empty().then_some(""))
                .map(str::trim)
        })
        .unwrap_or_default()
        .to_string()
}

/// Labels that say nothing about a branch: our own defaults, git's when it knows no
/// name, temporary file names (`level_LOCAL_1234.tscn`).
fn says_nothing(label: &str) -> bool {
    matches!(label, "" | "ours" | "theirs" | "base")
        || label.contains("_LOCAL_")
        || label.contains("_REMOTE_")
        || label.contains("_BASE_")
}

/// The labels for the marked text `before` (markers of `size`), completed from the
/// repository around the current folder.
pub fn labels(before: &str, size: usize) -> Labels {
    let mut l = Labels {
        ours: marker_label(before, '<', size),
        theirs: marker_label(before, '>', size),
    };
    for label in [&mut l.ours, &mut l.theirs] {
        if says_nothing(label) {
            label.clear();
        }
    }
    if l.ours.is_empty() || l.ours == "HEAD" {
        if let Some(branch) = head_branch(Path::new(".")) {
            l.ours = branch;
        }
    }
    if l.theirs.is_empty() {
        l.theirs = merging_branch(Path::new(".")).unwrap_or_default();
    }
    // A branch called "theirs" adds nothing to the word "Theirs".
    for label in [&mut l.ours, &mut l.theirs] {
        if says_nothing(label) {
            label.clear();
        }
    }
    l
}

/// The branch `HEAD` is on, short (`main`).
fn head_branch(dir: &Path) -> Option<String> {
    let repo = crate::git::open_repo(dir).ok()?;
    let name = repo.head_name().ok()??;
    Some(name.shorten().to_string())
}

/// The branch a merge in progress is merging, as `MERGE_MSG` names it
/// (`Merge branch 'feature'`, `Merge remote-tracking branch 'origin/x'`).
fn merging_branch(dir: &Path) -> Option<String> {
    let repo = crate::git::open_repo(dir).ok()?;
    let msg = std::fs::read_to_string(repo.git_dir().join("MERGE_MSG")).ok()?;
    let first = msg.lines().next()?;
    let rest = first.strip_prefix("Merge ")?;
    let (_, quoted) = rest.split_once('\'')?;
    let (name, _) = quoted.split_once('\'')?;
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_the_markers() {
        let t = "a\n<<<<<<< HEAD\nx\n||||||| base\ny\n=======\nz\n>>>>>>> feature/jump\n";
        assert_eq!(marker_label(t, '<', 7), "HEAD");
        assert_eq!(marker_label(t, '>', 7), "feature/jump");
        assert_eq!(marker_label(t, '>', 8), "");
        assert!(says_nothing("theirs") && says_nothing("./level_LOCAL_123.tscn"));
        assert!(!says_nothing("feature/jump"));
    }
}
