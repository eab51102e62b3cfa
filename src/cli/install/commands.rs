//! The text `install` writes into git's config: the merge driver's shell command (with
//! its fallback to `git merge-file`), the external diff, textconv and difftool commands,
//! the hunk-header pattern, and the values earlier versions wrote (still recognised as
//! ours). Pure functions; writing them is left to [`super::config`].

use std::path::Path;

use super::links::Links;
use super::{Exe, DRIVER};

/// Quote `s` for a POSIX shell: unchanged when it only has safe characters,
/// else in single quotes.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How commands start the binary: `tscn-merge` or the quoted absolute path.
pub fn exe_word(exe: &Exe) -> String {
    match exe {
        Exe::OnPath => DRIVER.to_string(),
        Exe::Absolute(p) => shell_quote(&p.to_string_lossy()),
    }
}

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

/// `merge.tscn-merge.driver`: run tscn-merge when it exists, otherwise fall
/// back to git's own line merge, so a missing binary never breaks merges.
/// Exit status is the driver's (1 = conflicts), never a trigger for fallback.
pub fn merge_driver_command(exe: &Exe) -> String {
    merge_driver_with(exe, MERGE_ARGS, FALLBACK)
}

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
/// broke them): still ours, so `install` replaces them and `uninstall` removes them.
pub(super) fn legacy_entries(exe: &Exe) -> Vec<(String, String)> {
    const ARGS: &str = "merge --git -p %P -l %L -s \"$s\" -x \"$x\" -y \"$y\" %O %A %B";
    const MERGE_FILE: &str =
        "git merge-file -L \"$x\" -L \"$s\" -L \"$y\" --marker-size=%L %A %O %B";
    let word = exe_word(exe);
    vec![
        (
            format!("merge.{DRIVER}.driver"),
            merge_driver_with(exe, ARGS, MERGE_FILE),
        ),
        (
            format!("diff.{DRIVER}.command"),
            format!("{word} diff --git-external"),
        ),
        (
            format!("diff.{DRIVER}.textconv"),
            format!("{word} textconv"),
        ),
        (
            format!("difftool.{DRIVER}.cmd"),
            format!("{word} diff \"$LOCAL\" \"$REMOTE\""),
        ),
    ]
}

/// `diff.tscn-merge.command` (git appends: path old-file old-hex old-mode
/// new-file new-hex new-mode): the [`DIFF_LINK`] `install` made, which git starts
/// without a shell and which takes every argument as a value; else the shell command,
/// where the path may start with `-`, hence `--`.
pub fn diff_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} diff --git-external --", exe_word(exe)),
    }
}

/// `diff.tscn-merge.textconv`: the [`TEXTCONV_LINK`] `install` made, which git starts
/// without a shell when its path has no shell metacharacter, else `tscn-merge textconv --`
/// through `sh -c`.
pub fn textconv_command(exe: &Exe, link: Option<&Path>) -> String {
    match link {
        Some(l) => shell_quote(&l.to_string_lossy()),
        None => format!("{} textconv --", exe_word(exe)),
    }
}

/// `difftool.tscn-merge.cmd`.
pub fn difftool_command(exe: &Exe) -> String {
    format!("{} diff -- \"$LOCAL\" \"$REMOTE\"", exe_word(exe))
}

/// `diff.tscn-merge.xfuncname`: hunk headers of `git diff` (raw or textconv'd) name
/// the section a change is in (`[node name="Player" ...]`, `[sub_resource ...]`).
pub const XFUNCNAME: &str = r"^(\[(node|sub_resource|ext_resource|resource)( .*)?\])";

/// Every config key and value that install writes, in order. `cache` turns on
/// `cachetextconv`, which git keeps as a notes commit: only safe where git has a
/// commit identity, or every `git log -p` dies ("Author identity unknown").
pub fn config_entries(exe: &Exe, links: &Links, cache: bool) -> Vec<(String, String)> {
    vec![
        (
            format!("merge.{DRIVER}.name"),
            "tscn-merge: structural merge for Godot scenes".to_string(),
        ),
        (format!("merge.{DRIVER}.driver"), merge_driver_command(exe)),
        (
            format!("diff.{DRIVER}.command"),
            diff_command(exe, links.diff.as_deref()),
        ),
        (
            format!("diff.{DRIVER}.textconv"),
            textconv_command(exe, links.textconv.as_deref()),
        ),
        (format!("diff.{DRIVER}.cachetextconv"), cache.to_string()),
        (format!("diff.{DRIVER}.xfuncname"), XFUNCNAME.to_string()),
        (format!("difftool.{DRIVER}.cmd"), difftool_command(exe)),
    ]
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
                .flat_map(|l| [config_entries(exe, l, true), config_entries(exe, l, false)])
                .flatten()
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

    #[test]
    fn merge_driver_on_path() {
        assert_eq!(
            merge_driver_command(&Exe::OnPath),
            format!(
                "{PRELUDE}if command -v tscn-merge >/dev/null 2>&1; \
                 then tscn-merge {ARGS}; else {FALLBACK_CMD}; fi"
            )
        );
    }

    #[test]
    fn merge_driver_absolute_with_space() {
        assert_eq!(
            merge_driver_command(&abs("/opt/my tools/tscn-merge")),
            format!(
                "{PRELUDE}exe='/opt/my tools/tscn-merge'; if [ -x \"$exe\" ]; \
                 then \"$exe\" {ARGS}; else {FALLBACK_CMD}; fi"
            )
        );
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
            difftool_command(&abs("/a b/t")),
            "'/a b/t' diff -- \"$LOCAL\" \"$REMOTE\""
        );
        let keys: Vec<String> = config_entries(&e, &Links::default(), false)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            [
                "merge.tscn-merge.name",
                "merge.tscn-merge.driver",
                "diff.tscn-merge.command",
                "diff.tscn-merge.textconv",
                "diff.tscn-merge.cachetextconv",
                "diff.tscn-merge.xfuncname",
                "difftool.tscn-merge.cmd"
            ]
        );
    }
}
