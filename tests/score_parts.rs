//! `scripts/modern-score.sh` on crafted merges: issue 30's "resolvable" at the level of
//! parts (tile cells, SpriteFrames frames), the root keyed as the root whatever its
//! `unique_id`, and a result that drops one side's part called losing. Needs `bash` and
//! `python3` (as the script does); skipped where either is missing.

mod common;

use std::path::Path;
use std::process::Command;

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn cells(list: &[(i16, i16, u16)]) -> String {
    let mut b = vec![0u8, 0];
    for &(x, y, atlas) in list {
        for v in [x as u16, y as u16, 0, atlas, 0, 0] {
            b.extend(v.to_le_bytes());
        }
    }
    let bytes: Vec<String> = b.iter().map(|v| v.to_string()).collect();
    format!(
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"L\" type=\"TileMapLayer\" parent=\".\"]\ntile_map_data = PackedByteArray({})\n",
        bytes.join(", ")
    )
}

fn frames(durations: &[&str]) -> String {
    let f: Vec<String> = durations
        .iter()
        .map(|d| format!("{{\n\"duration\": {d},\n\"texture\": null\n}}"))
        .collect();
    format!(
        "[gd_resource type=\"SpriteFrames\" format=3]\n\n[resource]\nanimations = [{{\n\"frames\": [{}],\n\"loop\": true,\n\"name\": &\"default\",\n\"speed\": 5.0\n}}]\n",
        f.join(", ")
    )
}

fn root(id: u32, props: &str) -> String {
    format!("[gd_scene format=3]\n\n[node name=\"Player\" type=\"CharacterBody2D\" unique_id={id}]\n{props}\n[node name=\"Sprite\" type=\"Sprite2D\" parent=\".\" unique_id=7]\n")
}

/// A shared folder with `merges-modern/` holding `cases` (id, ext, base, ours, theirs).
fn shared(dir: &Path, cases: &[(&str, &str, String, String, String)]) {
    let set = dir.join("merges-modern");
    let mut summary = String::from("id\tgit_conflicts\n");
    for (id, ext, b, o, t) in cases {
        let d = set.join(id);
        std::fs::create_dir_all(&d).unwrap();
        for (side, text) in [("base", b), ("ours", o), ("theirs", t), ("git_diff3", b)] {
            std::fs::write(d.join(format!("{side}.{ext}")), text).unwrap();
        }
        summary.push_str(&format!("{id}\t1\n"));
    }
    std::fs::write(set.join("SUMMARY.tsv"), summary).unwrap();
}

fn score(dir: &Path, tool: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/modern-score.sh");
    let out = Command::new("bash")
        .arg(script)
        .args(["--list", "--why"])
        .env("TSCN_SHARED", dir)
        .env("REPLAY_TOOL", tool)
        .env("SCORE_JOBS", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn parts_and_the_root_decide_what_is_resolvable_and_sound() {
    if !cfg!(unix) || !have("python3") || !have("bash") {
        eprintln!("skipped: needs bash and python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base_cells = cells(&[(0, 0, 1), (1, 0, 1)]);
    shared(
        dir.path(),
        &[
            // Different cells on each side: resolvable, and the merge keeps both.
            (
                "cells",
                "tscn",
                base_cells.clone(),
                cells(&[(0, 0, 2), (1, 0, 1)]),
                cells(&[(0, 0, 1), (1, 0, 3)]),
            ),
            // One cell changed differently on both sides: a true conflict.
            (
                "clash",
                "tscn",
                base_cells,
                cells(&[(0, 0, 2), (1, 0, 1)]),
                cells(&[(0, 0, 3), (1, 0, 1)]),
            ),
            // Frames appended on both sides: a sequence merge, resolvable.
            (
                "frames",
                "tres",
                frames(&["1.0"]),
                frames(&["1.0", "2.0"]),
                frames(&["1.0", "3.0"]),
            ),
            // Theirs gave the root a new unique_id and removed `speed`; ours added
            // `collision_mask`: the root is the root, nothing is removed and changed.
            (
                "root",
                "tscn",
                root(1, "speed = 5.0\n"),
                root(1, "speed = 5.0\ncollision_mask = 3\n"),
                root(2, ""),
            ),
        ],
    );
    let text = score(dir.path(), &common::bin());
    assert!(
        text.contains("  git conflicts 4: resolvable 3, of those sound 3, losing 0, broken 0, still conflicted 0"),
        "{text}"
    );
    assert!(text.contains("('cell', (0, 0))"), "{text}");
    assert!(
        text.contains("per key (stricter) git conflicts 4: resolvable 1,"),
        "{text}"
    );
    // A "merge" that writes ours: theirs' cell and frame are lost.
    let fake = dir.path().join("ours-tool.sh");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = merge ]; then cp \"$6\" \"$4\"; exit 0; fi\nexec '{}' \"$@\"\n",
            common::bin().display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let text = score(dir.path(), &fake);
    assert!(
        text.contains("resolvable:losing\tcells\tnode ('L',) prop:tile_map_data ('cell', (1, 0))"),
        "{text}"
    );
    assert!(text.contains("resolvable:losing\tframes"), "{text}");
    assert!(text.contains("resolvable:losing\troot"), "{text}");
}
