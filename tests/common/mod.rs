//! End-to-end harness shared by the whole-program tests: throwaway git
//! repositories isolated from the user's git configuration, the path of the
//! built binary, and the location of the shared corpus.
//!
//! Use from an integration test with `mod common;`. Every git (and binary)
//! invocation made through [`TempRepo`] runs with its own `HOME` and
//! `XDG_CONFIG_HOME`, `GIT_CONFIG_NOSYSTEM=1`, without the `GIT_*`
//! variables that would redirect git to another repository or config, and with a
//! `PATH` on which no `tscn-merge` is found ([`TempRepo::path_without_tscn_merge`]): what
//! the user installed never decides a test. A test that needs the shared material and
//! finds none says so on stderr past cargo's capture ([`shared_dir`], [`skip`]).
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the `tscn-merge` binary built for these tests.
pub fn bin() -> PathBuf {
    // `option_env!` so this file also compiles inside unit tests, where cargo
    // does not set the variable.
    match option_env!("CARGO_BIN_EXE_tscn-merge") {
        Some(path) => PathBuf::from(path),
        None => panic!("CARGO_BIN_EXE_tscn-merge is only set for integration tests"),
    }
}

/// The project's shared folder (corpus, spec, merges): `$TSCN_SHARED` when set (and
/// then only it), else `<manifest>/../shared` (the folder beside the clone). `None` when there
/// is none, after a SKIP line naming the calling test on stderr ([`skip`]): a test
/// that passes without its material says so in every run.
pub fn shared_dir() -> Option<PathBuf> {
    let found = match std::env::var_os("TSCN_SHARED").filter(|p| !p.is_empty()) {
        Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_dir()),
        None => {
            Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")).filter(|p| p.is_dir())
        }
    };
    if found.is_none() {
        skip("the shared test material is not there (../shared beside the clone, or $TSCN_SHARED; README, \"Try it\")");
    }
    found
}

/// Say on stderr that the running test skips its work and why: written to the process's
/// stderr itself, past cargo's output capture (which only takes `eprintln!`), so the
/// line shows in every run.
pub fn skip(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "SKIP {test}: {why}");
}

/// A file below [`shared_dir`], if it exists.
pub fn shared_file(rel: impl AsRef<Path>) -> Option<PathBuf> {
    shared_dir().map(|d| d.join(rel)).filter(|p| p.exists())
}

/// Environment variables that would point git at another repository,
/// index or configuration, or change what tscn-merge does (the ones README tells users
/// to set: `TSCN_MERGE=off`, `TSCN_MERGE_FAVOR`, `TSCN_MERGE_TIMEOUT`, and `NO_COLOR`);
/// removed for every command the harness runs. A test that wants one sets it.
const SCRUBBED_ENV: &[&str] = &[
    "TSCN_MERGE",
    "TSCN_MERGE_FAVOR",
    "TSCN_MERGE_STATE",
    "TSCN_MERGE_EXPLAIN",
    "TSCN_MERGE_TIMEOUT",
    "NO_COLOR",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_MERGE_VERBOSITY",
    "GIT_EDITOR",
    "GIT_PAGER",
    "GIT_ATTR_NOSYSTEM",
];

/// A temporary git repository (`git init -b main`, local user set) with its
/// own home directory. Both are deleted on drop.
pub struct TempRepo {
    root: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
    /// [`TempRepo::path_without_tscn_merge`], made once.
    clean_path: std::sync::OnceLock<OsString>,
}

impl TempRepo {
    /// A fresh repository with an initial branch `main` and no commits.
    pub fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("tscn-merge-test")
            .tempdir()
            .expect("creating a temp dir");
        let repo = root.path().join("repo");
        let home = root.path().join("home");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        let this = TempRepo {
            root,
            repo,
            home,
            clean_path: std::sync::OnceLock::new(),
        };
        this.git_ok(["init", "-q", "-b", "main"]);
        this.git_ok(["config", "user.name", "Test User"]);
        this.git_ok(["config", "user.email", "test@example.com"]);
        this.git_ok(["config", "commit.gpgsign", "false"]);
        this.git_ok(["config", "core.autocrlf", "false"]);
        this
    }

    /// The work tree root.
    pub fn path(&self) -> &Path {
        &self.repo
    }

    /// The temporary `HOME` every command runs with.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The temporary `XDG_CONFIG_HOME` (`<home>/.config`).
    pub fn xdg_config_home(&self) -> PathBuf {
        self.home.join(".config")
    }

    /// A scratch directory next to the repository (not inside it).
    pub fn scratch(&self) -> PathBuf {
        let p = self.root.path().join("scratch");
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// Absolute path of `rel` in the work tree.
    pub fn abs(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.repo.join(rel)
    }

    /// Apply the isolated environment to any command.
    pub fn isolate<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        for var in SCRUBBED_ENV {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.xdg_config_home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
            .env("LC_ALL", "C")
            .env("LANG", "C")
            .env("PATH", self.path_without_tscn_merge())
    }

    /// The test process's `PATH` with every folder that holds a `tscn-merge` replaced by
    /// a folder (in this repository's temporary root) of links to everything else in it,
    /// as `git`, `sh` or `date` may live beside it: no `tscn-merge` is found on it,
    /// whatever the user installed, and nothing else is lost. Every command of
    /// [`TempRepo::isolate`] runs with it; a test that wants a `tscn-merge` on `PATH`
    /// puts its own folder first.
    pub fn path_without_tscn_merge(&self) -> OsString {
        let shims = self.root.path().join("path");
        self.clean_path
            .get_or_init(|| path_without_tscn_merge(&shims))
            .clone()
    }

    /// A command for `program`, isolated, running in the work tree.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        self.isolate(&mut cmd).current_dir(&self.repo);
        cmd
    }

    /// Run git in the work tree; returns its output whatever the status.
    pub fn git<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command("git")
            .args(args)
            .output()
            .expect("running git")
    }

    /// Run git, panic with its stderr unless it succeeds; returns stdout.
    pub fn git_ok<I, S>(&self, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<S> = args.into_iter().collect();
        let out = self.git(&args);
        assert_success(&out, &format!("git {}", show_args(&args)));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Run the tscn-merge binary in the work tree with the isolated environment.
    pub fn run_bin<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command(bin())
            .args(args)
            .output()
            .expect("running tscn-merge")
    }

    /// Write a file in the work tree, creating parent directories.
    pub fn write(&self, rel: impl AsRef<Path>, bytes: impl AsRef<[u8]>) {
        let p = self.abs(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    }

    /// Read a file in the work tree.
    pub fn read(&self, rel: impl AsRef<Path>) -> Vec<u8> {
        let p = self.abs(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
    }

    /// Read a file in the work tree, `None` if it does not exist.
    pub fn try_read(&self, rel: impl AsRef<Path>) -> Option<Vec<u8>> {
        std::fs::read(self.abs(rel)).ok()
    }

    /// Delete a file from the work tree.
    pub fn remove(&self, rel: impl AsRef<Path>) {
        std::fs::remove_file(self.abs(rel)).unwrap();
    }

    /// `git add -A` and commit; returns the new commit id.
    pub fn commit_all(&self, msg: &str) -> String {
        self.git_ok(["add", "-A"]);
        self.git_ok(["commit", "-q", "--allow-empty", "-m", msg]);
        self.rev_parse("HEAD")
    }

    /// Full object id of a revision.
    pub fn rev_parse(&self, rev: &str) -> String {
        self.git_ok(["rev-parse", "--verify", rev])
            .trim()
            .to_string()
    }

    /// Create a branch at HEAD (without switching).
    pub fn branch(&self, name: &str) {
        self.git_ok(["branch", name]);
    }

    /// Switch to an existing branch or commit.
    pub fn checkout(&self, name: &str) {
        self.git_ok(["checkout", "-q", name]);
    }

    /// Create a branch at HEAD and switch to it.
    pub fn checkout_new(&self, name: &str) {
        self.git_ok(["checkout", "-q", "-b", name]);
    }

    /// `git merge --no-edit <branch>`; returns the output whatever the status.
    pub fn merge(&self, branch: &str) -> Output {
        self.git(["merge", "--no-edit", "--no-ff", branch])
    }

    /// `git config --get <key>` in the repository, `None` when unset.
    pub fn config_get(&self, key: &str) -> Option<String> {
        let out = self.git(["config", "--get", key]);
        out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .trim_end_matches('\n')
                .to_string()
        })
    }
}

impl Default for TempRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether `dir` holds a program named `tscn-merge` (`tscn-merge.exe`).
fn holds_tscn_merge(dir: &Path) -> bool {
    ["tscn-merge", "tscn-merge.exe"]
        .iter()
        .any(|name| dir.join(name).exists())
}

/// See [`TempRepo::path_without_tscn_merge`]; the link folders go under `shims`.
fn path_without_tscn_merge(shims: &Path) -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = Vec::new();
    for (i, dir) in std::env::split_paths(&path).enumerate() {
        if !holds_tscn_merge(&dir) {
            dirs.push(dir);
            continue;
        }
        #[cfg(unix)]
        {
            let shim = shims.join(i.to_string());
            std::fs::create_dir_all(&shim).expect("a folder for PATH's links");
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = entry.file_name();
                if !name.to_string_lossy().starts_with("tscn-merge") {
                    let _ = std::os::unix::fs::symlink(entry.path(), shim.join(&name));
                }
            }
            dirs.push(shim);
        }
        #[cfg(not(unix))]
        let _ = (i, shims);
    }
    std::env::join_paths(dirs).expect("PATH's folders join again")
}

/// Run the tests `names` of this test program again, in a child process whose `PATH`
/// starts with a folder holding a copy of the binary as `tscn-merge` (what the
/// README's install step leaves): `Err` with the child's output unless they all pass.
/// A test that simulates a missing binary must not find that one.
pub fn rerun_with_tscn_merge_on_path(names: &[&str]) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = dir
        .path()
        .join(format!("tscn-merge{}", std::env::consts::EXE_SUFFIX));
    // `cp`, so that no write descriptor to the copy lives in this multi-threaded process
    // (a sibling test's fork would hold it and running the copy fail with ETXTBSY).
    let copied = Command::new("cp").arg(bin()).arg(&copy).status();
    if !copied.is_ok_and(|s| s.success()) {
        return Err(format!("cp {} {}", bin().display(), copy.display()));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let search = std::iter::once(dir.path().to_path_buf()).chain(std::env::split_paths(&path));
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(me)
        .args(names)
        .args(["--exact", "--test-threads=2"])
        .env(
            "PATH",
            std::env::join_paths(search).map_err(|e| e.to_string())?,
        )
        .output()
        .map_err(|e| e.to_string())?;
    let ran = stdout(&out).contains(&format!("{} passed", names.len()));
    match out.status.success() && ran {
        true => Ok(()),
        false => Err(format!("{}\n{}", stdout(&out), stderr(&out))),
    }
}

fn show_args<S: AsRef<OsStr>>(args: &[S]) -> String {
    args.iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Panic with the command's stdout and stderr unless it exited with 0.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `git merge-file -p --diff3 -L ours -L base -L theirs` on the three texts, isolated
/// from the user's git configuration: (merged text, exit code). `None` when git cannot
/// be run.
pub fn git_merge_file(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<(Vec<u8>, i32)> {
    let dir = tempfile::tempdir().ok()?;
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("base"), base).ok()?;
    std::fs::write(p("ours"), ours).ok()?;
    std::fs::write(p("theirs"), theirs).ok()?;
    let out = Command::new("git")
        .args(["merge-file", "-p", "--diff3"])
        .args(["-L", "ours", "-L", "base", "-L", "theirs"])
        .arg(p("ours"))
        .arg(p("base"))
        .arg(p("theirs"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir.path())
        .env_remove("GIT_CONFIG_GLOBAL")
        .output()
        .ok()?;
    Some((out.stdout, out.status.code()?))
}

/// The write end of a pipe whose read end is already closed (`| head -1` gone). Unix
/// only (the tests that use it are too).
#[cfg(unix)]
pub fn closed_pipe() -> std::process::Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills both descriptors; each is owned exactly once below.
    let (read, write) = unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "pipe");
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    };
    drop(read);
    std::process::Stdio::from(write)
}

/// A standard stream on `/dev/full`: every write fails with "No space left on device".
pub fn dev_full() -> std::process::Stdio {
    std::process::Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

/// The library's merge of three texts with the default options (no binary, no git).
pub fn merged(base: &str, ours: &str, theirs: &str) -> gdscene::merge::MergeOutcome {
    gdscene::merge::merge(
        base.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        &gdscene::merge::MergeOptions::default(),
    )
}

/// A merge's result as text.
pub fn text(m: &gdscene::merge::MergeOutcome) -> String {
    String::from_utf8_lossy(&m.text).into_owned()
}

/// Whether `check` finds no error in a merged text (which must parse).
pub fn valid(text: &str) -> bool {
    let scene = gdscene::model::Scene::parse(text.as_bytes()).expect("the merged text parses");
    !gdscene::check::is_broken(&gdscene::check::check(&scene))
}

/// Panic, with the whole report and text, unless some conflict's location and property
/// together mention every word.
pub fn assert_conflict(m: &gdscene::merge::MergeOutcome, words: &[&str]) {
    let found = m.conflicts.iter().any(|c| {
        let all = format!("{} {}", c.location, c.property.as_deref().unwrap_or(""));
        words.iter().all(|w| all.contains(w))
    });
    assert!(
        found,
        "no conflict naming {words:?}: {:#?}\n{}",
        m.conflicts,
        text(m)
    );
}

/// Run the built binary outside any repository: its exit code (-1 when a signal ended
/// it) and standard output.
pub fn run(args: &[&OsStr]) -> (i32, String) {
    let out = Command::new(bin())
        .args(args)
        .output()
        .expect("the binary runs");
    (out.status.code().unwrap_or(-1), stdout(&out))
}
