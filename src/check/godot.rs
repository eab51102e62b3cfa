//! `--godot [BINARY]`: the user's own Godot 4 (or 3) loads the files, headless, and says
//! per file whether it loaded and what it printed. Which files, and how the verdicts are
//! shown, is the caller's (`check`, `ci check`, `ci merge`); this file decides how the
//! engine is found and run.
//!
//! One batch is one temporary project: a `project.godot` of its own, copies of the files
//! at their `res://` paths (relative to the `project.godot` above each, so references
//! between them resolve; elsewhere under `__f/`), ConfigFile-format files under `__c/`, a
//! placeholder for every external resource a file names that the project lacks (as the
//! engine harness of `tests/engine/` gives them: a scene, a script, or a `.remap` to a
//! resource of the type, made by the engine), and the checker script
//! (`godot4.gd`/`godot3.gd`), run as `BINARY [--headless] --path DIR --script
//! res://__check/check.gd` with `HOME` and the XDG folders inside the batch (the engine
//! writes its user data there, not in the user's home). The engine's standard output and
//! error go to one file, in the order printed; `@@B n` / `@@R {json}` lines frame each
//! file. A file the engine dies or hangs on (no output for [`QUIET`]) is reported as
//! such, and the files after it are loaded by a new start.

use super::args::GodotArg;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The engine is stopped after this long without printing anything.
const QUIET: Duration = Duration::from_secs(120);
/// At most this many message lines are kept per file, each at most [`LINE_CHARS`].
const MOST_LINES: usize = 40;
const LINE_CHARS: usize = 400;

/// A Godot binary that answered `--version` as Godot 3 or 4.
#[derive(Debug, Clone)]
pub struct Godot {
    /// The program run.
    pub binary: PathBuf,
    /// What `--version` printed (`4.6.stable.official.89cea1439`).
    pub version: String,
    /// 3 or 4.
    pub major: u32,
}

/// One file for the engine: a scene or resource (`ResourceLoader.load`) or a
/// ConfigFile-format file (`ConfigFile.load`).
#[derive(Debug, Clone)]
pub struct Job {
    /// The file's path relative to its project's `project.godot`, `/`-separated, when
    /// it has one (its `res://` path).
    pub res: Option<String>,
    /// The bytes loaded.
    pub bytes: Vec<u8>,
    /// `ConfigFile.load` rather than `ResourceLoader.load`.
    pub config: bool,
    /// The file's name as it appears in the copy (its extension picks the loader).
    pub file_name: String,
}

/// What the engine said about one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The file loaded (a scene: with at least one node).
    pub loaded: bool,
    /// What the engine printed while loading it (errors, warnings), and for a file that
    /// did not load, why when the engine gave no reason.
    pub messages: Vec<String>,
}

impl Godot {
    /// The binary `--godot` names (empty: `$GODOT`, else `godot`, `godot4`, `godot3` on
    /// PATH), asked for its version. An error when none is found or it does not answer
    /// as Godot 3 or 4.
    pub fn find(arg: &Path) -> Result<Godot> {
        let binary = if arg.as_os_str().is_empty() {
            default_binary().context(
                "no Godot binary found: give one (`--godot PATH`), set GODOT, or put `godot` on PATH",
            )?
        } else {
            arg.to_path_buf()
        };
        let shown = binary.display().to_string();
        let out = Command::new(&binary)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("cannot run the Godot binary {shown}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let version = text
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .unwrap_or("")
            .to_string();
        let major = version.split('.').next().and_then(|m| m.parse().ok());
        match major {
            // Godot 3 exits 255 after printing its version: the answer is what counts.
            Some(m @ (3 | 4)) => Ok(Godot {
                binary,
                version,
                major: m,
            }),
            _ => bail!(
                "{shown} --version did not answer as Godot 3 or 4 (exit {}, printed {:?})",
                out.status
                    .code()
                    .map_or("by a signal".into(), |c| c.to_string()),
                clip(text.trim(), 200)
            ),
        }
    }

    /// Load every job, one engine start for all (more only where the engine died on a
    /// file); a verdict per job, in order. An error when the engine cannot run the
    /// checker at all.
    pub fn load(&self, jobs: &[Job]) -> Result<Vec<Verdict>> {
        let work = tempfile::Builder::new()
            .prefix("tscn-merge-godot-")
            .tempdir()
            .context("cannot create a temporary folder")?;
        let project = work.path().join("project");
        let placed = self.lay_out(&project, jobs)?;
        let mut verdicts: Vec<Option<Verdict>> = vec![None; jobs.len()];
        let mut todo: Vec<usize> = (0..jobs.len()).collect();
        let mut starts = 0;
        while !todo.is_empty() && starts <= jobs.len() {
            starts += 1;
            let lines: Vec<String> = todo.iter().map(|&i| placed.jobs[i].clone()).collect();
            let known = (&placed.types, &placed.uids);
            let run = self.run_once(work.path(), known, &lines, starts)?;
            if run.answers.is_empty() && run.began.is_none() {
                bail!(
                    "{} did not run the checker (exit {}): {}",
                    self.binary.display(),
                    run.status,
                    clip(run.tail.trim(), 600)
                );
            }
            for (k, v) in run.answers {
                if let Some(&i) = todo.get(k) {
                    verdicts[i] = Some(v);
                }
            }
            if let Some((k, mut messages)) = run.began {
                messages.push(format!(
                    "the engine stopped while loading this file ({})",
                    run.status
                ));
                if let Some(&i) = todo.get(k) {
                    verdicts[i] = Some(Verdict {
                        loaded: false,
                        messages,
                    });
                }
            }
            todo.retain(|&i| verdicts[i].is_none());
        }
        Ok(verdicts
            .into_iter()
            .map(|v| {
                v.unwrap_or_else(|| Verdict {
                    loaded: false,
                    messages: vec!["the engine gave no answer for this file".into()],
                })
            })
            .collect())
    }

    /// The temporary project: settings, the checker, the copies and the placeholders.
    fn lay_out(&self, project: &Path, jobs: &[Job]) -> Result<Placed> {
        let placed = place(jobs, self.major);
        let (settings, script) = if self.major >= 4 {
            ("config_version=5\n", include_str!("godot4.gd"))
        } else {
            ("config_version=4\n", include_str!("godot3.gd"))
        };
        let mut files = placed.files.clone();
        files.push((
            "project.godot".into(),
            format!("{settings}\n[application]\n\nconfig/name=\"tscn-merge check\"\nrun/flush_stdout_on_print=true\n").into_bytes(),
        ));
        files.push(("__check/check.gd".into(), script.as_bytes().to_vec()));
        for (rel, bytes) in &files {
            let path = project.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(&path, bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(placed)
    }

    /// One engine start over `lines` (the jobs' lines of `jobs.txt`).
    fn run_once(
        &self,
        work: &Path,
        (types, uids): (&BTreeSet<String>, &BTreeMap<String, String>),
        lines: &[String],
        n: usize,
    ) -> Result<Run> {
        let project = work.join("project");
        let mut text: String = types.iter().map(|t| format!("ph\t{t}\n")).collect();
        for (uid, path) in uids {
            text.push_str(&format!("uid\t{uid}\tres://{path}\n"));
        }
        lines.iter().for_each(|l| text.push_str(&format!("{l}\n")));
        std::fs::write(project.join("__check/jobs.txt"), text)
            .context("cannot write the job list")?;
        let home = work.join("home");
        for sub in ["", "data", "config", "cache"] {
            std::fs::create_dir_all(home.join(sub)).context("cannot create the engine's home")?;
        }
        let log_path = work.join(format!("engine-{n}.log"));
        let log = std::fs::File::create(&log_path).context("cannot create the engine's log")?;
        let mut cmd = Command::new(&self.binary);
        if self.major >= 4 {
            cmd.arg("--headless");
        }
        cmd.arg("--path")
            .arg(&project)
            .args(["--script", "res://__check/check.gd"])
            .stdin(Stdio::null())
            .stdout(Stdio::from(
                log.try_clone().context("cannot share the log")?,
            ))
            .stderr(Stdio::from(log))
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("APPDATA", home.join("data"));
        let mut child = cmd
            .spawn()
            .with_context(|| format!("cannot run the Godot binary {}", self.binary.display()))?;
        let (mut size, mut since) = (0, Instant::now());
        let status = loop {
            if let Some(s) = child.try_wait()? {
                break match s.code() {
                    Some(c) => format!("exit status {c}"),
                    None => "killed by a signal".into(),
                };
            }
            let now = std::fs::metadata(&log_path).map(|m| m.len()).unwrap_or(0);
            if now != size {
                (size, since) = (now, Instant::now());
            } else if since.elapsed() > QUIET {
                let _ = child.kill();
                let _ = child.wait();
                break format!(
                    "it printed nothing for {} s and was stopped",
                    QUIET.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = std::fs::read(&log_path).context("cannot read the engine's log")?;
        Ok(read_log(&String::from_utf8_lossy(&out), status))
    }
}

/// `s` cut to at most `max` characters (`…` marks the cut).
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// `$GODOT`, else the first of `godot`, `godot4`, `godot3` on PATH.
fn default_binary() -> Option<PathBuf> {
    if let Some(g) = std::env::var_os("GODOT").filter(|g| !g.is_empty()) {
        return Some(PathBuf::from(g));
    }
    let path = std::env::var_os("PATH")?;
    let exe = if cfg!(windows) { ".exe" } else { "" };
    ["godot", "godot4", "godot3"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|d| d.join(format!("{name}{exe}")))
            .find(|p| p.is_file())
    })
}

/// What one engine start said.
#[derive(Debug, Default)]
struct Run {
    /// Per job index of this start: its verdict.
    answers: Vec<(usize, Verdict)>,
    /// A job begun and never answered, with what was printed meanwhile.
    began: Option<(usize, Vec<String>)>,
    /// How the process ended.
    status: String,
    /// The log's last lines (for an engine that never ran the checker).
    tail: String,
}

/// Read the log of one start: `@@B n`, messages, `@@R {json}` per file.
fn read_log(log: &str, status: String) -> Run {
    let mut run = Run {
        status,
        ..Run::default()
    };
    let mut current: Option<(usize, Vec<String>)> = None;
    for line in log.lines() {
        let line = line.trim_end();
        if let Some(n) = line.strip_prefix("@@B ") {
            current = n.trim().parse().ok().map(|n| (n, Vec::new()));
        } else if let Some(json) = line.strip_prefix("@@R ") {
            if let Some((n, messages)) = current.take() {
                run.answers.push((n, verdict(json, messages)));
            }
        } else if line.starts_with("@@") || line.is_empty() || checkers_own(line) {
            continue;
        } else if let Some((_, messages)) = current.as_mut() {
            if messages.len() < MOST_LINES {
                messages.push(clip(line, LINE_CHARS));
            }
        }
    }
    run.began = current;
    let lines: Vec<&str> = log.lines().collect();
    run.tail = lines[lines.len().saturating_sub(8)..].join("\n");
    run
}

/// A line of the checker's own call stack: a debug build of Godot 4 follows each error
/// with the GDScript frames running (`GDScript backtrace (most recent call first):`,
/// `[0] _resource (res://__check/check.gd:66)`), which are the checker's, not the file's.
fn checkers_own(line: &str) -> bool {
    let t = line.trim();
    t == "GDScript backtrace (most recent call first):"
        || (t.starts_with('[') && t.contains("(res://__check/check.gd:"))
}

/// A file's verdict from its `@@R` line and the engine's messages.
fn verdict(json: &str, mut messages: Vec<String>) -> Verdict {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let loaded = v["loaded"].as_bool().unwrap_or(false);
    if !loaded && messages.is_empty() {
        messages.push(if v["nodes"].as_f64() == Some(0.0) {
            "the engine reads no node in this scene".to_string()
        } else if let Some(e) = v["error"].as_f64() {
            format!("ConfigFile.load gave error {e}")
        } else {
            "ResourceLoader.load gave nothing".to_string()
        });
    }
    Verdict { loaded, messages }
}

/// The files of the temporary project besides its settings and checker, each job's
/// line of `jobs.txt`, the placeholder types the engine makes, and the `uid://` of each
/// file there (its own header's, or the one a file's `[ext_resource]` gives its path):
/// the user's project has them in its uid cache, a temporary one would not, and Godot 4
/// would warn `invalid UID` on every reference.
#[derive(Debug, Default)]
struct Placed {
    files: Vec<(String, Vec<u8>)>,
    jobs: Vec<String>,
    types: BTreeSet<String>,
    uids: BTreeMap<String, String>,
}

/// Where each job goes, and the placeholders for what they name and the project lacks.
fn place(jobs: &[Job], major: u32) -> Placed {
    let mut placed = Placed::default();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut at = Vec::new();
    for (n, job) in jobs.iter().enumerate() {
        let rel = if job.config {
            format!("__c/{n}.cfg")
        } else {
            match job
                .res
                .as_deref()
                .filter(|r| usable(r) && !taken.contains(*r))
            {
                Some(r) => r.to_string(),
                None => format!("__f/{n}/{}", safe_name(&job.file_name)),
            }
        };
        taken.insert(rel.clone());
        let kind = if job.config { "cfg" } else { "res" };
        placed.jobs.push(format!("{kind}\tres://{rel}"));
        placed.files.push((rel.clone(), job.bytes.clone()));
        at.push(rel);
    }
    let scenes: Vec<Option<gdscene::model::Scene>> = jobs
        .iter()
        .map(|j| (!j.config).then(|| gdscene::model::Scene::parse(&j.bytes).ok())?)
        .collect();
    // Godot 3 files have no uids; a checked file's own uid first, then the references'.
    let uids = major >= 4;
    for (scene, rel) in scenes.iter().zip(&at) {
        if let Some(uid) = scene.as_ref().and_then(|s| s.header.uid.as_deref()) {
            if uids && uid_ok(uid) {
                placed.uids.entry(uid.to_string()).or_insert(rel.clone());
            }
        }
    }
    for (scene, rel) in scenes.iter().zip(&at) {
        let Some(scene) = scene else {
            continue;
        };
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for ext in &scene.ext_resources {
            let Some(p) = target(&ext.path, dir) else {
                continue;
            };
            if let Some(uid) = ext.uid.as_deref().filter(|u| uids && uid_ok(u)) {
                placed
                    .uids
                    .entry(uid.to_string())
                    .or_insert_with(|| p.clone());
            }
            if taken.insert(p.clone()) {
                placeholder(&mut placed, &p, &ext.type_name, major);
            }
        }
    }
    placed
}

/// A `uid://` text fit for a line of `jobs.txt` (Godot's base-34 digits and letters).
fn uid_ok(uid: &str) -> bool {
    uid.strip_prefix("uid://").is_some_and(|u| {
        !u.is_empty() && u.len() <= 16 && u.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// The placeholder at `p` for a missing resource of type `t`.
fn placeholder(placed: &mut Placed, p: &str, t: &str, major: u32) {
    let remap = |to: &str| format!("[remap]\n\npath=\"{to}\"\n").into_bytes();
    let lower = p.to_ascii_lowercase();
    if t == "PackedScene" || lower.ends_with(".tscn") || lower.ends_with(".scn") {
        let format = if major >= 4 { 3 } else { 2 };
        let scene =
            format!("[gd_scene format={format}]\n\n[node name=\"Placeholder\" type=\"Node2D\"]\n");
        if lower.ends_with(".tscn") {
            placed.files.push((p.to_string(), scene.into_bytes()));
        } else {
            placed
                .files
                .push(("__check/scene.tscn".into(), scene.into_bytes()));
            placed
                .files
                .push((format!("{p}.remap"), remap("res://__check/scene.tscn")));
        }
    } else if t.ends_with("Script") || lower.ends_with(".gd") || lower.ends_with(".cs") {
        let script = b"extends Object\n".to_vec();
        if lower.ends_with(".gd") {
            placed.files.push((p.to_string(), script));
        } else {
            placed.files.push(("__check/placeholder.gd".into(), script));
            placed
                .files
                .push((format!("{p}.remap"), remap("res://__check/placeholder.gd")));
        }
    } else {
        let ident = !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let t = if ident { t } else { "Resource" };
        placed.types.insert(t.to_string());
        placed
            .files
            .push((format!("{p}.remap"), remap(&format!("res://__ph/{t}.tres"))));
    }
}

/// Whether a `res://` path of a user's file can be used as is in the project (no line
/// breaks or tabs for `jobs.txt`, nothing of the checker's own).
fn usable(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains(['\n', '\r', '\t', '"', '\\'])
        && !["__check/", "__ph/", "__c/", "__f/", ".godot/"]
            .iter()
            .any(|p| rel.starts_with(p))
        && rel != "project.godot"
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// A file name safe in a `res://` path: anything odd becomes `_` (the extension kept).
fn safe_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || ".-_ ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.trim_matches('.').is_empty() {
        "file.tscn".into()
    } else {
        s
    }
}

/// The project path an `[ext_resource]`'s `path` names from a file in `dir`: `res://`
/// paths as they are, relative ones joined to `dir`; `None` for other schemes and paths
/// that leave the project.
fn target(path: &str, dir: &str) -> Option<String> {
    let joined = match path.strip_prefix("res://") {
        Some(p) => p.to_string(),
        None if path.contains("://") || path.starts_with('/') => return None,
        None if dir.is_empty() => path.to_string(),
        None => format!("{dir}/{path}"),
    };
    let mut parts: Vec<&str> = Vec::new();
    for c in joined.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    let rel = parts.join("/");
    usable(&rel).then_some(rel)
}

/// A job for the file at `path` (on disk): its `res://` path is taken from the nearest
/// folder above it holding a `project.godot`.
pub fn job_on_disk(path: &Path, bytes: Vec<u8>) -> Job {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let res = abs
        .ancestors()
        .skip(1)
        .find(|d| d.join("project.godot").is_file())
        .and_then(|root| res_path(&abs, root));
    job(path, res, bytes)
}

/// The job for `path` with its `res://` path (or none).
fn job(path: &Path, res: Option<String>, bytes: Vec<u8>) -> Job {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file.tscn".into());
    Job {
        res,
        config: gdscene::config::ConfigKind::of_path(&file_name).is_some(),
        bytes,
        file_name,
    }
}

/// `file` relative to `root`, `/`-separated.
fn res_path(file: &Path, root: &Path) -> Option<String> {
    let rel = file.strip_prefix(root).ok()?;
    let parts: Option<Vec<String>> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str().map(str::to_string),
            _ => None,
        })
        .collect();
    Some(parts?.join("/"))
}

/// For `ci check` and `ci merge`: the scenes of `files` (repository path, bytes; the work
/// tree at `root` says where each project starts) that `--godot`'s engine does not load,
/// each as one error (line 0) with what the engine said. Nothing without `--godot`; an
/// error when the engine cannot run.
pub fn problems(
    arg: &GodotArg,
    root: &Path,
    files: Vec<(String, Vec<u8>)>,
) -> Result<BTreeMap<String, gdscene::check::Problem>> {
    let Some(binary) = &arg.godot else {
        return Ok(BTreeMap::new());
    };
    let godot = Godot::find(Path::new(binary))?;
    let (paths, jobs): (Vec<String>, Vec<Job>) = files
        .into_iter()
        .map(|(p, bytes)| {
            let job = job_on_disk(&root.join(&p), bytes);
            (p, job)
        })
        .unzip();
    let verdicts = godot.load(&jobs)?;
    Ok(paths
        .into_iter()
        .zip(verdicts)
        .filter(|(_, v)| !v.loaded)
        .map(|(p, v)| {
            // One line: the engine's words, less where in its own source it said them.
            let words: Vec<&str> = v
                .messages
                .iter()
                .map(|m| m.trim())
                .filter(|m| !m.starts_with("at: "))
                .collect();
            let said = clip(&words.join(" | "), 600);
            let message = format!("Godot {} does not load it: {said}", godot.version);
            let problem = gdscene::check::Problem {
                severity: gdscene::check::Severity::Error,
                line: 0,
                message,
            };
            (p, problem)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ext_resource_paths_land_inside_the_project() {
        assert_eq!(target("res://a/b.png", "x").as_deref(), Some("a/b.png"));
        assert_eq!(target("b.png", "x/y").as_deref(), Some("x/y/b.png"));
        assert_eq!(target("../b.png", "x/y").as_deref(), Some("x/b.png"));
        assert_eq!(target("../../../b.png", "x").as_deref(), None);
        assert_eq!(target("uid://abc", "").as_deref(), None);
        assert_eq!(target("res://__check/check.gd", "").as_deref(), None);
        assert_eq!(target("res://project.godot", "").as_deref(), None);
    }

    #[test]
    fn the_log_gives_each_file_its_messages() {
        let log = "Godot Engine v4.6\n@@READY 3 4.6\n@@B 0\n@@R {\"loaded\":true}\n@@B 1\nERROR: Parse Error: bad.\n   at: load (x.cpp:1)\n   GDScript backtrace (most recent call first):\n       [0] _resource (res://__check/check.gd:66)\n       [1] _initialize (res://__check/check.gd:34)\n@@R {\"loaded\":false}\n@@B 2\nERROR: boom\n";
        let run = read_log(log, "exit status 139".into());
        assert_eq!(run.answers.len(), 2);
        assert_eq!(
            run.answers[0],
            (
                0,
                Verdict {
                    loaded: true,
                    messages: vec![]
                }
            )
        );
        assert!(!run.answers[1].1.loaded);
        assert_eq!(
            run.answers[1].1.messages,
            ["ERROR: Parse Error: bad.", "   at: load (x.cpp:1)"]
        );
        assert_eq!(run.began, Some((2, vec!["ERROR: boom".to_string()])));
    }

    #[test]
    fn placeholders_for_what_the_project_lacks() {
        let scene = b"[gd_scene load_steps=4 format=3]\n\n[ext_resource type=\"Script\" path=\"res://p.gd\" id=\"1\"]\n[ext_resource type=\"Texture2D\" uid=\"uid://bicon\" path=\"icon.png\" id=\"2\"]\n[ext_resource type=\"PackedScene\" path=\"res://lvl/b.tscn\" id=\"3\"]\n\n[node name=\"A\" type=\"Node2D\"]\n".to_vec();
        let other =
            b"[gd_scene format=3 uid=\"uid://cb\"]\n\n[node name=\"B\" type=\"Node\"]\n".to_vec();
        let jobs = [
            Job {
                res: Some("lvl/a.tscn".into()),
                bytes: scene,
                config: false,
                file_name: "a.tscn".into(),
            },
            Job {
                res: Some("lvl/b.tscn".into()),
                bytes: other,
                config: false,
                file_name: "b.tscn".into(),
            },
        ];
        let p = place(&jobs, 4);
        assert_eq!(p.jobs, ["res\tres://lvl/a.tscn", "res\tres://lvl/b.tscn"]);
        let names: Vec<&str> = p.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["lvl/a.tscn", "lvl/b.tscn", "p.gd", "lvl/icon.png.remap"]
        );
        assert!(p.types.contains("Texture2D"));
        // The uid cache the user's project would have: each file's own, each reference's.
        let uids: Vec<(&str, &str)> = p
            .uids
            .iter()
            .map(|(u, r)| (u.as_str(), r.as_str()))
            .collect();
        assert_eq!(
            uids,
            [("uid://bicon", "lvl/icon.png"), ("uid://cb", "lvl/b.tscn")]
        );
        assert!(place(&jobs, 3).uids.is_empty(), "Godot 3 has no uids");
    }
}
