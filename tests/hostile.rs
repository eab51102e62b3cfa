//! Hostile input: mutated corpus files must never panic the library or kill the binary,
//! and every row of the README's "What bad input gets" table is checked here against the
//! real binary (one test per row, named `bad_input_*`).
//!
//! Everything is deterministic: a fixed corpus sample and a seeded xorshift RNG. A failure
//! prints the corpus file and the mutation, and writes the mutated bytes to a temporary
//! file whose path it names, so the case can be replayed with `tscn-merge check FILE`.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use gdscene::check::{check, check_markers};
use gdscene::model::Scene;
use gdscene::syntax::Document;
use gdscene::value;

// ---------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tscn-merge")
}

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("corpus/INDEX.tsv").exists())
}

fn example(rel: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A tiny deterministic RNG (xorshift64).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// `count` corpus files of at most `max_bytes`, spread evenly over `INDEX.tsv` (so every
/// project, format and history point is represented), the same ones on every run.
fn corpus_sample(root: &Path, count: usize, max_bytes: usize) -> Vec<(String, Vec<u8>)> {
    let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).expect("INDEX.tsv");
    let mut lines = index.lines();
    let head: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect("column");
    let (c_path, c_bytes) = (col("stored_as"), col("bytes"));
    let rows: Vec<(String, usize)> = lines
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let bytes = f.get(c_bytes)?.parse().ok()?;
            Some((f.get(c_path)?.to_string(), bytes))
        })
        .filter(|(_, b)| *b <= max_bytes)
        .collect();
    let step = (rows.len() / count).max(1);
    rows.iter()
        .step_by(step)
        .take(count)
        .map(|(p, _)| {
            let data = std::fs::read(root.join("corpus").join(p)).expect("read corpus file");
            (p.clone(), data)
        })
        .collect()
}

fn line_starts(data: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            data.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&i| i < data.len())
        .collect()
}

fn deep(open: &str, n: usize) -> String {
    open.repeat(n)
}

/// The mutations, by name. Each takes the original bytes and the RNG.
const MUTATIONS: &[&str] = &[
    "truncate",
    "flip-bytes",
    "drop-line",
    "duplicate-line",
    "bom",
    "crlf",
    "conflict-markers",
    "invalid-utf8",
    "deep-brackets",
    "deep-mixed",
    "swap-lines",
    "splice-junk",
];

fn mutate(name: &str, data: &[u8], rng: &mut Rng) -> Vec<u8> {
    let lines = line_starts(data);
    let line_range = |i: usize| -> (usize, usize) {
        let s = lines[i];
        let e = lines.get(i + 1).copied().unwrap_or(data.len());
        (s, e)
    };
    let mut out = data.to_vec();
    match name {
        "truncate" => out.truncate(rng.below(data.len() + 1)),
        "flip-bytes" => {
            for _ in 0..1 + rng.below(8) {
                if !out.is_empty() {
                    let i = rng.below(out.len());
                    out[i] ^= 1 << rng.below(8);
                }
            }
        }
        "drop-line" if !lines.is_empty() => {
            let (s, e) = line_range(rng.below(lines.len()));
            out.drain(s..e);
        }
        "duplicate-line" if !lines.is_empty() => {
            let (s, e) = line_range(rng.below(lines.len()));
            let l = data[s..e].to_vec();
            out.splice(e..e, l);
        }
        "swap-lines" if lines.len() > 2 => {
            let a = rng.below(lines.len() - 1);
            let (s1, e1) = line_range(a);
            let (_, e2) = line_range(a + 1);
            let mut v = data[..s1].to_vec();
            v.extend_from_slice(&data[e1..e2]);
            v.extend_from_slice(&data[s1..e1]);
            v.extend_from_slice(&data[e2..]);
            out = v;
        }
        "bom" => {
            out = b"\xEF\xBB\xBF".to_vec();
            out.extend_from_slice(data);
        }
        "crlf" => {
            out.clear();
            for &b in data {
                if b == b'\n' {
                    out.push(b'\r');
                }
                out.push(b);
            }
        }
        "conflict-markers" if !lines.is_empty() => {
            let a = rng.below(lines.len());
            let b = a + rng.below(lines.len() - a);
            let (s, _) = line_range(a);
            let e = line_range(b).1;
            let mut v = data[..s].to_vec();
            v.extend_from_slice(b"<<<<<<< ours\n");
            v.extend_from_slice(&data[s..e]);
            if !v.ends_with(b"\n") {
                v.push(b'\n');
            }
            v.extend_from_slice(b"||||||| base\n=======\n");
            v.extend_from_slice(&data[s..e]);
            if !v.ends_with(b"\n") {
                v.push(b'\n');
            }
            v.extend_from_slice(b">>>>>>> theirs\n");
            v.extend_from_slice(&data[e..]);
            out = v;
        }
        "invalid-utf8" => {
            let junk: &[&[u8]] = &[
                b"\xFF",
                b"\xC3",
                b"\xE2\x82",
                b"\xED\xA0\x80",
                b"\xC0\xAF",
                b"\x80\x80",
            ];
            let i = rng.below(out.len() + 1);
            out.splice(i..i, junk[rng.below(junk.len())].iter().copied());
        }
        "deep-brackets" => {
            // 100,000 `[` as a property value (and, half the time, closed again).
            let n = 100_000;
            let mut v = deep("[", n);
            if rng.below(2) == 0 {
                v.push_str(&deep("]", n));
            }
            let at = lines
                .get(1 + rng.below(lines.len().max(1)))
                .copied()
                .unwrap_or(data.len());
            let ins = format!("deep = {v}\n");
            out.splice(at..at, ins.into_bytes());
        }
        "deep-mixed" => {
            let opens = [
                "{\"k\": ",
                "Vector2(",
                "Array[int]([",
                "[",
                "Dictionary[String, int]({\"a\": ",
            ];
            let mut v = String::new();
            for _ in 0..20_000 {
                v.push_str(opens[rng.below(opens.len())]);
            }
            let ins = if rng.below(2) == 0 {
                format!("deep = {v}\n")
            } else {
                format!("[node name=\"Deep\" type=\"Node\" parent=\".\" groups={v}]\n")
            };
            let at = lines
                .get(1 + rng.below(lines.len().max(1)))
                .copied()
                .unwrap_or(data.len());
            out.splice(at..at, ins.into_bytes());
        }
        "splice-junk" => {
            let junk: &[&str] = &[
                "[",
                "]",
                "\"",
                "\\",
                "=",
                "\n[node\n",
                "SubResource(",
                "ExtResource(\"",
                "&\"",
                "@\"",
                "{",
                "}",
                ";",
                "\n[sub_resource type=\"X\" id=\"X\"]\n",
                "PackedByteArray(\"@@@\")",
                "\u{0}",
                "[gd_scene format=99]",
                "parent=\"../..\"",
                "load_steps=-1",
            ];
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(out.len() + 1);
                let j = junk[rng.below(junk.len())];
                out.splice(i..i, j.bytes());
            }
        }
        _ => {}
    }
    out
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_string()
    }
}

/// Run every library entry point on `bytes`; return the first stage that panicked.
fn library_on(bytes: &[u8]) -> Result<(), String> {
    let stage = |name: &str, f: &mut dyn FnMut()| -> Result<(), String> {
        catch_unwind(AssertUnwindSafe(f))
            .map_err(|e| format!("{name} panicked: {}", panic_text(&*e)))
    };
    stage("Document::parse", &mut || {
        if let Ok(doc) = Document::parse(bytes) {
            let _ = doc.print();
        }
    })?;
    stage("check_markers", &mut || {
        let _ = check_markers(bytes);
    })?;
    stage("Scene::parse + check", &mut || {
        if let Ok(scene) = Scene::parse(bytes) {
            let _ = check(&scene);
            let _ = scene.expected_load_steps();
        }
    })?;
    if let Ok(text) = std::str::from_utf8(bytes) {
        stage("value::outline", &mut || {
            let _ = value::outline(text);
        })?;
    }
    stage("value::parse of every value", &mut || {
        if let Ok(doc) = Document::parse(bytes) {
            for s in &doc.sections {
                for r in s
                    .tag
                    .fields
                    .iter()
                    .map(|f| &f.value)
                    .chain(s.props.iter().map(|p| &p.value))
                {
                    if let Ok(value::Value::Packed(p)) = value::parse(doc.slice(r)) {
                        let _ = p.elements();
                    }
                }
            }
        }
    })?;
    Ok(())
}

fn save_case(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join("tscn-merge-hostile");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name.replace('/', "__"));
    std::fs::write(&p, bytes).expect("save case");
    p
}

fn run(args: &[&str], dir: &Path) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tscn-merge")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The files of a directory with their bytes, to prove that a command wrote nothing.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------
// Fuzz-style properties
// ---------------------------------------------------------------------------------------

/// ~200 corpus files x 12 mutations x 2 seeds: no library entry point panics.
#[test]
fn mutated_corpus_never_panics_the_library() {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let t = Instant::now();
    let sample = corpus_sample(&root, 200, 64 * 1024);
    assert!(sample.len() >= 150, "sample too small: {}", sample.len());
    // Silence the default hook's backtrace printing for caught panics; report them below.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, (name, data)) in sample.iter().enumerate() {
        if let Err(e) = library_on(data) {
            failures.push(format!("{name} (unmutated): {e}"));
        }
        for (m, mutation) in MUTATIONS.iter().enumerate() {
            for seed in 0..2u64 {
                let mut rng = Rng::new(1 + (i as u64) * 1000 + (m as u64) * 10 + seed);
                let bytes = mutate(mutation, data, &mut rng);
                cases += 1;
                if let Err(e) = library_on(&bytes) {
                    let case = format!("{name}.{mutation}.{seed}");
                    let saved = save_case(&case, &bytes);
                    failures.push(format!(
                        "{name} [{mutation}, seed {seed}]: {e}\n    input saved as {}",
                        saved.display()
                    ));
                }
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!(
        "{cases} mutated inputs in {:.1?}, {} panics",
        t.elapsed(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A smaller sample of mutated files through the real binary: `check` exits 0, 1 or 2,
/// never by a signal, and writes nothing.
#[test]
fn mutated_corpus_never_kills_the_binary() {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let sample = corpus_sample(&root, 24, 32 * 1024);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut names = Vec::new();
    for (i, (name, data)) in sample.iter().enumerate() {
        for (m, mutation) in MUTATIONS.iter().enumerate() {
            let mut rng = Rng::new(7 + (i as u64) * 100 + m as u64);
            let bytes = mutate(mutation, data, &mut rng);
            let file = format!("{i:03}-{mutation}.tscn");
            std::fs::write(dir.path().join(&file), &bytes).expect("write case");
            names.push((file, name.clone()));
        }
    }
    let before = snapshot(dir.path());
    // One process per mutation kind keeps the run short; a bad status is then narrowed
    // down to the file by running each of that batch alone.
    let mut bad = Vec::new();
    for mutation in MUTATIONS {
        let batch: Vec<&str> = names
            .iter()
            .filter(|(f, _)| f.ends_with(&format!("-{mutation}.tscn")))
            .map(|(f, _)| f.as_str())
            .collect();
        let mut args = vec!["check"];
        args.extend(&batch);
        let o = run(&args, dir.path());
        if !matches!(o.status.code(), Some(0..=2)) {
            for f in &batch {
                let o = run(&["check", f], dir.path());
                if !matches!(o.status.code(), Some(0..=2)) {
                    let src = &names.iter().find(|(n, _)| n == f).expect("known").1;
                    let saved = save_case(f, &std::fs::read(dir.path().join(f)).expect("read"));
                    bad.push(format!(
                        "{f} (from {src}): status {:?}; saved as {}\n{}",
                        o.status,
                        saved.display(),
                        stderr(&o)
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        snapshot(dir.path()) == before,
        "`check` changed or created files"
    );
}

// ---------------------------------------------------------------------------------------
// The README table, one test per row
// ---------------------------------------------------------------------------------------

/// What one row of the table promises for `check`.
struct Row {
    /// Exit code of `check FILE`.
    code: i32,
    /// Substrings the report must contain: problems are on stdout since issue 38
    /// (`{f}` is replaced by the file name).
    out_has: &'static [&'static str],
    /// Substring stdout must contain, if any.
    stdout_has: Option<&'static str>,
}

/// Run `check` (text and `--json`) and `merge --git` on `bytes`, assert the row, and that
/// nothing was written.
fn assert_row(file: &str, bytes: &[u8], row: Row) {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::write(p.join(file), bytes).expect("write input");
    let before = snapshot(p);

    let t = Instant::now();
    let o = run(&["check", file], p);
    let took = t.elapsed();
    let err = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(row.code),
        "check {file}: stdout:\n{}",
        &err[..err.len().min(2000)]
    );
    for want in row.out_has {
        let want = want.replace("{f}", file);
        assert!(
            err.contains(&want),
            "check {file}: stdout lacks {want:?}:\n{}",
            &err[..err.len().min(2000)]
        );
    }
    match row.stdout_has {
        Some(s) => assert!(
            stdout(&o).contains(&s.replace("{f}", file)),
            "check {file}: stdout {:?}",
            stdout(&o)
        ),
        None => assert!(
            !stdout(&o).contains(": ok"),
            "check {file}: says ok: {:?}",
            stdout(&o)
        ),
    }
    assert!(took < Duration::from_secs(10), "check {file} took {took:?}");

    // --json: one document on stdout with the same exit code.
    let o = run(&["check", "--json", file], p);
    assert_eq!(o.status.code(), Some(row.code), "check --json {file}");
    let doc: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("check --json prints JSON");
    assert_eq!(doc["exit"], row.code, "check --json {file}: {doc}");

    assert!(snapshot(p) == before, "check {file} wrote something");

    // merge --git with the bad input as OURS and a good base/theirs: whatever it decides,
    // it exits 0, 1 or 2, and with 2 it leaves OURS exactly as it was and no stray files.
    let good = example("merge/base.tscn");
    std::fs::write(p.join("base.tscn"), &good).expect("write base");
    std::fs::write(p.join("theirs.tscn"), &good).expect("write theirs");
    let before = snapshot(p);
    let o = run(&["merge", "--git", "base.tscn", file, "theirs.tscn"], p);
    let code = o.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "merge with {file} as ours: status {:?}",
        o.status
    );
    if code == Some(2) {
        assert!(
            snapshot(p) == before,
            "merge failed (exit 2) but changed files"
        );
        assert!(
            stderr(&o).starts_with("tscn-merge: "),
            "merge error shape: {}",
            stderr(&o)
        );
    }
}

fn scene_text() -> Vec<u8> {
    example("merge/base.tscn")
}

#[test]
fn bad_input_truncated_file() {
    // Cut inside the PackedColorArray value: the bracket never closes.
    let full = scene_text();
    let cut = full
        .windows(17)
        .position(|w| w == b"PackedColorArray(")
        .expect("has a packed array")
        + 25;
    assert_row(
        "truncated.tscn",
        &full[..cut],
        Row {
            code: 1,
            out_has: &[
                "{f}:10:",
                "a closing bracket for this value (the file ends first)",
                "  | ",
                "^",
            ],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_invalid_utf8() {
    let mut bytes = scene_text();
    let at = bytes
        .windows(6)
        .position(|w| w == b"Player")
        .expect("has Player");
    bytes[at + 1] = 0xE9; // Latin-1 e-acute: not UTF-8
    assert_row(
        "latin1.tscn",
        &bytes,
        Row {
            code: 1,
            out_has: &[
                "{f}:",
                "valid UTF-8 text (this byte sequence is not UTF-8)",
                "^",
            ],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_bom() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(scene_text());
    assert_row(
        "bom.tscn",
        &bytes,
        Row {
            code: 0,
            out_has: &["{f}:1: warning: the file starts with a UTF-8 byte-order mark"],
            stdout_has: Some("{f}: ok"),
        },
    );
}

#[test]
fn bad_input_crlf() {
    let text = String::from_utf8(scene_text())
        .expect("utf8")
        .replace('\n', "\r\n");
    assert_row(
        "crlf.tscn",
        text.as_bytes(),
        Row {
            code: 0,
            out_has: &[],
            stdout_has: Some("{f}: ok"),
        },
    );
}

#[test]
fn bad_input_conflict_markers() {
    let text = String::from_utf8(scene_text()).expect("utf8").replacen(
        "hframes = 4\n",
        "<<<<<<< ours\nhframes = 4\n=======\nhframes = 8\n>>>>>>> theirs\n",
        1,
    );
    assert_row(
        "markers.tscn",
        text.as_bytes(),
        Row {
            code: 1,
            out_has: &[
                "{f}:19: error: leftover conflict markers",
                "{f}:21: error:",
                "{f}:23: error:",
            ],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_deep_nesting() {
    let mut text = String::from_utf8(scene_text()).expect("utf8");
    text.push_str(&format!(
        "deep = {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    ));
    assert_row(
        "deep.tscn",
        text.as_bytes(),
        Row {
            code: 1,
            out_has: &["{f}:33:", "at most 128 levels of nesting"],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_empty_file() {
    assert_row(
        "empty.tscn",
        b"",
        Row {
            code: 1,
            out_has: &[
                "{f}:1:1: expected a file header such as `[gd_scene ...]` (the file is empty)",
            ],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_random_bytes() {
    let mut rng = Rng::new(42);
    let bytes: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    assert_row(
        "random.tscn",
        &bytes,
        Row {
            code: 1,
            out_has: &["{f}:1:", "valid UTF-8 text"],
            stdout_has: None,
        },
    );
}

#[test]
fn bad_input_not_a_scene() {
    assert_row(
        "player.gd",
        b"extends CharacterBody2D\n\nfunc _ready():\n\tpass\n",
        Row {
            code: 1,
            out_has: &[
                "{f}:1:1: expected a file header such as `[gd_scene ...]` or `[gd_resource ...]`",
            ],
            stdout_has: None,
        },
    );
    // An import file is not a scene: since issue 28 it is checked as a ConfigFile.
    assert_row(
        "icon.png.import",
        b"[remap]\n\nimporter=\"texture\"\ntype=\"CompressedTexture2D\"\n",
        Row {
            code: 0,
            out_has: &[],
            stdout_has: Some("{f}: ok"),
        },
    );
    assert_row(
        "icon.png.import",
        b"[remap]\n\nimporter=\n",
        Row {
            code: 1,
            out_has: &["{f}:3:10: expected"],
            stdout_has: None,
        },
    );
}

/// A missing file is an error too (exit 2), named in the message.
#[test]
fn bad_input_missing_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = run(&["check", "nowhere.tscn"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("nowhere.tscn:") && stdout(&o).contains("cannot read"),
        "{}",
        stdout(&o)
    );
}

// ---------------------------------------------------------------------------------------
// Bugs found in src/ by these tests (now fixed; each names its input)
// ---------------------------------------------------------------------------------------

/// A scene of `n` small nodes (the node-heavy benchmark's shape).
fn many_nodes(n: usize) -> String {
    let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n");
    for i in 0..n {
        s.push_str(&format!(
            "[node name=\"Item{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({}, {})\nregion_enabled = true\n\n",
            i % 512,
            i / 512
        ));
    }
    s
}

/// `check::check` is quadratic in the number of nodes: it calls `Document::line_of` (a
/// scan from the start of the file) for every node, so 13,500 nodes (2 MB) take ~10 s
/// and a 20 MB node-heavy scene ~15 minutes. Input: `many_nodes(30_000)` (~2.6 MB).
/// (Fixed: line numbers now come from a `LineIndex`. Speed itself is measured by the
/// benchmark scripts, not here; a quadratic check would make this test take minutes.)
#[test]
fn check_is_not_quadratic_in_nodes() {
    let text = many_nodes(30_000);
    let scene = Scene::parse(text.as_bytes()).expect("parses");
    let problems = check(&scene);
    assert!(problems.is_empty(), "{problems:?}");
}

/// A syntax error echoes the whole offending line twice (text and caret line): for the
/// 100,000-deep value that is ~200 KB on stderr. The caret display should clip long lines.
#[test]
fn syntax_error_message_is_bounded() {
    let text = format!(
        "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nx = {}\n",
        "[".repeat(100_000)
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("deep.tscn"), text).expect("write");
    let o = run(&["check", "deep.tscn"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.len() < 4096, "stdout is {} bytes", o.stdout.len());
}
