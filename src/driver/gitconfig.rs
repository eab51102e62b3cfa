//! What the merge driver learns from git's configuration and the environment, since git
//! tells a driver only the files, labels and marker size: the conflict style
//! (`merge.conflictStyle`, `-c` overrides included), whether to explain
//! (`tscn-merge.explain`, `TSCN_MERGE_EXPLAIN`), whether the driver is switched off
//! (`TSCN_MERGE=off`) and which side to favour (`TSCN_MERGE_FAVOR`). Merging is left to
//! [`crate::driver`].

use crate::driver::args::ExplainFormat;
use crate::driver::args::FavorArg;
use crate::driver::args::StyleArg;
use gdscene::linemerge::{ConflictStyle, MarkerOptions};
use std::process::Command;

/// A value of git's configuration as `git config --get` prints it (repository, global
/// and system files, and the `-c` overrides git passes in `GIT_CONFIG_PARAMETERS`).
fn git_config(key: &str) -> Option<String> {
    git_config_in(None, key)
}

/// [`git_config`] as git run in `dir` sees it (that directory's repository).
fn git_config_in(dir: Option<&std::path::Path>, key: &str) -> Option<String> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    let out = cmd
        .args(["config", "--get", key])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!v.is_empty()).then_some(v)
}

/// The style `--style` names.
pub fn style_of(s: StyleArg) -> ConflictStyle {
    match s {
        StyleArg::Merge => ConflictStyle::Merge,
        StyleArg::Diff3 => ConflictStyle::Diff3,
        StyleArg::Zdiff3 => ConflictStyle::ZDiff3,
    }
}

/// git's `merge.conflictStyle` as git reads it: `diff3`, `zdiff3`, else `merge`, git's
/// default (git also falls back to it for a value it does not know).
pub fn git_conflict_style() -> ConflictStyle {
    style_named(git_config("merge.conflictStyle").as_deref())
}

/// `merge.conflictStyle` as configured for the repository around `dir` (`-c`
/// overrides included), `None` when it is not set anywhere.
pub fn configured_style_in(dir: &std::path::Path) -> Option<ConflictStyle> {
    git_config_in(Some(dir), "merge.conflictStyle").map(|v| style_named(Some(&v)))
}

fn style_named(v: Option<&str>) -> ConflictStyle {
    match v.map(str::to_ascii_lowercase).as_deref() {
        Some("diff3") => ConflictStyle::Diff3,
        Some("zdiff3") => ConflictStyle::ZDiff3,
        _ => ConflictStyle::Merge,
    }
}

/// `--explain` asked for from git: `TSCN_MERGE_EXPLAIN` or `tscn-merge.explain`
/// (`true`/`text` or `json`).
pub fn explain_from_git() -> Option<ExplainFormat> {
    let v = std::env::var("TSCN_MERGE_EXPLAIN")
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| git_config("tscn-merge.explain"))?;
    explain_named(&v)
}

fn explain_named(v: &str) -> Option<ExplainFormat> {
    match v.to_ascii_lowercase().as_str() {
        "json" => Some(ExplainFormat::Json),
        "1" | "true" | "yes" | "on" | "text" => Some(ExplainFormat::Text),
        _ => None,
    }
}

/// `TSCN_MERGE=off` (or `0`, `false`, `no`): the driver is a plain `git merge-file` for
/// this command.
pub fn driver_off() -> bool {
    std::env::var("TSCN_MERGE")
        .map(|v| {
            matches!(
                v.to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            )
        })
        .unwrap_or(false)
}

/// `TSCN_MERGE_FAVOR=ours|theirs`: the `git merge -X ours|theirs` that git never passes to
/// a driver.
pub fn favor_from_env() -> Option<FavorArg> {
    match std::env::var("TSCN_MERGE_FAVOR")
        .ok()?
        .to_ascii_lowercase()
        .as_str()
    {
        "ours" => Some(FavorArg::Ours),
        "theirs" => Some(FavorArg::Theirs),
        _ => None,
    }
}

/// Labels for a merge whose conflicts `--favor` resolves: ones that no input holds, so
/// that only the markers the merge writes carry them and a string holding marker-shaped
/// lines (a tutorial in a script's `source`) is left as it is, as `git merge-file --ours`
/// leaves it.
pub fn favor_labels(opts: &mut MarkerOptions, inputs: &[&[u8]]) {
    let held = |label: &str| {
        inputs
            .iter()
            .any(|i| i.windows(label.len()).any(|w| w == label.as_bytes()))
    };
    let mut n = 0u32;
    let mut stem = "tscn-merge-favor".to_string();
    while held(&stem) {
        n += 1;
        stem = format!("tscn-merge-favor-{n}");
    }
    opts.ours = format!("{stem}-ours");
    opts.base = format!("{stem}-base");
    opts.theirs = format!("{stem}-theirs");
}

/// The blocks the merge wrote with `opts` (labels from [`favor_labels`]) replaced by the
/// favoured side's lines, and each block's first line (1-based, in `text`) with the lines
/// kept. Marker-shaped lines without those labels are text.
pub fn resolve_own_markers(
    text: &[u8],
    opts: &MarkerOptions,
    favor: FavorArg,
) -> (Vec<u8>, Vec<(usize, Vec<u8>)>) {
    let size = if opts.marker_size == 0 {
        7
    } else {
        opts.marker_size
    };
    let is = |line: &[u8], c: u8| {
        let label = match c {
            b'<' => Some(&opts.ours),
            b'|' => Some(&opts.base),
            b'>' => Some(&opts.theirs),
            _ => None,
        };
        let rest = match line.get(size..) {
            Some(rest) if line[..size].iter().all(|&x| x == c) => rest,
            _ => return false,
        };
        let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
        let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
        match label {
            Some(l) => rest.strip_prefix(b" ") == Some(l.as_bytes()),
            None => rest.is_empty(),
        }
    };
    resolve_blocks(text, favor, is)
}

/// The scan under the resolver: `is(line, c)` says whether `line` is a marker of `c`.
fn resolve_blocks(
    text: &[u8],
    favor: FavorArg,
    is: impl Fn(&[u8], u8) -> bool,
) -> (Vec<u8>, Vec<(usize, Vec<u8>)>) {
    let mut out = Vec::with_capacity(text.len());
    let mut blocks = Vec::new();
    // The favoured lines of the open block, and the block as written.
    let (mut chosen, mut raw) = (Vec::new(), Vec::new());
    // 0 outside, 1 ours, 2 base, 3 theirs.
    let (mut part, mut start) = (0, 0);
    // A block resolved to nothing between two blank lines: the second one goes, so the
    // sections keep the editor's single blank line between them.
    let mut drop_blank = false;
    for (n, line) in text.split_inclusive(|&c| c == b'\n').enumerate() {
        if part == 0 && !is(line, b'<') {
            if !std::mem::take(&mut drop_blank) || !matches!(line, b"\n" | b"\r\n") {
                out.extend_from_slice(line);
            }
            continue;
        }
        raw.extend_from_slice(line);
        match part {
            0 => (part, start) = (1, n + 1),
            1 | 2 if is(line, b'|') => part = 2,
            1 | 2 if is(line, b'=') => part = 3,
            3 if is(line, b'>') => {
                blocks.push((start, chosen.clone()));
                drop_blank = chosen.is_empty() && (out.is_empty() || ends_blank(&out));
                out.append(&mut chosen);
                raw.clear();
                part = 0;
            }
            1 if favor == FavorArg::Ours => chosen.extend_from_slice(line),
            3 if favor == FavorArg::Theirs => chosen.extend_from_slice(line),
            _ => {}
        }
    }
    if drop_blank && raw.is_empty() && ends_blank(&out) {
        // The file's last section went: it ends with one line break, as the editor's do.
        out.pop();
        if out.last() == Some(&b'\r') {
            out.pop();
        }
    }
    out.append(&mut raw);
    (out, blocks)
}

/// Whether `text` ends with a blank line (or is only line breaks so far).
fn ends_blank(text: &[u8]) -> bool {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    text.is_empty() || text.ends_with(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_read_as_git_reads_them() {
        assert_eq!(style_named(Some("zdiff3")), ConflictStyle::ZDiff3);
        assert_eq!(style_named(Some("diff3")), ConflictStyle::Diff3);
        assert_eq!(style_named(Some("bogus")), ConflictStyle::Merge);
        assert_eq!(style_named(None), ConflictStyle::Merge);
        assert_eq!(explain_named("json"), Some(ExplainFormat::Json));
        assert_eq!(explain_named("false"), None);
    }

    #[test]
    fn favor_keeps_one_side_of_each_block() {
        let text =
            b"a\n<<<<<<< ours\nx = 1\n||||||| base\nx = 0\n=======\nx = 2\n>>>>>>> theirs\nb\n";
        let opts = MarkerOptions::default();
        let resolve = |t: &[u8], f| resolve_own_markers(t, &opts, f).0;
        assert_eq!(resolve(text, FavorArg::Ours), b"a\nx = 1\nb\n");
        assert_eq!(resolve(text, FavorArg::Theirs), b"a\nx = 2\nb\n");
        let open = b"a\n<<<<<<< ours\nx = 1\n";
        assert_eq!(resolve(open, FavorArg::Theirs), open.to_vec());
    }

    #[test]
    fn favor_resolves_only_the_blocks_with_the_merges_labels() {
        let look_alike = b"s = \"a\n<<<<<<< x\nb\n=======\nc\n>>>>>>> y\n\"\n";
        let mut opts = MarkerOptions::default();
        favor_labels(&mut opts, &[look_alike]);
        let mut text = look_alike.to_vec();
        text.extend_from_slice(
            format!(
                "<<<<<<< {}\nk = 1\n=======\nk = 2\n>>>>>>> {}\n",
                opts.ours, opts.theirs
            )
            .as_bytes(),
        );
        let (out, blocks) = resolve_own_markers(&text, &opts, FavorArg::Ours);
        let mut want = look_alike.to_vec();
        want.extend_from_slice(b"k = 1\n");
        assert_eq!(out, want);
        assert_eq!(blocks, vec![(8, b"k = 1\n".to_vec())]);
        // A label an input holds is not used.
        let mut again = MarkerOptions::default();
        favor_labels(&mut again, &[opts.ours.as_bytes()]);
        assert_ne!(again.ours, opts.ours);
    }
}
