//! gix's blob merge (`gix_merge::blob::builtin_driver::text`, Myers, as git's default)
//! and gdscene's line merge (`gdscene::linemerge::merge_lines`), each against
//! `git merge-file -p` on every shared merge (`merges`, `merges-modern`,
//! `config-merges`), in every conflict style (merge, diff3, zdiff3) and with marker sizes
//! 7 and 10: how many outputs are byte-identical to git's, how many agree with git on
//! clean against conflicted, and how long each takes (the two libraries in process, the
//! fastest of three calls per merge, summed; git as one process per merge).
//!
//!     cargo run --release -p linemerge-gix -- \
//!         [--shared DIR] [--big DIR] [--diffs FILE]
//!
//! `--big DIR` adds the generated scenes of `scripts/gen-merge-scenes.py DIR` (NAME.base.tscn,
//! NAME.ours.tscn, NAME.theirs.tscn), timed once per style at marker size 7.
//! `--diffs FILE` lists every merge where gix and git differ, with how; with
//! `LINEMERGE_GIX_DUMP=DIR` both outputs of each are written there.

use gdscene::linemerge::{merge_lines, ConflictStyle, MarkerOptions};
use gix_merge::blob::builtin_driver::{self, text};
use gix_merge::blob::Resolution;
use std::num::NonZeroU8;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use text::{Conflict, Labels, Options};

/// One three-way merge.
struct Case {
    name: String,
    base: Vec<u8>,
    ours: Vec<u8>,
    theirs: Vec<u8>,
    dir: PathBuf,
}

/// `base.*`, `ours.*`, `theirs.*` of every scenario folder under `root`.
fn load(root: &Path, group: &str) -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join(group))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    let side = |d: &Path, stem: &str| -> Option<Vec<u8>> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(d)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .collect();
        names.sort();
        let p = names.into_iter().find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.split('.').next() == Some(stem) && n.contains('.'))
        })?;
        std::fs::read(p).ok()
    };
    dirs.into_iter()
        .filter_map(|d| {
            Some(Case {
                name: format!("{group}/{}", d.file_name()?.to_string_lossy()),
                base: side(&d, "base")?,
                ours: side(&d, "ours")?,
                theirs: side(&d, "theirs")?,
                dir: d,
            })
        })
        .collect()
}

/// The generated big scenes of `dir`.
fn load_big(dir: &Path) -> Vec<Case> {
    let mut kinds: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_suffix(".base.tscn")
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    kinds.sort();
    kinds
        .into_iter()
        .filter_map(|k| {
            let r = |s: &str| std::fs::read(dir.join(format!("{k}.{s}.tscn"))).ok();
            Some(Case {
                name: format!("big/{k}"),
                base: r("base")?,
                ours: r("ours")?,
                theirs: r("theirs")?,
                dir: dir.to_owned(),
            })
        })
        .collect()
}

/// The random triples of tests/linemerge_git.rs (`linemerge_random_vs_git`): the same
/// generator, seeds and sizes.
fn random_cases() -> Vec<Case> {
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n.max(1)
        }
    }
    let scene: [&[u8]; 6] = [b"a\n", b"b\n", b"c\n", b"\n", b"}\n", b"[node]\n"];
    let mixed: [&[u8]; 6] = [b"a\n", b"a\r\n", b"b\r\n", b"\n", b"\xff\n", b"c"];
    let sets: [(u64, usize, &[&[u8]], u64, u64); 3] = [
        (0x5eed_1234_abcd_0042, 200, &scene, 12, 4),
        (7, 100, &mixed, 10, 3),
        (99, 60, &scene, 40, 12),
    ];
    let mut out = Vec::new();
    for (seed, n, alphabet, base_len, edits) in sets {
        let mut rng = Lcg(seed);
        for i in 0..n {
            let pick = |rng: &mut Lcg| alphabet[rng.below(alphabet.len() as u64) as usize].to_vec();
            let len = rng.below(base_len + 1);
            let base: Vec<Vec<u8>> = (0..len).map(|_| pick(&mut rng)).collect();
            let side = |rng: &mut Lcg| -> Vec<u8> {
                let mut ls = base.clone();
                for _ in 0..rng.below(edits + 1) {
                    let pos = rng.below(ls.len() as u64 + 1) as usize;
                    match rng.below(3) {
                        0 => ls.insert(pos, pick(rng)),
                        1 if pos < ls.len() => {
                            ls.remove(pos);
                        }
                        _ if pos < ls.len() => ls[pos] = pick(rng),
                        _ => {}
                    }
                }
                ls.concat()
            };
            let ours = side(&mut rng);
            let theirs = side(&mut rng);
            out.push(Case {
                name: format!("random/{seed}/{i}"),
                base: base.concat(),
                ours,
                theirs,
                dir: PathBuf::new(),
            });
        }
    }
    out
}

/// `git merge-file -p` of the case's three texts (written to `tmp`): output, conflicted,
/// wall time of the process.
fn git(tmp: &Path, c: &Case, style: ConflictStyle, size: u8) -> (Vec<u8>, bool, Duration) {
    let p = |n: &str, d: &[u8]| {
        let path = tmp.join(n);
        std::fs::write(&path, d).expect("write a temporary file");
        path
    };
    let (b, o, t) = (
        p("base", &c.base),
        p("ours", &c.ours),
        p("theirs", &c.theirs),
    );
    let mut cmd = std::process::Command::new("git");
    cmd.args(["merge-file", "-p"]);
    match style {
        ConflictStyle::Merge => {}
        ConflictStyle::Diff3 => {
            cmd.arg("--diff3");
        }
        ConflictStyle::ZDiff3 => {
            cmd.arg("--zdiff3");
        }
    }
    cmd.arg(format!("--marker-size={size}"));
    cmd.args(["-L", "ours", "-L", "base", "-L", "theirs"])
        .arg(o)
        .arg(b)
        .arg(t);
    let start = Instant::now();
    let out = cmd.output().expect("run git merge-file");
    let took = start.elapsed();
    let code = out.status.code().expect("git merge-file exit code");
    assert!(
        (0..128).contains(&code),
        "git merge-file failed on {}",
        c.name
    );
    (out.stdout, code > 0, took)
}

/// gdscene's line merge: output, conflicted.
fn ours(c: &Case, style: ConflictStyle, size: u8) -> (Vec<u8>, bool) {
    let opts = MarkerOptions {
        marker_size: usize::from(size),
        style,
        ..MarkerOptions::default()
    };
    let m = merge_lines(&c.base, &c.ours, &c.theirs, &opts);
    (m.text, m.conflicts > 0)
}

/// gix-merge's text merge, Myers: output, conflicted.
fn gix(c: &Case, style: ConflictStyle, size: u8) -> (Vec<u8>, bool) {
    let style = match style {
        ConflictStyle::Merge => text::ConflictStyle::Merge,
        ConflictStyle::Diff3 => text::ConflictStyle::Diff3,
        ConflictStyle::ZDiff3 => text::ConflictStyle::ZealousDiff3,
    };
    let conflict = Conflict::Keep {
        style,
        marker_size: NonZeroU8::new(size).expect("marker size > 0"),
    };
    let opts = Options {
        diff_algorithm: imara_diff::Algorithm::Myers,
        conflict,
    };
    let labels = Labels {
        ancestor: Some("base".into()),
        current: Some("ours".into()),
        other: Some("theirs".into()),
    };
    let mut input = imara_diff::InternedInput::default();
    let mut out = Vec::new();
    let r = builtin_driver::text(
        &mut out, &mut input, labels, &c.ours, &c.base, &c.theirs, opts,
    );
    (out, r == Resolution::Conflict)
}

/// The fastest of `n` calls of `f`, and its result.
fn fastest<T>(n: usize, mut f: impl FnMut() -> T) -> (T, Duration) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..n {
        let start = Instant::now();
        let r = std::hint::black_box(f());
        best = best.min(start.elapsed());
        last = Some(r);
    }
    (last.expect("n > 0"), best)
}

/// How gix's output differs from git's, in a few words.
fn how(git: &(Vec<u8>, bool, Duration), gix: &(Vec<u8>, bool)) -> String {
    let kind = match (git.1, gix.1) {
        (false, false) => "both clean, different text",
        (true, true) => "both conflict, different text",
        (false, true) => "git clean, gix conflicts",
        (true, false) => "git conflicts, gix clean",
    };
    let (a, b) = (&git.0, &gix.0);
    let line = a
        .split(|&c| c == b'\n')
        .zip(b.split(|&c| c == b'\n'))
        .position(|(x, y)| x != y);
    let first = line.map_or_else(
        || "one is a prefix of the other".to_owned(),
        |l| format!("first difference at line {}", l + 1),
    );
    let markers = |t: &[u8]| {
        t.split(|&c| c == b'\n')
            .filter(|l| l.starts_with(b"<<<<<<<"))
            .count()
    };
    format!(
        "{kind}; {first}; {} bytes vs {}; {} vs {} conflict blocks",
        a.len(),
        b.len(),
        markers(a),
        markers(b)
    )
}

#[derive(Default)]
struct Row {
    n: usize,
    ours_same: usize,
    gix_same: usize,
    ours_verdict: usize,
    gix_verdict: usize,
    t_git: Duration,
    t_ours: Duration,
    t_gix: Duration,
}

const STYLES: [(&str, ConflictStyle); 3] = [
    ("merge", ConflictStyle::Merge),
    ("diff3", ConflictStyle::Diff3),
    ("zdiff3", ConflictStyle::ZDiff3),
];

/// One row per style and marker size: identical outputs, agreeing verdicts, times.
fn table(cases: &[Case], sizes: &[u8], tmp: &Path, diffs: &mut Vec<String>) {
    println!("| style | marker size | merges | gdscene = git | gix = git | gdscene clean/conflict as git | gix clean/conflict as git | git (processes) | gdscene | gix |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (sname, style) in STYLES {
        for &size in sizes {
            let mut row = Row::default();
            for c in cases {
                let g = git(tmp, c, style, size);
                let (o, to) = fastest(3, || ours(c, style, size));
                let (x, tx) = fastest(3, || gix(c, style, size));
                row.n += 1;
                row.ours_same += usize::from(o.0 == g.0);
                row.gix_same += usize::from(x.0 == g.0);
                row.ours_verdict += usize::from(o.1 == g.1);
                row.gix_verdict += usize::from(x.1 == g.1);
                row.t_git += g.2;
                row.t_ours += to;
                row.t_gix += tx;
                if x.0 != g.0 {
                    if let Some(dir) = std::env::var_os("LINEMERGE_GIX_DUMP") {
                        let stem = PathBuf::from(dir)
                            .join(format!("{sname}-{size}-{}", c.name.replace('/', "__")));
                        std::fs::write(stem.with_extension("git"), &g.0).expect("dump");
                        std::fs::write(stem.with_extension("gix"), &x.0).expect("dump");
                    }
                    diffs.push(format!(
                        "{sname} {size} {} ({}): {}",
                        c.name,
                        c.dir.display(),
                        how(&g, &x)
                    ));
                }
                if o.0 != g.0 {
                    diffs.push(format!(
                        "GDSCENE {sname} {size} {}: {}",
                        c.name,
                        how(&g, &(o.0.clone(), o.1))
                    ));
                }
            }
            let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
            println!(
                "| {sname} | {size} | {} | {} | {} | {} | {} | {} | {} | {} |",
                row.n,
                row.ours_same,
                row.gix_same,
                row.ours_verdict,
                row.gix_verdict,
                ms(row.t_git),
                ms(row.t_ours),
                ms(row.t_gix)
            );
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut shared = PathBuf::from("../shared");
    let (mut big, mut diffs_to) = (None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--shared" => shared = PathBuf::from(args.next().expect("--shared DIR")),
            "--big" => big = Some(PathBuf::from(args.next().expect("--big DIR"))),
            "--diffs" => diffs_to = Some(PathBuf::from(args.next().expect("--diffs FILE"))),
            other => panic!("unknown argument {other}"),
        }
    }
    let mut cases: Vec<Case> = ["merges", "merges-modern", "config-merges"]
        .iter()
        .flat_map(|g| load(&shared, g))
        .collect();
    assert!(
        !cases.is_empty(),
        "no shared merges under {}",
        shared.display()
    );
    let n_shared = cases.len();
    if let Some(dir) = &big {
        cases.extend(load_big(dir));
    }
    let tmp = tempfile::tempdir().expect("temporary folder");
    let git_version = std::process::Command::new("git")
        .arg("--version")
        .output()
        .expect("git");
    println!(
        "{} shared merges; {}",
        n_shared,
        String::from_utf8_lossy(&git_version.stdout).trim()
    );
    let mut diffs = Vec::new();
    let styles = STYLES;
    table(&cases[..n_shared], &[7, 10], tmp.path(), &mut diffs);
    let random = random_cases();
    println!();
    println!(
        "{} random triples (the generator of tests/linemerge_git.rs):",
        random.len()
    );
    table(&random, &[7], tmp.path(), &mut diffs);
    for c in &cases[n_shared..] {
        for (sname, style) in styles {
            let g = git(tmp.path(), c, style, 7);
            let (o, to) = fastest(1, || ours(c, style, 7));
            let (x, tx) = fastest(1, || gix(c, style, 7));
            println!(
                "{} {sname}: {} MB; git {:.2} s (process), gdscene {:.2} s ({}), gix {:.2} s ({})",
                c.name,
                c.base.len() / 1_000_000,
                g.2.as_secs_f64(),
                to.as_secs_f64(),
                if o.0 == g.0 { "= git" } else { "differs" },
                tx.as_secs_f64(),
                if x.0 == g.0 { "= git" } else { "differs" },
            );
        }
    }
    if let Some(p) = diffs_to {
        std::fs::write(&p, diffs.join("\n") + "\n").expect("write --diffs");
        println!("{} differences listed in {}", diffs.len(), p.display());
    }
}
