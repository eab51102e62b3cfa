//! The example CI recipes (`examples/ci/`) keep one comment of their own up to date
//! (issue 36, item 12): the comment is found by its marker AND its author, so anyone
//! else's comment that starts with the marker is never edited. The recipes' own `upsert`
//! shell functions run here against stubs of `gh` and `curl` that answer with fixture
//! comments (the filters are applied by the real `jq`); SKIP when bash or jq is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn example(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/ci")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The shell function `name() {` ... `}` of a YAML block, dedented.
fn shell_function(yaml: &str, name: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("{name}() {{")))
        .unwrap_or_else(|| panic!("no {name}() in the recipe"));
    let indent = lines[start].len() - lines[start].trim_start().len();
    let end = (start + 1..lines.len())
        .find(|&i| {
            lines[i].len() > indent
                && lines[i][..indent].trim().is_empty()
                && &lines[i][indent..] == "}"
        })
        .unwrap_or_else(|| panic!("{name}() does not end"));
    lines[start..=end]
        .iter()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The workflow-level `env:` of a GitHub workflow (top-level `KEY: "value"` lines).
fn top_env(yaml: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in yaml.lines() {
        if !l.starts_with(' ') {
            inside = l == "env:";
            continue;
        }
        if let (true, Some((k, v))) = (inside, l.trim().split_once(": ")) {
            out.push((k.to_string(), v.trim_matches('"').to_string()));
        }
    }
    out
}

fn tools_missing() -> bool {
    let missing = |t: &str| {
        Command::new(t)
            .arg("--version")
            .output()
            .map_or(true, |o| !o.status.success())
    };
    if missing("bash") || missing("jq") {
        eprintln!("SKIP: bash and jq are needed to run the recipes' shell functions");
        return true;
    }
    false
}

/// A folder with an executable stub `name` holding `script`.
fn stub(dir: &Path, name: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{script}")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Run `script` with bash, the stubs first on PATH; the stubs' log.
fn run(dir: &Path, script: &str, env: &[(String, String)]) -> String {
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("STUB_LOG", dir.join("log"))
        .env("FIXTURE", dir.join("fixture.json"))
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("log")).unwrap_or_default()
}

fn scratch() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().to_path_buf();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(
        dir.join("merge.md"),
        "<!-- tscn-merge merge -->\nnew text\n",
    )
    .unwrap();
    (t, dir)
}

const MARKER: &str = "<!-- tscn-merge merge -->";

#[test]
fn the_github_recipe_edits_only_its_own_comment() {
    if tools_missing() {
        return;
    }
    let yaml = example("github-actions.yml");
    let upsert = shell_function(&yaml, "upsert");
    let mut env = top_env(&yaml);
    env.push(("GITHUB_REPOSITORY".into(), "team/game".into()));
    env.push(("PR".into(), "7".into()));
    for (comments, want) in [
        (
            format!(
                r#"[{{"id": 1, "user": {{"login": "mallory"}}, "body": "{MARKER}\nmine now"}},
                {{"id": 2, "user": {{"login": "github-actions[bot]"}}, "body": "{MARKER}\nold"}}]"#
            ),
            "-X PATCH repos/team/game/issues/comments/2 ",
        ),
        (
            format!(
                r#"[{{"id": 1, "user": {{"login": "mallory"}}, "body": "{MARKER}\nmine now"}}]"#
            ),
            "-X POST repos/team/game/issues/7/comments ",
        ),
    ] {
        let (_t, dir) = scratch();
        std::fs::write(dir.join("fixture.json"), comments).unwrap();
        stub(
            &dir.join("bin"),
            "gh",
            r#"echo "$*" >> "$STUB_LOG"
prev=""; for a in "$@"; do [ "$prev" = "--jq" ] && jq -r "$a" "$FIXTURE"; prev="$a"; done
exit 0
"#,
        );
        let log = run(
            &dir,
            &format!("{upsert}\nupsert \"$MERGE_MARKER\" merge.md\n"),
            &env,
        );
        let writes: Vec<&str> = log.lines().filter(|l| l.contains("-X ")).collect();
        assert_eq!(writes.len(), 1, "{log}");
        assert!(writes[0].starts_with(&format!("api {want}")), "{log}");
    }
}

#[test]
fn the_gitlab_recipe_edits_only_its_own_note() {
    if tools_missing() {
        return;
    }
    let yaml = example("gitlab-ci.yml");
    let upsert = shell_function(&yaml, "upsert");
    let env: Vec<(String, String)> = [
        ("TSCN_MERGE_TOKEN", "secret"),
        ("CI_API_V4_URL", "https://gitlab.example/api/v4"),
        ("CI_PROJECT_ID", "5"),
        ("CI_MERGE_REQUEST_IID", "3"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let notes = "https://gitlab.example/api/v4/projects/5/merge_requests/3/notes";
    for (fixture, want) in [
        (
            format!(
                r#"[{{"id": 1, "author": {{"id": 7}}, "body": "{MARKER}\nmine now"}},
                {{"id": 2, "author": {{"id": 42}}, "body": "{MARKER}\nold"}}]"#
            ),
            format!("PUT {notes}/2"),
        ),
        (
            format!(r#"[{{"id": 1, "author": {{"id": 7}}, "body": "{MARKER}\nmine now"}}]"#),
            format!("POST {notes}"),
        ),
    ] {
        let (_t, dir) = scratch();
        std::fs::write(dir.join("fixture.json"), fixture).unwrap();
        // The token's own user is 42.
        stub(
            &dir.join("bin"),
            "curl",
            r#"method=GET; url=""; prev=""
for a in "$@"; do
  [ "$prev" = "-X" ] && method="$a"
  case "$a" in http*) url="$a" ;; esac
  prev="$a"
done
case "$method:$url" in
  GET:*/user) echo '{"id": 42, "username": "project_5_bot"}' ;;
  GET:*) cat "$FIXTURE" ;;
  *) echo "$method $url" >> "$STUB_LOG" ;;
esac
"#,
        );
        let log = run(
            &dir,
            &format!("{upsert}\nupsert '{MARKER}' merge.md\n"),
            &env,
        );
        assert_eq!(log.trim(), want, "{log}");
    }
}

/// The shell block (`run: |` or `- |`) of a YAML file that holds the line containing
/// `needle`, dedented.
fn block_with(yaml: &str, needle: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let at = lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle} in the recipe"));
    let head = (0..at)
        .rev()
        .find(|&i| lines[i].trim_end().ends_with('|') && indent(lines[i]) < indent(lines[at]))
        .unwrap_or_else(|| panic!("{needle} is in no block"));
    let body: Vec<&str> = lines[head + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > indent(lines[head]))
        .copied()
        .collect();
    let cut = body.first().map_or(0, |l| indent(l));
    body.iter()
        .map(|l| l.get(cut..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of a Markdown text outside its fenced code blocks (a fence closes only at a
/// line of at least as many backticks, as GitHub and GitLab read it).
fn outside_fences(md: &str) -> Vec<&str> {
    let mut open: Option<usize> = None;
    let mut out = Vec::new();
    for l in md.lines() {
        let ticks = l.trim_start().chars().take_while(|&c| c == '`').count();
        match open {
            Some(n) if ticks >= n && l.trim().chars().all(|c| c == '`') => open = None,
            Some(_) => {}
            None if ticks >= 3 => open = Some(ticks),
            None => out.push(l),
        }
    }
    out
}

/// Run a recipe's block with a stub `tscn-merge` (`ci check` exits 1, `ci merge` prints
/// its commit line naming the base and exits 0) and a stub `git`; the `merge.md` it wrote.
fn posted(block: &str, env: &[(&str, &str)]) -> String {
    let (_t, dir) = scratch();
    std::fs::remove_file(dir.join("merge.md")).unwrap();
    std::fs::write(dir.join("check.md"), "### Scene check\n```\nok\n```\n").unwrap();
    stub(
        &dir.join("bin"),
        "tscn-merge",
        r#"case "$1 $2" in
  "ci check") echo "1 scene would conflict"; exit 1 ;;
  "ci merge") echo "Committed 0123abc: Merge $3 into feature"; exit 0 ;;
  *) echo "review" ;;
esac
"#,
    );
    stub(&dir.join("bin"), "git", "exit 0\n");
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(block)
        .current_dir(&dir)
        .env("PATH", path)
        .env("MERGE_MARKER", MARKER)
        .env("REVIEW_MARKER", "<!-- tscn-merge review -->")
        .env("GITHUB_STEP_SUMMARY", dir.join("summary"))
        .env("GITHUB_OUTPUT", dir.join("output"))
        .envs(env.iter().copied())
        .output()
        .unwrap();
    std::fs::read_to_string(dir.join("merge.md")).unwrap_or_else(|e| {
        panic!(
            "no merge.md ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A base branch's name is the repository's (git allows backticks, `<`, `>` and `@` in
/// one): every comment a recipe posts shows it only inside a fence, never in the shell's
/// own Markdown, where a backtick would end the code span and the rest render as HTML,
/// a link or an @mention.
#[test]
fn the_recipes_post_the_base_branch_only_fenced() {
    if tools_missing() {
        return;
    }
    let hostile = "x`<img src=x onerror=alert(1)>`@team";
    let github = example("github-actions.yml");
    let gitlab = example("gitlab-ci.yml");
    let fenced = shell_function(&gitlab, "fenced");
    let cases = [
        (
            "github check job",
            posted(
                &block_with(
                    &github,
                    r#"tscn-merge ci merge "origin/$BASE_REF" > merge.txt"#,
                ),
                &[("BASE_REF", hostile)],
            ),
        ),
        (
            "github merge job, merge",
            posted(
                &block_with(&github, r#"tscn-merge ci merge "origin/$BASE""#),
                &[
                    ("ACTION", "merge"),
                    ("BASE", hostile),
                    ("REASON", "labelled"),
                ],
            ),
        ),
        (
            "github merge job, report",
            posted(
                &block_with(&github, r#"tscn-merge ci merge "origin/$BASE""#),
                &[
                    ("ACTION", "report"),
                    ("BASE", hostile),
                    ("REASON", "labelled"),
                ],
            ),
        ),
        (
            "gitlab scene-check",
            posted(
                &format!(
                    "{fenced}\nupsert() {{ :; }}\n{}",
                    block_with(&gitlab, r#"tscn-merge ci check "$base""#)
                ),
                &[("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", hostile)],
            ),
        ),
        (
            "gitlab scene-merge",
            posted(
                &format!(
                    "{fenced}\nupsert() {{ :; }}\n{}",
                    block_with(&gitlab, "--push > merge.txt")
                ),
                &[("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", hostile)],
            ),
        ),
    ];
    for (what, md) in cases {
        assert!(md.contains(MARKER), "{what}: {md}");
        for l in outside_fences(&md) {
            assert!(
                !l.contains("<img") && !l.contains("@team"),
                "{what}: the base's name in the recipe's own Markdown: {l}\n{md}"
            );
        }
    }
}
