//! The names and types every part of `install` speaks, importing none of them: the
//! driver's name, the attributes block's markers and patterns, the config sections, how
//! commands start the binary ([`Exe`], [`exe_word`]), where ([`Scope`]) and the diff
//! links ([`Links`]). What is written with them is decided in the sibling files.

use crate::diff::{DIFF_LINK, TEXTCONV_LINK};
use std::path::{Path, PathBuf};

/// Name of the merge and diff drivers (`merge=tscn-merge diff=tscn-merge`).
pub const DRIVER: &str = "tscn-merge";
/// First line of the attributes block this tool owns.
pub const BLOCK_START: &str = "# >>> tscn-merge";
/// Last line of the attributes block this tool owns.
pub const BLOCK_END: &str = "# <<< tscn-merge";
/// Patterns marked in the attributes block.
pub const PATTERNS: [&str; 3] = ["*.tscn", "*.tres", "*.escn"];

/// Config sections this tool writes (subsection is always [`DRIVER`]); the
/// record of what it did is the section [`DRIVER`] itself.
pub const SECTIONS: [&str; 3] = ["merge", "diff", "difftool"];

/// How the configured commands refer to the binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exe {
    /// The running binary is the `tscn-merge` found on `PATH`: use the bare name.
    OnPath,
    /// Use this absolute path (e.g. a binary in `target/`).
    Absolute(PathBuf),
}

/// Where to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The repository containing this directory: `.git/config` and the
    /// `.gitattributes` at the work tree root.
    Repo(PathBuf),
    /// `git config --global` and the global attributes file.
    Global,
}

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
        Exe::Absolute(p) => shell_quote(&git_path(p)),
    }
}

/// A path as git's shell reads it: on Windows with `/` (git's `sh` takes `C:/x/y.exe`,
/// and a `\` would need quoting twice over).
pub fn git_path(p: &Path) -> String {
    let s = p.to_string_lossy();
    if cfg!(windows) {
        s.replace('\\', "/")
    } else {
        s.into_owned()
    }
}

/// The links `install` makes in a scope's folder, each a name under which the binary
/// does one job ([`TEXTCONV_LINK`], [`DIFF_LINK`]) so git can start it without a shell;
/// `None` where there is no such link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// Git's textconv, once per blob of `git log -p`.
    pub textconv: Option<PathBuf>,
    /// Git's external diff, once per changed file of `git diff`.
    pub diff: Option<PathBuf>,
}

impl Links {
    /// Both links in `folder`.
    pub fn in_folder(folder: Option<&Path>) -> Links {
        Links {
            textconv: folder.map(|f| f.join(TEXTCONV_LINK)),
            diff: folder.map(|f| f.join(DIFF_LINK)),
        }
    }

    /// Every mix of these links and their absence: the commands `install` may have
    /// written with or without each.
    pub fn variants(&self) -> Vec<Links> {
        let (t, d) = (&self.textconv, &self.diff);
        [
            (None, None),
            (t.clone(), None),
            (None, d.clone()),
            (t.clone(), d.clone()),
        ]
        .into_iter()
        .map(|(textconv, diff)| Links { textconv, diff })
        .collect()
    }
}
