//! The line merge (`gdscene::linemerge`, the fallback of every structural merge) against
//! `git merge-file` itself: the shared real merges in all three conflict styles, and
//! random triples. A black-box comparison, so it runs git and lives here rather than in
//! the library, which starts no process.

mod common;

use common::shared_dir;
use gdscene::linemerge::*;
use similar::Algorithm;
use std::path::{Path, PathBuf};

// ----------------------------------------------------------- git comparisons

fn git_available() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run `git merge-file -p` with the given style flag; returns (output, conflicts).
fn git_merge_file(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    style: ConflictStyle,
) -> Option<(Vec<u8>, usize)> {
    let dir = tempfile::tempdir().ok()?;
    let p = |n: &str, d: &[u8]| -> Option<PathBuf> {
        let path = dir.path().join(n);
        std::fs::write(&path, d).ok()?;
        Some(path)
    };
    let (b, o, t) = (p("base", base)?, p("ours", ours)?, p("theirs", theirs)?);
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
    cmd.args(["-L", "ours", "-L", "base", "-L", "theirs"])
        .arg(&o)
        .arg(&b)
        .arg(&t);
    let out = cmd.output().ok()?;
    let code = out.status.code()?;
    if code < 0 {
        return None;
    }
    Some((out.stdout, code as usize))
}

struct Case {
    name: String,
    base: Vec<u8>,
    ours: Vec<u8>,
    theirs: Vec<u8>,
    git_diff3: Vec<u8>,
}

fn load_cases(root: &Path) -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("merges"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    let mut cases = Vec::new();
    for d in dirs {
        let find = |stem: &str| -> Option<Vec<u8>> {
            let rd = std::fs::read_dir(&d).ok()?;
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name == stem || name.starts_with(&format!("{stem}.")) {
                    return std::fs::read(e.path()).ok();
                }
            }
            None
        };
        if let (Some(base), Some(ours), Some(theirs), Some(git_diff3)) = (
            find("base"),
            find("ours"),
            find("theirs"),
            find("git_diff3"),
        ) {
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            cases.push(Case {
                name,
                base,
                ours,
                theirs,
                git_diff3,
            });
        }
    }
    cases
}

fn count_markers(t: &[u8]) -> usize {
    t.split(|&c| c == b'\n')
        .filter(|l| l.starts_with(b"<<<<<<< "))
        .count()
}

/// The 152 real merges: every git-clean merge must be clean and identical,
/// and we report how many conflicting ones are byte-identical to git.
#[test]
fn linemerge_real_merges_match_git_diff3() {
    let Some(root) = shared_dir() else {
        eprintln!("SKIP: shared merges folder not found (set TSCN_SHARED)");
        return;
    };
    let cases = load_cases(&root);
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    let opts = MarkerOptions::default();
    let (mut clean, mut clean_ok, mut confl, mut confl_ok) = (0, 0, 0, 0);
    let (mut ours_conf, mut git_conf, mut higher) = (0, 0, 0);
    let mut failures = Vec::new();
    for c in &cases {
        let r = merge_lines(&c.base, &c.ours, &c.theirs, &opts);
        let git_n = count_markers(&c.git_diff3);
        let same = r.text == c.git_diff3;
        if git_n == 0 {
            clean += 1;
            if same && r.conflicts == 0 {
                clean_ok += 1;
            } else {
                failures.push(format!(
                    "CLEAN MISMATCH {} (ours {} conflicts)",
                    c.name, r.conflicts
                ));
            }
        } else {
            confl += 1;
            ours_conf += r.conflicts;
            git_conf += git_n;
            if r.conflicts > git_n {
                higher += 1;
            }
            if same {
                confl_ok += 1;
            } else {
                eprintln!(
                    "conflict mismatch: {} (ours {} vs git {} conflicts)",
                    c.name, r.conflicts, git_n
                );
            }
        }
    }
    eprintln!(
        "diff3 vs stored git: clean {clean_ok}/{clean} identical; conflicting {confl_ok}/{confl} identical; \
         conflict blocks ours {ours_conf} vs git {git_conf}; cases with more conflicts than git: {higher}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(clean_ok, clean);
}

/// Same inputs, every style, against the installed git (skipped without git).
#[test]
fn linemerge_real_merges_match_git_all_styles() {
    let Some(root) = shared_dir() else {
        eprintln!("SKIP: shared merges folder not found (set TSCN_SHARED)");
        return;
    };
    if !git_available() {
        eprintln!("SKIP: git not installed");
        return;
    }
    let cases = load_cases(&root);
    for style in [
        ConflictStyle::Merge,
        ConflictStyle::Diff3,
        ConflictStyle::ZDiff3,
    ] {
        let opts = MarkerOptions {
            style,
            ..MarkerOptions::default()
        };
        let (mut ok, mut clean, mut clean_ok, mut higher) = (0, 0, 0, 0);
        let mut bad_clean = Vec::new();
        for c in &cases {
            let Some((g, gn)) = git_merge_file(&c.base, &c.ours, &c.theirs, style) else {
                continue;
            };
            let r = merge_lines(&c.base, &c.ours, &c.theirs, &opts);
            if r.text == g && r.conflicts == gn {
                ok += 1;
            }
            if gn == 0 {
                clean += 1;
                if r.text == g && r.conflicts == 0 {
                    clean_ok += 1;
                } else {
                    bad_clean.push(c.name.clone());
                }
            }
            if r.conflicts > gn {
                higher += 1;
            }
        }
        eprintln!(
            "{style:?}: identical {ok}/{} (git-clean {clean_ok}/{clean}); more conflicts than git in {higher}",
            cases.len()
        );
        assert!(
            bad_clean.is_empty(),
            "{style:?} clean mismatches: {bad_clean:?}"
        );
    }
}

/// Which `similar` algorithm reproduces git best (informational).
#[test]
#[ignore = "informational: cargo test --lib linemerge -- --ignored --nocapture"]
fn linemerge_compare_algorithms() {
    let Some(root) = shared_dir() else { return };
    let cases = load_cases(&root);
    let opts = MarkerOptions::default();
    let algs = [
        DiffAlgorithm::Git,
        DiffAlgorithm::Similar(Algorithm::Myers),
        DiffAlgorithm::Similar(Algorithm::Patience),
        DiffAlgorithm::Similar(Algorithm::Histogram),
        DiffAlgorithm::Similar(Algorithm::Lcs),
    ];
    for alg in algs {
        let ok = cases
            .iter()
            .filter(|c| {
                merge_lines_with(&c.base, &c.ours, &c.theirs, &opts, alg).text == c.git_diff3
            })
            .count();
        eprintln!("{alg:?}: {ok}/{} identical to git --diff3", cases.len());
    }
}

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

/// A random base and two sides derived from it by random line edits.
fn random_case(rng: &mut Lcg, alphabet: &[&[u8]], base_len: u64, edits: u64) -> [Vec<u8>; 3] {
    let pick = |rng: &mut Lcg| alphabet[rng.below(alphabet.len() as u64) as usize].to_vec();
    let n = rng.below(base_len + 1);
    let base: Vec<Vec<u8>> = (0..n).map(|_| pick(rng)).collect();
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
    let ours = side(rng);
    let theirs = side(rng);
    [base.concat(), ours, theirs]
}

/// Compare with the installed git on random cases; returns the mismatches.
fn random_vs_git(seed: u64, cases: usize, alphabet: &[&[u8]], base_len: u64, edits: u64) -> usize {
    let mut rng = Lcg(seed);
    let mut bad = 0;
    for _ in 0..cases {
        let [base, ours, theirs] = random_case(&mut rng, alphabet, base_len, edits);
        for style in [
            ConflictStyle::Merge,
            ConflictStyle::Diff3,
            ConflictStyle::ZDiff3,
        ] {
            let Some((g, gn)) = git_merge_file(&base, &ours, &theirs, style) else {
                continue;
            };
            let opts = MarkerOptions {
                style,
                ..MarkerOptions::default()
            };
            let r = merge_lines(&base, &ours, &theirs, &opts);
            if r.text != g || r.conflicts != gn {
                if bad < 2 && base.len() < 2000 {
                    eprintln!(
                        "{style:?} mismatch:\nbase={:?}\nours={:?}\ntheirs={:?}\ngit={:?}\nus={:?}",
                        String::from_utf8_lossy(&base),
                        String::from_utf8_lossy(&ours),
                        String::from_utf8_lossy(&theirs),
                        String::from_utf8_lossy(&g),
                        String::from_utf8_lossy(&r.text)
                    );
                }
                bad += 1;
            }
        }
    }
    bad
}

/// Random small inputs against the installed git, every style: identical output.
#[test]
fn linemerge_random_vs_git() {
    if !git_available() {
        eprintln!("SKIP: git not installed");
        return;
    }
    let scene: [&[u8]; 6] = [b"a\n", b"b\n", b"c\n", b"\n", b"}\n", b"[node]\n"];
    let mixed: [&[u8]; 6] = [b"a\n", b"a\r\n", b"b\r\n", b"\n", b"\xff\n", b"c"];
    let bad = random_vs_git(0x5eed_1234_abcd_0042, 200, &scene, 12, 4)
        + random_vs_git(7, 100, &mixed, 10, 3)
        + random_vs_git(99, 60, &scene, 40, 12);
    assert_eq!(bad, 0, "{bad} random merges differ from git");
}

/// Large inputs with many edits, so that git's cost heuristics (edit cost
/// over 256) are exercised.
#[test]
fn linemerge_large_random_vs_git() {
    if !git_available() {
        eprintln!("SKIP: git not installed");
        return;
    }
    let owned: Vec<Vec<u8>> = (0..40)
        .map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let alphabet: Vec<&[u8]> = owned.iter().map(|v| v.as_slice()).collect();
    for (len, edits) in [(600u64, 60u64), (1500, 200), (3000, 600)] {
        let bad = random_vs_git(4242, 6, &alphabet, len, edits);
        eprintln!("large random ({len} lines, up to {edits} edits a side): {bad} of 18 differ");
        assert_eq!(bad, 0, "{bad} large random merges differ from git");
    }
    // Known gap: with edit costs in the thousands (xdiff's give-up heuristics
    // dominate) some outputs still differ from git; reported, not asserted.
    let bad = random_vs_git(4242, 6, &alphabet, 3000, 1500);
    eprintln!(
        "KNOWN GAP: very heavy edits (3000 lines, up to 1500 edits a side): {bad} of 18 differ"
    );
}
