//! `diff` (two files, or git's external diff arguments) and `textconv`.
//!
//! Exit codes of `diff`: 0 no change, 1 changes, 2 error. As git's external diff
//! (`--git-external`) it exits 0 even with changes, as git expects, and falls back to a
//! line diff when a side cannot be parsed so `git diff` never breaks on a broken file.
//! Sides may be `REV:PATH` blobs, or one work-tree `PATH` against `HEAD` (`revs`).

pub mod args;
pub mod assets;
mod config;
pub mod pictures;

mod revs;
mod worktree;

use crate::diff::args::DiffArgs;
use crate::diff::args::DiffFormat;
use crate::diff::args::TextconvArgs;
use crate::io::color::use_color;
use crate::io::deadline;
use crate::io::{stderr_line, write_stdout};
use anyhow::{bail, Result};
use gdscene::diff::diff_files;
use gdscene::model::Scene;
use gdscene::render::escape::{visible, visible_lines};
use gdscene::render::{json, markdown, text, Options};
use gdscene::syntax::Document;
use std::path::Path;

/// Why a side has no scene to diff.
enum LoadError {
    /// It could not be read: always an error.
    Unreadable(String),
    /// It was read but is not a scene (or a broken one): a line diff can still show it.
    NotAScene(String),
}

impl LoadError {
    fn message(self) -> String {
        match self {
            LoadError::Unreadable(m) | LoadError::NotAScene(m) => m,
        }
    }
}

/// One side as read: its scene (`None` for a missing side), or why there is none.
type Loaded = Result<Option<Scene>, LoadError>;

/// Read and parse one side; `/dev/null` (git's name for a missing side) is `None`. A
/// side whose lines end in CRLF (an autocrlf work tree, which git hands an external
/// diff as it is) is read with LF ends, so a line ending is never a change. The bytes
/// are read once and shared by the scene (no copy of a 20 MB text); with `like` (the
/// other side, already read), the sections both sides spell alike are copied from its
/// tree instead of read again: the scene is the same as a fresh reading gives.
fn load(path: &Path, like: Option<&Scene>) -> Loaded {
    if path == Path::new("/dev/null") {
        return Ok(None);
    }
    let (src, _) = crate::io::mapped::source(path)
        .map_err(|e| LoadError::Unreadable(format!("{}: cannot read: {e}", path.display())))?;
    let scene = match like {
        Some(like) => Scene::parse_source_like(&src, like),
        None => Scene::parse_source(&src),
    };
    scene
        .map(Some)
        .map_err(|e| LoadError::NotAScene(format!("{}: {e}", path.display())))
}

/// Both sides, the new one read following the old one ([`load`]).
fn load_both(old: &Path, new: &Path) -> (Loaded, Loaded) {
    let old = load(old, None);
    let like = old.as_ref().ok().and_then(Option::as_ref);
    let new = load(new, like);
    (old, new)
}

/// A side's bytes for the line diff (`/dev/null` is empty).
fn raw(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("/dev/null") {
        return Ok(Vec::new());
    }
    crate::io::read(path)
}

/// git's test for binary content: a NUL byte in the first 8,000 bytes.
fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8000)]).is_some()
}

/// A unified line diff of two files labelled `a` and `b` (empty when they are equal),
/// or git's one line for binary files.
fn line_diff(old: &Path, new: &Path, a: &str, b: &str) -> Result<String> {
    let (ob, nb) = (raw(old)?, raw(new)?);
    if ob == nb {
        return Ok(String::new());
    }
    if is_binary(&ob) || is_binary(&nb) {
        return Ok(format!("Binary files {a} and {b} differ\n"));
    }
    let (os, ns) = (String::from_utf8_lossy(&ob), String::from_utf8_lossy(&nb));
    Ok(similar::TextDiff::from_lines(os.as_ref(), ns.as_ref())
        .unified_diff()
        .header(a, b)
        .to_string())
}

fn emit(s: &str) -> Result<()> {
    write_stdout(s.as_bytes())
}

/// The two sides' scenes, `None` for a missing side (`/dev/null`).
type Sides = (Option<Scene>, Option<Scene>);

/// Diff two loaded sides and render the report in the chosen format; Markdown's
/// Mermaid root carries the root node's name (the new side's, else the old one's).
fn render_one(
    title: &str,
    (old, new): &Sides,
    format: DiffFormat,
    opts: &Options,
    sources: &[pictures::Source],
) -> (String, bool) {
    let (old, new) = (old.as_ref(), new.as_ref());
    let report = diff_files(old, new);
    let out = match format {
        DiffFormat::Text => text::render(&report, opts),
        DiffFormat::Markdown => {
            let root = [new, old]
                .into_iter()
                .flatten()
                .find_map(|s| s.node_by_path(".").map(|n| n.name.to_string()));
            markdown::render_rooted(title, &report, root.as_deref(), opts)
        }
        DiffFormat::Json => json::to_string(&json::render(&report)),
        DiffFormat::Html => {
            let root = [new, old]
                .into_iter()
                .flatten()
                .find_map(|s| s.node_by_path(".").map(|n| n.name.to_string()));
            let drawn = pictures::draw(sources, (old, new), &report);
            gdscene::render::html::render_pictured(title, &report, root.as_deref(), Some(&drawn))
        }
    };
    (out, report.is_empty())
}

/// What kind of Godot file `path` names, for the header line.
fn kind_name(path: &str) -> &'static str {
    use gdscene::config::ConfigKind;
    match ConfigKind::of_path(path) {
        Some(ConfigKind::Project) => "Godot project settings",
        Some(ConfigKind::ExportPresets) => "Godot export presets",
        Some(ConfigKind::Override) => "Godot settings override",
        Some(ConfigKind::Plugin) => "Godot plugin",
        Some(ConfigKind::Import) => "Godot import settings",
        Some(ConfigKind::Uid) => "Godot uid file",
        None if path.to_ascii_lowercase().ends_with(".tres") => "Godot resource",
        None if crate::git::is_scene_path(path) => "Godot scene",
        None => "text",
    }
}

/// The line above a file's changes, as difftastic writes it: `level.tscn --- 2/5 ---
/// Godot scene` (the place in the listing from `diff`'s own listing, or from git's
/// difftool through `GIT_DIFF_PATH_COUNTER` and `GIT_DIFF_PATH_TOTAL`).
fn file_header(path: &str, counter: Option<(usize, usize)>, color: bool) -> String {
    let env = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    let counter =
        counter.or_else(|| Some((env("GIT_DIFF_PATH_COUNTER")?, env("GIT_DIFF_PATH_TOTAL")?)));
    let place = counter.map_or(String::new(), |(i, n)| format!(" --- {i}/{n}"));
    let shown = visible(path);
    if color {
        format!(
            "\x1b[1;33m{shown}\x1b[0m\x1b[2m{place} --- {}\x1b[0m\n",
            kind_name(path)
        )
    } else {
        format!("{shown}{place} --- {}\n", kind_name(path))
    }
}

/// Whether git's difftool runs us (once per changed file).
fn under_difftool() -> bool {
    std::env::var_os("GIT_DIFF_PATH_COUNTER").is_some()
}

/// `tscn-merge diff` with no argument: each Godot file of the work tree that differs
/// from `HEAD`, under its header; 1 when any differs, 2 when one could not be diffed.
fn run_work_tree(a: &DiffArgs) -> Result<i32> {
    if matches!(a.format, DiffFormat::Json | DiffFormat::Html) {
        bail!("diff with no argument lists the work tree's files as text or Markdown; name a file for a page or JSON (diff --format html PATH), or review a range (review --format html HEAD~1..HEAD)");
    }
    let repo = crate::git::open_repo(Path::new("."))?;
    let top = repo.workdir().map(Path::to_path_buf).unwrap_or_default();
    let files = worktree::changed(&repo)?;
    let total = files.len();
    let mut code = 0;
    for (i, f) in files.iter().enumerate() {
        let rel = f
            .strip_prefix(&top)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let one = DiffArgs {
            files: vec![f.clone()],
            name: Some(rel.clone()),
            counter: Some((i + 1, total)),
            ..a.clone()
        };
        match run_file(&one, true) {
            Ok(c) => code = code.max(c),
            Err(e) => {
                stderr_line!(
                    "tscn-merge diff: {}: {}",
                    visible(&rel),
                    visible_lines(&format!("{e:#}"))
                );
                code = 2;
            }
        }
    }
    Ok(code)
}

/// How the rendering is asked for: colour, noise, saved state.
fn options(a: &DiffArgs) -> Options {
    Options {
        color: use_color(a.color),
        show_noise: a.show_noise,
        show_state: a.show_state,
    }
}

/// `tscn-merge diff`.
pub fn run(a: &DiffArgs) -> Result<i32> {
    if a.git_external && config::is_config_diff(a) {
        return config::run_diff(a, None); // project.godot, *.import, ...: issue 28
    }
    if a.git_external {
        return run_git_external(a, &options(a));
    }
    if a.files.is_empty() {
        return run_work_tree(a);
    }
    run_file(a, false)
}

/// `diff` of the files `a` names. `listed`: a file of `diff`'s own work-tree list (one
/// the user did not name, such as a scene with conflict markers in a merge), which is
/// shown as a line diff when it does not parse, as `git diff` shows it.
fn run_file(a: &DiffArgs, listed: bool) -> Result<i32> {
    let opts = options(a);
    // git's difftool runs us for every changed file: a file Godot does not read as text
    // (a script, an image) is not ours to show.
    let named = a
        .name
        .iter()
        .map(String::as_str)
        .chain(a.files.iter().filter_map(|f| f.to_str()));
    let godot =
        |p: &str| worktree::is_godot_file(p) || crate::git::paths::kind_of(Path::new(p)).is_some();
    if under_difftool() && !named.clone().any(godot) {
        return Ok(0);
    }
    let staged = revs::stage(&a.files)?;
    let a = &DiffArgs {
        files: staged.files.clone(),
        ..a.clone()
    };
    let label = a
        .name
        .clone()
        .unwrap_or_else(|| match staged.labels.as_slice() {
            [old, new] if new == "/dev/null" => old.clone(),
            [_, new] => new.clone(),
            _ => String::new(),
        });
    let header = (a.format == DiffFormat::Text).then(|| file_header(&label, a.counter, opts.color));
    if config::is_config_diff(a) {
        return config::run_diff(a, header.as_deref());
    }
    let (old, new) = match load_both(&a.files[0], &a.files[1]) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(LoadError::Unreadable(e)), _) | (_, Err(LoadError::Unreadable(e))) => bail!("{e}"),
        (Err(e), _) | (_, Err(e)) if !listed && !line_diff_allowed(&a.files) => {
            bail!("{}", e.message())
        }
        (o, n) => {
            let why = o.err().or(n.err()).map(LoadError::message);
            return run_line_diff(&a.files, &staged.labels, why, header.as_deref());
        }
    };
    let secs = deadline::limit(a.timeout);
    let title = a.name.clone().unwrap_or_else(|| staged.labels[1].clone());
    match render_within(title, (old, new), (a.format, staged.sources.clone()), opts, secs) {
        Some((out, unchanged)) => {
            let head = header.as_deref().filter(|_| !out.is_empty()).unwrap_or("");
            emit(&format!("{head}{out}"))?;
            Ok(if unchanged { 0 } else { 1 })
        }
        None if matches!(a.format, DiffFormat::Json | DiffFormat::Html) => bail!(
            "semantic diff unavailable ({}); no {} written (a larger --timeout, or --format text for a line diff)",
            deadline::reason(secs),
            if a.format == DiffFormat::Json { "JSON" } else { "HTML" }
        ),
        None => {
            let why = Some(deadline::reason(secs));
            run_line_diff(&a.files, &staged.labels, why, header.as_deref())
        }
    }
}

/// [`render_one`] within `secs` seconds; `None` when the time ran out (a scene whose
/// nodes were all replaced can take long to pair).
fn render_within(
    title: String,
    sides: Sides,
    (format, sources): (DiffFormat, Vec<pictures::Source>),
    opts: Options,
    secs: f64,
) -> Option<(String, bool)> {
    // The scenes are dropped after the report is handed over: `diff` ends with it.
    deadline::within_leaving(secs, move || {
        (render_one(&title, &sides, format, &opts, &sources), sides)
    })
}

/// Whether a side that is not a scene may be shown as a line diff instead of failing:
/// when git runs us for every changed file (`git difftool`, which sets
/// `GIT_DIFF_PATH_COUNTER`), or when a side is not named as a scene at all (difftool's
/// temporary copies keep the file's name). A broken scene named on the command line
/// is still an error.
fn line_diff_allowed(files: &[std::path::PathBuf]) -> bool {
    std::env::var_os("GIT_DIFF_PATH_COUNTER").is_some()
        || files.iter().any(|f| {
            f != Path::new("/dev/null") && !crate::git::is_scene_path(&f.to_string_lossy())
        })
}

/// `diff OLD NEW` when a side is not a scene: the line diff (headed by the sides'
/// `labels`), after the file's `header` and a note saying why. Exit 0 when the files
/// are equal, else 1.
fn run_line_diff(
    files: &[std::path::PathBuf],
    labels: &[String],
    why: Option<String>,
    header: Option<&str>,
) -> Result<i32> {
    let body = line_diff(
        &files[0],
        &files[1],
        &visible(&labels[0]),
        &visible(&labels[1]),
    )?;
    if body.is_empty() {
        return Ok(0);
    }
    let why = visible_lines(&why.unwrap_or_default());
    emit(&format!(
        "{}note: semantic diff unavailable ({why}); line diff follows\n{body}",
        header.unwrap_or("")
    ))?;
    Ok(1)
}

/// git's external diff: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE
/// (two more, the new path and a rename header, for renames).
fn run_git_external(a: &DiffArgs, opts: &Options) -> Result<i32> {
    if a.files.len() < 7 {
        bail!(
            "--git-external expects git's seven arguments, got {}",
            a.files.len()
        );
    }
    // A newline in a file name would forge lines of the output: shown, never obeyed.
    let path = visible(&a.files[0].display().to_string()).into_owned();
    let new_path = if a.files.len() >= 9 {
        visible(&a.files[7].display().to_string()).into_owned()
    } else {
        path.clone()
    };
    let header = if new_path != path {
        format!("diff --tscn-merge a/{path} b/{new_path}\n")
    } else {
        format!("diff --tscn-merge a/{path} b/{path}\n")
    };
    let header = if opts.color {
        format!("\x1b[1m{}\x1b[0m", header.trim_end()) + "\n"
    } else {
        header
    };
    let (old_file, new_file) = (&a.files[1], &a.files[4]);
    let why = match load_both(old_file, new_file) {
        (Ok(old), Ok(new)) => {
            let secs = deadline::limit(a.timeout);
            match render_within(
                path.clone(),
                (old, new),
                (a.format, Vec::new()),
                *opts,
                secs,
            ) {
                Some((body, _)) => return emit(&format!("{header}{body}")).map(|_| 0),
                None => deadline::reason(secs),
            }
        }
        (Err(LoadError::Unreadable(e)), _) | (_, Err(LoadError::Unreadable(e))) => bail!("{e}"),
        (o, n) => o
            .err()
            .or(n.err())
            .map(LoadError::message)
            .unwrap_or_default(),
    };
    let (a_label, b_label) = (format!("a/{path}"), format!("b/{new_path}"));
    let udiff = line_diff(old_file, new_file, &a_label, &b_label)?;
    emit(&format!(
        "{header}note: semantic diff unavailable ({}); line diff follows\n{udiff}",
        visible_lines(&why)
    ))?;
    Ok(0)
}

/// `tscn-merge textconv FILE`: the projection on stdout. A file that does not parse is
/// printed unchanged (with a warning on stderr) so git can still show something.
pub fn run_textconv(a: &TextconvArgs) -> Result<i32> {
    textconv_file(&a.file, deadline::limit(a.timeout))
}

/// The file name under which the binary is git's textconv and nothing else: `install`
/// links it to the binary, so git can start it without a shell (a command with a space
/// goes through `sh -c`, which costs as much again as our own process).
pub const TEXTCONV_LINK: &str = "tscn-merge-textconv";

/// The name under which the binary is git's external diff and nothing else: `install`
/// links it to the binary so git starts it directly with its seven arguments (nine for
/// a rename), each a path or a value, never an option.
pub const DIFF_LINK: &str = "tscn-merge-diff";

/// The arguments, when the binary was started as `link` ([`TEXTCONV_LINK`] or
/// [`DIFF_LINK`]): every one, even one starting with `-` (git passes paths and values
/// only, and a work tree file keeps its own name: `-x.tscn`).
pub fn link_call(link: &str) -> Option<Vec<std::path::PathBuf>> {
    let mut args = std::env::args_os();
    let name = std::path::PathBuf::from(args.next()?);
    (name.file_name()? == link).then(|| args.map(Into::into).collect())
}

/// [`DIFF_LINK`] `PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE`: what
/// `diff --git-external --` prints for the same arguments.
pub fn run_diff_link(files: Vec<std::path::PathBuf>) -> Result<i32> {
    run(&DiffArgs {
        format: DiffFormat::Text,
        color: crate::io::color::ColorChoice::Auto,
        show_noise: false,
        show_state: false,
        git_external: true,
        timeout: None,
        name: None,
        files,
        counter: None,
    })
}

/// [`TEXTCONV_LINK`] `FILE...`: each file's projection in turn.
pub fn run_textconv_link(files: &[std::path::PathBuf]) -> Result<i32> {
    if files.is_empty() {
        bail!("{TEXTCONV_LINK} takes the file to show, as git's textconv");
    }
    let secs = deadline::limit(None);
    for f in files {
        textconv_file(f, secs)?;
    }
    Ok(0)
}

/// One file's projection, or (it does not parse, or took longer than `secs`) the file
/// as it is, with a warning on stderr: git always gets something to show.
fn textconv_file(path: &Path, secs: f64) -> Result<i32> {
    let bytes = std::sync::Arc::new(crate::io::read_big(path)?);
    let shared = std::sync::Arc::clone(&bytes);
    let projected = deadline::within(secs, move || {
        Document::parse(&shared).map(|doc| gdscene::textconv::textconv(&doc))
    });
    match projected {
        Some(Ok(text)) => emit(&text)?,
        Some(Err(e)) => {
            stderr_line!(
                "tscn-merge: warning: {}: {}; shown as is",
                visible(&path.display().to_string()),
                visible_lines(&e.to_string())
            );
            write_stdout(&bytes)?;
        }
        None => {
            stderr_line!(
                "tscn-merge: warning: {}: projection unavailable ({}); shown as is",
                visible(&path.display().to_string()),
                deadline::reason(secs)
            );
            write_stdout(&bytes)?;
        }
    }
    Ok(0)
}
