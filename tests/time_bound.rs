//! The time bound of `diff`, `review` and `textconv` (issue 29.10), as `merge
//! --timeout` is merge's: `--timeout SECS` or `TSCN_MERGE_TIMEOUT`, and past it the plain
//! fallback: the line diff, the file as it is, a file listed as not diffed.

mod common;

use common::{stderr, stdout, TempRepo};

const OLD: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\nspeed = 1\n";
const NEW: &str = "[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\nspeed = 2\n";

#[test]
fn diff_past_its_time_shows_the_line_diff_with_a_note() {
    let repo = TempRepo::new();
    repo.write("a.tscn", OLD);
    repo.write("b.tscn", NEW);
    let out = repo.run_bin(["diff", "--timeout", "0", "a.tscn", "b.tscn"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("b.tscn --- Godot scene\nnote: semantic diff unavailable (--timeout 0"),
        "{text}"
    );
    assert!(text.contains("-speed = 1\n+speed = 2\n"), "{text}");
    let same = repo.run_bin(["diff", "--timeout", "0", "a.tscn", "a.tscn"]);
    assert_eq!(same.status.code(), Some(0));
    let json = repo.run_bin([
        "diff",
        "--timeout",
        "0",
        "--format",
        "json",
        "a.tscn",
        "b.tscn",
    ]);
    assert_eq!(json.status.code(), Some(2));
    assert!(stdout(&json).is_empty());
    assert!(
        stderr(&json).contains("no JSON written"),
        "{}",
        stderr(&json)
    );
    // The environment sets the bound for calls that cannot take an option (git's).
    let env = repo
        .command(common::bin())
        .args([
            "diff",
            "--git-external",
            "a.tscn",
            "a.tscn",
            "0",
            "100644",
            "b.tscn",
            "0",
            "100644",
        ])
        .env("TSCN_MERGE_TIMEOUT", "0")
        .output()
        .unwrap();
    assert_eq!(env.status.code(), Some(0), "{}", stderr(&env));
    let text = stdout(&env);
    assert!(
        text.contains("semantic diff unavailable") && text.contains("+speed = 2"),
        "{text}"
    );
    // Within the default bound the semantic diff is shown.
    let normal = repo.run_bin(["diff", "a.tscn", "b.tscn"]);
    assert!(
        stdout(&normal).contains("~ speed: 1 -> 2"),
        "{}",
        stdout(&normal)
    );
}

#[test]
fn textconv_past_its_time_prints_the_file_as_it_is() {
    let repo = TempRepo::new();
    // Big enough that parsing alone takes far more than a millisecond.
    let mut big = String::from("[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n");
    for i in 0..60_000 {
        big.push_str(&format!(
            "\n[node name=\"N{i}\" type=\"Node2D\" parent=\".\"]\nposition = Vector2({i}, 1.50000)\n"
        ));
    }
    repo.write("big.tscn", &big);
    let out = repo.run_bin(["textconv", "--timeout", "0.001", "big.tscn"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, big.as_bytes());
    assert!(
        stderr(&out).contains("projection unavailable (it took longer than 0.001 s"),
        "{}",
        stderr(&out)
    );
    let env = repo
        .command(common::bin())
        .args(["textconv", "big.tscn"])
        .env("TSCN_MERGE_TIMEOUT", "0")
        .output()
        .unwrap();
    assert_eq!(env.stdout, big.as_bytes());
    let projected = repo.run_bin(["textconv", "big.tscn"]);
    assert_ne!(
        projected.stdout,
        big.as_bytes(),
        "the projection drops the float spelling"
    );
}

#[test]
fn review_past_its_time_lists_the_file_as_not_diffed() {
    let repo = TempRepo::new();
    repo.write("a.tscn", OLD);
    repo.commit_all("one");
    repo.write("a.tscn", NEW);
    repo.commit_all("two");
    let out = repo.run_bin(["review", "--timeout", "0", "HEAD~1..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("a.tscn"), "{md}");
    assert!(
        md.contains("semantic diff unavailable (--timeout 0"),
        "{md}"
    );
    assert!(!md.contains("speed"), "{md}");
    let normal = repo.run_bin(["review", "HEAD~1..HEAD"]);
    assert!(stdout(&normal).contains("speed"), "{}", stdout(&normal));
}
