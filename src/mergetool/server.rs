//! The mergetool's HTTP/1.1 server, by hand on the standard library: one request per
//! connection on `127.0.0.1`, bounded in size, in time (one deadline for the whole
//! request, however its bytes trickle in) and in number ([`Slots`]: a connection that has
//! not shown the token gives way to a newer one). Decides who may ask (the [`Guard`]: the
//! token in the path, the `Host` and the `Origin`); what each route does is the caller's
//! handler.
//!
//! Why by hand and not a server crate (`tiny_http`, `hyper`): the page needs one request
//! per connection and a dozen routes, while the rules that matter here are the ones a
//! general server leaves to its user (a deadline per request rather than per read, which
//! connection gives way when all are taken, who is admitted before a route runs). The
//! parser is 60 lines, bounded, and fuzzed in this file's tests.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most bytes of a request's head (request line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// Most bytes of a request's body (the typed values of every conflict).
pub const MAX_BODY: usize = 8 << 20;
/// How long a connection may take to send its whole request, and to take its answer.
pub const REQUEST_TIME: Duration = Duration::from_secs(10);
/// Most connections open at once.
pub const MAX_CONNECTIONS: usize = 32;

/// A request as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, query left out.
    pub path: String,
    /// Headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body (`Content-Length` bytes).
    pub body: Vec<u8>,
}

impl Request {
    /// The first header of this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response.
    pub fn json(status: u16, v: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }

    /// A plain-text response (errors).
    pub fn text(status: u16, s: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: s.as_bytes().to_vec(),
        }
    }
}

/// Read one request, all of it before `deadline`; `Err` is the status to answer with
/// (400, 408, 413).
pub fn read_request(stream: &mut impl Read, deadline: Instant) -> Result<Request, u16> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(413);
        }
        if Instant::now() >= deadline {
            return Err(408);
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(400),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => return Err(408),
        }
    };
    let head = std::str::from_utf8(&buf[..head_end]).map_err(|_| 400u16)?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let (method, target) = (
        first.next().unwrap_or_default(),
        first.next().ok_or(400u16)?,
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut req = Request {
        method: method.to_string(),
        path: target.split('?').next().unwrap_or_default().to_string(),
        headers,
        body: buf[head_end + 4..].to_vec(),
    };
    let len: usize = match req.header("content-length") {
        Some(v) => v.parse().map_err(|_| 400u16)?,
        None => 0,
    };
    if len > MAX_BODY {
        return Err(413);
    }
    while req.body.len() < len {
        if Instant::now() >= deadline {
            return Err(408);
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(400),
            Ok(n) => req.body.extend_from_slice(&chunk[..n]),
            Err(_) => return Err(408),
        }
    }
    req.body.truncate(len);
    Ok(req)
}

/// Who may ask: requests carrying the token, addressed to this server by its own
/// `Host`, and from no other page's `Origin`.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The secret first segment of every path.
    pub token: String,
    /// The port the server listens on.
    pub port: u16,
}

impl Guard {
    /// The server's own origin, `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The route after the token (`""` for the page, `api/state`, ...), or 403.
    pub fn admit<'r>(&self, req: &'r Request) -> Result<&'r str, u16> {
        if req.header("host") != Some(&format!("127.0.0.1:{}", self.port)) {
            return Err(403);
        }
        if req.header("origin").is_some_and(|o| o != self.origin()) {
            return Err(403);
        }
        let rest = req.path.strip_prefix('/').ok_or(403u16)?;
        let (token, route) = rest.split_once('/').unwrap_or((rest, ""));
        if !same(token.as_bytes(), self.token.as_bytes()) {
            return Err(403);
        }
        Ok(route)
    }
}

/// Equal byte strings, compared in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh token: 16 bytes from the system's random source, in hex.
pub fn token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        500 => "Internal Server Error",
        _ => "Error",
    }
}

/// The page's Content-Security-Policy: its own inline script and style, requests to
/// itself only, nothing else from anywhere.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                   connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// Write `r` and close the connection.
pub fn send(stream: &mut impl Write, r: &Response) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
         X-Frame-Options: DENY\r\nContent-Security-Policy: {CSP}\r\n\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(&r.body)?;
    stream.flush()
}

/// A stream whose reads and writes all end by one deadline: each read or write waits
/// at most the time left, so a byte every few seconds cannot stretch a request.
struct Timed<'s> {
    stream: &'s TcpStream,
    deadline: Instant,
}

impl Timed<'_> {
    fn left(&self) -> std::io::Result<Duration> {
        match self.deadline.checked_duration_since(Instant::now()) {
            Some(d) if !d.is_zero() => Ok(d),
            _ => Err(std::io::ErrorKind::TimedOut.into()),
        }
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        (&mut &*self.stream).read(buf)
    }
}

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        (&mut &*self.stream).write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        (&mut &*self.stream).flush()
    }
}

/// Serve one connection: read, admit, hand to `route` (route after the token, request),
/// answer. `after` runs once the answer is sent (a Save ends the server only then).
/// `admitted` is called once the request carries the token (its slot then stays).
pub fn serve_one(
    stream: TcpStream,
    guard: &Guard,
    admitted: impl FnOnce(),
    route: impl FnOnce(&str, &Request) -> (Response, Option<Box<dyn FnOnce() + Send>>),
) {
    let deadline = Instant::now() + REQUEST_TIME;
    let mut timed = Timed {
        stream: &stream,
        deadline,
    };
    let (resp, after) = match read_request(&mut timed, deadline) {
        Err(status) => (Response::text(status, reason(status)), None),
        Ok(req) => match guard.admit(&req) {
            Err(status) => (Response::text(status, "Forbidden"), None),
            Ok(r) => {
                admitted();
                route(r, &req)
            }
        },
    };
    // The answer has its own deadline: a Save that took a while to write still answers.
    timed.deadline = Instant::now() + REQUEST_TIME;
    let _ = send(&mut timed, &resp);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    if let Some(f) = after {
        f();
    }
}

/// The connections open at once, at most [`MAX_CONNECTIONS`]. When all are taken, the
/// oldest one that has not yet shown the token is closed to make room: 32 clients
/// sending a byte now and then cannot keep the page out, and the page's own requests,
/// sent whole at once, are admitted within a moment of arriving.
#[derive(Default)]
pub struct Slots {
    open: Mutex<Vec<Slot>>,
    next: AtomicU64,
}

struct Slot {
    id: u64,
    /// A handle on the connection, to close it from here.
    stream: TcpStream,
    admitted: bool,
}

/// One connection's place in [`Slots`], given back when dropped.
pub struct Place {
    slots: Arc<Slots>,
    id: u64,
}

impl Slots {
    /// A place for `stream`, making room if needed; `None` when every place is held by
    /// an admitted connection (the connection is then closed unanswered).
    pub fn enter(self: &Arc<Self>, stream: &TcpStream) -> Option<Place> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= MAX_CONNECTIONS {
            let oldest = open.iter().position(|s| !s.admitted)?;
            let gone = open.remove(oldest);
            let _ = gone.stream.shutdown(std::net::Shutdown::Both);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        open.push(Slot {
            id,
            stream: stream.try_clone().ok()?,
            admitted: false,
        });
        Some(Place {
            slots: Arc::clone(self),
            id,
        })
    }

    fn with(&self, id: u64, f: impl FnOnce(&mut Vec<Slot>, Option<usize>)) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let at = open.iter().position(|s| s.id == id);
        f(&mut open, at);
    }
}

impl Place {
    /// The connection showed the token: it no longer gives way to newer ones.
    pub fn admit(&self) {
        self.slots.with(self.id, |open, at| {
            if let Some(i) = at {
                open[i].admitted = true;
            }
        });
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.slots.with(self.id, |open, at| {
            if let Some(i) = at {
                open.remove(i);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    fn req(raw: &str) -> Request {
        read_request(&mut raw.as_bytes(), later()).expect("reads")
    }

    fn guard() -> Guard {
        Guard {
            token: "abc123".into(),
            port: 4000,
        }
    }

    #[test]
    fn requests_are_read_with_their_body() {
        let r = req("POST /abc123/api/check?x=1 HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nContent-Length: 4\r\n\r\n{}xyz");
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/abc123/api/check");
        assert_eq!(r.body, b"{}xy");
        assert_eq!(r.header("host"), Some("127.0.0.1:4000"));
        let big = format!("GET / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", MAX_BODY + 1);
        assert_eq!(read_request(&mut big.as_bytes(), later()), Err(413));
        let cut = "GET / HTTP/1.1\r\n";
        assert_eq!(read_request(&mut cut.as_bytes(), later()), Err(400));
    }

    #[test]
    fn only_the_token_the_host_and_the_own_origin_are_admitted() {
        let g = guard();
        let ok = req("GET /abc123/api/state HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n");
        assert_eq!(g.admit(&ok), Ok("api/state"));
        let page = req("GET /abc123/ HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n");
        assert_eq!(g.admit(&page), Ok(""));
        for bad in [
            "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n",
            "GET /abc124/api/state HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n",
            "GET /abc12/ HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n",
            "GET /abc123/ HTTP/1.1\r\nHost: localhost:4000\r\n\r\n",
            "GET /abc123/ HTTP/1.1\r\n\r\n",
            "POST /abc123/api/save HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nOrigin: http://evil.example\r\n\r\n",
            "POST /abc123/api/save HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nOrigin: null\r\n\r\n",
        ] {
            assert_eq!(g.admit(&req(bad)), Err(403), "{bad}");
        }
        let own = req("POST /abc123/api/save HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nOrigin: http://127.0.0.1:4000\r\n\r\n");
        assert_eq!(g.admit(&own), Ok("api/save"));
    }

    #[test]
    fn tokens_are_fresh_and_long() {
        let (a, b) = (token().expect("random"), token().expect("random"));
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    /// Gives `bytes` one at a time, each after `pause`, as a client sending a byte
    /// every few seconds does (in milliseconds here).
    struct Trickle<'a> {
        bytes: &'a [u8],
        pause: Duration,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            std::thread::sleep(self.pause);
            match (self.bytes.split_first(), buf.first_mut()) {
                (Some((b, rest)), Some(slot)) => {
                    *slot = *b;
                    self.bytes = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn one_deadline_holds_for_the_whole_request_however_it_trickles() {
        let raw = b"GET /abc123/ HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\r\n";
        let pause = Duration::from_millis(10);
        let start = Instant::now();
        let deadline = start + Duration::from_millis(150);
        let mut slow = Trickle { bytes: raw, pause };
        assert_eq!(read_request(&mut slow, deadline), Err(408));
        // Every read came quickly, yet the request as a whole ran out of time.
        assert!(start.elapsed() < Duration::from_millis(400));
        let mut slow = Trickle { bytes: raw, pause };
        assert_eq!(
            read_request(&mut slow, later()).map(|r| r.path),
            Ok("/abc123/".into())
        );
    }

    /// Gives `bytes` in chunks of the sizes in `cuts` (cycled), as TCP may.
    struct Chunks<'a> {
        bytes: &'a [u8],
        cuts: Vec<usize>,
        at: usize,
    }

    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let want = self.cuts[self.at % self.cuts.len()].max(1);
            self.at += 1;
            let n = want.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    const VALID: &str = "POST /abc123/api/save HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n\
        Origin: http://127.0.0.1:4000\r\nContent-Type: application/json\r\n\
        Content-Length: 29\r\n\r\n{\"choices\":[{\"side\":\"ours\"}]}";

    use proptest::prelude::*;

    /// A valid request with bytes replaced, inserted or removed.
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        let edit = (0..VALID.len(), any::<u8>(), 0..3u8);
        proptest::collection::vec(edit, 0..6).prop_map(|edits| {
            let mut b = VALID.as_bytes().to_vec();
            for (at, byte, how) in edits {
                let at = at.min(b.len().saturating_sub(1));
                match how {
                    0 if !b.is_empty() => b[at] = byte,
                    1 => b.insert(at, byte),
                    _ if !b.is_empty() => {
                        b.remove(at);
                    }
                    _ => {}
                }
            }
            b
        })
    }

    /// What any request, however malformed, must keep to: no panic, a body no longer
    /// than its `Content-Length` and [`MAX_BODY`], a path without its query, and the
    /// guard's verdict given without a panic either.
    fn holds(bytes: &[u8], cuts: Vec<usize>) -> Result<(), TestCaseError> {
        let mut r = Chunks { bytes, cuts, at: 0 };
        if let Ok(req) = read_request(&mut r, later()) {
            let len: usize = req
                .header("content-length")
                .map_or(Ok(0), str::parse)
                .unwrap_or(0);
            prop_assert_eq!(req.body.len(), len);
            prop_assert!(req.body.len() <= MAX_BODY);
            prop_assert!(!req.path.contains('?'));
            let _ = guard().admit(&req);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn any_bytes_are_read_or_refused_without_a_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            cuts in proptest::collection::vec(1usize..64, 1..4),
        ) {
            holds(&bytes, cuts)?;
        }

        #[test]
        fn a_mutated_request_is_read_or_refused_without_a_panic(
            bytes in mutated(),
            cuts in proptest::collection::vec(1usize..64, 1..4),
        ) {
            holds(&bytes, cuts)?;
        }

        #[test]
        fn a_request_reads_the_same_however_it_is_cut(
            cuts in proptest::collection::vec(1usize..40, 1..6),
        ) {
            let mut r = Chunks { bytes: VALID.as_bytes(), cuts, at: 0 };
            let whole = req(VALID);
            prop_assert_eq!(read_request(&mut r, later()), Ok(whole.clone()));
            prop_assert_eq!(guard().admit(&whole), Ok("api/save"));
        }
    }
}
