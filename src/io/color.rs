//! Whether to colour output: `--color`, `NO_COLOR`, a terminal, and git's own colour
//! settings when git runs us (through its pager or as its external diff). What is
//! coloured is decided by the renderers.

use clap::ValueEnum;

/// When to colour output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Whether to colour. `--color always`/`never` win. Under `auto`, `NO_COLOR` turns colour
/// off; otherwise a terminal turns it on, and so does git's pager: `git diff` at a
/// terminal pipes through `less`, so the external diff sees a pipe, but git says so in
/// `GIT_PAGER_IN_USE`. When git runs us, its own `color.diff` / `color.ui` decide as
/// they do for git's output (`color.pager` is not consulted); git is asked only then.
pub fn use_color(choice: ColorChoice) -> bool {
    use std::io::IsTerminal;
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => auto_color(
            |k| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned()),
            std::io::stdout().is_terminal(),
            git_wants_color,
        ),
    }
}

/// The `auto` decision, from the environment, whether stdout is a terminal, and git's
/// verdict (asked with whether stdout is a terminal; `None` when git cannot say).
fn auto_color(
    env: impl Fn(&str) -> Option<String>,
    tty: bool,
    git: impl FnOnce(bool) -> Option<bool>,
) -> bool {
    if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    let pager = env("GIT_PAGER_IN_USE").is_some_and(|v| git_env_true(&v));
    let run_by_git = pager || env("GIT_DIFF_PATH_COUNTER").is_some();
    match (tty, pager) {
        (false, false) => false,
        _ if run_by_git => git(tty).unwrap_or(true),
        _ => true,
    }
}

/// A boolean environment value as git reads one (`GIT_PAGER_IN_USE=true`).
fn git_env_true(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// git's own answer for `color.diff` (falling back to `color.ui`, `-c` overrides and the
/// pager included): `git config --get-colorbool color.diff TTY`.
fn git_wants_color(tty: bool) -> Option<bool> {
    let out = std::process::Command::new("git")
        .args(["config", "--get-colorbool", "color.diff"])
        .arg(if tty { "true" } else { "false" })
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    match String::from_utf8_lossy(&out.stdout).trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::auto_color;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
    }

    #[test]
    fn auto_colour_follows_the_terminal_the_pager_and_git() {
        let never_asked = |_| -> Option<bool> { panic!("git asked") };
        assert!(auto_color(env(&[]), true, never_asked));
        assert!(!auto_color(env(&[]), false, never_asked));
        assert!(!auto_color(env(&[("NO_COLOR", "1")]), true, never_asked));
        assert!(!auto_color(
            env(&[("GIT_PAGER_IN_USE", "false")]),
            false,
            never_asked
        ));
        let pager = [("GIT_PAGER_IN_USE", "true")];
        assert!(auto_color(env(&pager), false, |tty| Some(!tty)));
        assert!(!auto_color(env(&pager), false, |_| Some(false)));
        assert!(auto_color(env(&pager), false, |_| None));
        let counter = [("GIT_DIFF_PATH_COUNTER", "1")];
        assert!(!auto_color(env(&counter), true, |tty| Some(!tty)));
        assert!(!auto_color(env(&counter), false, never_asked));
        let both = [("GIT_PAGER_IN_USE", "1"), ("NO_COLOR", "x")];
        assert!(!auto_color(env(&both), true, never_asked));
    }
}
