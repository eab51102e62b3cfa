//! `ci check BASE`: the merge the server will make, predicted with `git merge-tree` (git's
//! own line merge, no driver: `TSCN_MERGE=off` turns an installed one into exactly that),
//! and every scene in it that differs from BASE (what the merge lands) parsed and checked.
//! A scene git conflicts on is merged structurally in memory to say whether `ci merge`
//! resolves it (with `--godot`, a resolved one is loaded in the engine as resolved). The same few git processes whatever the number of files (`version`,
//! `rev-parse` twice, `merge-tree`, `diff-tree`); blobs are read in-process. What `check` finds is the library's.

use super::CheckArgs;
use super::{commit_id, git_cmd, git_ok, handled, is_scene, nul_fields, require_git, shown};
use anyhow::{anyhow, bail, Context, Result};
use gdscene::merge::{ConflictReport, MergeOptions};
use gdscene::syntax::Source;
use std::collections::BTreeMap;

/// The sides of a conflicted path in `git merge-tree`'s output: stage 1 the merge base,
/// 2 the first branch (the head: "ours", as for `ci merge`), 3 the second (BASE).
type StageIds = [Option<String>; 3];

/// What `git merge-tree --write-tree -z --messages` printed.
#[derive(Debug, Default, PartialEq)]
pub(super) struct MergeTree {
    /// The merged tree (conflicted files in it hold markers).
    pub tree: String,
    /// Conflicted paths and their stages' blob ids.
    pub conflicted: BTreeMap<String, StageIds>,
    /// git's messages per path (`CONFLICT (content): ...`), in git's order.
    pub messages: BTreeMap<String, Vec<String>>,
}

/// Parse `merge-tree -z` output; `clean` is whether git exited 0 (then there is no
/// conflicted-file section).
pub(super) fn parse_merge_tree(out: &[u8], clean: bool) -> Result<MergeTree> {
    let fields = nul_fields(out);
    let mut it = fields.into_iter().peekable();
    let tree = it
        .next()
        .ok_or_else(|| anyhow!("git merge-tree printed nothing"))?;
    let mut mt = MergeTree {
        tree: tree.trim().to_string(),
        ..MergeTree::default()
    };
    while !clean && it.peek().is_some_and(|f| !f.is_empty()) {
        let entry = it.next().unwrap_or_default();
        let (info, path) = entry
            .split_once('\t')
            .ok_or_else(|| anyhow!("unexpected merge-tree entry {entry:?}"))?;
        let mut words = info.split(' ');
        let (_mode, oid, stage) = (words.next(), words.next(), words.next());
        let slot = match stage {
            Some("1") => 0,
            Some("2") => 1,
            Some("3") => 2,
            _ => bail!("unexpected merge-tree entry {entry:?}"),
        };
        mt.conflicted.entry(path.to_string()).or_default()[slot] = oid.map(str::to_string);
    }
    if it.peek().is_some_and(String::is_empty) {
        it.next();
    }
    while let Some(count) = it.next() {
        let n: usize = count.trim().parse().unwrap_or(0);
        let paths: Vec<String> = it.by_ref().take(n).collect();
        let _kind = it.next();
        let message = it.next().unwrap_or_default().trim().to_string();
        for p in paths {
            mt.messages.entry(p).or_default().push(message.clone());
        }
    }
    Ok(mt)
}

/// What the check found in one file of the merge.
enum Finding {
    /// A scene the line merge leaves broken: its errors.
    Broken(Vec<gdscene::check::Problem>),
    /// A scene git conflicts on, and whether the structural merge resolves it (the
    /// conflicts it leaves, or why it cannot say).
    Conflicted(Result<Vec<ConflictReport>, String>),
    /// Another file git conflicts on: git's messages.
    Other(Vec<String>),
}

/// Run `ci check`.
pub fn run(a: &CheckArgs) -> Result<i32> {
    require_git(2, 38, "ci check")?;
    let base = commit_id(&a.base)?;
    let head = commit_id(&a.head)?;
    let out = git_cmd()
        .env("TSCN_MERGE", "off")
        .args(["merge-tree", "--write-tree", "-z", "--messages"])
        .args(["--end-of-options", &head, &base])
        .output()
        .context("cannot run git merge-tree")?;
    let clean = match out.status.code() {
        Some(0) => true,
        Some(1) => false,
        _ => bail!(
            "git merge-tree {} {} failed: {}",
            a.base,
            a.head,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    };
    let mt = parse_merge_tree(&out.stdout, clean)?;
    let repo = gix::discover(".").context("not inside a git repository")?;
    let mut findings: BTreeMap<String, Finding> = BTreeMap::new();
    let mut engine = Vec::new();
    for (path, stages) in &mt.conflicted {
        let f = if handled(path) {
            let merged = preview(&repo, path, stages, a.timeout);
            // --godot: a scene ci merge resolves is loaded as it resolves it.
            let left = merged.map(|(left, text)| {
                if left.is_empty() && a.godot.godot.is_some() && is_scene(path) {
                    engine.push((path.clone(), text));
                }
                left
            });
            Finding::Conflicted(left)
        } else {
            Finding::Other(mt.messages.get(path).cloned().unwrap_or_default())
        };
        findings.insert(path.clone(), f);
    }
    let changed = git_ok([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-only",
        "--diff-filter=d",
        &base,
        &mt.tree,
    ])?;
    let mut checked = 0;
    for path in nul_fields(&changed) {
        if !handled(&path) || findings.contains_key(&path) {
            continue;
        }
        checked += 1;
        let bytes = blob_at(&repo, &mt.tree, &path)?;
        let errors = super::file_errors(&path, &bytes);
        if a.godot.godot.is_some() && is_scene(&path) {
            engine.push((path.clone(), bytes));
        }
        if !errors.is_empty() {
            findings.insert(path, Finding::Broken(errors));
        }
    }
    // --godot: every changed scene loaded in the user's engine too (src/check/godot.rs).
    for (path, p) in crate::check::godot::problems(&a.godot, &super::toplevel()?, engine)? {
        match findings.entry(path).or_insert(Finding::Broken(Vec::new())) {
            Finding::Broken(e) => e.push(p),
            f @ Finding::Conflicted(Ok(_)) => {
                let why = format!("tscn-merge ci merge resolves it, but {}", p.message);
                *f = Finding::Conflicted(Err(why));
            }
            _ => {}
        }
    }
    print_findings(a, checked, &findings)
}

/// The bytes of `path` in `tree`.
fn blob_at(repo: &gix::Repository, tree: &str, path: &str) -> Result<Vec<u8>> {
    let id = gix::ObjectId::from_hex(tree.as_bytes())?;
    let entry = repo
        .find_tree(id)?
        .peel_to_entry_by_path(path)?
        .ok_or_else(|| anyhow!("{path} is not in the merged tree"))?;
    blob(repo, &entry.object_id().to_string())
}

/// The bytes of the blob `oid`.
fn blob(repo: &gix::Repository, oid: &str) -> Result<Vec<u8>> {
    let id = gix::ObjectId::from_hex(oid.as_bytes())?;
    Ok(repo
        .find_blob(id)
        .with_context(|| format!("reading blob {oid}"))?
        .take_data())
}

/// The merge `ci merge`'s driver makes of a conflicted file's stages, in memory (a
/// scene's structural merge, a ConfigFile's by section and key, each within `timeout`
/// as the driver is): the conflicts it leaves (none: `ci merge` resolves it) and the
/// merged text, or why it cannot merge the file or its result would not pass `ci
/// merge`'s check.
fn preview(
    repo: &gix::Repository,
    path: &str,
    stages: &StageIds,
    timeout: f64,
) -> Result<(Vec<ConflictReport>, Vec<u8>), String> {
    let read = |s: &Option<String>| s.as_deref().map(|o| blob(repo, o)).transpose();
    let sides = (read(&stages[0]), read(&stages[1]), read(&stages[2]));
    let (base, ours, theirs) = match sides {
        (Ok(b), Ok(Some(o)), Ok(Some(t))) => (b.unwrap_or_default(), o, t),
        (Ok(_), Ok(_), Ok(_)) => {
            return Err(
                "one side deleted the file and the other changed it: a person decides".into(),
            )
        }
        _ => return Err("cannot read the versions git merged".into()),
    };
    let merged = if is_scene(path) {
        preview_scene(base, ours, theirs, timeout)?
    } else {
        super::driver::config_merge(path, (&base, &ours, &theirs), timeout)
    };
    if merged.left > 0 {
        if let Some(why) = &merged.fell_back {
            return Err(format!(
                "tscn-merge falls back to the line merge here ({})",
                gdscene::merge::shorten(why, 300)
            ));
        }
        if merged.conflicts.is_empty() {
            return Err(format!(
                "tscn-merge leaves {} conflict(s) a person must resolve",
                merged.left
            ));
        }
        return Ok((merged.conflicts, merged.text));
    }
    if let Some(e) = super::file_errors(path, &merged.text).first() {
        return Err(format!(
            "the structural merge is broken at line {}: {}",
            e.line,
            gdscene::merge::shorten(&e.message, 300)
        ));
    }
    Ok((Vec::new(), merged.text))
}

/// A scene's structural merge, as the driver makes it.
fn preview_scene(
    base: Vec<u8>,
    ours: Vec<u8>,
    theirs: Vec<u8>,
    timeout: f64,
) -> Result<super::driver::Merged, String> {
    let base = crate::driver::empty_base_stand_in(&base, &ours).unwrap_or(base);
    let outcome = crate::driver::merge_within(
        Source::new(base),
        Source::new(ours),
        Source::new(theirs),
        MergeOptions::default(),
        timeout,
    );
    Ok(super::driver::Merged::of_scene(outcome))
}

/// Print the findings, a summary and (when a scene needs it) the hint; the exit code.
fn print_findings(
    a: &CheckArgs,
    checked: usize,
    findings: &BTreeMap<String, Finding>,
) -> Result<i32> {
    use crate::io::print_line;
    let (mut broken, mut conflicted, mut other) = (0, 0, 0);
    for (path, f) in findings {
        let name = shown(path);
        match f {
            Finding::Broken(errors) => {
                broken += 1;
                for e in errors {
                    print_line(&format!("{name}:{}: error: {}", e.line, shown(&e.message)))?;
                }
            }
            Finding::Conflicted(Ok(left)) if left.is_empty() => {
                conflicted += 1;
                print_line(&format!(
                    "{name}: git conflicts here; tscn-merge ci merge can resolve it"
                ))?;
            }
            Finding::Conflicted(Ok(left)) => {
                conflicted += 1;
                print_line(&format!(
                    "{name}: git conflicts here; tscn-merge leaves {} conflict(s) a person must resolve (ours: {}, theirs: {}):",
                    left.len(),
                    shown(&a.head),
                    shown(&a.base)
                ))?;
                for c in left {
                    print_line(&format!("  {}", shown(&crate::driver::conflict_line(c))))?;
                }
            }
            Finding::Conflicted(Err(why)) => {
                conflicted += 1;
                print_line(&format!("{name}: git conflicts here; {}", shown(why)))?;
            }
            Finding::Other(messages) => {
                other += 1;
                let what = messages
                    .iter()
                    .find(|m| m.starts_with("CONFLICT"))
                    .map(|m| format!(": {}", shown(m)))
                    .unwrap_or_default();
                print_line(&format!(
                    "{name}: git conflicts here (not a Godot file tscn-merge merges){what}"
                ))?;
            }
        }
    }
    print_line(&format!(
        "tscn-merge ci check: {checked} scene and settings file(s) of the merge checked, {broken} broken; {conflicted} of them and {other} other file(s) git conflicts on"
    ))?;
    if broken + conflicted > 0 {
        print_line(&format!(
            "hint: `tscn-merge ci merge {}` in a checkout of the head merges with the structural driver and checks the result",
            shown(&a.base)
        ))?;
    }
    Ok(if findings.is_empty() { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_tree_output_with_conflicts_and_messages() {
        let out = b"eee6\x00100644 aaa 1\tx.tscn\x00100644 bbb 2\tx.tscn\x00100644 ccc 3\tx.tscn\x00100644 ddd 2\tgone.gd\x00\x001\x00x.tscn\x00Auto-merging\x00Auto-merging x.tscn\n\x001\x00x.tscn\x00CONFLICT (contents)\x00CONFLICT (content): Merge conflict in x.tscn\n\x00";
        let mt = parse_merge_tree(out, false).unwrap();
        assert_eq!(mt.tree, "eee6");
        assert_eq!(
            mt.conflicted["x.tscn"],
            [Some("aaa".into()), Some("bbb".into()), Some("ccc".into())]
        );
        assert_eq!(mt.conflicted["gone.gd"], [None, Some("ddd".into()), None]);
        assert_eq!(
            mt.messages["x.tscn"],
            vec![
                "Auto-merging x.tscn".to_string(),
                "CONFLICT (content): Merge conflict in x.tscn".to_string()
            ]
        );
    }

    #[test]
    fn clean_merge_tree_output() {
        let mt = parse_merge_tree(b"1c04\x00", true).unwrap();
        assert_eq!(mt.tree, "1c04");
        assert!(mt.conflicted.is_empty());
        let mt = parse_merge_tree(
            b"1c04\x00\x001\x00a.tscn\x00Auto-merging\x00Auto-merging a.tscn\n\x00",
            true,
        )
        .unwrap();
        assert_eq!(
            mt.messages["a.tscn"],
            vec!["Auto-merging a.tscn".to_string()]
        );
        assert!(parse_merge_tree(b"", true).is_err());
    }
}
