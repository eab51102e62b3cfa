//! `mergetool`: resolve a file's conflicts by looking. Re-merges base, ours and theirs
//! by the driver's rules (a scene structurally, a ConfigFile by section and key; or reads
//! a file's markers), serves one self-contained page on `127.0.0.1` (random port, a
//! random token in the path) and opens the browser through a page only the user can
//! read; the page picks ours, theirs, base or a typed value per conflict, each set of
//! choices is validated as `check` validates, and Save writes the result atomically and
//! answers only once it is on the disk (exit 0). Cancel, a closed page or the timeout
//! leave the file untouched (exit 1).
//!
//! Reading and re-merging is `load`'s; cutting and composing the text `hunks`'s; the
//! HTTP, who may ask and how many at once `server`'s; the browser `launch`'s; what the
//! page shows `state`'s, `rows`'s, `keys`'s, `labels`'s, `pictures`' and `page.html`'s.

mod hunks;
mod keys;
mod labels;
mod launch;
mod load;
mod pictures;
mod rows;
mod server;
mod state;

use anyhow::{Context, Result};
use clap::Args;
use hunks::{Choice, Merged};
use serde_json::{json, Value};
use server::{Guard, Request, Response, Slots};
use std::net::TcpListener;
use std::path::PathBuf;
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

/// How the page ended.
#[derive(Debug)]
enum Outcome {
    /// The file was written.
    Saved,
    /// Leave the file untouched, for this reason.
    Cancel(String),
}

/// What the server threads share.
struct Shared {
    merged: Merged,
    /// The nodes (by path) each conflict touches, outlined in the pictures.
    nodes: Vec<Vec<String>>,
    state: Value,
    /// The file Save writes, the line ending it writes, and whether it is a ConfigFile.
    target: PathBuf,
    ending: crate::io::eol::Ending,
    config: bool,
    /// Held while a Save writes, so two never write at once.
    saving: Mutex<()>,
    outcome: Mutex<Option<Outcome>>,
    /// When the page last asked anything (`None`: not opened yet).
    seen: Mutex<Option<Instant>>,
    /// When the page said it was being closed.
    closing: Mutex<Option<Instant>>,
}

/// `tscn-merge mergetool`.
pub fn run(a: &MergetoolArgs) -> Result<i32> {
    let loaded = load::load(a)?;
    let merged = hunks::split(&loaded.text, a.marker_size)?;
    let name = loaded.target.display().to_string();
    let config = matches!(loaded.kind, load::FileKind::Config(_));
    let labels = labels::labels(&loaded.before, a.marker_size);
    let mut state = state::state(&name, &merged, &loaded.sides, config, &labels);
    let nodes: Vec<Vec<String>> = state["conflicts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let names = c["nodes"].as_array().into_iter().flatten();
            names
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .collect();
    if !config {
        state["pictures"] = pictures::pictures(&loaded.target, &merged, &nodes, &[]);
    }
    let shared = Arc::new(Shared {
        merged,
        nodes,
        state,
        target: loaded.target,
        ending: loaded.ending,
        config,
        saving: Mutex::new(()),
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
    let shown = gdscene::render::escape::visible(&name);
    super::io::write_stderr(&format!(
        "tscn-merge mergetool: {shown}: {count} conflict(s); resolve them at {url}\n"
    ));
    // The browser gets a page only this user can read, never the token itself: a
    // command line is visible to every local user.
    let _launch = (!a.no_browser).then(|| open(&url));
    match wait(&listener, &guard, &shared, a)? {
        Outcome::Saved => {
            super::io::write_stderr(&format!("tscn-merge mergetool: {shown}: saved\n"));
            Ok(0)
        }
        Outcome::Cancel(why) => {
            super::io::write_stderr(&format!(
                "tscn-merge mergetool: {shown}: {why}; left untouched\n"
            ));
            Ok(1)
        }
    }
}

/// Open the browser on a launch page for `url`; the page, kept until the end.
fn open(url: &str) -> Option<launch::Launch> {
    let opened = launch::launch_page(url).and_then(|l| {
        launch::open_browser(&l.address())?;
        Ok(l)
    });
    match opened {
        Ok(l) => Some(l),
        Err(e) => {
            super::io::write_stderr(&format!(
                "tscn-merge mergetool: cannot open a browser ({e:#}); open the address above\n"
            ));
            None
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
    let slots = Arc::new(Slots::default());
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
            Ok((stream, _)) => {
                stream.set_nonblocking(false)?;
                // All places held by connections that showed the token: closed unanswered.
                let Some(place) = slots.enter(&stream) else {
                    continue;
                };
                let (guard, shared) = (guard.clone(), Arc::clone(shared));
                std::thread::spawn(move || {
                    let admit = || place.admit();
                    server::serve_one(stream, &guard, admit, |r, req| route(&shared, r, req));
                    drop(place);
                });
            }
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
        ("api/cancel", _) if post => {
            let after = end(shared, Outcome::Cancel("cancelled".into()));
            (Response::json(200, &json!({"ok": true})), after)
        }
        ("api/check" | "api/save", _) if post => check_or_save(shared, r == "api/save", req),
        ("api/picture", _) if post && shared.config => (Response::text(404, "Not Found"), None),
        ("api/picture", _) if post => (picture(shared, req), None),
        (
            "" | "api/state" | "api/ping" | "api/closed" | "api/cancel" | "api/check" | "api/save"
            | "api/picture",
            _,
        ) => (Response::text(405, "Method Not Allowed"), None),
        _ => (Response::text(404, "Not Found"), None),
    }
}

/// End the server with `o` once the answer is sent.
fn end(shared: &Arc<Shared>, o: Outcome) -> After {
    let shared = Arc::clone(shared);
    Some(Box::new(move || *lock(&shared.outcome) = Some(o)))
}

/// Write `text` over the target in its line ending, atomically, and make the rename
/// durable (the folder synced on Unix): Save answers only after this.
fn write(shared: &Shared, text: &str) -> Result<()> {
    let _one = lock(&shared.saving);
    let bytes = shared.ending.apply(text.as_bytes().to_vec());
    super::io::write_atomic(&shared.target, &bytes)?;
    #[cfg(unix)]
    if let Some(dir) = shared.target.parent() {
        let dir = if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        };
        let synced = std::fs::File::open(dir).and_then(|d| d.sync_all());
        if let Err(e) = synced {
            let kind = e.kind();
            if !matches!(
                kind,
                std::io::ErrorKind::Unsupported | std::io::ErrorKind::InvalidInput
            ) {
                return Err(e).with_context(|| format!("cannot sync {}", dir.display()));
            }
        }
    }
    Ok(())
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
        Ok((text, places)) => hunks::validate(&text, shared.config)
            .map(|()| text)
            .map_err(|e| {
                let at = hunks::reason_line(&e).and_then(|l| Merged::conflict_at(&places, l));
                (None, at, e)
            }),
    };
    match verdict {
        Ok(text) if save => match write(shared, &text) {
            Ok(()) => {
                let body = json!({"ok": true, "done": true});
                (Response::json(200, &body), end(shared, Outcome::Saved))
            }
            Err(e) => {
                let reason = format!("{e:#}");
                let body = json!({"ok": false, "write_failed": true, "reason": reason});
                (Response::json(500, &body), None)
            }
        },
        Ok(_) => (Response::json(200, &json!({"ok": true})), None),
        Err((unresolved, broken_in, reason)) => {
            let status = if save { 409 } else { 200 };
            let body = json!({"ok": false, "unresolved": unresolved, "broken_in": broken_in, "reason": reason});
            (Response::json(status, &body), None)
        }
    }
}

/// `api/picture`: the pictures of ours, theirs and the choices sent (a scene only).
fn picture(shared: &Shared, req: &Request) -> Response {
    match parse_choices(&req.body) {
        Ok(choices) => {
            let p = pictures::pictures(&shared.target, &shared.merged, &shared.nodes, &choices);
            Response::json(200, &p)
        }
        Err(why) => Response::json(400, &json!({"ok": false, "reason": why})),
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
