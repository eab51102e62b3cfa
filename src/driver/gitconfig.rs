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
use std::sync::OnceLock;

/// The two keys the driver reads, as `git config --get-regexp` prints them: section and
/// variable names lower-cased (git compares them without regard to case).
const STYLE_KEY: &str = "merge.conflictstyle";
const EXPLAIN_KEY: &str = "tscn-merge.explain";

/// A value of the driver's keys as `git config --get` prints it (repository, global and
/// system files, includes, and the `-c` overrides git passes in `GIT_CONFIG_PARAMETERS`),
/// from one `git config` run per process: a small merge costs about as much CPU as one
/// spawn of git, and the driver asks for two keys.
fn git_config(key: &str) -> Option<String> {
    static SNAPSHOT: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let entries = SNAPSHOT.get_or_init(|| {
        git_output(None, &["config", "-z", "--get-regexp", &keys_pattern()])
            .map(|out| entries_of(&out))
            .unwrap_or_default()
    });
    last_value(entries, key)
}

/// The regular expression (git's, extended) that matches exactly the driver's keys.
fn keys_pattern() -> String {
    let quoted = |k: &str| k.replace('.', "\\.");
    format!("^({}|{})$", quoted(STYLE_KEY), quoted(EXPLAIN_KEY))
}

/// The `key\nvalue\0` entries of `git config -z --get-regexp`, in git's order; a key
/// written without `= value` comes out as `key\0` and has the empty value, as
/// `git config --get` prints an empty line for it.
fn entries_of(out: &[u8]) -> Vec<(String, String)> {
    out.split(|&b| b == 0)
        .filter(|e| !e.is_empty())
        .map(|e| {
            let (k, v) = match memchr::memchr(b'\n', e) {
                Some(i) => (&e[..i], &e[i + 1..]),
                None => (e, &e[..0]),
            };
            (
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

/// The value `git config --get key` gives from `entries`: the last one (git's "last one
/// wins"), trimmed, `None` when empty or absent.
fn last_value(entries: &[(String, String)], key: &str) -> Option<String> {
    let (_, v) = entries.iter().rev().find(|(k, _)| k == key)?;
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// [`git_config`] as git run in `dir` sees it (that directory's repository), with a
/// `git config --get` of its own.
fn git_config_in(dir: Option<&std::path::Path>, key: &str) -> Option<String> {
    let out = git_output(dir, &["config", "--get", key])?;
    let v = String::from_utf8_lossy(&out).trim().to_string();
    (!v.is_empty()).then_some(v)
}

/// The standard output of `git ARGS` (in `dir` when given), with no input and its
/// complaints dropped; `None` when git cannot run or fails (nothing set, a bad file).
fn git_output(dir: Option<&std::path::Path>, args: &[&str]) -> Option<Vec<u8>> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    let out = cmd
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
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
    style_named(git_config(STYLE_KEY).as_deref())
}

/// `merge.conflictStyle` as configured for the repository around `dir` (`-c`
/// overrides included), `None` when it is not set anywhere.
pub fn configured_style_in(dir: &std::path::Path) -> Option<ConflictStyle> {
    git_config_in(Some(dir), STYLE_KEY).map(|v| style_named(Some(&v)))
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
        .or_else(|| git_config(EXPLAIN_KEY))?;
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
    fn the_snapshot_reads_git_config_z_output() {
        let out = b"merge.conflictstyle\0tscn-merge.explain\njson\0\
                    tscn-merge.explain\n text \0merge.conflictstyle\ndiff3\0";
        let entries = entries_of(out);
        assert_eq!(entries.len(), 4);
        // A key without `= value` has the empty value.
        assert_eq!(entries[0], (STYLE_KEY.to_string(), String::new()));
        // Several values: the last one wins, trimmed as `git config --get`'s line is.
        assert_eq!(last_value(&entries, EXPLAIN_KEY).as_deref(), Some("text"));
        assert_eq!(last_value(&entries, STYLE_KEY).as_deref(), Some("diff3"));
        // A last value that is empty is not set, whatever came before.
        let mut emptied = entries.clone();
        emptied.push((STYLE_KEY.to_string(), String::new()));
        assert_eq!(last_value(&emptied, STYLE_KEY), None);
        // git prints keys lower-cased, and they are looked up so.
        assert_eq!(STYLE_KEY, STYLE_KEY.to_ascii_lowercase());
        assert_eq!(last_value(&entries, "merge.conflictStyle"), None);
        assert_eq!(last_value(&[], STYLE_KEY), None);
        assert!(entries_of(b"").is_empty());
        // A value holding a line break keeps it: only the first one ends the key.
        let lines = entries_of(b"tscn-merge.explain\na\nb\0");
        assert_eq!(last_value(&lines, EXPLAIN_KEY).as_deref(), Some("a\nb"));
    }

    /// The one `--get-regexp` run gives, for each key, what `git config --get` gives on
    /// the same configuration: mixed-case names, several values, a key without value, an
    /// empty value, a quoted one and a key of another section that only looks alike.
    #[test]
    fn the_snapshot_agrees_with_git_config_get() {
        let files = [
            "[Merge]\n\tConflictStyle = zdiff3\n[tscn-merge]\n\texplain = json\n[merge]\n\tconflictstyle = diff3\n",
            "[merge]\n\tconflictStyle\n[TSCN-MERGE]\n\tEXPLAIN = \" true \"\n",
            "[merge]\n\tconflictStyle = diff3\n\tconflictStyle =\n[tscn-merge \"x\"]\n\texplain = json\n",
            "[merge]\n\tconflictStyleX = diff3\n[tscn-merge]\n\texplained = json\n",
        ];
        let dir = tempfile::tempdir().expect("temp dir");
        for (n, text) in files.iter().enumerate() {
            let path = dir.path().join(format!("config{n}"));
            std::fs::write(&path, text).expect("writing a config file");
            let file = path.to_str().expect("a UTF-8 temp path");
            let args = ["config", "-f", file, "-z", "--get-regexp", &keys_pattern()];
            let entries = entries_of(&git_output(None, &args).unwrap_or_default());
            if n == 0 {
                // The case git really answered: the last of two spellings wins.
                assert_eq!(last_value(&entries, STYLE_KEY).as_deref(), Some("diff3"));
            }
            for key in [STYLE_KEY, EXPLAIN_KEY] {
                let get = git_output(None, &["config", "-f", file, "--get", key])
                    .map(|o| String::from_utf8_lossy(&o).trim().to_string())
                    .filter(|v| !v.is_empty());
                assert_eq!(last_value(&entries, key), get, "{key} in {text:?}");
            }
        }
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
