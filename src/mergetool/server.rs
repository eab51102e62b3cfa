//! The mergetool's HTTP/1.1 server, by hand on the standard library: one request per
//! connection on `127.0.0.1`, bounded in size and time. Decides who may ask (the
//! [`Guard`]: the token in the path, the `Host` and the `Origin`); what each route does
//! is the caller's handler.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Most bytes of a request's head (request line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// Most bytes of a request's body (the typed values of every conflict).
pub const MAX_BODY: usize = 8 << 20;
/// How long a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

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

/// Read one request; `Err` is the status to answer with (400, 408, 413).
pub fn read_request(stream: &mut impl Read) -> Result<Request, u16> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(413);
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

/// Serve one connection: read, admit, hand to `route` (route after the token, request),
/// answer. `after` runs once the answer is sent (a Save ends the server only then).
pub fn serve_one(
    mut stream: TcpStream,
    guard: &Guard,
    route: impl FnOnce(&str, &Request) -> (Response, Option<Box<dyn FnOnce() + Send>>),
) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
    let (resp, after) = match read_request(&mut stream) {
        Err(status) => (Response::text(status, reason(status)), None),
        Ok(req) => match guard.admit(&req) {
            Err(status) => (Response::text(status, "Forbidden"), None),
            Ok(r) => route(r, &req),
        },
    };
    let _ = send(&mut stream, &resp);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    if let Some(f) = after {
        f();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(raw: &str) -> Request {
        read_request(&mut raw.as_bytes()).expect("reads")
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
        assert_eq!(read_request(&mut big.as_bytes()), Err(413));
        assert_eq!(read_request(&mut "GET / HTTP/1.1\r\n".as_bytes()), Err(400));
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
}
