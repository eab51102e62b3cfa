//! The real engine as a judge: every `format=2` scenario of `../shared/merges` whose
//! structural merge is clean must give a merged file that Godot 3 loads wherever it
//! loads the base. Uses `scripts/godot3-check.sh` (Debian: `apt-get install -y
//! godot3-server`); skipped, with a message, when no Godot 3 binary is found.

mod common;

use gdscene::merge::{merge, MergeOptions, Method};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The shared folder, when it holds what these tests read.
fn shared() -> Option<PathBuf> {
    common::shared_dir().filter(|p| p.join("merges/SUMMARY.tsv").exists())
}

/// `$GODOT3`, else the first of godot3-server, godot3 on PATH.
fn godot3() -> Option<String> {
    let env = std::env::var_os("GODOT3")
        .filter(|g| !g.is_empty())
        .map(|g| g.to_string_lossy().into_owned());
    let names: Vec<String> = match env {
        Some(g) => vec![g],
        None => vec!["godot3-server".into(), "godot3".into()],
    };
    names.into_iter().find_map(|g| {
        let ok = Command::new("sh")
            .args(["-c", "command -v \"$0\"", &g])
            .output()
            .ok()?
            .status
            .success();
        ok.then_some(g)
    })
}

fn side(dir: &Path, stem: &str) -> Option<(Vec<u8>, String)> {
    ["tscn", "tres", "escn"].into_iter().find_map(|ext| {
        std::fs::read(dir.join(format!("{stem}.{ext}")))
            .ok()
            .map(|b| (b, ext.to_string()))
    })
}

/// Load files with the engine; a file the run never reported (the engine crashed on
/// it) is a failure, and the rest are retried in a new run.
fn load_all(godot: &str, files: &[PathBuf]) -> HashMap<PathBuf, bool> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/godot3-check.sh");
    let mut result = HashMap::new();
    let mut todo: Vec<PathBuf> = files.to_vec();
    while !todo.is_empty() {
        let out = Command::new("bash")
            .arg(&script)
            .args(&todo)
            .env("GODOT3", godot)
            .output()
            .expect("running godot3-check.sh");
        let text = String::from_utf8_lossy(&out.stdout);
        for l in text.lines() {
            if let Some(p) = l.strip_prefix("OK ") {
                result.insert(PathBuf::from(p), true);
            } else if let Some(p) = l.strip_prefix("FAIL ") {
                result.insert(PathBuf::from(p), false);
            }
        }
        let rest: Vec<PathBuf> = todo
            .iter()
            .filter(|p| !result.contains_key(*p))
            .cloned()
            .collect();
        if let Some(first) = rest.first() {
            eprintln!(
                "godot3: no answer for {} (engine crash?): counted as not loading",
                first.display()
            );
            result.insert(first.clone(), false);
        }
        todo = rest.into_iter().skip(1).collect();
    }
    result
}

#[test]
fn clean_godot3_merges_load_where_their_base_loads() {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared not found");
        return;
    };
    let Some(godot) = godot3() else {
        eprintln!("skipped: no Godot 3 binary (apt-get install -y godot3-server, or set GODOT3); 0 scenarios checked");
        return;
    };
    let start = Instant::now();
    let summary = std::fs::read_to_string(root.join("merges/SUMMARY.tsv")).unwrap();
    let mut lines = summary.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (c_id, c_format) = (col("id"), col("format"));
    let tmp = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    let (mut format2, mut not_clean) = (0, 0);
    for l in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        if f[c_format] != "2" {
            continue;
        }
        format2 += 1;
        let id = f[c_id];
        let dir = root.join("merges").join(id);
        let (Some((b, ext)), Some((o, _)), Some((t, _))) =
            (side(&dir, "base"), side(&dir, "ours"), side(&dir, "theirs"))
        else {
            continue;
        };
        let m = merge(&b, &o, &t, &MergeOptions::default());
        if !m.is_clean() || m.method != Method::Structural {
            not_clean += 1;
            continue;
        }
        let bp = tmp.path().join(format!("{id}.base.{ext}"));
        let mp = tmp.path().join(format!("{id}.merged.{ext}"));
        std::fs::write(&bp, &b).unwrap();
        std::fs::write(&mp, &m.text).unwrap();
        pairs.push((id.to_string(), bp, mp));
    }
    let files: Vec<PathBuf> = pairs
        .iter()
        .flat_map(|(_, b, m)| [b.clone(), m.clone()])
        .collect();
    let loaded = load_all(&godot, &files);
    let (mut base_loads, mut both, mut failures) = (0, 0, Vec::new());
    for (id, b, m) in &pairs {
        let (lb, lm) = (
            loaded.get(b).copied().unwrap_or(false),
            loaded.get(m).copied().unwrap_or(false),
        );
        if lb {
            base_loads += 1;
            if lm {
                both += 1;
            } else {
                failures.push(format!(
                    "{id}: the base loads in Godot 3, the merged file does not"
                ));
            }
        }
    }
    eprintln!(
        "godot3 ({godot}): {format2} format=2 scenarios, {} merged structurally clean and checked ({not_clean} others), base loads in {base_loads}, merged loads in {both} of those; {:.1} s",
        pairs.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(!pairs.is_empty(), "no scenario was checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
