//! `ci event`: what a GitHub Actions run should do, decided from the event's JSON
//! (`$GITHUB_EVENT_PATH`) and, for a comment, the pull request's own JSON (a comment's
//! payload does not say where the head lives). A `/tscn-merge merge` comment, or the merge
//! label, by someone with write access (`--permission`, the repository permission GitHub's
//! API gives for them; without it a comment counts from the owner only) asks for `ci
//! merge --push`; a head in a fork
//! gets the report only; a push to a pull request gets `ci check`. Prints `key=value`
//! lines for `$GITHUB_OUTPUT`. [`decide`] is pure; reading the files is [`run`]'s.

use anyhow::{Context, Result};
use clap::Args;
use serde_json::Value;
use std::path::PathBuf;

/// The comment that asks for a merge (its first line, trimmed).
pub const MERGE_COMMAND: &str = "/tscn-merge merge";

/// `ci event` arguments.
#[derive(Args, Debug)]
pub struct EventArgs {
    /// The event's JSON (default: `$GITHUB_EVENT_PATH`).
    #[arg(long)]
    pub event_path: Option<PathBuf>,
    /// The event's name (default: `$GITHUB_EVENT_NAME`).
    #[arg(long)]
    pub event_name: Option<String>,
    /// The pull request's JSON (`gh api repos/OWNER/REPO/pulls/N`), for a comment.
    #[arg(long)]
    pub pull_request: Option<PathBuf>,
    /// The label that asks for a merge.
    #[arg(long, default_value = "tscn-merge")]
    pub label: String,
    /// The repository permission of whoever asked (the comment's author, the label's
    /// sender), as GitHub's API gives it (`gh api
    /// repos/OWNER/REPO/collaborators/LOGIN/permission --jq .permission`): `admin`,
    /// `maintain` or `write` may have the merge pushed; anything else may not. Without
    /// it, a comment asks for a merge only from the repository's owner (`OWNER`: GitHub's
    /// `MEMBER` and `COLLABORATOR` do not imply write access), and a label from anyone
    /// allowed to label (triage or above).
    #[arg(long)]
    pub permission: Option<String>,
}

/// What the workflow should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run `ci check` (and the review comment).
    Check,
    /// Run `ci merge --push`.
    Merge,
    /// Run `ci merge` without pushing and comment its report.
    Report,
    /// Nothing.
    Nothing,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Check => "check",
            Action::Merge => "merge",
            Action::Report => "report",
            Action::Nothing => "none",
        }
    }
}

/// The decision and the pull request it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    /// Why, in a few words.
    pub reason: String,
    /// The pull request's number.
    pub pr: Option<u64>,
    /// Its base branch.
    pub base: Option<String>,
    /// Its head branch.
    pub head: Option<String>,
    /// The repository its head is in (`owner/name`).
    pub head_repo: Option<String>,
}

impl Decision {
    fn nothing(reason: &str) -> Self {
        Decision {
            action: Action::Nothing,
            reason: reason.to_string(),
            pr: None,
            base: None,
            head: None,
            head_repo: None,
        }
    }

    /// The `key=value` lines for `$GITHUB_OUTPUT` (a value never holds a newline).
    pub fn output_lines(&self) -> String {
        let one_line = |s: &str| s.replace(['\r', '\n'], " ");
        let opt = |s: &Option<String>| s.as_deref().map(one_line).unwrap_or_default();
        format!(
            "action={}\nreason={}\npr={}\nbase={}\nhead={}\nhead_repo={}\n",
            self.action.name(),
            one_line(&self.reason),
            self.pr.map(|n| n.to_string()).unwrap_or_default(),
            opt(&self.base),
            opt(&self.head),
            opt(&self.head_repo),
        )
    }
}

/// `v[k1][k2]...` as a string.
fn text<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// Whether a comment body asks for a merge: its first non-empty line is the command.
pub fn asks_for_merge(body: &str) -> bool {
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| l == MERGE_COMMAND)
}

/// Whether a repository permission from GitHub's API allows pushing.
fn permission_writes(permission: &str) -> bool {
    matches!(
        permission.trim().to_ascii_lowercase().as_str(),
        "admin" | "maintain" | "write"
    )
}

/// Whether a comment's author may have the merge pushed: by `permission` (the API's
/// word) when given, else only the repository's owner: GitHub's `author_association`
/// `MEMBER` (of the organisation) and `COLLABORATOR` (of any permission, read or triage
/// too) say nothing of write access. `Err`: why not.
fn comment_may_merge(association: &str, permission: Option<&str>) -> Result<(), String> {
    match permission {
        Some(p) if permission_writes(p) => Ok(()),
        Some(p) => Err(format!("has no write access (permission {p})")),
        None if association == "OWNER" => Ok(()),
        None => Err(format!(
            "({association}) is not the owner, and without --permission (the API's word for the commenter) write access is unknown"
        )),
    }
}

/// The decision for a request to merge `pr` (a pull request's JSON): merge when its
/// head is in the same repository as its base and it is open, else the report only.
fn merge_or_report(pr: &Value, reason: &str) -> Decision {
    let head_repo = text(pr, &["head", "repo", "full_name"]);
    let base_repo = text(pr, &["base", "repo", "full_name"]);
    let open = text(pr, &["state"]).is_none_or(|s| s == "open");
    let (action, why) = match (head_repo, open) {
        (_, false) => (Action::Nothing, "the pull request is closed".to_string()),
        (Some(h), true) if Some(h) == base_repo => (Action::Merge, reason.to_string()),
        (Some(_), true) => (
            Action::Report,
            format!("{reason}, but the head is in a fork: report only"),
        ),
        (None, true) => (
            Action::Report,
            format!("{reason}, but the head's repository is gone: report only"),
        ),
    };
    Decision {
        action,
        reason: why,
        pr: pr.get("number").and_then(Value::as_u64),
        base: text(pr, &["base", "ref"]).map(str::to_string),
        head: text(pr, &["head", "ref"]).map(str::to_string),
        head_repo: head_repo.map(str::to_string),
    }
}

/// What to do for the event `name` with payload `event`; `pr` is the pull request's own
/// JSON where the payload lacks it (comments).
///
/// `permission` is the asker's repository permission from GitHub's API (see
/// [`EventArgs::permission`]); without it a comment counts only from the owner.
pub fn decide(
    name: &str,
    event: &Value,
    pr: Option<&Value>,
    (label, permission): (&str, Option<&str>),
) -> Decision {
    let action = text(event, &["action"]).unwrap_or("");
    match name {
        "pull_request" | "pull_request_target" => {
            let Some(pr) = event.get("pull_request") else {
                return Decision::nothing("the event has no pull request");
            };
            match action {
                "labeled" if text(event, &["label", "name"]) == Some(label) => {
                    let who = text(event, &["sender", "login"]).unwrap_or("someone");
                    match permission {
                        Some(p) if !permission_writes(p) => Decision::nothing(&format!(
                            "{who} labelled {label} but has no write access (permission {p})"
                        )),
                        _ => merge_or_report(pr, &format!("labelled {label}")),
                    }
                }
                "labeled" => Decision::nothing("another label"),
                "opened" | "synchronize" | "reopened" | "ready_for_review" => Decision {
                    action: Action::Check,
                    reason: format!("pull request {action}"),
                    ..merge_or_report(pr, "")
                },
                _ => Decision::nothing("nothing to do for this pull request event"),
            }
        }
        "issue_comment" => {
            if action != "created" {
                return Decision::nothing("the comment was not just written");
            }
            if event
                .get("issue")
                .and_then(|i| i.get("pull_request"))
                .is_none()
            {
                return Decision::nothing("a comment on an issue, not a pull request");
            }
            if !asks_for_merge(text(event, &["comment", "body"]).unwrap_or("")) {
                return Decision::nothing("the comment does not ask for a merge");
            }
            let who = text(event, &["comment", "user", "login"]).unwrap_or("someone");
            let assoc = text(event, &["comment", "author_association"]).unwrap_or("NONE");
            if let Err(why) = comment_may_merge(assoc, permission) {
                return Decision::nothing(&format!("{who} {why}"));
            }
            let number = event.pointer("/issue/number").and_then(Value::as_u64);
            match pr {
                Some(pr)
                    if number.is_some() && pr.get("number").and_then(Value::as_u64) == number =>
                {
                    merge_or_report(pr, &format!("{MERGE_COMMAND} by {who}"))
                }
                Some(_) => {
                    Decision::nothing("--pull-request is another pull request than the comment's")
                }
                None => Decision {
                    action: Action::Report,
                    reason: "pass --pull-request to know whether the head is a fork: report only"
                        .into(),
                    pr: number,
                    ..Decision::nothing("")
                },
            }
        }
        _ => Decision::nothing(&format!("the event {name} is not handled")),
    }
}

/// Read a JSON file.
fn read_json(path: &std::path::Path) -> Result<Value> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is not JSON", path.display()))
}

/// Run `ci event`: print the decision's lines; exit 0.
pub fn run(a: &EventArgs) -> Result<i32> {
    let path = a
        .event_path
        .clone()
        .or_else(|| std::env::var_os("GITHUB_EVENT_PATH").map(PathBuf::from))
        .context("no event: pass --event-path or set GITHUB_EVENT_PATH")?;
    let name = a
        .event_name
        .clone()
        .or_else(|| std::env::var("GITHUB_EVENT_NAME").ok())
        .context("no event name: pass --event-name or set GITHUB_EVENT_NAME")?;
    let event = read_json(&path)?;
    let pr = a.pull_request.as_deref().map(read_json).transpose()?;
    let d = decide(
        &name,
        &event,
        pr.as_ref(),
        (&a.label, a.permission.as_deref()),
    );
    crate::io::write_stdout(d.output_lines().as_bytes())?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pr(head_repo: &str) -> Value {
        json!({
            "number": 7,
            "state": "open",
            "base": {"ref": "main", "repo": {"full_name": "team/game"}},
            "head": {"ref": "feature/x", "repo": {"full_name": head_repo}},
        })
    }

    fn comment(body: &str, assoc: &str) -> Value {
        json!({
            "action": "created",
            "issue": {"number": 7, "pull_request": {"url": "u"}},
            "comment": {"body": body, "author_association": assoc, "user": {"login": "ana"}},
        })
    }

    #[test]
    fn a_comment_by_a_writer_merges_a_same_repository_head() {
        let p = pr("team/game");
        for perm in ["write", "maintain", "admin"] {
            let d = decide(
                "issue_comment",
                &comment("/tscn-merge merge\nplease", "MEMBER"),
                Some(&p),
                ("tscn-merge", Some(perm)),
            );
            assert_eq!(d.action, Action::Merge, "{perm}: {d:?}");
            assert_eq!(
                (d.pr, d.head.as_deref(), d.base.as_deref()),
                (Some(7), Some("feature/x"), Some("main"))
            );
        }
        // The owner without the API's word.
        let d = decide(
            "issue_comment",
            &comment(" /tscn-merge merge ", "OWNER"),
            Some(&p),
            ("tscn-merge", None),
        );
        assert_eq!(d.action, Action::Merge, "{d:?}");
    }

    #[test]
    fn member_or_collaborator_is_not_write_access() {
        let p = pr("team/game");
        // GitHub's MEMBER (of the organisation) and COLLABORATOR (read or triage too)
        // say nothing of write access: without the API's permission, no merge.
        for assoc in ["MEMBER", "COLLABORATOR"] {
            let d = decide(
                "issue_comment",
                &comment("/tscn-merge merge", assoc),
                Some(&p),
                ("tscn-merge", None),
            );
            assert_eq!(d.action, Action::Nothing, "{assoc}: {d:?}");
            assert!(d.reason.contains("--permission"), "{d:?}");
            for perm in ["read", "triage", "none"] {
                let d = decide(
                    "issue_comment",
                    &comment("/tscn-merge merge", assoc),
                    Some(&p),
                    ("tscn-merge", Some(perm)),
                );
                assert_eq!(d.action, Action::Nothing, "{assoc} {perm}: {d:?}");
                assert!(d.reason.contains("no write access"), "{d:?}");
            }
        }
        // The permission rules, the association does not: an owner's word is the API's.
        let d = decide(
            "issue_comment",
            &comment("/tscn-merge merge", "OWNER"),
            Some(&p),
            ("tscn-merge", Some("read")),
        );
        assert_eq!(d.action, Action::Nothing, "{d:?}");
        // A triager may label, but the label pushes only for a writer.
        let labelled = json!({"action": "labeled", "label": {"name": "tscn-merge"},
            "sender": {"login": "tri"}, "pull_request": p});
        let d = decide(
            "pull_request",
            &labelled,
            None,
            ("tscn-merge", Some("triage")),
        );
        assert_eq!(d.action, Action::Nothing, "{d:?}");
        assert!(d.reason.contains("tri labelled"), "{d:?}");
        let d = decide(
            "pull_request",
            &labelled,
            None,
            ("tscn-merge", Some("write")),
        );
        assert_eq!(d.action, Action::Merge, "{d:?}");
    }

    #[test]
    fn others_and_other_comments_do_nothing() {
        let p = pr("team/game");
        for assoc in ["CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE"] {
            let d = decide(
                "issue_comment",
                &comment("/tscn-merge merge", assoc),
                Some(&p),
                ("tscn-merge", None),
            );
            assert_eq!(d.action, Action::Nothing, "{assoc}");
            assert!(d.reason.contains("not the owner"), "{d:?}");
        }
        for body in ["please /tscn-merge merge", "/tscn-merge mergeit", "lgtm"] {
            let d = decide(
                "issue_comment",
                &comment(body, "OWNER"),
                Some(&p),
                ("tscn-merge", None),
            );
            assert_eq!(d.action, Action::Nothing, "{body}");
        }
        let mut on_issue = comment("/tscn-merge merge", "OWNER");
        on_issue["issue"]
            .as_object_mut()
            .unwrap()
            .remove("pull_request");
        assert_eq!(
            decide("issue_comment", &on_issue, Some(&p), ("x", None)).action,
            Action::Nothing
        );
        let mut edited = comment("/tscn-merge merge", "OWNER");
        edited["action"] = json!("edited");
        assert_eq!(
            decide("issue_comment", &edited, Some(&p), ("x", None)).action,
            Action::Nothing
        );
    }

    #[test]
    fn forks_get_the_report_only() {
        let p = pr("stranger/game");
        let d = decide(
            "issue_comment",
            &comment("/tscn-merge merge", "OWNER"),
            Some(&p),
            ("tscn-merge", None),
        );
        assert_eq!(d.action, Action::Report);
        assert!(d.reason.contains("fork"), "{d:?}");
        let labelled =
            json!({"action": "labeled", "label": {"name": "tscn-merge"}, "pull_request": p});
        assert_eq!(
            decide("pull_request", &labelled, None, ("tscn-merge", None)).action,
            Action::Report
        );
        let no_pr = decide(
            "issue_comment",
            &comment("/tscn-merge merge", "OWNER"),
            None,
            ("x", None),
        );
        assert_eq!((no_pr.action, no_pr.pr), (Action::Report, Some(7)));
        let other = decide(
            "issue_comment",
            &comment("/tscn-merge merge", "OWNER"),
            Some(&json!({"number": 8})),
            ("x", None),
        );
        assert_eq!(other.action, Action::Nothing);
    }

    #[test]
    fn labels_and_pushes() {
        let p = pr("team/game");
        let labelled =
            |name: &str| json!({"action": "labeled", "label": {"name": name}, "pull_request": p});
        assert_eq!(
            decide(
                "pull_request",
                &labelled("tscn-merge"),
                None,
                ("tscn-merge", None)
            )
            .action,
            Action::Merge
        );
        assert_eq!(
            decide("pull_request", &labelled("bug"), None, ("tscn-merge", None)).action,
            Action::Nothing
        );
        let pushed = json!({"action": "synchronize", "pull_request": p});
        let d = decide("pull_request", &pushed, None, ("tscn-merge", None));
        assert_eq!((d.action, d.pr), (Action::Check, Some(7)));
        let mut closed = p.clone();
        closed["state"] = json!("closed");
        let late =
            json!({"action": "labeled", "label": {"name": "tscn-merge"}, "pull_request": closed});
        assert_eq!(
            decide("pull_request", &late, None, ("tscn-merge", None)).action,
            Action::Nothing
        );
        assert_eq!(
            decide("push", &json!({}), None, ("x", None)).action,
            Action::Nothing
        );
    }

    #[test]
    fn output_lines_stay_one_per_key() {
        let mut d = merge_or_report(&pr("team/game"), "why\nnot");
        d.head = Some("evil\nkey=value".into());
        let out = d.output_lines();
        assert_eq!(out.lines().count(), 6, "{out}");
        assert!(
            out.contains("action=merge\nreason=why not\npr=7\nbase=main\nhead=evil key=value\n"),
            "{out}"
        );
    }
}
