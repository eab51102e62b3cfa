//! Hostile input: mutated corpus files (truncation, byte flips, dropped and duplicated
//! lines, a BOM, CRLF, a 5 MB string, 100,000 nested `[`, invalid UTF-8, conflict markers
//! already in the input) through the library `merge` and the binary's `merge`, `check`,
//! `diff` and `solve`.
//!
//! Laws: the library never panics; the binary exits with 0, 1 or 2, never a panic (101)
//! or a signal; when an input does not parse, the merge falls back and its output (and
//! conflict count) equal `git merge-file -p --diff3 -L ours -L base -L theirs`.
//!
//! The mutators live in [`mutate`] so that `examples/fuzz_merge.rs` can use them too.

mod common;

pub mod mutate {
    /// SplitMix64: small, deterministic, good enough for choosing mutations.
    #[derive(Clone, Debug)]
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        /// Uniform in `0..n` (`0` when `n == 0`).
        pub fn below(&mut self, n: usize) -> usize {
            if n == 0 {
                0
            } else {
                (self.next_u64() % n as u64) as usize
            }
        }
    }

    /// Names of the mutations, indexed by [`mutate`]'s `kind`.
    pub const KINDS: &[&str] = &[
        "truncate",
        "byte_flip",
        "drop_line",
        "dup_line",
        "bom",
        "crlf",
        "huge_string",
        "deep_nesting",
        "invalid_utf8",
        "conflict_markers",
        "swap_lines",
        "empty",
    ];

    fn lines(src: &[u8]) -> Vec<&[u8]> {
        src.split_inclusive(|&b| b == b'\n').collect()
    }

    /// Offset of the start of a random line after the first one (or the end).
    fn line_start(src: &[u8], rng: &mut Rng) -> usize {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                src.iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let after_first: Vec<usize> = starts.iter().copied().filter(|&s| s > 0).collect();
        if after_first.is_empty() {
            src.len()
        } else {
            after_first[rng.below(after_first.len())]
        }
    }

    fn insert(src: &[u8], at: usize, what: &[u8]) -> Vec<u8> {
        let mut v = Vec::with_capacity(src.len() + what.len());
        v.extend_from_slice(&src[..at]);
        v.extend_from_slice(what);
        v.extend_from_slice(&src[at..]);
        v
    }

    /// Apply mutation `kind` (see [`KINDS`]) to `src`.
    pub fn mutate(kind: usize, src: &[u8], rng: &mut Rng) -> Vec<u8> {
        match KINDS[kind % KINDS.len()] {
            "truncate" => src[..rng.below(src.len() + 1)].to_vec(),
            "byte_flip" => {
                let mut v = src.to_vec();
                for _ in 0..1 + rng.below(4) {
                    if !v.is_empty() {
                        let i = rng.below(v.len());
                        // Structural bytes are the interesting ones.
                        let pool = b"[]\"=(){}\n,\\ 0aZ\xff\x00";
                        v[i] = if rng.below(2) == 0 {
                            pool[rng.below(pool.len())]
                        } else {
                            v[i] ^ (1 << rng.below(8))
                        };
                    }
                }
                v
            }
            "drop_line" => {
                let mut ls = lines(src);
                if !ls.is_empty() {
                    ls.remove(rng.below(ls.len()));
                }
                ls.concat()
            }
            "dup_line" => {
                let mut ls = lines(src);
                if !ls.is_empty() {
                    let i = rng.below(ls.len());
                    let l = ls[i];
                    ls.insert(i, l);
                }
                ls.concat()
            }
            "bom" => insert(src, 0, "\u{feff}".as_bytes()),
            "crlf" => {
                let mut v = Vec::with_capacity(src.len() * 2);
                for &b in src {
                    if b == b'\n' {
                        v.push(b'\r');
                    }
                    v.push(b);
                }
                v
            }
            "huge_string" => {
                let mut s = b"huge = \"".to_vec();
                s.extend(std::iter::repeat_n(b'a', 5 << 20));
                s.extend_from_slice(b"\"\n");
                insert(src, line_start(src, rng), &s)
            }
            "deep_nesting" => {
                let mut s = b"deep = ".to_vec();
                s.extend(std::iter::repeat_n(b'[', 100_000));
                s.push(b'\n');
                insert(src, line_start(src, rng), &s)
            }
            "invalid_utf8" => {
                let bad: &[&[u8]] = &[
                    b"\xff",
                    b"\xc3\x28",
                    b"\xed\xa0\x80",
                    b"\xf0\x28\x8c\x28",
                    b"\x80",
                ];
                insert(src, rng.below(src.len() + 1), bad[rng.below(bad.len())])
            }
            "conflict_markers" => {
                let ls = lines(src);
                let i = rng.below(ls.len() + 1);
                let j = (i + 1 + rng.below(3)).min(ls.len());
                let mut v = ls[..i].concat();
                v.extend_from_slice(b"<<<<<<< ours\n");
                v.extend_from_slice(&ls[i..j].concat());
                v.extend_from_slice(b"||||||| base\n=======\nfoo = 1\n>>>>>>> theirs\n");
                v.extend_from_slice(&ls[j..].concat());
                v
            }
            "swap_lines" => {
                let mut ls = lines(src);
                if ls.len() > 1 {
                    let (a, b) = (rng.below(ls.len()), rng.below(ls.len()));
                    ls.swap(a, b);
                }
                ls.concat()
            }
            _ => Vec::new(),
        }
    }

    /// A harmless edit: one property line added after the last line.
    pub fn small_edit(src: &[u8], tag: &str) -> Vec<u8> {
        let mut v = src.to_vec();
        if !v.is_empty() && !v.ends_with(b"\n") {
            v.push(b'\n');
        }
        v.extend_from_slice(format!("edited_{tag} = 1\n").as_bytes());
        v
    }

    pub use super::common::git_merge_file;

    /// The laws for one hostile triple through the library. `with_git`: compare a
    /// fallback caused by an unparsable input with git. Returns violations.
    pub fn library_laws(b: &[u8], o: &[u8], t: &[u8], with_git: bool) -> Vec<String> {
        use gdscene::merge::{merge, MergeOptions, Method};
        use gdscene::model::Scene;
        use std::panic::{catch_unwind, AssertUnwindSafe};
        let mut v = Vec::new();
        let m = match catch_unwind(AssertUnwindSafe(|| {
            merge(b, o, t, &MergeOptions::default())
        })) {
            Ok(m) => m,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return vec![format!("merge panicked: {msg}")];
            }
        };
        let unparsable = [b, o, t].iter().any(|x| Scene::parse(x).is_err());
        if unparsable {
            let trivial = o == t || b == t || b == o;
            if !trivial && !matches!(m.method, Method::LineFallback(_)) {
                v.push(format!(
                    "an input does not parse, yet the method is {:?}",
                    m.method
                ));
            }
            if with_git {
                // git refuses binary input (a NUL byte) with exit 255: nothing to compare.
                if let Some((gt, gc)) = git_merge_file(b, o, t).filter(|(_, c)| *c != 255) {
                    if gt != m.text {
                        v.push(format!(
                            "fallback differs from git merge-file ({} vs {} bytes)",
                            m.text.len(),
                            gt.len()
                        ));
                    }
                    if gc.clamp(0, 127) as usize != m.conflict_count.min(127) {
                        v.push(format!(
                            "conflict count {} but git says {gc}",
                            m.conflict_count
                        ));
                    }
                }
            }
        }
        v
    }
}

use mutate::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    // `option_env!`: this file is also compiled into `examples/fuzz_merge.rs`.
    match option_env!("CARGO_BIN_EXE_tscn-merge") {
        Some(p) => PathBuf::from(p),
        None => panic!("CARGO_BIN_EXE_tscn-merge is only set for integration tests"),
    }
}

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("corpus/INDEX.tsv").exists())
}

fn corpus_sample(step: usize, offset: usize) -> Vec<PathBuf> {
    let Some(root) = shared() else {
        return Vec::new();
    };
    let index = std::fs::read_to_string(root.join("corpus/INDEX.tsv")).expect("INDEX.tsv");
    let mut lines = index.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = head.iter().position(|h| *h == "stored_as").unwrap();
    lines
        .filter(|l| !l.is_empty())
        .skip(offset)
        .step_by(step)
        .map(|l| root.join("corpus").join(l.split('\t').nth(col).unwrap()))
        .collect()
}

/// Every mutation, in every role, through the library; fallbacks compared with git.
#[test]
fn library_survives_hostile_input_and_falls_back_like_git() {
    let files = corpus_sample(400, 7);
    if files.is_empty() {
        eprintln!("skipped: ../shared not found");
        return;
    }
    let mut rng = Rng(0x5eed);
    let (mut runs, mut failures) = (0, Vec::new());
    for f in &files {
        let base = std::fs::read(f).unwrap();
        for (kind, kind_name) in KINDS.iter().enumerate() {
            let m = mutate(kind, &base, &mut rng);
            let ours = small_edit(&base, "o");
            let theirs = small_edit(&base, "t");
            // The mutant as ours, as theirs, as base; and two mutants against each other.
            let m2 = mutate(kind, &base, &mut rng);
            let triples: [(&[u8], &[u8], &[u8]); 4] = [
                (&base, &m, &theirs),
                (&base, &ours, &m),
                (&m, &ours, &theirs),
                (&base, &m, &m2),
            ];
            for (role, (b, o, t)) in ["ours", "theirs", "base", "both"].iter().zip(triples) {
                runs += 1;
                for v in library_laws(b, o, t, true) {
                    failures.push(format!("{} {kind_name} as {role}: {v}", f.display()));
                }
            }
        }
    }
    eprintln!(
        "hostile (library): {runs} merges over {} files, {} failures",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn run(args: &[&std::ffi::OsStr], dir: &Path) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("running tscn-merge")
}

/// Exit 0, 1 or 2 only: no panic (101), no signal.
fn sane(out: &std::process::Output) -> Result<(), String> {
    match out.status.code() {
        Some(0..=2) => Ok(()),
        Some(c) => Err(format!(
            "exit {c}: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" | ")
        )),
        None => Err(format!("killed by a signal ({:?})", out.status)),
    }
}

/// Every mutation through the binary's merge, check, diff and solve.
#[test]
fn binary_survives_hostile_input() {
    let files = corpus_sample(1500, 11);
    if files.is_empty() {
        eprintln!("skipped: ../shared not found");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = Rng(0xb1a5);
    let (mut runs, mut failures) = (0, Vec::new());
    for f in &files {
        let base = std::fs::read(f).unwrap();
        for (kind, kind_name) in KINDS.iter().enumerate() {
            let m = mutate(kind, &base, &mut rng);
            std::fs::write(d.join("base.tscn"), &base).unwrap();
            std::fs::write(d.join("ours.tscn"), &m).unwrap();
            std::fs::write(d.join("theirs.tscn"), small_edit(&base, "t")).unwrap();
            std::fs::write(d.join("conflicted.tscn"), &m).unwrap();
            let os = |s: &str| std::ffi::OsString::from(s);
            let cmds: Vec<Vec<std::ffi::OsString>> = vec![
                vec![
                    os("merge"),
                    os("base.tscn"),
                    os("ours.tscn"),
                    os("theirs.tscn"),
                ],
                vec![
                    os("merge"),
                    os("-o"),
                    os("out.tscn"),
                    os("ours.tscn"),
                    os("base.tscn"),
                    os("theirs.tscn"),
                ],
                vec![os("check"), os("ours.tscn")],
                vec![
                    os("check"),
                    os("--json"),
                    os("--roundtrip"),
                    os("ours.tscn"),
                ],
                vec![os("diff"), os("base.tscn"), os("ours.tscn")],
                vec![
                    os("diff"),
                    os("--format"),
                    os("json"),
                    os("ours.tscn"),
                    os("base.tscn"),
                ],
                vec![os("solve"), os("--stdout"), os("conflicted.tscn")],
            ];
            for c in &cmds {
                runs += 1;
                let args: Vec<&std::ffi::OsStr> = c.iter().map(|s| s.as_os_str()).collect();
                let out = run(&args, d);
                // `check --roundtrip` reports a printer bug as a problem (exit 1): it is one here.
                let mismatch = String::from_utf8_lossy(&out.stdout).contains("roundtrip-mismatch");
                if let Err(e) = sane(&out).and(if mismatch {
                    Err("printing did not reproduce the file (roundtrip-mismatch)".to_string())
                } else {
                    Ok(())
                }) {
                    failures.push(format!(
                        "{} {kind_name}: tscn-merge {}: {e}",
                        f.display(),
                        c.iter()
                            .map(|s| s.to_string_lossy())
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                }
            }
        }
    }
    eprintln!(
        "hostile (binary): {runs} runs over {} files, {} failures",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The binary's merge of an unparsable input writes what git merge-file writes.
#[test]
fn binary_fallback_equals_git() {
    let files = corpus_sample(3000, 5);
    if files.is_empty() {
        eprintln!("skipped: ../shared not found");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut failures = Vec::new();
    for f in &files {
        let base = std::fs::read(f).unwrap();
        let mut rng = Rng(3);
        let ours = mutate(0, &base, &mut rng); // truncated
        let theirs = small_edit(&base, "t");
        std::fs::write(d.join("b"), &base).unwrap();
        std::fs::write(d.join("o"), &ours).unwrap();
        std::fs::write(d.join("t"), &theirs).unwrap();
        let out = Command::new(bin())
            .args(["merge", "-q", "b", "o", "t"])
            .current_dir(d)
            .output()
            .unwrap();
        let (gt, gc) = git_merge_file(&base, &ours, &theirs).expect("git merge-file");
        if out.stdout != gt || out.status.code() != Some(if gc == 0 { 0 } else { 1 }) {
            failures.push(format!(
                "{}: binary {:?} vs git {gc}",
                f.display(),
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Nothing hostile about these: a deep nesting and a huge value in all three inputs.
#[test]
fn extreme_values_in_all_three_inputs() {
    let base = b"[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n".to_vec();
    let mut rng = Rng(9);
    for kind in [6usize, 7] {
        let b = mutate(kind, &base, &mut rng);
        let o = small_edit(&b, "o");
        let t = small_edit(&b, "t");
        let v = library_laws(&b, &o, &t, true);
        assert!(v.is_empty(), "{}: {v:?}", KINDS[kind]);
    }
}
