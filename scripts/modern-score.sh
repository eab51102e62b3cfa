#!/usr/bin/env bash
# The merges-modern score: replays the real merges of ../shared/merges-modern (and, with
# --merges, ../shared/merges) through a tscn-merge binary and says, for git's conflicts,
# how many hold no true conflict and how many of those the merge resolves soundly.
#
# How each measure is defined (all from the tool's own semantic diff,
# `tscn-merge diff --format json`, of base against each side and against the result):
# - A change is keyed by its subject as base names it (a node by its base path: each
#   diff's renames and moves are undone first; a sub_resource by id, one both sides added
#   by its type and content; a connection by signal/from/to/method in base paths) and by
#   what it touches (a property key, a header field, a group, the node's name, parent,
#   or the whole part when added or removed). Its value is the new value as the diff
#   shows it. Long values are shortened by the diff: a key both sides changed to a cut
#   value counts as changed differently (it may be), one side's cut value is compared
#   as cut. Sibling reorders, `format` and `load_steps` are left out (order merges as
#   a sequence; the other two are derived from the content).
# - resolvable: a git conflict where no key changed differently on both sides (the same
#   change on both is fine) and nothing one side removed is changed by the other (on
#   the part or, for a node, under it). A value with parts of its own changed on both
#   sides (tile cells, animation keys) counts as changed differently even when its
#   parts would merge: this measure is per key, so it is slightly stricter than the
#   issue's (issue 30 gave 120 sound of 141 resolvable; its measure may differ).
# - sound: `merge` exits 0, `check` passes on the output, and every one-sided change
#   (base->ours where theirs kept base at that key, and vice versa) is in base->result
#   with the same value.
# - losing: exits 0 and passes `check` but a one-sided change is missing or different.
# - broken: exits 0 but the output fails `check` (or the tool exits 2 / crashes).
# - conflicted: exits 1 (a resolvable one here is a gap of the tool).
# Git-clean scenarios: how many the merge changes against git's clean result (`diff` of
# git's result and ours finds a change, or ours conflicts); git results that `check`
# finds broken are counted apart.
#
#   scripts/modern-score.sh                 # merges-modern with target/release/tscn-merge
#   scripts/modern-score.sh --merges        # ../shared/merges as well
#   scripts/modern-score.sh --list          # also the folders of each class
#   scripts/modern-score.sh --why           # also each unresolved/losing folder's reason
#   REPLAY_TOOL=/path/to/tscn-merge scripts/modern-score.sh
#   SCORE_JOBS=2 (parallel processes, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${TSCN_SHARED:-../shared}"
[ -d "$shared/merges-modern" ] || shared=/work/shared
exec python3 - "$shared" "${REPLAY_TOOL:-${CARGO_TARGET_DIR:-target}/release/tscn-merge}" "$@" <<'PY'
import collections, concurrent.futures, json, os, re, subprocess, sys, tempfile

shared, tool = sys.argv[1], os.path.abspath(sys.argv[2])
args = sys.argv[3:]
sets = ["merges-modern"] + (["merges"] if "--merges" in args else [])
if "--only-merges" in args:
    sets = ["merges"]
listing, why = "--list" in args, "--why" in args
debug = os.environ.get("SCORE_DEBUG", "") not in ("", "0")
jobs = int(os.environ.get("SCORE_JOBS", "2"))
if not os.access(tool, os.X_OK):
    sys.exit(f"modern-score: no binary at {tool} (build it or set REPLAY_TOOL)")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout


def diff(a, b):
    rc, out = run([tool, "diff", "--format", "json", "--color", "never", a, b])
    if rc not in (0, 1):
        return None
    try:
        return json.loads(out)
    except (ValueError, KeyError):
        return None


def parent_of(path):
    return "." if "/" not in path else path.rsplit("/", 1)[0]


def join(parent, name):
    return name if parent in (".", "") else parent + "/" + name


def path_map(changes):
    """side path -> base path, from the diff's renames and moves (prefixes too)."""
    pairs = []
    for c in changes:
        s = c["subject"]
        if s.get("kind") != "node":
            continue
        new = s.get("path", "")
        if c["kind"] == "renamed":
            pairs.append((new, join(parent_of(new), c.get("old") or "")))
        elif c["kind"] == "moved":
            pairs.append((new, join(c.get("old") or ".", new.rsplit("/", 1)[-1])))
    # Longest first, so a descendant's own rename wins over its ancestor's prefix.
    pairs.sort(key=lambda p: -len(p[0]))

    def to_base(path, _depth=0):
        if path in (".", "") or _depth > 64:
            return path
        for new, old in pairs:
            if path == new:
                # The old path's parent is itself in side naming.
                return join(to_base(parent_of(old), _depth + 1), old.rsplit("/", 1)[-1])
            if path.startswith(new + "/"):
                return to_base(new, _depth + 1) + path[len(new):]
        return path

    return to_base


SUB_REF = re.compile(r"SubResource\(([^)]*)\)")
NODE_PATH = re.compile(r'^NodePath\("([^":]*)(:[^"]*)?"\)$')


def rel_target(holder, rel):
    parts = [] if holder in (".", "") else holder.split("/")
    for step in rel.split("/"):
        if step == "..":
            if not parts:
                return None
            parts.pop()
        elif step not in (".", ""):
            parts.append(step)
    return "/".join(parts) or "."


def keyed(doc):
    """{key: value} for one diff, keys in base naming (see the top comment)."""
    changes = doc["changes"]
    to_base = path_map(changes)
    sub_base = {}
    for n in doc.get("noise") or []:
        m = re.match(r"sub_resource id (\S+) -> (\S+)$", n.get("detail", ""))
        if n.get("kind") == "id_renamed" and m:
            sub_base[m.group(2)] = m.group(1)
    added_subs = {c["subject"].get("id") for c in changes
                  if c["subject"].get("kind") == "sub_resource" and c["kind"] == "added"}

    def value(v, holder=None):
        """A value in base naming: sub_resource ids as base has them (a new one as `+`),
        a node's relative NodePath as the base path of the node it names."""
        if not isinstance(v, str):
            return v
        m = NODE_PATH.match(v)
        if m and holder is not None and not m.group(1).startswith(("/", "%")):
            target = rel_target(holder, m.group(1))
            if target is not None:
                return ("NodePath->", to_base(target), m.group(2) or "")
        return SUB_REF.sub(lambda r: "SubResource(%s)" % (
            "+" if r.group(1) in added_subs else sub_base.get(r.group(1), r.group(1))), v)

    # An ext_resource whose path changed is named by its base path.
    ext_old = {c["new"]: c["old"] for c in changes
               if c["subject"].get("kind") == "ext_resource" and c["kind"] == "field_changed"
               and c.get("key") == "path"}
    out = {}
    for c in changes:
        s, kind = c["subject"], c["kind"]
        sk = s.get("kind")
        if kind == "reordered":
            continue
        holder = s.get("path", "") if sk == "node" else None
        props = tuple(sorted((p["key"], value(p["value"], holder)) for p in c.get("properties") or []))
        if sk == "header" and c.get("key") in ("format", "load_steps"):
            continue
        if sk == "node":
            subj = ("node", to_base(s.get("path", "")))
        elif sk == "sub_resource":
            if kind == "added":
                # A new sub_resource by its type and content, whatever the ids it names.
                props = tuple((k, SUB_REF.sub("SubResource(*)", v) if isinstance(v, str) else v)
                              for k, v in props)
                subj = ("sub_resource+", s.get("type"), props)
            else:
                subj = ("sub_resource", sub_base.get(s.get("id"), s.get("id")))
        elif sk == "connection":
            subj = ("connection", s.get("signal"), to_base(s.get("from", "")),
                    to_base(s.get("to", "")), s.get("method"))
        elif sk == "ext_resource":
            subj = (sk, ext_old.get(s.get("path"), s.get("path")))
        elif sk == "editable":
            subj = (sk, to_base(s.get("path", "")))
        else:
            subj = (sk,)
        if kind in ("added", "removed"):
            key, val = "(%s)" % kind, (s.get("type"), s.get("instance"), props)
        elif kind == "renamed":
            key, val = "(name)", c.get("new")
        elif kind == "moved":
            key, val = "(parent)", to_base(c.get("new") or ".")
        elif kind in ("group_added", "group_removed"):
            key, val = "group:" + c.get("key", ""), kind
        elif kind == "field_changed":
            key, val = "field:" + c.get("key", ""), value(c.get("new"))
        else:
            key, val = "prop:" + c.get("key", ""), value(c.get("new"), holder)
        out[(subj, key)] = val
    return out


def removed_under(d):
    """Subjects a side removed (nodes by base path)."""
    return [k[0] for k in d if k[1] == "(removed)"]


def touches(subj, removed):
    if subj == removed:
        return True
    return (subj[0] == removed[0] == "node" and removed[1] not in (".", "")
            and subj[1].startswith(removed[1] + "/"))


def resolvable(do, dt):
    for k in do.keys() & dt.keys():
        if do[k] != dt[k] or cut(do[k]):
            return False, f"both changed {k[0][0]} {k[0][1:2]} {k[1]}"
    for a, b in ((do, dt), (dt, do)):
        for r in removed_under(a):
            for k in b:
                if touches(k[0], r) and k[1] != "(removed)":
                    return False, f"removed on one side, changed on the other: {r}"
    return True, ""


def cut(v):
    """Whether the diff shortened a value (two cut values that read alike may differ)."""
    return "\u2026" in repr(v) or "\u2026" in str(v)


def one_sided(do, dt):
    """Changes one side made where the other kept base (and did not remove the part)."""
    for a, b in ((do, dt), (dt, do)):
        gone = removed_under(b)
        for k, v in a.items():
            if k not in b and not any(touches(k[0], r) for r in gone):
                yield k, v


def kept(k, v, dr):
    """Whether the result holds one side's change `k` = `v`."""
    if dr.get(k) == v:
        return True
    # An ext_resource whose path changed may read, in the result, as the old one removed
    # and the new one added (a side's uid dropped with it).
    # A new sub_resource may be written merged into the other side's of one type that
    # holds all of it (both sides embedded the same resource, one a superset).
    if k[0][0] == "sub_resource+":
        props = set(k[0][2])
        return any(r[0][0] == "sub_resource+" and r[0][1] == k[0][1] and props <= set(r[0][2])
                   for r in dr)
    if k[0][0] == "ext_resource" and k[1] == "field:path":
        return (("ext_resource", v), "(added)") in dr and (k[0], "(removed)") in dr
    return False


def files(d):
    names = os.listdir(d)
    ext = next((n.split(".", 1)[1] for n in names if n.startswith("base.")), "tscn")
    return [os.path.join(d, f"{s}.{ext}") for s in ("base", "ours", "theirs", "git_diff3")], ext


def score(job):
    name, d, conflict = job
    (base, ours, theirs, git), ext = files(d)
    with tempfile.TemporaryDirectory(prefix="modern-score-") as tmp:
        out = os.path.join(tmp, "out." + ext)
        rc, _ = run([tool, "merge", "-q", "-o", out, base, ours, theirs])
        valid = rc == 0 and run([tool, "check", out])[0] == 0
        if not conflict:
            if run([tool, "check", git])[0] != 0:
                return name, "git_broken", "ours valid" if valid else "ours not valid"
            if rc != 0:
                return name, "differs", "we conflict"
            if not valid:
                return name, "differs", "our result fails check"
            r, _ = run([tool, "diff", git, out])
            return name, ("differs" if r != 0 else "same"), ""
        do, dt = diff(base, ours), diff(base, theirs)
        if do is None or dt is None:
            return name, "unreadable", "a side does not diff"
        do, dt = keyed(do), keyed(dt)
        ok, reason = resolvable(do, dt)
        prefix = "resolvable" if ok else "true"
        if rc == 1:
            return name, prefix + ":conflicted", reason
        if rc != 0 or not valid:
            return name, prefix + ":broken", f"exit {rc}" if rc != 0 else "fails check"
        dr = diff(base, out)
        if dr is None:
            return name, prefix + ":broken", "result does not diff"
        dr = keyed(dr)
        lost = [f"{k[0][0]} {k[0][1:2]} {k[1]}" + (f" = {str(v)[:60]!r}, result {str(dr.get(k))[:60]!r}" if debug else "")
                for k, v in one_sided(do, dt) if not kept(k, v, dr)]
        if lost:
            return name, prefix + ":losing", "; ".join(lost[:3])
        return name, prefix + ":sound", reason


for set_name in sets:
    root = os.path.join(shared, set_name)
    with open(os.path.join(root, "SUMMARY.tsv"), encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f if l.strip()]
    todo = [(r["id"], os.path.join(root, r["id"]), r["git_conflicts"] != "0") for r in rows]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = sorted(pool.map(score, todo))
    by = collections.defaultdict(list)
    for name, cls, reason in results:
        by[cls].append((name, reason))
    n = lambda *cs: sum(len(by[c]) for c in cs)
    conflicts = sum(1 for t in todo if t[2])
    outcomes = ("sound", "losing", "broken", "conflicted")
    res = n(*("resolvable:" + o for o in outcomes))
    print(f"{set_name} ({tool})")
    print(f"  git conflicts {conflicts}: resolvable {res}, of those sound {n('resolvable:sound')}, "
          f"losing {n('resolvable:losing')}, broken {n('resolvable:broken')}, "
          f"still conflicted {n('resolvable:conflicted')}")
    print(f"  with a true conflict {n(*('true:' + o for o in outcomes))}: clean {n('true:sound', 'true:losing')} "
          f"(losing {n('true:losing')}), broken {n('true:broken')}, conflicted {n('true:conflicted')}"
          + (f"; unreadable {n('unreadable')}" if by["unreadable"] else ""))
    print(f"  all git conflicts: losing {n('resolvable:losing', 'true:losing')}, "
          f"broken {n('resolvable:broken', 'true:broken')}")
    clean = len(todo) - conflicts
    print(f"  git clean {clean}: same scene as git {n('same')}, changed by our merge {n('differs')}, "
          f"git's own result broken {n('git_broken')} (ours valid on "
          f"{sum(1 for _, r in by['git_broken'] if r == 'ours valid')})")
    if listing or why:
        for cls in sorted(by):
            if cls in ("same", "true:conflicted") and not listing:
                continue
            if not listing and cls.endswith(":sound"):
                continue
            for name, reason in by[cls]:
                print(f"  {cls}\t{name}" + (f"\t{reason}" if why and reason else ""))
PY
