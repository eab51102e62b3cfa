//! The text `install` writes into git's config: the merge driver's shell command (with
//! its fallback to `git merge-file`), the external diff, textconv and difftool commands,
//! the hunk-header pattern, and the values earlier versions wrote (still recognised as
//! ours). Pure functions; writing them is left to [`super::config`].

use std::path::Path;

use super::shared::{exe_word, git_path, shell_quote, Exe, Links, DRIVER};

/// Shell prelude of the merge driver: the conflict labels in `$s` (base),
/// `$x` (ours), `$y` (theirs). git 2.44+ replaces %S/%X/%Y with quoted
/// labels; older git leaves them as they are, which the test spots (`'%''X'`
/// is `%X` to the shell but no placeholder to git) to use plain names.
pub(super) const LABELS: &str =
    "s=%S; x=%X; y=%Y; if [ \"$x\" = '%''X' ]; then s=base; x=ours; y=theirs; fi";
/// The arguments of the structural merge. git single-quotes %P; %O, %A, %B
/// are temp file names; %L is a number. Every substituted value is glued to
/// its option (`--path=%P`) or follows `--`, so a path like `-Game.tscn` can
/// never read as an option.
pub(super) const MERGE_ARGS: &str = "merge --git --path=%P --marker-size=%L --base-label=\"$s\" \
                          --ours-label=\"$x\" --theirs-label=\"$y\" -- %O %A %B";
/// The text merge used when the binary is missing (labels: ours, base, theirs).
pub(super) const FALLBACK: &str =
    "git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L -- %A %O %B";

/// What the driver does when neither the recorded binary nor one on `PATH` is there:
/// one line on stderr and one in `.git/tscn-merge/fallbacks` (which `doctor` shows),
/// then git's line merge. No `%` but git's placeholders: git would read `%Y` of a
/// `date` format as theirs' label.
const NOT_FOUND: &str = "echo \"tscn-merge: not found (at $exe or on PATH): \"%P\" merged by git's line merge; run tscn-merge doctor\" >&2; \
                         g=$(git rev-parse --git-dir 2>/dev/null) && mkdir -p \"$g/tscn-merge\" && \
                         echo \"$(date -u) \"%P\": tscn-merge not found at $exe or on PATH: git's line merge used\" >>\"$g/tscn-merge/fallbacks\"";

/// `merge.tscn-merge.driver`: run the binary `install` recorded, else a `tscn-merge` on
/// `PATH` (a GUI client may run git with another `PATH`, an upgrade may move it), else
/// say so ([`NOT_FOUND`]) and fall back to git's own line merge, so a missing binary
/// never breaks merges. Exit status is the driver's (1 = conflicts), never a trigger
/// for fallback.
pub fn merge_driver_command(exe: &Exe) -> String {
    let found = format!("then {DRIVER} {MERGE_ARGS}; else {NOT_FOUND}; {FALLBACK}; fi");
    match exe {
        Exe::OnPath => {
            format!("{LABELS}; exe={DRIVER}; if command -v {DRIVER} >/dev/null 2>&1; {found}")
        }
        Exe::Absolute(p) => format!(
            "{LABELS}; exe={}; if [ -x \"$exe\" ]; then \"$exe\" {MERGE_ARGS}; \
             elif command -v {DRIVER} >/dev/null 2>&1; {found}",
            shell_quote(&git_path(p))
        ),
    }
}

/// The driver command of earlier versions: the recorded binary or the line merge.
pub(super) fn merge_driver_with(exe: &Exe, args: &str, fallback: &str) -> String {
    match exe {
        Exe::OnPath => format!(
            "{LABELS}; if command -v {DRIVER} >/dev/null 2>&1; \
             then {DRIVER} {args}; else {fallback}; fi"
        ),
        Exe::Absolute(p) => format!(
            "{LABELS}; exe={}; if [ -x \"$exe\" ]; \
             then \"$exe\" {args}; else {fallback}; fi",
            shell_quote(&p.to_string_lossy())
        ),
    }
}

/// The values earlier versions of `install` wrote (a `%P` or path starting with `-`
/// broke them, a moved binary went unnoticed, the textconv cache showed in `git log
/// --all`): still ours, so `install` replaces them and `uninstall` removes them.
pub(super) fn legacy_entries(exe: &Exe) -> Vec<(String, String)> {
    const ARGS: &str = "merge --git -p %P -l %L -s \"$s\" -x \"$x\" -y \"$y\" %O %A %B";
    const MERGE_FILE: &str =
        "git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L %A %O %B";
    let word = exe_word(exe);
    let key = |k: &str| k.replace('*', DRIVER);
    vec![
        (
            key("merge.*.driver"),
            merge_driver_with(exe, ARGS, MERGE_FILE),
        ),
        (
            key("merge.*.driver"),
            merge_driver_with(exe, MERGE_ARGS, FALLBACK),
        ),
        (key("diff.*.command"), format!("{word} diff --git-external")),
        (key("diff.*.textconv"), format!("{word} textconv")),
        (key("diff.*.cachetextconv"), "true".into()),
        (key("diff.*.cachetextconv"), "false".into()),
        (
            key("difftool.*.cmd"),
            format!("{word} diff \"$LOCAL\" \"$REMOTE\""),
        ),
        (
            key("difftool.*.cmd"),
            format!("{word} diff -- \"$LOCAL\" \"$REMOTE\""),
        ),
    ]
}

/// `diff.tscn-merge.command` (git appends: path old-file old-hex old-mode
/// new-file new-hex new-mode): the [`DIFF_LINK`] `install` made, which git starts
/// without a shell and which takes every argument as a value; else the shell command,
/// where the path may start with `-`, hence `--`.
///
/// [`DIFF_LINK`]: crate::diff::DIFF_LINK
pub fn diff_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} diff --git-external --", exe_word(exe)),
    }
}

/// `diff.tscn-merge.textconv`: the [`TEXTCONV_LINK`] `install` made, which git starts
/// without a shell when its path has no shell metacharacter, else `tscn-merge textconv --`
/// through `sh -c`.
///
/// [`TEXTCONV_LINK`]: crate::diff::TEXTCONV_LINK
pub fn textconv_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} textconv --", exe_word(exe)),
    }
}

/// `difftool.tscn-merge.cmd`: git's `$MERGED` names the file in each block's header
/// (`--name=` keeps a path starting with `-` a value).
pub fn difftool_command(exe: &Exe) -> String {
    format!(
        "{} diff --name=\"$MERGED\" -- \"$LOCAL\" \"$REMOTE\"",
        exe_word(exe)
    )
}

/// `mergetool.tscn-merge.cmd`: `git mergetool -t tscn-merge` shows a scene's conflicts
/// as a scene in the browser; git substitutes the four paths (`--` first, so a path
/// starting with `-` is never an option).
pub fn mergetool_command(exe: &Exe) -> String {
    format!(
        "{} mergetool --git -- \"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\"",
        exe_word(exe)
    )
}

/// `diff.tscn-merge.xfuncname`: hunk headers of `git diff` (raw or textconv'd) name
/// the section a change is in (`[node name="Player" ...]`, `[sub_resource ...]`).
pub const XFUNCNAME: &str = r"^(\[(node|sub_resource|ext_resource|resource)( .*)?\])";

/// `alias.scene-diff`: the semantic diff one word away (`git scene-diff`, `git
/// scene-diff HEAD~1`), through the difftool, so `git diff` stays git's.
pub const ALIAS: (&str, &str) = ("alias.scene-diff", "difftool --no-prompt --tool=tscn-merge");

/// Every config key and value that install writes, in order. By default nothing that
/// changes what `git diff` prints (it stays a patch `git apply` takes, and `git
/// difftool -x TOOL` runs TOOL): the merge driver, hunk headers, the difftool and its
/// alias. `diff` (`install --diff`) adds the external diff and textconv, which make
/// `git diff` and `git log -p` tscn-merge's. The textconv cache is never turned on: git
/// keeps it as a notes commit that `git log --all` shows.
pub fn config_entries(exe: &Exe, links: &Links, diff: bool) -> Vec<(String, String)> {
    let mut entries = vec![
        (
            format!("merge.{DRIVER}.name"),
            "tscn-merge: structural merge for Godot scenes".to_string(),
        ),
        (format!("merge.{DRIVER}.driver"), merge_driver_command(exe)),
        (format!("diff.{DRIVER}.xfuncname"), XFUNCNAME.to_string()),
        (format!("difftool.{DRIVER}.cmd"), difftool_command(exe)),
        (format!("mergetool.{DRIVER}.cmd"), mergetool_command(exe)),
        (
            format!("mergetool.{DRIVER}.trustExitCode"),
            "true".to_string(),
        ),
        (ALIAS.0.to_string(), ALIAS.1.to_string()),
    ];
    if diff {
        entries.insert(
            2,
            (
                format!("diff.{DRIVER}.command"),
                diff_command(exe, links.diff.as_deref()),
            ),
        );
        entries.insert(
            3,
            (
                format!("diff.{DRIVER}.textconv"),
                textconv_command(exe, links.textconv.as_deref()),
            ),
        );
    }
    entries
}

/// Every key `install` writes or wrote in some version: what `uninstall` looks at.
pub fn all_keys() -> Vec<String> {
    let mut keys: Vec<String> = config_entries(&Exe::OnPath, &Links::default(), true)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    keys.push(format!("diff.{DRIVER}.cachetextconv"));
    keys
}

/// What `install` may have written in a scope: the commands for these binaries, with or
/// without the scope's links.
pub(super) struct Ours {
    pub(super) exes: [Exe; 2],
    pub(super) links: Links,
}

impl Ours {
    /// Whether `value` of `key` is one `install` writes (now or in an earlier version).
    pub(super) fn wrote(&self, key: &str, value: &str) -> bool {
        let variants = self.links.variants();
        self.exes.iter().any(|exe| {
            variants
                .iter()
                .flat_map(|l| config_entries(exe, l, true))
                .chain(legacy_entries(exe))
                .any(|(k, v)| k == key && v == value)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn abs(p: &str) -> Exe {
        Exe::Absolute(PathBuf::from(p))
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/tscn-merge"), "/usr/bin/tscn-merge");
        assert_eq!(shell_quote("/a b/x"), "'/a b/x'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(shell_quote(""), "''");
    }

    const PRELUDE: &str =
        r#"s=%S; x=%X; y=%Y; if [ "$x" = '%''X' ]; then s=base; x=ours; y=theirs; fi; "#;
    const ARGS: &str = r#"merge --git --path=%P --marker-size=%L --base-label="$s" --ours-label="$x" --theirs-label="$y" -- %O %A %B"#;
    const FALLBACK_CMD: &str =
        r#"git merge-file -L "$x" -L "$s" -L "$y" --marker-size=%L -- %A %O %B"#;

    /// What the driver does with neither binary: say so, record it, merge lines.
    const NOT_FOUND_CMD: &str = r#"echo "tscn-merge: not found (at $exe or on PATH): "%P" merged by git's line merge; run tscn-merge doctor" >&2; g=$(git rev-parse --git-dir 2>/dev/null) && mkdir -p "$g/tscn-merge" && echo "$(date -u) "%P": tscn-merge not found at $exe or on PATH: git's line merge used" >>"$g/tscn-merge/fallbacks""#;

    #[test]
    fn merge_driver_on_path() {
        assert_eq!(
            merge_driver_command(&Exe::OnPath),
            format!(
                "{PRELUDE}exe=tscn-merge; if command -v tscn-merge >/dev/null 2>&1; \
                 then tscn-merge {ARGS}; else {NOT_FOUND_CMD}; {FALLBACK_CMD}; fi"
            )
        );
    }

    #[test]
    fn merge_driver_absolute_with_space() {
        assert_eq!(
            merge_driver_command(&abs("/opt/my tools/tscn-merge")),
            format!(
                "{PRELUDE}exe='/opt/my tools/tscn-merge'; if [ -x \"$exe\" ]; \
                 then \"$exe\" {ARGS}; elif command -v tscn-merge >/dev/null 2>&1; \
                 then tscn-merge {ARGS}; else {NOT_FOUND_CMD}; {FALLBACK_CMD}; fi"
            )
        );
        // Only git's placeholders carry a `%` (a `date` format's `%Y` would be a label).
        let cmd = merge_driver_command(&abs("/x/tscn-merge"));
        let mut rest = cmd.as_str();
        while let Some(i) = rest.find('%') {
            let next = rest[i + 1..].chars().next().unwrap_or(' ');
            assert!("OABLPSXY'".contains(next), "%{next} in {cmd}");
            rest = &rest[i + 1..];
        }
    }

    #[test]
    fn diff_commands() {
        let e = abs("/t/debug/tscn-merge");
        assert_eq!(
            diff_command(&e, None),
            "/t/debug/tscn-merge diff --git-external --"
        );
        let diff_link = Path::new("/home/me/.local/share/tscn-merge/global/tscn-merge-diff");
        assert_eq!(
            diff_command(&e, Some(diff_link)),
            diff_link.to_str().unwrap()
        );
        assert_eq!(
            textconv_command(&Exe::OnPath, None),
            "tscn-merge textconv --"
        );
        let link = Path::new("/home/me/.local/share/tscn-merge/global/tscn-merge-textconv");
        assert_eq!(textconv_command(&e, Some(link)), link.to_str().unwrap());
        let spaced = Path::new("/a b/tscn-merge-textconv");
        assert_eq!(
            textconv_command(&e, Some(spaced)),
            "'/a b/tscn-merge-textconv'"
        );
        assert_eq!(
            mergetool_command(&abs("/a b/t")),
            "'/a b/t' mergetool --git -- \"$BASE\" \"$LOCAL\" \"$REMOTE\" \"$MERGED\""
        );
        assert_eq!(
            difftool_command(&abs("/a b/t")),
            "'/a b/t' diff --name=\"$MERGED\" -- \"$LOCAL\" \"$REMOTE\""
        );
        let keys = |diff| -> Vec<String> {
            config_entries(&e, &Links::default(), diff)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        // By default nothing that changes what `git diff` prints.
        assert_eq!(
            keys(false),
            [
                "merge.tscn-merge.name",
                "merge.tscn-merge.driver",
                "diff.tscn-merge.xfuncname",
                "difftool.tscn-merge.cmd",
                "mergetool.tscn-merge.cmd",
                "mergetool.tscn-merge.trustExitCode",
                "alias.scene-diff"
            ]
        );
        assert_eq!(
            keys(true),
            [
                "merge.tscn-merge.name",
                "merge.tscn-merge.driver",
                "diff.tscn-merge.command",
                "diff.tscn-merge.textconv",
                "diff.tscn-merge.xfuncname",
                "difftool.tscn-merge.cmd",
                "mergetool.tscn-merge.cmd",
                "mergetool.tscn-merge.trustExitCode",
                "alias.scene-diff"
            ]
        );
    }
}
