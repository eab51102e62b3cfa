//! `mergetool`: resolve a scene's conflicts by looking. Re-merges base, ours and theirs
//! structurally (or reads a file's markers), serves one self-contained page on
//! `127.0.0.1` (random port, a random token in the path) and opens the browser; the
//! page picks ours, theirs, base or a typed value per conflict, each set of choices is
//! validated as `check` validates, and Save writes the result atomically (exit 0).
//! Cancel, a closed page or the timeout leave the file untouched (exit 1).
//!
//! Cutting and composing the text is `hunks`'s; the HTTP and who may ask, `server`'s;
//! what the page shows, `state`'s and `page.html`'s.

mod hunks;
mod server;
mod state;

use anyhow::{bail, Context, Result};
use clap::Args;
use gdscene::linemerge::{ConflictStyle, MarkerOptions};
use gdscene::merge::{merge, MergeOptions};
use hunks::{Choice, Merged};
use serde_json::{json, Value};
use server::{Guard, Request, Response};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `mergetool` arguments.
#[derive(Args, Debug)]
pub struct MergetoolArgs {
    /// Called as git's mergetool: BASE LOCAL REMOTE MERGED (the result goes to MERGED).
    #[arg(long)]
    pub git: bool,
    /// Print the page's address on stderr instead of opening a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// Seconds to wait for Save or Cancel before cancelling.
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
    /// Seconds without a word from an opened page before taking it as closed (Cancel).
    #[arg(long, default_value_t = 90)]
    pub idle: u64,
    /// Conflict marker size (of a FILE's markers, and of the re-merge's).
    #[arg(short = 'l', long = "marker-size", default_value_t = 7)]
    pub marker_size: usize,
    /// A file with conflict markers, or with --git: BASE LOCAL REMOTE MERGED.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Most connections served at once (each on its own thread, 10 s at most).
const MAX_CONNECTIONS: usize = 32;

/// How the page ended.
#[derive(Debug)]
enum Outcome {
    /// Write this text.
    Save(String),
    /// Leave the file untouched, for this reason.
    Cancel(String),
}

/// What the server threads share.
struct Shared {
    merged: Merged,
    state: Value,
    outcome: Mutex<Option<Outcome>>,
    /// When the page last asked anything (`None`: not opened yet).
    seen: Mutex<Option<Instant>>,
    /// When the page said it was being closed.
    closing: Mutex<Option<Instant>>,
}

/// The text of a file (an absent base is empty, as after both sides added it).
fn read_text(path: &std::path::Path, may_be_absent: bool) -> Result<String> {
    let bytes = match std::fs::read(path) {
        Err(e) if may_be_absent && e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        r => r.with_context(|| format!("{}: cannot read", path.display()))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Base, ours, theirs, the merged text with markers, and the file to write.
fn load(a: &MergetoolArgs) -> Result<([String; 3], String, PathBuf)> {
    let opts = MergeOptions {
        markers: MarkerOptions {
            marker_size: a.marker_size,
            style: ConflictStyle::Diff3,
            ..MarkerOptions::default()
        },
        ..MergeOptions::default()
    };
    let remerge = |sides: [String; 3]| {
        let out = merge(
            sides[0].as_bytes(),
            sides[1].as_bytes(),
            sides[2].as_bytes(),
            &opts,
        );
        let text = String::from_utf8_lossy(&out.text).into_owned();
        (sides, text)
    };
    if a.git {
        let [base, local, remote, merged] = &a.files[..] else {
            bail!(
                "--git takes BASE LOCAL REMOTE MERGED (got {} files)",
                a.files.len()
            );
        };
        let sides = [
            read_text(base, true)?,
            read_text(local, false)?,
            read_text(remote, false)?,
        ];
        let (sides, text) = remerge(sides);
        return Ok((sides, text, merged.clone()));
    }
    let [file] = &a.files[..] else {
        bail!("mergetool takes one FILE with conflict markers (or --git and four files)");
    };
    let text = read_text(file, false)?;
    let marked = gdscene::solve::parse_markers(text.as_bytes(), a.marker_size)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    if marked.block_count() == 0 {
        bail!("{}: no conflict markers to resolve", file.display());
    }
    let s = marked.sides();
    let lossy = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    let sides = [lossy(s.base), lossy(s.ours), lossy(s.theirs)];
    if marked.has_base() {
        let (sides, text) = remerge(sides);
        return Ok((sides, text, file.clone()));
    }
    Ok((sides, text, file.clone()))
}

/// `tscn-merge mergetool`.
pub fn run(a: &MergetoolArgs) -> Result<i32> {
    let (sides, text, target) = load(a)?;
    let merged = hunks::split(&text, a.marker_size)?;
    let name = target.display().to_string();
    let state = state::state(&name, &merged, &sides);
    let shared = Arc::new(Shared {
        merged,
        state,
        outcome: Mutex::new(None),
        seen: Mutex::new(None),
        closing: Mutex::new(None),
    });
    let listener = TcpListener::bind(("127.0.0.1", 0)).context("cannot listen on 127.0.0.1")?;
    let guard = Guard {
        token: server::token().context("cannot read random bytes for the page's token")?,
        port: listener.local_addr()?.port(),
    };
    let url = format!("{}/{}/", guard.origin(), guard.token);
    let count = shared.merged.conflicts.len();
    super::io::write_stderr(&format!(
        "tscn-merge mergetool: {name}: {count} conflict(s); resolve them at {url}\n"
    ));
    if !a.no_browser {
        if let Err(e) = open_browser(&url) {
            super::io::write_stderr(&format!(
                "tscn-merge mergetool: cannot open a browser ({e:#}); open the address above\n"
            ));
        }
    }
    match wait(&listener, &guard, &shared, a)? {
        Outcome::Save(text) => {
            super::io::write_atomic(&target, text.as_bytes())?;
            super::io::write_stderr(&format!("tscn-merge mergetool: {name}: saved\n"));
            Ok(0)
        }
        Outcome::Cancel(why) => {
            super::io::write_stderr(&format!(
                "tscn-merge mergetool: {name}: {why}; left untouched\n"
            ));
            Ok(1)
        }
    }
}

/// Serve until the page saves or cancels, or a timeout cancels.
fn wait(
    listener: &TcpListener,
    guard: &Guard,
    shared: &Arc<Shared>,
    a: &MergetoolArgs,
) -> Result<Outcome> {
    listener.set_nonblocking(true)?;
    let start = Instant::now();
    let (timeout, idle) = (Duration::from_secs(a.timeout), Duration::from_secs(a.idle));
    let live = Arc::new(AtomicUsize::new(0));
    loop {
        if let Some(o) = lock(&shared.outcome).take() {
            return Ok(o);
        }
        let seen = *lock(&shared.seen);
        let closing = *lock(&shared.closing);
        if start.elapsed() > timeout {
            return Ok(Outcome::Cancel("timed out".into()));
        }
        if seen.is_some_and(|t| t.elapsed() > idle) {
            return Ok(Outcome::Cancel("the page stopped answering".into()));
        }
        if closing.is_some_and(|c| c.elapsed() > Duration::from_secs(5) && seen < Some(c)) {
            return Ok(Outcome::Cancel("the page was closed".into()));
        }
        match listener.accept() {
            // Past MAX_CONNECTIONS at once, a connection is closed unanswered.
            Ok((stream, _)) if live.load(Ordering::SeqCst) < MAX_CONNECTIONS => {
                stream.set_nonblocking(false)?;
                let (guard, shared, live) = (guard.clone(), Arc::clone(shared), Arc::clone(&live));
                live.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    server::serve_one(stream, &guard, |r, req| route(&shared, r, req));
                    live.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(25))
            }
            Err(e) => return Err(e).context("the page's server stopped"),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What to do once a response is sent.
type After = Option<Box<dyn FnOnce() + Send>>;

/// One admitted request.
fn route(shared: &Arc<Shared>, r: &str, req: &Request) -> (Response, After) {
    *lock(&shared.seen) = Some(Instant::now());
    let post = req.method == "POST";
    match (r, req.method.as_str()) {
        ("", "GET") => (
            Response {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: page().into_bytes(),
            },
            None,
        ),
        ("api/state", "GET") => (Response::json(200, &shared.state), None),
        ("api/ping", _) if post => (Response::json(200, &json!({"ok": true})), None),
        ("api/closed", _) if post => {
            *lock(&shared.closing) = Some(Instant::now());
            (Response::json(200, &json!({"ok": true})), None)
        }
        ("api/cancel", _) if post => finish(shared, Outcome::Cancel("cancelled".into())),
        ("api/check" | "api/save", _) if post => check_or_save(shared, r == "api/save", req),
        (
            "" | "api/state" | "api/ping" | "api/closed" | "api/cancel" | "api/check" | "api/save",
            _,
        ) => (Response::text(405, "Method Not Allowed"), None),
        _ => (Response::text(404, "Not Found"), None),
    }
}

/// Answer, then end the server with `o`.
fn finish(shared: &Arc<Shared>, o: Outcome) -> (Response, After) {
    let shared = Arc::clone(shared);
    let body = json!({"ok": true, "done": matches!(o, Outcome::Save(_))});
    let after: After = Some(Box::new(move || *lock(&shared.outcome) = Some(o)));
    (Response::json(200, &body), after)
}

/// `api/check` (the verdict on a set of choices) and `api/save` (the same, then Save
/// when valid; 409 with the reason otherwise).
fn check_or_save(shared: &Arc<Shared>, save: bool, req: &Request) -> (Response, After) {
    let choices = match parse_choices(&req.body) {
        Ok(c) => c,
        Err(why) => {
            return (
                Response::json(400, &json!({"ok": false, "reason": why})),
                None,
            )
        }
    };
    let verdict = match shared.merged.compose_placed(&choices) {
        Err(i) => Err((
            Some(i),
            None,
            format!("conflict {} is not resolved yet", i + 1),
        )),
        Ok((text, places)) => hunks::validate(&text).map(|()| text).map_err(|e| {
            let at = hunks::reason_line(&e).and_then(|l| Merged::conflict_at(&places, l));
            (None, at, e)
        }),
    };
    match verdict {
        Ok(text) if save => finish(shared, Outcome::Save(text)),
        Ok(_) => (Response::json(200, &json!({"ok": true})), None),
        Err((unresolved, broken_in, reason)) => {
            let status = if save { 409 } else { 200 };
            let body = json!({"ok": false, "unresolved": unresolved, "broken_in": broken_in, "reason": reason});
            (Response::json(status, &body), None)
        }
    }
}

/// `{"choices": [null | {"side": "ours"|"theirs"|"base"} | {"side": "typed", "text": ...}]}`.
fn parse_choices(body: &[u8]) -> Result<Vec<Option<Choice>>, String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("bad request: {e}"))?;
    let list = v["choices"].as_array().ok_or("bad request: no choices")?;
    list.iter()
        .map(|c| match (c["side"].as_str(), c["text"].as_str()) {
            (None, _) if c.is_null() => Ok(None),
            (Some("ours"), _) => Ok(Some(Choice::Ours)),
            (Some("theirs"), _) => Ok(Some(Choice::Theirs)),
            (Some("base"), _) => Ok(Some(Choice::Base)),
            (Some("typed"), Some(t)) => Ok(Some(Choice::Typed(t.to_string()))),
            _ => Err(format!("bad request: choice {c}")),
        })
        .collect()
}

/// The page, its style sheet inlined.
fn page() -> String {
    include_str!("page.html").replace("/*CSS*/", gdscene::render::html::CSS)
}

/// Open `url` with `$BROWSER` (a `:`-separated list of commands, `%s` for the address),
/// else the platform's opener.
fn open_browser(url: &str) -> Result<()> {
    let browser = std::env::var("BROWSER").unwrap_or_default();
    let commands: Vec<Vec<String>> = if !browser.trim().is_empty() {
        browser
            .split(':')
            .filter(|c| !c.trim().is_empty())
            .map(|c| {
                let mut words: Vec<String> = c.split_whitespace().map(str::to_string).collect();
                if c.contains("%s") {
                    words.iter_mut().for_each(|w| *w = w.replace("%s", url));
                } else {
                    words.push(url.to_string());
                }
                words
            })
            .collect()
    } else if cfg!(target_os = "macos") {
        vec![vec!["open".into(), url.into()]]
    } else if cfg!(windows) {
        vec![vec![
            "cmd".into(),
            "/c".into(),
            "start".into(),
            String::new(),
            url.into(),
        ]]
    } else {
        vec![vec!["xdg-open".into(), url.into()]]
    };
    let mut last = anyhow::anyhow!("no browser command");
    for words in commands {
        let spawned = std::process::Command::new(&words[0])
            .args(&words[1..])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match spawned {
            Ok(mut child) => {
                std::thread::spawn(move || child.wait());
                return Ok(());
            }
            Err(e) => last = anyhow::anyhow!("{}: {e}", words[0]),
        }
    }
    Err(last)
}
